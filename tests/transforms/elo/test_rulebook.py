import re
from datetime import date

import pytest

from transforms.elo.rulebook import parse_rulebook
from transforms.lists.eras import RulebookError, default_rulebook_path

TEXT = default_rulebook_path("elo_italia").read_text(encoding="utf-8")
RULEBOOK = parse_rulebook(TEXT.encode(), "elo_italia.toml")


def test_eras_inherit_what_they_do_not_change():
    base, cap350, cap400 = (
        RULEBOOK.era_at(date(y, m, 1)) for y, m in ((2005, 1), (2006, 4), (2009, 7))
    )
    assert (base.difference_cap, cap350.difference_cap, cap400.difference_cap) == (0, 350, 400)
    assert cap400.k == base.k and base.k.rules[1].k == 30
    assert (base.fide_minimum, cap400.fide_minimum) == (1801, 1200)
    assert RULEBOOK.era_at(date(2021, 1, 1)).k.everyone_zero
    assert not RULEBOOK.era_at(date(2020, 10, 1)).k.everyone_zero
    assert RULEBOOK.era_at(date(2024, 3, 1)).fide_minimum == 1400
    assert not RULEBOOK.era_at(date(1998, 5, 31)).groups_enabled
    assert RULEBOOK.era_at(date(1998, 6, 1)).groups_enabled


def test_the_content_hash_changes_with_the_file():
    assert len(RULEBOOK.content_hash) == 64
    edited = parse_rulebook((TEXT + "\n# a comment\n").encode())
    assert edited.content_hash != RULEBOOK.content_hash


def test_no_era_before_the_first():
    with pytest.raises(RulebookError, match="no era in force on 1980-01-01"):
        RULEBOOK.era_at(date(1980, 1, 1))


@pytest.mark.parametrize(
    ("find", "replace", "message"),
    [
        (
            "{ games_below = 30, k = 30 }",
            '{ games_below = 30, k = "thirty" }',
            "era 1 (1990-01-01): k.schedule[1] needs k, a whole number from 0 to 100",
        ),
        ("      { k = 15 },\n", "", "k.schedule must end with a line without condition"),
        (
            "{ rating_at_least = 2400, k = 10 }",
            "{ rating_at_least = 2400, games_below = 5, k = 10 }",
            "k.schedule[2] takes k and at most one of",
        ),
        ("{ registry = true }", "{ registry = true, k = 20 }", "is written { registry = true }"),
        ("{ registry = true }", "{ k = 20 }", "has a line without condition before its last"),
        ('method = "table"', 'method = "elo"', "expected.method must be one of"),
        (
            'by = ["end_date", "start_date", "tournament_id"]',
            'by = ["tournament_id", "end_date"]',
            "order.by must list distinct columns",
        ),
        ("arbiter_lowest = 1000", "arbiter_lowest = 3000", "arbiter_highest is below"),
        ("max_minutes = 0", "max_minutes = 60", "time_control.max_minutes is below"),
        ('country = "ITA"', 'country = ""', "federation.country must be non-empty text"),
        (
            '"NC" = 1440 }\n  theoretical',
            '"XX" = 1440 }\n  theoretical',
            "names categories not in categories.order: ['XX']",
        ),
        ('mode = "half_away_from_zero"', 'mode = "bankers"', "rounding.mode must be one of"),
        ("[ 11, 0.52]", "[ 11, 0.49]", "bands must start at 0, with rising"),
        ("[  4, 0.51]", "[  4, 0.515]", "must be a score between 0 and 1, in hundredths"),
        (
            'cutoffs = ["12-15", "03-15", "06-15", "09-15"]',
            'cutoffs = ["12-15", "03-15"]',
            "needs one cut-off per list date",
        ),
        (
            "effective_from = 2009-07-01",
            "effective_from = 2001-07-01",
            "distinct effective_from dates, in order",
        ),
        ("difference_cap = 400", "difference_cap = -1", "must be between 0 and 3000"),
        # a misspelt key in a later era would be ignored while the analyst believes it in force
        (
            "difference_cap = 400",
            "diference_cap = 400",
            "era 5 (2009-07-01): expected.diference_cap: not a rule of this rulebook",
        ),
        (
            "[eras.groups]\n",
            "[eras.groups]\n  maximum = 8\n",
            "era 1 (1990-01-01): groups.maximum: not",
        ),
    ],
)
def test_an_invalid_rulebook_is_refused_with_a_precise_message(find, replace, message):
    assert find in TEXT
    with pytest.raises(RulebookError, match=re.escape(message)):
        parse_rulebook(TEXT.replace(find, replace, 1).encode(), "elo_italia.toml")


def test_unreadable_toml_is_refused():
    with pytest.raises(RulebookError, match="not a readable TOML file"):
        parse_rulebook(b"system = [", "broken.toml")


def test_a_rulebook_with_other_size_rules_says_where() -> None:
    from transforms.elo.rulebook import ingest_rules_difference

    text = default_rulebook_path("elo_rapid").read_text(encoding="utf-8")
    shipped = parse_rulebook(text.encode(), "elo_rapid.toml")
    assert ingest_rules_difference(shipped, shipped) is None
    # K 40 for newcomers changes no size rule
    other_k = parse_rulebook(
        text.replace("{ games_below = 30, k = 30 }", "{ games_below = 30, k = 40 }").encode(),
        "k.toml",
    )
    assert ingest_rules_difference(other_k, shipped) is None
    smaller = parse_rulebook(
        text.replace("min_players = 14", "min_players = 10").encode(), "small.toml"
    )
    difference = ingest_rules_difference(smaller, shipped)
    assert difference is not None
    assert "asks 10 players and 6 rounds, the ingest's rulebook 14 and 6" in difference
    # the time control and the arbiter's ratings are ingest rules too (issue 30)
    slower = parse_rulebook(text.replace("max_minutes = 60", "max_minutes = 90").encode(), "t")
    difference = ingest_rules_difference(slower, shipped)
    assert difference is not None
    assert "it rates 15 to 90 minutes per player, the ingest's rulebook 15 to 60" in difference
    arbiter = parse_rulebook(
        text.replace("arbiter_entry = false", "arbiter_entry = true").encode(), "a"
    )
    assert "arbiter ratings" in (ingest_rules_difference(arbiter, shipped) or "")


def test_a_rulebook_starting_later_with_the_same_size_rules_differs_nowhere() -> None:
    from transforms.elo.rulebook import ingest_rules_difference

    text = default_rulebook_path("elo_rapid").read_text(encoding="utf-8")
    shipped = parse_rulebook(text.encode(), "elo_rapid.toml")
    first = shipped.eras[0].effective_from.isoformat()
    later = parse_rulebook(
        text.replace(f"effective_from = {first}", "effective_from = 1998-01-01", 1).encode(),
        "later.toml",
    )
    assert later.eras[0].effective_from.isoformat() == "1998-01-01"
    assert ingest_rules_difference(later, shipped) is None


def test_an_era_changing_the_calendar_is_refused_plainly():
    # every list date and receipt window is read from one calendar: a replay across the change
    # failed at its first list date with "is not a list date"
    half_yearly = TEXT.replace(
        "effective_from = 2021-01-01\n",
        'effective_from = 2021-01-01\ncalendar.list_dates = ["01-01", "07-01"]\n'
        'calendar.cutoffs = ["12-15", "06-15"]\n',
        1,
    )
    assert half_yearly != TEXT
    with pytest.raises(RulebookError, match="the era from 2021-01-01 changes the calendar"):
        parse_rulebook(half_yearly.encode())
