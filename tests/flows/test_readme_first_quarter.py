"""README.md's "Your first quarter", run as a newcomer types it: every command of the section, in
its order, on a demo federation laid out as `make run` lays it out, publishes the list."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from flows.cli import main
from synthetic.chess import generate_federation
from synthetic.demo_files import write_federation

README = Path(__file__).resolve().parents[2] / "README.md"


def first_quarter_commands() -> list[str]:
    """The shell commands of the section's code blocks, continued lines joined."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Your first quarter", 1)[1].split("\n## ", 1)[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S):
        pending = ""
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            # a comment after two spaces; a quote left open goes on to the next line
            pending += (" " if pending else "") + line.split("  #", 1)[0].strip()
            try:
                shlex.split(pending)
            except ValueError:
                continue
            if pending:
                commands.append(pending)
            pending = ""
    return commands


def test_the_section_holds_the_order_that_matters() -> None:
    verbs = [c.split()[1] for c in first_quarter_commands() if c.startswith("graduatoria ")]
    assert verbs == [
        "--help",
        "load-registry",
        "load-registry",
        "import-list",
        "ingest",
        "quarterly",
        "status",
    ]


def test_following_your_first_quarter_publishes_a_list(
    prefect_server, tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    write_federation(
        generate_federation(11, season=2019, n_players=500, tournaments_per_quarter=(5, 7)),
        tmp_path / "data" / "demo",
    )
    variables: dict[str, str] = {}
    for command in first_quarter_commands():
        if command.startswith("source "):
            continue  # the environment is this test's own
        if match := re.fullmatch(r"(\w+)=(\S+)", command):
            variables[match[1]] = match[2]
            continue
        for name, value in variables.items():
            command = command.replace(f"${name}", value)
        words = shlex.split(command)
        if words[0] == "graduatoria":
            if words[1:] == ["--help"]:
                with pytest.raises(SystemExit) as done:
                    main(words[1:])
                assert done.value.code == 0
                continue
            assert main(words[1:]) == 0, f"{command}\n{capsys.readouterr()}"
        else:
            assert words[0] == "python", command
            shown = subprocess.run(
                [sys.executable, *words[1:]], capture_output=True, text=True, check=True
            ).stdout
            rows = [line for line in shown.splitlines() if re.match(r"│ \d{6} ", line)]
            assert len(rows) == 10, shown
    out = capsys.readouterr().out
    assert "elo_italia: 2 list dates published, 0 stale" in out
