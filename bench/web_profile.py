"""Where a command's server time goes (issue 26): the load of ``web_load.py``, sampled by layer.

``tableside serve`` on a SQLite file (or ``--url``: PostgreSQL too) runs ``web_load.py``'s load
(``--tables`` tables x 4 clients, ``--seconds``) while py-spy samples the server process's
threads that hold the GIL (``--gil``, ``--rate`` per second): the Python time of the process,
which the GIL serialises, whatever waits off it (fsync, the database's own work). Each sample
is put in one layer, the most specific that its stack names:

- on the threadpool, inside an endpoint: the authorising read, the store's append, the other
  store reads of a command (seats and settings, hidden commands), the engine, the answer's
  views and redaction, its JSON, and the rest of the endpoint;
- on the threadpool outside an endpoint: its queue and wake-ups;
- on the event loop: uvicorn's HTTP parsing and writing, Starlette and FastAPI (routing, the
  body, validation, dependencies), the project's middlewares, the threadpool's hand-off, the
  event loop itself.

py-spy is a development tool (``pip install py-spy``); without it the script says so and exits
2. ``--raw FILE`` keeps the collapsed stacks (py-spy's ``raw`` format) for a closer look.
Figures are shares of the samples, and each share of the server's CPU per command (from
``/proc``, as ``web_load.py`` reads it); a busy machine stretches every layer alike.
``--reference`` samples the reference server (``reference_server.py``) under its own load the
same way, to set each layer beside the least it costs on this stack.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from web_load import Figures, cpu_seconds, free_port, load, reference_load, server, started

SPY = Path(sys.executable).with_name("py-spy")
"""py-spy beside this Python (a venv's), else the one on PATH."""

Stack = list[str]


def has(frames: Stack, *keys: str) -> bool:
    """Whether any frame names any of ``keys``."""
    return any(key in frame for frame in frames for key in keys)


# In the order tried: a sample's layer is the first whose test its stack passes.
ENDPOINT: list[tuple[str, Callable[[Stack], bool]]] = [
    ("authorise: token, encounter (one read)", lambda f: has(f, "at_encounter", "who_at")),
    ("store: append (one transaction)", lambda f: has(f, "append_all", "Store.append")),
    ("store: seats, settings, hidden commands",
     lambda f: has(f, "audience (", "hidden_seqs", "decision_settings", "_read_audience")),
    ("answer: JSON encoding", lambda f: has(f, "JSONResponse.__init__")),
    ("answer: views, redaction per audience",
     lambda f: has(f, "DecidingTable.answer (", "state_view", "record_view", "redact", "unseen")),
    ("engine: decide, choices, Strike",
     lambda f: has(f, "tableside/encounter", "tableside/majesty", "tableside/strife")),
    ("store: other reads", lambda f: has(f, "sqlalchemy")),
]  # fmt: skip
LOOP: list[tuple[str, tuple[str, ...]]] = [
    ("uvicorn: HTTP parse, write", ("h11", "httptools", "uvicorn/", "_SelectorSocket", "logging/")),
    ("threadpool: hand-off (loop side)", ("anyio/", "threading.py", "queue.py", "sniffio")),
    ("own middlewares (limits, headers, session, gzip)",
     ("tableside/web/guards.py", "tableside/web/sessions.py", "middleware/gzip")),
    ("Starlette, FastAPI: routing, body, validation",
     ("starlette/", "fastapi/", "pydantic", "tableside/web/strict.py", "tableside/web/direct.py",
      "json/")),
    ("event loop", ("asyncio/", "selectors", "uvloop")),
]  # fmt: skip


def inline_endpoint(frames: Stack) -> bool:
    """Whether the stack is an endpoint called on the event loop itself (SV-15)."""
    start = next((i for i, frame in enumerate(frames) if "Direct.respond" in frame), None)
    return start is not None and has(frames[start + 1 :], "tableside/")


def layer(frames: Stack) -> str:
    """The layer of one sample's stack (outermost frame first)."""
    if inline_endpoint(frames):  # on the loop (SV-15): an endpoint as on the threadpool
        found = next((name for name, test in ENDPOINT if test(frames)), None)
        return f"endpoint, {found or 'other: rates, strict arguments, seats'}"
    if has(frames, "WorkerThread.run"):
        in_endpoint = has(frames, "_run_sync_endpoint", "tableside/")  # FastAPI's or direct
        if not in_endpoint or frames[-1].startswith(
            ("Condition.wait", "Queue.get", "WorkerThread.run")
        ):
            return "threadpool: queue, wake-up (worker side)"
        found = next((name for name, test in ENDPOINT if test(frames)), None)
        return f"endpoint, {found or 'other: rates, strict arguments, seats'}"
    for frame in reversed(frames):  # the innermost frame of a known layer
        for name, keys in LOOP:
            if any(key in frame for key in keys):
                return f"loop, {name}"
    if has(frames, "sqlalchemy/", "tableside/store/", "psycopg"):
        return "store, its stack cut short (py-spy found no thread's root)"
    if has(frames, "tableside/"):
        return "Tableside's code, its stack cut short"
    return "other, its stack cut short"


def shares(raw: Path) -> tuple[int, collections.Counter[str]]:
    """The samples of a py-spy ``raw`` file, counted by layer."""
    counted: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        counted[layer(stack.split(";"))] += int(count)
        total += int(count)
    return total, counted


def sampled(pid: int, args: argparse.Namespace, raw: Path, run: Callable[[], object]) -> float:
    """Run ``run`` (the load) with py-spy sampling the process ``pid``; its CPU seconds."""
    spy_path = str(SPY) if SPY.exists() else shutil.which("py-spy") or "py-spy"
    argv = [spy_path, "record", "--pid", str(pid), "--gil", "--nonblocking", "--format", "raw",
            "--rate", str(args.rate), "--duration", str(int(args.seconds) + 1),
            "--output", str(raw)]  # fmt: skip
    spy = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    before = cpu_seconds(pid)
    run()
    after = cpu_seconds(pid)
    spy.wait(60)
    return 0.0 if before is None or after is None else after - before


def profile(url: str, args: argparse.Namespace, raw: Path) -> float:
    """Run the load against ``tableside serve`` on ``url``, sampled; its CPU ms per command."""
    found: list[tuple[Figures, float]] = []
    with server(url, 1) as (address, pid):
        time.sleep(2)  # the start-up's warm-ups settle
        run = lambda: found.append(asyncio.run(load([address], args.tables, args.seconds)))  # noqa: E731
        cpu = sampled(pid, args, raw, run)
    return report("HTTP, 1 server process, sampled", found[0], cpu)


def reference(folder: str, args: argparse.Namespace, raw: Path) -> float:
    """The same for the reference server (``reference_server.py``) under its load."""
    port = free_port()
    script = str(Path(__file__).with_name("reference_server.py"))
    argv = [sys.executable, script, "--port", str(port), "--db", f"{folder}/ref.db"]
    found: list[tuple[Figures, float]] = []
    with started(argv, port, dict(os.environ), "/ready") as (address, pid):
        run = lambda: found.append(asyncio.run(reference_load(address, args.tables, args.seconds)))  # noqa: E731
        cpu = sampled(pid, args, raw, run)
    return report("reference server, sampled", found[0], cpu)


def report(label: str, run: tuple[Figures, float], cpu: float) -> float:
    """Print a run's line; its server CPU per command sent (ms)."""
    figures, elapsed = run
    figures.cpu = cpu
    figures.line(label, elapsed, None)
    sent = len(figures.latencies) + figures.conflicts + figures.refusals
    return 1000 * cpu / max(sent, 1)


def table(raw: Path, per_command: float) -> None:
    """The samples' shares by layer, and each share of the CPU per command."""
    total, counted = shares(raw)
    print(f"-- {total} samples of the threads holding the GIL, by layer "
          f"(ms: the share of {per_command:.2f} ms of CPU per command)")  # fmt: skip
    for name, count in sorted(counted.items()):
        share = count / max(total, 1)
        print(f"{100 * share:5.1f} %  {share * per_command:5.2f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=50, help="tables (4 clients each)")
    parser.add_argument("--seconds", type=float, default=15.0, help="duration of the load")
    parser.add_argument("--rate", type=int, default=250, help="py-spy's samples per second")
    parser.add_argument("--url", help="a store URL (default: a scratch SQLite file)")
    parser.add_argument("--raw", type=Path, help="keep py-spy's collapsed stacks here")
    parser.add_argument("--reference", action="store_true",
                        help="sample the reference server under its load instead")  # fmt: skip
    args = parser.parse_args()
    if not SPY.exists() and shutil.which("py-spy") is None:
        print("py-spy is not installed: pip install py-spy", file=sys.stderr)
        raise SystemExit(2)
    with tempfile.TemporaryDirectory() as folder:
        raw = args.raw or Path(folder) / "stacks.txt"
        if args.reference:
            table(raw, reference(folder, args, raw))
        else:
            table(raw, profile(args.url or f"sqlite:///{folder}/profile.db", args, raw))


if __name__ == "__main__":
    main()
