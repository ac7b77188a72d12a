"""A draughts list (transforms/rubele/lists.py): what the list date shows of the window."""

import dataclasses
from datetime import date

import polars as pl
import pytest

from tests.reference.random_rubele import edited_rulebook, era_change
from transforms.lists.eras import default_rulebook_path
from transforms.rubele.lists import (
    PEAK_COLUMNS,
    RubeleFacts,
    build_rubele_list,
    category_levels,
    unrated_entries,
)
from transforms.rubele.rulebook import parse_rubele_rulebook

ITALIANA = parse_rubele_rulebook(default_rulebook_path("rubele_italiana").read_bytes())
INTERNAZIONALE = parse_rubele_rulebook(default_rulebook_path("rubele_internazionale").read_bytes())
REGISTRY_SCHEMA = {
    "player_id": pl.Utf8,
    "name": pl.Utf8,
    "sex": pl.Utf8,
    "birth_date": pl.Date,
    "country": pl.Utf8,
    "category_italiana": pl.Utf8,
    "category_internazionale": pl.Utf8,
    "capital_italiana": pl.Int32,
    "capital_internazionale": pl.Int32,
}


def _facts(
    previous: list[tuple[str, int, str]],
    tournaments: list[tuple[str, date]],
    games: list[tuple[str, str, str, float]],
) -> RubeleFacts:
    """``previous``: (player, capital, category) on the list before; ``tournaments``: (id, end
    date), played in one day; ``games``: (tournament, player, opponent, player's points)."""
    both = [row for t, a, b, points in games for row in ((t, a, b, points), (t, b, a, 1 - points))]
    played = pl.DataFrame(
        both,
        schema={
            "tournament_id": pl.Utf8,
            "player_id": pl.Utf8,
            "opponent_id": pl.Utf8,
            "points": pl.Float64,
        },
        orient="row",
    )
    registry = pl.DataFrame(
        [
            (pid, pid, "M", date(1980, 1, 1), "ITA", category, None, None, None)
            for pid, _, category in previous
        ],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )
    return RubeleFacts(
        previous=pl.DataFrame(
            [
                (pid, capital, 100, category, date(2021, 10, 1))
                for pid, capital, category in previous
            ],
            schema={
                "player_id": pl.Utf8,
                "rating": pl.Int32,
                "total_games": pl.Int32,
                "category": pl.Utf8,
                "last_played": pl.Date,
            },
            orient="row",
        ),
        tournaments=pl.DataFrame(
            [(tid, end, end, 100, 1, tid) for tid, end in tournaments],
            schema={
                "tournament_id": pl.Utf8,
                "start_date": pl.Date,
                "end_date": pl.Date,
                "validity": pl.Int32,
                "tournament_version": pl.Int32,
                "name": pl.Utf8,
            },
            orient="row",
        ),
        entries=played.group_by("tournament_id", "player_id").agg(pl.col("points").sum()),
        games=played,
        registry=registry,
        members=registry.select("player_id"),
        played_before=pl.DataFrame(schema={"player_id": pl.Utf8, "played_on": pl.Date}),
    )


def test_a_threshold_crossed_during_the_window_is_a_category_reached() -> None:
    # K (CM, 3880; S 100) beats W (3000): PA = Phi(880 / 1414.21) = 0.7331, V = +26.69 ->
    # 3906.69, over 3900: 3900 + 6.69 * 50 / 100 = 3903.35, + Q 10 -> 3913: Maestro.
    # Then K (3913; S 50) loses to Q (3950): PA = Phi(-37 / 1414.21) = 0.4896, V = -24.48 ->
    # 3888.52, + Q 10 -> 3899 at the list date. The category reached is kept: M, not CM.
    facts = _facts(
        [("K", 3880, "CM"), ("W", 3000, "CM"), ("Q", 3950, "M")],
        [("T1", date(2022, 2, 2)), ("T2", date(2022, 3, 2))],
        [("T1", "K", "W", 1.0), ("T2", "K", "Q", 0.0)],
    )
    rows = build_rubele_list(facts, ITALIANA, date(2022, 7, 1)).rows
    k = rows.filter(pl.col("player_id") == "K").row(0, named=True)
    assert (k["rating"], k["category"], k["previous_category"]) == (3899, "M", "CM")
    assert k["note"] == "category M"


