"""Every page of the dashboard renders against the demo warehouse, and its filters change what
it shows (Streamlit's AppTest: the app's scripts run in this process, no browser)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from flows.dashboard.command import APP

REPO_ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    "screens/lists.py",
    "screens/player.py",
    "screens/tournament.py",
    "screens/inbox.py",
    "screens/whatif.py",
]
TITLES = {
    "screens/lists.py": "Lists",
    "screens/player.py": "Player",
    "screens/tournament.py": "Tournament",
    "screens/inbox.py": "Inbox health",
    "screens/whatif.py": "What-if",
}
# a page's first run reads and caches its queries; generous for two busy cores
TIMEOUT = 120


def _app(warehouse: Path, monkeypatch, page: str | None = None, **query) -> AppTest:
    monkeypatch.setenv("GRADUATORIA_WAREHOUSE", str(warehouse))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    if page is not None:
        app.switch_page(page).run()
    if query:
        # a link between pages: the URL names the player or tournament (set once on the page:
        # a switch of page clears the URL's parameters)
        app.query_params.update(query)
        app.run()
    return app


def _no_failure(app: AppTest) -> None:
    assert not app.exception, [item.value for item in app.exception]
    assert not app.error, [item.value for item in app.error]


def _table(app: AppTest, *columns: str, without: tuple[str, ...] = ()):
    """The first table of the page that has these columns and not those (a pandas frame)."""
    for frame in app.dataframe:
        names = set(frame.value.columns)
        if set(columns) <= names and not names & set(without):
            return frame.value
    raise AssertionError(f"no table with {columns} without {without}")


def _facts(warehouse: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders(demo_warehouse, monkeypatch, page):
    app = _app(demo_warehouse, monkeypatch, page)
    _no_failure(app)
    assert app.title[0].value == TITLES[page]


# ---- Lists


def test_lists_show_the_latest_official_list_by_default(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    _no_failure(app)
    system = app.selectbox(key="lists_system").value
    list_date = app.selectbox(key="lists_date").value
    (players,) = _facts(
        demo_warehouse,
        f"SELECT count(*) FROM rating_list WHERE system = '{system}' AND list_date = '{list_date}'",
    )[0]
    assert len(_table(app, "player_id", "rating")) == players
    assert app.selectbox(key="lists_scenario").value == "official"
    assert "(in force)" in app.caption[0].value


def test_the_women_ranking_leaves_only_women_in_ranking_order(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    everyone = _table(app, "player_id", "sex")
    app.radio(key="lists_ranking").set_value("women").run()
    _no_failure(app)
    women = _table(app, "player_id", "sex")
    assert 0 < len(women) < len(everyone)
    assert set(women["sex"]) == {"F"}
    assert list(women["position"]) == sorted(women["position"])


def test_the_youth_ranking_and_the_overall_one_differ(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    app.radio(key="lists_ranking").set_value("overall").run()
    overall = _table(app, "player_id", "position")
    app.radio(key="lists_ranking").set_value("youth").run()
    youth = _table(app, "player_id", "position")
    assert 0 < len(youth) < len(overall)
    assert youth["birth_year"].min() > overall["birth_year"].min()


def test_a_search_narrows_the_list_to_one_player(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    player_id, name = _table(app, "player_id", "name").iloc[5][["player_id", "name"]]
    app.text_input(key="lists_search").input(player_id).run()
    found = _table(app, "player_id", "name")
    assert list(found["player_id"]) == [player_id]
    # by name, any case, words in any order ("Rossi, Mario" is found as "mario rossi")
    words = name.replace(",", " ").split()
    app.text_input(key="lists_search").input(" ".join(reversed(words)).lower()).run()
    assert player_id in set(_table(app, "player_id", "name")["player_id"])


def test_category_activity_and_membership_filters(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    everyone = _table(app, "player_id", "category")
    category = everyone["category"].dropna().value_counts().index[0]
    app.multiselect(key="lists_category").select(category).run()
    assert set(_table(app, "player_id", "category")["category"]) == {category}
    app.multiselect(key="lists_category").unselect(category).run()
    app.selectbox(key="lists_active").set_value("no").run()
    inactive = _table(app, "player_id", "is_active")
    assert 0 < len(inactive) < len(everyone) and not inactive["is_active"].any()
    app.selectbox(key="lists_active").set_value("any").run()
    app.selectbox(key="lists_member").set_value("yes").run()
    members = _table(app, "player_id", "is_member")
    assert 0 < len(members) < len(everyone) and members["is_member"].all()


def test_an_earlier_revision_and_a_scenario_can_be_read(demo_warehouse, monkeypatch):
    # the player whose rating the corrected tournament changed (revision 2 of 2019-07-01)
    player_id, first, second = _facts(
        demo_warehouse,
        "SELECT a.player_id, a.rating, b.rating FROM rating_list_revisions a "
        "JOIN rating_list_revisions b USING (system, scenario, list_date, player_id) "
        "WHERE a.system = 'elo_italia' AND a.scenario = 'official' "
        "AND a.list_date = '2019-07-01' AND a.revision = 1 AND b.revision = 2 "
        "AND a.rating <> b.rating LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("elo_italia").run()
    app.selectbox(key="lists_date").set_value(_date("2019-07-01")).run()
    app.text_input(key="lists_search").input(player_id).run()
    assert list(_table(app, "player_id", "rating")["rating"]) == [second]
    app.selectbox(key="lists_revision").set_value(1).run()
    _no_failure(app)
    assert list(_table(app, "player_id", "rating")["rating"]) == [first]
    assert "superseded" in app.caption[0].value
    app.selectbox(key="lists_scenario").set_value("k40").run()
    _no_failure(app)
    assert "what-if scenario k40" in app.caption[0].value
    # back to the official list: its revision in force, not the one read before
    app.selectbox(key="lists_scenario").set_value("official").run()
    assert "revision 2 of 2 (in force)" in app.caption[0].value


def test_movers_newcomers_and_promotions(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("elo_italia").run()
    app.selectbox(key="lists_date").set_value(_date("2019-07-01")).run()
    _no_failure(app)
    gains = _table(app, "previous_rating", "change", without=("is_active",))
    assert len(gains) and (gains["change"] > 0).all()
    assert list(gains["change"]) == sorted(gains["change"], reverse=True)
    newcomers = _table(app, "rating_basis", "note", "rating", without=("is_active",))
    assert len(newcomers) > 0
    promoted = _table(app, "previous_category", "category", "previous_rating")
    assert len(promoted) and (promoted["previous_category"] != promoted["category"]).all()


def _date(text: str):
    from datetime import date

    return date.fromisoformat(text)


def _metric(app: AppTest, label: str) -> str:
    return next(item.value for item in app.metric if item.label == label)


def test_games_in_the_period_count_each_game_once(demo_warehouse, monkeypatch):
    """A game counts once, not once for each player it counted for (summing the players'
    games counted most games twice: 776 for the 388 of Dama internazionale 2023-01-01)."""
    # draughts: every game over the board of the tournaments the list rated counts for both
    (played, player_games) = _facts(
        demo_warehouse,
        "SELECT (SELECT sum(t.played_games) FROM tournament_version t "
        "        JOIN (SELECT DISTINCT tournament_id, tournament_version FROM variation "
        "              WHERE system = 'rubele_internazionale' AND list_date = '2023-01-01') v "
        "        ON t.tournament_id = v.tournament_id AND t.version = v.tournament_version), "
        "(SELECT sum(games) FROM rating_list "
        " WHERE system = 'rubele_internazionale' AND list_date = '2023-01-01')",
    )[0]
    assert player_games == 2 * played
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("rubele_internazionale").run()
    app.selectbox(key="lists_date").set_value(_date("2023-01-01")).run()
    _no_failure(app)
    assert _metric(app, "Games in the period") == f"{played:,}"
    # chess: a FIDE-rated player's games count only for his opponent, and a game between two
    # of them for no one (half the players' sum is not the count); the games the view
    # game_calculation counts for either player
    (counted, player_games) = _facts(
        demo_warehouse,
        "SELECT (SELECT count(DISTINCT (tournament_id, round, least(player_id, opponent_id), "
        "                               greatest(player_id, opponent_id))) "
        "        FROM game_calculation "
        "        WHERE system = 'elo_italia' AND list_date = '2019-10-01' AND counted), "
        "(SELECT sum(games) FROM rating_list "
        " WHERE system = 'elo_italia' AND list_date = '2019-10-01')",
    )[0]
    assert counted * 2 != player_games
    app.selectbox(key="lists_system").set_value("elo_italia").run()
    app.selectbox(key="lists_date").set_value(_date("2019-10-01")).run()
    _no_failure(app)
    assert "revision 2 of 2 (in force)" in app.caption[0].value
    assert _metric(app, "Games in the period") == f"{counted:,}"
    # the players shown: one player, his own games
    player = _table(app, "player_id", "games").sort_values("games").iloc[-1]
    app.text_input(key="lists_search").input(player["player_id"]).run()
    assert _metric(app, "Games in the period") == f"{player['games']:,}"


def _shown(app: AppTest, key: str, before: str | None = None) -> str:
    """What a browser shows in the select box ``key`` after this run: the option the script
    sent with the page (``set_value``), else what it showed before (the box's id is its key,
    so the browser keeps its own choice even where the script forgot it), else the default."""
    proto = app.selectbox(key=key).proto
    if proto.set_value:
        return proto.raw_value
    return before if before is not None else proto.options[proto.default]


def test_the_pickers_show_the_list_shown(demo_warehouse, monkeypatch):
    """Another system starts at its latest list, another scenario at its revision in force:
    the date and revision boxes show them, not the choices made before."""
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("rubele_internazionale").run()
    app.selectbox(key="lists_date").set_value(_date("2022-01-01")).run()
    date_shown = "2022-01-01"  # chosen in the browser: it shows it
    app.selectbox(key="lists_system").set_value("rubele_italiana").run()
    _no_failure(app)
    (latest,) = _facts(
        demo_warehouse, "SELECT max(list_date) FROM list_revision WHERE system = 'rubele_italiana'"
    )[0]
    assert app.selectbox(key="lists_date").value == latest
    assert f"official list of {latest}:" in app.caption[0].value
    assert _shown(app, "lists_date", date_shown) == str(latest)

    app.selectbox(key="lists_system").set_value("elo_italia").run()
    app.selectbox(key="lists_date").set_value(_date("2019-07-01")).run()
    app.selectbox(key="lists_revision").set_value(1).run()
    revision_shown = "1"
    app.selectbox(key="lists_scenario").set_value("k40").run()
    revision_shown = _shown(app, "lists_revision", revision_shown)
    assert revision_shown == "1 (in force)"
    app.selectbox(key="lists_scenario").set_value("official").run()
    assert "revision 2 of 2 (in force)" in app.caption[0].value
    assert _shown(app, "lists_revision", revision_shown) == "2 (in force)"


# ---- Player


def test_the_player_page_shows_a_recalculated_list(demo_warehouse, monkeypatch):
    player_id, name = _facts(
        demo_warehouse,
        "SELECT a.player_id, a.name FROM rating_list_revisions a "
        "JOIN rating_list_revisions b USING (system, scenario, list_date, player_id) "
        "WHERE a.system = 'elo_italia' AND a.scenario = 'official' AND a.revision = 1 "
        "AND b.revision = 2 AND a.rating <> b.rating LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch, "screens/player.py")
    app.text_input(key="player_search").input(player_id).run()
    _no_failure(app)
    assert app.selectbox(key="player_pick").options == [
        option for option in app.selectbox(key="player_pick").options if player_id in option
    ]
    assert app.header[0].value == f"{name} ({player_id})"
    assert app.get("vega_lite_chart"), "no rating history chart"
    revisions = _table(app, "revision_in_force", "rating_in_force", "difference")
    assert (revisions["difference"] != 0).all()
    periods = _table(app, "previous_rating", "period_change", "rating_basis")
    assert len(periods) >= 2
    tournaments = _table(app, "tournament_id", "applied_variation", "note")
    assert len(tournaments) > 0
    # the game-by-game section: the view's rows, or a note while the warehouse lacks it
    assert any("Game by game" in item.value for item in app.subheader)


def test_a_link_opens_the_player(demo_warehouse, monkeypatch):
    (player_id,) = _facts(
        demo_warehouse,
        "SELECT player_id FROM rating_list WHERE system = 'elo_rapid' ORDER BY player_id LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch, "screens/player.py", player=player_id)
    _no_failure(app)
    assert app.selectbox(key="player_pick").value == player_id
    # an Elo Rapid player has letters
    assert len(_table(app, "label", "letter_held")) > 0


def test_a_search_with_no_match_says_so(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch, "screens/player.py")
    app.text_input(key="player_search").input("no such player zzz").run()
    _no_failure(app)
    assert "No player matches" in app.warning[0].value


# ---- Tournament


def test_a_quarantined_tournament_says_why(demo_warehouse, monkeypatch):
    (tournament_id, reason) = _facts(
        demo_warehouse,
        "SELECT t.tournament_id, min(r.reason) FROM tournament t JOIN rejection r "
        "USING (tournament_id) WHERE t.status = 'quarantined' GROUP BY ALL "
        "ORDER BY 1 LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch, "screens/tournament.py", tournament=tournament_id)
    assert not app.exception
    assert app.selectbox(key="tournament_pick").value == tournament_id
    assert app.error[0].value == f"Quarantined: {reason}"
    assert len(_table(app, "kind", "reason", "field")) > 0


def test_a_corrected_tournament_shows_its_versions_players_variations_and_games(
    demo_warehouse, monkeypatch
):
    (tournament_id, versions) = _facts(
        demo_warehouse,
        "SELECT tournament_id, count(*) FROM tournament_version GROUP BY ALL "
        "HAVING count(*) > 1 LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch, "screens/tournament.py")
    app.text_input(key="tournament_search").input(tournament_id).run()
    _no_failure(app)
    assert app.selectbox(key="tournament_pick").options == [
        option
        for option in app.selectbox(key="tournament_pick").options
        if option.startswith(tournament_id)
    ]
    assert len(_table(app, "version", "status", "file_sha256")) == versions
    players = _table(app, "start_number", "match_method")
    variations = _table(app, "list_date", "applied_variation", "note")
    assert len(players) > 0 and len(variations) > 0
    games = _table(app, "round", "opponent", "result_code")
    app.multiselect(key="tournament_rounds").select(1).run()
    first_round = _table(app, "round", "opponent", "result_code")
    assert 0 < len(first_round) < len(games) and set(first_round["round"]) == {1}


def test_the_tournament_filters(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch, "screens/tournament.py")
    everything = len(app.selectbox(key="tournament_pick").options)
    app.selectbox(key="tournament_status").set_value("quarantined").run()
    assert not app.exception
    quarantined = app.selectbox(key="tournament_pick").options
    assert 0 < len(quarantined) < everything
    assert app.error[0].value.startswith("Quarantined: ")


# ---- Inbox health


def test_the_inbox_names_stale_lists_with_their_reasons(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch, "screens/inbox.py")
    _no_failure(app)
    stale = _table(app, "system", "list_date", "reason")
    assert "elo_italia" in set(stale["system"])
    assert any("new versions of" in reason for reason in stale["reason"])
    metrics = {item.label: item.value for item in app.metric}
    assert int(metrics["Stale lists"]) == len(stale)
    assert int(metrics["Quarantined"]) > 0 and int(metrics["Rejections"]) > 0
    assert len(_table(app, "run_id", "flow", "seconds")) > 0


def test_the_inbox_problem_filters(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch, "screens/inbox.py")
    everything = _table(app, "kind", "reason", "line_no")
    app.selectbox(key="inbox_kind").set_value("warning").run()
    warnings = _table(app, "kind", "reason", "line_no")
    assert set(warnings["kind"]) <= {"warning"} and len(warnings) < len(everything)
    app.selectbox(key="inbox_kind").set_value("every").run()
    app.selectbox(key="inbox_system").set_value("rubele_italiana").run()
    _no_failure(app)
    assert set(_table(app, "kind", "reason", "line_no")["system"]) == {"rubele_italiana"}


# ---- What-if


def test_a_scenario_against_the_official_list(demo_warehouse, monkeypatch):
    app = _app(demo_warehouse, monkeypatch, "screens/whatif.py")
    _no_failure(app)
    assert app.selectbox(key="whatif_scenario").value == ("elo_italia", "k40")
    moved = _table(app, "official_rating", "scenario_rating", "difference")
    assert len(moved) > 0 and (moved["difference"] != 0).all()
    metrics = {item.label: item.value for item in app.metric}
    assert int(metrics["Moved"].replace(",", "")) == len(moved)
    summary = _table(app, "moved", "up", "down", "largest")
    assert len(summary) == 4
    assert app.get("vega_lite_chart")
    app.checkbox(key="whatif_moved").uncheck().run()
    assert len(_table(app, "official_rating", "scenario_rating", "difference")) > len(moved)


# ---- Every page


def test_a_missing_value_is_an_empty_cell(demo_warehouse, monkeypatch):
    """No table writes "None" where a value is missing (a newcomer has no previous rating,
    most players no note; a draughts list shows no K column at all, capitals have none):
    every table of every page leaves the cell empty."""
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("rubele_italiana").run()
    rows = _table(app, "player_id", "previous_rating", "note")
    assert rows["note"].isna().any() and "k" not in rows.columns
    tables = list(app.dataframe)
    for page in PAGES[1:]:
        app.switch_page(page).run()
        _no_failure(app)
        tables += list(app.dataframe)
    assert len(tables) > 10
    for frame in tables:
        assert frame.proto.HasField("placeholder") and frame.proto.placeholder == "", frame.key


# ---- Reading the file


def test_a_runs_swap_shows_on_the_next_refresh(demo_warehouse, monkeypatch, tmp_path):
    """The dashboard caches by the file's identity: a run's new file (written in a copy and
    swapped in, as every run does) is read at once."""
    from flows.warehouse import Warehouse

    warehouse = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, warehouse)
    app = _app(warehouse, monkeypatch)
    first = _table(app, "player_id", "name").iloc[0]
    with Warehouse(warehouse).transaction() as con:
        con.execute(
            "UPDATE list_entry SET name = 'Swapped, In' WHERE player_id = ?", [first["player_id"]]
        )
    app.run()
    assert _table(app, "player_id", "name").iloc[0]["name"] == "Swapped, In"


def test_a_program_writing_the_file_is_named(demo_warehouse, monkeypatch, tmp_path):
    """A client holding the file read-write keeps every reader out: the page says so."""
    warehouse = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, warehouse)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys, time; con = duckdb.connect({str(warehouse)!r}); "
            "print('open', flush=True); time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "open"
        app = _app(warehouse, monkeypatch)
        assert not app.exception
        assert "is open in a program that can write to it" in app.error[0].value
    finally:
        holder.kill()
        holder.wait()


def test_a_missing_warehouse_is_named(monkeypatch, tmp_path):
    app = _app(tmp_path / "nowhere.duckdb", monkeypatch)
    assert not app.exception
    assert "No warehouse at" in app.error[0].value


def test_the_dashboard_never_imports_prefect(demo_warehouse):
    """Every page, run in a fresh process: Prefect is never imported (seconds, and a server)."""
    script = textwrap.dedent(
        f"""
        import sys
        from streamlit.testing.v1 import AppTest
        app = AppTest.from_file({str(APP)!r}, default_timeout={TIMEOUT}).run()
        for page in {PAGES[1:]!r}:
            app.switch_page(page).run()
            assert not app.exception, [item.value for item in app.exception]
        print("prefect" in sys.modules)
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env={**os.environ, "GRADUATORIA_WAREHOUSE": str(demo_warehouse)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.strip().splitlines()[-1] == "False"


# ---- The verb


def test_the_verb_loads_nothing_heavy():
    """flows.cli may import the verb at its top: --help must not pay for Streamlit, Polars,
    DuckDB or Prefect."""
    code = (
        "import sys, flows.dashboard.command; "
        "print(sorted(m for m in ('streamlit', 'polars', 'duckdb', 'prefect') if m in sys.modules))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "[]"


def test_every_option_of_the_verb_has_help():
    import argparse

    from flows.dashboard.command import add_dashboard_parser, streamlit_command

    parser = argparse.ArgumentParser()
    dashboard = add_dashboard_parser(parser.add_subparsers(dest="verb"))
    options = [action for action in dashboard._actions if action.option_strings]
    assert {"--port", "--address"} <= {name for action in options for name in action.option_strings}
    assert all(action.help for action in options)
    args = parser.parse_args(["dashboard", "--port", "8600"])
    assert (args.port, args.address) == (8600, "localhost")
    with pytest.raises(SystemExit):
        parser.parse_args(["dashboard", "--port", "70000"])
    command = streamlit_command("/data/w.duckdb", 8600)
    assert command[command.index("--server.port") + 1] == "8600"
    assert command[command.index("--server.headless") + 1] == "true"
    assert command[-3:] == ["--", "--warehouse", "/data/w.duckdb"]


def test_a_draughts_list_speaks_of_capitals_and_s_not_of_ratings_and_k(demo_warehouse, monkeypatch):
    # a draughts list has capitals and no K; its variations multiply by S (by category)
    app = _app(demo_warehouse, monkeypatch)
    app.selectbox(key="lists_system").set_value("rubele_italiana").run()
    _no_failure(app)
    labels = [metric.label for metric in app.metric]
    assert "Median capital" in labels and "Median rating" not in labels
    assert "k" not in _table(app, "player_id", "rating").columns
    app.selectbox(key="lists_system").set_value("elo_italia").run()
    assert "Median rating" in [metric.label for metric in app.metric]
    assert "k" in _table(app, "player_id", "rating").columns
    (player_id,) = _facts(
        demo_warehouse,
        "SELECT player_id FROM variation WHERE system = 'rubele_italiana' "
        "ORDER BY list_date DESC, player_id LIMIT 1",
    )[0]
    app = _app(demo_warehouse, monkeypatch, "screens/player.py", player=player_id)
    _no_failure(app)
    assert app.subheader[0].value == "Capital history"
    tournaments = _table(app, "tournament_id", "applied_variation")
    assert "S" in tournaments.columns and "k" not in tournaments.columns
    assert "own_capital" in tournaments.columns and "own_rating" not in tournaments.columns
    periods = _table(app, "previous_capital", "capital", "period_change")
    assert "k" not in periods.columns and "rating" not in periods.columns


def test_the_inbox_names_the_tournaments_a_list_set_aside(demo_warehouse, monkeypatch, tmp_path):
    # as `graduatoria problems` does: accepted at ingest, left out by the list whose window
    # holds it (here written as such a list writes it: the demo's lists set none aside)
    warehouse = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, warehouse)
    with duckdb.connect(str(warehouse)) as con:
        system, list_date, revision, tournament_id = con.execute(
            "SELECT c.system, c.list_date, c.revision, min(v.tournament_id) "
            "FROM list_revision_current c JOIN list_variation v "
            "USING (system, scenario, list_date, revision) WHERE c.system = 'elo_italia' "
            "GROUP BY ALL ORDER BY c.list_date DESC LIMIT 1"
        ).fetchone()
        con.execute(
            "INSERT INTO list_exclusion VALUES (?, 'official', ?, ?, ?, ?)",
            [system, list_date, revision, tournament_id, "validity 75 % is not one of its era"],
        )
    app = _app(warehouse, monkeypatch, "screens/inbox.py")
    _no_failure(app)
    assert {metric.label: metric.value for metric in app.metric}["Set aside by a list"] == "1"
    shown = _table(app, "tournament_id", "list_date", "reason")
    assert list(shown["tournament_id"]) == [tournament_id]
    assert "Tournaments set aside by a list" in [item.value for item in app.subheader]
