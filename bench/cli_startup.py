"""How long a ``tableside`` command takes, wall and CPU, next to baselines (issue 13: start-up).

Each command runs ``--runs`` times in a fresh interpreter; the rows take turns, so that a change
in the machine's load touches every row alike. For each row it prints the median wall time, the
median CPU time of the child (user + sys, from ``getrusage(RUSAGE_CHILDREN)``; much less
sensitive to other processes than the wall time) and that CPU time as a multiple of the baseline
``python -c pass`` measured in the same run (``import sqlalchemy`` is shown as a second yardstick:
the floor of any command that reads the store through SQLAlchemy).

A command that writes (``war next``, ``war strike``) runs each time on a fresh copy of the same
stored War, so every run does the same work. One untimed run first lets Python write its bytecode
caches (``PYTHONDONTWRITEBYTECODE`` is unset for the children, as for an installed package).

    .venv/bin/python bench/cli_startup.py [--runs 7] [--src path/to/src ...]

``--src`` (repeatable) names the sources to measure, this checkout's by default; with two (e.g.
the main branch's and this one's, for a before/after) their rows take turns in the same runs.

``--daemon`` adds the War commands once more, sent to a command daemon (``tableside daemon
start``, started for the run in a private folder and stopped at the end): their CPU is the
client's plus the daemon's own (read from ``/proc``), so that the work moved to the daemon is
still counted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")
CLI = "from tableside.cli.app import main; main()"


@dataclass
class Row:
    """One measured command: its label, its command line, and its runs' figures."""

    label: str
    argv: list[str]
    env: dict[str, str]
    fresh_db: bool = False  # run on a fresh copy of the stored War (a command that writes)
    daemon: int | None = None  # the process id of the daemon that runs it (CPU counted too)
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def children_cpu() -> float:
    """User + system CPU seconds of every finished child so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(row: Row, db: Path, scratch: Path) -> None:
    """Run ``row`` once (on a fresh copy of ``db`` when it writes) and keep its figures."""
    argv = row.argv
    if row.fresh_db:
        scratch.unlink(missing_ok=True)
        shutil.copyfile(db, scratch)
        argv = [str(scratch) if arg == str(db) else arg for arg in argv]
    cpu = children_cpu() + process_cpu(row.daemon)
    start = time.perf_counter()
    subprocess.run(argv, env=row.env, check=True, capture_output=True)
    row.walls.append(time.perf_counter() - start)
    row.cpus.append(children_cpu() + process_cpu(row.daemon) - cpu)


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a running process (0 for None), from ``/proc/PID/stat``."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tableside(*args: str) -> list[str]:
    """The ``tableside`` command line run by this interpreter."""
    return [sys.executable, "-c", CLI, *args]


def baselines(env: dict[str, str]) -> list[Row]:
    """The interpreter alone, and the interpreter importing SQLAlchemy."""
    return [
        Row("python -c pass", [sys.executable, "-c", "pass"], env),
        Row("python -c 'import sqlalchemy'", [sys.executable, "-c", "import sqlalchemy"], env),
    ]


def commands(db: str, env: dict[str, str], tag: str) -> list[Row]:
    """The commands measured, with the sources ``env`` names (``tag`` ends their labels)."""
    return [
        Row(f"tableside --help{tag}", tableside("--help"), env),
        Row(f"tableside war --help{tag}", tableside("war", "--help"), env),
        Row(f"tableside war strike --help{tag}", tableside("war", "strike", "--help"), env),
        Row(f"tableside war show 1{tag}", tableside("war", "show", "1", "--db", db), env),
        Row(f"tableside war log 1{tag}", tableside("war", "log", "1", "--db", db), env),
        Row(
            f"tableside war next 1{tag}",
            tableside("war", "next", "1", "--db", db),
            env,
            fresh_db=True,
        ),
        Row(
            f"tableside war strike 1 Herald Warrior{tag}",
            tableside("war", "strike", "1", "Herald", "Warrior", "--db", db),
            env,
            fresh_db=True,
        ),
    ]


def measure(rows: list[Row], db: Path, scratch: Path, runs: int) -> float:
    """Run every row ``runs`` times, taking turns, after one untimed run; the load at the start."""
    for row in rows:  # untimed: bytecode caches written, files in the page cache
        run_once(row, db, scratch)
        row.walls.clear()
        row.cpus.clear()
    load = os.getloadavg()[0]
    for _ in range(runs):
        for row in rows:
            run_once(row, db, scratch)
    return load


def daemon_rows(db: str, env: dict[str, str], folder: Path) -> list[Row]:
    """The War commands again, through a daemon started in ``folder`` for this run."""
    env = {**env, "TABLESIDE_DAEMON_DIR": str(folder), "TABLESIDE_DAEMON": "on"}
    subprocess.run(tableside("daemon", "start"), env=env, check=True, capture_output=True)
    ping = subprocess.run(
        [sys.executable, "-c", PING, str(folder)], env=env, check=True, capture_output=True
    )
    pid = int(ping.stdout)
    rows = [row for row in commands(db, env, "  (daemon)") if " war " in row.label]
    for row in rows:
        row.argv[2] = ENTRY
        row.daemon = pid
    return rows


PING = """
import sys
from tableside.cli.daemon_cmds import running_pid
print(running_pid())
"""
ENTRY = "from tableside.cli.launch import main; main()"


def stored_war(env: dict[str, str], db: str) -> None:
    """A War with two combatants, the first one's Turn begun."""
    for args in (
        ("war", "new", "Bench", "--seed", "1"),
        ("war", "add", "1", "--character", HERALD, "--id", "Herald"),
        ("war", "add", "1", "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0"),
        ("war", "next", "1"),
    ):
        subprocess.run(tableside(*args, "--db", db), env=env, check=True, capture_output=True)


def main() -> None:
    """Measure and print one line per command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--src", type=Path, action="append", help="the sources to measure")
    parser.add_argument("--daemon", action="store_true", help="also through a command daemon")
    options = parser.parse_args()
    sources: list[Path] = options.src or [ROOT / "src"]
    envs = []
    for src in sources:
        env = {**os.environ, "PYTHONPATH": str(src.resolve())}
        env.pop("TABLESIDE_DATABASE_URL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs.append(env)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        scratch = Path(folder) / "scratch.db"
        stored_war(envs[0], str(db))
        rows = baselines(envs[0])
        for n, env in enumerate(envs):
            rows += commands(str(db), env, f"  [{n + 1}]" if len(envs) > 1 else "")
        if options.daemon:
            (Path(folder) / "daemon").mkdir(mode=0o700)
            rows += daemon_rows(str(db), envs[-1], Path(folder) / "daemon")
        try:
            load = measure(rows, db, scratch, options.runs)
        finally:
            for row in rows[-1:]:
                if row.daemon is not None:
                    stop = tableside("daemon", "stop")
                    subprocess.run(stop, env=row.env, check=False, capture_output=True)
    base = statistics.median(rows[0].cpus)
    for n, src in enumerate(sources):
        print(f"[{n + 1}] {src}" if len(sources) > 1 else str(src))
    print(f"median of {options.runs} runs, {os.cpu_count()} cores, "
          f"load {load:.2f} → {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'wall s':>7} {'CPU s':>7} {'CPU/pass':>9}  command")
    for row in rows:
        cpu = statistics.median(row.cpus)
        print(f"{statistics.median(row.walls):7.3f} {cpu:7.3f} {cpu / base:8.1f}x  {row.label}")


if __name__ == "__main__":
    main()
