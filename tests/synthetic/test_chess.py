"""The demo federation generator: determinism, realistic counts, and consistent tournaments.

Most tests read the full federation of the default season; the dates, windows and files are also
checked on a small federation of another season (2005), which is quick to build.
"""

import re
import time
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest

from synthetic.chess import (
    CATEGORY_ORDER,
    DEFAULT_SEASON,
    ELO_LIST_COLUMNS,
    MANIFEST_COLUMNS,
    PLAYER_COLUMNS,
    DemoFederation,
    SeasonDates,
    generate_federation,
    quarter_of,
)
from synthetic.demo_files import write_demo_federation, write_federation
from transforms.inputs.manifest import MANIFEST_FIELDS
from transforms.inputs.registry import LIST_FIELDS, PLAYER_FIELDS

COMPLEMENT = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}
OTHER_SEASON = 2005


@pytest.fixture(scope="module")
def fed() -> DemoFederation:
    return generate_federation()


def small(seed: int, season: int = DEFAULT_SEASON) -> DemoFederation:
    return generate_federation(seed, season=season, n_players=500, tournaments_per_quarter=(4, 5))


@pytest.fixture(scope="module")
def fed_2005() -> DemoFederation:
    return small(5, OTHER_SEASON)


@pytest.fixture(params=["default", "2005"])
def any_fed(request: pytest.FixtureRequest) -> DemoFederation:
    """The full federation of the default season, then a small one of another season."""
    return request.getfixturevalue("fed" if request.param == "default" else "fed_2005")


def fingerprint(f: DemoFederation) -> tuple:
    return (
        [s.players.write_csv() + s.memberships.write_csv() for s in f.snapshots],
        f.elo_italia.write_csv(),
        [m.write_csv() for m in f.manifests().values()],
        [(t.file, t.trf) for t in f.tournaments],
    )


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_files(fed: DemoFederation, tmp_path: Path) -> None:
    """The real entry point, timed: same seed, byte-identical to a second generation."""
    started = time.perf_counter()
    summary = write_demo_federation(tmp_path / "demo", seed=fed.seed)
    # A few seconds on a 2-core machine; generous to stay stable on a busy CI runner.
    assert time.perf_counter() - started < 30
    assert_files_match(fed, tmp_path / "demo")
    assert summary.seed == fed.seed
    assert summary.season == fed.season == DEFAULT_SEASON == 2019
    assert summary.tournaments == len(fed.tournaments)
    assert summary.players == fed.snapshots[-1].players.height
    assert summary.opening_list_players == fed.elo_italia.height
    assert summary.faults == fed.faults
    assert len(summary.deliveries) == len(fed.manifests())


def test_different_seed_different_federation(fed_2005: DemoFederation) -> None:
    one = fingerprint(small(1))
    assert one == fingerprint(small(1))
    assert one != fingerprint(small(2))
    assert fingerprint(small(5, OTHER_SEASON)) == fingerprint(fed_2005)


def test_the_season_moves_the_dates_only(fed_2005: DemoFederation) -> None:
    """Same seed, other season: the same players and games, every date moved with the season.

    (2005 and 2019 have receipt windows of the same lengths: no 29 February in either.)
    """
    same = small(5)
    shift = same.dates.opening_list_date - fed_2005.dates.opening_list_date
    for a, b in zip(same.snapshots, fed_2005.snapshots, strict=True):
        assert a.as_of.replace(year=OTHER_SEASON) == b.as_of
        assert a.players.drop("birth_date").equals(b.players.drop("birth_date"))
        assert (a.players["birth_date"] - b.players["birth_date"] == shift).all()
        years = b.memberships.with_columns(pl.col("year") + (DEFAULT_SEASON - OTHER_SEASON))
        assert a.memberships.equals(years)
    assert same.elo_italia.drop("last_played").equals(fed_2005.elo_italia.drop("last_played"))
    moved = same.elo_italia["last_played"].dt.offset_by(f"-{DEFAULT_SEASON - OTHER_SEASON}y")
    assert moved.equals(fed_2005.elo_italia["last_played"])
    assert len(same.tournaments) == len(fed_2005.tournaments)
    for a, b in zip(same.tournaments, fed_2005.tournaments, strict=True):
        assert a.tournament_id.replace(str(DEFAULT_SEASON), str(OTHER_SEASON)) == b.tournament_id
        assert (a.system, a.kind, a.rounds, a.fault) == (b.system, b.kind, b.rounds, b.fault)
        assert a.games.equals(b.games)
        assert a.players.drop("birth_date").equals(b.players.drop("birth_date"))


