from dataclasses import replace
from datetime import date

import polars as pl

from synthetic.trf_writer import TrfHeader, render_trf
from transforms.elo.intake import ACCEPTED, QUARANTINED, build_intake, validate_parsed
from transforms.elo.rulebook import Rulebook, parse_rulebook
from transforms.inputs.trf import parse_trf
from transforms.lists.eras import default_rulebook_path

HEADER = TrfHeader(
    name="Torneo di prova",
    city="Roma",
    federation="ITA",
    start_date=date(2019, 2, 1),
    end_date=date(2019, 2, 2),
    rounds=1,
)
REGISTRY = pl.DataFrame(
    {
        "player_id": ["100001", "100002"],
        "name": ["Rossi, Mario", "Verdi, Anna"],
        "birth_date": [date(1980, 1, 2), date(1990, 3, 4)],
        "fide_id": [2500001, 2500002],
        "country": ["ITA", "FRA"],
    },
    schema_overrides={"fide_id": pl.Int64},
)
NO_MERGES = pl.DataFrame(schema={"provisional_id": pl.Utf8, "player_id": pl.Utf8})
ROW = {
    "tournament_id": "T-1",
    "file": "t.trf",
    "system": "elo_italia",
    "received_on": date(2019, 2, 10),
    "start_date": None,
    "end_date": None,
    "time_control": None,
    "arbiter_ratings": None,
    "line_no": 2,
}


def _trf_text(
    second_fide_id: int | None,
    header: TrfHeader = HEADER,
    second_name: str = "Verdi, Anna",
    first: tuple[str, int | None, date | None] = ("Rossi, Mario", 2500001, date(1980, 1, 2)),
) -> str:
    first_name, first_fide_id, first_birth = first
    players = pl.DataFrame(
        {
            "start_number": [1, 2],
            "sex": ["m", "w"],
            "title": [None, None],
            "name": [first_name, second_name],
            "rating": [1800, 1700],
            "federation": ["ITA", "ITA"],
            "fide_id": [first_fide_id, second_fide_id],
            "birth_date": [first_birth, date(1990, 3, 4) if first_birth else None],
            "points": [1.0, 0.0],
            "rank": [1, 2],
        }
    )
    games = pl.DataFrame(
        {
            "start_number": [1, 2],
            "round": [1, 1],
            "opponent": [2, 1],
            "color": ["w", "b"],
            "result_code": ["1", "0"],
        }
    )
    return render_trf(header, players, games)


def _intake(
    second_fide_id: int,
    header: TrfHeader = HEADER,
    row: dict[str, object] = ROW,
    rulebook: Rulebook | None = None,
    second_name: str = "Verdi, Anna",
):
    return _intake_of(_trf_text(second_fide_id, header, second_name), row, rulebook)


def _intake_of(
    text: str,
    row: dict[str, object] = ROW,
    rulebook: Rulebook | None = None,
    arbiter_ratings: dict[int, int] | None = None,
):
    parsed = parse_trf(text.encode())
    problems = validate_parsed({"T-1": parsed})["T-1"]
    ratings = arbiter_ratings or {}
    return build_intake(
        row,
        "manifest.csv",
        "0" * 64,
        parsed,
        problems,
        "f" * 64,
        pl.DataFrame(
            {"start_number": list(ratings), "arbiter_rating": list(ratings.values())},
            schema={"start_number": pl.Int32, "arbiter_rating": pl.Int32},
        ),
        REGISTRY,
        NO_MERGES,
        "ITA",
        rulebook=rulebook,
    )


def test_a_clean_tournament_is_accepted_and_matched():
    intake = _intake(2500002)
    assert intake.status == ACCEPTED and intake.errors.height == 0
    assert intake.entries.select("player_id", "match_method").rows() == [
        ("100001", "fide_id"),
        ("100002", "fide_id"),
    ]


def test_two_start_numbers_resolving_to_one_player_quarantine_the_tournament():
    # player 2 carries player 1's FIDE id and surname: the file seats Rossi twice
    intake = _intake(2500001, second_name="Rossi, M.")
    assert intake.status == QUARANTINED
    reasons = intake.errors.get_column("reason").to_list()
    assert any("start numbers 1, 2 are all player 100001" in reason for reason in reasons)


