"""The FID draughts demo generator: determinism, shapes, consistent games, deliberate faults."""

from datetime import date

import polars as pl
import pytest

from synthetic.draughts import (
    CATEGORY_CODES,
    DRAUGHTS_GAME_COLUMNS,
    DRAUGHTS_PLAYER_COLUMNS,
    DRAUGHTS_TOURNAMENT_COLUMNS,
    GAME_STATUSES,
    SCALE_RESULTS,
    UNKNOWN_PLAYER_ID,
    WIN_VALUE,
    DraughtsFederation,
    generate_draughts_federation,
    manifest_rows,
)


@pytest.fixture(scope="module")
def fed() -> DraughtsFederation:
    return generate_draughts_federation()


@pytest.fixture(scope="module")
def games(fed) -> pl.DataFrame:
    """Every games file, with the tournament's scale."""
    scales = fed.tournaments.select("tournament_id", "points_scale", "variant")
    return pl.concat(fed.games.values()).join(scales, on="tournament_id")


def fingerprint(f: DraughtsFederation) -> tuple:
    return (
        [(d, p.write_csv(), m.write_csv()) for d, p, m in f.registry_snapshots],
        f.tournaments.write_csv(),
        [(name, g.write_csv()) for name, g in f.games.items()],
        f.entries.write_csv(),
        f.faults,
    )


def test_same_seed_same_output_other_seed_differs(fed):
    assert fingerprint(generate_draughts_federation()) == fingerprint(fed)
    other = generate_draughts_federation(seed=7, n_players=200, tournaments_per_year=10)
    assert fingerprint(other) != fingerprint(fed)
    assert fingerprint(other) == fingerprint(
        generate_draughts_federation(seed=7, n_players=200, tournaments_per_year=10)
    )


def test_registry_snapshots_columns_and_types(fed):
    assert [d for d, _, _ in fed.registry_snapshots] == [date(2021, 1, 1), date(2022, 1, 1)]
    for _, players, members in fed.registry_snapshots:
        assert tuple(players.columns) == DRAUGHTS_PLAYER_COLUMNS
        assert players.schema["birth_date"] == pl.Date
        assert players.schema["capital_italiana"] == pl.Int32
        assert players.schema["capital_internazionale"] == pl.Int32
        assert players["player_id"].is_unique().all()
        assert players["player_id"].str.contains(r"^D\d{6}$").all()
        assert players["name"].str.contains(r"^[^,]+, .+$").all()
        assert set(players["sex"]) <= {"M", "F"}
        assert members.columns == ["player_id", "year"] and members.schema["year"] == pl.Int32
        for variant in ("italiana", "internazionale"):
            cats = players[f"category_{variant}"].drop_nulls()
            assert set(cats) <= set(CATEGORY_CODES)
        # Some players play one variant only.
        assert players["category_internazionale"].null_count() > 0
        assert players["category_italiana"].null_count() > 0
        # Entry capitals only for foreign players, and only for the variants they play.
        foreign = players.filter(pl.col("country") != "ITA")
        italian = players.filter(pl.col("country") == "ITA")
        assert 0 < foreign.height < players.height * 0.1
        assert italian["capital_italiana"].null_count() == italian.height
        assert italian["capital_internazionale"].null_count() == italian.height
        for variant in ("italiana", "internazionale"):
            has_cat = foreign[f"category_{variant}"].is_not_null()
            assert (foreign[f"capital_{variant}"].is_not_null() == has_cat).all()
        # Members: most Italians, no foreigner.
        year = members["year"].max()
        this_year = set(members.filter(pl.col("year") == year)["player_id"])
        assert not this_year & set(foreign["player_id"])
        assert len(this_year) > 0.75 * italian.height


def test_categories_mostly_low_and_never_lowered(fed):
    (_, first, _), (_, second, _) = fed.registry_snapshots
    cats = first["category_italiana"].drop_nulls().value_counts()
    counts = dict(zip(cats["category_italiana"], cats["count"], strict=True))
    low = sum(counts.get(c, 0) for c in ("NC", "3C", "2C", "1C"))
    high = sum(counts.get(c, 0) for c in ("N", "CM", "M"))
    assert low > 5 * high and counts.get("M", 0) >= 1 and counts.get("CM", 0) >= 1
    both = first.join(second, on="player_id", suffix="_2")
    for variant in ("italiana", "internazionale"):
        pairs = both.select(f"category_{variant}", f"category_{variant}_2").drop_nulls().rows()
        assert all(CATEGORY_CODES.index(b) >= CATEGORY_CODES.index(a) for a, b in pairs)
    # Debutants: registered later, so the second snapshot holds more players.
    assert second.height > first.height
    assert set(first["player_id"]) <= set(second["player_id"])


