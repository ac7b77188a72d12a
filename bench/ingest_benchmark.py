"""Ingest at national scale: ``graduatoria ingest`` of 1,000 ordinary TRF-16 files, timed as a
user runs it (issue 33: at least 100 tournaments a second, nothing lost).

    .venv/bin/python -m bench.ingest_benchmark [--tournaments 1000] [--runs 3]
    .venv/bin/python -m bench.ingest_benchmark --baseline ../base   # before/after, one run

Generated once, deterministically, into bench/out/ingest/ (the draws of bench/history.py, one
year): a registry snapshot of 48,000 players (``players.csv``, ``memberships.csv``) and an inbox
of monthly deliveries (``manifest.csv`` and TRF-16 files rendered by synthetic/trf_writer.py):
Swiss tournaments of 20-150 players and 5-9 rounds, names and FIDE ids of registry members
(2 % of the entries are foreign guests the registry does not know), a bye for the odd player
out, a forfeit now and then. The registry is loaded once into a base warehouse; each run copies
it to a fresh file and runs ``graduatoria ingest INBOX --warehouse COPY`` in a fresh process with
the lasting local Prefect server already up (started outside the timing, as bench/cli_latency.py
does). Reported: wall time, tournaments/s, games/s, the process's peak memory; after each run
SQL counts every tournament, entry, game row and played game against what the files hold.

The phases are timed by one more run of the same command in a process whose parse, validation,
matching and write functions are wrapped in timers (the INSTRUMENTED script below).

``--baseline DIR`` times another checkout's code the same way, alternating with this one's
(``git archive REV | tar -x -C DIR``: the same venv, its own modules), and compares the
two checkouts' parses of every file (and of the real files in shared/data/trf): frames equal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path

import duckdb
import polars as pl

from bench.history import HistorySize, _entries, _play, _players, _Random, _snapshot, _tournaments
from synthetic.trf_writer import TrfHeader, render_trf

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "ingest"
TRF_DIR = REPO.parent / "shared" / "data" / "trf"
YEAR = 2019
SEED = 33
REGISTRY_PLAYERS = 48_000
GUEST_SHARE = 0.02  # entries that are foreign players the registry does not know
TARGET_PER_SECOND = 100.0
TIME_CONTROL = "90 min + 30 s"
S_GUEST, S_GUEST_NAME, S_GUEST_FED = 101, 102, 103  # streams of bench/history.py's generator
GUEST_SURNAMES = ("Müller", "Dupont", "Novak", "Horvat", "Schmidt", "Kovač", "Lefèvre", "Weber")
GUEST_GIVEN = ("Jan", "Pierre", "Luka", "Marko", "Hans", "Élodie", "Petra", "Ivan")
GUEST_FEDERATIONS = ("SUI", "FRA", "SLO", "CRO", "GER", "AUT")
REGISTRY_COLUMNS = (
    "player_id", "name", "sex", "birth_date", "country",
    "fide_id", "fide_standard", "fide_rapid", "category", "k_override",
)  # fmt: skip


# --- the files ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What the generated files hold: what the warehouse must hold after the ingest."""

    tournaments: int
    deliveries: int
    entries: int
    game_rows: int  # one per player per round
    played_games: int  # pairings played over the board, each once
    registry_players: int
    guests: int

    @classmethod
    def read(cls, folder: Path) -> Expected:
        return cls(**json.loads((folder / "expected.json").read_text(encoding="utf-8")))


def _pick(names: tuple[str, ...], uniform: pl.Expr) -> pl.Expr:
    index = (uniform * len(names)).floor().cast(pl.Int64).clip(upper_bound=len(names) - 1)
    return pl.lit(pl.Series(names)).gather(index)


