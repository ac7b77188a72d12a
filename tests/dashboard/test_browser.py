"""The dashboard in a real browser: ``graduatoria dashboard``'s Streamlit server on a free port,
every page opened by headless Chromium (the Debian package), a screenshot of each.

``chromium --headless --screenshot=FILE URL`` alone shoots at the page's load event, before
Streamlit's websocket has sent the page (grey placeholders). So the same Chromium is driven
through its DevTools protocol instead: open the page, wait until the script has finished
running and the charts are drawn, then shoot. Screenshots go to the test's folder, and to
``GRADUATORIA_SCREENSHOTS=DIR`` when set (``dashboard-PAGE.png``; docs/img/ holds the README's).
Skipped, saying why, where ``chromium`` is not on PATH.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from flows.dashboard.command import streamlit_command

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not on PATH: the browser test needs the Debian package "
    "(apt-get install -y chromium); AppTest (test_pages.py) covers the pages without it",
)

WINDOW = (1400, 1000)
START_SECONDS = 90
PAGE_SECONDS = 90
# after the script has finished: Vega-Lite draws its charts and the tables their canvas
SETTLE_SECONDS = 2.0
# the script has run to its end, and the page is neither a skeleton nor reconnecting
READY = """(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.dataset.testScriptState === 'notRunning'
        && !!document.querySelector('[data-testid="stMain"] h1')
        && !document.querySelector('[data-testid="stSkeleton"]');
})()"""
EXCEPTIONS = "document.querySelectorAll('[data-testid=\"stException\"]').length"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_healthy(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert server.poll() is None, "the dashboard stopped while starting"
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
                if answer.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"the dashboard did not answer at {base} in {START_SECONDS} s")


class Chromium:
    """Headless Chromium driven through its DevTools protocol (one page, one websocket)."""

    def __init__(self, profile: Path) -> None:
        from websockets.sync.client import connect

        self.process = subprocess.Popen(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",  # as root, in containers
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-extensions",
                f"--window-size={WINDOW[0]},{WINDOW[1]}",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            assert self.process.poll() is None, "chromium stopped while starting"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = port_file.read_text().splitlines()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as answer:
            targets = json.load(answer)
        page = next(target for target in targets if target["type"] == "page")
        self.socket = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        self.calls = 0

    def call(self, method: str, **params: object) -> dict:
        self.calls += 1
        self.socket.send(json.dumps({"id": self.calls, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == self.calls:
                assert "error" not in message, message
                return message["result"]

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for_script(self, what: str) -> None:
        """Until the page's script has run to its end (and the charts are drawn), without an
        exception shown."""
        time.sleep(0.5)  # the state before must not answer for the page after
        deadline = time.monotonic() + PAGE_SECONDS
        while not self.evaluate(READY):
            assert time.monotonic() < deadline, f"{what} did not finish in {PAGE_SECONDS} s"
            time.sleep(0.25)
        time.sleep(SETTLE_SECONDS)
        assert self.evaluate(EXCEPTIONS) == 0, f"{what} shows an exception"

    def shoot(self, url: str, target: Path) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for_script(url)
        shot = self.call("Page.captureScreenshot", format="png")
        target.write_bytes(base64.b64decode(shot["data"]))

    def click(self, element: str, what: str) -> None:
        """A click of the mouse in the middle of the element the expression ``element`` finds
        (as a person's: the page's own handlers see it), waiting up to ten seconds for it."""
        deadline = time.monotonic() + 10
        while True:
            box = self.evaluate(
                f"(() => {{ const e = {element}; "
                "return e ? e.getBoundingClientRect().toJSON() : null; })()"
            )
            if box:
                break
            assert time.monotonic() < deadline, f"no {what} on the page"
            time.sleep(0.1)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        for event in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=event, x=x, y=y, button="left", clickCount=1)

    def choose(self, label: str, option: str) -> None:
        """Open the select box ``label`` and click its option ``option``, then wait for the
        script's run."""
        box = f"document.querySelector('input[aria-label={json.dumps(label)}]')"
        self.click(f"{box}.parentElement.querySelector('button')", f"select box {label}")
        self.click(
            "[...document.querySelectorAll('[role=\"option\"]')]"
            f".find(e => e.innerText.trim() === {json.dumps(option)})",
            f"option {option} of {label}",
        )
        self.wait_for_script(f"choosing {option} in {label}")

    def shown(self, label: str) -> str:
        """What the select box ``label`` shows."""
        return str(
            self.evaluate(f"document.querySelector('input[aria-label={json.dumps(label)}]').value")
        )

    def caption(self) -> str:
        """The page's first caption (the sidebar's excepted)."""
        return str(
            self.evaluate(
                'document.querySelector(\'[data-testid="stMain"] '
                '[data-testid="stCaptionContainer"]\').innerText'
            )
        )

    def close(self) -> None:
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def _dashboard(warehouse: Path, folder: Path) -> Iterator[tuple[str, Chromium]]:
    """``graduatoria dashboard``'s server on a free port, and a Chromium to open its pages;
    the server must not have logged a traceback."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = streamlit_command(str(warehouse), port, "127.0.0.1")
    log = folder / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    browser = None
    try:
        _wait_healthy(base, server)
        browser = Chromium(folder / "profile")
        yield base, browser
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    said = log.read_text(errors="replace")
    assert "Traceback" not in said, said[-3000:]


def test_every_page_in_a_browser(demo_warehouse, tmp_path):
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        # a player and a tournament worth showing: a rating changed by a recalculation, a
        # tournament quarantined
        (player,) = con.execute(
            "SELECT a.player_id FROM rating_list_revisions a JOIN rating_list_revisions b "
            "USING (system, scenario, list_date, player_id) WHERE a.scenario = 'official' "
            "AND a.revision = 1 AND b.revision = 2 AND a.rating <> b.rating "
            "ORDER BY a.player_id LIMIT 1"
        ).fetchone()
        (tournament,) = con.execute(
            "SELECT tournament_id FROM tournament WHERE status = 'quarantined' "
            "ORDER BY tournament_id LIMIT 1"
        ).fetchone()
    pages = {
        "lists": "",
        "player": f"player?player={player}",
        "tournament": f"tournament?tournament={tournament}",
        "inbox": "inbox",
        "what-if": "what-if",
    }
    with _dashboard(demo_warehouse, tmp_path) as (base, browser):
        keep = os.environ.get("GRADUATORIA_SCREENSHOTS", "").strip()
        for name, path in pages.items():
            target = tmp_path / f"dashboard-{name}.png"
            browser.shoot(f"{base}/{path}", target)
            assert target.stat().st_size > 20_000, f"{name}: an empty page?"
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(target, Path(keep) / target.name)
    print(f"screenshots in {tmp_path}", file=sys.stderr)


def test_the_list_date_box_shows_the_list_shown(demo_warehouse, tmp_path):
    """Another system starts at its latest list, and the List date box says so: the browser
    does not keep showing the date chosen for the system before (a date of another list)."""
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        ((internazionale, italiana),) = con.execute(
            "SELECT max(list_date) FILTER (WHERE system = 'rubele_internazionale'), "
            "max(list_date) FILTER (WHERE system = 'rubele_italiana') FROM list_revision"
        ).fetchall()
        (earlier,) = con.execute(
            "SELECT max(list_date) FROM list_revision "
            "WHERE system = 'rubele_internazionale' AND list_date < ?",
            [internazionale],
        ).fetchone()
    with _dashboard(demo_warehouse, tmp_path) as (base, browser):
        browser.call("Page.navigate", url=f"{base}/")
        browser.wait_for_script("the Lists page")
        browser.choose("System", "Dama internazionale (FID, Elo-Rubele)")
        assert browser.shown("List date") == str(internazionale)
        browser.choose("List date", str(earlier))
        assert f"official list of {earlier}:" in browser.caption()
        browser.choose("System", "Dama italiana (FID, Elo-Rubele)")
        assert f"official list of {italiana}:" in browser.caption()
        assert browser.shown("List date") == str(italiana)


# what the app's sidebar shows on every page it serves: its navigation and the warehouse box
APP_SIDEBAR = """(() => {
    const bar = document.querySelector('[data-testid="stSidebar"]');
    return bar ? bar.innerText : '';
})()"""


def test_a_shared_address_opens_the_app_with_its_navigation(demo_warehouse, tmp_path):
    """A page's address opened first, right after the server starts (a link shared to a
    colleague), and each page's own address: the app's page with its sidebar, never the
    script alone under its file name (Streamlit's own discovery of a ``pages/`` folder), and
    /lists the Lists page, not "Page not found"."""
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        (player,) = con.execute(
            "SELECT player_id FROM rating_list ORDER BY rating DESC, player_id LIMIT 1"
        ).fetchone()
    with _dashboard(demo_warehouse, tmp_path) as (base, browser):
        for path, title in (
            (f"player?player={player}", "Player"),
            ("lists", "Lists"),
            ("tournament", "Tournament"),
            ("inbox", "Inbox health"),
        ):
            browser.call("Page.navigate", url=f"{base}/{path}")
            browser.wait_for_script(path)
            sidebar = str(browser.evaluate(APP_SIDEBAR))
            assert "Warehouse (read-only)" in sidebar, (path, sidebar)
            assert "Inbox health" in sidebar and "whatif" not in sidebar, (path, sidebar)
            heading = browser.evaluate(
                "document.querySelector('[data-testid=\"stMain\"] h1').innerText"
            )
            assert title.split()[0].lower() in str(heading).lower(), (path, heading)
            assert "Page not found" not in str(browser.evaluate("document.body.innerText"))