EVERY = edited_rulebook("italiana", [('upward = "first"', 'upward = "every"')])


def test_under_first_what_a_player_held_before_says_whether_he_passed_a_threshold() -> None:
    # 2021 (no Q), PA 0.5 in every game (equal capitals). All at 2990, the winners reach
    # 2990 + 75 = 3065 over 3000; every time: 3000 + 65 x 100/150 = 3043.33 -> 3043.
    # First (the default): K, a Maestro on the previous list (threshold 3900: his capital was
    # at least 3900, above 3000), passed 3000 before: 3065, not rescaled. V, a CM (threshold
    # 3000: he reached 3000, the category cannot say he passed it): rescaled, 3043. P, an N
    # whose lists before show a capital of 3100 (his peak): 3065. The losers fall to 2915.
    # Y and Z, Maestri at 3900 (RULES.md §3's case CI 3900, D +0.5): 3900 is the middle band
    # (S 100), Y reaches 3950 over 3900, which his 3900 never passed: 3900 + 50 x 50/100 =
    # 3925 under both settings; Z 3850.
    facts = _facts(
        [
            ("K", 2990, "M"),
            ("W", 2990, "N"),
            ("V", 2990, "CM"),
            ("U", 2990, "N"),
            ("P", 2990, "N"),
            ("R", 2990, "N"),
            ("Y", 3900, "M"),
            ("Z", 3900, "M"),
        ],
        [("T1", date(2021, 11, 2)), ("T2", date(2021, 11, 3)), ("T3", date(2021, 11, 4))],
        [
            ("T1", "K", "W", 1.0),
            ("T2", "V", "U", 1.0),
            ("T3", "P", "R", 1.0),
            ("T3", "Y", "Z", 1.0),
        ],
    )
    facts = dataclasses.replace(
        facts, peaks=pl.DataFrame([("P", 3100), ("W", 2990)], schema=PEAK_COLUMNS, orient="row")
    )
    assert ITALIANA.era_at(date(2021, 11, 2)).rescale_upward == "first"
    first = build_rubele_list(facts, ITALIANA, date(2022, 1, 1))
    every = build_rubele_list(facts, EVERY, date(2022, 1, 1))
    losers = {"W": 2915, "U": 2915, "R": 2915, "Z": 3850}
    assert dict(every.rows.select("player_id", "rating").rows()) == losers | {
        "K": 3043,
        "V": 3043,
        "P": 3043,
        "Y": 3925,
    }
    assert dict(first.rows.select("player_id", "rating").rows()) == losers | {
        "K": 3065,
        "V": 3043,
        "P": 3065,
        "Y": 3925,
    }
    notes = dict(first.variations.select("player_id", "note").rows())
    assert notes["K"] == (
        "1 threshold(s) crossed again, not rescaled (passed before: capital 3900 held)"
    )
    assert notes["P"] == (
        "1 threshold(s) crossed again, not rescaled (passed before: capital 3100 held)"
    )
    assert notes["V"] == "1 threshold(s) crossed: 3065.0 rescaled to 3043.33"
    assert notes["Y"] == "1 threshold(s) crossed: 3950.0 rescaled to 3925.0"


def test_category_levels_are_the_thresholds_held() -> None:
    levels = category_levels(ITALIANA).filter(pl.col("era") == 0)
    assert levels.select("previous_category", "category_reached").rows() == [
        ("CM", 3000),
        ("M", 3900),
    ]


