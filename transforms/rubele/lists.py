"""From a draughts list window's facts to a published Elo-Rubele list (RULES.md §3).

A list at a list date applies every valid tournament received in its window (after the previous
list's cut-off, up to its own), in tournament order, to the capitals of the previous list; a
player not on it starts from the capital the registry gives a foreign player (a player whose
country is not the rulebook's ``federation.country``), else from the debutant capital of his
category in the era of his first tournament (in dama internazionale, that of his dama italiana
category when it gives more); an entry capital below the era's minimum is raised to it. A
tournament ending before the variant's start (the rulebook's first era) or at a validity its
era does not know is set aside, with the reason. In an era that rates only some categories, a
player of another one who is not rated yet gets no capital (``rated.categories``), and his
games are dropped or counted at his entry capital for his rated opponents. The list holds every
player of the previous list and every rated participant, with categories (thresholds reached,
never lost), activity, membership and rankings. Pure: the flow reads the warehouse.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date

import polars as pl

from schemas.problems import empty_problems, problem_rows
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
    before_start,
    era_indices,
    tournament_order,
    unknown_validities,
)
from transforms.rubele.rulebook import RubeleRulebook

# the highest capital each player held on the lists before the window and in the tournaments
# they applied (rescaling.upward = "first" rescales only a threshold never passed before)
PEAK_COLUMNS: dict[str, pl.DataType] = {"player_id": pl.Utf8(), "peak": pl.Int32()}
# an entry of a player not rated, as the opponent his rated opponents meet when the era counts
# their games at his entry capital: "<player> @ <tournament>", never a registry id (no spaces)
UNRATED_OPPONENT_ID = "{} @ {}"


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
    # PEAK_COLUMNS: what the lists before tell of each player's highest capital (none: only
    # the previous list's capital and category tell it)
    peaks: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PEAK_COLUMNS))


def _variant_columns(registry: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    variant = rulebook.variant
    foreign = pl.col("country") != rulebook.country
    # a dama internazionale debutant may enter by his dama italiana category (Art. 9)
    italiana = pl.col("category_italiana") if variant == "internazionale" else pl.lit(None)
    return registry.select(
        "player_id",
        "name",
        "sex",
        "birth_date",
        pl.col(f"category_{variant}").alias("registry_category"),
        italiana.cast(pl.Utf8).alias("italiana_category"),
        # only a foreign player enters with the registry's capital (RULES.md §3)
        pl.when(foreign).then(pl.col(f"capital_{variant}")).alias("foreign_capital"),
        foreign.alias("is_foreign"),
    )


def _entry_tables(rulebook: RubeleRulebook) -> dict[str, pl.DataFrame]:
    """The rulebook's entry capitals per era, as frames to join: by the registry category, by
    the dama italiana category (dama internazionale), and each era's other capital and
    minimum (a few rows per era, not data)."""
    eras = list(enumerate(rulebook.eras))
    return {
        "debutant": pl.DataFrame(
            [
                {"era": index, "registry_category": category, "debutant_capital": capital}
                for index, era in eras
                for category, capital in era.debutant_capitals.items()
            ],
            schema={"era": pl.Int32, "registry_category": pl.Utf8, "debutant_capital": pl.Int32},
        ),
        "italiana": pl.DataFrame(
            [
                {"era": index, "italiana_category": category, "italiana_capital": capital}
                for index, era in eras
                for category, capital in era.italiana_debutant_capitals.items()
            ],
            schema={"era": pl.Int32, "italiana_category": pl.Utf8, "italiana_capital": pl.Int32},
        ),
        "era": pl.DataFrame(
            {
                "era": [index for index, _ in eras],
                "other_capital": [era.debutant_default for _, era in eras],
                "minimum": [era.minimum for _, era in eras],
            },
            schema={"era": pl.Int32, "other_capital": pl.Int32, "minimum": pl.Int32},
        ),
    }


def _with_entry_capital(frame: pl.DataFrame, rulebook: RubeleRulebook) -> pl.DataFrame:
    """``frame`` (era, registry_category, italiana_category) with the debutant capital of the
    era: ``category_capital`` (his registry category's, or his dama italiana category's when
    that gives more: ``by_italiana``) and the era's ``minimum``."""
    tables = _entry_tables(rulebook)
    own = pl.coalesce("debutant_capital", "other_capital")
    return (
        frame.join(tables["debutant"], on=["era", "registry_category"], how="left")
        .join(tables["italiana"], on=["era", "italiana_category"], how="left")
        .join(tables["era"], on="era", how="left")
        .with_columns((pl.col("italiana_capital") > own).fill_null(False).alias("by_italiana"))
        .with_columns(
            pl.when(pl.col("by_italiana"))
            .then(pl.col("italiana_capital"))
            .otherwise(own)
            .cast(pl.Int32)
            .alias("category_capital")
        )
        .drop("debutant_capital", "italiana_capital", "other_capital")
    )


