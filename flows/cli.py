"""``graduatoria``: the command line for rating officers who do not know Prefect.

Each verb that changes the warehouse runs one Prefect flow locally; the read-only verbs
(``status``, ``problems``) read DuckDB alone. Errors are one line on stderr and a non-zero
exit; ``--debug`` shows the traceback.

A verb imports its flows when it runs, not when this module loads: parsing the arguments (and
``--help``, answered in well under half a second) must not pay for importing Polars, DuckDB,
Prefect and every flow (seconds). This module's top imports the standard library and
:mod:`flows.console` (standard library only) and nothing else; the imports inside functions
below are there to keep ``--help`` fast, not to dodge an import cycle. Verbs that take any
system dispatch through :mod:`flows.systems`.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from flows.arguments import LIST_SYSTEMS, iso_date
from flows.console import counted, show, silence
from flows.dashboard.command import add_dashboard_parser, run_dashboard
from flows.explain import add_explain_parser, run_explain
from flows.export import add_export_parser, run_export
from flows.reconcile import add_reconcile_parser, run_reconcile

if TYPE_CHECKING:  # flows.runtime loads DuckDB and Polars, which --help must not pay for
    from flows.runtime import KilledRun

DEFAULT_WAREHOUSE = "data/warehouse/graduatoria.duckdb"
WAREHOUSE_VARIABLE = "GRADUATORIA_WAREHOUSE"
# the choices of --system (schemas.vocabulary: no Polars, no Pandera to import for them)
ALL_LIST_SYSTEMS = list(LIST_SYSTEMS)
# they read the warehouse with DuckDB alone: no Prefect flow, no Prefect import (seconds)
READ_ONLY_VERBS = ("status", "problems", "export", "dashboard", "explain")
# verbs that manage Prefect itself rather than run a flow, and hold no warehouse
WAREHOUSELESS_VERBS = ("server",)


def _existing_dir(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return text


def _existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return text


class _Parser(argparse.ArgumentParser):
    """argparse, printing through :func:`flows.console.show`: ``graduatoria --help | head -1``
    ends quietly instead of with a broken-pipe traceback. Subparsers are of the same class."""

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if not message:
            return
        if file is sys.stdout or file is None or file is sys.stderr:
            # argparse's own default (None) is stderr
            show(message, err=file is not sys.stdout, end="")
        else:
            super()._print_message(message, file)


class _WarehouseGiven(argparse.Action):
    """``--warehouse FILE``: the file, and that it was given on the command line."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        namespace.warehouse = values
        namespace.warehouse_from = "--warehouse"


def _default_warehouse() -> tuple[str, str]:
    """The warehouse when --warehouse is not given, and where it came from."""
    from_environment = os.environ.get(WAREHOUSE_VARIABLE, "").strip()
    if from_environment:
        return from_environment, WAREHOUSE_VARIABLE
    return DEFAULT_WAREHOUSE, "default"


