"""Matching tournament players to the registry.

Order of evidence (first that succeeds wins): the national id of a TRF-26 national line, then the
FIDE id when the file's surname or birth year agrees with the registered player's (a mistyped id
would put the games on someone else), then the exact name with the exact birth date, then the
same letters of the name (accents, apostrophes and spaces aside: ``NICCOLO'`` for ``Niccolò``)
with the exact birth date. A key that points at two registered players is ambiguous and matches
nobody. Whoever is left gets a
provisional id built from what the file says about them, so the same unknown person keeps one id
across tournaments until the analyst merges it into a real one (``player_merge``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

MATCH_METHODS = ["national_id", "fide_id", "name_birth", "merge", "provisional"]
PROVISIONAL_PREFIX = "P-"


def name_key(name: pl.Expr) -> pl.Expr:
    """Exact name up to case, spacing and the comma between surname and given name."""
    return name.str.to_uppercase().str.replace_all(r"[,\s]+", " ").str.strip_chars()


def plain_letters(name: pl.Expr) -> pl.Expr:
    """Capitals without accents or punctuation, as files and the registry write a name
    differently (``D'Angelo``/``DANGELO``)."""
    return name.str.normalize("NFKD").str.replace_all(r"\p{M}", "").str.to_uppercase()


def surname_key(name: pl.Expr) -> pl.Expr:
    """The surname (before the comma, else the first word), in plain letters."""
    plain = plain_letters(name)
    surname = (
        pl.when(plain.str.contains(","))
        .then(plain.str.split(",").list.first())
        .otherwise(plain.str.strip_chars().str.split(" ").list.first())
    )
    return surname.str.replace_all(r"[^A-Z0-9]", "")


def _letters_only(name: pl.Expr) -> pl.Expr:
    return plain_letters(name).str.replace_all(r"[^A-Z0-9]", "")


def provisional_id() -> pl.Expr:
    """A readable, deterministic id such as ``P-ROSSI_MARIO-1990-05-04-ITA``.

    Accented letters are written without their accents (``Müller`` and ``Möller`` stay two
    people); a name with letters no Latin spelling keeps (Cyrillic, Greek, ``Ø``) adds its
    UTF-8 bytes in hexadecimal, or every such name would come out the same."""
    return _provisional_id(_latin_name_key(pl.col("name")))


def _latin_name_key(name: pl.Expr) -> pl.Expr:
    plain = name_key(plain_letters(name))
    latin = plain.str.replace_all(r"[^A-Z0-9]+", "_").str.strip_chars("_")
    # letters that lose nothing but their accents need no more; others would be lost
    lossy = plain.str.contains(r"[^\x00-\x7F]")
    spelt_out = (latin + "_U" + name_key(name).str.encode("hex")).str.strip_chars("_")
    return pl.when(lossy).then(spelt_out).otherwise(latin)


def provisional_aliases(stored: pl.DataFrame) -> pl.DataFrame:
    """(provisional_id, earlier_id): the provisional ids now given to unidentified players
    whom the warehouse already holds under an id given before 2026-12-02 (when accents and
    non-Latin letters were dropped), so they keep that id and stay one player. ``stored``:
    the warehouse's provisional entries (provisional_id and the fields the id is made of). An
    earlier id that two players shared (``M_LLER`` for Müller and Möller) is kept by none."""
    now = stored.select(
        provisional_id().alias("provisional_id"), pl.col("provisional_id").alias("earlier_id")
    ).unique()
    return (
        now.filter(pl.col("provisional_id") != pl.col("earlier_id"))
        .filter(pl.len().over("earlier_id") == 1, pl.len().over("provisional_id") == 1)
        .sort("provisional_id")
    )


def _provisional_id(spelt: pl.Expr) -> pl.Expr:
    born = pl.coalesce(
        pl.col("birth_date").cast(pl.Utf8),
        pl.col("birth_year").cast(pl.Utf8),
        pl.lit("NA"),
    )
    return pl.concat_str(
        [
            pl.lit(PROVISIONAL_PREFIX),
            spelt,
            pl.lit("-"),
            born,
            pl.lit("-"),
            pl.col("federation").fill_null("XXX"),
            pl.when(pl.col("fide_id").is_not_null())
            .then(pl.lit("-F") + pl.col("fide_id").cast(pl.Utf8))
            .otherwise(pl.lit("")),
        ]
    )


def _unambiguous(registry: pl.DataFrame, key: str) -> pl.DataFrame:
    """Registry rows whose ``key`` is non-null and held by exactly one player."""
    return (
        registry.filter(pl.col(key).is_not_null())
        .filter(pl.len().over(key) == 1)
        .select(key, pl.col("player_id").alias(f"player_id_by_{key}"))
    )


@dataclass(frozen=True)
class SortedLookup:
    """A lookup sorted by its key, without the rows whose key is null (they match nothing).

    A tournament's lines find their rows by binary search over the sorted keys, in the same
    expression that reads the rows: a join with the whole lookup would hash all of its rows (a
    national registry's 48,000) for every tournament, and cost ten times the tournament's own
    matching. Only a lookup whose keys name one row each is searched so (any other is joined).
    """

    key: str
    frame: pl.DataFrame
    unique: bool  # each key names one row

    @classmethod
    def of(cls, lookup: pl.DataFrame, key: str) -> SortedLookup:
        frame = lookup.filter(pl.col(key).is_not_null()).sort(key)
        keys = frame.get_column(key)
        return cls(key, frame, keys.n_unique() == keys.len())

    def searchable(self, dtype: pl.DataType | None) -> bool:
        """Whether lines whose key has ``dtype`` can be searched for (else: joined)."""
        return self.unique and dtype == self.frame.schema[self.key]

    def found(self, lines: pl.LazyFrame) -> pl.LazyFrame:
        """``lines`` with the lookup's other columns, from the row whose key equals the line's
        (null when none does): what a left join on the key adds, in the same order."""
        keys = self.frame.get_column(self.key)
        others = [name for name in self.frame.columns if name != self.key]
        if keys.len() == 0:
            return lines.with_columns(
                pl.lit(None, self.frame.schema[name]).alias(name) for name in others
            )
        at = f"_at_{self.key}"
        # where the line's key is, or would be, among the sorted keys
        position = pl.lit(keys).search_sorted(pl.col(self.key)).clip(upper_bound=keys.len() - 1)
        hit = pl.lit(keys).gather(pl.col(at)) == pl.col(self.key)
        return (
            lines.with_columns(position.alias(at))
            .with_columns(
                pl.when(hit)
                .then(pl.lit(self.frame.get_column(name)).gather(pl.col(at)))
                .alias(name)
                for name in others
            )
            .drop(at)
        )


@dataclass(frozen=True)
class RegistryLookups:
    """The registry's keys a tournament line is matched by: national id, FIDE id (with what
    the line must agree with), name and birth date as written, and as plain letters."""

    by_national: pl.DataFrame
    by_fide: pl.DataFrame
    by_name: pl.DataFrame
    by_letters: pl.DataFrame
    # the same, each sorted by its key (the entries' column of the same name)
    sorted: dict[str, SortedLookup]


# An ingest matches every tournament against one registry frame: its keys (normalised names,
# regular expressions over every registered player) are built once per frame, not once per
# tournament (69 ms a tournament on the demo registry, 181 ms on a national one: half of an
# ingest's time, measured in issue 33). Keyed by the frame itself, held so its id cannot be reused.
_LOOKUPS_KEPT = 4
_built_lookups: dict[int, tuple[pl.DataFrame, RegistryLookups]] = {}


def registry_lookups(registry: pl.DataFrame) -> RegistryLookups:
    """The lookups of ``registry`` (one row per registered player: player_id, name,
    birth_date, fide_id), built once per frame."""
    hit = _built_lookups.get(id(registry))
    if hit is not None and hit[0] is registry:
        return hit[1]
    by_fide = _unambiguous(registry, "fide_id").join(
        registry.select(
            pl.col("player_id").alias("player_id_by_fide_id"),
            surname_key(pl.col("name")).alias("_registered_surname"),
            _letters_only(pl.col("name")).alias("_registered_letters"),
            pl.col("birth_date").dt.year().alias("_registered_year"),
        ),
        on="player_id_by_fide_id",
        how="left",
    )
    by_national = registry.select(
        pl.col("player_id").alias("national_id"),
        pl.col("player_id").alias("player_id_by_national_id"),
    )
    by_name = _unambiguous(registry.with_columns(_name_birth_key(name_key)), "name_birth_key")
    by_letters = _unambiguous(
        registry.with_columns(_name_birth_key(_letters_only, "letters_birth_key")),
        "letters_birth_key",
    )
    lookups = RegistryLookups(
        by_national=by_national,
        by_fide=by_fide,
        by_name=by_name,
        by_letters=by_letters,
        sorted={
            key: SortedLookup.of(lookup, key)
            for key, lookup in (
                ("national_id", by_national),
                ("fide_id", by_fide),
                ("name_birth_key", by_name),
                ("letters_birth_key", by_letters),
            )
        },
    )
    if len(_built_lookups) >= _LOOKUPS_KEPT:
        _built_lookups.clear()
    _built_lookups[id(registry)] = (registry, lookups)
    return lookups


def match_players(
    entries: pl.DataFrame,
    registry: pl.DataFrame,
    merges: pl.DataFrame,
    aliases: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Add ``player_id`` and ``match_method`` to tournament entries.

    ``entries`` needs name, birth_date, birth_year, federation, fide_id, national_id;
    ``registry`` one row per registered player (player_id, name, birth_date, fide_id);
    ``merges`` the analyst's decisions (provisional_id, player_id). ``fide_id_disagrees_with``
    names the registered player a line's FIDE id belongs to when neither the surname nor the
    birth year agrees with him and no other evidence matches the line to him. ``aliases``
    (:func:`provisional_aliases`) keeps the earlier id of an unidentified player.
    """
    recalled = _recalled(entries, registry, merges, aliases)
    if recalled is not None:
        return recalled
    return _matched(entries, registry, merges, aliases)


# What a line's match depends on: match_players is a function of each line alone (and of the
# registry, the merges and the aliases), and adds these columns.
IDENTITY = ["name", "birth_date", "birth_year", "federation", "fide_id", "national_id"]
MATCH_COLUMNS = ["provisional_id", "fide_id_disagrees_with", "player_id", "match_method"]
_HASH = "_identity_hash"


@dataclass(frozen=True)
class _Remembered:
    """Lines matched ahead (:func:`remember_matches`), against these frames."""

    registry: pl.DataFrame
    merges: pl.DataFrame
    aliases: pl.DataFrame | None
    matches: pl.DataFrame  # IDENTITY, MATCH_COLUMNS and _HASH, sorted by _HASH
    hashes: pl.Series


_remembered: list[_Remembered] = []  # the latest only


def remember_matches(
    lines: pl.DataFrame,
    registry: pl.DataFrame,
    merges: pl.DataFrame,
    aliases: pl.DataFrame | None = None,
) -> None:
    """Match many tournaments' lines at once (an ingest's delivery), for :func:`match_players`
    to look up rather than match again with the same frames: a line's match depends on the
    line alone, so each tournament gets the very rows matching it alone gives, and the matching
    costs about as much as a few tournaments' instead of all of theirs. ``lines`` has the
    IDENTITY columns; a tournament with a line not among them is matched as usual."""
    identities = lines.select(IDENTITY).unique(maintain_order=True)
    matches = (
        _matched(identities, registry, merges, aliases)
        .select(*IDENTITY, *MATCH_COLUMNS)
        .with_columns(pl.struct(IDENTITY).hash().alias(_HASH))
        .sort(_HASH)
    )
    _remembered[:] = [_Remembered(registry, merges, aliases, matches, matches.get_column(_HASH))]


def _recalled(
    entries: pl.DataFrame,
    registry: pl.DataFrame,
    merges: pl.DataFrame,
    aliases: pl.DataFrame | None,
) -> pl.DataFrame | None:
    """The match of ``entries`` as remembered, or None when the lines (or the frames they are
    matched against) are not those :func:`remember_matches` was given."""
    memo = next(
        (
            memo
            for memo in _remembered
            if memo.registry is registry and memo.merges is merges and memo.aliases is aliases
        ),
        None,
    )
    if (
        memo is None
        or memo.hashes.len() == 0
        or any(column in entries.columns for column in MATCH_COLUMNS)
        or any(entries.schema.get(column) != memo.matches.schema[column] for column in IDENTITY)
    ):
        return None
    # each line's row among the remembered ones, by binary search over their hashes; the row
    # found must be the line's (a line not remembered finds another, or none past the end)
    hashes = entries.select(pl.struct(IDENTITY).hash()).to_series()
    rows = memo.matches[memo.hashes.search_sorted(hashes).clip(upper_bound=memo.hashes.len() - 1)]
    if not rows.select(IDENTITY).equals(entries.select(IDENTITY), null_equal=True):
        return None
    return pl.concat([entries, rows.select(MATCH_COLUMNS)], how="horizontal")


def _matched(
    entries: pl.DataFrame,
    registry: pl.DataFrame,
    merges: pl.DataFrame,
    aliases: pl.DataFrame | None,
) -> pl.DataFrame:
    """:func:`match_players`, computed."""
    lookups = registry_lookups(registry)
    merge_lookup = merges.select(
        pl.col("provisional_id"), pl.col("player_id").alias("player_id_by_merge")
    )

    # one query, collected once: a tournament's few lines cost little beside the number of
    # operations run on them
    matched = (
        entries.lazy()
        .with_columns(
            _name_birth_key(name_key),
            _name_birth_key(_letters_only, "letters_birth_key"),
            provisional_id().alias("provisional_id"),
        )
        .pipe(_with_earlier_ids, aliases)
    )
    strings = {"name_birth_key": pl.String(), "letters_birth_key": pl.String()}
    for key, lookup in (
        ("national_id", lookups.by_national),
        ("fide_id", lookups.by_fide),
        ("name_birth_key", lookups.by_name),
        ("letters_birth_key", lookups.by_letters),
    ):
        searched = lookups.sorted[key]
        if searched.searchable(strings.get(key, entries.schema.get(key))):
            matched = searched.found(matched)
        else:
            matched = matched.join(lookup.lazy(), on=key, how="left", maintain_order="left")
    matched = matched.join(
        merge_lookup.lazy(), on="provisional_id", how="left", maintain_order="left"
    )
    year = pl.coalesce(pl.col("birth_date").dt.year(), pl.col("birth_year"))
    # the surnames agree when one name begins with the other's surname: a file without the
    # comma ("De Luca Mario") cannot say where a compound surname ends
    letters = _letters_only(pl.col("name"))
    same_surname = letters.str.starts_with(pl.col("_registered_surname")) | pl.col(
        "_registered_letters"
    ).str.starts_with(surname_key(pl.col("name")))
    fide_agrees = (
        (pl.col("_registered_surname") != "") & same_surname & (surname_key(pl.col("name")) != "")
    ).fill_null(False) | (year == pl.col("_registered_year")).fill_null(False)
    matched = matched.with_columns(
        # the registered player a FIDE id names when nothing else of the line agrees with him
        pl.when(fide_agrees)
        .then(None)
        .otherwise(pl.col("player_id_by_fide_id"))
        .alias("fide_id_disagrees_with"),
        pl.when(fide_agrees).then(pl.col("player_id_by_fide_id")).alias("player_id_by_fide_id"),
    ).drop("_registered_surname", "_registered_letters", "_registered_year")
    # the exact name first; failing it, the same letters: a file that writes "Niccolo'" or
    # "NICCOLO" for the registry's "Niccolò" (TRF files are often plain ASCII)
    matched = matched.with_columns(
        pl.coalesce("player_id_by_name_birth_key", "player_id_by_letters_birth_key").alias(
            "player_id_by_name_birth_key"
        )
    )
    candidates = [
        ("national_id", "player_id_by_national_id"),
        ("fide_id", "player_id_by_fide_id"),
        ("name_birth", "player_id_by_name_birth_key"),
        ("merge", "player_id_by_merge"),
    ]
    method = pl.lit("provisional")
    for name, column in reversed(candidates):
        method = pl.when(pl.col(column).is_not_null()).then(pl.lit(name)).otherwise(method)
    return (
        matched.with_columns(
            pl.coalesce(
                [pl.col(column) for _, column in candidates] + [pl.col("provisional_id")]
            ).alias("player_id"),
            method.alias("match_method"),
        )
        # other evidence found the very player the id names: nothing to report
        .with_columns(
            pl.when(pl.col("fide_id_disagrees_with") != pl.col("player_id"))
            .then(pl.col("fide_id_disagrees_with"))
            .alias("fide_id_disagrees_with")
        )
        .drop(
            [column for _, column in candidates]
            + ["name_birth_key", "letters_birth_key", "player_id_by_letters_birth_key"]
        )
        .collect(engine="in-memory")
    )


def _name_birth_key(spelt: Callable[[pl.Expr], pl.Expr], alias: str = "name_birth_key") -> pl.Expr:
    """The name as ``spelt`` and the birth date: null without a birth date."""
    return pl.concat_str(
        [spelt(pl.col("name")), pl.col("birth_date").cast(pl.Utf8)], separator="|"
    ).alias(alias)


def _with_earlier_ids(entries: pl.LazyFrame, aliases: pl.DataFrame | None) -> pl.LazyFrame:
    if aliases is None or aliases.height == 0:
        return entries
    return (
        entries.join(aliases.lazy(), on="provisional_id", how="left", maintain_order="left")
        .with_columns(pl.coalesce("earlier_id", "provisional_id").alias("provisional_id"))
        .drop("earlier_id")
    )


def place_provisional(waiting: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """Every provisional player waiting for a merge, as ``registry`` (a snapshot loaded after
    their tournaments) places him: provisional_id, player_id (null: not placed), match_method
    (the strongest evidence that found him) and reason (why he was not placed), one row per id.

    ``waiting`` has the provisional_id and the fields an entry is matched on (name,
    birth_date, birth_year, federation, fide_id, national_id), one row per way he was entered;
    rows found by different evidence place him when they all name one player, and an id whose
    rows name two different players stays provisional, for the analyst to merge.
    """
    no_merges = pl.DataFrame(schema={"provisional_id": pl.Utf8, "player_id": pl.Utf8})
    found = pl.col("match_method") != "provisional"
    strength = pl.col("match_method").replace_strict(
        {method: rank for rank, method in enumerate(MATCH_METHODS)}, return_dtype=pl.Int32
    )
    matched = match_players(waiting.rename({"provisional_id": "waiting_id"}), registry, no_merges)
    per_id = matched.group_by("waiting_id").agg(
        pl.col("player_id").filter(found).unique().sort().alias("players"),
        pl.col("match_method").filter(found).sort_by(strength.filter(found)).first(),
        (
            pl.col("birth_date").is_null()
            & pl.col("fide_id").is_null()
            & pl.col("national_id").is_null()
        )
        .all()
        .alias("nothing_to_match_on"),
    )
    players = pl.col("players").list.len()
    return per_id.select(
        pl.col("waiting_id").alias("provisional_id"),
        pl.when(players == 1).then(pl.col("players").list.first()).alias("player_id"),
        pl.when(players == 1).then(pl.col("match_method")).alias("match_method"),
        pl.when(players > 1)
        .then(
            pl.format(
                "its entries name {} registered players ({})",
                players,
                pl.col("players").list.join(", "),
            )
        )
        .when(players == 1)
        .then(pl.lit(None, dtype=pl.Utf8))
        .when(pl.col("nothing_to_match_on"))
        .then(
            pl.lit(
                "its files give no birth date, national id or FIDE id: only a merge can place it"
            )
        )
        .otherwise(
            pl.lit(
                "no single registered player has its national id, its FIDE id (with the "
                "surname or birth year agreeing), or its name and birth date"
            )
        )
        .alias("reason"),
    ).sort("provisional_id")


def rematch_provisional(waiting: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """The provisional players ``registry`` now identifies (see :func:`place_provisional`):
    provisional_id, player_id, match_method, one row per provisional id."""
    return (
        place_provisional(waiting, registry)
        .filter(pl.col("player_id").is_not_null())
        .select("provisional_id", "player_id", "match_method")
    )


def merge_disagreements(entered: pl.DataFrame, registered: pl.DataFrame) -> list[str]:
    """What a proposed merge would contradict: ``entered`` holds how the provisional player was
    entered in his tournaments (name, birth_date, birth_year; a row per way), ``registered``
    the registered player's one row (name, birth_date). Returns a sentence per disagreement:
    the name (none of the entries has his letters) and the birth (every entry that gives one
    gives another); a birth no entry gives cannot disagree."""
    person = registered.row(0, named=True)
    born = person["birth_date"]
    letters = entered.select(
        (_letters_only(pl.col("name")) == _letters_only(pl.lit(person["name"]))).any()
    ).item()
    births = entered.filter(
        pl.col("birth_date").is_not_null() | pl.col("birth_year").is_not_null()
    ).select(
        pl.coalesce(
            pl.col("birth_date") == pl.lit(born),
            pl.col("birth_year") == pl.lit(born.year if born else None),
        ).alias("agrees")
    )
    said = []
    if not letters:
        names = ", ".join(sorted(set(entered.get_column("name").drop_nulls())))
        said.append(f"the name ({names}, registered as {person['name']})")
    if births.height and born is not None and not births.get_column("agrees").any():
        given = ", ".join(
            sorted(
                {
                    str(day) if day is not None else str(year)
                    for day, year in entered.select("birth_date", "birth_year").rows()
                    if day is not None or year is not None
                }
            )
        )
        said.append(f"the birth ({given}, registered as {born})")
    return said