def assert_files_match(fed: DemoFederation, out: Path) -> None:
    jan, jul = (d.isoformat() for d in fed.dates.snapshot_dates)
    assert sorted(p.name for p in (out / "registry").iterdir()) == [jan, jul]
    assert [p.name for p in (out / "lists").iterdir()] == [f"elo_italia_{jan}.csv"]
    for snap in fed.snapshots:
        folder = out / "registry" / snap.as_of.isoformat()
        players = (folder / "players.csv").read_bytes()
        assert players.decode().split("\n")[0] == ",".join(PLAYER_COLUMNS)
        assert players == snap.players.write_csv().encode()
        memberships = (folder / "memberships.csv").read_bytes()
        assert memberships.decode().split("\n")[0] == "player_id,year"
        assert memberships == snap.memberships.write_csv().encode()
    opening = (out / "lists" / f"elo_italia_{jan}.csv").read_text()
    assert opening.split("\n")[0] == ",".join(ELO_LIST_COLUMNS)
    assert opening == fed.elo_italia.write_csv()
    for month, manifest in fed.manifests().items():
        text = (out / "deliveries" / month / "manifest.csv").read_text()
        assert text.split("\n")[0] == ",".join(MANIFEST_COLUMNS)
        assert text == manifest.write_csv()
    for t in fed.tournaments:
        assert (out / "deliveries" / t.delivery / t.file).read_bytes() == t.trf.encode()
    trf_on_disk = sorted(p.name for p in (out / "deliveries").rglob("*.trf"))
    assert trf_on_disk == sorted(t.file for t in fed.tournaments)
    months = sorted(p.name for p in (out / "deliveries").iterdir())
    assert months == sorted(fed.manifests())
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "deliveries", "lists", "registry"]
    readme = (out / "README.md").read_text()
    assert readme.startswith("# graduatoria demo federation")
    assert f"imaginary {fed.season} season" in readme and f"seed {fed.seed}." in readme
    first, last = fed.dates.quarters[0][0], fed.dates.quarters[-1][1]
    assert f"received from {first.isoformat()} to {last.isoformat()}" in readme


def test_rewrite_replaces_the_demo_and_spares_other_folders(
    fed: DemoFederation, tmp_path: Path
) -> None:
    out = tmp_path / "demo"
    write_federation(fed, out)
    assert_files_match(fed, out)
    smaller = small(3, OTHER_SEASON)
    write_federation(smaller, out)  # no stale file of the bigger federation or season survives
    assert_files_match(smaller, out)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError):
        write_federation(smaller, other)
    assert (other / "notes.txt").read_text() == "keep me"


# --------------------------------------------------------------------------- registry


