"""Rulebooks of the FID Elo-Rubele capitals (RULES.md §3), one file per variant, in eras.

Same file shape and loader as the FSI rulebooks (``transforms/lists/eras.py``): an era names only
what changes; every era is merged and checked once. A tournament is computed under the era in
force on its end date (§4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Any

from schemas.draughts import VALIDITY_RANGE
from transforms.lists.eras import (
    YOUTH_AGE_DAYS,
    Calendar,
    EraReader,
    RulebookError,
    era_in_force,
    parse_eras,
)

EXPECTED_MODES = ("gauss", "banded")
ROUNDING_MODES = ("half_up",)
VARIANTS = ("italiana", "internazionale")
# rescaling.upward: at every upward crossing of a band threshold, or only at the first one
# (the player had never reached that threshold before the tournament)
UPWARD_RESCALINGS = ("every", "first")
# validity.factor_stage: the factor multiplies V before the threshold rescaling, or the change
# CI -> X once rescaled
FACTOR_STAGES = ("before_rescaling", "after_rescaling")
# games.counted_for_loser: the statuses of a game not played over the board that may still count
# for the player who lost it (a bye has no opponent: it never counts)
LOSER_COUNTED_STATUSES = ("forfeit", "withdrawn")
# order.by: the tournament columns that put tournaments in order; the id last, so that the order
# is total
ORDER_COLUMNS = ("end_date", "start_date", "tournament_id")
MAX_DIFFERENCE_CAP = 20_000  # the engine's conversion table ends there: a cap beyond it is none


@dataclass(frozen=True)
class RubeleEra:
    """The values of one era of one draughts variant, fully merged and checked."""

    system: str
    variant: str
    effective_from: date
    note: str
    calendar: Calendar
    band_low: int  # S changes at low (capital < low) and above high (capital > high)
    band_high: int
    s_below: int
    s_between: int
    s_above: int
    expected_mode: str  # gauss: PA = Phi(d / scale); banded: a table of |d| bands
    gauss_scale: float
    expected_bands: tuple[tuple[int, float], ...]  # (lowest |d|, PA of the higher capital)
    difference_cap: int  # |d| above it counts as it for PA (0: no cap)
    rescale_upward: str  # UPWARD_RESCALINGS
    rescale_downward: bool  # X = T - (T - X) x S_new / S_old at a threshold crossed downward
    minimum: int  # a lower capital is raised to it (0: no minimum)
    rounding: str
    q: int  # anti-deflation term per valid tournament with a counted game
    validity_factors: dict[int, float]  # validity percentage -> factor
    validity_factor_stage: str  # FACTOR_STAGES
    validity_factor_on_q: bool  # Q is multiplied by the factor too
    counted_for_loser: tuple[str, ...]  # LOSER_COUNTED_STATUSES that count for their loser
    tournament_order: tuple[str, ...]  # ORDER_COLUMNS, the same in every era
    debutant_capitals: dict[str, int]  # registry category -> entry capital
    debutant_default: int  # every other category
    category_order: tuple[str, ...]
    category_thresholds: dict[str, int]
    categories_never_lowered: bool
    activity_months: int
    youth_age: int
    youth_age_on: str  # one of YOUTH_AGE_DAYS

    def s_for(self, capital: float) -> int:
        """S for a capital before the tournament (the regulation's three bands)."""
        if capital < self.band_low:
            return self.s_below
        if capital <= self.band_high:
            return self.s_between
        return self.s_above

    def expected(self, difference: int) -> float:
        """PA of one game for a player whose capital exceeds the opponent's by ``difference``
        (already capped: callers apply ``difference_cap``)."""
        if self.expected_mode == "gauss":
            return 0.5 * (1.0 + math.erf(difference / self.gauss_scale / math.sqrt(2.0)))
        higher = self.expected_bands[0][1]
        for start, score in self.expected_bands:
            if abs(difference) >= start:
                higher = score
        return higher if difference >= 0 else 1.0 - higher


@dataclass(frozen=True)
class RubeleRulebook:
    system: str
    variant: str
    title: str
    eras: tuple[RubeleEra, ...]
    content_hash: str
    source: str

    @property
    def tournament_order(self) -> tuple[str, ...]:
        """The columns that order every tournament of the history (one order for all eras)."""
        return self.eras[0].tournament_order

    def era_at(self, on: date) -> RubeleEra:
        return era_in_force(self.system, self.eras, on)

    def era_index(self, on: date) -> int:
        """Position in ``eras`` of the era in force on ``on`` (the first era before it)."""
        index = 0
        for position, era in enumerate(self.eras):
            if era.effective_from <= on:
                index = position
        return index


def _banded(tables: dict[str, Any], name: str, reader: EraReader) -> tuple:
    if name not in tables:
        raise reader.fail("expected.table", f"names {name!r}, which is not in [tables]")
    bands = []
    previous_start, previous_score = -1, -1.0
    for index, band in enumerate(tables[name]):
        where = f"tables.{name}[{index}]"
        if not (isinstance(band, list) and len(band) == 2):
            raise RulebookError(f"{where} must be [lowest difference, expected points]")
        start, score = int(band[0]), float(band[1])
        if (index == 0 and start != 0) or start <= previous_start or not 0.5 <= score <= 1:
            raise RulebookError(
                f"{where}: bands start at 0 with rising differences, points from 0.5 to 1"
            )
        if score < previous_score:
            raise RulebookError(f"{where}: expected points must not fall as |d| grows")
        bands.append((start, score))
        previous_start, previous_score = start, score
    if not bands:
        raise RulebookError(f"tables.{name} is empty")
    return tuple(bands)


def _validity_factors(reader: EraReader) -> dict[int, float]:
    raw_factors = reader.get("validity.factors")
    if not isinstance(raw_factors, dict) or not raw_factors:
        raise reader.fail("validity.factors", "must be a table of percentage = factor")
    factors: dict[int, float] = {}
    for percentage, factor in raw_factors.items():
        if (
            not str(percentage).isdigit()
            or not VALIDITY_RANGE["min_value"] <= int(percentage) <= VALIDITY_RANGE["max_value"]
            or isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or factor < 0
        ):
            raise reader.fail(f"validity.factors.{percentage}", f"is not valid: {factor!r}")
        factors[int(percentage)] = float(factor)
    return factors


def _names(reader: EraReader, key: str, allowed: tuple[str, ...], allow_empty: bool) -> tuple:
    """A list of distinct names among ``allowed`` (in the order written)."""
    value = reader.get(key)
    if (
        not isinstance(value, list)
        or not (value or allow_empty)
        or any(name not in allowed for name in value)
        or len(set(value)) != len(value)
    ):
        raise reader.fail(key, f"must list distinct names among {allowed}, not {value!r}")
    return tuple(value)


def _tournament_order(reader: EraReader) -> tuple[str, ...]:
    order = _names(reader, "order.by", ORDER_COLUMNS, allow_empty=False)
    if order[-1] != "tournament_id":
        raise reader.fail("order.by", "must end with tournament_id (tournaments may share dates)")
    return order


def _rescale_upward(reader: EraReader, low: int, high: int, thresholds: dict[str, int]) -> str:
    mode = reader.choice("rescaling.upward", UPWARD_RESCALINGS)
    # "first" is known across lists only through the category held (the previous list's): each
    # band threshold must be a category threshold, and a category never lost
    if mode == "first" and not {low, high} <= set(thresholds.values()):
        raise reader.fail(
            "rescaling.upward",
            '= "first" needs bands.low and bands.high among categories.thresholds (the '
            "promotion thresholds: the category held records that a threshold was reached)",
        )
    if mode == "first" and not reader.flag("categories.never_lowered"):
        raise reader.fail(
            "rescaling.upward",
            '= "first" needs categories.never_lowered = true (a lost '
            "category would forget that a threshold was reached)",
        )
    return mode


def _rubele_era(reader: EraReader, tables: dict[str, Any], system: str) -> RubeleEra:
    low = reader.integer("bands.low", 0, 20_000)
    high = reader.integer("bands.high", 0, 20_000)
    if high <= low:
        raise reader.fail("bands.high", "must be above bands.low")
    s_values = reader.get("bands.s")
    if not (
        isinstance(s_values, list)
        and len(s_values) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in s_values)
    ):
        raise reader.fail("bands.s", "must be [S below low, S from low to high, S above high]")
    mode = reader.choice("expected.mode", EXPECTED_MODES)
    # a table is checked whenever it is named, so a pasted table's mistakes show before the
    # day its mode is switched to "banded"
    named = reader.has("expected.table") or mode == "banded"
    table = _banded(tables, reader.text("expected.table"), reader) if named else ()
    bands = table if mode == "banded" else ()
    order = tuple(reader.get("categories.order"))
    debutants = reader.ratings("debutants.capital", maximum=20_000)
    thresholds = reader.ratings("categories.thresholds", maximum=20_000)
    reader.categories_known(
        order, {"debutants.capital": debutants, "categories.thresholds": thresholds}
    )
    return RubeleEra(
        system=system,
        variant=reader.choice("variant", VARIANTS),
        effective_from=reader.effective_from(),
        note=str(reader.values.get("note", "")),
        calendar=reader.calendar(),
        band_low=low,
        band_high=high,
        s_below=s_values[0],
        s_between=s_values[1],
        s_above=s_values[2],
        expected_mode=mode,
        gauss_scale=reader.positive("expected.gauss_scale"),
        expected_bands=bands,
        difference_cap=reader.integer("expected.difference_cap", 0, MAX_DIFFERENCE_CAP),
        rescale_upward=_rescale_upward(reader, low, high, thresholds),
        rescale_downward=reader.flag("rescaling.downward"),
        minimum=reader.integer("capital.minimum", 0, 20_000),
        rounding=reader.choice("capital.rounding", ROUNDING_MODES),
        q=reader.integer("anti_deflation.q", 0, 1_000),
        validity_factors=_validity_factors(reader),
        validity_factor_stage=reader.choice("validity.factor_stage", FACTOR_STAGES),
        validity_factor_on_q=reader.flag("validity.factor_on_q"),
        counted_for_loser=_names(
            reader, "games.counted_for_loser", LOSER_COUNTED_STATUSES, allow_empty=True
        ),
        tournament_order=_tournament_order(reader),
        debutant_capitals=debutants,
        debutant_default=reader.integer("debutants.other", 1, 20_000),
        category_order=order,
        category_thresholds=thresholds,
        categories_never_lowered=reader.flag("categories.never_lowered"),
        activity_months=reader.integer("flags.activity_months", 1, 240),
        youth_age=reader.integer("flags.youth_age", 1, 100),
        youth_age_on=reader.choice("flags.youth_age_on", YOUTH_AGE_DAYS),
    )


def parse_rubele_rulebook(content: bytes, source: str = "<memory>") -> RubeleRulebook:
    """Parse and check an Elo-Rubele rulebook; errors name the era and the key at fault."""
    parsed = parse_eras(content, source, _rubele_era)
    variants = {era.variant for era in parsed.eras}
    if len(variants) != 1:
        raise RulebookError(f"{source}: every era must be of the same variant, not {variants}")
    # tournaments of different eras are put in one sequence: one order for the whole history
    changed = [
        era for era in parsed.eras if era.tournament_order != parsed.eras[0].tournament_order
    ]
    if changed:
        raise RulebookError(
            f"{source}: era {changed[0].effective_from}: order.by must be the same in every era "
            "(tournaments of all eras are applied in one order)"
        )
    return RubeleRulebook(
        system=parsed.system,
        variant=variants.pop(),
        title=parsed.title,
        eras=parsed.eras,
        content_hash=parsed.content_hash,
        source=source,
    )