def _add_warehouse(parser: argparse.ArgumentParser) -> None:
    default, source = _default_warehouse()
    parser.add_argument(
        "--warehouse",
        action=_WarehouseGiven,
        default=default,
        metavar="FILE",
        help=f"DuckDB warehouse file (default: ${WAREHOUSE_VARIABLE} if set, else "
        f"{DEFAULT_WAREHOUSE}, relative to the folder the command runs in)",
    )
    parser.set_defaults(warehouse_from=source)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="graduatoria",
        description="Rating lists for Italian federations: FSI Elo Italia and Elo Rapid, "
        "FID Elo-Rubele. Inputs go into a DuckDB warehouse that dashboards read.",
        epilog=f"The warehouse is --warehouse FILE, else ${WAREHOUSE_VARIABLE}, else "
        f"{DEFAULT_WAREHOUSE}; every command names the one it used. "
        "graduatoria VERB --help tells a verb's options.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks and Prefect logs")
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="VERB", help="what to do (each verb has its --help)"
    )
    systems = ", ".join(ALL_LIST_SYSTEMS)

    ingest = verbs.add_parser(
        "ingest",
        help="ingest tournament deliveries (manifest.csv + TRF files) from an inbox folder",
        description="Every folder under INBOX holding a manifest.csv is a delivery. Bad files "
        "or rows are rejected with their reason; their tournaments are quarantined; the rest "
        "loads. Re-running the same inbox adds nothing.",
    )
    ingest.add_argument(
        "inbox",
        type=_existing_dir,
        metavar="INBOX",
        help="folder holding the delivery folders (searched at any depth)",
    )
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
        help="load an FSI registry snapshot (players.csv + memberships.csv) as of a date",
        description="FOLDER holds players.csv and memberships.csv (columns in docs/INPUTS.md). "
        "The snapshot is kept with its date, so every later computation reads the registry as "
        "it stood; it identifies the provisional players of tournaments ingested before it.",
    )
    registry.add_argument(
        "folder",
        type=_existing_dir,
        metavar="FOLDER",
        help="folder holding players.csv and memberships.csv",
    )
    registry.add_argument(
        "--as-of",
        type=iso_date,
        required=True,
        metavar="YYYY-MM-DD",
        help="the date the snapshot stands for",
    )
    _add_warehouse(registry)

    fid_registry = verbs.add_parser(
        "load-fid-registry",
        help="load a FID (draughts) registry snapshot (players.csv + memberships.csv) as of a date",
        description="FOLDER holds the FID players.csv and memberships.csv (columns in "
        "docs/INPUTS.md), kept apart from the FSI registry as dated snapshots.",
    )
    fid_registry.add_argument(
        "folder",
        type=_existing_dir,
        metavar="FOLDER",
        help="folder holding players.csv and memberships.csv",
    )
    fid_registry.add_argument(
        "--as-of",
        type=iso_date,
        required=True,
        metavar="YYYY-MM-DD",
        help="the date the snapshot stands for",
    )
    _add_warehouse(fid_registry)

    draughts = verbs.add_parser(
        "ingest-draughts",
        help="ingest draughts deliveries (tournaments.csv + games CSV files) from an inbox",
        description="Every folder under INBOX holding a tournaments.csv is a draughts delivery "
        "(format in docs/INPUTS.md). Bad rows are rejected with their reason and their tournaments "
        "quarantined; the rest loads. Re-running the same inbox adds nothing.",
    )
    draughts.add_argument(
        "inbox",
        type=_existing_dir,
        metavar="INBOX",
        help="folder holding the draughts delivery folders",
    )
    _add_warehouse(draughts)

    import_list = verbs.add_parser(
        "import-list",
        help="start a system from its published list "
        "(CSV: player_id,rating,games,k,category[,last_played])",
        description="FILE is the federation's last official list of the system at its list "
        "date, a CSV with the columns player_id,rating,games,k,category and, optionally, "
        "last_played (YYYY-MM-DD, the last rated individual tournament: it gives activity). "
        "For a draughts list rating is the capital and k stays empty. It becomes revision 1 of "
        "that list; a list with a rejected row is refused whole (docs/INPUTS.md).",
    )
    import_list.add_argument(
        "file",
        type=_existing_file,
        metavar="FILE",
        help="CSV: player_id,rating,games,k,category[,last_played]",
    )
    import_list.add_argument("--system", required=True, help=f"the list's system: {systems}")
    import_list.add_argument(
        "--list-date",
        type=iso_date,
        required=True,
        metavar="YYYY-MM-DD",
        help="the list date of the published list (one of the system's list dates)",
    )
    _add_warehouse(import_list)

    quarterly = verbs.add_parser(
        "quarterly",
        help="publish the list of a system at a list date (a new revision if anything changed)",
        description="Takes the previous list, the tournaments received in the period and the "
        "registry as it stood, and writes the list, its variations and rankings in one "
        "transaction. Running it again on the same inputs writes nothing new.",
    )
    quarterly.add_argument(
        "--system", required=True, choices=ALL_LIST_SYSTEMS, help="the list's system"
    )
    quarterly.add_argument(
        "--list-date",
        type=iso_date,
        required=True,
        metavar="YYYY-MM-DD",
        help="the list date to publish (its receipt window must be closed)",
    )
    quarterly.add_argument(
        "--rulebook",
        default=None,
        metavar="TOML",
        help="the system's rulebook (default and only: data/rules/SYSTEM.toml); another is a "
        "what-if: recalculate --rulebook TOML --scenario NAME",
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
    recalculate.add_argument(
        "--from",
        dest="start",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="first list date to replay",
    )
    recalculate.add_argument(
        "--to", dest="end", type=iso_date, metavar="YYYY-MM-DD", help="last list date to replay"
    )
    recalculate.add_argument("--stale", action="store_true", help="replay the stale lists")
    recalculate.add_argument(
        "--rulebook",
        default=None,
        metavar="TOML",
        help="another rulebook, for a what-if: needs --scenario (default: data/rules/)",
    )
    recalculate.add_argument(
        "--scenario",
        default="official",
        metavar="NAME",
        help="write the lists as this what-if, beside the official ones (lowercase letters, "
        "digits, - and _; default: official)",
    )
    _add_warehouse(recalculate)

    serve = verbs.add_parser(
        "serve",
        help="publish each list by itself, the day after its cut-off (a Prefect deployment; "
        "runs while this process does)",
        description="Registers the Prefect deployment scheduled-list/SYSTEM on the Prefect "
        "server: crons in Europe/Rome at 06:00 on the day after each receipt cut-off, each run "
        "publishing the list whose receipt window has just closed. This process runs the "
        "scheduled runs until Ctrl-C; the schedules stay registered (docs/OPERATIONS.md).",
    )
    serve.add_argument(
        "--system",
        required=True,
        action="append",
        choices=ALL_LIST_SYSTEMS,
        help="a system to publish (repeat the option for several)",
    )
    serve.add_argument(
        "--work-pool",
        default=None,
        metavar="POOL",
        help="register the deployments on this Prefect process work pool for a worker to run "
        "(prefect worker start --pool POOL) instead of serving them here",
    )
    serve.add_argument(
        "--rulebook",
        default=None,
        metavar="TOML",
        help="the system's rulebook (default and only: data/rules/SYSTEM.toml); the lists "
        "served are the official ones",
    )
    _add_warehouse(serve)

    merge = verbs.add_parser(
        "merge",
        help="record that a provisional id (see unmatched_player) is a registered player",
        description="The tournaments of the provisional player count as the registered "
        "player's; the lists that read them become stale (recalculate --stale). Refused when "
        "the name and the birth date both differ from the registry's (unless --force) or when "
        "one person would play twice in a tournament.",
    )
    merge.add_argument(
        "provisional_id",
        metavar="PROVISIONAL_ID",
        help="the provisional id an ingest gave (view unmatched_player)",
    )
    merge.add_argument("player_id", metavar="PLAYER_ID", help="the registry's player id")
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
    withdraw.add_argument(
        "tournament_id", metavar="TOURNAMENT", help="the tournament id of the delivery"
    )
    withdraw.add_argument("--reason", required=True, help="why: kept with the withdrawal")
    _add_warehouse(withdraw)

    problems = verbs.add_parser(
        "problems",
        help="quarantined and withdrawn tournaments, and the rejections and warnings of the "
        "latest runs (read-only)",
        description="Reads the warehouse only: the quarantined and withdrawn tournaments, "
        "those no list will rate, and the rejections and warnings the latest runs recorded.",
    )
    problems.add_argument("--delivery", metavar="FOLDER", help="one delivery folder, by name")
    problems.add_argument("--system", choices=ALL_LIST_SYSTEMS, help="one system's tournaments")
    problems.add_argument("--tournament", metavar="ID", help="one tournament, by id")
    problems.add_argument(
        "--runs",
        type=int,
        default=5,
        metavar="N",
        help="rejections and warnings of the latest N runs that recorded any (default 5)",
    )
    _add_warehouse(problems)

    status = verbs.add_parser(
        "status",
        help="summarise what the warehouse holds (read-only)",
        description="Reads the warehouse only: what it holds (players, tournaments, runs), the "
        "tournaments by system, those no list will rate, and per system the lists published "
        "and the stale ones, with why.",
    )
    _add_warehouse(status)

    # their modules import only the standard library when loaded: --help stays fast
    _add_warehouse(add_export_parser(verbs))
    _add_warehouse(add_reconcile_parser(verbs))
    _add_warehouse(add_dashboard_parser(verbs))
    add_explain_parser(verbs, _add_warehouse)

    server = verbs.add_parser(
        "server",
        help="start, stop or check the lasting local Prefect server the commands use",
        description="The first command that runs a flow starts a local Prefect server in the "
        "background and later commands reuse it (its UI shows every run). start, stop and "
        "status manage it explicitly; with PREFECT_API_URL set, that server is used instead.",
    )
    server.add_argument(
        "action",
        choices=("start", "stop", "status"),
        metavar="{start,stop,status}",
        help="start it (if not running), stop it, or say whether it runs and where",
    )

    demo = verbs.add_parser(
        "demo",
        help="generate the demo federation and run the pipeline on it (make run)",
        description="Generates a demo chess federation (season 2019) and a draughts one "
        "(2021-2022) into --out, loads their registries, opening lists and deliveries, and "
        "publishes their lists; about a minute.",
    )
    demo.add_argument(
        "--out",
        default="data/demo",
        metavar="DIR",
        help="folder the demo files are written to (default: data/demo)",
    )
    demo.add_argument(
        "--seed", type=int, default=2027, help="random seed of the demo federation (default: 2027)"
    )
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
    from flows.preflight import check_list_date, refuse_an_unofficial_rulebook, require_warehouse

    check_list_date(args.system, args.list_date, args.rulebook)
    refuse_an_unofficial_rulebook(args.system, args.rulebook, args.list_date)
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
            show(
                f"recalculate: {system} has {counted(len(stale), 'stale list')} "
                f"from {stale[0].list_date}"
            )
            _recalculate_system(system, warehouse, stale=True)
            replayed.append(system)
    if not replayed:
        show("recalculate: every published list is current; nothing to do")


def _run_serve(args: argparse.Namespace) -> None:
    from flows.deploy import register, serve
    from flows.preflight import refuse_an_unofficial_rulebook

    for system in args.system:
        refuse_an_unofficial_rulebook(system, args.rulebook)

    if args.work_pool:
        register(args.system, args.warehouse, args.work_pool, args.rulebook)
    else:
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


def _run_server(args: argparse.Namespace) -> None:
    # imported when the verb runs: --help must not import Prefect
    from flows.prefect_server import server_verb

    server_verb(args)


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
    "export": run_export,
    "reconcile": run_reconcile,
    "dashboard": run_dashboard,
    "explain": run_explain,
    "server": _run_server,
    "demo": _run_demo,
}