def test_registry_players(fed: DemoFederation) -> None:
    p = fed.snapshot(fed.dates.snapshot_dates[0]).players
    assert tuple(p.columns) == PLAYER_COLUMNS
    assert 2_900 <= p.height <= 3_100
    assert p["player_id"].str.contains(r"^\d{6}$").all() and p["player_id"].n_unique() == p.height
    assert 0.08 <= (p["sex"] == "F").mean() <= 0.16
    assert set(p["sex"]) == {"M", "F"}
    age = (fed.dates.opening_list_date - p["birth_date"]).dt.total_days() / 365.25
    assert age.min() >= 8 and age.max() <= 85
    assert 0.12 <= (age < 18).mean() <= 0.35
    assert (p["country"] == "ITA").mean() >= 0.9 and p["country"].n_unique() > 3
    fide = p["fide_id"].drop_nulls()
    assert 0.30 <= fide.len() / p.height <= 0.40
    assert fide.str.contains(r"^\d{8}$").all() and fide.n_unique() == fide.len()
    rated = p["fide_standard"].drop_nulls()
    assert rated.min() >= 1400 and rated.max() <= 2500 and rated.max() >= 2300
    # Ratings only for FIDE-registered players, and some registered players are unrated.
    assert p.filter(pl.col("fide_standard").is_not_null() & pl.col("fide_id").is_null()).height == 0
    assert p.filter(pl.col("fide_id").is_not_null() & pl.col("fide_standard").is_null()).height > 0
    assert p["fide_rapid"].drop_nulls().len() > 0
    assert set(p["category"]) <= set(CATEGORY_ORDER)
    assert p["category"].is_in(["NC", "2S", "1S", "3N"]).mean() >= 0.5
    # Categories follow strength: strong FIDE players are not "NC".
    strong = p.filter(pl.col("fide_standard") >= 2000)
    assert strong.height and strong["category"].is_in(["1N", "CM", "M"]).all()
    assert 1 <= p["k_override"].drop_nulls().len() <= 10


def test_registry_names(fed: DemoFederation) -> None:
    names = fed.snapshots[-1].players["name"]
    assert names.n_unique() == names.len()
    assert names.str.len_chars().max() <= 33
    assert names.str.contains(r"^[A-Z][A-Za-z' ]+, [A-Z][a-z]+( [A-Z][a-z]+)?$").all()
    assert names.str.contains(", [A-Za-z]+ ").any()  # second given names break ties
    assert all(n.isascii() for n in names)


def test_memberships(any_fed: DemoFederation) -> None:
    jan, jul = any_fed.snapshots
    season = any_fed.season
    m = jan.memberships
    assert tuple(m.columns) == ("player_id", "year")
    assert m.unique().height == m.height
    assert set(m["year"]) == {season - 2, season - 1, season}
    assert set(jul.memberships["year"]) == {season - 2, season - 1, season, season + 1}
    assert set(m["player_id"]) <= set(jan.players["player_id"])
    last_year = set(m.filter(pl.col("year") == season - 1)["player_id"])
    this_year = set(m.filter(pl.col("year") == season)["player_id"])
    assert 0.74 <= len(last_year & this_year) / len(last_year) <= 0.94
    # Everyone registered in January is a member of the season or of one of the two before it,
    # and whoever registered later (July only) joined in the season.
    assert set(m["player_id"]) == set(jan.players["player_id"])
    new = set(jul.players["player_id"]) - set(jan.players["player_id"])
    first = jul.memberships.group_by("player_id").agg(pl.col("year").min())
    assert set(first.filter(pl.col("player_id").is_in(list(new)))["year"]) == {season}


def test_snapshots_drift(fed: DemoFederation) -> None:
    jan, jul = (s.players for s in fed.snapshots)
    assert set(jan["player_id"]) < set(jul["player_id"])  # new members by July
    both = jan.join(jul, on="player_id", suffix="_jul")
    assert (both["name"] == both["name_jul"]).all()
    assert (both["birth_date"] == both["birth_date_jul"]).all()
    changed = both.filter(pl.col("fide_standard") != pl.col("fide_standard_jul"))
    assert changed.height > 100
    gained = both.filter(
        pl.col("fide_standard").is_null() & pl.col("fide_standard_jul").is_not_null()
    )
    lost = both.filter(
        pl.col("fide_standard").is_not_null() & pl.col("fide_standard_jul").is_null()
    )
    assert 5 <= gained.height <= 60
    assert 1 <= lost.height <= 2
    assert lost["fide_id_jul"].is_not_null().all()  # off the list, still FIDE-registered
    rank = {c: i for i, c in enumerate(CATEGORY_ORDER)}
    up = [rank[b] - rank[a] for a, b in both.select("category", "category_jul").iter_rows()]
    assert min(up) == 0 and max(up) > 0


