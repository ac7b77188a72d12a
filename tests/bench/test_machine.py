"""The benchmark's CPU figures: stolen share and process CPU, from /proc/stat-like samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.machine import CpuMeter, CpuSample, Stopwatch, sample_cpu


def cpu_figures(before: CpuSample, after: CpuSample, prefix: str) -> dict[str, float | None]:
    meter = CpuMeter()
    meter.add(before, after)
    return meter.figures(prefix)


def test_steal_share_is_stolen_ticks_over_all_ticks_between_samples() -> None:
    #              user nice system idle iowait irq softirq steal
    before = CpuSample(10.0, (100, 0, 50, 400, 10, 0, 0, 40))
    after = CpuSample(12.5, (160, 0, 70, 410, 10, 0, 0, 50))
    # 60 + 20 + 10 + 10 = 100 ticks, 10 of them stolen
    assert cpu_figures(before, after, "run") == {
        "run_process_cpu_seconds": pytest.approx(2.5),
        "run_steal_share": pytest.approx(0.1),
    }


def test_a_meter_sums_its_stretches_before_dividing() -> None:
    meter = CpuMeter()
    meter.add(CpuSample(0.0, (0,) * 8), CpuSample(1.0, (10, 0, 0, 0, 0, 0, 0, 0)))
    meter.add(CpuSample(5.0, (50,) * 8), CpuSample(5.5, (50, 50, 50, 50, 50, 50, 50, 80)))
    # 10 ticks without steal, then 30 ticks all stolen: 30 of 40
    assert meter.figures("engine") == {
        "engine_process_cpu_seconds": pytest.approx(1.5),
        "engine_steal_share": pytest.approx(0.75),
    }


def test_no_proc_stat_gives_no_steal_share(tmp_path: Path) -> None:
    before = sample_cpu(tmp_path / "missing")
    after = sample_cpu(tmp_path / "missing")
    figures = cpu_figures(before, after, "run")
    assert before.ticks is None
    assert figures["run_steal_share"] is None
    assert figures["run_process_cpu_seconds"] >= 0


def test_reads_the_aggregate_cpu_line(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n", encoding="ascii")
    assert sample_cpu(stat).ticks == (1, 2, 3, 4, 5, 6, 7, 8)


def test_a_stopwatch_adds_up_its_stretches() -> None:
    watch = Stopwatch()
    for _ in range(2):
        with watch.running():
            sum(range(10_000))
    figures = watch.cpu.figures("phase")
    assert watch.seconds > 0
    assert figures["phase_process_cpu_seconds"] >= 0