def test_a_tournament_at_a_validity_the_era_does_not_know_is_set_aside() -> None:
    # T2 at 75 %: the rulebook knows 100 % and 50 %. K's win in T2 is not applied (he stays
    # 3880, and T2 gives no activity); the list says why
    facts = _facts(
        [("K", 3880, "CM"), ("W", 3000, "CM")],
        [("T1", date(2022, 2, 2)), ("T2", date(2022, 3, 2))],
        [("T1", "K", "W", 0.5), ("T2", "K", "W", 1.0)],
    )
    facts = dataclasses.replace(
        facts,
        tournaments=facts.tournaments.with_columns(
            pl.when(pl.col("tournament_id") == "T2")
            .then(75)
            .otherwise(pl.col("validity"))
            .cast(pl.Int32)
            .alias("validity")
        ),
    )
    published = build_rubele_list(facts, ITALIANA, date(2022, 7, 1))
    assert published.excluded.rows() == [
        (
            "T2",
            "validity 75 % is not a validity of the rulebook's era from 2022-01-01 (in force on "
            "the end date 2022-03-02): it knows 100 %, 50 %",
        )
    ]
    assert published.variations.get_column("tournament_id").unique().to_list() == ["T1"]
    # T1, a draw: K (S 100, PA Phi(880 / 1414.21) = 0.7331) 3880 - 23.31 + Q 10 = 3866.69 -> 3867
    k = published.rows.filter(pl.col("player_id") == "K").row(0, named=True)
    assert (k["rating"], k["games"]) == (3867, 1)


def test_games_with_their_kind_follow_the_rulebook() -> None:
    # K beats W by forfeit (2021, no Q, both 2990). By default nothing counts; with the forfeit
    # counted for its loser: W's PA 0.5, D -0.5, V -75 -> 2915; K's win never counts
    facts = _facts([("K", 2990, "N"), ("W", 2990, "N")], [("T1", date(2021, 11, 2))], [])
    games = pl.DataFrame(
        [("T1", "K", "W", 1.0, "forfeit"), ("T1", "W", "K", 0.0, "forfeit")],
        schema=facts.games.schema | {"kind": pl.Utf8},
        orient="row",
    )
    entries = games.group_by("tournament_id", "player_id").agg(pl.col("points").sum())
    facts = dataclasses.replace(facts, games=games, entries=entries)
    losses = edited_rulebook(
        "italiana", [("counted_for_loser = []", 'counted_for_loser = ["forfeit"]')]
    )
    by_default = build_rubele_list(facts, ITALIANA, date(2022, 1, 1)).rows
    counted = build_rubele_list(facts, losses, date(2022, 1, 1)).rows
    assert by_default.select("player_id", "rating", "games").rows() == [
        ("K", 2990, 0),
        ("W", 2990, 0),
    ]
    assert counted.select("player_id", "rating", "games").rows() == [
        ("K", 2990, 0),
        ("W", 2915, 1),
    ]


def test_only_a_foreign_player_enters_with_the_registrys_capital() -> None:
    # Two newcomers of category N with a capital_italiana of 2600 in the registry: the French
    # one enters at 2600 (RULES.md §3, "a foreign player enters with the capital given in the
    # input"), the Italian one by his category, at 2200. They draw: equal capitals move not,
    # unequal ones do, so compare the frozen capitals.
    facts = _facts([], [("T1", date(2021, 5, 2))], [("T1", "ITA1", "FRA1", 0.5)])
    registry = pl.DataFrame(
        [
            ("ITA1", "Rossi", "M", date(1980, 1, 1), "ITA", "N", None, 2600, None),
            ("FRA1", "Dupont", "M", date(1980, 1, 1), "FRA", "N", None, 2600, None),
        ],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )
    facts = dataclasses.replace(facts, registry=registry, members=registry.select("player_id"))
    rows = build_rubele_list(facts, ITALIANA, date(2021, 7, 1)).rows.sort("player_id")
    assert rows.select("player_id", "frozen_rating", "rating_basis").rows() == [
        ("FRA1", 2600, "foreign"),
        ("ITA1", 2200, "debutant"),
    ]
    # his category is the one he entered with: no news to note beside his entry
    assert rows.filter(pl.col("player_id") == "ITA1").select("category", "note").row(0) == (
        "N",
        "debutant: entered at 2200 (N)",
    )