def test_opening_elo_italia_list(fed: DemoFederation) -> None:
    jan = fed.snapshot(fed.dates.opening_list_date).players
    e = fed.elo_italia
    assert tuple(e.columns) == ELO_LIST_COLUMNS
    assert 0.5 <= e.height / jan.height <= 0.68
    joined = e.join(jan, on="player_id", how="left")
    assert joined["name"].is_not_null().all()
    assert joined["fide_standard"].is_null().all()  # only players without FIDE rating
    assert (joined["category"] == joined["category_right"]).all()
    assert e["rating"].min() >= 800 and e["rating"].max() <= 2400
    default_k = e.join(jan.filter(pl.col("k_override").is_null()), on="player_id")
    assert (default_k.filter(pl.col("games") < 30)["k"] == 30).all()
    assert (default_k.filter(pl.col("games") >= 30)["k"] != 30).all()
    # Newcomers exist: registered, no FIDE rating and not in the list.
    newcomers = jan.filter(
        pl.col("fide_standard").is_null() & ~pl.col("player_id").is_in(e["player_id"].implode())
    )
    assert newcomers.height > 100


# --------------------------------------------------------------------------- tournaments


def test_tournaments_per_quarter_and_system(fed: DemoFederation) -> None:
    for q in range(len(fed.dates.quarters)):
        in_q = [t for t in fed.tournaments if quarter_of(t.delivered_on, fed.season) == q]
        assert 25 <= len(in_q) <= 35
        assert {t.system for t in in_q} == {"elo_italia", "elo_rapid"}


def test_tournament_ids(any_fed: DemoFederation) -> None:
    ids = [t.tournament_id for t in any_fed.tournaments]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(rf"(EI|ER)-{any_fed.season}-\d{{4}}", i) for i in ids)
    # Numbered by system in order of receipt, December of the year before included.
    for prefix in ("EI", "ER"):
        numbers = [int(i[-4:]) for i in ids if i.startswith(prefix)]
        assert numbers == list(range(1, len(numbers) + 1))
    assert all(
        i.startswith("EI" if t.system == "elo_italia" else "ER")
        for i, t in zip(ids, any_fed.tournaments, strict=True)
    )


def test_formats_and_sizes(fed: DemoFederation) -> None:
    for t in fed.tournaments:
        n = t.players.height
        if t.kind == "round_robin":
            assert t.system == "elo_italia"
            assert 6 <= n <= 10 and t.rounds == n - 1
        elif t.system == "elo_italia":
            assert 10 <= n <= 120 and 5 <= t.rounds <= 9
        elif t.fault is None:
            assert 14 <= n <= 120 and 6 <= t.rounds <= 9
        assert t.games["round"].max() <= t.rounds
    sizes = [t.players.height for t in fed.tournaments]
    assert max(sizes) >= 100
    rapid_faults = sorted(
        (t.players.height, t.rounds) for t in fed.tournaments if t.system == "elo_rapid" and t.fault
    )
    assert len(rapid_faults) == 2
    assert rapid_faults[0][0] == 13 and rapid_faults[0][1] >= 6  # too few players
    assert rapid_faults[1][0] >= 14 and rapid_faults[1][1] == 5  # too few rounds


def test_dates_and_receipt(any_fed: DemoFederation) -> None:
    season = any_fed.season
    first, last = any_fed.dates.quarters[0][0], any_fed.dates.quarters[-1][1]
    assert (first, last) == (date(season - 1, 12, 16), date(season, 12, 15))
    for t in any_fed.tournaments:
        assert t.start_date <= t.end_date
        assert 0 <= (t.delivered_on - t.end_date).days <= 40
        assert first <= t.delivered_on <= last
        # Played in the season, or in the autumn before it for the first deliveries.
        assert date(season - 1, 8, 1) <= t.start_date and t.end_date <= last
        assert t.delivery == t.delivered_on.strftime("%Y-%m")
        if t.received_on is not None:
            assert t.received_on == t.delivered_on and t.received_on >= t.end_date
    months = {f"{season - 1}-12"} | {f"{season}-{m:02d}" for m in range(1, 13)}
    assert set(any_fed.manifests()) <= months
    # Each quarter of the season gets its tournaments, rapid ones included.
    for q in range(4):
        in_q = [t for t in any_fed.tournaments if any_fed.dates.quarter_of(t.delivered_on) == q]
        assert {t.system for t in in_q} == {"elo_italia", "elo_rapid"}