def generate(folder: Path, tournaments: int, seed: int = SEED) -> Expected:
    """The registry snapshot and the inbox of ``tournaments`` files, written into ``folder``."""
    size = HistorySize(
        players=REGISTRY_PLAYERS,
        first_year=YEAR,
        last_year=YEAR,
        tournaments_per_year=tournaments,
        min_players=20,
        max_players=150,
    )
    rnd = _Random(seed)
    snapshot = _snapshot(_players(size, rnd), YEAR, rnd)
    registry = snapshot.select(
        "player_id",
        "name",
        "sex",
        "birth_date",
        country=pl.lit("ITA"),
        fide_id="fide_id",
        fide_standard="fide_standard",
        fide_rapid=pl.lit(None, pl.Int64),
        category="category",
        k_override=pl.lit(None, pl.Int64),
    )
    registry_dir = folder / "registry"
    registry_dir.mkdir(parents=True, exist_ok=True)
    registry.write_csv(registry_dir / "players.csv")
    registry.select("player_id", year=pl.lit(YEAR)).write_csv(registry_dir / "memberships.csv")

    frame, entries = _entries(snapshot, _tournaments(size, YEAR, 0, rnd), YEAR, rnd)
    games, points = _play(entries, size.max_rounds, rnd)
    entries = entries.join(points, on=["t", "sn"], how="left")
    entries = rnd.add(
        entries,
        u_guest=(S_GUEST, "t", "idx"),
        u_guest_name=(S_GUEST_NAME, "t", "idx"),
        u_guest_fed=(S_GUEST_FED, "t", "idx"),
    )
    guest = pl.col("u_guest") < GUEST_SHARE
    entries = entries.with_columns(
        # a foreign guest: a name, a federation and a FIDE id the registry does not hold
        name=pl.when(guest)
        .then(
            pl.format(
                "{}, {}",
                _pick(GUEST_SURNAMES, pl.col("u_guest_name")),
                _pick(GUEST_GIVEN, pl.col("u_guest_fed")),
            )
        )
        .otherwise(pl.col("name")),
        federation=pl.when(guest)
        .then(_pick(GUEST_FEDERATIONS, pl.col("u_guest_fed")))
        .otherwise(pl.lit("ITA")),
        fide_id=pl.when(guest).then(pl.col("idx") + 30_000_001).otherwise(pl.col("fide_id")),
        rating=pl.when(guest)
        .then(pl.col("strength").round().cast(pl.Int64))
        .otherwise(pl.col("fide_standard")),
        sex=pl.when(pl.col("sex") == "F").then(pl.lit("w")).otherwise(pl.lit("m")),
        points=pl.col("points2").fill_null(0) / 2.0,
        rank=(pl.col("sn") - pl.col("points2").fill_null(0) * 10_000)
        .rank("ordinal")
        .over("t")
        .cast(pl.Int64),
        guest=guest,
    )
    header = frame.with_columns(month=pl.col("received_on").dt.strftime("%Y-%m"))
    inbox = folder / "inbox"
    if inbox.exists():
        shutil.rmtree(inbox)
    by_t = entries.partition_by("t", as_dict=True)
    games_by_t = games.partition_by("t", as_dict=True)
    manifests: dict[str, list[dict[str, object]]] = {}
    # a loop over the tournaments of a one-off generation (each file is rendered on its own)
    for row in header.iter_rows(named=True):
        tid, start, end = row["tournament_id"], row["start_date"], row["end_date"]
        step = (end - start).days / max(row["rounds"] - 1, 1)
        players = by_t[(row["t"],)].select(
            start_number="sn",
            sex="sex",
            title=pl.lit(None, pl.String),
            name="name",
            rating="rating",
            federation="federation",
            fide_id="fide_id",
            birth_date="birth_date",
            points="points",
            rank="rank",
        )
        trf = render_trf(
            TrfHeader(
                name=row["name"],
                city=row["city"],
                federation="ITA",
                start_date=start,
                end_date=end,
                rounds=row["rounds"],
                tournament_type="Individual: Swiss-System Dutch",
                chief_arbiter="Arbitro, Benchmark",
                time_control=TIME_CONTROL,
                round_dates=tuple(
                    start + timedelta(days=round(step * index)) for index in range(row["rounds"])
                ),
            ),
            players,
            games_by_t[(row["t"],)].select(
                "start_number", "round", "opponent", "color", "result_code"
            ),
        )
        delivery = inbox / row["month"]
        delivery.mkdir(parents=True, exist_ok=True)
        (delivery / f"{tid}.trf").write_bytes(trf.encode("utf-8"))
        manifests.setdefault(row["month"], []).append(
            {
                "tournament_id": tid,
                "file": f"{tid}.trf",
                "system": "elo_italia",
                "received_on": row["received_on"].isoformat(),
            }
        )
    for month, rows in manifests.items():
        pl.DataFrame(rows).write_csv(inbox / month / "manifest.csv")
    expected = Expected(
        tournaments=frame.height,
        deliveries=len(manifests),
        entries=entries.height,
        game_rows=games.height,
        played_games=games.filter(pl.col("played") & (pl.col("color") == "w")).height,
        registry_players=registry.height,
        guests=int(entries.get_column("guest").sum()),
    )
    (folder / "expected.json").write_text(json.dumps(asdict(expected), indent=2), encoding="utf-8")
    return expected


