"""From a draughts list window's facts to a published Elo-Rubele list (RULES.md §3).

A list at a list date applies every valid tournament received in its window (after the previous
list's cut-off, up to its own), in tournament order, to the capitals of the previous list; a
player not on it starts from the capital the registry gives a foreign player, else from the
debutant capital of his category in the era of his first tournament. A tournament at a
validity its era does not know is set aside, with the reason. The list holds every player of
the previous list and every participant, with categories (thresholds reached, never lost),
activity, membership and rankings. Pure: the flow reads the warehouse.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date

import polars as pl

from transforms.inputs.draughts_csv import FID_COUNTRY
from transforms.lists.flags import category_from_rating, highest_category, in_activity_window
from transforms.lists.published import (
    LETTER_COLUMNS,
    LIST_COLUMNS,
    PublishedList,
    imported_list_columns,
    ranking_input,
)
from transforms.lists.rankings import rankings
from transforms.rubele.capitals import (
    CAPITAL_COLUMNS,
    ENTRY_COLUMNS,
    GAME_COLUMNS,
    KIND_COLUMN,
    REACHED_COLUMN,
    TOURNAMENT_COLUMNS,
    RubeleResult,
    apply_tournaments,
    unknown_validities,
)
from transforms.rubele.rulebook import RubeleRulebook


@dataclass(frozen=True)
class RubeleFacts:
    """What the warehouse says about one draughts list window."""

    previous: pl.DataFrame  # previous list: player_id, rating, total_games, category, last_played
    tournaments: pl.DataFrame  # tournament_id, tournament_version, name, dates, validity, ...
    entries: pl.DataFrame  # tournament_id, player_id, points (all results)
    # both sides: tournament_id, player_id, opponent_id, points; the counted games only, or
    # every game with an opponent and its ``kind`` (the rulebook then picks the counted ones)
    games: pl.DataFrame
    registry: pl.DataFrame  # FID registry at the list date
    members: pl.DataFrame  # player_id of the members for the list's year
    played_before: pl.DataFrame  # player_id, played_on: last tournament before the window


def _variant_columns(registry: pl.DataFrame, variant: str) -> pl.DataFrame:
    return registry.select(
        "player_id",
        "name",
        "sex",
        "birth_date",
        pl.col(f"category_{variant}").alias("registry_category"),
        # only a foreign player enters with the registry's capital (RULES.md §3)
        pl.when(pl.col("country") != FID_COUNTRY)
        .then(pl.col(f"capital_{variant}"))
        .alias("foreign_capital"),
        (pl.col("country") != FID_COUNTRY).alias("is_foreign"),
    )


def category_levels(rulebook: RubeleRulebook) -> pl.DataFrame:
    """Per era and category (era, previous_category, category_reached): the highest category
    threshold at or below the category in the ladder, the capital a player holding it has
    reached (or entered at); a category below every threshold has no row."""
    rows = []
    for index, era in enumerate(rulebook.eras):  # a few categories per era, not data
        thresholds = [era.category_thresholds.get(name) for name in era.category_order]
        for position, category in enumerate(era.category_order):
            below = [t for t in thresholds[: position + 1] if t is not None]
            if below:
                rows.append(
                    {"era": index, "previous_category": category, "category_reached": max(below)}
                )
    return pl.DataFrame(
        rows,
        schema={"era": pl.Int32, "previous_category": pl.Utf8, "category_reached": pl.Int32},
    )


def starting_capitals(facts: RubeleFacts, rulebook: RubeleRulebook) -> pl.DataFrame:
    """Every participant's capital before his first tournament of the window, its basis, and
    the highest capital he is known to have reached (``reached``: for rescaling.upward =
    "first"): his capital, or the threshold of the category of the previous list (never lost),
    read in the era of his first tournament. The registry's category is not read: it is the
    one at the list date, which may already count a promotion won in this window."""
    starts = pl.Series([era.effective_from for era in rulebook.eras], dtype=pl.Date)
    debutant = pl.DataFrame(
        [
            {"era": index, "registry_category": category, "debutant_capital": capital}
            for index, era in enumerate(rulebook.eras)
            for category, capital in era.debutant_capitals.items()
        ],
        schema={"era": pl.Int32, "registry_category": pl.Utf8, "debutant_capital": pl.Int32},
    )
    other = pl.DataFrame(
        {
            "era": list(range(len(rulebook.eras))),
            "other_capital": [era.debutant_default for era in rulebook.eras],
        },
        schema={"era": pl.Int32, "other_capital": pl.Int32},
    )
    first_played = (
        facts.entries.join(
            facts.tournaments.select("tournament_id", "end_date"), on="tournament_id"
        )
        .group_by("player_id")
        .agg(pl.col("end_date").min())
    )
    era_of_first = (
        starts.search_sorted(first_played.get_column("end_date"), side="right").cast(pl.Int64) - 1
    ).clip(0)
    listed = facts.previous.select(
        "player_id",
        pl.col("rating").alias("listed_capital"),
        pl.col("category").alias("previous_category"),
    )
    return (
        first_played.with_columns(era_of_first.cast(pl.Int32).alias("era"))
        .join(listed, on="player_id", how="left")
        .join(category_levels(rulebook), on=["era", "previous_category"], how="left")
        .join(_variant_columns(facts.registry, rulebook.variant), on="player_id", how="left")
        .join(debutant, on=["era", "registry_category"], how="left")
        .join(other, on="era", how="left")
        .select(
            "player_id",
            pl.coalesce("listed_capital", "foreign_capital", "debutant_capital", "other_capital")
            .cast(pl.Int32)
            .alias("capital"),
            pl.when(pl.col("listed_capital").is_not_null())
            .then(pl.lit("list"))
            .when(pl.col("foreign_capital").is_not_null())
            .then(pl.lit("foreign"))
            .otherwise(pl.lit("debutant"))
            .alias("rating_basis"),
            pl.col("registry_category").fill_null("other").alias("entry_category"),
            pl.col("category_reached"),
        )
        .with_columns(
            pl.max_horizontal("capital", "category_reached").cast(pl.Int32).alias(REACHED_COLUMN)
        )
        .drop("category_reached")
        .sort("player_id")
    )


def variation_notes(variations: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """The engine's rows as the list's variations, with a note for every rule that acted."""
    switches = pl.DataFrame(
        {
            "era": list(range(len(rulebook.eras))),
            "_factor_after": [
                era.validity_factor_stage == "after_rescaling" for era in rulebook.eras
            ],
            "_factor_on_q": [era.validity_factor_on_q for era in rulebook.eras],
            "era_from": [era.effective_from for era in rulebook.eras],
        },
        schema={
            "era": pl.Int32,
            "_factor_after": pl.Boolean,
            "_factor_on_q": pl.Boolean,
            "era_from": pl.Date,
        },
    )
    notes = [
        pl.when(pl.col("games") == 0).then(
            pl.lit("no counted game (forfeits, byes or withdrawals only)")
        ),
        pl.when((pl.col("games") > 0) & (pl.col("factor") != 1.0)).then(
            pl.format(
                "tournament valid at {} %: {} x {}{}",
                pl.col("validity"),
                pl.when(pl.col("_factor_after"))
                .then(pl.lit("the change after the rescaling"))
                .otherwise(pl.lit("V")),
                pl.col("factor"),
                pl.when(pl.col("_factor_on_q") & (pl.col("q") > 0))
                .then(pl.format(", Q x {}", pl.col("factor")))
                .otherwise(pl.lit("")),
            )
        ),
        pl.when(pl.col("crossings") > 0).then(
            pl.format(
                "{} threshold(s) crossed: {} rescaled to {}",
                pl.col("crossings"),
                (pl.col("initial") + pl.col("variation")).round(2),
                pl.col("rescaled").round(2),
            )
        ),
        pl.when(pl.col("recrossed") > 0).then(
            pl.format(
                "{} threshold(s) crossed again, not rescaled (capital {} reached before)",
                pl.col("recrossed"),
                pl.col("reached"),
            )
        ),
        pl.when(pl.col("q") > 0).then(pl.format("anti-deflation Q +{}", pl.col("q"))),
        pl.when(pl.col("floored")).then(pl.lit("raised to the minimum capital")),
    ]
    return variations.join(switches, on="era", how="left").select(
        "tournament_id",
        "tournament_version",
        "player_id",
        "sequence",
        "wave",
        pl.col("initial").alias("own_rating"),
        "games",
        pl.col("points").alias("score"),
        "expected",
        pl.col("s").alias("k"),
        pl.col("variation").alias("raw_variation"),
        (pl.col("final") - pl.col("initial")).cast(pl.Float64).alias("applied_variation"),
        pl.concat_str(notes, separator="; ", ignore_nulls=True).replace("", None).alias("note"),
        # the era the tournament was computed under (its end date's), recorded with the list
        "era_from",
    )


def _list_rows(
    facts: RubeleFacts,
    rulebook: RubeleRulebook,
    list_date: date,
    start: pl.DataFrame,
    result: RubeleResult,
) -> pl.DataFrame:
    era = rulebook.era_at(list_date)
    played_now = (
        facts.entries.join(
            facts.tournaments.select("tournament_id", pl.col("end_date").alias("played_on")),
            on="tournament_id",
        )
        .group_by("player_id")
        .agg(pl.col("played_on").max())
    )
    last_played = (
        pl.concat(
            [
                facts.previous.select("player_id", pl.col("last_played").alias("played_on")),
                facts.played_before.select("player_id", "played_on"),
                played_now,
            ]
        )
        .drop_nulls()
        .filter(pl.col("played_on") <= list_date)
        .group_by("player_id")
        .agg(pl.col("played_on").max().alias("last_played"))
    )
    previous = facts.previous.select(
        "player_id",
        pl.col("rating").alias("previous_rating"),
        pl.col("total_games").alias("previous_total"),
        pl.col("category").alias("previous_category"),
    )
    members = facts.members.select("player_id", pl.lit(True).alias("is_member")).unique()
    # the capital changes after every tournament, so a threshold crossed after one of the
    # window's tournaments is a category reached, even if a later one takes the capital back
    peaks = result.variations.group_by("player_id").agg(pl.col("final").max().alias("peak"))
    everyone = pl.concat([facts.previous.select("player_id"), start.select("player_id")]).unique()
    ladder = ["capital_category", "registry_category"]
    if era.categories_never_lowered:
        ladder.append("previous_category")
    rows = (
        everyone.join(previous, on="player_id", how="left")
        .join(start, on="player_id", how="left")
        .join(result.capitals.rename({"capital": "final"}), on="player_id", how="left")
        .join(_variant_columns(facts.registry, rulebook.variant), on="player_id", how="left")
        .join(members, on="player_id", how="left")
        .join(last_played, on="player_id", how="left")
        .join(peaks, on="player_id", how="left")
        .with_columns(
            pl.coalesce("final", "previous_rating").cast(pl.Int32).alias("rating"),
            pl.coalesce("capital", "previous_rating").cast(pl.Int32).alias("frozen_rating"),
            pl.col("rating_basis").fill_null("list"),
            pl.col("games").fill_null(0).cast(pl.Int32),
            pl.col("is_member").fill_null(False),
        )
        .with_columns(
            (pl.col("previous_total").fill_null(0) + pl.col("games"))
            .cast(pl.Int32)
            .alias("total_games"),
            (pl.col("rating") - pl.col("frozen_rating")).cast(pl.Int32).alias("period_change"),
            category_from_rating(pl.max_horizontal("rating", "peak"), era).alias(
                "capital_category"
            ),
            in_activity_window(pl.col("last_played"), list_date, era.activity_months)
            .fill_null(False)
            .alias("is_active"),
            pl.lit(rulebook.system).alias("rating_type"),
            pl.lit(None, dtype=pl.Int32).alias("k"),
        )
        .with_columns(highest_category(ladder, era).alias("category"))
        .with_columns(
            (pl.col("is_active") & pl.col("is_member")).alias("in_ranking"),
            pl.concat_str(
                [
                    pl.when(pl.col("rating_basis") == "debutant").then(
                        pl.format(
                            "debutant: entered at {} ({}){}",
                            pl.col("frozen_rating"),
                            pl.col("entry_category"),
                            # RULES.md §3 gives a foreign player the registry's capital: without
                            # one he enters by his category, and the list says so
                            pl.when(pl.col("is_foreign").fill_null(False))
                            .then(
                                pl.lit(
                                    ", as the FID registry gives this foreign player no "
                                    f"capital_{rulebook.variant}"
                                )
                            )
                            .otherwise(pl.lit("")),
                        )
                    ),
                    pl.when(pl.col("rating_basis") == "foreign").then(
                        pl.format(
                            "foreign player: entered at the registry's capital {}",
                            pl.col("frozen_rating"),
                        )
                    ),
                    # a debutant's category is news only when it is not the one he entered with
                    pl.when(
                        pl.col("category").ne_missing(
                            pl.coalesce("previous_category", "entry_category")
                        )
                    ).then(pl.format("category {}", pl.col("category"))),
                ],
                separator="; ",
                ignore_nulls=True,
            )
            .replace("", None)
            .alias("note"),
            *[pl.lit(None, dtype=dtype).alias(name) for name, dtype in LETTER_COLUMNS.items()],
        )
    )
    return rows.select(LIST_COLUMNS).sort("player_id")


def build_rubele_list(
    facts: RubeleFacts, rulebook: RubeleRulebook, list_date: date
) -> PublishedList:
    """Apply the window's tournaments and publish the list, its variations and rankings; a
    tournament at a validity its era does not know is set aside (``excluded``, with the
    reason): no capital, no activity."""
    excluded = unknown_validities(facts.tournaments, rulebook)
    if excluded.height:
        outside = excluded.get_column("tournament_id").implode()
        facts = dataclasses.replace(
            facts,
            tournaments=facts.tournaments.filter(~pl.col("tournament_id").is_in(outside)),
            entries=facts.entries.filter(~pl.col("tournament_id").is_in(outside)),
            games=facts.games.filter(~pl.col("tournament_id").is_in(outside)),
        )
    start = starting_capitals(facts, rulebook)
    game_columns = GAME_COLUMNS | (
        {KIND_COLUMN: pl.Utf8()} if KIND_COLUMN in facts.games.columns else {}
    )
    result = apply_tournaments(
        start.select(*CAPITAL_COLUMNS, REACHED_COLUMN).cast(CAPITAL_COLUMNS),  # type: ignore[arg-type]
        facts.tournaments.select(list(TOURNAMENT_COLUMNS)).cast(TOURNAMENT_COLUMNS),  # type: ignore[arg-type]
        facts.entries.select(list(ENTRY_COLUMNS)).cast(ENTRY_COLUMNS),  # type: ignore[arg-type]
        facts.games.select(list(game_columns)).cast(game_columns),  # type: ignore[arg-type]
        rulebook,
    )
    rows = _list_rows(facts, rulebook, list_date, start, result)
    variations = variation_notes(
        result.variations.join(
            facts.tournaments.select("tournament_id", "tournament_version", "validity"),
            on="tournament_id",
            how="left",
        ),
        rulebook,
    )
    era = rulebook.era_at(list_date)
    return PublishedList(
        rows=rows,
        variations=variations,
        rankings=rankings(ranking_input(rows, era, list_date)),  # type: ignore[arg-type]
        excluded=excluded,
    )


def imported_capitals(
    published: pl.DataFrame,
    registry: pl.DataFrame,
    members: pl.DataFrame,
    rulebook: RubeleRulebook,
    list_date: date,
) -> pl.DataFrame:
    """A list of capitals imported as the FID published it: the base of the next list date.

    ``published`` has player_id, rating (the capital), games (counted to date), category and,
    optionally, last_played (the player's last valid tournament), which gives activity; names
    and membership come from the FID registry at the list date. The category is the published
    one, or the registry's when higher (a category reached is never lost)."""
    era = rulebook.era_at(list_date)
    member = members.select("player_id", pl.lit(True).alias("is_member")).unique()
    ladder = ["category", "registry_category"] if era.categories_never_lowered else ["category"]
    return (
        published.join(
            _variant_columns(registry, rulebook.variant).drop("foreign_capital"),
            on="player_id",
            how="left",
        )
        .join(member, on="player_id", how="left")
        .with_columns(
            *imported_list_columns(rulebook.system, list_date, era.activity_months),
            pl.lit(None, dtype=pl.Int32).alias("k"),  # a capital has no K
            *[pl.lit(None, dtype=dtype).alias(name) for name, dtype in LETTER_COLUMNS.items()],
        )
        .with_columns(
            highest_category(ladder, era).alias("category"),
            (pl.col("is_active") & pl.col("is_member")).alias("in_ranking"),
        )
        .select(LIST_COLUMNS)
        .sort("player_id")
    )
