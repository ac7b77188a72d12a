"""From one manifest row and its TRF bytes to the frames the warehouse stores for a tournament.

Pure: the caller reads the files and writes the result. A tournament with any error is
quarantined (kept, with its reasons, never rated); warnings are reported only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date

import polars as pl

from schemas.problems import PROBLEM_SCHEMA, empty_problems, problem, problem_rows, problems_frame
from schemas.trf import TrfGame, TrfNational, TrfPlayer, TrfTournament
from schemas.validation import validate
from transforms.elo.rulebook import EloEra, Rulebook
from transforms.elo.validity import size_reasons, system_name, time_control_reason
from transforms.inputs.manifest import MANIFEST_FIELDS
from transforms.inputs.matching import match_players
from transforms.inputs.tabular import late_receipt
from transforms.inputs.time_control import TimeControl, read_encoded, read_written
from transforms.inputs.trf import ParsedTrf

ACCEPTED = "accepted"
QUARANTINED = "quarantined"

ENTRY_COLUMNS = [
    "start_number",
    "name",
    "sex",
    "title",
    "birth_date",
    "birth_year",
    "federation",
    "fide_id",
    "national_id",
    "rating_in_file",
    "national_rating",
    "arbiter_rating",
    "points",
    "rank",
    "player_id",
    "match_method",
]
GAME_COLUMNS = [
    "start_number",
    "round",
    "opponent",
    "color",
    "result_code",
    "score",
    "kind",
    "played",
]
# Every manifest fact but the identity of the row takes part in a version's identity.
MANIFEST_KEY_FIELDS = [
    spec.name for spec in MANIFEST_FIELDS if spec.name not in ("tournament_id", "file")
]


@dataclass(frozen=True)
class TournamentIntake:
    """Everything learnt about one delivered tournament."""

    tournament_id: str
    status: str
    version_key: str
    header: dict[str, object]
    entries: pl.DataFrame
    games: pl.DataFrame
    problems: pl.DataFrame  # PROBLEM_SCHEMA + source and file_name (manifest or TRF)
    unmatched: pl.DataFrame
    version: int = 0

    def with_version(self, version: int) -> TournamentIntake:
        return replace(self, version=version)

    def quarantined_for(
        self, found: dict[str, object], source: str, file_name: str
    ) -> TournamentIntake:
        """The same intake quarantined, with ``found`` (a :func:`problem`) among its problems."""
        added = _tagged(problems_frame([found]), source, file_name)
        return replace(
            self, status=QUARANTINED, problems=pl.concat([self.problems, added], how="diagonal")
        )

    def warned_of(self, found: dict[str, object], source: str, file_name: str) -> TournamentIntake:
        """The same intake with the warning ``found`` (a :func:`problem`) among its problems."""
        added = _tagged(problems_frame([found]), source, file_name)
        return replace(self, problems=pl.concat([self.problems, added], how="diagonal"))

    def problems_for_record(self, trf_sha256: str | None) -> pl.DataFrame:
        """Problems tagged for the rejection and warning tables."""
        return self.problems.with_columns(
            pl.when(pl.col("source") == "trf")
            .then(pl.lit(trf_sha256, dtype=pl.Utf8))
            .otherwise(pl.lit(self.header.get("manifest_sha256"), dtype=pl.Utf8))
            .alias("file_sha256"),
            pl.lit(self.tournament_id).alias("tournament_id"),
        )

    @property
    def errors(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") == "error")

    @property
    def warnings(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") == "warning")


def version_key(file_sha256: str | None, manifest_row: dict[str, object]) -> str:
    """What makes a delivery of a tournament new: the file bytes and the manifest facts."""
    facts = "|".join(f"{field}={manifest_row.get(field)}" for field in MANIFEST_KEY_FIELDS)
    return hashlib.sha256(f"{file_sha256 or 'missing'}|{facts}".encode()).hexdigest()


def validate_parsed(parsed: dict[str, ParsedTrf]) -> dict[str, pl.DataFrame]:
    """Check every frame of many parsed files at once; return each tournament's problems.

    One Pandera call per model for a whole delivery: per-file calls cost more than parsing.
    """
    checks = [
        (TrfTournament, "tournament", None),
        (TrfPlayer, "players", "line_no"),
        (TrfGame, "games", "line_no"),
        (TrfNational, "national", "line_no"),
    ]
    found = []
    for model, attribute, line_column in checks:
        frame = (
            pl.concat(
                [
                    getattr(one, attribute).with_columns(
                        pl.lit(tournament_id).alias("tournament_id")
                    )
                    for tournament_id, one in parsed.items()
                ]
            )
            if parsed
            else pl.DataFrame()
        )
        if frame.height == 0:
            continue
        result = validate(model, frame, line_column=line_column, carry=("tournament_id",))
        found.append(result.problems)
    if not found:
        return {tournament_id: empty_problems() for tournament_id in parsed}
    problems = pl.concat(found)
    whole_batch = problems.filter(pl.col("tournament_id").is_null()).drop("tournament_id")
    return {
        tournament_id: pl.concat(
            [
                problems.filter(pl.col("tournament_id") == tournament_id).drop("tournament_id"),
                whole_batch,
            ]
        )
        for tournament_id in parsed
    }


def _entries(
    parsed: ParsedTrf,
    arbiter_ratings: pl.DataFrame,
    national_federation: str | None,
    manifest_line: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    national = (
        parsed.national.filter(pl.col("federation_code") == pl.lit(national_federation or ""))
        .unique("start_number", keep="first")
        .select("start_number", "national_id", "national_rating")
    )
    entries = (
        parsed.players.rename({"rating": "rating_in_file"})
        .join(national, on="start_number", how="left")
        .join(
            arbiter_ratings.select("start_number", "arbiter_rating"),
            on="start_number",
            how="left",
        )
    )
    orphan_ratings = arbiter_ratings.join(parsed.players, on="start_number", how="anti")
    problems = problems_frame(
        [
            problem(
                f"arbiter_ratings names start number {number}, which is not in the file",
                field="arbiter_ratings",
                value=number,
                line_no=manifest_line,
            )
            for number in orphan_ratings.get_column("start_number").to_list()
        ]
    )
    return entries, problems


def _fide_ids_of_others(matched: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """A warning for each line whose FIDE id belongs to a registered player that nothing else
    of the line agrees with (surname, birth year): it is not matched by the id."""
    others = matched.filter(pl.col("fide_id_disagrees_with").is_not_null())
    if others.height == 0:
        return empty_problems()
    registered = registry.select(
        pl.col("player_id").alias("fide_id_disagrees_with"),
        pl.col("name").fill_null("?").alias("_registered_name"),
        pl.col("birth_date").dt.year().cast(pl.Utf8).fill_null("?").alias("_registered_year"),
    )
    born = pl.coalesce(pl.col("birth_date").dt.year(), pl.col("birth_year")).cast(pl.Utf8)
    return problem_rows(
        others.join(registered, on="fide_id_disagrees_with", how="left"),
        "fide_id",
        pl.col("fide_id"),
        pl.format(
            "FIDE id {} belongs to registered player {} ({}, born {}), but this line names "
            "{} (born {}): not matched by the id, which may be mistyped",
            pl.col("fide_id"),
            pl.col("fide_id_disagrees_with"),
            pl.col("_registered_name"),
            pl.col("_registered_year"),
            pl.col("name").fill_null("").replace("", "no name"),
            born.fill_null("?"),
        ),
        severity="warning",
    )


# players named in a warning about several of them, at most
NAMED_PLAYERS = 5


def _file_ratings_unused(matched: pl.DataFrame) -> pl.DataFrame:
    """One warning for a file whose players the registry does not know, given a rating in the
    file but no FIDE id: a file's rating is read as a FIDE rating only with its FIDE id
    (RULES.md §1.2), so they enter by the list's rules for newcomers, which the officer should
    know before he reads their entry ratings (a team event's file, say)."""
    unused = matched.filter(
        (pl.col("match_method") == "provisional")
        & pl.col("fide_id").is_null()
        & (pl.col("rating_in_file").fill_null(0) > 0)
    ).sort("line_no")
    if unused.height == 0:
        return empty_problems()
    numbers = unused.get_column("start_number").head(NAMED_PLAYERS).to_list()
    named = ", ".join(str(number) for number in numbers) + (
        ", …" if unused.height > NAMED_PLAYERS else ""
    )
    count = unused.height
    return problem_rows(
        unused.head(1),
        "rating",
        pl.col("rating_in_file").cast(pl.Utf8),
        pl.lit(
            f"{count} player{'s' if count > 1 else ''} not in the registry "
            f"{'have' if count > 1 else 'has'} a rating in the file but no FIDE id (start "
            f"number{'s' if count > 1 else ''} {named}): a file's rating is used only with its "
            "FIDE id, so they enter as newcomers by the list's rules"
        ),
        severity="warning",
    )


def _arbiter_ratings_of_nationals(
    matched: pl.DataFrame, registry: pl.DataFrame, national_federation: str, manifest_line: int
) -> pl.DataFrame:
    """An error for each arbiter's rating given to a player of the national federation (by the
    registry's country, else the file's federation): the chief arbiter rates foreign players
    without a FIDE rating only (RULES.md §1.2). Taken as given, it would set aside a
    registered player's list or entry rating, and move his opponents' numbers too."""
    rated = matched.filter(pl.col("arbiter_rating").is_not_null())
    if rated.height == 0:
        return empty_problems()
    country = pl.coalesce("_registry_country", "federation")
    nationals = rated.join(
        registry.select("player_id", pl.col("country").alias("_registry_country")),
        on="player_id",
        how="left",
    ).filter(country == national_federation)
    who = (
        pl.when(pl.col("_registry_country").is_not_null())
        .then(pl.format("registered player {} of {}", pl.col("player_id"), country))
        .otherwise(pl.format("of {} in the file", country))
    )
    return problem_rows(
        nationals.with_columns(pl.lit(manifest_line).alias("line_no")),
        "arbiter_ratings",
        pl.format("{}={}", pl.col("start_number"), pl.col("arbiter_rating")),
        pl.format(
            "arbiter_ratings gives start number {} ({}, {}) a rating: the chief arbiter rates "
            "foreign players without a FIDE rating only (correct the manifest)",
            pl.col("start_number"),
            pl.col("name").fill_null("no name"),
            who,
        ),
    )


def _arbiter_ratings_out_of_range(
    matched: pl.DataFrame, era: EloEra, system: str, manifest_line: int
) -> pl.DataFrame:
    """An error for each arbiter's rating outside the range the era lets the chief arbiter give
    (RULES.md §1.2: 1000 to 2800 by default): a 0 or a 99 is a slip, and would be the
    player's rating and move his opponents' numbers."""
    lowest, highest = era.arbiter_range
    if matched.get_column("arbiter_rating").null_count() == matched.height:
        return empty_problems()  # no rating given: most tournaments (a millisecond each)
    outside = matched.filter(
        pl.col("arbiter_rating").is_not_null()
        & ~pl.col("arbiter_rating").is_between(lowest, highest)
    )
    return problem_rows(
        outside.with_columns(pl.lit(manifest_line).alias("line_no")),
        "arbiter_ratings",
        pl.format("{}={}", pl.col("start_number"), pl.col("arbiter_rating")),
        pl.format(
            "arbiter_ratings gives start number {} ({}) {}: a rating the chief arbiter gives in "
            "{} lies from {} to {} (correct the manifest)",
            pl.col("start_number"),
            pl.col("name").fill_null("no name"),
            pl.col("arbiter_rating"),
            pl.lit(system_name(system)),
            pl.lit(lowest),
            pl.lit(highest),
        ),
    )


# how a reason names the sources of a newcomer's entry rating (rulebook ENTRY_SOURCES)
_ENTRY_SOURCE_NAMES = {
    "fide_rapid": "FIDE rapid",
    "fide_standard": "FIDE standard",
    "elo_italia": "Elo Italia",
}


def _arbiter_ratings_left_out(
    parsed: ParsedTrf,
    arbiter_ratings: pl.DataFrame,
    era: EloEra,
    system: str,
    tournament_id: str,
    manifest_line: int,
) -> pl.DataFrame:
    """A warning for each arbiter's rating delivered for a system whose arbiter gives none
    (RULES.md §2, Elo Rapid: no entry source): it is left out, and the tournament is rated."""
    if arbiter_ratings.height == 0:
        return empty_problems()
    sources = [_ENTRY_SOURCE_NAMES.get(source, source) for source in era.entry_precedence]
    enters_by = ", ".join([*sources, "the entry rating"])
    named = arbiter_ratings.join(
        parsed.players.select("start_number", "name", pl.lit(True).alias("_in_file")).unique(
            "start_number", keep="first"
        ),
        on="start_number",
        how="left",
    )
    who = (
        pl.when(pl.col("_in_file").fill_null(False))
        .then(pl.format("({})", pl.col("name").fill_null("no name")))
        .otherwise(pl.lit("(not in the file)"))
    )
    return problem_rows(
        named.with_columns(pl.lit(manifest_line).alias("line_no")),
        "arbiter_ratings",
        pl.format("{}={}", pl.col("start_number"), pl.col("arbiter_rating")),
        pl.format(
            "arbiter_ratings gives start number {} {} of tournament {} the rating {}: {} takes "
            "no rating from the arbiter, so it is left out (a newcomer enters by {})",
            pl.col("start_number"),
            who,
            pl.lit(tournament_id),
            pl.col("arbiter_rating"),
            pl.lit(system_name(system)),
            pl.lit(enters_by),
        ),
        severity="warning",
    )


# how the reasons name where a time control was read
_MANIFEST_TIME = "the manifest's time_control"


def _time_control_problems(
    parsed: ParsedTrf,
    manifest_row: dict[str, object],
    era: EloEra,
    system: str,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The time-control check of RULES.md §1.0 (manifest problems, file problems).

    The time control is read from the manifest's ``time_control`` (the analyst's word wins
    over the file, as for the dates), else the TRF-26 encoded line 222 (a form made to be
    read), else line 122 (free text); the first that can be read is used, with a warning for a
    source before it that cannot, and for a later one that gives another time per player. A
    time per player outside the era's range is an error; a time control that cannot be read,
    or that nobody gives, is a warning: the tournament is rated.
    """
    file_header = parsed.tournament.row(0, named=True)
    # (source, field, where, text, line, reader)
    given = [
        (source, field, where, str(text).strip(), None if line is None else int(line), reader)
        for source, field, where, text, line, reader in (
            (
                "manifest",
                "time_control",
                _MANIFEST_TIME,
                manifest_row.get("time_control"),
                manifest_row.get("line_no"),
                read_written,
            ),
            (
                "trf",
                "encoded time control",
                "line 222 of the file",
                file_header.get("encoded_time_control"),
                file_header.get("encoded_time_control_line"),
                read_encoded,
            ),
            (
                "trf",
                "time control",
                "line 122 of the file",
                file_header.get("time_control"),
                file_header.get("time_control_line"),
                read_written,
            ),
        )
        if text is not None and str(text).strip()
    ]
    found: dict[str, list[dict[str, object]]] = {"manifest": [], "trf": []}
    unchecked = (
        f"the tournament is rated without checking it against what {system_name(system)} "
        f"rates, games of {era.time_control.describe()}"
    )
    readings: list[tuple[int, TimeControl]] = [
        (position, control)
        for position, (*_, text, _line, reader) in enumerate(given)
        if (control := reader(text)) is not None
    ]
    if not readings:
        if not given:
            found["trf"].append(
                problem(
                    "no time control is given (the manifest's time_control, lines 222 and 122 "
                    f"of the file): {unchecked}; give it in the manifest's time_control",
                    field="time_control",
                    severity="warning",
                )
            )
        for source, field, where, text, line, _reader in given:
            found[source].append(
                problem(
                    f"time control {text} ({where}) cannot be read: {unchecked}; write it as "
                    "90'+30\" or 40/90+30 (minutes, then seconds per move), here or in the "
                    "manifest's time_control",
                    field=field,
                    value=text,
                    line_no=line,
                    severity="warning",
                )
            )
        return _frames(found)
    position, control = readings[0]
    source, field, where, text, line, _reader = given[position]
    for other_source, other_field, other_where, other_text, other_line, _ in given[:position]:
        found[other_source].append(
            problem(
                f"time control {other_text} ({other_where}) cannot be read; {where} gives "
                f"{text}, which is used",
                field=other_field,
                value=other_text,
                line_no=other_line,
                severity="warning",
            )
        )
    for other_position, other in readings[1:]:
        if other.seconds_per_player == control.seconds_per_player:
            continue
        other_source, other_field, other_where, other_text, other_line, _ = given[other_position]
        found[other_source].append(
            problem(
                f"time control {other_text} ({other_where}, {other.describe()}) differs from "
                f"{text} ({where}, {control.describe()}); {where} is used",
                field=other_field,
                value=other_text,
                line_no=other_line,
                severity="warning",
            )
        )
    reason = time_control_reason(text, control, era.time_control, system)
    if reason is not None:
        found[source].append(problem(reason, field=field, value=text, line_no=line))
    return _frames(found)


def _frames(found: dict[str, list[dict[str, object]]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    return problems_frame(found["manifest"]), problems_frame(found["trf"])


def _same_player_twice(matched: pl.DataFrame) -> pl.DataFrame:
    """Two start numbers that resolve to one player: the crosstable cannot be rated as is."""
    twice = matched.filter(pl.len().over("player_id") > 1).sort("player_id", "start_number")
    if twice.height == 0:
        return empty_problems()
    numbers = twice.group_by("player_id", maintain_order=True).agg(
        pl.col("start_number"), pl.col("match_method").first()
    )
    first_lines = twice.group_by("player_id", maintain_order=True).agg(pl.col("line_no").first())
    return problems_frame(
        [
            problem(
                f"start numbers {', '.join(str(n) for n in starts)} are all player {player} "
                f"(matched by {method}): one person cannot play twice in a tournament"
                if method != "provisional"
                else f"start numbers {', '.join(str(n) for n in starts)} are unregistered "
                "players the file describes alike (name, birth, federation, FIDE id): they "
                "cannot be told apart; give their birth dates or ids in the file",
                field="player",
                value=player,
                line_no=line,
            )
            for (player, starts, method), line in zip(
                numbers.rows(), first_lines.get_column("line_no").to_list(), strict=True
            )
        ]
    )


def _header(parsed: ParsedTrf, manifest_row: dict[str, object]) -> tuple[dict, pl.DataFrame]:
    """Tournament facts: the manifest's dates win over the file's, with a warning if they differ;
    a file's date after the receipt date is an error, and so is a tournament with no date."""
    header = parsed.tournament.row(0, named=True)
    received_on = manifest_row.get("received_on")
    found = []
    for field in ("start_date", "end_date"):
        from_manifest = manifest_row.get(field)
        from_file = header.get(field)
        if from_manifest is not None and from_file is not None and from_manifest != from_file:
            found.append(
                problem(
                    f"{field} in the manifest ({from_manifest}) differs from the file "
                    f"({from_file}); the manifest is used",
                    field=field,
                    value=from_file,
                    severity="warning",
                )
            )
        if from_manifest is not None:
            header[field] = from_manifest
        elif (
            isinstance(received_on, date)
            and isinstance(from_file, date)
            and from_file > received_on
        ):
            # a tournament is delivered once played: a later date is a typo, and an end date in
            # the future would stretch its players' activity (the manifest's dates are checked
            # the same way when the delivery is read)
            found.append(
                problem(
                    f"{field} {from_file} in the file is after the receipt date {received_on}; "
                    "give the right date in the manifest",
                    field=field,
                    value=from_file,
                )
            )
    if header.get("start_date") is None and header.get("end_date") is None:
        # the parser's warnings on dates the file gives but that cannot be read quote their
        # line and value: the file is not undated, and the arbiter may correct it
        unread = parsed.problems.filter(
            pl.col("field").is_in(["start date", "end date"])
            & pl.col("reason").str.ends_with("left empty")
        )
        if unread.height:
            first = unread.row(0, named=True)
            found.append(
                problem(
                    "the file gives the dates of the tournament but none can be read ("
                    + "; ".join(unread.get_column("reason").to_list())
                    + "), and the manifest gives none: the date played decides its players' "
                    "activity and the order of their tournaments, and is never guessed; correct "
                    "the file or give start_date and end_date in the manifest",
                    field="end_date",
                    value=first["value"],
                    line_no=first["line_no"],
                )
            )
        else:
            found.append(
                problem(
                    "neither the file (lines 042 and 052) nor the manifest gives the dates of the "
                    "tournament: the date played decides its players' activity and the order of "
                    "their tournaments, and is never guessed; give start_date and end_date in the "
                    "manifest",
                    field="end_date",
                )
            )
    if manifest_row.get("time_control"):
        header["time_control"] = manifest_row["time_control"]
    return header, problems_frame(found)


def _received_long_after(header: dict, manifest_row: dict[str, object]) -> pl.DataFrame:
    """:func:`late_receipt` of the tournament, on its manifest row (the receipt date is the
    manifest's, the dates played the header's)."""
    played = header.get("end_date") or header.get("start_date")
    received = manifest_row.get("received_on")
    reason = late_receipt(played, received if isinstance(received, date) else None)
    if reason is None:
        return empty_problems()
    return problems_frame(
        [
            problem(
                reason,
                field="received_on",
                value=received,
                line_no=int(manifest_row["line_no"]),  # type: ignore[call-overload]
                severity="warning",
            )
        ]
    )


def _size_problems(
    parsed: ParsedTrf, header: dict[str, object], rulebook: Rulebook | None
) -> pl.DataFrame:
    """A tournament too small for its system (players, rounds) is not valid: one error each."""
    era = _era_played(header, rulebook)
    if rulebook is None or era is None:
        return problems_frame([])
    rounds = int(header.get("rounds") or 0)  # type: ignore[call-overload]
    return problems_frame(
        [
            problem(f"not valid for {rulebook.system}: {reason}", field=field, value=value)
            for field, value, reason in size_reasons(parsed.players.height, rounds, era.validity)
        ]
    )


def _era_played(header: dict[str, object], rulebook: Rulebook | None) -> EloEra | None:
    """The era of the tournament's system in force when it was played (None: unknown)."""
    played_on = header.get("end_date") or header.get("start_date") or header.get("received_on")
    if rulebook is None or not isinstance(played_on, date):
        return None
    return rulebook.era_at(max(played_on, rulebook.eras[0].effective_from))


def _tagged(problems: pl.DataFrame, source: str, file_name: str) -> pl.DataFrame:
    # most of a tournament's dozen kinds of problem are none: tagging an empty frame cost a
    # third of an intake (a quarter of a millisecond each, three seconds in 1,000 files)
    if problems.height == 0:
        return _NO_TAGGED_PROBLEMS
    return problems.cast(PROBLEM_SCHEMA).with_columns(  # type: ignore[arg-type]
        pl.lit(source).alias("source"), pl.lit(file_name).alias("file_name")
    )


_NO_TAGGED_PROBLEMS = empty_problems().with_columns(
    pl.lit("").alias("source"), pl.lit("").alias("file_name")
)


def build_intake(
    manifest_row: dict[str, object],
    manifest_name: str,
    manifest_sha256: str,
    parsed: ParsedTrf | None,
    schema_problems: pl.DataFrame,
    file_sha256: str | None,
    arbiter_ratings: pl.DataFrame,
    registry_identity: pl.DataFrame,
    merges: pl.DataFrame,
    national_federation: str | None = None,
    manifest_rejected: bool = False,
    rulebook: Rulebook | None = None,
    trf_name: str | None = None,
    aliases: pl.DataFrame | None = None,
    unreadable: str | None = None,
) -> TournamentIntake:
    """Parse, validate and match one tournament; quarantine it if anything is wrong.

    ``manifest_rejected`` says the manifest row itself had errors (reported with the
    manifest): the file is still parsed and kept, but the tournament is quarantined.
    ``rulebook`` (of the tournament's system) gives, in the era in force when it was played,
    the size conditions of a valid tournament (RULES.md §2: Elo Rapid), the time per player
    its system rates (§1.0), the ratings the chief arbiter may give (§1.2, §2) and the
    federation's country. ``national_federation`` overrides that country (the record id of
    the TRF-26 national lines, and the players the arbiter may not rate). ``trf_name`` is how the
    file's rejections name it (by default as the manifest does); ``aliases`` keeps the earlier
    provisional ids of unidentified players (:func:`transforms.matching.provisional_aliases`);
    ``unreadable`` says why a file the delivery holds could not be read.
    """
    tournament_id = str(manifest_row["tournament_id"])
    key = version_key(file_sha256, manifest_row)
    provenance = {
        "manifest_sha256": manifest_sha256,
        "manifest_line": manifest_row["line_no"],
        "file_name": manifest_row["file"],
        "system": manifest_row["system"],
        "received_on": manifest_row["received_on"],
    }
    if parsed is None:
        missing = problem(
            f"the file {manifest_row['file']} listed in the manifest "
            + (unreadable or "is not in the delivery"),
            field="file",
            value=manifest_row["file"],
            line_no=int(manifest_row["line_no"]),  # type: ignore[call-overload]
        )
        problems = _tagged(problems_frame([missing]), "manifest", manifest_name)
        return _quarantined(tournament_id, key, {**manifest_row, **provenance}, problems)

    manifest_line = int(manifest_row["line_no"])  # type: ignore[call-overload]
    system = str(manifest_row["system"])
    header, header_problems = _header(parsed, manifest_row)
    # the rules of the era in force when the tournament was played (end date, else start
    # date, else receipt): its size, its time control, the arbiter's ratings, the country
    era = _era_played(header, rulebook)
    national = national_federation or (era.country if era is not None else None)
    # Elo Italia's arbiter gives a foreign newcomer a rating of his choice (RULES.md §1.2);
    # Elo Rapid's gives none (§2): a rating delivered is left out with a warning
    takes_arbiter = era is None or era.arbiter_entry
    entries, rating_problems = _entries(
        parsed,
        arbiter_ratings if takes_arbiter else arbiter_ratings.clear(),
        national,
        manifest_line,
    )
    left_out = (
        empty_problems()
        if era is None or takes_arbiter
        else _arbiter_ratings_left_out(
            parsed, arbiter_ratings, era, system, tournament_id, manifest_line
        )
    )
    time_manifest, time_trf = (
        _time_control_problems(parsed, manifest_row, era, system)
        if era is not None
        else (empty_problems(), empty_problems())
    )
    trf_name = trf_name or str(manifest_row["file"])
    problems = pl.concat(
        [
            _tagged(parsed.problems, "trf", trf_name),
            _tagged(schema_problems, "trf", trf_name),
            _tagged(rating_problems, "manifest", manifest_name),
            _tagged(left_out, "manifest", manifest_name),
            _tagged(header_problems, "trf", trf_name),
            _tagged(_received_long_after(header, manifest_row), "manifest", manifest_name),
            _tagged(time_manifest, "manifest", manifest_name),
            _tagged(time_trf, "trf", trf_name),
            _tagged(_size_problems(parsed, header, rulebook), "trf", trf_name),
        ]
    )
    matched = match_players(entries, registry_identity, merges, aliases)
    arbiter_faults = (
        [
            _arbiter_ratings_out_of_range(matched, era, system, manifest_line),
            _arbiter_ratings_of_nationals(
                matched, registry_identity, national or "", manifest_line
            ),
        ]
        if era is not None and era.arbiter_entry
        else []
    )
    problems = pl.concat(
        [
            problems,
            *(_tagged(found, "manifest", manifest_name) for found in arbiter_faults),
            _tagged(_same_player_twice(matched), "trf", trf_name),
            _tagged(_fide_ids_of_others(matched, registry_identity), "trf", trf_name),
            _tagged(_file_ratings_unused(matched), "trf", trf_name),
        ]
    )
    has_errors = bool((problems["severity"] == "error").any())
    status = QUARANTINED if manifest_rejected or has_errors else ACCEPTED
    unmatched = matched.filter(pl.col("match_method") == "provisional").select(
        pl.col("player_id").alias("provisional_id"),
        "start_number",
        "name",
        "birth_date",
        "birth_year",
        "federation",
        "fide_id",
        "national_id",
    )
    played_games = parsed.games.filter(pl.col("played")).height // 2
    header.update({"players": parsed.players.height, "played_games": played_games, **provenance})
    entries, games = matched.select(ENTRY_COLUMNS), parsed.games.select(GAME_COLUMNS)
    if _seats_repeat(entries, games):
        # the warehouse keys a tournament's rows by start number (and round): a file that
        # seats two players at one number (an error above) keeps its header, its problems and
        # its archived bytes, but no rows, which could not be told apart
        entries, games, unmatched = entries.clear(), games.clear(), unmatched.clear()
        kept_out = problem(
            "the players and games of this file are not stored while a start number is used "
            "twice: correct the file and deliver it again",
            field="start number",
            severity="warning",
        )
        problems = pl.concat([problems, _tagged(problems_frame([kept_out]), "trf", trf_name)])
    return TournamentIntake(
        tournament_id=tournament_id,
        status=status,
        version_key=key,
        header=header,
        entries=entries,
        games=games,
        problems=problems,
        unmatched=unmatched,
    )


def _seats_repeat(entries: pl.DataFrame, games: pl.DataFrame) -> bool:
    """Whether two entries share a start number, or two games a start number and round."""
    return bool(
        entries.get_column("start_number").is_duplicated().any()
        or games.select(pl.struct("start_number", "round").is_duplicated().any()).item()
    )


def _quarantined(
    tournament_id: str, key: str, manifest_row: dict[str, object], problems: pl.DataFrame
) -> TournamentIntake:
    header: dict[str, object] = {
        **manifest_row,
        "players": 0,
        "played_games": 0,
    }
    return TournamentIntake(
        tournament_id=tournament_id,
        status=QUARANTINED,
        version_key=key,
        header=header,
        entries=pl.DataFrame(),
        games=pl.DataFrame(),
        problems=problems,
        unmatched=pl.DataFrame(),
    )
