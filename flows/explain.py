"""``graduatoria explain PLAYER --system S [--list-date D] [--json]``: how a published list gave
one player his rating, game by game (read-only: no Prefect, no write).

The list date's inputs are read as the list read them (:func:`flows.elo.periods.read_period`;
for the draughts lists the same reads as :func:`flows.rubele.lists.read_rubele_facts`), the
period runs again through the engine, and the player's games are valued by the engine's own
expressions (:func:`transforms.elo.period.game_details`,
:func:`transforms.rubele.capitals.capital_details`). Every number is then checked against the
stored list (its variations, its change, its rating): an explanation that does not reproduce
the list is refused with the numbers that differ, never printed. A list computed from inputs
that changed since (a stale list) or under another rulebook is named as the likely cause.

Polars, DuckDB and the flows are imported when the verb runs, not with this module: the
command line builds its parser from :func:`add_explain_parser`, and ``--help`` must not pay
for them (see :mod:`flows.cli`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from flows.arguments import iso_date
from flows.console import show

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FSI_SYSTEMS = ("elo_italia", "elo_rapid")
DRAUGHTS_SYSTEMS = ("rubele_italiana", "rubele_internazionale")
# written out, as flows.cli does: importing schemas.inputs for them would cost --help Polars
EXPLAIN_SYSTEMS = (*FSI_SYSTEMS, *DRAUGHTS_SYSTEMS)
OFFICIAL = "official"
# how the rounds a player did not play over the board are named (tournament_game.kind)
UNPLAYED_REASONS = {
    "forfeit": "forfeit: counts for nobody",
    "bye": "bye or absence: counts for nobody",
    "unpaired": "not paired",
    "unrated": "played, but marked not rated in the file: counts for nobody",
    "withdrawn": "opponent withdrew: counts for nobody",
}
BASIS_TEXTS = {
    "list": "the previous list's rating, frozen for the period",
    "arbiter_reassignment": "the previous list's rating, raised to the arbiter's rating",
    "fide": "his FIDE standard rating at the period start (FIDE-rated players play with it)",
    "fide_reentry": "back from the FIDE list: the FIDE minimum - 1",
    "arbiter": "the rating the chief arbiter gave this foreign newcomer",
    "entry": "a newcomer's entry rating for his category",
    "fide_rapid": "a newcomer entering at his FIDE rapid rating",
    "fide_standard": "a newcomer entering at his FIDE standard rating",
    "elo_italia": "a newcomer entering at his Elo Italia rating",
    # the draughts lists
    "debutant": "a debutant's entry capital",
    "foreign": "the capital the FID registry gives this foreign player",
}
ROUNDING_TEXTS = {
    "half_away_from_zero": "to the nearest whole number, halves away from zero",
    "half_even": "to the nearest whole number, halves to even",
    "toward_zero": "toward zero",
    "half_up": "to the nearest whole number, halves up",
    "half_down": "to the nearest whole number, halves down",
}
EXPECTED_TEXTS = {
    "table": "the FIDE table, game by game",
    "average_opponent": "the FIDE table once, at the difference from the opponents' average",
    "logistic": "1 / (1 + 10^(-D/400)), game by game, unrounded",
}


class ExplainError(Exception):
    """The list cannot be explained: no such list or player, or a list imported as published."""


class ExplainMismatch(ExplainError):
    """The explanation does not reproduce the stored list: it is not printed."""


# --------------------------------------------------------------------------- the command line


def add_explain_parser(
    verbs: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_warehouse: Callable[[argparse.ArgumentParser], None] | None = None,
) -> None:
    """The ``explain`` verb's parser among ``verbs`` (its ``--warehouse`` is the caller's:
    ``add_warehouse``, or ``verbs.choices["explain"]`` afterwards)."""
    explain = verbs.add_parser(
        "explain",
        help="show how a published list gave one player his rating, game by game (read-only)",
        description="Reads the warehouse only. Runs the list date's period again from the "
        "inputs the list read and shows, for one player, every game with the ratings of both "
        "sides, D, the expected score and W - We; each tournament's K, V and the rules that "
        "changed it; the period sum and its rounding (draughts: PA per game, S, validity, "
        "rescaling, Q, the minimum, the rounding of the capital). The numbers are checked "
        "against the stored list: if they do not reproduce it, nothing is printed but the "
        "numbers that differ.",
    )
    explain.add_argument("player", metavar="PLAYER", help="the player's id, as the list gives it")
    explain.add_argument(
        "--system", required=True, choices=EXPLAIN_SYSTEMS, help="the list's system"
    )
    explain.add_argument(
        "--list-date",
        type=iso_date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the list date (default: the system's latest official list)",
    )
    explain.add_argument(
        "--json",
        action="store_true",
        help="print the explanation as JSON (exact decimals as strings) instead of text",
    )
    if add_warehouse is not None:
        add_warehouse(explain)


def run_explain(args: argparse.Namespace) -> None:
    """The ``explain`` verb: print the explanation (``args``: player, system, list_date, json,
    warehouse)."""
    show(explain_text(args.warehouse, args.player, args.system, args.list_date, args.json))


def explain_text(
    warehouse: str, player_id: str, system: str, list_date: date | None, as_json: bool
) -> str:
    """The explanation of ``player_id`` on the official ``system`` list of ``list_date`` (None:
    the latest), as aligned text or JSON. Raises ExplainError when there is nothing to explain,
    ExplainMismatch when the explanation would not reproduce the stored list."""
    model = explain(warehouse, player_id, system, list_date)
    if as_json:
        return json.dumps(model, indent=2, ensure_ascii=False, default=_json_value)
    return render_elo(model) if model["family"] == "elo" else render_rubele(model)


def explain(
    warehouse: str, player_id: str, system: str, list_date: date | None = None
) -> dict[str, Any]:
    """The explanation as data (what ``--json`` prints): checked against the stored list."""
    from flows.warehouse import Warehouse

    if system not in EXPLAIN_SYSTEMS:
        raise ExplainError(
            f"unknown system {system!r}; expected one of {', '.join(EXPLAIN_SYSTEMS)}"
        )
    with Warehouse(warehouse).reader() as con:
        stored = _stored_list(con, system, list_date, player_id)
        if system in FSI_SYSTEMS:
            return _explain_elo(con, stored, player_id)
        return _explain_rubele(con, stored, player_id)


@dataclass(frozen=True)
class StoredList:
    """The official revision an explanation is checked against, and its player's rows."""

    system: str
    list_date: date
    revision: int
    rulebook_hash: str | None
    inputs_hash: str | None
    previous_revision: int | None
    player: dict[str, Any]
    variations: pl.DataFrame

    def key(self) -> dict[str, Any]:
        return {"system": self.system, "list_date": self.list_date, "revision": self.revision}