def test_two_unregistered_players_described_alike_are_named_as_such():
    # two Gialli, Marco without birth date or id: not "one person playing twice"
    text = _trf_text(None, second_name="Gialli, Marco", first=("Gialli, Marco", None, None))
    intake = _intake_of(text)
    assert intake.status == QUARANTINED
    assert intake.errors.select("field", "reason").rows() == [
        (
            "player",
            "start numbers 1, 2 are unregistered players the file describes alike (name, "
            "birth, federation, FIDE id): they cannot be told apart; give their birth dates "
            "or ids in the file",
        )
    ]


def test_a_fide_id_of_someone_else_is_not_matched_and_is_reported():
    # Verdi, Anna (1990) carries Rossi's FIDE id: a mistyped id, so she is matched by name and
    # birth date, and the id is reported on her line
    intake = _intake(2500001)
    assert intake.status == ACCEPTED
    assert intake.entries.select("player_id", "match_method").rows() == [
        ("100001", "fide_id"),
        ("100002", "name_birth"),
    ]
    warned = intake.warnings.filter(pl.col("field") == "fide_id")
    assert warned.select("value", "reason").rows() == [
        (
            "2500001",
            "FIDE id 2500001 belongs to registered player 100001 (Rossi, Mario, born 1980), but "
            "this line names Verdi, Anna (born 1990): not matched by the id, which may be "
            "mistyped",
        )
    ]
    seat_two = next(
        number
        for number, line in enumerate(_trf_text(2500001).splitlines(), start=1)
        if line.startswith("001    2 ")
    )
    assert warned["line_no"].to_list() == [seat_two]


def test_a_rapid_tournament_has_the_rounds_its_file_holds_not_those_its_header_declares():
    # XXR 9, one round written: valid for Elo Rapid only with 6 rounds played, so the header's
    # 9 must not carry it past the minimum (the 2 players are too few as well)
    rapid = parse_rulebook(default_rulebook_path("elo_rapid").read_bytes())
    intake = _intake(2500002, replace(HEADER, rounds=9), {**ROW, "system": "elo_rapid"}, rapid)
    assert intake.status == QUARANTINED
    assert intake.header["rounds"] == 1
    reasons = dict(intake.problems.select("field", "reason").rows())
    assert reasons["rounds"] == "not valid for elo_rapid: 1 rounds, at least 6 required"
    assert "declares 9 rounds" in reasons["number of rounds"]


def test_a_file_date_after_the_receipt_date_quarantines_the_tournament():
    # received 2019-02-10, the file says it ended 2029-02-02: a typo that would otherwise
    # keep its players active for ten more years
    intake = _intake(2500002, replace(HEADER, end_date=date(2029, 2, 2)))
    assert intake.status == QUARANTINED
    errors = intake.problems.filter(pl.col("severity") == "error")
    assert errors.select("source", "field", "value", "reason").rows() == [
        (
            "trf",
            "end_date",
            "2029-02-02",
            "end_date 2029-02-02 in the file is after the receipt date 2019-02-10; give the "
            "right date in the manifest",
        )
    ]
    # the manifest's date wins over the file's, and then the file's is not held against it
    corrected = _intake(
        2500002, replace(HEADER, end_date=date(2029, 2, 2)), {**ROW, "end_date": date(2019, 2, 2)}
    )
    assert corrected.status == ACCEPTED


def test_a_tournament_received_the_day_it_ended_is_accepted():
    received_at_once = {**ROW, "received_on": HEADER.end_date}
    assert _intake(2500002, row=received_at_once).status == ACCEPTED


def test_the_size_of_a_rapid_tournament_is_judged_by_the_era_it_was_played_in():
    # an era from 2019-02-05 asks for 3 players only: the tournament ended on 2019-02-02, under
    # the base era's 14, though received on 2019-02-10 (its 2 players fail either way; the
    # reason names the minimum of the era it was judged by)
    text = default_rulebook_path("elo_rapid").read_text(encoding="utf-8")
    later = (
        '\n[[eras]]\neffective_from = 2019-02-05\nnote = "smaller tournaments"\n'
        "  [eras.validity]\n  min_players = 3\n"
    )
    rapid = parse_rulebook((text + later).encode(), "elo_rapid.toml")
    intake = _intake(2500002, replace(HEADER, rounds=6), {**ROW, "system": "elo_rapid"}, rapid)
    reasons = dict(intake.problems.select("field", "reason").rows())
    assert reasons["players"] == "not valid for elo_rapid: 2 players, at least 14 required"


