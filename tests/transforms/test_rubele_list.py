"""A draughts list (transforms/rubele_list.py): what the list date shows of the window."""

from datetime import date

import polars as pl

from transforms.rubele_list import RubeleFacts, build_rubele_list
from transforms.rubele_rulebook import parse_rubele_rulebook
from transforms.rulebook import default_rulebook_path

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