def _raised_to_minimum(capital: pl.Expr) -> pl.Expr:
    """No capital below the era's minimum (``minimum``: 0 for none)."""
    return pl.max_horizontal(capital, pl.col("minimum")).cast(pl.Int32)


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
    the highest capital he is known to have held (``reached``: for rescaling.upward =
    "first"): his capital, his ``peak`` on the lists before, and the threshold of the category
    of the previous list (never lost; read in the era of his first tournament): the category
    says the capital reached that threshold, so passed every lower one. The registry's category
    is not read for it: it is the one at the list date, which may already count a promotion won
    in this window.

    A newcomer's entry capital (the registry's for a foreign player, else his category's in the
    era of his first tournament) below that era's minimum is raised to it: ``entry_capital`` is
    the capital before, when it was raised (null otherwise)."""
    first_played = (
        facts.entries.join(
            facts.tournaments.select("tournament_id", "end_date"), on="tournament_id"
        )
        .group_by("player_id")
        .agg(pl.col("end_date").min())
    )
    listed = facts.previous.select(
        "player_id",
        pl.col("rating").alias("listed_capital"),
        pl.col("category").alias("previous_category"),
    )
    peaks = facts.peaks.select("player_id", pl.col("peak").cast(pl.Int32))
    started = (
        first_played.with_columns(era_indices(first_played.get_column("end_date"), rulebook))
        .join(listed, on="player_id", how="left")
        .join(category_levels(rulebook), on=["era", "previous_category"], how="left")
        .join(_variant_columns(facts.registry, rulebook), on="player_id", how="left")
        .join(peaks, on="player_id", how="left")
        .pipe(_with_entry_capital, rulebook)
        .with_columns(
            pl.when(pl.col("listed_capital").is_not_null())
            .then(pl.lit("list"))
            .when(pl.col("foreign_capital").is_not_null())
            .then(pl.lit("foreign"))
            .otherwise(pl.lit("debutant"))
            .alias("rating_basis"),
            pl.coalesce("listed_capital", "foreign_capital", "category_capital")
            .cast(pl.Int32)
            .alias("given"),
        )
        .with_columns(
            # a listed capital is the list's: only an entry capital is raised here
            pl.when(pl.col("rating_basis") == "list")
            .then(pl.col("given"))
            .otherwise(_raised_to_minimum(pl.col("given")))
            .alias("capital")
        )
    )
    return started.select(
        "player_id",
        "capital",
        "rating_basis",
        pl.col("registry_category").fill_null("other").alias("entry_category"),
        # the dama italiana category he entered by (null: his own category's capital)
        pl.when(pl.col("by_italiana") & (pl.col("rating_basis") == "debutant"))
        .then(pl.col("italiana_category"))
        .alias("entry_italiana_category"),
        pl.when(pl.col("capital") != pl.col("given")).then(pl.col("given")).alias("entry_capital"),
        pl.max_horizontal("capital", "category_reached", "peak")
        .cast(pl.Int32)
        .alias(REACHED_COLUMN),
    ).sort("player_id")


def without_tournaments(facts: RubeleFacts, tournament_ids: pl.Series) -> RubeleFacts:
    """The facts without the tournaments named (their entries and games too)."""
    outside = tournament_ids.implode()
    return dataclasses.replace(
        facts,
        tournaments=facts.tournaments.filter(~pl.col("tournament_id").is_in(outside)),
        entries=facts.entries.filter(~pl.col("tournament_id").is_in(outside)),
        games=facts.games.filter(~pl.col("tournament_id").is_in(outside)),
    )


def set_aside(facts: RubeleFacts, rulebook: RubeleRulebook) -> pl.DataFrame:
    """The tournaments (tournament_id, reason) the list cannot rate: ending before the variant
    is rated (the rulebook's first era), or at a validity their era does not know."""
    early = before_start(facts.tournaments, rulebook)
    odd = unknown_validities(facts.tournaments, rulebook).join(
        early, on="tournament_id", how="anti"
    )
    return pl.concat([early, odd]).sort("tournament_id")


def unrated_entries(facts: RubeleFacts, rulebook: RubeleRulebook) -> pl.DataFrame:
    """The entries (tournament_id, player_id, era) of players not rated in that tournament:
    its era rates only some categories (``rated.categories``), his registry category is not
    among them, and he is not rated already: not on the previous list, no foreign player's
    capital, and no earlier tournament of the window (in the rulebook's order) in which his
    category was rated. Tournaments before the variant's start must be set aside first."""
    restricted = [
        (index, era.rated_categories)
        for index, era in enumerate(rulebook.eras)
        if era.rated_categories is not None
    ]
    schema = {"tournament_id": pl.Utf8, "player_id": pl.Utf8, "era": pl.Int32}
    if not restricted:
        return pl.DataFrame(schema=schema)
    rated_categories = pl.DataFrame(
        [
            {"era": index, "registry_category": category, "category_rated": True}
            for index, categories in restricted
            for category in categories
        ],
        schema={"era": pl.Int32, "registry_category": pl.Utf8, "category_rated": pl.Boolean},
    )
    every_category = pl.DataFrame(
        {"era": [index for index, _ in restricted], "restricted": [True] * len(restricted)},
        schema={"era": pl.Int32, "restricted": pl.Boolean},
    )
    ordered = tournament_order(facts.tournaments, rulebook).select("tournament_id", "order", "era")
    listed = facts.previous.select("player_id", pl.lit(True).alias("listed"))
    rated_here = (
        pl.col("listed").fill_null(False)
        | pl.col("foreign_capital").is_not_null()
        | ~pl.col("restricted").fill_null(False)
        | pl.col("category_rated").fill_null(False)
    )
    return (
        facts.entries.select("tournament_id", "player_id")
        .join(ordered, on="tournament_id")
        .join(listed, on="player_id", how="left")
        .join(
            _variant_columns(facts.registry, rulebook).select(
                "player_id", "registry_category", "foreign_capital"
            ),
            on="player_id",
            how="left",
        )
        .join(every_category, on="era", how="left")
        .join(rated_categories, on=["era", "registry_category"], how="left")
        # rated once, rated in every later tournament too
        .filter(rated_here.cast(pl.Int8).cum_max().over("player_id", order_by="order") == 0)
        .select(list(schema))
        .cast(schema)  # type: ignore[arg-type]
        .sort("tournament_id", "player_id")
    )


@dataclass(frozen=True)
class RatedWindow:
    """The window's facts as the engine rates them: the rated players' entries and games, and
    the capitals of the unrated opponents the era counts games against."""

    facts: RubeleFacts  # entries and games of rated players only
    # UNRATED_OPPONENT_ID -> entry capital (rated.unrated_opponents = "entry_capital")
    unrated_capitals: pl.DataFrame
    # tournament_id, player_id, unrated_games, counted: the rated players' games against
    # players not rated, and whether they counted
    unrated_games: pl.DataFrame


def rated_window(facts: RubeleFacts, rulebook: RubeleRulebook) -> RatedWindow:
    """Leave out the entries of players not rated (``unrated_entries``): their own side of a
    game never counts; a rated opponent's side is dropped, or counted against the entry capital
    of the unrated player's category in the era of that tournament (raised to its minimum),
    as the era's ``rated.unrated_opponents`` says."""
    unrated = unrated_entries(facts, rulebook)
    counted_eras = pl.DataFrame(
        {
            "era": list(range(len(rulebook.eras))),
            "counted": [era.unrated_opponents == "entry_capital" for era in rulebook.eras],
        },
        schema={"era": pl.Int32, "counted": pl.Boolean},
    )
    unrated = unrated.join(counted_eras, on="era", how="left")
    entry_keys = ["tournament_id", "player_id"]
    opponent_keys = unrated.select(
        "tournament_id", pl.col("player_id").alias("opponent_id"), "counted"
    )
    games = facts.games.join(unrated.select(entry_keys), on=entry_keys, how="anti").join(
        opponent_keys, on=["tournament_id", "opponent_id"], how="left"
    )
    against_unrated = pl.col("counted").is_not_null()
    unrated_games = (
        games.filter(against_unrated)
        .group_by(entry_keys)
        .agg(pl.len().cast(pl.Int32).alias("unrated_games"), pl.col("counted").first())
    )
    pseudo_id = pl.format(UNRATED_OPPONENT_ID, pl.col("opponent_id"), pl.col("tournament_id"))
    games = games.filter(~against_unrated | pl.col("counted")).with_columns(
        pl.when(against_unrated)
        .then(pseudo_id)
        .otherwise(pl.col("opponent_id"))
        .alias("opponent_id")
    )
    counted = unrated.filter(pl.col("counted"))
    capitals = (
        counted.join(
            _variant_columns(facts.registry, rulebook).select(
                "player_id", "registry_category", "italiana_category"
            ),
            on="player_id",
            how="left",
        )
        .pipe(_with_entry_capital, rulebook)
        .select(
            pl.format(UNRATED_OPPONENT_ID, pl.col("player_id"), pl.col("tournament_id")).alias(
                "player_id"
            ),
            _raised_to_minimum(pl.col("category_capital")).alias("capital"),
        )
    )
    return RatedWindow(
        facts=dataclasses.replace(
            facts,
            entries=facts.entries.join(unrated.select(entry_keys), on=entry_keys, how="anti"),
            games=games.drop("counted"),
        ),
        unrated_capitals=capitals,
        unrated_games=unrated_games,
    )


def variation_notes(
    variations: pl.DataFrame, rulebook: RubeleRulebook, unrated_games: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The engine's rows as the list's variations, with a note for every rule that acted; PO
    and PA on the era's points scale (doubled on the FID's 2 / 1 / 0: D = PO - PA there).
    ``unrated_games``: see ``RatedWindow``."""
    switches = pl.DataFrame(
        {
            "era": list(range(len(rulebook.eras))),
            "_factor_after": [
                era.validity_factor_stage == "after_rescaling" for era in rulebook.eras
            ],
            "_factor_on_q": [era.validity_factor_on_q for era in rulebook.eras],
            "_per_win": [era.points_per_win for era in rulebook.eras],
            "era_from": [era.effective_from for era in rulebook.eras],
        },
        schema={
            "era": pl.Int32,
            "_factor_after": pl.Boolean,
            "_factor_on_q": pl.Boolean,
            "_per_win": pl.Int32,
            "era_from": pl.Date,
        },
    )
    if unrated_games is None:
        unrated_games = pl.DataFrame(
            schema={
                "tournament_id": pl.Utf8,
                "player_id": pl.Utf8,
                "unrated_games": pl.Int32,
                "counted": pl.Boolean,
            }
        )
    notes = [
        pl.when((pl.col("_per_win") == 2) & (pl.col("games") > 0)).then(
            pl.lit("FID points scale 2 / 1 / 0: PO and PA doubled")
        ),
        pl.when(pl.col("unrated_games") > 0).then(
            pl.format(
                "{} game(s) against players whose category is not rated in this era: {}",
                pl.col("unrated_games"),
                pl.when(pl.col("counted"))
                .then(pl.lit("counted at their entry capital"))
                .otherwise(pl.lit("dropped")),
            )
        ),
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
                "{} threshold(s) crossed again, not rescaled (passed before: capital {} held)",
                pl.col("recrossed"),
                pl.col("reached"),
            )
        ),
        pl.when(pl.col("q") > 0).then(pl.format("anti-deflation Q +{}", pl.col("q"))),
        pl.when(pl.col("floored")).then(pl.lit("raised to the minimum capital")),
    ]
    return (
        variations.join(switches, on="era", how="left")
        .join(unrated_games, on=["tournament_id", "player_id"], how="left")
        .select(
            "tournament_id",
            "tournament_version",
            "player_id",
            "sequence",
            "wave",
            pl.col("initial").alias("own_rating"),
            "games",
            # on the era's scale (a multiplication by 1 or 2: exact)
            (pl.col("points") * pl.col("_per_win")).alias("score"),
            (pl.col("expected") * pl.col("_per_win")).alias("expected"),
            pl.col("s").alias("k"),
            pl.col("variation").alias("raw_variation"),
            (pl.col("final") - pl.col("initial")).cast(pl.Float64).alias("applied_variation"),
            pl.concat_str(notes, separator="; ", ignore_nulls=True).replace("", None).alias("note"),
            # the era the tournament was computed under (its end date's), recorded with the list
            "era_from",
        )
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
        .join(_variant_columns(facts.registry, rulebook), on="player_id", how="left")
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
                            "debutant: entered at {} ({}){}{}",
                            pl.col("frozen_rating"),
                            pl.when(pl.col("entry_italiana_category").is_not_null())
                            .then(
                                pl.format(
                                    "his dama italiana category {}, above his {}",
                                    pl.col("entry_italiana_category"),
                                    pl.col("entry_category"),
                                )
                            )
                            .otherwise(pl.col("entry_category")),
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
                            pl.when(pl.col("entry_capital").is_not_null())
                            .then(
                                pl.format(
                                    ", raised to the minimum from {}", pl.col("entry_capital")
                                )
                            )
                            .otherwise(pl.lit("")),
                        )
                    ),
                    pl.when(pl.col("rating_basis") == "foreign").then(
                        pl.when(pl.col("entry_capital").is_not_null())
                        .then(
                            pl.format(
                                "foreign player: the registry's capital {} raised to the "
                                "minimum {}",
                                pl.col("entry_capital"),
                                pl.col("frozen_rating"),
                            )
                        )
                        .otherwise(
                            pl.format(
                                "foreign player: entered at the registry's capital {}",
                                pl.col("frozen_rating"),
                            )
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
    tournament ending before the variant is rated or at a validity its era does not know is set
    aside (``excluded``, with the reason): no capital, no activity. A player not rated in an
    era that rates only some categories gets no capital and no list row (``rated_window``)."""
    prepared = engine_inputs(facts, rulebook)
    facts, rated, start = prepared.facts, prepared.rated, prepared.start
    result = apply_tournaments(*prepared.frames, rulebook)
    rows = _list_rows(facts, rulebook, list_date, start, result)
    variations = variation_notes(
        result.variations.join(
            facts.tournaments.select("tournament_id", "tournament_version", "validity"),
            on="tournament_id",
            how="left",
        ),
        rulebook,
        rated.unrated_games,
    )
    era = rulebook.era_at(list_date)
    return PublishedList(
        rows=rows,
        variations=variations,
        rankings=rankings(ranking_input(rows, era, list_date)),  # type: ignore[arg-type]
        excluded=prepared.excluded,
    )


@dataclass(frozen=True)
class EngineInputs:
    """A window's facts made ready for :func:`apply_tournaments`."""

    facts: RubeleFacts  # the rated tournaments of the window, the players rated in them
    excluded: pl.DataFrame  # tournaments set aside, with the reason
    rated: RatedWindow
    start: pl.DataFrame  # each player's capital at the window's start
    # apply_tournaments' capitals, tournaments, entries and games, in its columns
    frames: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]