def test_tournaments_columns_and_mix(fed):
    t = fed.tournaments
    assert tuple(t.columns) == (*DRAUGHTS_TOURNAMENT_COLUMNS, "delivery")
    assert t.schema["start_date"] == pl.Date and t.schema["received_on"] == pl.Date
    assert t.schema["validity"] == pl.Int32
    assert t.height == 80 and t["tournament_id"].is_unique().all()
    assert t["tournament_id"].str.contains(r"^D[IN]-20\d\d-\d{4}$").all()
    prefix = t["tournament_id"].str.slice(0, 2)
    assert (prefix == t["variant"].replace_strict({"italiana": "DI", "internazionale": "DN"})).all()
    assert (t["file"] == t["tournament_id"] + ".csv").all()
    assert set(t["file"]) == set(fed.games)
    assert 0.45 < (t["variant"] == "italiana").mean() < 0.8
    assert set(t["points_scale"]) == {"fid", "one"}
    assert set(t["validity"]) == {50, 100}
    assert 0.05 < (t["validity"] == 50).mean() < 0.3
    assert (t["start_date"] <= t["end_date"]).all()
    ok = t.filter(pl.col("received_on").is_not_null())
    assert (ok["received_on"] > ok["end_date"]).all()
    assert (ok["delivery"] == ok["received_on"].dt.strftime("%Y-%m")).all()
    # Some end on the same day.
    assert t["end_date"].is_duplicated().any()


def test_overlapping_tournaments_share_players(fed):
    t = fed.tournaments.select("tournament_id", "start_date", "end_date")
    e = fed.entries.join(t, on="tournament_id")
    pairs = e.join(e, on="player_id").filter(
        (pl.col("tournament_id") < pl.col("tournament_id_right"))
        & (pl.col("start_date") <= pl.col("end_date_right"))
        & (pl.col("start_date_right") <= pl.col("end_date"))
    )
    assert pairs.select("tournament_id", "tournament_id_right").unique().height >= 3


def test_manifest_rows_group_by_delivery(fed):
    manifests = manifest_rows(fed)
    assert list(manifests) == sorted(manifests)
    assert sum(m.height for m in manifests.values()) == fed.tournaments.height
    for delivery, rows in manifests.items():
        assert tuple(rows.columns) == DRAUGHTS_TOURNAMENT_COLUMNS
        ids = set(rows["tournament_id"])
        expected = fed.tournaments.filter(pl.col("delivery") == delivery)["tournament_id"]
        assert ids == set(expected)


def test_games_columns_and_values(fed, games):
    for name, frame in fed.games.items():
        assert tuple(frame.columns) == DRAUGHTS_GAME_COLUMNS, name
        assert frame.schema["round"] == pl.Int32
        assert frame["tournament_id"].unique().to_list() == [name.removesuffix(".csv")]
    faulty = set(fed.faults)
    clean = games.filter(~pl.col("tournament_id").is_in(faulty))
    assert set(clean["status"]) == set(GAME_STATUSES)
    for scale in ("fid", "one"):
        values = set(clean.filter(pl.col("points_scale") == scale)["result"])
        assert values == set(SCALE_RESULTS[scale]), scale
    # Byes and withdrawals give the win value; forfeits the win value or 0.
    win = pl.col("points_scale").replace_strict(WIN_VALUE)
    free = clean.filter(pl.col("status").is_in(["bye", "withdrawn"]))
    assert free.select((pl.col("result") == win).all()).item()
    forfeits = clean.filter(pl.col("status") == "forfeit")
    assert forfeits.height > 0 and set(forfeits["result"]) <= {"2", "1", "0"}
    assert (forfeits["result"] != "1").any() and (forfeits["result"] == "0").any()
    assert (clean["opponent_id"].is_null() == (clean["status"] == "bye")).all()
    # Rounds from 1, tournaments of 5 to 9 rounds.
    rounds = clean.group_by("tournament_id").agg(
        pl.col("round").min().alias("lo"), pl.col("round").max().alias("hi")
    )
    assert (rounds["lo"] == 1).all() and rounds["hi"].is_between(5, 9).all()