PREFECT_SERVICE_LOGGERS = ("EventsWorker", "APILogWorker")


@contextlib.contextmanager
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


def console() -> None:
    """The ``graduatoria`` program: :func:`main`, then an exit without the interpreter's
    teardown of every module it imported (Prefect, Polars, DuckDB and the flows): 0.3–0.7 s
    after the last line, a fifth of an unchanged ``quarterly``, in which a Ctrl-C also ended
    the process with 130 and no word about the finished run. Threads are joined and every
    exit handler (Prefect's, logging's, temporary files') runs first, as at any exit."""
    finished: list[int] = []
    # exit handlers run last registered first: registered before any library's, this one
    # runs after theirs (logging's, registered at its import, it runs itself)
    atexit.register(_exit_without_teardown, finished)
    code = main()
    finished.append(code)
    sys.exit(code)


def _exit_without_teardown(finished: list[int]) -> None:
    if not finished:
        return  # main raised: the interpreter reports it and exits as it always does
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a reader gone away (``status | head``)
            stream.flush()
    os._exit(finished[0])


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        # imported here, not at the top: flows.runtime imports DuckDB and Polars, which --help
        # must not pay for. It only sets environment variables (PREFECT_HOME, where the local
        # server's record is, read by the read-only verbs too): no verb imports Prefect
        # through it
        from flows.runtime import configure_prefect_environment

        configure_prefect_environment(verbose=args.debug)
        from flows.warehouse import Warehouse
    except KeyboardInterrupt:
        # Ctrl-C while the libraries load (about a second): one line, not their traceback
        show("graduatoria: interrupted before it began; nothing was changed", err=True)
        return 130
    if args.verb in WAREHOUSELESS_VERBS:
        return _run(args)
    warehouse = Warehouse(args.warehouse)
    existed = warehouse.exists()
    code = _run(args)
    if code == 0:
        _name_the_warehouse(
            args.verb,
            warehouse.path,
            created=not existed and warehouse.exists(),
            source=args.warehouse_from,
        )
    return code


