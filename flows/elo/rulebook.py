"""The FSI Elo systems (Elo Italia, Elo Rapid) and their rulebooks as the flows load them."""

from __future__ import annotations

from pathlib import Path

from transforms.elo.rulebook import EloEra, Rulebook, ingest_rules_difference, parse_rulebook
from transforms.lists.eras import RulebookError, default_rulebook_path

FSI_SYSTEMS = ("elo_italia", "elo_rapid")


# The entry source "elo_italia" of a rulebook reads this system's official list
ELO_ITALIA = "elo_italia"


def reference_system(era: EloEra) -> str | None:
    """The other list whose ratings newcomers may enter with under ``era`` (or None)."""
    return ELO_ITALIA if ELO_ITALIA in era.entry_precedence else None


def load_rulebook(system: str, path: str | None = None) -> Rulebook:
    source = Path(path) if path else default_rulebook_path(system)
    if not source.is_file():
        raise RulebookError(f"no rulebook at {source}")
    rulebook = parse_rulebook(source.read_bytes(), source.name)
    if rulebook.system != system:
        raise RulebookError(f"{source.name} is the rulebook of {rulebook.system}, not {system}")
    if path:
        default = default_rulebook_path(system)
        difference = ingest_rules_difference(
            rulebook, parse_rulebook(default.read_bytes(), default.name)
        )
        if difference is not None:
            raise RulebookError(
                f"{source.name} changes rules applied when tournaments are ingested "
                f"({difference}): they were applied under {default.name}, so a list or a "
                "replay cannot change them"
            )
    return rulebook
