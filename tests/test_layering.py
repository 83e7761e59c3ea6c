"""DESIGN.md layering: the rules packages import no I/O, web or database library, nor random."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tableside"
PURE_PACKAGES = ("dice", "majesty", "strife")
FORBIDDEN = {
    "random", "os", "io", "pathlib", "shutil", "socket", "sqlite3", "subprocess", "asyncio",
    "http", "urllib", "requests", "httpx", "sqlalchemy", "alembic", "psycopg", "psycopg2",
    "fastapi", "starlette", "uvicorn", "typer", "click", "rich", "tableside.cli",
    "tableside.store", "tableside.web", "tableside.encounter",
}  # fmt: skip
FORBIDDEN_CALLS = {"print", "open", "input"}


def imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def offending_imports(tree: ast.AST) -> list[str]:
    return [
        name
        for name in imported_modules(tree)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    ]


def offending_calls(tree: ast.AST) -> list[str]:
    return [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FORBIDDEN_CALLS
    ]


def pure_files() -> list[Path]:
    return sorted(p for pkg in PURE_PACKAGES for p in (SRC / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_rules_packages_stay_pure(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    assert offending_imports(tree) == [], f"{path} imports I/O, web, database or random"
    assert offending_calls(tree) == [], f"{path} calls print/open/input"


@pytest.mark.parametrize(
    "source",
    [
        "import random",
        "from random import randint",
        "import sqlalchemy.orm",
        "from fastapi import FastAPI",
        "import os",
        "from pathlib import Path",
        "from tableside.cli import app",
    ],
)
def test_the_guard_catches_forbidden_imports(source: str) -> None:
    assert offending_imports(ast.parse(source)), source


def test_the_guard_catches_print_and_open() -> None:
    assert offending_calls(ast.parse("print(1)\nopen('x')")) == ["print", "open"]


def test_the_guard_allows_what_the_core_needs() -> None:
    assert offending_imports(ast.parse("import numpy\nfrom dataclasses import dataclass")) == []


def web_files() -> list[Path]:
    return sorted((SRC / "web").rglob("*.py"))


@pytest.mark.parametrize("path", web_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_the_web_table_does_not_import_the_command_line(path: Path) -> None:
    """The web and the CLI share presentation through tableside.encounter.views, not each other."""
    names = imported_modules(ast.parse(path.read_text("utf-8")))
    assert [n for n in names if n == "tableside.cli" or n.startswith("tableside.cli.")] == []