def _stored_list(
    con: duckdb.DuckDBPyConnection, system: str, list_date: date | None, player_id: str
) -> StoredList:
    """The official revision of the list (the latest list date when ``list_date`` is None)
    and the player's rows there; refuses a list imported as published (nothing to explain)."""
    from flows.warehouse import execute, query_frame, read_sql

    found = execute(
        con, read_sql("queries/explain/stored_list.sql"), {"system": system, "list_date": list_date}
    )
    if not found:
        which = f"of {list_date}" if list_date else "at any date"
        raise ExplainError(f"there is no official {system} list {which} in the warehouse")
    (_, day, revision, source, rulebook_hash, _, inputs_hash, _, previous_revision, _, _) = found[0]
    if source != "computed":
        raise ExplainError(
            f"the {system} list of {day} was {source} as the federation published it: it holds "
            "no calculation to explain"
        )
    key = {"system": system, "list_date": day, "revision": revision, "player_id": player_id}
    rows = query_frame(con, read_sql("queries/explain/stored_player.sql"), key)  # type: ignore[arg-type]
    if rows.height == 0:
        raise ExplainError(f"player {player_id!r} is not on the {system} list of {day}")
    return StoredList(
        system=system,
        list_date=day,
        revision=revision,
        rulebook_hash=rulebook_hash,
        inputs_hash=inputs_hash,
        previous_revision=previous_revision,
        player=rows.row(0, named=True),
        variations=query_frame(con, read_sql("queries/explain/stored_variations.sql"), key),  # type: ignore[arg-type]
    )


def _staleness(
    stored: StoredList, rulebook_hash: str, inputs_hash: str, previous_revision: int | None
) -> list[str]:
    """Why the inputs read now may not be those the list was computed from."""
    causes = []
    if stored.rulebook_hash != rulebook_hash:
        causes.append(
            f"the list was computed under rulebook {str(stored.rulebook_hash)[:12]}, the "
            f"system's rulebook is now {rulebook_hash[:12]}"
        )
    if stored.inputs_hash != inputs_hash:
        causes.append(
            "its inputs changed since it was written (the list is stale: recalculate it, see "
            "`graduatoria status`)"
        )
    if stored.previous_revision != previous_revision:
        causes.append(
            f"it follows revision {stored.previous_revision} of the list before, which is now "
            f"at revision {previous_revision}"
        )
    return causes


def _refuse_differences(stored: StoredList, differences: list[str], causes: list[str]) -> None:
    """Say loudly that the explanation does not reproduce the list, and why it may not."""
    if not differences:
        return
    player = stored.player["player_id"]
    why = f"; likely because {causes[0]}" if causes else ""
    lines = [
        f"explain does not reproduce the stored {stored.system} list of {stored.list_date} "
        f"(revision {stored.revision}) for {player}: {len(differences)} number(s) differ, "
        f"first {differences[0]}{why}; no explanation printed",
        *[f"  - {difference}" for difference in differences],
        *[f"  cause: {cause}" for cause in causes],
    ]
    raise ExplainMismatch("\n".join(lines))


def _differ(label: str, computed: object, stored: object) -> list[str]:
    return [] if computed == stored else [f"{label}: explained {computed}, stored {stored}"]


# --------------------------------------------------------------------------- Elo (FSI)


def _explain_elo(con: duckdb.DuckDBPyConnection, stored: StoredList, player_id: str) -> dict:
    import polars as pl

    from flows.elo.periods import read_period
    from flows.elo.rulebook import load_rulebook
    from transforms.elo.lists import engine_player_columns, player_sheet
    from transforms.elo.period import POINT, engine_frames, game_details

    rulebook = load_rulebook(stored.system)
    context, facts = read_period(con, stored.system, OFFICIAL, stored.list_date, rulebook)
    era = context.era
    causes = _staleness(
        stored, rulebook.content_hash, context.inputs_hash, context.previous_revision
    )
    sheet = player_sheet(facts, era)
    if player_id not in set(sheet.get_column("player_id").to_list()):
        _refuse_differences(
            stored,
            [f"player {player_id}: on the stored list, not among the period's players"],
            causes,
        )
    details = game_details(
        sheet.select(engine_player_columns(facts)),
        *engine_frames(facts.entries, facts.games),
        era,
        [player_id],
    )
    rating = details.ratings.row(0, named=True)
    variations = details.variations.join(
        facts.entries.select("tournament_id", "player_id", "tournament_version"),
        on=["tournament_id", "player_id"],
        how="left",
    )
    _refuse_differences(stored, _elo_differences(stored, rating, variations), causes)

    tournaments = variations.get_column("tournament_id").to_list()
    versions = variations.get_column("tournament_version").to_list()
    rounds = _player_rounds(con, player_id, tournaments, versions)
    games = _with_rounds(details.games.rename({"score": "points"}), rounds)
    names = _names(con, stored, games.get_column("opponent_id").to_list())
    about = _tournament_rows(con, tournaments, versions)
    player_row = sheet.filter(pl.col("player_id") == player_id).row(0, named=True)
    k_rule = era.k.rules[rating["k_rule"]] if rating["k_rule"] is not None else None
    change_units = int(rating["variation_units"])
    model: dict[str, Any] = {
        "family": "elo",
        "system": stored.system,
        "list_date": stored.list_date,
        "revision": stored.revision,
        "player_id": player_id,
        "name": stored.player["name"],
        "rules": {
            "era_from": era.effective_from,
            "rulebook_sha256": rulebook.content_hash,
            "expected_method": era.expected_method,
            "expected_text": EXPECTED_TEXTS[era.expected_method],
            "difference_cap": era.difference_cap,
            "winner_protection": era.winner_protection,
            "groups": {
                "enabled": era.groups_enabled,
                "size": era.group_size,
                "min_k": era.group_min_k,
                "applies_to_player": bool(era.groups_enabled and rating["k"] >= era.group_min_k),
            },
            "rounding": era.rounding,
            "rounding_text": ROUNDING_TEXTS[era.rounding],
        },
        "window": {"received_after": context.after, "received_up_to": context.up_to},
        "frozen_rating": rating["frozen_rating"],
        "rating_basis": rating["rating_basis"],
        "rating_basis_text": _basis_text(rating["rating_basis"], player_row, era),
        "fide_at_start": player_row["fide_start"] if era.fide_holders_leave_list else None,
        "fide_at_close": player_row["fide_close"] if era.fide_holders_leave_list else None,
        "k": rating["k"],
        "k_source": k_rule.describe() if k_rule is not None else None,
        "k_schedule_line": (rating["k_rule"] + 1) if rating["k_rule"] is not None else None,
        "tournaments": _elo_tournaments(variations, games, rounds, names, about, rating),
        "period": {
            "sum": _units(change_units, POINT),
            "rounding": era.rounding,
            # the engine's rounding of the sum (game_details checked it gives period_change)
            "change": rating["period_change"],
        },
        "close": _elo_close(rating, era),
        "stored": {
            "rating": stored.player["rating"],
            "rating_type": stored.player["rating_type"],
            "period_change": stored.player["period_change"],
            "applied_variation_sum": _hundredths_sum(stored.variations),
            "note": stored.player["note"],
            "reproduced": True,
        },
        "notes": [f"the warehouse has changed since: {cause}" for cause in causes],
    }
    return model


