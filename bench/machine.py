"""What the machine did while a benchmark measured: the CPU the process used, and the share of
the machine's CPU time its host took for others ("steal", Linux's /proc/stat).

This machine's speed moves by a factor of two within minutes; a run's figures mean more beside
how much of the machine the run actually had.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROC_STAT = Path("/proc/stat")
# fields of the "cpu" line of /proc/stat, in clock ticks: user nice system idle iowait irq
# softirq steal (guest time is already counted in user)
STEAL_FIELD = 7
COUNTED_FIELDS = 8


@dataclass(frozen=True)
class CpuSample:
    process_seconds: float
    ticks: tuple[int, ...] | None  # the machine's cpu line, None where there is no /proc/stat


def sample_cpu(stat: Path = PROC_STAT) -> CpuSample:
    return CpuSample(time.process_time(), _machine_ticks(stat))


class CpuMeter:
    """CPU figures summed over several measured stretches (the engine's 91 periods, say)."""

    def __init__(self) -> None:
        self.process_seconds = 0.0
        self.ticks: list[int] | None = [0] * COUNTED_FIELDS

    def add(self, before: CpuSample, after: CpuSample) -> None:
        self.process_seconds += after.process_seconds - before.process_seconds
        if self.ticks is None or before.ticks is None or after.ticks is None:
            self.ticks = None
            return
        for field, (then, now) in enumerate(zip(before.ticks, after.ticks, strict=True)):
            self.ticks[field] += now - then

    def figures(self, prefix: str) -> dict[str, float | None]:
        steal: float | None = None
        if self.ticks is not None:
            total = sum(self.ticks)
            steal = self.ticks[STEAL_FIELD] / total if total else 0.0
        return {
            f"{prefix}_process_cpu_seconds": self.process_seconds,
            f"{prefix}_steal_share": steal,
        }


class Stopwatch:
    """Wall seconds and CPU figures of one phase, over as many measured stretches as it has."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = CpuMeter()

    @contextmanager
    def running(self) -> Iterator[None]:
        before = sample_cpu()
        began = time.perf_counter()
        yield
        self.seconds += time.perf_counter() - began
        self.cpu.add(before, sample_cpu())


def _machine_ticks(stat: Path) -> tuple[int, ...] | None:
    try:
        first = stat.read_text(encoding="ascii").splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if first[0] != "cpu" or len(first) <= COUNTED_FIELDS:
        return None
    return tuple(int(value) for value in first[1 : COUNTED_FIELDS + 1])
