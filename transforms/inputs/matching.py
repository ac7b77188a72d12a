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
class RegistryLookups:
    """The registry's keys a tournament line is matched by: national id, FIDE id (with what
    the line must agree with), name and birth date as written, and as plain letters."""

    by_national: pl.DataFrame
    by_fide: pl.DataFrame
    by_name: pl.DataFrame
    by_letters: pl.DataFrame


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
    lookups = RegistryLookups(
        by_national=registry.select(
            pl.col("player_id").alias("national_id"),
            pl.col("player_id").alias("player_id_by_national_id"),
        ),
        by_fide=by_fide,
        by_name=_unambiguous(registry.with_columns(_name_birth_key(name_key)), "name_birth_key"),
        by_letters=_unambiguous(
            registry.with_columns(_name_birth_key(_letters_only, "letters_birth_key")),
            "letters_birth_key",
        ),
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
    lookups = registry_lookups(registry)
    by_national, by_fide = lookups.by_national, lookups.by_fide
    by_name, by_letters = lookups.by_name, lookups.by_letters
    merge_lookup = merges.select(
        pl.col("provisional_id"), pl.col("player_id").alias("player_id_by_merge")
    )

    matched = (
        entries.with_columns(
            _name_birth_key(name_key),
            _name_birth_key(_letters_only, "letters_birth_key"),
            provisional_id().alias("provisional_id"),
        )
        .pipe(_with_earlier_ids, aliases)
        .join(by_national, on="national_id", how="left")
        .join(by_fide, on="fide_id", how="left")
        .join(by_name, on="name_birth_key", how="left")
        .join(by_letters, on="letters_birth_key", how="left")
        .join(merge_lookup, on="provisional_id", how="left")
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
    )


def _name_birth_key(spelt: Callable[[pl.Expr], pl.Expr], alias: str = "name_birth_key") -> pl.Expr:
    """The name as ``spelt`` and the birth date: null without a birth date."""
    return pl.concat_str(
        [spelt(pl.col("name")), pl.col("birth_date").cast(pl.Utf8)], separator="|"
    ).alias(alias)


def _with_earlier_ids(entries: pl.DataFrame, aliases: pl.DataFrame | None) -> pl.DataFrame:
    if aliases is None or aliases.height == 0:
        return entries
    return (
        entries.join(aliases, on="provisional_id", how="left", maintain_order="left")
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