def test_every_game_is_symmetric(fed: DemoFederation) -> None:
    for t in fed.tournaments:
        g = t.games
        paired = g.filter(pl.col("opponent") > 0)
        other = paired.join(
            paired,
            left_on=["opponent", "round"],
            right_on=["start_number", "round"],
            suffix="_opp",
            how="left",
        )
        assert (other["opponent_opp"] == other["start_number"]).all(), t.tournament_id
        assert (
            other.select(
                pl.col("result_code").replace_strict(COMPLEMENT, default="?")
                == pl.col("result_code_opp")
            )
            .to_series()
            .all()
        ), t.tournament_id
        colours = set(zip(other["color"], other["color_opp"], strict=True))
        assert colours <= {("w", "b"), ("b", "w")}, t.tournament_id
        unpaired = g.filter(pl.col("opponent") == 0)
        assert set(unpaired["result_code"]) <= {"U", "H", "Z", "F"}
        # One entry per player per round at most.
        assert g.select("start_number", "round").is_unique().all()


def test_points_and_ranks_follow_the_games(fed: DemoFederation) -> None:
    for t in fed.tournaments:
        sums = t.games.group_by("start_number").agg(pl.col("score").sum().alias("sum"))
        p = t.players.join(sums, on="start_number", how="left")
        assert (p["points"] == p["sum"].fill_null(0.0)).all(), t.tournament_id
        assert sorted(p["rank"]) == list(range(1, p.height + 1))
        by_rank = p.sort("rank")
        assert by_rank["points"].is_sorted(descending=True), t.tournament_id
        # Equal points: the higher rating ranks first.
        ties = by_rank.group_by("points").agg(
            pl.col("pairing_rating").is_sorted(descending=True).alias("ordered")
        )
        assert ties["ordered"].all(), t.tournament_id
        assert p["start_number"].to_list() == list(range(1, p.height + 1))


def test_no_rematches_in_swiss_events(fed: DemoFederation) -> None:
    for t in fed.tournaments:
        if t.kind != "swiss":
            continue
        pairs = t.games.filter(pl.col("opponent") > 0).select(
            pl.min_horizontal("start_number", "opponent").alias("a"),
            pl.max_horizontal("start_number", "opponent").alias("b"),
            "round",
        )
        # Each pairing appears twice (both lines) in the same round, never in two rounds.
        assert pairs.unique(["a", "b"]).height * 2 == pairs.height, t.tournament_id
        byes = t.games.filter(pl.col("result_code") == "U")
        assert byes["start_number"].is_unique().all()  # nobody gets two byes
        assert byes["round"].is_unique().all()  # at most one bye a round


def test_round_robins_are_complete(fed: DemoFederation) -> None:
    rrs = [t for t in fed.tournaments if t.kind == "round_robin"]
    assert rrs
    for t in rrs:
        n = t.players.height
        pairs = t.games.filter(pl.col("opponent") > 0).select(
            pl.min_horizontal("start_number", "opponent").alias("a"),
            pl.max_horizontal("start_number", "opponent").alias("b"),
        )
        assert pairs.unique().height == n * (n - 1) // 2


def test_irregular_results_are_present(fed: DemoFederation) -> None:
    codes = pl.concat([t.games for t in fed.tournaments])["result_code"].value_counts()
    count = dict(codes.iter_rows())
    for code in ("1", "0", "=", "+", "-", "H", "U", "Z"):
        assert count.get(code, 0) > 0, code
    played = count["1"] + count["0"] + count["="]
    assert 0.15 <= count["="] / played <= 0.40  # realistic draw rate
    # Withdrawals: some written as Z, some left blank after the last round played.
    short = [
        t for t in fed.tournaments if t.games.group_by("start_number").len()["len"].min() < t.rounds
    ]
    assert short


