"""The command line run in the test's own process, as a person types it (``tableside …``).

Shared by the command-line tests: :func:`run_cli` runs one command and returns its exit code
and what it printed, :func:`refusal` checks a refusal's one sentence; :class:`Cli` runs
commands on one SQLite file (``--db``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tableside.cli.app import main


def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, str, str]:
    """``tableside ARGS``: the exit code (0 when none is given), standard output and error."""
    monkeypatch.setattr(sys, "argv", ["tableside", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 0), out, err


def refusal(result: tuple[int, str, str]) -> str:
    """The one sentence a refused command printed: exit 2, nothing on standard output, one line
    ``error: ….`` on standard error and no traceback."""
    code, out, err = result
    assert code == 2 and out == "", (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith("."), err
    assert "Traceback" not in err
    return lines[0]


def printed_json(result: tuple[int, str, str]) -> dict[str, Any]:
    """The JSON a command printed, once it exited 0."""
    code, out, err = result
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


class Cli:
    """The command line on one SQLite file; :meth:`run` puts ``prefix`` (``war``) first."""

    def __init__(
        self,
        db: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        prefix: tuple[str, ...] = (),
    ) -> None:
        self.db, self.capsys, self.monkeypatch, self.prefix = str(db), capsys, monkeypatch, prefix

    def run_in(self, *args: str) -> tuple[int, str, str]:
        """``tableside ARGS --db FILE``."""
        return run_cli(self.capsys, self.monkeypatch, *args, "--db", self.db)

    def run(self, *args: str) -> tuple[int, str, str]:
        """``tableside PREFIX ARGS --db FILE``."""
        return self.run_in(*self.prefix, *args)

    def json_in(self, *args: str) -> dict[str, Any]:
        """What ``tableside ARGS --json --db FILE`` printed (it must exit 0)."""
        return printed_json(self.run_in(*args, "--json"))

    def json(self, *args: str) -> dict[str, Any]:
        """What ``tableside PREFIX ARGS --json --db FILE`` printed (it must exit 0)."""
        return printed_json(self.run(*args, "--json"))