def test_a_foreign_player_without_a_capital_enters_by_his_category_and_the_list_says_so():
    # RULES.md §3 gives a foreign player the capital of the input; the registry gives FRA2 none
    # for dama italiana: he enters as a debutant of his category, not silently
    facts = _facts([], [("T1", date(2021, 5, 2))], [("T1", "ITA1", "FRA2", 0.5)])
    registry = pl.DataFrame(
        [
            ("ITA1", "Rossi", "M", date(1980, 1, 1), "ITA", "N", None, None, None),
            ("FRA2", "Martin", "M", date(1980, 1, 1), "FRA", "N", None, None, 1800),
        ],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )
    facts = dataclasses.replace(facts, registry=registry, members=registry.select("player_id"))
    rows = build_rubele_list(facts, ITALIANA, date(2021, 7, 1)).rows.sort("player_id")
    assert rows.select("player_id", "frozen_rating", "rating_basis", "note").rows() == [
        (
            "FRA2",
            2200,
            "debutant",
            "debutant: entered at 2200 (N), as the FID registry gives this foreign player no "
            "capital_italiana",
        ),
        ("ITA1", 2200, "debutant", "debutant: entered at 2200 (N)"),
    ]


def test_active_means_a_valid_tournament_in_the_24_whole_months_before_the_list() -> None:
    # The list of 2023-07-01 looks back over July 2021 to June 2023: last played on 2021-07-01,
    # FIRST is active; on 2021-06-30, BEFORE is not (nor in the rankings).
    facts = _facts([("FIRST", 2500, "N"), ("BEFORE", 2500, "N")], [], [])
    facts = dataclasses.replace(
        facts,
        previous=facts.previous.with_columns(
            pl.when(pl.col("player_id") == "FIRST")
            .then(date(2021, 7, 1))
            .otherwise(date(2021, 6, 30))
            .alias("last_played")
        ),
    )
    rows = build_rubele_list(facts, ITALIANA, date(2023, 7, 1)).rows.sort("player_id")
    assert rows.select("player_id", "is_active", "in_ranking").rows() == [
        ("BEFORE", False, False),
        ("FIRST", True, True),
    ]


def test_a_foreign_player_already_listed_keeps_his_listed_capital() -> None:
    # the registry's capital is an entry capital: F001, on the previous list at 2500, plays
    # from 2500 (basis list), not from the registry's 1800
    facts = _facts(
        [("F001", 2500, "N"), ("D001", 2500, "N")],
        [("T1", date(2022, 2, 2))],
        [("T1", "F001", "D001", 0.5)],
    )
    registry = pl.DataFrame(
        [
            ("F001", "Dupont", "M", date(1980, 1, 1), "FRA", "N", None, 1800, None),
            ("D001", "Rossi", "M", date(1980, 1, 1), "ITA", "N", None, None, None),
        ],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )
    facts = dataclasses.replace(facts, registry=registry, members=registry.select("player_id"))
    rows = build_rubele_list(facts, ITALIANA, date(2022, 7, 1)).rows
    foreign = rows.filter(pl.col("player_id") == "F001").row(0, named=True)
    assert (foreign["frozen_rating"], foreign["rating_basis"]) == (2500, "list")