def files_for(tournaments: int) -> Path:
    """The folder of the generated files, generated on the first call."""
    folder = OUT / f"t{tournaments}"
    if not (folder / "expected.json").exists():
        print(f"generating the registry and {tournaments} TRF files (once) into {folder}…")
        began = time.perf_counter()
        generate(folder, tournaments)
        print(f"  {time.perf_counter() - began:.1f} s")
    return folder


# --- the runs -----------------------------------------------------------------------------------


# the phases of an ingest, as (module, function, label): each call is timed in the instrumented
# run. "intake" is build_intake (per tournament: its checks, and the matching timed apart)
PHASES = (
    ("flows.elo.ingest", "read_delivery", "read files"),
    ("flows.elo.ingest", "load_matching_context", "registry and known tournaments"),
    ("flows.elo.ingest", "parse_trf", "parse"),  # the baseline's: file by file
    ("flows.elo.ingest", "parse_trf_files", "parse"),  # the files of every delivery at once
    ("flows.elo.ingest", "validate_parsed", "validate (Pandera)"),
    ("flows.elo.ingest", "remember_matches", "match: every line at once"),
    ("transforms.elo.intake", "match_players", "match: each tournament's, in its intake"),
    ("flows.elo.ingest", "build_intake", "intake checks (with match)"),
    ("flows.elo.ingest", "write_outcomes", "write"),
    ("flows.elo.ingest", "unrated_among_new", "tournaments no list will rate"),
)
INSTRUMENTED = """
import importlib, json, os, sys, time
timers = {}
def wrap(module, name, label):
    target = importlib.import_module(module)
    function = getattr(target, name, None)
    if function is None:
        return
    def timed(*args, **kwargs):
        began = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            timers[label] = timers.get(label, 0.0) + time.perf_counter() - began
    setattr(target, name, timed)
from flows.runtime import configure_prefect_environment
configure_prefect_environment()
from flows.prefect_server import ensure_server
ensure_server()
for module, name, label in json.loads(os.environ["BENCH_PHASES"]):
    wrap(module, name, label)
import contextlib
from flows.warehouse import Warehouse
opened = Warehouse.transaction
@contextlib.contextmanager
def transaction(self, *args, **kwargs):
    # the staging copy, migrations and BEGIN before the block; COMMIT, CHECKPOINT, swap after
    began = time.perf_counter()
    with opened(self, *args, **kwargs) as con:
        timers["warehouse: copy, commit, swap"] = time.perf_counter() - began
        yield con
        began = time.perf_counter()
    timers["warehouse: copy, commit, swap"] += time.perf_counter() - began
Warehouse.transaction = transaction
from flows.cli import main
began = time.perf_counter()
code = main(sys.argv[1:])
timers["command (in process)"] = time.perf_counter() - began
with open(os.environ["BENCH_TIMERS"], "w") as out:
    json.dump(timers, out)
sys.exit(code)
"""


@dataclass
class Run:
    code: str  # which checkout ran
    seconds: float
    peak_mb: float
    phases: dict[str, float] | None = None