def test_a_tournament_without_dates_is_quarantined_with_the_reason():
    # no 042/052 in the file, none in the manifest: the receipt date would stand for the date
    # played (activity, the order of a player's tournaments), a guess
    undated = "".join(
        line
        for line in _trf_text(2500002).splitlines(keepends=True)
        if not line.startswith(("042", "052"))
    )
    intake = _intake_of(undated)
    assert intake.status == QUARANTINED
    assert intake.errors.select("field", "reason").rows() == [
        (
            "end_date",
            "neither the file (lines 042 and 052) nor the manifest gives the dates of the "
            "tournament: the date played decides its players' activity and the order of their "
            "tournaments, and is never guessed; give start_date and end_date in the manifest",
        )
    ]
    # the manifest's dates settle it
    dated = _intake_of(undated, {**ROW, "start_date": date(2019, 2, 1), "end_date": None})
    assert dated.status == ACCEPTED


def test_an_elo_italia_arbiter_rating_is_for_foreign_players_only():
    # RULES.md §1.2: the chief arbiter rates foreign players without a FIDE rating. Rossi is
    # registered of ITA, Verdi registered of FRA; Bianchi unregistered, ITA in the file
    italia = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
    text = _trf_text(2500002)
    foreign = _intake_of(text, rulebook=italia, arbiter_ratings={2: 1650})
    assert foreign.status == ACCEPTED
    assert foreign.entries.filter(pl.col("start_number") == 2)["arbiter_rating"].to_list() == [1650]
    national = _intake_of(text, rulebook=italia, arbiter_ratings={1: 1900, 2: 1650})
    assert national.status == QUARANTINED
    assert national.errors.select("source", "line_no", "field", "value", "reason").rows() == [
        (
            "manifest",
            2,
            "arbiter_ratings",
            "1=1900",
            "arbiter_ratings gives start number 1 (Rossi, Mario, registered player 100001 of "
            "ITA) a rating: the chief arbiter rates foreign players without a FIDE rating only "
            "(correct the manifest)",
        )
    ]
    unregistered = _trf_text(None, first=("Bianchi, Luca", None, date(1985, 5, 5)))
    intake = _intake_of(unregistered, rulebook=italia, arbiter_ratings={1: 1500})
    assert intake.errors.get_column("reason").to_list() == [
        "arbiter_ratings gives start number 1 (Bianchi, Luca, of ITA in the file) a rating: "
        "the chief arbiter rates foreign players without a FIDE rating only (correct the "
        "manifest)"
    ]


def test_an_elo_rapid_arbiter_rating_is_left_out_with_a_warning_naming_the_player():
    # RULES.md §2: the Elo Rapid arbiter gives no free value (rulebook ratings.arbiter_entry =
    # false): a rating delivered is no entry source; the warning names the player (start
    # number, name, tournament) and the tournament is rated. Start number 7 is not in the file
    rapid = parse_rulebook(default_rulebook_path("elo_rapid").read_bytes())
    row = {**ROW, "system": "elo_rapid", "time_control": "15+10"}
    intake = _intake_of(
        _trf_text(2500002), row, rulebook=rapid, arbiter_ratings={1: 1900, 2: 0, 7: 1500}
    )
    assert intake.entries.get_column("arbiter_rating").to_list() == [None, None]
    arbiter = intake.problems.filter(pl.col("field") == "arbiter_ratings")
    assert arbiter.select("source", "line_no", "value", "severity", "reason").rows() == [
        (
            "manifest",
            2,
            f"{number}={rating}",
            "warning",
            f"arbiter_ratings gives start number {number} {who} of tournament T-1 the rating "
            f"{rating}: Elo Rapid takes no rating from the arbiter, so it is left out (a "
            "newcomer enters by FIDE rapid, FIDE standard, Elo Italia, the entry rating)",
        )
        for number, who, rating in [
            (1, "(Rossi, Mario)", 1900),
            (2, "(Verdi, Anna)", 0),  # not judged against a range: it is left out anyway
            (7, "(not in the file)", 1500),
        ]
    ]
    # the 2 players and 1 round fail Elo Rapid's size rules; nothing else is an error
    assert set(intake.errors.get_column("field").to_list()) == {"players", "rounds"}