def test_results_follow_ratings(fed: DemoFederation) -> None:
    frames = []
    for t in fed.tournaments:
        r = t.players.select("start_number", "pairing_rating")
        g = (
            t.games.filter(pl.col("played"))
            .join(r, on="start_number")
            .join(r, left_on="opponent", right_on="start_number", suffix="_opp")
        )
        frames.append(
            g.select("score", (pl.col("pairing_rating") - pl.col("pairing_rating_opp")).alias("d"))
        )
    g = pl.concat(frames)
    assert g.filter(pl.col("d") > 200)["score"].mean() > 0.7
    assert g.filter(pl.col("d") < -200)["score"].mean() < 0.3


def test_players_come_from_the_registry(fed: DemoFederation) -> None:
    registry = {s.as_of: s.players for s in fed.snapshots}
    names = set(fed.snapshots[-1].players["name"])
    origins: set[str] = set()
    snapshot_dates = fed.dates.snapshot_dates
    for t in fed.tournaments:
        snap_date = max((d for d in snapshot_dates if d <= t.start_date), default=snapshot_dates[0])
        reg = t.players.filter(pl.col("origin") == "registry").join(
            registry[snap_date], on="player_id", how="left", suffix="_reg"
        )
        assert reg["name_reg"].is_not_null().all(), t.tournament_id
        assert (reg["name"] == reg["name_reg"]).all()
        fide = reg.filter(pl.col("fide_id_reg").is_not_null())
        assert (fide["fide_id"] == fide["fide_id_reg"]).all()
        # Names and FIDE ids in the file are those of the registry.
        lines = {int(line[4:8]): line for line in t.trf.split("\n") if line.startswith("001")}
        for sn, name, fide_id in reg.select("start_number", "name", "fide_id_reg").iter_rows():
            assert lines[sn][14:47].rstrip() == name
            assert lines[sn][57:68].strip() == (fide_id or "")
        others = t.players.filter(pl.col("origin") != "registry")
        assert not (set(others["name"]) & names)
        origins |= set(t.players["origin"])
    assert origins == {"registry", "foreign", "unregistered"}


def test_foreign_players_and_arbiter_ratings(fed: DemoFederation) -> None:
    with_arbiter = 0
    for t in fed.tournaments:
        expected = t.players.filter(pl.col("arbiter_rating").is_not_null())
        assert expected.filter(pl.col("rating").is_not_null()).height == 0
        assert (expected["origin"] == "foreign").all()
        if t.arbiter_ratings:
            assert re.fullmatch(r"\d+=\d{3,4}(;\d+=\d{3,4})*", t.arbiter_ratings)
            parsed = dict(item.split("=") for item in t.arbiter_ratings.split(";"))
            assert {int(k) for k in parsed} == set(expected["start_number"])
            with_arbiter += 1
        else:
            assert expected.height == 0
        if t.system == "elo_rapid":
            assert (t.players["origin"] == "registry").all()
    assert with_arbiter >= 3
    foreign = pl.concat([t.players.filter(pl.col("origin") == "foreign") for t in fed.tournaments])
    assert foreign["fide_id"].is_not_null().any() and foreign["fide_id"].is_null().any()
    assert set(foreign["federation"]) <= {"FRA", "SUI", "SLO", "AUT", "CRO"}


def test_national_lines_in_about_half_the_files(fed: DemoFederation) -> None:
    with_lines = [t for t in fed.tournaments if t.has_national_lines]
    assert 0.3 <= len(with_lines) / len(fed.tournaments) <= 0.7
    for t in fed.tournaments:
        ita = [line for line in t.trf.split("\n") if line.startswith("ITA")]
        registered = t.players.filter(pl.col("player_id").is_not_null())
        if not t.has_national_lines:
            assert not ita
            continue
        assert len(ita) == registered.height
        ids = {int(line[4:8]): line[57:68].strip() for line in ita}
        assert ids == dict(registered.select("start_number", "player_id").iter_rows())


