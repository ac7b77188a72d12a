"""``graduatoria``: the command line for rating officers who do not know Prefect.

Each verb runs one Prefect flow locally (a temporary server starts the first time: allow a few
seconds). Errors are one line on stderr and a non-zero exit; ``--debug`` shows the traceback.

A verb imports its flows when it runs, not when this module loads: parsing the arguments (and
``--help``) must not pay for importing Prefect and every flow (seconds). Verbs that take any
system dispatch through :mod:`flows.systems`.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from polars.exceptions import PanicException

from flows.console import counted
from flows.runtime import configure_prefect_environment
from schemas.inputs import ALL_SYSTEMS

DEFAULT_WAREHOUSE = "data/warehouse/graduatoria.duckdb"
ALL_LIST_SYSTEMS = list(ALL_SYSTEMS)


def _iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise argparse.ArgumentTypeError(
                f"{text!r} is written YYYY-MM-DD, but there is no such day ({error})"
            ) from error
        raise argparse.ArgumentTypeError(f"{text!r} is not a date written YYYY-MM-DD") from error


def _existing_dir(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return text


def _existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return text


def _add_warehouse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse",
        default=DEFAULT_WAREHOUSE,
        metavar="FILE",
        help=f"DuckDB warehouse file (default: {DEFAULT_WAREHOUSE})",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graduatoria",
        description="Rating lists for Italian federations: FSI Elo Italia and Elo Rapid, "
        "FID Elo-Rubele. Inputs go into a DuckDB warehouse that dashboards read.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks and Prefect logs")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    ingest = verbs.add_parser(
        "ingest",
        help="ingest tournament deliveries (manifest.csv + TRF files) from an inbox folder",
        description="Every folder under INBOX holding a manifest.csv is a delivery. Bad files "
        "or rows are rejected with their reason; their tournaments are quarantined; the rest "
        "loads. Re-running the same inbox adds nothing.",
    )
    ingest.add_argument("inbox", type=_existing_dir, metavar="INBOX")
    ingest.add_argument(
        "--national-federation",
        default=None,
        metavar="CODE",
        help="override the federation's country code: the record id of the TRF-26 national "
        "lines whose ids are registry ids, and the players the chief arbiter may not rate "
        "(default: the rulebook's federation.country)",
    )
    _add_warehouse(ingest)

    registry = verbs.add_parser(
        "load-registry",
        help="load a registry snapshot (players.csv + memberships.csv) as of a date",
    )
    registry.add_argument("folder", type=_existing_dir, metavar="FOLDER")
    registry.add_argument("--as-of", type=_iso_date, required=True, metavar="YYYY-MM-DD")
    _add_warehouse(registry)

    fid_registry = verbs.add_parser(
        "load-fid-registry",
        help="load a FID (draughts) registry snapshot (players.csv + memberships.csv) as of a date",
    )
    fid_registry.add_argument("folder", type=_existing_dir, metavar="FOLDER")
    fid_registry.add_argument("--as-of", type=_iso_date, required=True, metavar="YYYY-MM-DD")
    _add_warehouse(fid_registry)

    draughts = verbs.add_parser(
        "ingest-draughts",
        help="ingest draughts deliveries (tournaments.csv + games CSV files) from an inbox",
        description="Every folder under INBOX holding a tournaments.csv is a draughts delivery "
        "(format in docs/INPUTS.md). Bad rows are rejected with their reason and their tournaments "
        "quarantined; the rest loads. Re-running the same inbox adds nothing.",
    )
    draughts.add_argument("inbox", type=_existing_dir, metavar="INBOX")
    _add_warehouse(draughts)

    import_list = verbs.add_parser(
        "import-list",
        help="bootstrap a system from a published list (player_id,rating,games,k,category)",
    )
    import_list.add_argument("file", type=_existing_file, metavar="FILE")
    import_list.add_argument("--system", required=True)
    import_list.add_argument("--list-date", type=_iso_date, required=True, metavar="YYYY-MM-DD")
    _add_warehouse(import_list)

    quarterly = verbs.add_parser(
        "quarterly",
        help="publish the list of a system at a list date (a new revision if anything changed)",
        description="Takes the previous list, the tournaments received in the period and the "
        "registry as it stood, and writes the list, its variations and rankings in one "
        "transaction. Running it again on the same inputs writes nothing new.",
    )
    quarterly.add_argument("--system", required=True, choices=ALL_LIST_SYSTEMS)
    quarterly.add_argument("--list-date", type=_iso_date, required=True, metavar="YYYY-MM-DD")
    quarterly.add_argument(
        "--rulebook", default=None, metavar="TOML", help="rulebook file (default: data/rules/)"
    )
    _add_warehouse(quarterly)

    recalculate = verbs.add_parser(
        "recalculate",
        help="replay list dates in order under the rules of each era, as new revisions",
        description="Replays every list date from --from to --to (or, with --stale, from the "
        "earliest list whose inputs changed). Lists whose content does not change get no new "
        "revision. With --scenario NAME the lists are written beside the official ones. "
        "--stale without --system replays the stale lists of every system, Elo Italia before "
        "Elo Rapid (whose newcomers read it).",
    )
    recalculate.add_argument(
        "--system", choices=ALL_LIST_SYSTEMS, help="required, except with --stale alone"
    )
    recalculate.add_argument("--from", dest="start", type=_iso_date, metavar="YYYY-MM-DD")
    recalculate.add_argument("--to", dest="end", type=_iso_date, metavar="YYYY-MM-DD")
    recalculate.add_argument("--stale", action="store_true", help="replay the stale lists")
    recalculate.add_argument("--rulebook", default=None, metavar="TOML")
    recalculate.add_argument("--scenario", default="official", metavar="NAME")
    _add_warehouse(recalculate)

    serve = verbs.add_parser(
        "serve",
        help="run the quarterly flow on the federation calendar (needs a Prefect server)",
    )
    serve.add_argument("--system", required=True, choices=ALL_LIST_SYSTEMS)
    serve.add_argument("--rulebook", default=None, metavar="TOML")
    _add_warehouse(serve)

    merge = verbs.add_parser(
        "merge", help="record that a provisional id (see unmatched_player) is a registered player"
    )
    merge.add_argument("provisional_id")
    merge.add_argument("player_id")
    merge.add_argument("--note", default="", help="why: kept with the merge")
    merge.add_argument(
        "--force",
        action="store_true",
        help="merge even when the name and the birth date both differ from the registry's",
    )
    _add_warehouse(merge)

    withdraw = verbs.add_parser(
        "withdraw",
        help="take a mistakenly delivered tournament out of the lists (kept in the archive)",
        description="The tournament gets a new version in state 'withdrawn', with the reason; "
        "the lists that rated it become stale (graduatoria recalculate --stale). A new "
        "delivery of it brings it back.",
    )
    withdraw.add_argument("tournament_id", metavar="TOURNAMENT")
    withdraw.add_argument("--reason", required=True, help="why: kept with the withdrawal")
    _add_warehouse(withdraw)

    problems = verbs.add_parser(
        "problems",
        help="quarantined and withdrawn tournaments, and the rejections and warnings of the "
        "latest runs (read-only)",
    )
    problems.add_argument("--delivery", metavar="FOLDER", help="one delivery folder, by name")
    problems.add_argument("--system", choices=ALL_LIST_SYSTEMS)
    problems.add_argument("--tournament", metavar="ID")
    problems.add_argument(
        "--runs",
        type=int,
        default=5,
        metavar="N",
        help="rejections and warnings of the latest N runs that recorded any (default 5)",
    )
    _add_warehouse(problems)

    status = verbs.add_parser("status", help="summarise what the warehouse holds")
    _add_warehouse(status)

    demo = verbs.add_parser(
        "demo", help="generate the demo federation and run the pipeline on it (make run)"
    )
    demo.add_argument("--out", default="data/demo", metavar="DIR")
    demo.add_argument("--seed", type=int, default=2027)
    _add_warehouse(demo)
    return parser


def _run_ingest(args: argparse.Namespace) -> None:
    from flows.elo.ingest import ingest_flow

    counts = ingest_flow(args.inbox, args.warehouse, args.national_federation)
    _refused_deliveries(counts)


def _run_load_registry(args: argparse.Namespace) -> None:
    from flows.elo.registry import load_registry_flow

    _refused_snapshot(load_registry_flow(args.folder, args.as_of, args.warehouse))


def _run_load_fid_registry(args: argparse.Namespace) -> None:
    from flows.rubele.registry import load_fid_registry_flow

    _refused_snapshot(load_fid_registry_flow(args.folder, args.as_of, args.warehouse))


# a run that loaded nothing of what it was given ends with a non-zero exit, for scripts and
# cron: its report, printed above, says why


def _refused_snapshot(counts: dict[str, int]) -> None:
    if counts.get("refused"):
        raise ValueError("the snapshot was refused: nothing was loaded (the report above says why)")


def _refused_deliveries(counts: dict[str, int]) -> None:
    # docs/DESIGN.md: non-zero only when the run could not complete; a run that ingested some
    # deliveries did (its report names those refused), one that could read none did not
    refused = counts.get("deliveries_refused", 0)
    if refused and refused == counts.get("deliveries"):
        raise ValueError(
            f"{'the delivery was' if refused == 1 else f'all {refused} deliveries were'} "
            "refused whole: nothing was read (the report above says why)"
        )


def _run_ingest_draughts(args: argparse.Namespace) -> None:
    from flows.rubele.ingest import ingest_draughts_flow

    _refused_deliveries(ingest_draughts_flow(args.inbox, args.warehouse))


def _run_import_list(args: argparse.Namespace) -> None:
    from flows.import_list import import_list_flow
    from flows.preflight import check_import

    check_import(args.system, args.list_date)
    import_list_flow(args.file, args.system, args.list_date, args.warehouse)


def _run_quarterly(args: argparse.Namespace) -> None:
    from flows.preflight import check_list_date, require_warehouse

    check_list_date(args.system, args.list_date, args.rulebook)
    require_warehouse(args.warehouse)
    from flows.systems import rating_system

    rating_system(args.system).publish(args.list_date, args.warehouse, args.rulebook)


def _run_recalculate(args: argparse.Namespace) -> None:
    from flows.preflight import check_replay, require_warehouse

    if args.system is None:
        if not args.stale or args.start or args.end:
            raise ValueError("give --system, or --stale alone for every system's stale lists")
        if args.rulebook is not None or args.scenario != "official":
            raise ValueError("--rulebook and --scenario apply to one system: give --system")
        require_warehouse(args.warehouse)
        _recalculate_every_stale_system(args.warehouse)
        return
    if args.rulebook is not None and args.scenario == "official":
        # a what-if must not become the official lists: they follow the system's rulebook
        raise ValueError(
            "--rulebook recalculates into a scenario: give --scenario NAME (the official lists "
            "follow the system's rulebook in data/rules/; a rule change is a new era there)"
        )
    if not args.stale and (args.start is None or args.end is None):
        raise ValueError("give --from and --to, or --stale")
    if args.stale and (args.start or args.end):
        raise ValueError("--stale finds its own range: give --from and --to, or --stale")
    if args.stale and args.scenario != "official":
        raise ValueError("--stale replays official lists; a scenario names its own range")
    if not args.stale:
        check_replay(args.system, args.start, args.end, args.rulebook, args.scenario)
    require_warehouse(args.warehouse)
    _recalculate_system(
        args.system, args.warehouse, args.start, args.end, args.stale, args.rulebook, args.scenario
    )


def _recalculate_system(
    system: str,
    warehouse: str,
    start: date | None = None,
    end: date | None = None,
    stale: bool = False,
    rulebook: str | None = None,
    scenario: str = "official",
) -> None:
    from flows.systems import rating_system

    rating_system(system).replay(
        warehouse, start=start, end=end, stale=stale, rulebook_path=rulebook, scenario=scenario
    )


def _recalculate_every_stale_system(warehouse: str) -> None:
    """Each system's stale lists in cascade order; a system is checked only after the ones
    before it were replayed, because replaying Elo Italia can make Elo Rapid lists stale."""
    from flows.status import published_systems, stale_of
    from flows.warehouse import Warehouse

    with Warehouse(warehouse).reader() as con:
        systems = list(published_systems(con))
    replayed = []
    for system in systems:
        with Warehouse(warehouse).reader() as con:
            stale = stale_of(con, system)
        if stale:
            print(
                f"recalculate: {system} has {counted(len(stale), 'stale list')} "
                f"from {stale[0].list_date}"
            )
            _recalculate_system(system, warehouse, stale=True)
            replayed.append(system)
    if not replayed:
        print("recalculate: every published list is current; nothing to do")


def _run_serve(args: argparse.Namespace) -> None:
    from flows.deploy import serve

    serve(args.system, args.warehouse, args.rulebook)


def _run_merge(args: argparse.Namespace) -> None:
    from flows.preflight import require_warehouse
    from flows.registry import merge_player_flow

    require_warehouse(args.warehouse)
    merge_player_flow(
        args.provisional_id, args.player_id, args.warehouse, args.note, force=args.force
    )


def _run_withdraw(args: argparse.Namespace) -> None:
    from flows.preflight import require_warehouse
    from flows.withdraw import withdraw_flow

    require_warehouse(args.warehouse)
    withdraw_flow(args.tournament_id, args.reason, args.warehouse)


def _run_problems(args: argparse.Namespace) -> None:
    from flows.problems import ProblemFilter, print_problems

    print_problems(
        args.warehouse, ProblemFilter(args.delivery, args.system, args.tournament, args.runs)
    )


def _run_status(args: argparse.Namespace) -> None:
    from flows.status import print_status

    print_status(args.warehouse)


def _run_demo(args: argparse.Namespace) -> None:
    from flows.demo import demo_flow

    demo_flow(args.out, args.warehouse, args.seed)


VERBS: dict[str, Callable[[argparse.Namespace], None]] = {
    "ingest": _run_ingest,
    "load-registry": _run_load_registry,
    "load-fid-registry": _run_load_fid_registry,
    "ingest-draughts": _run_ingest_draughts,
    "import-list": _run_import_list,
    "quarterly": _run_quarterly,
    "recalculate": _run_recalculate,
    "serve": _run_serve,
    "merge": _run_merge,
    "withdraw": _run_withdraw,
    "problems": _run_problems,
    "status": _run_status,
    "demo": _run_demo,
}


PREFECT_SERVICE_LOGGERS = ("EventsWorker", "APILogWorker")


@contextmanager
def _prefect_logs(shown: bool) -> Iterator[None]:
    """Flows print their own progress; Prefect's log (with tracebacks) only under --debug."""
    if shown:
        yield
        return
    from prefect.settings import PREFECT_LOGGING_LEVEL, temporary_settings

    prefect_logger = logging.getLogger("prefect")
    level = prefect_logger.level
    # Prefect's background services log under their class names, outside "prefect", and
    # report when the process exits, after this block ("EventsWorker - Still processing
    # items"): quiet for the rest of the process
    for service in PREFECT_SERVICE_LOGGERS:
        logging.getLogger(service).setLevel(logging.CRITICAL)
    # the temporary server re-reads the setting when it starts; the logger covers the rest
    with temporary_settings({PREFECT_LOGGING_LEVEL: "CRITICAL"}):
        prefect_logger.setLevel(logging.CRITICAL)
        try:
            yield
        finally:
            prefect_logger.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_prefect_environment(verbose=args.debug)
    from flows.runtime import quiet_flow_settings
    from flows.warehouse import Warehouse

    swaps_before = Warehouse.swaps_done
    warehouse = Warehouse(args.warehouse)
    existed = warehouse.exists()
    try:
        with quiet_flow_settings(), _prefect_logs(shown=args.debug):
            VERBS[args.verb](args)
    except KeyboardInterrupt:
        if Warehouse.swaps_done == swaps_before:
            print("graduatoria: interrupted; the warehouse is unchanged", file=sys.stderr)
        else:
            # the run had written the warehouse, and was stopped reporting it
            print(
                "graduatoria: interrupted after the run wrote the warehouse (see "
                "`graduatoria status` and the `run` view)",
                file=sys.stderr,
            )
        return 130
    except (Exception, PanicException) as error:
        # a Polars panic is a BaseException: an analyst still gets one line, not a traceback
        if args.debug:
            raise
        message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        print(f"graduatoria: error: {message}", file=sys.stderr)
        return 1
    _name_the_warehouse(args.verb, warehouse.path, created=not existed and warehouse.exists())
    return 0


def _name_the_warehouse(verb: str, path: Path, created: bool) -> None:
    """Every command says which warehouse it used (the default is relative to the folder a
    command runs in: run from another folder, it would use another file), and a new one is
    never created in silence."""
    if created:
        print(f"graduatoria: created a new warehouse: {path}")
    elif verb not in VERBS_NAMING_THEIR_WAREHOUSE:
        print(f"graduatoria: warehouse {path}")


# their own output names the warehouse already
VERBS_NAMING_THEIR_WAREHOUSE = ("status", "demo", "problems")


if __name__ == "__main__":
    sys.exit(main())