def test_a_debutant_enters_with_the_values_of_the_era_of_his_first_tournament() -> None:
    # an era from 2022-01-01 sets the capital of an unlisted category to 1600: X1 and X2, first
    # seen in a tournament ending that very day, enter at 1600 (1500 the era before)
    yearly = edited_rulebook(
        "italiana", [era_change("italiana", "2022-01-01", "  [eras.debutants]\n  other = 1600\n")]
    )
    facts = _facts([], [("T1", date(2022, 1, 1))], [("T1", "X1", "X2", 0.5)])
    registry = pl.DataFrame(
        [
            (player, player, "M", date(1980, 1, 1), "ITA", "NC", None, None, None)
            for player in ("X1", "X2")
        ],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )
    facts = dataclasses.replace(facts, registry=registry, members=registry.select("player_id"))
    rows = build_rubele_list(facts, yearly, date(2022, 7, 1)).rows
    assert rows.select("player_id", "frozen_rating", "rating_basis").rows() == [
        ("X1", 1600, "debutant"),
        ("X2", 1600, "debutant"),
    ]


# --------------------------------------------------------------------------- entry capitals


def _registry(rows: list[tuple]) -> pl.DataFrame:
    """(player_id, country, category_italiana, category_internazionale, capital_italiana,
    capital_internazionale) -> FID registry rows."""
    return pl.DataFrame(
        [(pid, pid, "M", date(1980, 1, 1), *rest) for pid, *rest in rows],
        schema=REGISTRY_SCHEMA,
        orient="row",
    )


def _newcomers(games: list[tuple[str, str, str, float]], ends: dict[str, date], registry):
    facts = _facts([], list(ends.items()), games)
    return dataclasses.replace(facts, registry=registry, members=registry.select("player_id"))


def test_a_dama_internazionale_debutant_may_enter_by_his_dama_italiana_category() -> None:
    # 2021, dama internazionale, debutants drawing each other at equal capitals (no change).
    # Own category: NC 1000 (other), N 1500, M 3000. Dama italiana table: M 2000, CM 1500.
    # I1, I5 (italiana M, internazionale NC): 2000 > 1000, enter at 2000 (a capital of 2000 is
    # an internazionale CM). I2, I6 (italiana CM, internazionale N): 1500, not more than N's
    # 1500: by their own category. I3, I7 (italiana M, internazionale M): 3000 > 2000, their
    # own. I4, I8 (italiana N, no entry in the table): NC, 1000.
    registry = _registry(
        [
            ("I1", "ITA", "M", "NC", None, None),
            ("I5", "ITA", "M", "NC", None, None),
            ("I2", "ITA", "CM", "N", None, None),
            ("I6", "ITA", "CM", "N", None, None),
            ("I3", "ITA", "M", "M", None, None),
            ("I7", "ITA", "M", "M", None, None),
            ("I4", "ITA", "N", "NC", None, None),
            ("I8", "ITA", "N", "NC", None, None),
        ]
    )
    facts = _newcomers(
        [
            ("T1", "I1", "I5", 0.5),
            ("T1", "I2", "I6", 0.5),
            ("T1", "I3", "I7", 0.5),
            ("T1", "I4", "I8", 0.5),
        ],
        {"T1": date(2021, 5, 2)},
        registry,
    )
    rows = build_rubele_list(facts, INTERNAZIONALE, date(2021, 7, 1)).rows
    entered = dict(rows.select("player_id", "frozen_rating").rows())
    assert entered == {
        "I1": 2000,
        "I5": 2000,
        "I2": 1500,
        "I6": 1500,
        "I3": 3000,
        "I7": 3000,
        "I4": 1000,
        "I8": 1000,
    }
    notes = dict(rows.select("player_id", "note").rows())
    assert notes["I1"] == (
        "debutant: entered at 2000 (his dama italiana category M, above his NC); category CM"
    )
    assert notes["I2"] == "debutant: entered at 1500 (N)"
    # without the table (an era of the rulebook that empties it), I1 enters by his NC: 1000
    without = edited_rulebook(
        "internazionale",
        [('italiana_category = { "M" = 2000, "CM" = 1500 }', "italiana_category = {}")],
    )
    rows = build_rubele_list(facts, without, date(2021, 7, 1)).rows
    assert dict(rows.select("player_id", "frozen_rating").rows())["I1"] == 1000