def _elo_differences(stored: StoredList, rating: dict, variations: pl.DataFrame) -> list[str]:
    """Every number of the explanation that the stored list gives too, compared."""
    row = stored.player
    found = []
    for name in ("frozen_rating", "rating_basis", "k", "games", "period_change", "rating"):
        found += _differ(name, rating[name], row[name])
    computed = {r["tournament_id"]: r for r in variations.iter_rows(named=True)}
    kept = {r["tournament_id"]: r for r in stored.variations.iter_rows(named=True)}
    for tournament in sorted(set(computed) ^ set(kept)):
        where = "explained only" if tournament in computed else "stored only"
        found.append(f"tournament {tournament}: {where}")
    for tournament in sorted(set(computed) & set(kept)):
        ours, theirs = computed[tournament], kept[tournament]
        for name in ("own_rating", "games", "k", "raw_hundredths", "applied_hundredths"):
            found += _differ(f"{tournament} {name}", ours[name], theirs[name])
    return found


def _basis_text(basis: str, player: dict, era: Any) -> str:
    text = BASIS_TEXTS.get(basis, basis)
    if basis == "entry":
        return f"{text} ({player['category'] or era.unregistered_category})"
    if basis == "fide_reentry":
        return f"{text} ({era.fide_minimum} - 1)"
    return text


def _elo_tournaments(
    variations: pl.DataFrame,
    games: pl.DataFrame,
    rounds: pl.DataFrame,
    names: dict[str, str | None],
    about: dict[str, dict],
    rating: dict,
) -> list[dict]:
    from transforms.elo.period import POINT

    # the tournaments in the period's order, those without a counted game last
    order = variations.sort("sequence", "tournament_id", nulls_last=True)
    found = []
    for entry in order.iter_rows(named=True):
        tournament = entry["tournament_id"]
        own = games.filter(_is(tournament))
        played = [
            _elo_game(game, names)
            for game in own.sort("round", nulls_last=True).iter_rows(named=True)
        ]
        unplayed = _unplayed(rounds, own, tournament)
        info = about.get(tournament, {})
        carried = entry["own_rating"] - rating["frozen_rating"]
        found.append(
            {
                "tournament_id": tournament,
                "version": entry["tournament_version"],
                "name": info.get("name"),
                "start_date": info.get("start_date"),
                "end_date": info.get("end_date"),
                "received_on": info.get("received_on"),
                "sequence": entry["sequence"],
                "group": entry["wave"] + 1 if entry["wave"] is not None else None,
                "own_rating": entry["own_rating"],
                "carried_from_earlier_groups": carried,
                "games": played,
                "left_out": unplayed
                + [
                    {"round": game["round"], "reason": game["left_out"]}
                    for game in played
                    if not game["counted"]
                ],
                "counted_games": entry["games"],
                "score": _units(entry["won_units"], POINT),
                "expected": _units(entry["expected_units"], POINT),
                "w_minus_we": _units(entry["won_units"] - entry["expected_units"], POINT),
                "k": entry["k"],
                "raw_variation": _units(entry["raw_units"], POINT),
                "first_place": entry["is_winner"],
                "winner_protection_applied": entry["applied_units"] != entry["raw_units"],
                "applied_variation": _units(entry["applied_units"], POINT),
                "raw_hundredths": entry["raw_hundredths"],
                "applied_hundredths": entry["applied_hundredths"],
            }
        )
    return found


def _elo_game(game: dict, names: dict[str, str | None]) -> dict:
    from transforms.elo.period import POINT

    counted = game["counted"]
    reason = None
    if not counted:
        reason = (
            "both players FIDE-rated: FIDE rates it"
            if game["opponent_is_fide"]
            else "he is FIDE-rated: the game counts only for his opponent"
        )
    return {
        "round": game["round"],
        "opponent_id": game["opponent_id"],
        "opponent_name": names.get(game["opponent_id"]),
        "score": _points(game["points"]),
        "counted": counted,
        "left_out": reason,
        "own_rating": game["own_rating"],
        "opponent_rating": game["opponent_rating"],
        "opponent_is_fide": game["opponent_is_fide"],
        "average_opponent": game["average_opponent"],
        "difference": game["difference"],
        "capped_difference": game["capped_difference"],
        "expected": _units(game["expected_units"], POINT) if counted else None,
        "w_minus_we": _units(game["won_units"] - game["expected_units"], POINT)
        if counted
        else None,
        "k": game["k"],
        "variation": _units(game["variation_units"], POINT) if counted else None,
    }


