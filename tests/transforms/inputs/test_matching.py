from datetime import date

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.inputs.matching import (
    match_players,
    merge_disagreements,
    place_provisional,
    provisional_aliases,
    rematch_provisional,
)

REGISTRY = pl.DataFrame(
    {
        "player_id": ["100001", "100002", "100003", "100004", "100005"],
        "name": ["Rossi, Mario", "Bianchi, Anna", "Verdi, Luca", "Neri, Paolo", "Neri, Paolo"],
        "birth_date": [
            date(1980, 1, 2),
            date(1990, 5, 6),
            date(2001, 7, 8),
            date(1970, 1, 1),
            date(1970, 1, 1),
        ],
        "fide_id": [2500001, None, 2500003, None, None],
    },
    schema_overrides={"fide_id": pl.Int64},
)
NO_MERGES = pl.DataFrame(schema={"provisional_id": pl.Utf8, "player_id": pl.Utf8})


def _entries(**columns: list) -> pl.DataFrame:
    size = len(next(iter(columns.values())))
    base: dict[str, list] = {
        "start_number": list(range(1, size + 1)),
        "name": [None] * size,
        "birth_date": [None] * size,
        "birth_year": [None] * size,
        "federation": ["ITA"] * size,
        "fide_id": [None] * size,
        "national_id": [None] * size,
    }
    base.update(columns)
    return pl.DataFrame(
        base,
        schema={
            "start_number": pl.Int32,
            "name": pl.Utf8,
            "birth_date": pl.Date,
            "birth_year": pl.Int32,
            "federation": pl.Utf8,
            "fide_id": pl.Int64,
            "national_id": pl.Utf8,
        },
    )


def test_evidence_is_used_in_order_national_fide_name():
    entries = _entries(
        # national id wins even though the FIDE id points at someone else; the FIDE id matches
        # when the surname agrees (the file shortens the given name)
        name=["Rossi Mario", "ROSSI, M.", "BIANCHI,  ANNA", "Stranger, Joe"],
        national_id=["100003", None, None, None],
        fide_id=[2500001, 2500001, None, None],
        birth_date=[None, None, date(1990, 5, 6), date(1999, 1, 1)],
    )
    matched = match_players(entries, REGISTRY, NO_MERGES).sort("start_number")
    assert matched["player_id"].to_list()[:3] == ["100003", "100001", "100002"]
    assert matched["match_method"].to_list() == [
        "national_id",
        "fide_id",
        "name_birth",
        "provisional",
    ]
    assert matched["player_id"][3] == "P-STRANGER_JOE-1999-01-01-ITA"


def test_a_fide_id_matches_only_when_the_surname_or_the_birth_year_agrees():
    # 2500001 is Rossi, Mario (1980): a line naming someone else, born another year, keeps a
    # provisional id and names the registered player the id belongs to (a mistyped id would
    # put his games on Rossi); the same id beside Rossi's birth year, or his surname written
    # with an accent and without the apostrophe, still matches.
    entries = _entries(
        name=["San Felipe Gonzalez, Juan", "Rossi-Bianchi, Mario", "Rössi, Mario", "Bianchi, A."],
        fide_id=[2500001, 2500001, 2500001, 2500001],
        birth_year=[1957, 1980, None, None],
    )
    matched = match_players(entries, REGISTRY, NO_MERGES).sort("start_number")
    assert matched.select("match_method", "fide_id_disagrees_with").rows() == [
        ("provisional", "100001"),
        ("fide_id", None),
        ("fide_id", None),
        ("provisional", "100001"),
    ]
    assert matched["player_id"][0] == "P-SAN_FELIPE_GONZALEZ_JUAN-1957-ITA-F2500001"


def test_unknown_players_whose_names_differ_only_in_letters_outside_a_z_stay_apart():
    # the id dropped every letter outside A-Z: Müller and Möller were one person, and so was
    # every player with a Cyrillic name and no birth date in one tournament
    entries = _entries(
        name=["Müller, Hans", "Möller, Hans", "Иванов, Иван", "Петров, Пётр", "O'Brien, Seán"],
        federation=["GER", "GER", "RUS", "RUS", "IRL"],
    )
    ids = match_players(entries, REGISTRY, NO_MERGES).sort("start_number")["player_id"]
    assert ids.to_list()[:2] == ["P-MULLER_HANS-NA-GER", "P-MOLLER_HANS-NA-GER"]
    assert ids.to_list()[4] == "P-O_BRIEN_SEAN-NA-IRL"
    # a Cyrillic name is spelt out by its bytes: two names, two ids, the same one each time
    assert ids[2] != ids[3] and all(len(ident) > len("P--NA-RUS") for ident in ids[2:4])
    again = match_players(_entries(name=["ИВАНОВ  Иван"], federation=["RUS"]), REGISTRY, NO_MERGES)
    assert again["player_id"][0] == ids[2]


