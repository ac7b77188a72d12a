"""A run whose process was killed (SIGKILL, the out-of-memory killer) is not left running in
Prefect for ever: the next command marks it crashed and says so."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.cli import main
from flows.runtime import RunProcess, process_start, settle_killed_runs, this_process


def _ended_process() -> RunProcess:
    """A process of this host that has ended (its pid and the start time it had)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    started = process_start(child.pid)
    assert started, "the child's start time is read while it runs"
    child.wait()
    return RunProcess(socket.gethostname(), child.pid, started)


def test_the_tag_names_the_process_and_is_read_back():
    process = this_process()
    assert process.pid == os.getpid()
    assert RunProcess.from_tags(["other", process.tag()]) == process
    assert RunProcess.from_tags(["other", "graduatoria-process:"]) is None


def test_a_running_process_is_not_gone_an_ended_one_is():
    assert not this_process().is_gone()
    assert _ended_process().is_gone()


def test_a_pid_used_again_by_another_process_is_gone():
    me = this_process()
    assert RunProcess(me.host, me.pid, str(int(me.started or 0) + 1)).is_gone()


def test_a_process_of_another_host_cannot_be_told_and_is_left_alone():
    assert not RunProcess("another-host", 1, "1").is_gone()


def test_a_zombie_has_ended():
    # an ended child nobody has collected yet still has its /proc entry, state Z
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{child.pid}/stat").read_text()
        except OSError:
            pytest.skip("no /proc on this system")
        if stat.rpartition(")")[2].split()[0] == "Z":
            break
        time.sleep(0.05)
    assert process_start(child.pid) == ""
    child.wait()


def _unfinished_run(tags: list[str]):
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.states import Running

    @flow(name="left-running")
    def left_running() -> None:
        pass

    with get_client(sync_client=True) as client:
        run = client.create_flow_run(left_running, tags=tags)
        client.set_flow_run_state(run.id, Running(), force=True)
    return run.id


def _state(run_id):
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_run(run_id).state


@pytest.mark.usefixtures("prefect_server")
def test_runs_of_a_killed_process_are_marked_crashed_and_the_others_left():
    killed = _unfinished_run([_ended_process().tag()])
    alive = _unfinished_run([this_process().tag()])
    untagged = _unfinished_run([])  # a run of some other program: not ours to judge
    settled = settle_killed_runs()
    assert [run.run_id for run in settled] == [killed]
    assert settled[0].flow == "left-running"
    state = _state(killed)
    assert state.is_crashed()
    assert "killed" in state.message
    assert _state(alive).is_running()
    assert _state(untagged).is_running()
    assert settle_killed_runs() == []  # once


@pytest.mark.usefixtures("prefect_server")
def test_the_next_command_says_which_runs_were_killed_and_tags_its_own(capsys, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

    killed = _unfinished_run([_ended_process().tag()])
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert main(["ingest", str(inbox), "--warehouse", str(tmp_path / "w.duckdb")]) == 0
    err = capsys.readouterr().err
    assert "graduatoria: an earlier run was killed before it ended (left-running run" in err
    assert "marked crashed in Prefect; a killed run leaves the warehouse as it was" in err
    assert _state(killed).is_crashed()
    # the ingest's own run carries this process's tag (the test's own runs carry it too)
    own = FlowRunFilter(tags=FlowRunFilterTags(all_=[this_process().tag()]))
    with get_client(sync_client=True) as client:
        flows = {
            client.read_flow(run.flow_id).name: run.state
            for run in client.read_flow_runs(flow_run_filter=own)
        }
    assert flows["ingest"].is_completed()
