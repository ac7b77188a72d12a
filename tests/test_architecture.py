"""The house is checked, not just drawn: the import-linter contracts of ``pyproject.toml`` hold,
no module takes part in an import cycle, and the contracts catch a layer broken on purpose."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import grimp

from flows.systems import SYSTEMS
from schemas.vocabulary import ALL_SYSTEMS

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "transforms", "schemas", "synthetic")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    # --no-cache: a cache written for one tree must not answer for another
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(root)},
        timeout=300,
    )


def test_the_layer_contracts_hold() -> None:
    result = _lint_imports(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_transform_importing_a_flow_breaks_the_contracts(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(REPO_ROOT / package, tmp_path / package)
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    notes = tmp_path / "transforms" / "lists" / "notes.py"
    notes.write_text(notes.read_text() + "\nfrom flows.console import say  # noqa\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert "Transforms are pure: no flows, no Prefect, no DuckDB BROKEN" in result.stdout
    assert "transforms.lists.notes -> flows.console" in result.stdout


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each one a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(module: str) -> None:
        nonlocal counter
        index[module] = low[module] = counter
        counter += 1
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in graph.modules or imported.split(".")[0] not in PACKAGES:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module.split(".")[0] in PACKAGES and module not in index:
            visit(module)
    return found


def test_no_module_is_part_of_an_import_cycle() -> None:
    # every import counts, those inside functions too: none may dodge a cycle
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("flows.a", "flows.b", "flows.c"):
        graph.add_module(module)
    graph.add_import(importer="flows.a", imported="flows.b")
    graph.add_import(importer="flows.b", imported="flows.c")
    graph.add_import(importer="flows.c", imported="flows.a")
    assert _cycles(graph) == [["flows.a", "flows.b", "flows.c"]]


def test_every_system_the_inputs_name_is_registered_in_cascade_order() -> None:
    assert list(SYSTEMS) == list(ALL_SYSTEMS)
    assert [system.family for system in SYSTEMS.values()] == ["elo", "elo", "rubele", "rubele"]


# Statements that may stay in Python: the warehouse's own machinery works on any table it is
# given (migrations, appends, the standby's catch-up), and an f-string names its table at run
# time (a registry kind's tables). The demo's example query is text shown to the analyst.
SQL_KEYWORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH ", "CREATE ", "ALTER ", "DROP ")
SQL_IN_PYTHON_ALLOWED = {Path("flows/warehouse.py")}
SQL_CONSTANTS_ALLOWED = {(Path("flows/demo.py"), "EXAMPLE_QUERY")}


def _sql_in_python(root: Path) -> list[str]:
    """``file:line`` of every plain string in the packages that starts like a SQL statement,
    outside what ``SQL_IN_PYTHON_ALLOWED`` and ``SQL_CONSTANTS_ALLOWED`` let stay."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root)
            if relative in SQL_IN_PYTHON_ALLOWED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            allowed_lines: set[int] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):  # an f-string: its parts are not statements
                    allowed_lines.update(
                        part.lineno for part in ast.walk(node) if isinstance(part, ast.Constant)
                    )
                if isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Name) and (relative, target.id) in SQL_CONSTANTS_ALLOWED
                    for target in node.targets
                ):
                    allowed_lines.update(
                        part.lineno for part in ast.walk(node.value) if hasattr(part, "lineno")
                    )
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and node.value.lstrip().startswith(
                        SQL_KEYWORDS
                    )  # the house writes SQL upper-case
                    and node.lineno not in allowed_lines
                ):
                    found.append(f"{relative}:{node.lineno}")
    return found


def test_sql_lives_in_sql_files() -> None:
    """A query the warehouse answers is a file under sql/ (read with ``read_sql``), where it
    can be read, tested and changed as SQL, not a string scattered in Python."""
    assert _sql_in_python(REPO_ROOT) == []


def test_the_sql_check_finds_a_statement_in_python(tmp_path: Path) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "flows" / "stray.py").write_text(
        'QUERY = "SELECT rating FROM list_entry WHERE player_id = ?"\n', encoding="utf-8"
    )
    assert _sql_in_python(tmp_path) == ["flows/stray.py:1"]


def test_a_part_several_queries_share_is_written_once() -> None:
    """The reason a quarantined tournament is not rated is one fragment, included by each
    query that names it (the problems report, a list's exclusions, a draughts list's), and
    every include names a file that is there."""
    from flows.warehouse import SQL_DIR, SQL_INCLUDE, read_sql

    fragment = read_sql("queries/fragments/first_rejection.sql")
    for query in (
        "queries/problems/tournaments.sql",
        "queries/lists/history_quarantined.sql",
        "queries/rubele/period_quarantined.sql",
    ):
        text = read_sql(query)
        assert fragment in text, query
        assert "more rejections" not in (SQL_DIR / query).read_text(encoding="utf-8"), query
        assert not SQL_INCLUDE.search(text), query
    for path in SQL_DIR.rglob("*.sql"):
        for include in SQL_INCLUDE.findall(path.read_text(encoding="utf-8")):
            assert (SQL_DIR / include).is_file(), f"{path.relative_to(SQL_DIR)}: {include}"