def run_process(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident memory (MB) and output of one process."""
    began = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{output[-3000:]}")
    return elapsed, usage.ru_maxrss / 1024, output


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GRADUATORIA_PREFECT_SERVER", None)  # the lasting server, as a user has it
    # one lasting server for both checkouts: this one's Prefect home
    env["PREFECT_HOME"] = str(REPO / ".prefect")
    return env


def base_warehouse(folder: Path) -> Path:
    """A warehouse holding the registry snapshot, built once."""
    warehouse = folder / "registry.duckdb"
    if not warehouse.exists():
        print("loading the registry into the base warehouse (once)…")
        run_process(
            [
                sys.executable,
                "-m",
                "flows.cli",
                "load-registry",
                str(folder / "registry"),
                "--as-of",
                f"{YEAR - 1}-12-01",
                "--warehouse",
                str(warehouse),
            ],
            REPO,
            environment(),
        )
    return warehouse


def ingest_once(folder: Path, code: Path, label: str, instrumented: bool = False) -> Run:
    """One ``graduatoria ingest`` of the inbox into a fresh copy of the base warehouse."""
    warehouse = folder / f"run-{label}.duckdb"
    for leftover in folder.glob(f"run-{label}.duckdb*"):
        leftover.unlink()
    shutil.copyfile(base_warehouse(folder), warehouse)
    argv = ["ingest", str(folder / "inbox"), "--warehouse", str(warehouse)]
    env = environment()
    if instrumented:
        timers = folder / f"timers-{label}.json"
        env["BENCH_PHASES"] = json.dumps(PHASES)
        env["BENCH_TIMERS"] = str(timers)
        command = [sys.executable, "-c", INSTRUMENTED, *argv]
    else:
        command = [sys.executable, "-m", "flows.cli", *argv]
    seconds, peak, _ = run_process(command, code, env)
    phases = json.loads(timers.read_text(encoding="utf-8")) if instrumented else None
    check_nothing_lost(warehouse, Expected.read(folder), label)
    return Run(label, seconds, peak, phases)


def check_nothing_lost(warehouse: Path, expected: Expected, label: str) -> dict[str, int]:
    """Every tournament, entry, game row and played game of the files is in the warehouse."""
    queries = {
        "tournaments": "SELECT count(*) FROM tournament_version WHERE status = 'accepted'",
        "deliveries": "SELECT count(DISTINCT delivery) FROM tournament_version",
        "entries": "SELECT count(*) FROM tournament_entry",
        "game_rows": "SELECT count(*) FROM tournament_game",
        "played_games": "SELECT count(*) FROM tournament_game WHERE played AND color = 'w'",
    }
    with duckdb.connect(str(warehouse), read_only=True) as con:
        found = {name: con.execute(sql).fetchone()[0] for name, sql in queries.items()}  # type: ignore[index]
        quarantined = con.execute(
            "SELECT count(*) FROM tournament_version WHERE status <> 'accepted'"
        ).fetchone()[0]  # type: ignore[index]
        declared = con.execute("SELECT sum(played_games) FROM tournament_version").fetchone()[0]  # type: ignore[index]
        provisional = con.execute(
            "SELECT count(*) FROM tournament_entry WHERE match_method = 'provisional'"
        ).fetchone()[0]  # type: ignore[index]
    wanted = {name: getattr(expected, name) for name in queries}
    lost = {name: (found[name], wanted[name]) for name in queries if found[name] != wanted[name]}
    # every foreign guest is provisional; so may be a member the file names otherwise than the
    # registry (a name cut at 33 characters and no FIDE id)
    if quarantined or lost or declared != expected.played_games or provisional < expected.guests:
        raise SystemExit(
            f"{label}: the warehouse does not hold what the files do: {lost} (found, expected); "
            f"quarantined {quarantined}, played games declared {declared}, provisional "
            f"{provisional} (guests {expected.guests})"
        )
    return {**found, "provisional": provisional}


# --- parsing alone, and the checkouts' parses compared -------------------------------------------

PARSE = """
import json, os, sys, time
from pathlib import Path
import polars as pl
from transforms.inputs import trf
files = [Path(name) for name in json.loads(os.environ["BENCH_FILES"])]
raws = [path.read_bytes() for path in files]
batch = getattr(trf, "parse_trf_files", None)
def parse_all():
    # as the ingest parses: a delivery (a folder) at a time
    by_folder = {}
    for index, path in enumerate(files):
        by_folder.setdefault(path.parent, []).append(index)
    parsed = [None] * len(raws)
    for indices in by_folder.values():
        if batch is not None:
            for index, one in zip(indices, batch([raws[i] for i in indices])):
                parsed[index] = one
        else:
            for index in indices:
                parsed[index] = trf.parse_trf(raws[index])
    return parsed
parse_all() if len(raws) < 50 else None
began = time.perf_counter()
parsed = parse_all()
seconds = time.perf_counter() - began
out = Path(os.environ["BENCH_PARSED"])
out.mkdir(parents=True, exist_ok=True)
for name in ("tournament", "players", "games", "national", "problems"):
    frames = [getattr(one, name).with_columns(pl.lit(i).alias("_file"))
              for i, one in enumerate(parsed)]
    pl.concat(frames, how="vertical").write_parquet(out / f"{name}.parquet")
print(json.dumps({"seconds": seconds, "files": len(raws)}))
"""


def parse_alone(code: Path, files: list[Path], out: Path) -> float:
    """Seconds ``code``'s parser takes over ``files`` (a delivery's files at once where it
    can), its frames written under ``out`` for comparison."""
    env = environment()
    env["BENCH_FILES"] = json.dumps([str(path) for path in files])
    env["BENCH_PARSED"] = str(out)
    _, _, output = run_process([sys.executable, "-c", PARSE], code, env)
    return float(json.loads(output.strip().splitlines()[-1])["seconds"])


def same_parses(first: Path, second: Path) -> list[str]:
    """The frames that differ between two checkouts' parses (problems compared as a set
    within each line: the old parser gave a one-sided pairing's rows in a random order)."""
    differ = []
    for name in ("tournament", "players", "games", "national", "problems"):
        a, b = (pl.read_parquet(folder / f"{name}.parquet") for folder in (first, second))
        if name == "problems":
            key = ["_file", "line_no", "field", "value", "reason", "severity"]
            same = a.sort(key, nulls_last=True).equals(b.sort(key, nulls_last=True)) and a.select(
                "_file", "line_no"
            ).equals(b.select("_file", "line_no"))
        else:
            same = a.equals(b) and a.schema == b.schema
        if not same:
            differ.append(name)
    return differ


