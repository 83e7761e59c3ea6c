"""How long a ``tableside`` command takes before and while it answers (issue 13: start-up).

Runs each command several times in a fresh interpreter and prints the median wall time next to
``python -c pass`` (the interpreter alone) and ``import sqlalchemy`` (the floor of any command
that reads the store):

    .venv/bin/python bench/cli_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")
CLI = "from tableside.cli.app import main; main()"


def timed(argv: list[str], env: dict[str, str], runs: int) -> float:
    """Median wall time in seconds of ``argv`` over ``runs`` runs (it must succeed)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def tableside(*args: str) -> list[str]:
    """The ``tableside`` command line run by this interpreter."""
    return [sys.executable, "-c", CLI, *args]


def main() -> None:
    """Measure and print one line per command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("TABLESIDE_DATABASE_URL", None)
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "bench.db")
        for args in (
            ("war", "new", "Bench", "--seed", "1"),
            ("war", "add", "1", "--character", HERALD, "--id", "Herald"),
            ("war", "add", "1", "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0"),
            ("war", "next", "1"),
        ):
            subprocess.run(tableside(*args, "--db", db), env=env, check=True, capture_output=True)
        rows = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("python -c 'import sqlalchemy'", [sys.executable, "-c", "import sqlalchemy"]),
            ("tableside --help", tableside("--help")),
            ("tableside war --help", tableside("war", "--help")),
            ("tableside war show 1", tableside("war", "show", "1", "--db", db)),
        ]
        print(f"median of {runs} runs, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        for label, argv in rows:
            print(f"{timed(argv, env, runs):7.3f} s  {label}")


if __name__ == "__main__":
    main()