def _elo_close(rating: dict, era: Any) -> dict:
    """The rating at the close and the rule that gave it (§1.5)."""
    if rating["rating_type"] == "fide":
        rule = (
            f"FIDE-rated at the close (FIDE {rating['rating']}): he keeps only the FIDE rating; "
            "the period change is not applied"
        )
    elif rating["rating_basis"] == "fide":
        rule = (
            f"left the FIDE list during the period: re-enters at the FIDE minimum - 1 "
            f"({era.fide_minimum} - 1 = {rating['rating']})"
        )
    else:
        rule = "the rating carried into the period plus the rounded period sum"
    return {"rating": rating["rating"], "rating_type": rating["rating_type"], "rule": rule}


def _hundredths_sum(variations: pl.DataFrame) -> Decimal:
    total = variations.get_column("applied_hundredths").sum() if variations.height else 0
    return Decimal(int(total or 0)).scaleb(-2)


# --------------------------------------------------------------------------- Elo-Rubele (FID)


def _explain_rubele(con: duckdb.DuckDBPyConnection, stored: StoredList, player_id: str) -> dict:
    import polars as pl

    from flows.publishing.context import read_previous
    from flows.rubele.periods import rubele_context
    from flows.rubele.rulebook import load_rubele_rulebook
    from transforms.rubele.capitals import PA_UNITS, capital_details
    from transforms.rubele.lists import starting_capitals

    rulebook = load_rubele_rulebook(stored.system)
    previous = read_previous(con, stored.system, OFFICIAL, stored.list_date)
    context = rubele_context(con, stored.system, OFFICIAL, stored.list_date, rulebook, previous)
    causes = _staleness(stored, rulebook.content_hash, context.inputs_hash, previous.revision)
    facts, inputs = _rubele_inputs(con, context, previous.rows, rulebook)
    start = starting_capitals(facts, rulebook).filter(pl.col("player_id") == player_id)
    if start.height == 0:
        # no tournament in the window: the list carries his capital
        variations = pl.DataFrame()
        capital = stored.player["previous_rating"]
        _refuse_differences(
            stored,
            _differ("rating", capital, stored.player["rating"])
            + _differ("tournaments", 0, stored.variations.height),
            causes,
        )
        games = pl.DataFrame()
        rounds = pl.DataFrame()
    else:
        details = capital_details(*inputs, rulebook, [player_id])
        variations = details.variations.sort("sequence").join(
            facts.tournaments.select("tournament_id", "tournament_version", "validity"),
            on="tournament_id",
            how="left",
            maintain_order="left",
        )
        capital = int(details.capitals.item(0, "capital"))
        _refuse_differences(
            stored, _rubele_differences(stored, variations, capital, rulebook), causes
        )
        tournaments = variations.get_column("tournament_id").to_list()
        versions = variations.get_column("tournament_version").to_list()
        rounds = _player_rounds(con, player_id, tournaments, versions)
        # a player not rated, met at his entry capital, is "<id> @ <tournament>" to the engine
        # (transforms.rubele.lists.UNRATED_OPPONENT_ID): his own id again, to find the round
        games = _with_rounds(
            details.games.with_columns(
                pl.col("opponent_id").str.contains(" @ ", literal=True).alias("not_rated"),
                pl.col("opponent_id").str.replace(r" @ .*$", ""),
            ),
            rounds,
        )
    names = _names(con, stored, games.get_column("opponent_id").to_list() if games.height else [])
    about = (
        _tournament_rows(
            con,
            variations.get_column("tournament_id").to_list(),
            variations.get_column("tournament_version").to_list(),
        )
        if variations.height
        else {}
    )
    started = start.row(0, named=True) if start.height else None
    return {
        "family": "rubele",
        "system": stored.system,
        "list_date": stored.list_date,
        "revision": stored.revision,
        "player_id": player_id,
        "name": stored.player["name"],
        "rules": {
            "variant": rulebook.variant,
            "rulebook_sha256": rulebook.content_hash,
            "order": list(rulebook.tournament_order),
        },
        "window": {"received_after": context.after, "received_up_to": context.up_to},
        "capital_before": stored.player["frozen_rating"],
        "rating_basis": stored.player["rating_basis"],
        "rating_basis_text": _rubele_basis_text(started),
        "tournaments": _rubele_tournaments(variations, games, rounds, names, about, rulebook)
        if variations.height
        else [],
        "capital": capital,
        "change": capital - stored.player["frozen_rating"],
        "pa_units_per_point": PA_UNITS,
        "stored": {
            "rating": stored.player["rating"],
            "frozen_rating": stored.player["frozen_rating"],
            "period_change": stored.player["period_change"],
            "applied_variation_sum": int(stored.variations.get_column("applied_variation").sum())
            if stored.variations.height
            else 0,
            "note": stored.player["note"],
            "reproduced": True,
        },
        "notes": [f"the warehouse has changed since: {cause}" for cause in causes],
    }