# --- the report ---------------------------------------------------------------------------------


def start_server() -> None:
    """The lasting Prefect server up before any timing (started if it is not running)."""
    run_process([sys.executable, "-m", "flows.cli", "server", "start"], REPO, environment())


def table(runs: list[Run], expected: Expected) -> list[str]:
    rows = [
        "| code | run | wall | tournaments/s | games/s | peak memory |",
        "|---|---|---|---|---|---|",
    ]
    for index, run in enumerate(runs, start=1):
        rows.append(
            f"| {run.code} | {index} | {run.seconds:.2f} s | "
            f"{expected.tournaments / run.seconds:.1f} | "
            f"{expected.played_games / run.seconds:,.0f} | {run.peak_mb:,.0f} MB |"
        )
    return rows


def phase_table(runs: list[Run]) -> list[str]:
    labels = [label for _, _, label in PHASES]
    labels = list(dict.fromkeys([*labels, "warehouse: copy, commit, swap", "command (in process)"]))
    codes = [run.code for run in runs]
    rows = [
        "| phase | " + " | ".join(codes) + " |",
        "|---|" + "---|" * len(codes),
    ]
    within_intake = "match: each tournament's, in its intake"
    whole = "command (in process)"
    for label in labels:
        cells = []
        for run in runs:
            value = (run.phases or {}).get(label)
            if label == "intake checks (with match)" and value is not None:
                value -= (run.phases or {}).get(within_intake, 0.0)
            cells.append("" if value is None else f"{value:.2f} s")
        shown = "intake checks (transforms/elo/intake.py)" if "with match" in label else label
        rows.append(f"| {shown} | " + " | ".join(cells) + " |")
        if label == "warehouse: copy, commit, swap":
            # what the timers leave out of the command: Prefect's task runs, the flow's own
            # bookkeeping between the phases, the report
            others = []
            for run in runs:
                phases = run.phases or {}
                timed = sum(
                    value for name, value in phases.items() if name not in (whole, within_intake)
                )
                others.append(f"{phases.get(whole, 0.0) - timed:.2f} s")
            rows.append("| the rest of the command | " + " | ".join(others) + " |")
    rows.append(
        "| whole process (Prefect, imports, transaction) | "
        + " | ".join(f"{run.seconds:.2f} s" for run in runs)
        + " |"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=1000, help="TRF files ingested")
    parser.add_argument("--runs", type=int, default=3, help="timed ingests of each checkout")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="another checkout, timed alternately"
    )
    args = parser.parse_args()
    folder = files_for(args.tournaments)
    expected = Expected.read(folder)
    print(
        f"{expected.tournaments} tournaments in {expected.deliveries} deliveries: "
        f"{expected.entries:,} entries ({expected.guests} foreign guests), "
        f"{expected.played_games:,} games played, {expected.game_rows:,} game rows; registry "
        f"{expected.registry_players:,} players"
    )
    base_warehouse(folder)
    start_server()
    codes = {"this": REPO}
    if args.baseline is not None:
        codes = {"baseline": args.baseline.resolve(), **codes}

    trfs = sorted((folder / "inbox").rglob("*.trf"))
    real = sorted(path for path in TRF_DIR.iterdir() if path.is_file()) if TRF_DIR.is_dir() else []
    parse_seconds: dict[str, float] = {}
    for label, code in codes.items():
        parse_seconds[label] = parse_alone(code, trfs, folder / f"parsed-{label}")
        if real:
            parse_alone(code, real, folder / f"parsed-real-{label}")
        print(f"parse alone, {label}: {parse_seconds[label]:.2f} s ({len(trfs)} files)")
    if args.baseline is not None:
        for which in ("", "real-"):
            differ = same_parses(folder / f"parsed-{which}baseline", folder / f"parsed-{which}this")
            named = "the real files" if which else "the generated files"
            print(f"parses of {named}: {'identical' if not differ else f'DIFFER in {differ}'}")

    runs: list[Run] = []
    for index in range(args.runs):
        for label, code in codes.items():
            run = ingest_once(folder, code, label)
            runs.append(run)
            print(
                f"  {label} run {index + 1}: {run.seconds:.2f} s, "
                f"{expected.tournaments / run.seconds:.1f} tournaments/s, "
                f"peak {run.peak_mb:,.0f} MB; nothing lost"
            )
    profiled = [
        ingest_once(folder, code, label, instrumented=True) for label, code in codes.items()
    ]
    print()
    for label in codes:
        mine = [run.seconds for run in runs if run.code == label]
        best = min(mine)
        verdict = "ok" if expected.tournaments / best >= TARGET_PER_SECOND else "MISSED"
        print(
            f"{label}: median {statistics.median(mine):.2f} s, best {best:.2f} s "
            f"({expected.tournaments / best:.1f} tournaments/s; target "
            f"{TARGET_PER_SECOND:.0f}/s {verdict})"
        )
    print()
    print("\n".join(table(runs, expected)))
    print()
    print("\n".join(phase_table(profiled)))
    print()
    print(
        "| parse alone (same files, a delivery at a time) | "
        + " | ".join(
            f"{label} {seconds:.2f} s ({seconds / len(trfs) * 1000:.2f} ms a file)"
            for label, seconds in parse_seconds.items()
        )
        + " |"
    )
    (OUT / "results.json").write_text(
        json.dumps(
            {
                "expected": asdict(expected),
                "runs": [asdict(run) for run in runs],
                "profiled": [asdict(run) for run in profiled],
                "parse_alone": parse_seconds,
                "maxrss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            },
            indent=2,
        ),
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
