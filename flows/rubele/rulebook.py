"""The FID Elo-Rubele systems (dama italiana, dama internazionale) and their rulebooks as the
flows load them."""

from __future__ import annotations

from pathlib import Path

from flows.publishing.arguments import ListError
from schemas.vocabulary import ALL_SYSTEMS, CHESS_SYSTEMS
from transforms.lists.eras import RulebookError, default_rulebook_path
from transforms.rubele.rulebook import RubeleRulebook, parse_rubele_rulebook

RUBELE_SYSTEMS = tuple(system for system in ALL_SYSTEMS if system not in CHESS_SYSTEMS)


def load_rubele_rulebook(system: str, path: str | None = None) -> RubeleRulebook:
    if system not in RUBELE_SYSTEMS:
        raise ListError(f"unknown system {system!r}; expected one of {', '.join(RUBELE_SYSTEMS)}")
    source = Path(path) if path else default_rulebook_path(system)
    if not source.is_file():
        raise RulebookError(f"no rulebook at {source}")
    rulebook = parse_rubele_rulebook(source.read_bytes(), source.name)
    if rulebook.system != system:
        raise RulebookError(f"{source.name} is the rulebook of {rulebook.system}, not {system}")
    return rulebook