def _rubele_inputs(
    con: duckdb.DuckDBPyConnection, context: Any, previous: pl.DataFrame, rulebook: Any
) -> tuple[Any, tuple]:
    """The window's facts as :func:`transforms.rubele.lists.build_rubele_list` rates them, and
    the engine's inputs it builds from them (capitals, tournaments, entries, games).

    The reads are :func:`flows.rubele.lists.read_rubele_facts`'s, written again here: that
    module imports Prefect, which a read-only verb does not load; the preparation is the list's
    own (:func:`transforms.rubele.lists.engine_inputs`). Any drift between the reads shows as a
    refused explanation (every number is checked against the stored list), never as a wrong
    one."""
    import polars as pl

    from flows.warehouse import query_frame, read_sql
    from transforms.inputs.registry import DatedSnapshots
    from transforms.rubele.lists import RubeleFacts, engine_inputs

    window = {"system": context.system, "after": context.after, "up_to": context.up_to}
    day = {"day": context.list_date}
    registry = DatedSnapshots.of(
        query_frame(con, read_sql("queries/rubele/fid_registry_history.sql"), day)  # type: ignore[arg-type]
    ).at(context.list_date)
    members = DatedSnapshots.of(
        query_frame(con, read_sql("queries/rubele/fid_membership_history.sql"), day)  # type: ignore[arg-type]
    ).at(context.list_date)
    facts = RubeleFacts(
        previous=previous,
        tournaments=query_frame(con, read_sql("queries/rubele/period_tournaments.sql"), window),  # type: ignore[arg-type]
        entries=query_frame(con, read_sql("queries/rubele/period_entries.sql"), window),  # type: ignore[arg-type]
        games=query_frame(con, read_sql("queries/rubele/period_games.sql"), window),  # type: ignore[arg-type]
        registry=registry,
        members=members.filter(pl.col("year") == context.list_date.year).select("player_id"),
        played_before=query_frame(
            con,
            read_sql("queries/rubele/last_played.sql"),
            {"system": context.system, "after": context.after},  # type: ignore[arg-type]
        ),
        peaks=query_frame(
            con,
            read_sql("queries/rubele/peak_capitals.sql"),
            {  # type: ignore[arg-type]
                "system": context.system,
                "scenario": context.scenario,
                "list_date": context.list_date,
            },
        ),
    )
    prepared = engine_inputs(facts, rulebook)
    return prepared.facts, prepared.frames


def _rubele_differences(
    stored: StoredList, variations: pl.DataFrame, capital: int, rulebook: Any
) -> list[str]:
    row = stored.player
    first = variations.row(0, named=True)["initial"] if variations.height else capital
    found = _differ("capital", capital, row["rating"]) + _differ(
        "capital before the window", first, row["frozen_rating"]
    )
    computed = {r["tournament_id"]: r for r in variations.iter_rows(named=True)}
    kept = {r["tournament_id"]: r for r in stored.variations.iter_rows(named=True)}
    for tournament in sorted(set(computed) ^ set(kept)):
        where = "explained only" if tournament in computed else "stored only"
        found.append(f"tournament {tournament}: {where}")
    for tournament in sorted(set(computed) & set(kept)):
        ours, theirs = computed[tournament], kept[tournament]
        per_win = rulebook.eras[ours["era"]].points_per_win
        for label, mine, kept_value in (
            ("CI", ours["initial"], theirs["own_rating"]),
            ("games", ours["games"], theirs["games"]),
            ("S", ours["s"], theirs["k"]),
            ("PO", ours["points"] * per_win, theirs["score"]),
            ("PA", ours["expected"] * per_win, theirs["expected"]),
            ("V", ours["variation"], theirs["raw_variation"]),
            ("CF - CI", float(ours["final"] - ours["initial"]), theirs["applied_variation"]),
        ):
            found += _differ(f"{tournament} {label}", mine, kept_value)
    return found


def _rubele_basis_text(started: dict | None) -> str:
    if started is None:
        return "the previous list's capital (no tournament in the window)"
    text = BASIS_TEXTS.get(started["rating_basis"], started["rating_basis"])
    if started["rating_basis"] == "debutant":
        # a dama internazionale debutant may enter by his dama italiana category (RULES.md §3)
        if started["entry_italiana_category"]:
            text += f" (by his dama italiana category, {started['entry_italiana_category']})"
        elif started["entry_category"]:
            text += f" (category {started['entry_category']})"
    if started["entry_capital"] is not None:
        text += f", raised to the minimum from {started['entry_capital']}"
    if started["rating_basis"] == "list":
        text = "the previous list's capital"
    return text


def _rubele_tournaments(
    variations: pl.DataFrame,
    games: pl.DataFrame,
    rounds: pl.DataFrame,
    names: dict[str, str | None],
    about: dict[str, dict],
    rulebook: Any,
) -> list[dict]:
    from transforms.rubele.capitals import PA_UNITS

    found = []
    for entry in variations.iter_rows(named=True):
        tournament = entry["tournament_id"]
        era = rulebook.eras[entry["era"]]
        per_win = era.points_per_win
        own = games.filter(_is(tournament))
        played = [
            {
                "round": game["round"],
                "opponent_id": game["opponent_id"],
                "opponent_name": names.get(game["opponent_id"]),
                "score": _points(game["points"] * per_win),
                "own_capital": game["own_capital"],
                "opponent_capital": game["opponent_capital"],
                # not rated in this era: met at his category's entry capital
                "opponent_not_rated": game["not_rated"],
                "difference": game["difference"],
                "capped_difference": game["capped_difference"],
                "expected": _units(game["expected_units"] * per_win, PA_UNITS),
                "po_minus_pa": _points(game["points"] * per_win)
                - _units(game["expected_units"] * per_win, PA_UNITS),
            }
            for game in own.sort("round", nulls_last=True).iter_rows(named=True)
        ]
        info = about.get(tournament, {})
        x = entry["initial"] + entry["variation"]
        found.append(
            {
                "tournament_id": tournament,
                "version": entry["tournament_version"],
                "name": info.get("name"),
                "start_date": info.get("start_date"),
                "end_date": info.get("end_date"),
                "received_on": info.get("received_on"),
                "sequence": entry["sequence"],
                "era_from": era.effective_from,
                "expected_mode": era.expected_mode,
                "expected_text": _pa_text(era),
                "points_per_win": per_win,
                "games": played,
                "left_out": _unplayed(rounds, own, tournament),
                "counted_games": entry["games"],
                "initial": entry["initial"],
                "score": _points(entry["points"] * per_win),
                "expected": _units(entry["expected_units"] * per_win, PA_UNITS),
                "difference": _points(entry["points"] * per_win)
                - _units(entry["expected_units"] * per_win, PA_UNITS),
                "s": entry["s"],
                "s_text": _s_text(entry["initial"], era),
                "validity": entry["validity"],
                "factor": entry["factor"],
                "factor_stage": era.validity_factor_stage,
                "variation": entry["variation"],
                "x": x,
                "crossings": entry["crossings"],
                "bands": {
                    "low": era.band_low,
                    "high": era.band_high,
                    "s_below": era.s_below,
                    "s_between": era.s_between,
                    "s_above": era.s_above,
                },
                "recrossed": entry["recrossed"],
                "reached": entry["reached"],
                "rescaled": entry["rescaled"],
                "q": entry["q"],
                "minimum": era.minimum,
                "floored": entry["floored"],
                "unrounded": entry["unrounded"],
                "rounding": era.rounding,
                "final": entry["final"],
                "change": entry["final"] - entry["initial"],
            }
        )
    return found