def test_a_compound_surname_written_without_the_comma_agrees_with_its_fide_id():
    # "De Luca Mario" cannot say where the surname ends: it begins with De Luca's surname
    registry = pl.concat(
        [
            REGISTRY,
            pl.DataFrame(
                {
                    "player_id": ["100006"],
                    "name": ["De Luca, Mario"],
                    "birth_date": [date(1985, 1, 1)],
                    "fide_id": [2500006],
                },
                schema=REGISTRY.schema,
            ),
        ]
    )
    entries = _entries(name=["De Luca Mario", "DELUCA, M."], fide_id=[2500006, 2500006])
    matched = match_players(entries, registry, NO_MERGES).sort("start_number")
    assert matched.select("player_id", "match_method").rows() == [
        ("100006", "fide_id"),
        ("100006", "fide_id"),
    ]


def test_no_warning_when_other_evidence_finds_the_player_the_fide_id_names():
    # a married name: the national id finds Bianchi (100003 is Verdi here), whose FIDE id the
    # line carries; the id does not disagree with the player the line is
    entries = _entries(name=["Neri-Verdi, Luca"], national_id=["100003"], fide_id=[2500003])
    matched = match_players(entries, REGISTRY, NO_MERGES)
    assert matched.select("player_id", "match_method", "fide_id_disagrees_with").row(0) == (
        "100003",
        "national_id",
        None,
    )


def test_an_unidentified_player_keeps_the_provisional_id_the_warehouse_holds():
    # ids given before accents were kept: Müller stays P-M_LLER_HANS-…, the id his earlier
    # tournaments have; an id two people shared (Neumann and Neümann here) is kept by neither
    stored = _entries(
        name=["Müller, Hans", "Neumann, Eva", "Neümann, Eva"], federation=["GER"] * 3
    ).with_columns(
        pl.Series(
            "provisional_id",
            ["P-M_LLER_HANS-NA-GER", "P-NEUMANN_EVA-NA-GER", "P-NEUMANN_EVA-NA-GER"],
        )
    )
    aliases = provisional_aliases(stored)
    assert aliases.rows() == [("P-MULLER_HANS-NA-GER", "P-M_LLER_HANS-NA-GER")]
    entries = _entries(name=["MÜLLER Hans", "Möller, Hans"], federation=["GER", "GER"])
    ids = match_players(entries, REGISTRY, NO_MERGES, aliases).sort("start_number")
    assert ids["player_id"].to_list() == ["P-M_LLER_HANS-NA-GER", "P-MOLLER_HANS-NA-GER"]


def test_punctuation_does_not_spell_a_latin_name_out():
    entries = _entries(name=["Rossi (ITA), Mario", "Smith_Jr, A"])
    ids = match_players(entries, REGISTRY, NO_MERGES).sort("start_number")["player_id"]
    assert ids.to_list() == ["P-ROSSI_ITA_MARIO-NA-ITA", "P-SMITH_JR_A-NA-ITA"]


def test_name_without_birth_date_is_not_enough():
    matched = match_players(_entries(name=["Rossi, Mario"]), REGISTRY, NO_MERGES)
    assert matched["match_method"][0] == "provisional"


def test_ambiguous_name_and_birth_matches_nobody():
    entries = _entries(name=["Neri, Paolo"], birth_date=[date(1970, 1, 1)])
    assert match_players(entries, REGISTRY, NO_MERGES)["match_method"][0] == "provisional"