def test_manifests(fed: DemoFederation) -> None:
    manifests = fed.manifests()
    assert list(manifests) == ["2018-12"] + [f"2019-{m:02d}" for m in range(1, 13)]
    all_rows = pl.concat(list(manifests.values()))
    assert tuple(all_rows.columns) == MANIFEST_COLUMNS
    assert all_rows.height == len(fed.tournaments)
    assert set(all_rows["system"]) == {"elo_italia", "elo_rapid"}
    for col in ("start_date", "end_date"):
        assert all_rows[col].str.contains(r"^\d{4}-\d{2}-\d{2}$").all()
    assert all_rows["file"].is_unique().all()
    assert all_rows["received_on"].null_count() == 1


def test_deliberate_faults(any_fed: DemoFederation) -> None:
    fed = any_fed
    faults = fed.faults
    assert len(faults) == 4
    by_id = {t.tournament_id: t for t in fed.tournaments}
    # The two invalid rapid events: 13 players, then 5 rounds.
    rapid = sorted(
        (by_id[i].players.height, by_id[i].rounds) for i in faults if by_id[i].system == "elo_rapid"
    )
    assert len(rapid) == 2 and rapid[0][0] == 13 and rapid[1][1] == 5
    corrupt = [by_id[i] for i, why in faults.items() if why.startswith("corrupt")]
    missing = [by_id[i] for i, why in faults.items() if "receipt" in why]
    assert len(corrupt) == 1 and len(missing) == 1
    assert corrupt[0].delivery != missing[0].delivery
    # The corrupt file names an opponent beyond the last start number.
    n = corrupt[0].players.height
    opponents = [
        int(block[:4])
        for line in corrupt[0].trf.split("\n")
        if line.startswith("001")
        for block in (line[c : c + 8] for c in range(91, len(line), 10))
        if block[:4].strip()
    ]
    assert max(opponents) > n
    assert missing[0].received_on is None
    assert all(t.received_on is not None for t in fed.tournaments if t is not missing[0])
    # Every other file stays within its own start numbers.
    for t in fed.tournaments:
        if t is corrupt[0]:
            continue
        for line in t.trf.split("\n"):
            if line.startswith("001"):
                assert all(
                    int(line[c : c + 4]) <= t.players.height
                    for c in range(91, len(line), 10)
                    if line[c : c + 4].strip()
                )


def test_trf_files_are_ascii_with_unix_lines(fed: DemoFederation) -> None:
    for t in fed.tournaments:
        assert t.trf.isascii() and "\r" not in t.trf and t.trf.endswith("\n")
        lines = t.trf.split("\n")
        assert lines[0].startswith("012 ") and f"XXR {t.rounds}" in lines
        assert f"062 {t.players.height}" in lines
        assert f"042 {t.start_date:%Y/%m/%d}" in lines and f"052 {t.end_date:%Y/%m/%d}" in lines


# --------------------------------------------------------------------------- round trip


def test_round_trip_through_the_parser(fed: DemoFederation) -> None:
    trf = pytest.importorskip("transforms.inputs.trf")
    sample = [t for t in fed.tournaments if t.fault is None][:12]
    sample += [t for t in fed.tournaments if t.fault is None and t.has_national_lines][:3]
    sample += [
        t
        for t in fed.tournaments
        if t.fault is None and t.games.group_by("start_number").len()["len"].min() < t.rounds
    ][:2]
    assert len(sample) >= 15
    for t in sample:
        parsed = trf.parse_trf(t.trf.encode())
        assert parsed.problems.filter(pl.col("severity") == "error").height == 0, t.tournament_id
        got_players = parsed.players.select(
            pl.col("start_number").cast(pl.Int64),
            "name",
            pl.col("fide_id").cast(pl.String),
            "points",
            pl.col("rank").cast(pl.Int64),
            pl.col("rating").cast(pl.Int64),
        ).sort("start_number")
        want_players = t.players.select(
            "start_number", "name", "fide_id", "points", "rank", "rating"
        ).sort("start_number")
        assert got_players.equals(want_players), t.tournament_id

        keys = ["start_number", "round"]
        got_games = (
            parsed.games.filter(pl.col("result_code").fill_null("") != "")
            .select(
                pl.col("start_number").cast(pl.Int64),
                pl.col("round").cast(pl.Int64),
                pl.col("opponent").cast(pl.Int64).fill_null(0),
                "result_code",
                "score",
                "played",
            )
            .sort(keys)
        )
        want_games = t.games.select(
            "start_number", "round", "opponent", "result_code", "score", "played"
        ).sort(keys)
        assert got_games.equals(want_games), t.tournament_id
        if t.has_national_lines:
            got_nat = parsed.national.select(
                pl.col("start_number").cast(pl.Int64), "national_id"
            ).sort("start_number")
            want_nat = (
                t.players.filter(pl.col("national_id").is_not_null())
                .select("start_number", "national_id")
                .sort("start_number")
            )
            assert got_nat.equals(want_nat), t.tournament_id