def test_an_entry_capital_below_the_minimum_is_raised_to_it() -> None:
    # A rulebook whose Nazionali enter at 400, below the minimum 500 (from 1994-01-16).
    # 2021: N1 (N) enters at 500, not 400; the foreign F1, given 300 by the registry, at 500.
    # They draw at equal capitals: 500 both. In 1990 (no minimum yet): 400 and 300.
    low = edited_rulebook("italiana", [('"N" = 2200 }', '"N" = 400 }')])
    registry = _registry(
        [("N1", "ITA", "N", None, None, None), ("F1", "FRA", None, None, 300, None)]
    )
    games = [("T1", "N1", "F1", 0.5)]
    recent = _newcomers(games, {"T1": date(2021, 5, 2)}, registry)
    rows = build_rubele_list(recent, low, date(2021, 7, 1)).rows.sort("player_id")
    assert rows.select("player_id", "frozen_rating", "rating", "rating_basis", "note").rows() == [
        (
            "F1",
            500,
            500,
            "foreign",
            "foreign player: the registry's capital 300 raised to the minimum 500",
        ),
        (
            "N1",
            500,
            500,
            "debutant",
            "debutant: entered at 500 (N), raised to the minimum from 400",
        ),
    ]
    early = _newcomers(games, {"T1": date(1990, 5, 2)}, registry)
    rows = build_rubele_list(early, low, date(1990, 7, 1)).rows.sort("player_id")
    # 300 draws 400: F1's PA = Phi(-100 / 1414.21) = 0.4718, V = 150 x 0.0282 = +4.2 -> 304;
    # N1's V = -4.2 -> 395.8 -> 396
    assert rows.select("player_id", "frozen_rating", "rating").rows() == [
        ("F1", 300, 304),
        ("N1", 400, 396),
    ]


def test_the_federations_country_is_the_rulebooks() -> None:
    # Two newcomers of category N with a capital_italiana of 2600 in the registry: with the
    # shipped country ITA, the French one enters at 2600 and the Italian at 2200 (N); with a
    # rulebook of the French federation the other way round.
    registry = _registry(
        [("ITA1", "ITA", "N", None, 2600, None), ("FRA1", "FRA", "N", None, 2600, None)]
    )
    facts = _newcomers([("T1", "ITA1", "FRA1", 0.5)], {"T1": date(2021, 5, 2)}, registry)
    french = edited_rulebook("italiana", [('country = "ITA"', 'country = "FRA"')])
    columns = ("player_id", "frozen_rating", "rating_basis")
    shipped = build_rubele_list(facts, ITALIANA, date(2021, 7, 1)).rows.sort("player_id")
    assert shipped.select(columns).rows() == [("FRA1", 2600, "foreign"), ("ITA1", 2200, "debutant")]
    other = build_rubele_list(facts, french, date(2021, 7, 1)).rows.sort("player_id")
    assert other.select(columns).rows() == [("FRA1", 2200, "debutant"), ("ITA1", 2600, "foreign")]


def test_the_registrys_warning_follows_the_rulebooks_country() -> None:
    # a capital the FID registry gives a player of the federation's own country is ignored,
    # with a warning: the own country is each variant's rulebook's federation.country
    from transforms.inputs.draughts_csv import type_fid_players

    columns = list(REGISTRY_SCHEMA)
    raw = pl.DataFrame(
        [
            ["D1", "Rossi", "M", "1980-01-01", "ITA", "N", "", "2600", ""],
            ["F1", "Dupont", "M", "1980-01-01", "FRA", "", "", "2600", "2100"],
        ],
        schema=columns,
        orient="row",
    ).with_columns(pl.Series("line_no", [2, 3], dtype=pl.Int32))
    shipped = {book.variant: book.country for book in (ITALIANA, INTERNAZIONALE)}
    _, problems = type_fid_players(raw, shipped)
    assert problems.select("line_no", "field").rows() == [(2, "capital_italiana")]
    _, problems = type_fid_players(raw, {"italiana": "FRA", "internazionale": "ITA"})
    assert problems.select("line_no", "field").rows() == [(3, "capital_italiana")]
    assert "player_id F1 is of FRA" in problems.get_column("reason")[0]