def test_a_name_written_without_accents_or_apostrophes_matches_by_its_letters():
    registry = pl.DataFrame(
        {
            "player_id": ["200001", "200002", "200003", "200004"],
            "name": ["Bàrbieri, Niccolò", "D'Angelo, Ilaria", "Lò, Pia", "Lo, Pia"],
            "birth_date": [
                date(2004, 3, 9),
                date(1988, 11, 30),
                date(1975, 2, 2),
                date(1975, 2, 2),
            ],
            "fide_id": [None, None, None, None],
        },
        schema_overrides={"fide_id": pl.Int64},
    )
    entries = _entries(
        name=["BARBIERI, NICCOLO'", "DANGELO ILARIA", "Barbieri, Niccolo", "Lò, Pia", "LÓ PIA"],
        birth_date=[
            date(2004, 3, 9),
            date(1988, 11, 30),
            date(2004, 3, 10),  # a day apart: someone else
            date(1975, 2, 2),
            date(1975, 2, 2),
        ],
    )
    matched = match_players(entries, registry, NO_MERGES).sort("start_number")
    # the exact name wins over the same letters; two registered players with the same letters
    # and birth date leave a name that is exactly neither of them unmatched
    assert matched.select("player_id", "match_method").rows() == [
        ("200001", "name_birth"),
        ("200002", "name_birth"),
        ("P-BARBIERI_NICCOLO-2004-03-10-ITA", "provisional"),
        ("200003", "name_birth"),
        ("P-LO_PIA-1975-02-02-ITA", "provisional"),
    ]


def test_a_recorded_merge_maps_the_provisional_id():
    entries = _entries(name=["Stranger, Joe"], birth_year=[1999])
    merges = pl.DataFrame({"provisional_id": ["P-STRANGER_JOE-1999-ITA"], "player_id": ["100004"]})
    matched = match_players(entries, REGISTRY, merges)
    assert matched.select("player_id", "match_method").row(0) == ("100004", "merge")


def test_same_unknown_person_gets_the_same_id_in_two_tournaments():
    one = match_players(_entries(name=["Ignoto, Tizio"], birth_year=[1985]), REGISTRY, NO_MERGES)
    two = match_players(_entries(name=["IGNOTO Tizio"], birth_year=[1985]), REGISTRY, NO_MERGES)
    assert one["player_id"][0] == two["player_id"][0]


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(4))), st.permutations(list(range(5))))
def test_matching_does_not_depend_on_row_order(entry_order, registry_order):
    entries = _entries(
        name=["Rossi Mario", "ROSSI, M.", "BIANCHI,  ANNA", "Stranger, Joe"],
        national_id=["100003", None, None, None],
        fide_id=[2500001, 2500001, None, None],
        birth_date=[None, None, date(1990, 5, 6), date(1999, 1, 1)],
    )
    expected = match_players(entries, REGISTRY, NO_MERGES).sort("start_number")
    shuffled = match_players(entries[entry_order], REGISTRY[registry_order], NO_MERGES)
    assert shuffled.sort("start_number").equals(expected)


def test_a_later_registry_identifies_waiting_players_unless_ambiguous():
    waiting = _entries(
        name=["Rossi, Mario", "Stranger, Joe", "Verdi Luca", "Verdi Luca"],
        birth_date=[date(1980, 1, 2), date(1999, 1, 1), None, None],
        # the same provisional id entered twice with FIDE ids of two different players (the
        # second agreeing with Rossi's birth year)
        birth_year=[None, None, None, 1980],
        fide_id=[None, None, 2500003, 2500001],
    ).with_columns(pl.Series("provisional_id", ["P-A", "P-B", "P-C", "P-C"]))
    found = rematch_provisional(waiting.drop("start_number"), REGISTRY)
    # P-A by name and birth date; P-B is still unknown; P-C would be two people: left alone
    assert found.rows() == [("P-A", "100001", "name_birth")]


def test_a_player_found_by_two_kinds_of_evidence_is_placed_once_by_the_strongest():
    # P-R was entered once with his national id, once with his name and birth date only: both
    # name Rossi (an early version kept only ids found by a single kind of evidence, and left
    # him provisional)
    waiting = _entries(
        name=["Rossi, Mario", "ROSSI Mario"],
        birth_date=[None, date(1980, 1, 2)],
        national_id=["100001", None],
    ).with_columns(pl.Series("provisional_id", ["P-R", "P-R"]))
    found = rematch_provisional(waiting.drop("start_number"), REGISTRY)
    assert found.rows() == [("P-R", "100001", "national_id")]


NO_SINGLE_PLAYER = (
    "no single registered player has its national id, its FIDE id (with the surname or birth "
    "year agreeing), or its name and birth date"
)


