"""A bounded load test of the web table on loopback: commands per second and latency.

A real uvicorn server (a subprocess) serves the store, on SQLite and, when
TABLESIDE_TEST_POSTGRES_URL is set (``scripts/postgres.sh`` prints one), on PostgreSQL (a scratch
schema, dropped afterwards), with one server process and with two on the same database. Each
of ``--tables`` tables gets a War of the example roster and 4 player seats of 2 combatants; 4
clients per table (asyncio, httpx) post the simple policy's next command against the table's
fetched state (the records the answers carry) whenever it acts for one of their combatants,
with the revision they saw, for ``--seconds``; when a War ends the Host starts another. The
Host's set-up commands count as commands too. 409s and other refusals are counted, not fatal.

Baseline (same process, same backend): the same kind of Wars through
:class:`tableside.service.Session`, one after another, with no HTTP. The ratio is the HTTP
rate over the baseline's rate; latency is per command, from sending to the whole answer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import httpx2 as httpx

from tableside import service
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.policy import next_command
from tableside.encounter.roster import FOUR_AGAINST_FOUR, add_commands
from tableside.encounter.war import MajestyWar
from tableside.encounter.war_state import WarState
from tableside.store import Store
from tableside.store.scratch import scratch_schema

SERVER = """
import sys, uvicorn
from tableside.web import create_app
uvicorn.run(create_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning", timeout_graceful_shutdown=1)
"""
NAMES = [entry[0] for entry in FOUR_AGAINST_FOUR]
SEATS = [tuple(NAMES[i : i + 2]) for i in range(0, len(NAMES), 2)]


@dataclass
class Figures:
    """What one run measured."""

    latencies: list[float] = field(default_factory=list)
    conflicts: int = 0
    refusals: int = 0
    wars: int = 0

    def line(self, label: str, elapsed: float, baseline: float | None) -> float:
        ordered = sorted(self.latencies)
        rate = len(ordered) / elapsed
        p50, p99 = (ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
                    for q in (0.50, 0.99))  # fmt: skip
        ratio = "" if baseline is None else f"  ratio {rate / baseline:.3f}"
        print(
            f"{label:<40} {len(ordered):>6} cmds {rate:>8,.0f} /s  p50 {p50:6.1f} ms  "
            f"p99 {p99:6.1f} ms  409s {self.conflicts}  refused {self.refusals}  "
            f"Wars {self.wars}{ratio}",
            flush=True,
        )
        return rate


# -- baseline: in process, no HTTP ------------------------------------------------------------


def baseline(url: str, seconds: float) -> float:
    """Wars through a Session on the store, one command at a time, for ``seconds``."""
    figures = Figures()
    store = Store.open(url)
    try:
        began = time.perf_counter()
        deadline = began + seconds
        while time.perf_counter() < deadline:
            seed = figures.wars
            session = service.Session(store, service.new_encounter(store, f"base {seed}", seed))
            figures.wars += 1
            commands = iter([*add_commands(), Command("next")])
            while time.perf_counter() < deadline:
                command = next(commands, None) or next_command(session.encounter.state)
                start = time.perf_counter()
                session.execute(command)
                figures.latencies.append(time.perf_counter() - start)
                if session.encounter.state.ended:
                    break
        return figures.line("baseline: Session in process, no HTTP", time.perf_counter() - began,
                            None)  # fmt: skip
    finally:
        store.close()


# -- the load over HTTP -----------------------------------------------------------------------


@dataclass
class Table:
    """One table as its clients know it: tokens and the fetched state of its current War."""

    id: int
    host: str
    seats: list[tuple[str, tuple[str, ...]]]
    encounter: int = 0
    replica: Encounter[WarState] = field(default_factory=lambda: Encounter(MajestyWar(), 0))
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)


def acting(command: Command, state: WarState) -> str | None:
    """The combatant a command acts for (``next``: whoever holds the Turn; None: the Host's)."""
    if command.kind == "strike":
        return str(command.args["striker"])
    if command.kind == "next":
        current = state.current
        return None if current is None else str(current.combatant)
    return str(command.args.get("id")) if "id" in command.args else None


async def post(
    http: httpx.AsyncClient, table: Table, token: str, command: Command, figures: Figures
) -> bool:
    """Send one command with the revision seen; on success fold its record into the state."""
    body = {"kind": command.kind, "args": command.args, "revision": table.replica.revision}
    start = time.perf_counter()
    answer = await http.post(f"/api/encounters/{table.encounter}/commands", json=body,
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    elapsed = time.perf_counter() - start
    if answer.status_code == 409:
        figures.conflicts += 1
        return False
    if answer.status_code != 200:
        figures.refusals += 1
        return False
    figures.latencies.append(elapsed)
    data = {k: v for k, v in answer.json()["record"].items() if k != "hidden"}
    record = LogRecord.from_json(data)
    async with table.changed:
        if record.revision == table.replica.revision + 1:
            table.replica.load(record)
        table.changed.notify_all()
    return True


async def new_war(http: httpx.AsyncClient, table: Table, seed: int, figures: Figures) -> None:
    """The Host starts a War at the table: the roster added and Cycle 1 begun."""
    headers = {"Authorization": f"Bearer {table.host}"}
    body = {"game": "majesty-war", "name": f"War {seed}", "seed": seed}
    made = await http.post(f"/api/tables/{table.id}/encounters", headers=headers, json=body)
    made.raise_for_status()
    table.encounter = made.json()["id"]
    table.replica = Encounter(MajestyWar(), seed)
    figures.wars += 1
    for command in [*add_commands(), Command("next")]:
        await post(http, table, table.host, command, figures)


async def client(
    http: httpx.AsyncClient, table: Table, seat: int, deadline: float, figures: Figures
) -> None:
    """A player (seat 0 also holds the Host's token) acting whenever the state says it may."""
    token, characters = table.seats[seat]
    while time.perf_counter() < deadline and not table.replica.state.ended:
        state = table.replica.state
        command = next_command(state)
        actor = acting(command, state)
        mine = actor in characters
        if mine or (actor is None and seat == 0):
            if not await post(http, table, token if mine else table.host, command, figures):
                await post(http, table, table.host, command, figures)  # the Host may send all
            continue
        async with table.changed:
            if table.replica.state is state:
                with suppress(TimeoutError):
                    await asyncio.wait_for(table.changed.wait(), 0.5)


async def run_table(
    http: httpx.AsyncClient, table: Table, number: int, deadline: float, figures: Figures
) -> None:
    war = 0
    while time.perf_counter() < deadline:
        await new_war(http, table, number * 1000 + war, figures)
        war += 1
        await asyncio.gather(*(client(http, table, seat, deadline, figures)
                               for seat in range(len(table.seats))))  # fmt: skip


async def open_table(http: httpx.AsyncClient, number: int) -> Table:
    """A table with 4 player seats (2 combatants each)."""
    made = (await http.post("/api/tables", json={"name": f"Load {number}"})).json()
    headers = {"Authorization": f"Bearer {made['host_token']}"}
    seats = []
    for i, characters in enumerate(SEATS):
        body = {"name": f"Player {i}", "characters": list(characters)}
        seat = await http.post(f"/api/tables/{made['id']}/players", headers=headers, json=body)
        seats.append((seat.json()["token"], characters))
    return Table(made["id"], made["host_token"], seats)


async def load(bases: list[str], tables: int, seconds: float) -> tuple[Figures, float]:
    """Open the tables (spread over the servers) and run their clients for ``seconds``."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    clients = [httpx.AsyncClient(base_url=b, limits=limits, timeout=60) for b in bases]
    try:
        opened = await asyncio.gather(*(open_table(clients[i % len(clients)], i)
                                        for i in range(tables)))  # fmt: skip
        figures = Figures()
        began = time.perf_counter()
        deadline = began + seconds
        await asyncio.gather(*(run_table(clients[i % len(clients)], table, i, deadline, figures)
                               for i, table in enumerate(opened)))  # fmt: skip
        return figures, time.perf_counter() - began
    finally:
        for http in clients:
            await http.aclose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def servers(url: str, count: int) -> Iterator[list[str]]:
    """``count`` uvicorn processes on the store at ``url``; their base URLs."""
    Store.open(url).close()  # create the schema once, before the servers race to
    ports = [free_port() for _ in range(count)]
    procs = [subprocess.Popen([sys.executable, "-c", SERVER, url, str(p)]) for p in ports]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    try:
        for proc, base in zip(procs, bases, strict=True):
            deadline = time.monotonic() + 30
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server on {base} did not start")
                try:
                    if httpx.get(f"{base}/openapi.json", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
        yield bases
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def measure(label: str, url: str, count: int, args: argparse.Namespace, base: float) -> None:
    with servers(url, count) as bases:
        figures, elapsed = asyncio.run(load(bases, args.tables, args.seconds))
    figures.line(label, elapsed, base)


def backend(name: str, url: str, args: argparse.Namespace, counts: list[int]) -> None:
    print(f"-- {name}: {args.tables} tables x {len(SEATS)} clients, {args.seconds:g} s")
    base = baseline(url, args.seconds)
    for count in counts:
        measure(f"HTTP, {count} server process{'es' if count > 1 else ''}", url, count, args, base)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=50, help="tables (4 clients each)")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        backend("SQLite file (WAL)", f"sqlite:///{folder}/load.db", args, [1])
    pg = os.environ.get("TABLESIDE_TEST_POSTGRES_URL") or os.environ.get("TABLESIDE_DATABASE_URL")
    if pg and pg.startswith("postgresql"):
        with scratch_schema(pg, prefix="tableside_bench") as url:
            backend("PostgreSQL", url, args, [1, 2])
    else:
        print("PostgreSQL: skipped (set TABLESIDE_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