def _run(args: argparse.Namespace) -> int:
    """Run the verb; an error is one line on stderr and a non-zero exit."""
    swaps_before = _swaps_done(args)
    try:
        if args.verb in READ_ONLY_VERBS or args.verb in WAREHOUSELESS_VERBS:
            # no flow runs: Prefect's settings would import Prefect (seconds) for nothing
            VERBS[args.verb](args)
        else:
            # the lasting local Prefect server (started by the first command that needs it),
            # before anything imports Prefect: Prefect reads its API address once, at import
            from flows.prefect_server import ensure_server

            ensure_server()
            from prefect import tags

            from flows.runtime import quiet_flow_settings, settle_killed_runs, this_process

            with (
                quiet_flow_settings(),
                _prefect_logs(shown=args.debug),
                tags(this_process().tag()),
            ):
                _say_killed_runs(settle_killed_runs())
                VERBS[args.verb](args)
    except KeyboardInterrupt:
        if _swaps_done(args) == swaps_before:
            unchanged = "" if args.verb in WAREHOUSELESS_VERBS else "; the warehouse is unchanged"
            show(f"graduatoria: interrupted{unchanged}", err=True)
        else:
            # the run had written the warehouse, and was stopped reporting it
            show(
                "graduatoria: interrupted after the run wrote the warehouse (see "
                "`graduatoria status` and the `run` view)",
                err=True,
            )
        return 130
    except BaseException as error:
        if isinstance(error, BrokenPipeError) and args.verb in READ_ONLY_VERBS:
            # a read-only verb printing its answer to a reader that went away (``status |
            # head``): it wrote nothing, and its answer was read as far as it was wanted. (A
            # flow's own lines go through flows.console, which never lets a closed pipe out.)
            silence()
            return 0
        if not isinstance(error, Exception) and not _is_polars_panic(error):
            raise  # SystemExit, GeneratorExit: not an error of the run
        if args.debug:
            raise
        text = str(error).strip()
        show(f"graduatoria: error: {text.splitlines()[0] if text else repr(error)}", err=True)
        return 1
    return 0