def test_an_arbiter_rating_outside_the_rulebook_range_is_rejected():
    # RULES.md §1.2 [DEFAULT]: an Elo Italia arbiter rating lies from 1000 to 2800 (rulebook
    # ratings.arbiter_lowest / arbiter_highest); Verdi is registered of FRA, so only the range
    # is at fault. 0 passed the manifest's check (a rating from 0 to 3500) before
    italia = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
    text = _trf_text(2500002)
    for rating in (0, 999, 2801):
        intake = _intake_of(text, rulebook=italia, arbiter_ratings={2: rating})
        assert intake.status == QUARANTINED
        assert intake.errors.select("source", "line_no", "field", "value", "reason").rows() == [
            (
                "manifest",
                2,
                "arbiter_ratings",
                f"2={rating}",
                f"arbiter_ratings gives start number 2 (Verdi, Anna) {rating}: a rating the "
                "chief arbiter gives in Elo Italia lies from 1000 to 2800 (correct the manifest)",
            )
        ]
    for rating in (1000, 2800):  # both ends are in the range
        assert _intake_of(text, rulebook=italia, arbiter_ratings={2: rating}).status == ACCEPTED


def _rulebook_with(system: str, old: str, new: str) -> Rulebook:
    text = default_rulebook_path(system).read_text(encoding="utf-8")
    assert old in text
    return parse_rulebook(text.replace(old, new).encode(), f"{system}.toml")


def test_the_national_federation_is_the_rulebooks_country_unless_overridden():
    # TRF-26 national lines (record id ITA) give the players' national ids when the rulebook's
    # federation.country is ITA; under a rulebook of another country they are not national,
    # and an explicit national_federation overrides the rulebook
    players = pl.DataFrame(
        {
            "start_number": [1, 2],
            "sex": ["m", "w"],
            "title": [None, None],
            "name": ["Rossi, Mario", "Verdi, Anna"],
            "rating": [1800, 1700],
            "federation": ["ITA", "ITA"],
            "fide_id": [2500001, 2500002],
            "birth_date": [date(1980, 1, 2), date(1990, 3, 4)],
            "points": [1.0, 0.0],
            "rank": [1, 2],
            "national_id": ["100001", "100002"],
            "national_rating": [1810, 1690],
            "classification": ["1N", "2N"],
        }
    )
    games = pl.DataFrame(
        {
            "start_number": [1, 2],
            "round": [1, 1],
            "opponent": [2, 1],
            "color": ["w", "b"],
            "result_code": ["1", "0"],
        }
    )
    text = render_trf(replace(HEADER, time_control="90+30"), players, games, national=True)
    italia = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
    sammarinese = _rulebook_with("elo_italia", 'country = "ITA"', 'country = "SMR"')

    def national_ids(rulebook: Rulebook, override: str | None = None) -> list[str | None]:
        parsed = parse_trf(text.encode())
        intake = build_intake(
            ROW,
            "manifest.csv",
            "0" * 64,
            parsed,
            validate_parsed({"T-1": parsed})["T-1"],
            "f" * 64,
            pl.DataFrame(schema={"start_number": pl.Int32, "arbiter_rating": pl.Int32}),
            REGISTRY,
            NO_MERGES,
            override,
            rulebook=rulebook,
        )
        return intake.entries.get_column("national_id").to_list()

    assert national_ids(italia) == ["100001", "100002"]
    assert national_ids(sammarinese) == [None, None]
    assert national_ids(sammarinese, "ITA") == ["100001", "100002"]


# ----------------------------------------------------------------- time controls (RULES §1.0)

ITALIA = parse_rulebook(default_rulebook_path("elo_italia").read_bytes())
RAPID = parse_rulebook(default_rulebook_path("elo_rapid").read_bytes())


def _timed(time_control: str, row: dict[str, object] = ROW, rulebook: Rulebook = ITALIA):
    return _intake_of(_trf_text(2500002, replace(HEADER, time_control=time_control)), row, rulebook)


def test_a_standard_tournament_played_at_rapid_time_is_quarantined_with_the_reason():
    # 25' + 60 x 10" = 35 minutes per player; Elo Italia rates at least 120
    intake = _timed("25'+10\"")
    assert intake.status == QUARANTINED
    assert intake.errors.select("source", "line_no", "field", "value", "reason").rows() == [
        (
            "trf",
            11,  # the 122 line of the rendered file
            "time control",
            "25'+10\"",
            "time control 25'+10\" is 35 minutes per player: Elo Italia rates games of at "
            "least 120 minutes per player",
        )
    ]
    # 90 + 30 = 120 is in; 89 + 30 = 119 is not
    assert _timed("90'+30\"").status == ACCEPTED
    assert _timed("89'+30\"").status == QUARANTINED