def test_parser_flags_the_corrupt_file(fed: DemoFederation) -> None:
    trf = pytest.importorskip("transforms.inputs.trf")
    corrupt = next(t for t in fed.tournaments if t.fault and t.fault.startswith("corrupt"))
    parsed = trf.parse_trf(corrupt.trf.encode())
    errors = parsed.problems.filter(pl.col("severity") == "error")
    assert errors.height > 0 and "opponent" in set(errors["field"])


@pytest.mark.parametrize("season", [DEFAULT_SEASON, OTHER_SEASON])
def test_quarter_of(season: int) -> None:
    assert quarter_of(date(season - 1, 12, 16), season) == 0
    assert quarter_of(date(season, 3, 15), season) == 0
    assert quarter_of(date(season, 3, 16), season) == 1
    assert quarter_of(date(season, 12, 15), season) == 3
    for outside in (date(season - 1, 12, 15), date(season, 12, 15) + timedelta(days=1)):
        with pytest.raises(ValueError, match="outside"):
            quarter_of(outside, season)


def test_season_dates() -> None:
    d = SeasonDates(2019)
    assert d.snapshot_dates == (date(2019, 1, 1), date(2019, 7, 1))
    assert d.opening_list_date == date(2019, 1, 1)
    assert d.quarters == (
        (date(2018, 12, 16), date(2019, 3, 15)),
        (date(2019, 3, 16), date(2019, 6, 15)),
        (date(2019, 6, 16), date(2019, 9, 15)),
        (date(2019, 9, 16), date(2019, 12, 15)),
    )
    assert d.membership_years == (2017, 2018, 2019) and d.next_season == 2020
    other = SeasonDates(2005)
    assert other.snapshot_dates == (date(2005, 1, 1), date(2005, 7, 1))
    assert other.quarters[0] == (date(2004, 12, 16), date(2005, 3, 15))
    assert other.quarters[-1] == (date(2005, 9, 16), date(2005, 12, 15))
    assert other.membership_years == (2003, 2004, 2005) and other.next_season == 2006
    for bad in (1899, 9999):
        with pytest.raises(ValueError, match="season"):
            generate_federation(season=bad)
    with pytest.raises(TypeError):
        SeasonDates("2019")  # type: ignore[arg-type]


def test_snapshots_and_opening_list_follow_the_season(any_fed: DemoFederation) -> None:
    season = any_fed.season
    assert [s.as_of for s in any_fed.snapshots] == [date(season, 1, 1), date(season, 7, 1)]
    assert any_fed.dates.opening_list_date == date(season, 1, 1)
    jan = any_fed.snapshots[0].players
    age = (date(season, 1, 1) - jan["birth_date"]).dt.total_days() / 365.25
    assert age.min() >= 8 and age.max() <= 85
    assert set(any_fed.elo_italia["player_id"]) <= set(jan["player_id"])


@pytest.mark.parametrize(
    ("columns", "specs"),
    [
        (PLAYER_COLUMNS, PLAYER_FIELDS),
        (MANIFEST_COLUMNS, MANIFEST_FIELDS),
        (ELO_LIST_COLUMNS, LIST_FIELDS),
    ],
)
def test_file_columns_fit_the_input_specs(columns: tuple[str, ...], specs: list) -> None:
    """The demo's formats are fixed, but each stays a valid file of its documented format."""
    order = [spec.name for spec in specs]
    assert [c for c in order if c in columns] == list(columns)  # known columns, spec order
    assert {spec.name for spec in specs if spec.required} <= set(columns)
