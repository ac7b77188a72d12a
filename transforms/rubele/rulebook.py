"""Rulebooks of the FID Elo-Rubele capitals (RULES.md §3), one file per variant, in eras.

Same file shape and loader as the FSI rulebooks (``transforms/lists/eras.py``): an era names only
what changes; every era is merged and checked once. A tournament is computed under the era in
force on its end date (§4). The first era's ``effective_from`` is the day the variant starts
being rated (Art. 9): a tournament ending before it is not rated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Any

from schemas.vocabulary import VALIDITY_RANGE
from transforms.lists.eras import (
    YOUTH_AGE_DAYS,
    Calendar,
    EraReader,
    RulebookError,
    era_in_force,
    parse_eras,
)

EXPECTED_MODES = ("gauss", "banded")
# capital.rounding: the final capital to the nearest whole number, an exact half up or down
ROUNDING_MODES = ("half_up", "half_down")
VARIANTS = ("italiana", "internazionale")
# rescaling.upward: at every upward crossing of a band threshold, or only the first time the
# player passes it (his capital had never been strictly above it before the tournament)
UPWARD_RESCALINGS = ("every", "first")
# points.scale: PO and PA per game on 1 / ½ / 0, or on the FID's 2 / 1 / 0 (both doubled, so D
# and V double); the points each scale gives a win
POINTS_PER_WIN = {"one": 1, "fid": 2}
# rated.categories: every category (and a player without one), or a list of categories
ALL_CATEGORIES = "all"
# rated.unrated_opponents: a game against a player whose category is not rated is dropped for
# both, or counted for the rated player against the unrated one's entry capital
UNRATED_OPPONENT_RULES = ("dropped", "entry_capital")
# debutants.italiana_category: the dama italiana category that may give a dama internazionale
# debutant a higher entry capital (Art. 9, second sentence)
ITALIANA_CATEGORY_KEY = "debutants.italiana_category"
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
    points_scale: str  # a key of POINTS_PER_WIN
    minimum: int  # a lower capital is raised to it (0: no minimum)
    rounding: str  # ROUNDING_MODES
    q: int  # anti-deflation term per valid tournament with a counted game
    validity_factors: dict[int, float]  # validity percentage -> factor
    validity_factor_stage: str  # FACTOR_STAGES
    validity_factor_on_q: bool  # Q is multiplied by the factor too
    counted_for_loser: tuple[str, ...]  # LOSER_COUNTED_STATUSES that count for their loser
    tournament_order: tuple[str, ...]  # ORDER_COLUMNS, the same in every era
    debutant_capitals: dict[str, int]  # registry category -> entry capital
    debutant_default: int  # every other category
    # dama internazionale only: dama italiana category -> entry capital, when it gives more
    italiana_debutant_capitals: dict[str, int]
    rated_categories: tuple[str, ...] | None  # the categories rated (None: every one)
    unrated_opponents: str  # UNRATED_OPPONENT_RULES
    country: str  # the federation's own country code in the registry, the same in every era
    category_order: tuple[str, ...]
    category_thresholds: dict[str, int]
    categories_never_lowered: bool
    activity_months: int
    youth_age: int
    youth_age_on: str  # one of YOUTH_AGE_DAYS

    @property
    def points_per_win(self) -> int:
        """What a won game is worth on the era's points scale (1, or 2 on the FID's)."""
        return POINTS_PER_WIN[self.points_scale]

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

    @property
    def rated_from(self) -> date:
        """The day the variant starts being rated: the first era's (Art. 9)."""
        return self.eras[0].effective_from

    @property
    def calendar(self) -> Calendar:
        """The list calendar (one for every era: ``parse_eras`` refuses a change), also for a
        day before the variant starts."""
        return self.eras[0].calendar

    @property
    def country(self) -> str:
        """The federation's own country code (the same in every era)."""
        return self.eras[0].country

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


def _rated_categories(reader: EraReader, order: tuple[str, ...]) -> tuple[str, ...] | None:
    """``rated.categories``: "all" (None), or distinct categories of ``categories.order``."""
    value = reader.get("rated.categories")
    if value == ALL_CATEGORIES:
        return None
    return _names(reader, "rated.categories", order, allow_empty=False)


def _italiana_debutants(reader: EraReader, variant: str) -> dict[str, int]:
    """``debutants.italiana_category``: dama internazionale only (may be empty)."""
    if variant == "italiana":
        if reader.has(ITALIANA_CATEGORY_KEY):
            raise reader.fail(
                ITALIANA_CATEGORY_KEY,
                "is a rule of dama internazionale only (a debutant's dama italiana category)",
            )
        return {}
    return reader.ratings(ITALIANA_CATEGORY_KEY, allow_empty=True, maximum=20_000)


def _country(reader: EraReader) -> str:
    country = reader.text("federation.country")
    if not (len(country) == 3 and country.isascii() and country.isalpha() and country.isupper()):
        raise reader.fail("federation.country", f"must be a three-letter code, not {country!r}")
    return country


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
    variant = reader.choice("variant", VARIANTS)
    debutants = reader.ratings("debutants.capital", maximum=20_000)
    italiana_debutants = _italiana_debutants(reader, variant)
    thresholds = reader.ratings("categories.thresholds", maximum=20_000)
    reader.categories_known(
        order,
        {
            "debutants.capital": debutants,
            ITALIANA_CATEGORY_KEY: italiana_debutants,
            "categories.thresholds": thresholds,
        },
    )
    return RubeleEra(
        system=system,
        variant=variant,
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
        rescale_upward=reader.choice("rescaling.upward", UPWARD_RESCALINGS),
        rescale_downward=reader.flag("rescaling.downward"),
        points_scale=reader.choice("points.scale", tuple(POINTS_PER_WIN)),
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
        italiana_debutant_capitals=italiana_debutants,
        rated_categories=_rated_categories(reader, order),
        unrated_opponents=reader.choice("rated.unrated_opponents", UNRATED_OPPONENT_RULES),
        country=_country(reader),
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
    # the registry says who is foreign once for every list: one country for the whole history
    moved = [era for era in parsed.eras if era.country != parsed.eras[0].country]
    if moved:
        raise RulebookError(
            f"{source}: era {moved[0].effective_from}: federation.country must be the same in "
            "every era (the registry's players are foreign or not once for all lists)"
        )
    return RubeleRulebook(
        system=parsed.system,
        variant=variants.pop(),
        title=parsed.title,
        eras=parsed.eras,
        content_hash=parsed.content_hash,
        source=source,
    )
