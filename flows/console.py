"""What a command says to the analyst: progress lines and counted nouns.

The lowest room of the flows: the warehouse's lock notice and every flow print through it.
"""

from __future__ import annotations


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 list date``, ``2 list dates``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def say(message: str) -> None:
    """A progress line for the analyst on stdout, also kept in the Prefect run's log."""
    print(message, flush=True)
    # imported here: a command that runs no flow never loads Prefect (seconds), and Prefect's
    # settings must be configured before its first import (flows.runtime)
    try:
        from prefect.exceptions import MissingContextError
        from prefect.logging import get_run_logger

        get_run_logger().info(message)
    except (ImportError, MissingContextError):
        pass
