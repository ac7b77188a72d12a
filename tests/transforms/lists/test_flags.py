from dataclasses import replace
from datetime import date

import polars as pl

from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import default_rulebook_path
from transforms.lists.flags import (
    activity,
    category_from_rating,
    category_rank,
    highest_category,
    is_youth,
    months_before,
    played_through_and_activity,
)
from transforms.lists.rankings import rankings

ERA = parse_rulebook(default_rulebook_path("elo_italia").read_bytes()).era_at(date(2019, 4, 1))
LIST_DATE = date(2019, 4, 1)


def test_months_before_keeps_the_day_or_the_last_day_of_the_month():
    assert months_before(date(2019, 4, 1), 24) == date(2017, 4, 1)
    assert months_before(date(2020, 3, 31), 1) == date(2020, 2, 29)


def test_active_means_a_tournament_in_the_24_months_before_the_list():
    played = pl.DataFrame(
        {
            "player_id": ["recent", "first_day", "day_before", "future"],
            "played_on": [date(2019, 3, 1), date(2017, 4, 1), date(2017, 3, 31), date(2019, 5, 1)],
        }
    )
    abroad = pl.DataFrame({"player_id": ["abroad"], "played_on": [date(2018, 6, 1)]})
    flags = activity(played, abroad, LIST_DATE, ERA).sort("player_id")
    assert dict(flags.select("player_id", "is_active").rows()) == {
        "abroad": True,
        # the 24 months before 1 April 2019 are April 2017 to March 2019, both whole
        "first_day": True,
        "day_before": False,
        "recent": True,
    }  # "future" played after the list date: not known at the list
    before_1998 = replace(ERA, foreign_fide_tournaments=False)
    assert "abroad" not in activity(played, abroad, LIST_DATE, before_1998)["player_id"]


def test_played_through_and_activity_come_from_one_grouping_as_from_two():
    rated_before = pl.DataFrame(
        {
            "player_id": ["a", "b", "d"],
            "played_on": [date(2018, 1, 10), date(2016, 5, 1), date(2018, 12, 1)],
        }
    )
    this_period = pl.DataFrame(
        {
            "player_id": ["a", "a", "c", "d"],
            "played_on": [date(2019, 2, 1), date(2018, 11, 3), date(2019, 3, 9), date(2019, 5, 2)],
        }
    )
    # "d" last played after the list date by the files, earlier by the previous list
    carried = pl.DataFrame({"player_id": ["b", "d", "e"], "played_on": [date(2017, 6, 1)] * 3})
    abroad = pl.DataFrame({"player_id": ["b"], "played_on": [date(2018, 9, 9)]})
    through, flags = played_through_and_activity(
        [rated_before, this_period], carried, abroad, LIST_DATE, ERA
    )
    assert dict(through.rows()) == {
        "a": date(2019, 2, 1),
        "b": date(2016, 5, 1),
        "c": date(2019, 3, 9),
        "d": date(2019, 5, 2),
    }
    assert {row[0]: row[1:] for row in flags.rows()} == {
        "a": (date(2019, 2, 1), True),
        "b": (date(2018, 9, 9), True),  # abroad, after the carried date
        "c": (date(2019, 3, 9), True),
        # the files' latest date is after the list: it does not count, and no earlier file
        # date stands in for it; the previous list's date does
        "d": (date(2017, 6, 1), True),
        "e": (date(2017, 6, 1), True),
    }
    # the same activity as from each player's latest rated date as a participation
    participations = pl.concat([through, carried])
    assert flags.sort("player_id").equals(
        activity(participations, abroad, LIST_DATE, ERA).sort("player_id")
    )


def test_categories_come_from_the_rating_and_are_never_lowered():
    frame = pl.DataFrame(
        {
            "rating": [1499, 1500, 1600, 1799, 1800, 2000, 2400, 1450],
            "previous": ["NC", "NC", "3N", "1N", "2S", "CM", "M", "2N"],
        }
    )
    derived = frame.with_columns(category_from_rating(pl.col("rating"), ERA).alias("from_rating"))
    assert derived["from_rating"].to_list() == [
        None,
        "3N",
        "2N",
        "2N",
        "1N",
        "CM",
        "CM",
        None,  # M is never derived from rating alone
    ]
    kept = derived.with_columns(highest_category(["from_rating", "previous"], ERA).alias("c"))
    assert kept["c"].to_list() == ["NC", "3N", "2N", "1N", "1N", "CM", "M", "2N"]


def test_a_category_ranks_by_its_place_in_the_ladder_and_an_unknown_one_not_at_all():
    frame = pl.DataFrame({"category": ["NC", "2S", "1S", "3N", "2N", "1N", "CM", "M", "ZZ", None]})
    ranks = frame.select(category_rank(pl.col("category"), ERA)).to_series()
    assert ranks.dtype == pl.Int32
    assert ranks.to_list() == [0, 1, 2, 3, 4, 5, 6, 7, None, None]
    # an unknown category never outranks a known one
    mixed = pl.DataFrame({"a": ["ZZ", None, "3N"], "b": ["NC", "2S", None]})
    assert mixed.select(highest_category(["a", "b"], ERA)).to_series().to_list() == [
        "NC",
        "2S",
        "3N",
    ]


def test_youth_is_under_18_on_1_january_of_the_list_year():
    births = pl.DataFrame({"born": [date(2001, 1, 1), date(2001, 1, 2), date(2010, 6, 1)]})
    assert births.select(is_youth(pl.col("born"), LIST_DATE, ERA))["born"].to_list() == [
        False,
        True,
        True,
    ]


def test_youth_on_the_list_date_when_the_rulebook_says_so():
    # flags.youth_age_on = "list_date": under 18 on 2019-04-01 means born after 2001-04-01
    on_list_date = replace(ERA, youth_age_on="list_date")
    births = pl.DataFrame({"born": [date(2001, 1, 2), date(2001, 4, 1), date(2001, 4, 2)]})
    youth = births.select(is_youth(pl.col("born"), LIST_DATE, on_list_date))["born"]
    assert youth.to_list() == [False, False, True]


def test_rankings_share_positions_on_ties_and_skip_the_ineligible():
    listed = pl.DataFrame(
        {
            "player_id": ["a", "b", "c", "d", "e"],
            "rating": [2000, 1900, 1900, 1800, 2500],
            "in_ranking": [True, True, True, True, False],
            "is_woman": [False, True, True, False, True],
            "is_youth": [False, False, True, True, True],
        }
    )
    ranked = rankings(listed)
    overall = ranked.filter(pl.col("ranking") == "overall").select("position", "player_id")
    assert overall.rows() == [(1, "a"), (2, "b"), (2, "c"), (4, "d")]
    women = ranked.filter(pl.col("ranking") == "women").select("position", "player_id")
    assert women.rows() == [(1, "b"), (1, "c")]
    youth = ranked.filter(pl.col("ranking") == "youth").select("position", "player_id")
    assert youth.rows() == [(1, "c"), (2, "d")]
