"""Start-up of the command line (issue 13): what a War command imports, and what it builds.

The time is measured in ``bench/cli_startup.py``, never asserted; these tests pin the import set
instead, which is what the time follows: a command that reads or appends to a stored War in
SQLite loads neither SQLAlchemy nor Alembic, numpy, the web app, the odds, the simulator nor the
Realm of Strife; a listing (``--help``) loads neither Rich nor the game. And a group builds only
the command that runs, with the same listing and refusals as the whole group.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tableside.cli.app import build_app, only

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")

LOADED = """
import json, sys
from tableside.cli.app import main
sys.argv = ["tableside", *sys.argv[1:]]
try:
    main()
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

# Never loaded by a War command on SQLite (prefixes of module names).
HEAVY = (
    "sqlalchemy", "alembic", "psycopg", "numpy", "fastapi", "starlette", "uvicorn",
    "tableside.web", "tableside.simulate", "tableside.majesty.odds", "tableside.cli.odds_cmds",
    "tableside.strife", "tableside.encounter.strife", "tableside.cli.fight_cmds",
    "tableside.store.db", "tableside.store.tables", "tableside.store.migrate",
)  # fmt: skip
# The War's engine: its package but the words a listing shows (``war.names``, loading nothing).
WAR_ENGINE = tuple(
    f"tableside.encounter.war.{path.stem}"
    for path in sorted((ROOT / "src" / "tableside" / "encounter" / "war").glob("*.py"))
    if path.stem not in ("__init__", "names")
)
# Not loaded either by a listing, which shows names and help only.
LISTING_HEAVY = (
    *HEAVY, "rich", *WAR_ENGINE, "tableside.encounter.engine",
    "tableside.majesty.catalog", "tableside.limits", "tableside.service", "tableside.store",
)  # fmt: skip


def loaded(*args: str, cwd: Path, code: int = 0) -> list[str]:
    """The modules a fresh interpreter holds after running ``tableside *args`` (exit ``code``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("TABLESIDE_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args],
        env=env, cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    modules: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return modules


def heavy(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.fixture(scope="module")
def war_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A stored War with two combatants, Herald's Turn begun."""
    db = str(tmp_path_factory.mktemp("startup") / "war.db")
    for args in (
        ("war", "new", "Skirmish", "--seed", "9"),
        ("war", "add", "1", "--character", HERALD, "--id", "Herald"),
        ("war", "add", "1", "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0"),
        ("war", "next", "1"),
    ):
        loaded(*args, "--db", db, cwd=ROOT)
    return db


@pytest.mark.parametrize(
    "args",
    [
        ("show", "1"),
        ("show", "1", "--json"),
        ("log", "1"),
        ("strike", "1", "Herald", "Warrior", "--dice", "9,9,9,5,5,5,5"),
        ("move", "1", "Herald", "--to", "1,0,0"),
        ("next", "1"),
        ("undo", "1"),
        ("redo", "1"),
    ],
)
def test_a_war_command_on_sqlite_loads_no_sqlalchemy_nor_anything_heavy(
    args: tuple[str, ...], war_db: str
) -> None:
    if args[0] == "redo":  # something to redo, whichever of these ran before (xdist's order)
        loaded("war", "undo", *args[1:], "--db", war_db, cwd=ROOT)
    modules = loaded("war", *args, "--db", war_db, cwd=ROOT)
    assert heavy(modules, HEAVY) == []
    assert "tableside.store.lite" in modules  # it did read the store


@pytest.mark.parametrize(
    ("args", "code"), [(("--help",), 0), (("war", "--help"), 0), (("war",), 2), (("war", "x"), 2)]
)
def test_a_listing_loads_neither_rich_nor_the_game(args: tuple[str, ...], code: int) -> None:
    modules = loaded(*args, cwd=ROOT, code=code)
    assert heavy(modules, LISTING_HEAVY) == []


@pytest.mark.parametrize("args", [("--help",), ("war", "--help")])
def test_a_groups_help_loads_no_pydantic(args: tuple[str, ...]) -> None:
    """Typer coerces an unset --help (None) through pydantic; the command line sets it False."""
    assert heavy(loaded(*args, cwd=ROOT), ("pydantic", "pydantic_core")) == []


def test_a_commands_help_loads_no_store_nor_game() -> None:
    modules = loaded("war", "strike", "--help", cwd=ROOT)
    assert heavy(modules, (*HEAVY, *WAR_ENGINE, "tableside.store", "rich")) == []


def test_a_group_builds_only_the_command_that_runs() -> None:
    from tableside.cli.war_cmds import app as war

    assert [info.name for info in only(war, "show").registered_commands] in (["show"], [None])
    listing = only(war, "--help").registered_commands
    assert len(listing) == len(war.registered_commands) > 20
    assert all(info.callback is not None and info.callback.__name__ == "_listed_only"
               for info in listing)  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["war", "--help"],
        ["war"],
        ["war", "bogus"],
        ["war", "shw", "1"],
        ["war", "--db", "x.db", "show", "1"],
        ["war", "strike", "--help"],
        ["war", "set", "--help"],
        ["war", "strike", "1", "A", "B", "--boon", "99"],
        ["war", "rest", "1", "A", "--ap", "x"],
        ["fight", "--help"],
        ["fight", "attack", "--help"],
    ],
)
def test_the_lazy_command_line_answers_as_the_whole_one(args: list[str]) -> None:
    """Listings, help, unknown commands and refusals: the same text and exit code."""
    runner = CliRunner()

    def answer(app: typer.Typer) -> tuple[int, str]:
        result = runner.invoke(app, args, prog_name="tableside", terminal_width=100)
        exception = result.exception
        shown = repr(exception) if exception and not isinstance(exception, SystemExit) else ""
        return result.exit_code, result.output + shown

    command = args[1] if len(args) > 1 else None
    assert answer(build_app(args[0], command)) == answer(build_app("*"))
