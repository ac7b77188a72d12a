"""A draughts list (transforms/rubele/lists.py): what the list date shows of the window."""

import dataclasses
from datetime import date

import polars as pl

from tests.reference.random_rubele import edited_rulebook, era_change
from transforms.lists.eras import default_rulebook_path
from transforms.rubele.lists import RubeleFacts, build_rubele_list, category_levels
from transforms.rubele.rulebook import parse_rubele_rulebook

ITALIANA = parse_rubele_rulebook(default_rulebook_path("rubele_italiana").read_bytes())
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


FIRST = edited_rulebook("italiana", [('upward = "every"', 'upward = "first"')])


def test_under_first_the_previous_lists_category_says_a_threshold_was_reached() -> None:
    # 2021 (no Q), all at 2990, PA 0.5: K (a CM on the previous list) beats W; V (N) beats U.
    # Both winners reach 2990 + 75 = 3065 over 3000. Every time: 3000 + 65 x 100/150 = 3043.
    # First: K's category CM (threshold 3000) says he reached 3000 before: 3065, not rescaled;
    # V never did (N has no threshold): 3043. The losers fall to 2915.
    facts = _facts(
        [("K", 2990, "CM"), ("W", 2990, "N"), ("V", 2990, "N"), ("U", 2990, "N")],
        [("T1", date(2021, 11, 2)), ("T2", date(2021, 11, 3))],
        [("T1", "K", "W", 1.0), ("T2", "V", "U", 1.0)],
    )
    every = build_rubele_list(facts, ITALIANA, date(2022, 1, 1))
    first = build_rubele_list(facts, FIRST, date(2022, 1, 1))
    ratings = {"K": 3043, "U": 2915, "V": 3043, "W": 2915}
    assert dict(every.rows.select("player_id", "rating").rows()) == ratings
    assert dict(first.rows.select("player_id", "rating").rows()) == ratings | {"K": 3065}
    notes = dict(first.variations.select("player_id", "note").rows())
    assert notes["K"] == "1 threshold(s) crossed again, not rescaled (capital 3000 reached before)"
    assert notes["V"] == "1 threshold(s) crossed: 3065.0 rescaled to 3043.33"


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