def test_a_snapshot_says_why_it_could_not_place_a_waiting_player():
    waiting = _entries(
        name=["Stranger, Joe", "Nobody, Known", "Verdi Luca", "Verdi Luca", "Neri, Paolo"],
        birth_date=[date(1999, 1, 1), None, None, None, date(1970, 1, 1)],
        birth_year=[None, None, None, 1980, None],
        fide_id=[None, None, 2500003, 2500001, None],
    ).with_columns(pl.Series("provisional_id", ["P-S", "P-N", "P-C", "P-C", "P-T"]))
    placed = place_provisional(waiting.drop("start_number"), REGISTRY)
    assert placed.select("provisional_id", "player_id", "reason").rows() == [
        ("P-C", None, "its entries name 2 registered players (100001, 100003)"),
        (
            "P-N",
            None,
            "its files give no birth date, national id or FIDE id: only a merge can place it",
        ),
        ("P-S", None, NO_SINGLE_PLAYER),
        # two registered Neri, Paolo born the same day: no single player
        ("P-T", None, NO_SINGLE_PLAYER),
    ]


def _entered(names: list[str], births: list[date | None], years: list[int | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {"name": names, "birth_date": births, "birth_year": years},
        schema={"name": pl.Utf8, "birth_date": pl.Date, "birth_year": pl.Int32},
    )


REGISTERED = pl.DataFrame({"name": ["Martinelli, Valentina"], "birth_date": [date(1987, 1, 10)]})


def test_a_merge_of_two_different_people_names_both_differences():
    alice = _entered(["Martinelli, Alice"], [date(1991, 10, 4)], [None])
    assert merge_disagreements(alice, REGISTERED) == [
        "the name (Martinelli, Alice, registered as Martinelli, Valentina)",
        "the birth (1991-10-04, registered as 1987-01-10)",
    ]


def test_a_merge_agrees_when_one_entry_has_the_letters_or_the_birth():
    spelt = _entered(
        ["MARTINELLI VALENTINA", "Martinelli, V."], [None, date(1987, 1, 10)], [1987, None]
    )
    assert merge_disagreements(spelt, REGISTERED) == []
    # a year only, and no birth at all, cannot contradict the date
    assert merge_disagreements(_entered(["Martinelli, Vale"], [None], [1987]), REGISTERED) == [
        "the name (Martinelli, Vale, registered as Martinelli, Valentina)"
    ]
    assert (
        merge_disagreements(_entered(["Martinelli, Valentina"], [None], [None]), REGISTERED) == []
    )


def test_a_registrys_lookups_are_built_once_per_frame() -> None:
    # an ingest matches every tournament against one registry frame: its name keys (regular
    # expressions over every registered player) are built the first time, then reused
    from transforms.inputs.matching import registry_lookups

    registry = pl.DataFrame(
        {
            "player_id": ["100001", "100002"],
            "name": ["Rossi, Mario", "Bianchi, Anna"],
            "birth_date": [date(1980, 1, 2), date(1990, 3, 4)],
            "fide_id": [2250001, None],
        },
        schema_overrides={"fide_id": pl.Int64},
    )
    first = registry_lookups(registry)
    assert registry_lookups(registry) is first
    assert registry_lookups(registry.clone()) is not first  # another frame: built for it
    assert first.by_name.get_column("player_id_by_name_birth_key").to_list() == [
        "100001",
        "100002",
    ]


def test_lines_remembered_ahead_are_matched_as_alone(monkeypatch) -> None:
    # an ingest matches every line of its inbox at once; each tournament's intake then looks
    # its lines up: the same rows, columns and order as matching them alone, and a tournament
    # with a line not remembered (or another registry) is matched as usual
    from transforms.inputs import matching
    from transforms.inputs.matching import remember_matches

    registry = REGISTRY.clone()
    one = _entries(
        name=["Rossi Mario", "Stranger, Joe", "BIANCHI,  ANNA"],
        fide_id=[2500001, None, None],
        birth_date=[None, date(1999, 1, 1), date(1990, 5, 6)],
    ).with_columns(pl.lit(1.5).alias("points"))
    two = _entries(name=["Neri, Paolo", "Verdi, Luca"], birth_date=[date(1970, 1, 1), None])
    alone = [match_players(entries, registry, NO_MERGES) for entries in (one, two)]
    remember_matches(pl.concat([one, two], how="diagonal"), registry, NO_MERGES)
    computed = matching._matched
    with monkeypatch.context() as patched:  # looked up, not matched again
        patched.setattr(matching, "_matched", None)
        for entries, expected in zip((one, two), alone, strict=True):
            assert match_players(entries, registry, NO_MERGES).equals(expected)
    assert matching._matched is computed
    other = _entries(name=["Rossi, Mario"], birth_date=[date(1980, 1, 2)])
    assert match_players(other, registry, NO_MERGES).equals(
        match_players(other, REGISTRY, NO_MERGES)
    )
    assert match_players(one, REGISTRY, NO_MERGES).equals(alone[0])