# --------------------------------------------------------------------------- variants' start


def test_a_tournament_before_dama_italiana_was_rated_is_set_aside_with_the_reason() -> None:
    # dama italiana from 1987-01-01: OLD (ending 1986-12-31) is not rated, NEW is. Two
    # Maestri (rated in 1987) at 3900 draw NEW: no change; A's win in OLD is not applied
    facts = _facts(
        [("A", 3900, "M"), ("B", 3900, "M")],
        [("OLD", date(1986, 12, 31)), ("NEW", date(1987, 2, 1))],
        [("OLD", "A", "B", 1.0), ("NEW", "A", "B", 0.5)],
    )
    published = build_rubele_list(facts, ITALIANA, date(1987, 7, 1))
    assert published.excluded.rows() == [
        (
            "OLD",
            "ends on 1986-12-31, before dama italiana is rated (from 1987-01-01, the "
            "rulebook's first era)",
        )
    ]
    assert published.variations.get_column("tournament_id").unique().to_list() == ["NEW"]
    assert published.rows.select("player_id", "rating", "games").rows() == [
        ("A", 3900, 1),
        ("B", 3900, 1),
    ]


def _first_era_of_dama_italiana() -> RubeleFacts:
    # 1988: A and B (N, enter at 2200), C and D (1C, not rated before 1994-01-16). A beats C,
    # draws B; C beats D.
    registry = _registry(
        [
            ("A", "ITA", "N", None, None, None),
            ("B", "ITA", "N", None, None, None),
            ("C", "ITA", "1C", None, None, None),
            ("D", "ITA", "1C", None, None, None),
        ]
    )
    return _newcomers(
        [("T1", "A", "C", 1.0), ("T1", "A", "B", 0.5), ("T1", "C", "D", 1.0)],
        {"T1": date(1988, 5, 2)},
        registry,
    )


def test_in_the_first_era_of_dama_italiana_only_m_cm_and_n_are_rated() -> None:
    facts = _first_era_of_dama_italiana()
    assert unrated_entries(facts, ITALIANA).select("tournament_id", "player_id").rows() == [
        ("T1", "C"),
        ("T1", "D"),
    ]
    # default: C and D get no capital and no row; A's game against C is dropped for both:
    # A and B drew at 2200, no change
    published = build_rubele_list(facts, ITALIANA, date(1988, 7, 1))
    assert published.rows.select("player_id", "rating", "games").rows() == [
        ("A", 2200, 1),
        ("B", 2200, 1),
    ]
    notes = dict(published.variations.select("player_id", "note").rows())
    assert notes == {
        "A": "1 game(s) against players whose category is not rated in this era: dropped",
        "B": None,
    }
    # counted against the unrated player's entry capital (1C: other, 1500): A (2200) beats C:
    # PA = Phi(700 / 1414.21) = 0.68969, plus 0.5 against B: PO 1.5, PA 1.18969, D +0.31031,
    # S 150: V +46.55 -> 2246.55 -> 2247; B unchanged. C and D still get no row.
    counted = edited_rulebook(
        "italiana", [('unrated_opponents = "dropped"', 'unrated_opponents = "entry_capital"')]
    )
    published = build_rubele_list(facts, counted, date(1988, 7, 1))
    assert published.rows.select("player_id", "rating", "games").rows() == [
        ("A", 2247, 2),
        ("B", 2200, 1),
    ]
    a = published.variations.filter(pl.col("player_id") == "A").row(0, named=True)
    assert a["expected"] == pytest.approx(1.18969, abs=1e-5)
    assert a["note"] == (
        "1 game(s) against players whose category is not rated in this era: counted at their "
        "entry capital"
    )
    # from 1994-01-16 every category is rated: in 1995 C and D enter at 1500 (other)
    later = dataclasses.replace(
        facts,
        tournaments=facts.tournaments.with_columns(
            pl.lit(date(1995, 5, 2)).alias("start_date"), pl.lit(date(1995, 5, 2)).alias("end_date")
        ),
    )
    rows = build_rubele_list(later, ITALIANA, date(1995, 7, 1)).rows
    assert rows.get_column("player_id").to_list() == ["A", "B", "C", "D"]