def engine_inputs(facts: RubeleFacts, rulebook: RubeleRulebook) -> EngineInputs:
    """Set aside the tournaments no era rates, leave out the players not rated, and give the
    capitals at the start and the frames the wave engine takes (the list's computation and
    ``graduatoria explain`` prepare a window the same way)."""
    excluded = set_aside(facts, rulebook)
    if excluded.height:
        facts = without_tournaments(facts, excluded.get_column("tournament_id"))
    rated = rated_window(facts, rulebook)
    facts = rated.facts
    start = starting_capitals(facts, rulebook)
    game_columns = GAME_COLUMNS | (
        {KIND_COLUMN: pl.Utf8()} if KIND_COLUMN in facts.games.columns else {}
    )
    capitals = pl.concat(
        [
            start.select(*CAPITAL_COLUMNS, REACHED_COLUMN),
            rated.unrated_capitals.with_columns(pl.lit(None).alias(REACHED_COLUMN)),
        ],
        how="vertical_relaxed",
    )
    frames = (
        capitals.cast(CAPITAL_COLUMNS | {REACHED_COLUMN: pl.Int32()}),  # type: ignore[arg-type]
        facts.tournaments.select(list(TOURNAMENT_COLUMNS)).cast(TOURNAMENT_COLUMNS),  # type: ignore[arg-type]
        facts.entries.select(list(ENTRY_COLUMNS)).cast(ENTRY_COLUMNS),  # type: ignore[arg-type]
        facts.games.select(list(game_columns)).cast(game_columns),  # type: ignore[arg-type]
    )
    return EngineInputs(facts, excluded, rated, start, frames)


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
            _variant_columns(registry, rulebook).drop("foreign_capital", "italiana_category"),
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


def capitals_without_k(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A published list of capitals as imported, and one warning where its file gives a K (a
    chess column: a capital has none, and the import keeps none, as ``reconcile`` compares
    none), on the first line that does, with how many do."""
    given = rows.filter(pl.col("k").is_not_null()).sort("line_no")
    if given.height == 0:
        return rows, empty_problems()
    count = given.height
    reason = (
        f"k is given for {count} player{'s' if count > 1 else ''}: a capital has no K "
        "(Elo-Rubele's coefficient S goes by the capital before each tournament), so it is "
        "not imported"
    )
    return rows, problem_rows(
        given.head(1), "k", pl.col("k").cast(pl.Utf8), pl.lit(reason), severity="warning"
    )