def _crossing_text(tournament: dict) -> str:
    """The threshold rescaling, with its numbers when one threshold was crossed upward (the
    engine's X; the formula of RULES.md §3 shows where it comes from)."""
    bands, x, s = tournament["bands"], tournament["x"], tournament["s"]
    rescaled = tournament["rescaled"]
    if tournament["crossings"] == 1 and x > tournament["initial"]:
        low = tournament["initial"] < bands["low"] < x
        threshold = bands["low"] if low else bands["high"]
        s_new = bands["s_between"] if low else bands["s_above"]
        return (
            f"threshold {threshold} passed upward: the part above it rescaled, X = {threshold} "
            f"+ ({x:.6f} - {threshold}) x {s_new} / {s} = {rescaled:.6f}"
        )
    return (
        f"{tournament['crossings']} thresholds crossed ({bands['low']}, {bands['high']}): the "
        f"part beyond each rescaled by S_new / S_old in turn, X = {rescaled:.6f}"
    )


def _pa_text(era: Any) -> str:
    cap = f", |d| capped at {era.difference_cap}" if era.difference_cap else ""
    if era.expected_mode == "gauss":
        return f"PA(d) = Phi(d / {era.gauss_scale:g}) (Gauss){cap}"
    return f"the banded conversion table of the rulebook{cap}"


def _s_text(capital: int, era: Any) -> str:
    if capital < era.band_low:
        return f"capital {capital} below {era.band_low}"
    if capital <= era.band_high:
        return f"capital {capital} from {era.band_low} to {era.band_high}"
    return f"capital {capital} above {era.band_high}"


# --------------------------------------------------------------------------- shared reads


def _player_rounds(
    con: duckdb.DuckDBPyConnection, player_id: str, tournaments: list[str], versions: list[int]
) -> pl.DataFrame:
    from flows.warehouse import query_frame, read_sql

    return query_frame(
        con,
        read_sql("queries/explain/player_rounds.sql"),
        {  # type: ignore[arg-type]
            "player_id": player_id,
            "tournament_ids": tournaments,
            "versions": versions,
        },
    )


def _with_rounds(games: pl.DataFrame, rounds: pl.DataFrame) -> pl.DataFrame:
    """The engine's game rows with the round each was played in: matched by tournament,
    opponent and points, the n-th such game to the n-th such round (a pair meeting twice with
    the same result gives two identical rows, either way round), rounds played over the board
    first (a forfeit lost to the same opponent is matched only when it counted)."""
    import polars as pl

    key = ["tournament_id", "opponent_id", "points"]
    nth = pl.int_range(pl.len()).over(key).alias("_nth")
    played = (
        rounds.filter(pl.col("opponent_id").is_not_null())
        .sort(pl.col("kind") != "played", "round")
        .select(
            "tournament_id",
            "opponent_id",
            pl.col("score").alias("points"),
            "round",
            "kind",
        )
        .with_columns(nth)
    )
    return games.with_columns(nth).join(played, on=[*key, "_nth"], how="left").drop("_nth")


def _unplayed(rounds: pl.DataFrame, games: pl.DataFrame, tournament: str) -> list[dict]:
    """The rounds of a tournament that gave the player no game row, and why."""
    import polars as pl

    used = set(games.get_column("round").drop_nulls().to_list()) if games.height else set()
    found = []
    for row in (
        rounds.filter((pl.col("tournament_id") == tournament) & ~pl.col("round").is_in(list(used)))
        .sort("round")
        .iter_rows(named=True)
    ):
        if row["kind"] == "played":
            reason = "against a player not rated in this era: dropped"
        else:
            reason = UNPLAYED_REASONS.get(row["kind"], f"{row['kind']}: counts for nobody")
        found.append(
            {
                "round": row["round"],
                "opponent_id": row["opponent_id"],
                "kind": row["kind"],
                "reason": reason,
            }
        )
    return found


def _names(
    con: duckdb.DuckDBPyConnection, stored: StoredList, player_ids: Iterable[str | None]
) -> dict[str, str | None]:
    from flows.warehouse import execute, read_sql

    wanted = sorted({player for player in player_ids if player is not None})
    if not wanted:
        return {}
    return dict(
        execute(con, read_sql("queries/explain/names.sql"), {**stored.key(), "player_ids": wanted})
    )


def _tournament_rows(
    con: duckdb.DuckDBPyConnection, tournaments: list[str], versions: list[int]
) -> dict[str, dict]:
    from flows.warehouse import query_frame, read_sql

    rows = query_frame(
        con,
        read_sql("queries/explain/tournaments.sql"),
        {"tournament_ids": tournaments, "versions": versions},  # type: ignore[arg-type]
    )
    return {row["tournament_id"]: row for row in rows.iter_rows(named=True)}


def _is(tournament: str) -> Any:
    import polars as pl

    return pl.col("tournament_id") == tournament


# --------------------------------------------------------------------------- numbers


def _units(units: int | None, per_point: int) -> Decimal | None:
    """Fixed-point units as an exact decimal number of points."""
    if units is None:
        return None
    return Decimal(int(units)) / Decimal(per_point)