def test_players_are_entrants_and_play_once_a_round(fed, games):
    sides = pl.concat(
        [
            games.select("tournament_id", "round", pl.col("player_id").alias("who")),
            games.select("tournament_id", "round", pl.col("opponent_id").alias("who")),
        ]
    ).drop_nulls("who")
    outsiders = sides.join(
        fed.entries.rename({"player_id": "who"}), on=["tournament_id", "who"], how="anti"
    )
    assert outsiders["who"].unique().to_list() == [UNKNOWN_PLAYER_ID]
    assert outsiders.height == 1
    assert not sides.is_duplicated().any()
    sizes = fed.entries.group_by("tournament_id").len()
    assert sizes["len"].is_between(6, 30).all()
    assert fed.entries.is_unique().all()


def test_registered_members_of_the_right_variant(fed):
    t = fed.tournaments.select(
        "tournament_id", "variant", pl.col("start_date").dt.year().alias("y")
    )
    e = fed.entries.join(t, on="tournament_id")
    for as_of, players, members in fed.registry_snapshots:
        mine = e.filter(pl.col("y") == as_of.year).join(players, on="player_id", how="left")
        assert mine["name"].is_not_null().all()  # registered on 1 January of the year
        cat = pl.when(pl.col("variant") == "italiana")
        cat = cat.then(pl.col("category_italiana")).otherwise(pl.col("category_internazionale"))
        assert mine.select(cat.is_not_null().all()).item()
        italians = mine.filter(pl.col("country") == "ITA")
        paid = members.filter(pl.col("year") == as_of.year)
        assert italians.join(paid, on="player_id", how="anti").height == 0


def test_byes_only_with_odd_counts(games):
    per_round = (
        games.with_columns(pl.concat_list("player_id", "opponent_id").alias("who"))
        .explode("who")
        .drop_nulls("who")
        .group_by("tournament_id", "round")
        .agg(
            pl.col("who").n_unique().alias("present"),
            (pl.col("status") == "bye").sum().alias("byes"),
        )
    )
    assert per_round["byes"].max() == 1
    odd = per_round["present"] % 2 == 1
    assert (odd == (per_round["byes"] == 1)).all()
    assert (per_round["byes"] == 1).any()


def test_results_follow_strength_with_many_draws(games):
    played = games.filter(pl.col("status") == "played")
    draws = played.filter(
        ((pl.col("points_scale") == "fid") & (pl.col("result") == "1"))
        | ((pl.col("points_scale") == "one") & pl.col("result").is_in(["0.5", "½"]))
    )
    assert 0.2 < draws.height / played.height < 0.6


def test_withdrawals_are_written_for_the_player_still_present(games):
    withdrawn = games.filter(pl.col("status") == "withdrawn")
    assert withdrawn.height > 0
    # The player who left never appears again as player_id after leaving.
    for tid, leaver, first in (
        withdrawn.group_by("tournament_id", "opponent_id").agg(pl.col("round").min()).rows()
    ):
        later = games.filter(
            (pl.col("tournament_id") == tid)
            & (pl.col("round") >= first)
            & (pl.col("player_id") == leaver)
        )
        assert later.height == 0
        assert withdrawn.filter(pl.col("tournament_id") == tid)["opponent_id"].n_unique() == 1


def test_faults_as_described(fed, games):
    assert len(fed.faults) == 3
    reasons = list(fed.faults.values())
    assert sum("scale" in r for r in reasons) == 1
    assert sum(UNKNOWN_PLAYER_ID in r for r in reasons) == 1
    assert sum("received_on" in r for r in reasons) == 1
    for tid, reason in fed.faults.items():
        mine = games.filter(pl.col("tournament_id") == tid)
        row = fed.tournaments.filter(pl.col("tournament_id") == tid).row(0, named=True)
        if "scale" in reason:
            off = mine.filter(~pl.col("result").is_in(list(SCALE_RESULTS[row["points_scale"]])))
            assert off.height == 1
        elif UNKNOWN_PLAYER_ID in reason:
            assert (mine["opponent_id"] == UNKNOWN_PLAYER_ID).sum() == 1
        else:
            assert row["received_on"] is None and row["delivery"] is not None
    no_receipt = fed.tournaments.filter(pl.col("received_on").is_null())
    assert no_receipt["tournament_id"].to_list() == [
        t for t, r in fed.faults.items() if "received_on" in r
    ]
    for _, players, _ in fed.registry_snapshots:
        assert UNKNOWN_PLAYER_ID not in set(players["player_id"])


def test_small_federation_still_consistent():
    f = generate_draughts_federation(seed=3, n_players=120, first_year=2019, last_year=2021,
                                     tournaments_per_year=6)  # fmt: skip
    assert f.tournaments.height == 18 and len(f.faults) == 3
    assert [d.year for d, _, _ in f.registry_snapshots] == [2019, 2020, 2021]
    with pytest.raises(ValueError):
        generate_draughts_federation(n_players=10)
