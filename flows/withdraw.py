"""The ``withdraw`` flow: take a mistakenly delivered tournament out of the lists.

The tournament gets a new version in state ``withdrawn`` (its files and earlier versions stay
archived), with the analyst's reason; the lists that rated it become stale, and a replay
(``graduatoria recalculate --stale``) leaves it out, naming it among the tournaments not
rated. Delivering it again, as a new delivery, brings it back as a new version.
"""

from __future__ import annotations

import duckdb
from prefect import flow

from flows.console import counted, say
from flows.runtime import RunRecord, failure_recorded, publish_markdown
from flows.warehouse import Warehouse, execute, read_sql


class WithdrawError(RuntimeError):
    """The tournament cannot be withdrawn as asked (one clear line for the analyst)."""


@flow(name="withdraw")
@failure_recorded("withdraw")
def withdraw_flow(tournament_id: str, reason: str, warehouse: str) -> dict[str, int]:
    """Withdraw ``tournament_id`` for ``reason``: a new version rated by no list."""
    if not reason.strip():
        raise WithdrawError("give the reason of the withdrawal (--reason TEXT): it is kept")
    run = RunRecord(flow="withdraw", parameters={"tournament_id": tournament_id, "reason": reason})
    key = {"tournament_id": tournament_id}
    # refused on a read-only session first: a mistyped id costs no write (whose failure would
    # drop the standby, and the next run would copy the warehouse)
    with Warehouse(warehouse).reader() as con:
        refuse_a_withdrawal(con, tournament_id)
    with Warehouse(warehouse).transaction(create=False) as con:
        version, status, system = refuse_a_withdrawal(con, tournament_id)
        rated_by = execute(con, read_sql("queries/lists_rating_tournament.sql"), key)
        new = {**key, "version": version, "run_id": run.run_id}
        execute(con, read_sql("queries/insert_withdrawn_version.sql"), new)
        execute(
            con,
            read_sql("queries/insert_withdrawal.sql"),
            {**key, "version": version + 1, "reason": reason, "run_id": run.run_id},
        )
        run.counts = {"version": version + 1, "lists_rating_it": len(rated_by)}
        lines = [
            f"# {tournament_id} withdrawn",
            "",
            f"- version {version + 1} ({system}) takes version {version} ({status}) out of the "
            f"lists: {reason}",
            "- its files and earlier versions stay archived; a new delivery of it brings it back",
        ]
        if rated_by:
            lines.append(
                f"- {counted(len(rated_by), 'list')} rated it and "
                f"{'is' if len(rated_by) == 1 else 'are'} now stale: "
                + ", ".join(f"{system} {list_date}" for system, list_date in rated_by)
                + "; replay them with `graduatoria recalculate --stale`"
            )
        report = "\n".join(lines) + "\n"
        run.write(con, "succeeded", report)
    publish_markdown(report, key="withdrawal")
    say(report)
    return run.counts


def refuse_a_withdrawal(con: duckdb.DuckDBPyConnection, tournament_id: str) -> tuple[int, str, str]:
    """The latest version of ``tournament_id`` (version, status, system), unless it cannot be
    withdrawn: the warehouse has no such tournament, or it is withdrawn already."""
    latest = execute(
        con, read_sql("queries/tournament_latest.sql"), {"tournament_id": tournament_id}
    )
    if not latest:
        raise WithdrawError(f"no tournament {tournament_id} in the warehouse")
    version, status, system = latest[0]
    if status == "withdrawn":
        raise WithdrawError(f"{tournament_id} is withdrawn already (version {version})")
    return version, status, system