def _points(value: float) -> Decimal:
    """Points given in halves (1, ½, 0 or their sums), exactly."""
    return Decimal(round(value * 2)) / 2


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return _plain(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _plain(value: Decimal | None, places: int = 2, sign: bool = False) -> str:
    """An exact decimal with at least ``places`` decimals and no trailing zeros beyond them."""
    if value is None:
        return ""
    text = format(value.normalize(), "f") if value != 0 else "0"
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0").ljust(places, "0")
    text = f"{whole}.{fraction}" if fraction else whole
    return f"+{text}" if sign and value > 0 else text


def _signed(value: Decimal | int | None, places: int = 2) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        return f"{value:+d}" if value else "0"
    return _plain(value, places, sign=True)


# --------------------------------------------------------------------------- text


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Aligned columns: the first two (round, opponent) to the left, numbers to the right."""
    widths = [max(len(row[index]) for row in (header, *rows)) for index in range(len(header))]

    def line(row: Sequence[str]) -> str:
        cells = [
            cell.ljust(width) if index in (1,) else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return (indent + "  ".join(cells)).rstrip()

    return [line(header), *[line(row) for row in rows]]


def _opponent(game: dict, width: int = 28) -> str:
    name = game.get("opponent_name") or ""
    text = f"{game['opponent_id']} {name}".strip()
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(item: dict) -> str:
    start, end = item.get("start_date"), item.get("end_date")
    if start and end and start != end:
        return f"{start} .. {end}"
    return str(end or start or "dates unknown")


def render_elo(model: dict) -> str:
    """The Elo explanation as text an analyst reads (aligned columns)."""
    rules = model["rules"]
    groups = rules["groups"]
    cap = f", difference cap {rules['difference_cap']}" if rules["difference_cap"] else ", no cap"
    lines = [
        f"{model['system']} list of {model['list_date']} (revision {model['revision']}): "
        f"{model['player_id']} {model['name'] or ''}".rstrip(),
        f"Rules: era from {rules['era_from']} (rulebook sha256 {rules['rulebook_sha256'][:12]}); "
        f"expected score: {rules['expected_text']}{cap}; winner protection "
        f"{'on' if rules['winner_protection'] else 'off'}; "
        + (
            f"tournaments in groups of {groups['size']} for K >= {groups['min_k']}"
            if groups["enabled"]
            else "no groups of tournaments"
        )
        + f"; period sum rounded {rules['rounding_text']}",
        f"Period: tournaments received after {model['window']['received_after']} up to "
        f"{model['window']['received_up_to']}",
        "",
        f"Rating carried into the period: {model['frozen_rating']} "
        f"({model['rating_basis']}: {model['rating_basis_text']})",
    ]
    if model["k_source"] is not None:
        lines.append(
            f"K = {model['k']} (line {model['k_schedule_line']} of the K schedule: "
            f"{model['k_source']})"
        )
    if groups["enabled"] and not groups["applies_to_player"]:
        lines.append(
            f"Groups of {groups['size']} tournaments: not applied (K {model['k']} below "
            f"{groups['min_k']}): every tournament at the rating carried into the period"
        )
    for tournament in model["tournaments"]:
        lines += ["", *_elo_tournament_lines(tournament, model)]
    if not model["tournaments"]:
        lines += ["", "No tournament of his in the period."]
    period, close, stored = model["period"], model["close"], model["stored"]
    applied = [t["applied_variation"] for t in model["tournaments"] if t["counted_games"]]
    terms = ", ".join(_signed(value) for value in applied) if len(applied) > 1 else ""
    lines += [
        "",
        "Period sum of the applied V: "
        + (f"{terms} = " if terms else "")
        + f"{_signed(period['sum'])}; rounded {rules['rounding_text']}: "
        f"{_signed(period['change'])}",
    ]
    if close["rating_type"] == model["system"] and model["rating_basis"] != "fide":
        change = period["change"]
        lines.append(
            f"New rating: {model['frozen_rating']} {'-' if change < 0 else '+'} {abs(change)} = "
            f"{close['rating']}"
        )
    else:
        lines.append(f"New rating: {close['rating']} ({close['rule']})")
    lines.append(
        f"Checked against the stored list: rating {stored['rating']}, period change "
        f"{_signed(stored['period_change'])}, sum of applied_variation "
        f"{_signed(stored['applied_variation_sum'])}, every tournament's V and own rating: "
        "equal"
    )
    if stored["note"]:
        lines.append(f"List note: {stored['note']}")
    lines += [f"Note: {note}" for note in model["notes"]]
    return "\n".join(lines)


def _elo_tournament_lines(tournament: dict, model: dict) -> list[str]:
    title = f"{tournament['tournament_id']}"
    if tournament["name"]:
        title += f' "{tournament["name"]}"'
    title += f" ({_when(tournament)}, version {tournament['version']})"
    if tournament["sequence"] is None:
        return [f"Tournament {title}: no counted game", *_left_out_lines(tournament)]
    own = f"own rating {tournament['own_rating']}"
    if tournament["carried_from_earlier_groups"]:
        own += (
            f" = {model['frozen_rating']} {_signed(tournament['carried_from_earlier_groups'])} "
            f"(the rounded sum of his tournaments before group {tournament['group']})"
        )
    place = f"tournament {tournament['sequence']} of the period"
    if model["rules"]["groups"]["applies_to_player"]:
        place += f", group {tournament['group']}"
    lines = [f"Tournament {title}: {place}; {own}"]
    average = any(game["average_opponent"] is not None for game in tournament["games"])
    header = ["rd", "opponent", "W", "own", "opp"]
    header += ["avg", "D", "D capped", "We", "W-We", "K", "K(W-We)"]
    rows = []
    for game in tournament["games"]:
        if not game["counted"]:
            continue
        rows.append(
            [
                str(game["round"] or ""),
                _opponent(game),
                _plain(game["score"], 1),
                str(game["own_rating"]),
                str(game["opponent_rating"]),
                str(game["average_opponent"] or ""),
                _signed(game["difference"]),
                _signed(game["capped_difference"]),
                _plain(game["expected"]),
                _signed(game["w_minus_we"]),
                str(game["k"]),
                _signed(game["variation"]),
            ]
        )
    if not average:
        header.pop(5)
        rows = [row[:5] + row[6:] for row in rows]
    lines += _table(header, rows)
    lines += _left_out_lines(tournament)
    lines.append(
        f"  W {_plain(tournament['score'], 1)} - We {_plain(tournament['expected'])} = "
        f"{_signed(tournament['w_minus_we'])}; V = K {tournament['k']} x "
        f"{_signed(tournament['w_minus_we'])} = {_signed(tournament['raw_variation'])}"
    )
    if model["rules"]["winner_protection"]:
        if tournament["winner_protection_applied"]:
            lines.append(
                f"  first place (ties included) and V negative: winner protection, "
                f"{_signed(tournament['raw_variation'])} becomes 0"
            )
        else:
            first = (
                "first place (ties included)" if tournament["first_place"] else "not first place"
            )
            lines.append(
                f"  {first}: V applied as it is, {_signed(tournament['applied_variation'])}"
            )
    return lines


def _left_out_lines(tournament: dict) -> list[str]:
    left = tournament["left_out"]
    if not left:
        return []
    by_reason: dict[str, list[str]] = {}
    for item in sorted(left, key=_round_key):
        by_reason.setdefault(item["reason"], []).append(str(item["round"]))
    return [
        "  left out: "
        + "; ".join(
            f"round{'s' if len(rounds) > 1 else ''} {', '.join(rounds)}: {reason}"
            for reason, rounds in by_reason.items()
        )
    ]


def _round_key(item: dict) -> int:
    return int(item["round"] or 0)


def render_rubele(model: dict) -> str:
    """The Elo-Rubele explanation as text an analyst reads (aligned columns)."""
    lines = [
        f"{model['system']} list of {model['list_date']} (revision {model['revision']}): "
        f"{model['player_id']} {model['name'] or ''}".rstrip(),
        f"Rules: dama {model['rules']['variant']} (rulebook sha256 "
        f"{model['rules']['rulebook_sha256'][:12]}); tournaments applied one after another, in "
        f"order of {', '.join(model['rules']['order']).replace('_', ' ')}; each at the "
        "capitals held before it",
        f"Window: tournaments received after {model['window']['received_after']} up to "
        f"{model['window']['received_up_to']}",
        "",
        f"Capital before the window: {model['capital_before']} ({model['rating_basis']}: "
        f"{model['rating_basis_text']})",
    ]
    for tournament in model["tournaments"]:
        lines += ["", *_rubele_tournament_lines(tournament)]
    if not model["tournaments"]:
        lines += ["", "No tournament of his in the window."]
    stored = model["stored"]
    path = " -> ".join(
        [str(model["capital_before"]), *[str(t["final"]) for t in model["tournaments"]]]
    )
    lines += [
        "",
        f"Capital at the list: {path}; change {_signed(model['change'])}",
        f"Checked against the stored list: capital {stored['rating']}, change "
        f"{_signed(stored['period_change'])}, sum of applied_variation "
        f"{_signed(stored['applied_variation_sum'])}, every tournament's CI, PO, PA, S, V and "
        "CF: equal",
    ]
    if stored["note"]:
        lines.append(f"List note: {stored['note']}")
    lines += [f"Note: {note}" for note in model["notes"]]
    return "\n".join(lines)


def _rubele_tournament_lines(tournament: dict) -> list[str]:
    title = f"{tournament['tournament_id']}"
    if tournament["name"]:
        title += f' "{tournament["name"]}"'
    title += f" ({_when(tournament)}, version {tournament['version']})"
    lines = [
        f"Tournament {tournament['sequence']} of the window: {title}; era from "
        f"{tournament['era_from']}; validity {tournament['validity']} %",
    ]
    if not tournament["counted_games"]:
        lines += _left_out_lines(tournament)
        lines.append(f"  no counted game: capital unchanged, {tournament['initial']}")
        return lines
    scale = " (FID scale 2 / 1 / 0: PO and PA doubled)" if tournament["points_per_win"] == 2 else ""
    lines.append(f"  PA(n): {tournament['expected_text']}{scale}")
    rows = [
        [
            str(game["round"] or ""),
            _opponent(game),
            _plain(game["score"], 1),
            str(game["own_capital"]),
            str(game["opponent_capital"]) + (" (entry)" if game["opponent_not_rated"] else ""),
            _signed(game["difference"]),
            _signed(game["capped_difference"]),
            _plain(game["expected"], 12),
            _signed(game["po_minus_pa"], 12),
        ]
        for game in tournament["games"]
    ]
    lines += _table(
        ["rd", "opponent", "PO", "CI", "CI opp", "d", "d capped", "PA(n)", "PO-PA"], rows
    )
    lines += _left_out_lines(tournament)
    factor = tournament["factor"]
    on_v = tournament["factor_stage"] == "before_rescaling"
    lines += [
        f"  PO {_plain(tournament['score'], 1)} - PA {_plain(tournament['expected'], 12)} = "
        f"D {_signed(tournament['difference'], 12)}",
        f"  S = {tournament['s']} ({tournament['s_text']}); V = S x D"
        + (f" x validity factor {factor:g}" if on_v and factor != 1 else "")
        + f" = {tournament['variation']:+.6f}",
        f"  X = CI + V = {tournament['initial']} {'-' if tournament['variation'] < 0 else '+'} "
        f"{abs(tournament['variation']):.6f} = {tournament['x']:.6f}",
    ]
    if tournament["crossings"]:
        lines.append(f"  {_crossing_text(tournament)}")
    elif tournament["recrossed"]:
        lines.append(
            f"  {tournament['recrossed']} threshold(s) crossed again, not rescaled (passed "
            f"before: capital {tournament['reached']} held)"
        )
    else:
        lines.append("  no threshold crossed: no rescaling")
    if not on_v and factor != 1:
        lines.append(f"  validity factor {factor:g} on the change after the rescaling")
    lines.append(
        (f"  Q = +{tournament['q']} (anti-deflation term)" if tournament["q"] else "  Q = 0")
        + (
            f"; below the minimum {tournament['minimum']}: raised to it"
            if tournament["floored"]
            else f"; minimum {tournament['minimum']}: not reached"
        )
    )
    lines.append(
        f"  CF = {tournament['unrounded']:.6f} rounded {ROUNDING_TEXTS[tournament['rounding']]}: "
        f"{tournament['final']} (change {_signed(tournament['change'])})"
    )
    return lines
