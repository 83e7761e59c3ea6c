"""README.md's walkthroughs run as written: every line of "Running a War" and of the Realm of
Strife walkthrough exits 0, in order, on a fresh database (a new group copies them verbatim)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from clirun import Cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def walkthrough(heading: str) -> list[list[str]]:
    """The first ``sh`` block under ``heading``: each command as its arguments after ``$T``."""
    after = README[README.index(heading) :]
    block = re.search(r"```sh\n(.*?)```", after, re.DOTALL)
    assert block is not None, f"no sh block under {heading!r}"
    commands = []
    for line in block.group(1).splitlines():
        for part in line.split(" ; "):
            words = shlex.split(part, comments=True)
            if words and words[0] == "$T":
                commands.append([str(ROOT / w) if w.startswith("examples/") else w
                                 for w in words[1:]])  # fmt: skip
    return commands


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # war export --out skirmish.json lands here
    return Cli(tmp_path / "readme.db", capsys, monkeypatch)


def test_the_war_walkthrough_runs_as_written(cli: Cli) -> None:
    commands = walkthrough("### Running a War")
    assert len(commands) >= 10
    for args in commands:
        code, _out, err = cli.run(*args)
        assert code == 0, f"README's `tableside {shlex.join(args)}` failed: {err}"


def test_the_realm_of_strife_walkthrough_runs_as_written(cli: Cli) -> None:
    code, _out, err = cli.run("war", "new", "Skirmish at the ford", "--seed", "7")  # the War: id 1
    assert code == 0, err
    commands = walkthrough("### Running a Realm of Strife combat")
    assert len(commands) >= 10
    for args in commands:
        code, _out, err = cli.run(*args)
        assert code == 0, f"README's `tableside {shlex.join(args)}` failed: {err}"