def test_a_rapid_tournament_outside_15_to_60_minutes_is_quarantined():
    row = {**ROW, "system": "elo_rapid"}
    reasons = {
        written: _timed(written, row, RAPID)
        .errors.filter(pl.col("field") == "time control")
        .get_column("reason")
        .to_list()
        for written in ("15+10", "60'", "50+11", "10+4", "90+30")
    }
    assert reasons["15+10"] == reasons["60'"] == []  # 25 and 60 minutes: in (both ends count)
    assert reasons["50+11"] == [  # 50 + 11 = 61
        "time control 50+11 is 61 minutes per player: Elo Rapid rates games of 15 to 60 "
        "minutes per player"
    ]
    assert reasons["10+4"] == [  # 10 + 4 = 14
        "time control 10+4 is 14 minutes per player: Elo Rapid rates games of 15 to 60 "
        "minutes per player"
    ]
    assert len(reasons["90+30"]) == 1


def test_the_manifest_time_control_wins_over_the_file_with_a_warning():
    # the file says 25'+10" (35 minutes), the manifest 90+30 (120): the manifest's is used,
    # as the manifest's dates are, and the difference is reported
    intake = _timed("25'+10\"", {**ROW, "time_control": "90+30"})
    assert intake.status == ACCEPTED
    assert intake.warnings.filter(pl.col("field") == "time control").select(
        "source", "value", "reason"
    ).rows() == [
        (
            "trf",
            "25'+10\"",
            "time control 25'+10\" (line 122 of the file, 35 minutes per player) differs from "
            "90+30 (the manifest's time_control, 120 minutes per player); the manifest's "
            "time_control is used",
        )
    ]
    # and a manifest time control too short quarantines a file whose own is long enough
    short = _timed("90+30", {**ROW, "time_control": "25+10"})
    assert short.status == QUARANTINED
    assert short.errors.select("source", "line_no", "field", "reason").rows() == [
        (
            "manifest",
            2,
            "time_control",
            "time control 25+10 is 35 minutes per player: Elo Italia rates games of at least "
            "120 minutes per player",
        )
    ]


def test_the_trf26_line_222_wins_over_line_122():
    # 222 says 40/6000+30:900+30 (100 + 15 + 30 = 145 minutes); the free text of 122 is read
    # only when 222 cannot be
    text = _trf_text(2500002, replace(HEADER, time_control="25'+10\""))
    encoded = text.replace("XXR 1\n", "XXR 1\n222 40/6000+30:900+30\n")
    intake = _intake_of(encoded, rulebook=ITALIA)
    assert intake.status == ACCEPTED
    ((field, reason),) = (
        intake.warnings.filter(pl.col("field").str.contains("time control"))
        .select("field", "reason")
        .rows()
    )
    assert field == "time control" and reason.endswith("line 222 of the file is used")
    unreadable = text.replace("XXR 1\n", "XXR 1\n222 90 minutes\n")
    quarantined = _intake_of(unreadable, rulebook=ITALIA)
    assert quarantined.warnings.filter(pl.col("field") == "encoded time control").select(
        "line_no", "reason"
    ).rows() == [
        (
            13,
            "time control 90 minutes (line 222 of the file) cannot be read; line 122 of the "
            "file gives 25'+10\", which is used",
        )
    ]
    assert quarantined.status == QUARANTINED  # by the 122 line's 35 minutes


def test_a_time_control_that_cannot_be_read_or_is_not_given_is_rated_with_a_warning():
    unreadable = _timed("moves/time, increment")  # the template of the TRF spec
    assert unreadable.status == ACCEPTED
    assert unreadable.warnings.filter(pl.col("field") == "time control").select(
        "line_no", "value", "reason"
    ).rows() == [
        (
            11,
            "moves/time, increment",
            "time control moves/time, increment (line 122 of the file) cannot be read: the "
            "tournament is rated without checking it against what Elo Italia rates, games of at "
            "least 120 minutes per player; write it as 90'+30\" or 40/90+30 (minutes, then "
            "seconds per move), here or in the manifest's time_control",
        )
    ]
    absent = _timed("")
    assert absent.status == ACCEPTED
    assert absent.warnings.filter(pl.col("field") == "time_control").select(
        "source", "line_no", "reason"
    ).rows() == [
        (
            "trf",
            None,
            "no time control is given (the manifest's time_control, lines 222 and 122 of the "
            "file): the tournament is rated without checking it against what Elo Italia rates, "
            "games of at least 120 minutes per player; give it in the manifest's time_control",
        )
    ]


