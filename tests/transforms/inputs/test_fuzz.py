"""The input readers fuzzed briefly: every mutated file ends in frames or in problem rows,
never in an exception escaping the reader (``make fuzz`` runs the same mutations for long:
bench/fuzz.py; the mutations and the readers are in fuzz_strategies.py).

The seeds are the real TRF files of shared/data/trf (left out when absent, as in a fresh clone
without them) and a small demo federation generated once for the module. Hypothesis runs
derandomized and without its example database, so a run in CI is the run on a laptop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.transforms.inputs.fuzz_strategies import (
    DRAUGHTS_GAMES,
    DRAUGHTS_TOURNAMENTS,
    FID_PLAYERS,
    MANIFEST,
    MEMBERSHIPS,
    PUBLISHED_LIST,
    READERS,
    REGISTRY_PLAYERS,
    TRF,
    FuzzCase,
    FuzzContext,
    build_context,
    fuzz_cases,
    outcome,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
TRF_DIR = REPO_ROOT.parent / "shared" / "data" / "trf"

# cases per reader: a TRF case takes some 80 ms (parse, validate, match), a CSV one 10 to 20;
# the whole module stays well under half a minute on two cores
EXAMPLES = {
    TRF: 80,
    MANIFEST: 80,
    REGISTRY_PLAYERS: 80,
    MEMBERSHIPS: 80,
    PUBLISHED_LIST: 80,
    DRAUGHTS_TOURNAMENTS: 80,
    DRAUGHTS_GAMES: 80,
    FID_PLAYERS: 80,
}

# the smallest files the long run found crashing a CSV reader, before their fixes: a carriage
# return ending no line (the csv module's error escaped the reader), a column named twice in
# two cases or named line_no (Polars' DuplicateError escaped it), a column named "*" or with
# a pattern that does not compile (pl.col read the names: Polars' errors escaped it)
FOUND_CRASHES: list[tuple[str, bytes]] = [
    (REGISTRY_PLAYERS, b"\r1"),
    (MEMBERSHIPS, b"0\n\r,0"),
    (FID_PLAYERS, b',\n\r,"'),
    (MANIFEST, b"tournament_id,file,system,received_on\n\r,,,,\n"),
    (MANIFEST, b"tournament_id,file ,file,system,received_on"),
    (MEMBERSHIPS, b"plaYer_id,player_id"),
    (MEMBERSHIPS, b"player_id,year,line_no\n100001,2020,1\n"),
    (DRAUGHTS_GAMES, b"\ra"),
    (MEMBERSHIPS, b"*"),
    (
        REGISTRY_PLAYERS,
        b"player_id,name,sex,country,category,^[$\n1,Rossi,M,ITA,NC,x\n1,Rossi,M,ITA,NC,x\n",
    ),
    # a header count beyond 32 bits
    (TRF, b"06213752616978"),
]


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> FuzzContext:
    return build_context(tmp_path_factory.mktemp("fuzz"), TRF_DIR if TRF_DIR.is_dir() else None)


def _ends_in_frames_or_problems(case: FuzzCase, context: FuzzContext) -> str:
    """The case's outcome; an exception escaping the reader (a Polars panic is no Exception)
    fails the test, with the seed and the mutations that led to it."""
    try:
        return outcome(case, context)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:
        raise AssertionError(
            f"{case.reader} crashed on {case.seed} mutated by {list(case.steps)}: {error!r}"
        ) from error


@pytest.mark.parametrize("reader", READERS)
def test_every_mutated_file_ends_in_frames_or_problems(reader: str, context: FuzzContext) -> None:
    @settings(
        max_examples=EXAMPLES[reader],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(fuzz_cases(reader, context.seeds[reader]))
    def check(case: FuzzCase) -> None:
        assert _ends_in_frames_or_problems(case, context) in ("frames", "problems")

    check()


@pytest.mark.parametrize(("reader", "content"), FOUND_CRASHES)
def test_the_files_that_crashed_a_reader_end_in_frames_or_problems(
    reader: str, content: bytes, context: FuzzContext
) -> None:
    seed = context.seeds[reader][0].name
    case = FuzzCase(reader, seed, ("found by bench/fuzz.py",), content)
    assert _ends_in_frames_or_problems(case, context) in ("frames", "problems")


def test_every_clean_seed_is_read_into_frames(context: FuzzContext) -> None:
    # the mutations, not the seeds, make the problems (the demo's deliberate faults aside: a
    # corrupted or late tournament, a manifest row the pipeline must reject)
    clean = {
        reader: [
            seed.name
            for seed in context.seeds[reader]
            if outcome(FuzzCase(reader, seed.name, (), seed.content), context) == "frames"
        ]
        for reader in READERS
    }
    for reader in READERS:
        if reader not in (TRF, MANIFEST):
            assert len(clean[reader]) == len(context.seeds[reader]), reader
    assert clean[TRF] and clean[MANIFEST]