def _say_killed_runs(killed: list[KilledRun]) -> None:
    """One line for the runs an earlier command left running in Prefect when it was killed,
    now marked crashed there (on stderr: standard output may be an export's data)."""
    if not killed:
        return
    runs = "; ".join(run.described() for run in killed)
    what = (
        "an earlier run was killed before it ended"
        if len(killed) == 1
        else f"{len(killed)} earlier runs were killed before they ended"
    )
    show(
        f"graduatoria: {what} ({runs}): marked crashed in Prefect; a killed run leaves the "
        "warehouse as it was",
        err=True,
    )


def _swaps_done(args: argparse.Namespace) -> int:
    """How many times this process has replaced a warehouse file (a run's write landing)."""
    if args.verb in WAREHOUSELESS_VERBS:
        return 0
    from flows.warehouse import Warehouse

    return Warehouse.swaps_done


def _is_polars_panic(error: BaseException) -> bool:
    """A Polars panic is a BaseException: an analyst still gets one line, not a traceback.
    Looked up rather than imported: Polars can panic only once a verb has imported it, and
    importing it here would make --help pay for it."""
    exceptions = sys.modules.get("polars.exceptions")
    return exceptions is not None and isinstance(error, exceptions.PanicException)


def _name_the_warehouse(verb: str, path: Path, created: bool, source: str = "default") -> None:
    """Every command says which warehouse it used (the default is relative to the folder a
    command runs in: run from another folder, it would use another file), and a new one is
    never created in silence; one taken from GRADUATORIA_WAREHOUSE is said to be, since
    nothing on the command line shows it."""
    origin = f" (from {WAREHOUSE_VARIABLE})" if source == WAREHOUSE_VARIABLE else ""
    if created:
        show(f"graduatoria: created a new warehouse: {path}{origin}")
    elif verb not in VERBS_NAMING_THEIR_WAREHOUSE or origin:
        show(f"graduatoria: warehouse {path}{origin}")


# their own output names the warehouse already
VERBS_NAMING_THEIR_WAREHOUSE = ("status", "demo", "problems", "dashboard")


if __name__ == "__main__":
    console()