def test_the_time_control_range_is_the_one_in_force_when_the_tournament_was_played():
    # an era from 2026-02-05 asks Elo Italia games of 150 minutes: a tournament that ended on
    # 2026-02-02 (received on 2026-02-10) is judged by the era before, where 90+30 (120
    # minutes) is in; one that ended on 2026-02-06 by the new one
    later = (
        '\n[[eras]]\neffective_from = 2026-02-05\nnote = "longer games"\n'
        "  [eras.time_control]\n  min_minutes = 150\n"
    )
    text = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
    longer = parse_rulebook((text + later).encode(), "elo_italia.toml")
    header = replace(
        HEADER, start_date=date(2026, 2, 1), end_date=date(2026, 2, 2), time_control="90+30"
    )
    row = {**ROW, "received_on": date(2026, 2, 10)}
    assert _intake_of(_trf_text(2500002, header), row, longer).status == ACCEPTED
    ended_later = {**row, "end_date": date(2026, 2, 6)}
    intake = _intake_of(_trf_text(2500002, header), ended_later, longer)
    assert intake.errors.get_column("reason").to_list() == [
        "time control 90+30 is 120 minutes per player: Elo Italia rates games of at least 150 "
        "minutes per player"
    ]


def test_a_file_whose_dates_cannot_be_read_is_not_said_to_give_none():
    # its 042 and 052 lines hold dates no reading takes: the reason quotes them, it does not
    # say the file gives no dates
    garbled = "".join(
        (line[:4] + "someday\n") if line.startswith(("042", "052")) else line
        for line in _trf_text(2500002).splitlines(keepends=True)
    )
    intake = _intake_of(garbled)
    assert intake.status == QUARANTINED
    ((line_no, value, reason),) = intake.errors.select("line_no", "value", "reason").rows()
    assert value == "someday" and line_no is not None
    assert reason.startswith("the file gives the dates of the tournament but none can be read (")
    assert "correct the file or give start_date and end_date in the manifest" in reason


def test_a_rating_in_the_file_without_a_fide_id_of_an_unknown_player_is_a_warning():
    # two players the registry does not know, a rating each in the file and no FIDE id (a team
    # event's file): the file's rating is used only with its FIDE id, and the officer is told
    # once for the file, not left to find two newcomers at the list's entry rating
    text = _trf_text(None, second_name="Bianchi, Luca", first=("Neri, Ugo", None, None))
    intake = _intake_of(text)
    assert intake.status == ACCEPTED
    warned = intake.warnings.filter(pl.col("field") == "rating")
    assert warned.select("value", "reason").rows() == [
        (
            "1800",
            "2 players not in the registry have a rating in the file but no FIDE id (start "
            "numbers 1, 2): a file's rating is used only with its FIDE id, so they enter as "
            "newcomers by the list's rules",
        )
    ]
    # a registered player's rating in the file is not read either, and needs no word
    assert _intake(2500002).warnings.filter(pl.col("field") == "rating").height == 0


def test_a_tournament_received_long_after_it_ended_is_a_warning_on_its_manifest_row():
    # played in February 2018, received in February 2019: rated as received, with a warning
    # (a wrong file or a wrong receipt date, more often than a late arbiter)
    late = {**ROW, "received_on": date(2019, 2, 10)}
    header = replace(HEADER, start_date=date(2018, 2, 1), end_date=date(2018, 2, 2))
    intake = _intake(2500002, header=header, row=late)
    assert intake.status == ACCEPTED
    warned = intake.warnings.filter(pl.col("field") == "received_on")
    assert warned.select("line_no", "value", "reason").rows() == [
        (
            2,
            "2019-02-10",
            "received on 2019-02-10, 373 days after the tournament ended (2018-02-02): is it "
            "the right file and the right receipt date? It is rated as received, in the list "
            "whose window holds that date",
        )
    ]
    # within a year: nothing to say
    assert _intake(2500002).warnings.filter(pl.col("field") == "received_on").height == 0