def test_a_player_is_rated_from_the_first_tournament_whose_era_rates_his_category() -> None:
    # window of the list of 1994-07-01: T1 ends 1994-01-10 (first era: 1C not rated), T2
    # 1994-02-01 (every category). C (1C) beats A (N) in T1: dropped, C not rated there. In T2
    # C draws D (1C): both rated now, entering at 1500 (other, era of 1994-01-16): no change.
    registry = _registry(
        [
            ("A", "ITA", "N", None, None, None),
            ("C", "ITA", "1C", None, None, None),
            ("D", "ITA", "1C", None, None, None),
        ]
    )
    facts = _newcomers(
        [("T1", "C", "A", 1.0), ("T2", "C", "D", 0.5)],
        {"T1": date(1994, 1, 10), "T2": date(1994, 2, 1)},
        registry,
    )
    assert unrated_entries(facts, ITALIANA).select("tournament_id", "player_id").rows() == [
        ("T1", "C")
    ]
    published = build_rubele_list(facts, ITALIANA, date(1994, 7, 1))
    assert published.rows.select("player_id", "frozen_rating", "rating", "games").rows() == [
        ("A", 2200, 2200, 0),
        ("C", 1500, 1500, 1),
        ("D", 1500, 1500, 1),
    ]
    assert published.variations.filter(pl.col("player_id") == "C").get_column(
        "tournament_id"
    ).to_list() == ["T2"]


# --------------------------------------------------------------------------- points scale


def test_on_the_fid_points_scale_the_variations_show_po_and_pa_doubled() -> None:
    # 2021: A (1500) beats B (1500). 1 / ½ / 0: PO 1, PA 0.5, V +75. 2 / 1 / 0: PO 2, PA 1,
    # V +150: 1650 and 1350
    facts = _facts([("A", 1500, "NC"), ("B", 1500, "NC")], [("T1", date(2021, 5, 2))], [])
    facts = dataclasses.replace(
        facts,
        games=pl.DataFrame(
            [("T1", "A", "B", 1.0), ("T1", "B", "A", 0.0)], schema=facts.games.schema, orient="row"
        ),
        entries=pl.DataFrame(
            [("T1", "A", 1.0), ("T1", "B", 0.0)],
            schema={"tournament_id": pl.Utf8, "player_id": pl.Utf8, "points": pl.Float64},
            orient="row",
        ),
    )
    fid = edited_rulebook("italiana", [('scale = "one"', 'scale = "fid"')])
    columns = ("player_id", "score", "expected", "k", "raw_variation", "applied_variation")
    one = build_rubele_list(facts, ITALIANA, date(2021, 7, 1)).variations.sort("player_id")
    assert one.select(columns).rows() == [
        ("A", 1.0, 0.5, 150, 75.0, 75.0),
        ("B", 0.0, 0.5, 150, -75.0, -75.0),
    ]
    two = build_rubele_list(facts, fid, date(2021, 7, 1)).variations.sort("player_id")
    assert two.select(columns).rows() == [
        ("A", 2.0, 1.0, 150, 150.0, 150.0),
        ("B", 0.0, 1.0, 150, -150.0, -150.0),
    ]
    assert two.get_column("note").to_list() == ["FID points scale 2 / 1 / 0: PO and PA doubled"] * 2
