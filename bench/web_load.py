"""A bounded load test of the web table on loopback: commands per second and latency.

The real server (``tableside serve``, a subprocess) serves the store, on SQLite and, when
TABLESIDE_TEST_POSTGRES_URL is set (``scripts/postgres.sh`` prints one), on PostgreSQL (a scratch
schema, dropped afterwards) with one server process and with ``--workers 2`` (two processes on
one port, every table's requests spread over both). Each of ``--tables`` tables gets a War of
the example roster and 4 player seats of 2 combatants; 4 clients per table (asyncio, with a
minimal keep-alive HTTP/1.1 client, :class:`Loopback`) post the simple policy's next command
against the table's fetched state (the records the answers carry) whenever it acts for one of
their combatants, with their own token and the revision they saw, for ``--seconds``; when a War
ends the Host starts another. The Host's set-up commands count as commands too. 409s and other
refusals are counted, not fatal.

Baseline (this process, same backend, named "WebTable in process"): the same Wars and the same
calls the server makes for each command (authorise the token, decide, append, answer) made
directly on :class:`tableside.web.table.WebTable`, one after another, with no HTTP. The ratio is
the HTTP rate over the baseline's rate. Latency is per command, from sending to the whole
answer, queueing included; while the clients run, this process's own garbage collector is
paused (:func:`collector_paused`, W-71), so that its pauses (up to 200 ms with the clients' War
replicas) are not counted as the server's latency. ``server CPU`` is the server processes' CPU
time (user + system, from /proc, Linux) per command sent: it moves much less than rates when
other work shares the machine. A second reference line runs the Wars through
:class:`tableside.service.Session` (engine and store only, no authorisation or answer).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx

from tableside import service
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.policy import next_command
from tableside.encounter.roster import FOUR_AGAINST_FOUR, add_commands
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.store import Store
from tableside.store.scratch import scratch_schema
from tableside.web.auth import ForbiddenError, Principal
from tableside.web.table import WebTable

TABLESIDE = str(Path(sys.executable).with_name("tableside"))
NAMES = [entry[0] for entry in FOUR_AGAINST_FOUR]
SEATS = [tuple(NAMES[i : i + 2]) for i in range(0, len(NAMES), 2)]
# A capacity test, not play: every client is on one address and sends as fast as the server
# answers, so the rates of W-50 (a few commands a second per seat) are raised out of its way.
UNTHROTTLED = {
    f"TABLESIDE_{name}": "1000000000"
    for name in (
        "COMMANDS_PER_MINUTE",
        "TABLE_COMMANDS_PER_MINUTE",
        "ADDRESS_COMMANDS_PER_MINUTE",
        "SEATS_PER_MINUTE",  # 200 seats are added at once from one address
    )
}
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
dumps = json.JSONEncoder(separators=(",", ":")).encode


@dataclass
class Figures:
    """What one run measured."""

    latencies: list[float] = field(default_factory=list)
    conflicts: int = 0
    refusals: int = 0
    answers: int = 0  # decisions answered by their owners (counted in the commands too)
    wars: int = 0
    cpu: float | None = None  # seconds of the server processes' CPU during the run

    def line(
        self,
        label: str,
        elapsed: float,
        baseline: float | None,
        reference: Floor | None = None,
        own: Floor | None = None,
    ) -> Floor:
        ordered = sorted(self.latencies)
        rate = len(ordered) / elapsed
        p50, p99 = (ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
                    for q in (0.50, 0.99))  # fmt: skip
        sent = len(ordered) + self.conflicts + self.refusals
        cpu = "" if self.cpu is None else f"  server CPU {self.cpu / sent * 1000:.2f} ms/cmd"
        ratio = "" if baseline is None else f"  ratio {rate / baseline:.3f}"
        floor = "" if reference is None else (
            f"  vs reference: {rate / reference.rate:.2f}x the rate, "
            f"{p99 / reference.p99:.1f}x the p99"
        )  # fmt: skip
        if own is not None:  # PostgreSQL's lines: its own backend's reference too
            floor += (f"; vs PostgreSQL's: {rate / own.rate:.2f}x, "
                      f"{p99 / own.p99:.1f}x")  # fmt: skip
        print(
            f"{label:<40} {len(ordered):>6} cmds {rate:>8,.0f} /s  p50 {p50:6.1f} ms  "
            f"p99 {p99:6.1f} ms  409s {self.conflicts}  refused {self.refusals}  "
            f"answers {self.answers}  "
            f"Wars {self.wars}{cpu}{ratio}{floor}  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        return Floor(rate, p99)


DOCUMENTED: dict[str, tuple[float, float, float | None]] = {  # session 8's end, run 2
    "reference server (SQLite)": (1553, 60.4, 0.63),
    "reference server (PostgreSQL)": (1587, 74.6, 0.63),
    "SQLite file (WAL) baseline: WebTable in process, no HTTP": (1450, 1.3, None),
    "SQLite file (WAL) HTTP, 1 server process": (1075, 67.9, 0.87),
    "PostgreSQL baseline: WebTable in process, no HTTP": (951, 1.7, None),
    "PostgreSQL HTTP, 1 server process": (641, 113.8, 1.01),
    "PostgreSQL HTTP, 2 server processes": (864, 119.7, 1.28),
}
"""The last full run docs/web.md gives ("Near the floor", issue 26; a busy machine, load 6 to
11): commands/s, p99 ms and server CPU ms per command, printed under each line to compare."""


def documented(key: str) -> None:
    """Print the figures docs/web.md gives for the line ``key`` (if any)."""
    found = DOCUMENTED.get(key)
    if found is not None:
        rate, p99, cpu = found
        shown = "" if cpu is None else f", {cpu:.2f} ms CPU/cmd"
        print(f"{'':<40} docs/web.md: {rate:,.0f} /s, p99 {p99:.1f} ms{shown}", flush=True)


@dataclass(frozen=True)
class Floor:
    """A run's commands per second and p99 latency (ms): the reference's, to compare with."""

    rate: float
    p99: float


# -- baselines: in process, no HTTP ----------------------------------------------------------


def web_table_baseline(url: str, seconds: float) -> float:
    """The server's calls for each command, made on a WebTable directly, for ``seconds``.

    One table with the same 4 seats as the load's; each War's commands are sent with the token
    of the seat whose combatant acts (the Host's for the rest) and the revision in memory.
    """
    figures = Figures()
    table = WebTable(Store.open(url))
    try:
        table_id, host = table.create_table("Baseline")
        owner = {}
        for i, characters in enumerate(SEATS):
            _seat, token = table.add_player(Principal(table_id, None), table_id, f"P{i}",
                                            characters)  # fmt: skip
            owner.update(dict.fromkeys(characters, token))
        began = time.perf_counter()
        deadline = began + seconds
        while time.perf_counter() < deadline:
            info = table.create_encounter(Principal(table_id, None), table_id, "majesty-war",
                                          f"base {figures.wars}", figures.wars)  # fmt: skip
            figures.wars += 1
            replica: Encounter[WarState] = Encounter(MajestyWar(), info.seed)
            setup = iter([*add_commands(), Command("next")])
            while time.perf_counter() < deadline and not replica.state.ended:
                command = next(setup, None)
                token = host
                if command is None:  # as the load's clients: the actor's player, else the Host
                    command = next_command(replica.state)
                    token = owner.get(acting(command, replica.state) or "", host)
                start = time.perf_counter()
                try:
                    answer = direct(table, token, info.id, command, replica.revision)
                except ForbiddenError:
                    figures.refusals += 1
                    answer = direct(table, host, info.id, command, replica.revision)
                figures.latencies.append(time.perf_counter() - start)
                replica.load(LogRecord.from_json(unmarked(answer["record"])))
                while "pending" in answer:  # the defender's player answers its own decision
                    asked = answer["pending"][0]
                    start = time.perf_counter()
                    who, _info = table.at_encounter(owner.get(asked["combatant"], host), info.id)
                    answer = table.answer_decision(who, info.id, asked["id"], suggestion(asked))
                    figures.latencies.append(time.perf_counter() - start)
                    figures.answers += 1
                    replica.load(LogRecord.from_json(unmarked(answer["record"])))
        return figures.line("baseline: WebTable in process, no HTTP",
                            time.perf_counter() - began, None).rate  # fmt: skip
    finally:
        table.store.close()


def suggestion(asked: dict[str, Any]) -> Any:
    """The answer a player gives in the load: the suggestion (Approve for a proposal)."""
    return "approve" if asked["kind"] == "approve" else asked["suggested"]


def direct(
    table: WebTable, token: str, encounter_id: int, command: Command, revision: int
) -> dict[str, Any]:
    """What the command endpoint does, without HTTP: authorise, then execute and answer."""
    who, _info = table.at_encounter(token, encounter_id)
    return table.execute(who, encounter_id, command, revision)


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
        return figures.line("reference: Session (engine + store)", time.perf_counter() - began,
                            None).rate  # fmt: skip
    finally:
        store.close()


# -- the load over HTTP -----------------------------------------------------------------------


class Answer:
    """An HTTP answer: its status and JSON body."""

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code = status_code
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise SystemExit(f"HTTP {self.status_code}: {self.body[:200]!r}")


class Loopback:
    """A minimal HTTP/1.1 keep-alive client for JSON POSTs on loopback.

    It costs the benchmark's process a fraction of a general client's CPU per request; on a
    machine of 2 cores the load generator must leave the server its share.
    """

    def __init__(self, base: str) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(
        self,
        path: str,
        document: Any,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        body = dumps(document).encode()
        lines = [f"POST {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 "Content-Type: application/json", f"Content-Length: {len(body)}",
                 *(f"{k}: {v}" for k, v in (headers or {}).items())]  # fmt: skip
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        reader, writer = self.idle.pop() if self.idle else await self.connect()
        writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next(
            int(h.split(":", 1)[1]) for h in head if h.lower().startswith("content-length:")
        )
        answer = Answer(int(head[0].split()[1]), await reader.readexactly(length))
        self.idle.append((reader, writer))
        return answer

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port)

    async def aclose(self) -> None:
        for _reader, writer in self.idle:
            writer.close()
        self.idle.clear()


@dataclass
class Table:
    """One table as its clients know it: tokens and the fetched state of its current War."""

    id: int
    host: str
    seats: list[tuple[str, tuple[str, ...]]]
    encounter: int = 0
    replica: Encounter[WarState] = field(default_factory=lambda: Encounter(MajestyWar(), 0))
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)


def unmarked(record: dict[str, Any]) -> dict[str, Any]:
    """A record of an answer without the web table's ``hidden`` mark."""
    return {k: v for k, v in record.items() if k != "hidden"}


def acting(command: Command, state: WarState) -> str | None:
    """The combatant a command acts for (``next``: whoever holds the Turn; None: the Host's)."""
    if command.kind == "strike":
        return str(command.args["striker"])
    if command.kind == "next":
        current = state.current
        return None if current is None else str(current.combatant)
    return str(command.args.get("id")) if "id" in command.args else None


async def post(
    http: Loopback, table: Table, token: str, command: Command, figures: Figures
) -> bool:
    """Send one command with the revision seen; on success fold its record into the state."""
    body = {"kind": command.kind, "args": command.args, "revision": table.replica.revision}
    start = time.perf_counter()
    answer = await http.post(f"/api/encounters/{table.encounter}/commands", document=body,
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    elapsed = time.perf_counter() - start
    if answer.status_code == 409:
        figures.conflicts += 1
        return False
    if answer.status_code not in (200, 202):
        figures.refusals += 1
        return False
    figures.latencies.append(elapsed)
    await fold(table, answer)
    while answer.status_code == 202:  # the owner of each decision answers it (its own token)
        asked = answer.json()["pending"][0]
        token = next((t for t, chars in table.seats if asked["combatant"] in chars), table.host)
        start = time.perf_counter()
        answer = await http.post(
            f"/api/encounters/{table.encounter}/decisions/{asked['id']}",
            document={"choice": suggestion(asked)},
            headers={"Authorization": f"Bearer {token}"},
        )
        if answer.status_code not in (200, 202):
            figures.refusals += 1
            return False
        figures.latencies.append(time.perf_counter() - start)
        figures.answers += 1
        await fold(table, answer)
    return True


async def fold(table: Table, answer: Answer) -> None:
    """Fold an answer's record into the table's fetched state and wake its clients."""
    record = LogRecord.from_json(unmarked(answer.json()["record"]))
    async with table.changed:
        if record.revision == table.replica.revision + 1:
            table.replica.load(record)
        table.changed.notify_all()


async def new_war(http: Loopback, table: Table, seed: int, figures: Figures) -> None:
    """The Host starts a War at the table: the roster added and Cycle 1 begun."""
    headers = {"Authorization": f"Bearer {table.host}"}
    body = {"game": "majesty-war", "name": f"War {seed}", "seed": seed}
    made = await http.post(f"/api/tables/{table.id}/encounters", headers=headers, document=body)
    made.raise_for_status()
    table.encounter = made.json()["id"]
    table.replica = Encounter(MajestyWar(), seed)
    figures.wars += 1
    for command in [*add_commands(), Command("next")]:
        await post(http, table, table.host, command, figures)


async def client(
    http: Loopback, table: Table, seat: int, deadline: float, figures: Figures
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
    http: Loopback, table: Table, number: int, deadline: float, figures: Figures
) -> None:
    war = 0
    while time.perf_counter() < deadline:
        await new_war(http, table, number * 1000 + war, figures)
        war += 1
        await asyncio.gather(*(client(http, table, seat, deadline, figures)
                               for seat in range(len(table.seats))))  # fmt: skip


async def open_table(http: Loopback, number: int) -> Table:
    """A table with 4 player seats (2 combatants each)."""
    made = (await http.post("/api/tables", document={"name": f"Load {number}"})).json()
    headers = {"Authorization": f"Bearer {made['host_token']}"}
    seats = []
    for i, characters in enumerate(SEATS):
        body = {"name": f"Player {i}", "characters": list(characters)}
        seat = await http.post(f"/api/tables/{made['id']}/players", headers=headers, document=body)
        seats.append((seat.json()["token"], characters))
    return Table(made["id"], made["host_token"], seats)


async def load(
    bases: list[str], tables: int, seconds: float, begun: Callable[[], None] | None = None
) -> tuple[Figures, float]:
    """Open the tables (spread over the servers) and run their clients for ``seconds``.

    ``begun`` is called once the tables are open, as the commands begin (to read the server's
    CPU from there: opening 50 tables and their 200 seats is not a command).
    """
    clients = [Loopback(b) for b in bases]
    try:
        opened = await asyncio.gather(*(open_table(clients[i % len(clients)], i)
                                        for i in range(tables)))  # fmt: skip
        figures = Figures()
        if begun is not None:
            begun()
        with collector_paused():
            began = time.perf_counter()
            deadline = began + seconds
            tasks = [run_table(clients[i % len(clients)], table, i, deadline, figures)
                     for i, table in enumerate(opened)]  # fmt: skip
            await asyncio.gather(*tasks)
            return figures, time.perf_counter() - began
    finally:
        for http in clients:
            await http.aclose()


@contextmanager
def collector_paused() -> Iterator[None]:
    """This process's collector off while the clients run (W-71), and on again after.

    The load's clients keep each table's War replica: the collector's walks of them (every
    second or two, up to 200 ms each, measured) stopped every client at once, and each pause
    was counted in the latency of the commands in flight as if the server had taken it. The
    reference's clients keep nothing and were not stopped, so the comparison was biased.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def settle(pid: int) -> None:
    """Wait (at most 60 s) until the server and its children spend under 20 ms of CPU in 1 s.

    ``tableside serve`` warms the simulators and starts its balance process after it answers
    (W-76): seconds of CPU that are no command's and would otherwise share the cores with the
    load's first seconds and count in its CPU a command.
    """
    for _ in range(60):
        before = cpu_seconds(pid)
        time.sleep(1.0)
        after = cpu_seconds(pid)
        if before is None or after is None or after - before < 0.02:
            return


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a process and its children so far (None off Linux)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    total = 0.0
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent
            total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return total


@contextmanager
def server(url: str, workers: int) -> Iterator[tuple[str, int]]:
    """``tableside serve`` with ``workers`` processes on the store at ``url``; base URL, pid."""
    port = free_port()
    where = ["--db", url.removeprefix("sqlite:///")] if url.startswith("sqlite") else []
    env = {**os.environ, "TABLESIDE_DATABASE_URL": url, **UNTHROTTLED}
    several = ["--workers", str(workers)] if workers > 1 else []
    # the load opens its tables at once and starts Wars until the time is up: no W-13 caps on it
    roomy = ["--tables-per-minute", "100000", "--max-encounters", "100000"]
    argv = [TABLESIDE, "serve", "--port", str(port), *several, *roomy, *where]
    with started(argv, port, env, "/openapi.json") as running:
        yield running


@contextmanager
def started(
    argv: list[str], port: int, env: dict[str, str], ready: str
) -> Iterator[tuple[str, int]]:
    """A server process on ``port``, once ``ready`` answers 200; its base URL and pid."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server on {base} did not start")
            try:
                if httpx.get(f"{base}{ready}", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def reference_client(
    http: Loopback,
    number: int,
    seat: int,
    turn: list[int],
    changed: asyncio.Condition,
    deadline: float,
    figures: Figures,
) -> None:
    """One of a reference table's 4 clients: it posts a command whenever the turn is its seat's.

    As at a Tableside table, one command of a table is in flight at a time, and the clients of
    a table take turns.
    """
    body = {"kind": "strike", "args": {"striker": NAMES[seat], "defender": NAMES[-1 - seat]}}
    headers = {"Authorization": f"Bearer reference-token-{number}-{seat}"}
    while time.perf_counter() < deadline:
        if turn[0] % len(SEATS) != seat:
            async with changed:
                with suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), 0.5)
            continue
        start = time.perf_counter()
        path = f"/api/encounters/{number}/commands"
        answer = await http.post(path, document={**body, "revision": turn[0]}, headers=headers)
        if answer.status_code != 200:
            figures.refusals += 1
        else:
            figures.latencies.append(time.perf_counter() - start)
        async with changed:
            turn[0] += 1
            changed.notify_all()


async def reference_load(base: str, tables: int, seconds: float) -> tuple[Figures, float]:
    """The same shape of load on the reference server: ``tables`` × 4 clients taking turns."""
    http = Loopback(base)
    figures = Figures()
    try:
        with collector_paused():  # as Tableside's clients (W-71)
            began = time.perf_counter()
            deadline = began + seconds
            turns = [([0], asyncio.Condition()) for _ in range(tables)]
            await asyncio.gather(*(reference_client(http, n, seat, turn, changed, deadline,
                                                    figures)
                                   for n, (turn, changed) in enumerate(turns)
                                   for seat in range(len(SEATS))))  # fmt: skip
            return figures, time.perf_counter() - began
    finally:
        await http.aclose()


def reference(args: argparse.Namespace, url: str | None = None) -> Floor:
    """The reference server (``bench/reference_server.py``) under the same clients: its floor.

    On a SQLite file of its own, or on PostgreSQL at ``url`` (a scratch schema).
    """
    port = free_port()
    script = str(Path(__file__).with_name("reference_server.py"))
    name = "SQLite" if url is None else "PostgreSQL"
    with tempfile.TemporaryDirectory() as folder:
        where = ["--db", f"{folder}/ref.db"] if url is None else ["--url", url]
        argv = [sys.executable, script, "--port", str(port), *where]
        with started(argv, port, dict(os.environ), "/ready") as (address, pid):
            before = cpu_seconds(pid)
            figures, elapsed = asyncio.run(reference_load(address, args.tables, args.seconds))
            after = cpu_seconds(pid)
    if before is not None and after is not None:
        figures.cpu = after - before
    print(f"-- reference: FastAPI + uvicorn, one row appended to {name} per command; "
          f"{args.tables} tables x {len(SEATS)} clients, {args.seconds:g} s")  # fmt: skip
    found = figures.line(f"reference server ({name})", elapsed, None)
    documented(f"reference server ({name})")
    return found


def measure(
    label: str,
    url: str,
    workers: int,
    args: argparse.Namespace,
    base: float,
    floor: Floor,
    own: Floor | None = None,
) -> None:
    """One HTTP run against ``tableside serve --workers N``, with its server CPU.

    The load starts once the server's start-up work is over (:func:`settle`: its warm-ups,
    the balance process's start), and the CPU is read over the commands alone (W-71).
    """
    with server(url, workers) as (address, pid):
        settle(pid)
        marks: list[float | None] = []
        figures, elapsed = asyncio.run(
            load([address], args.tables, args.seconds, lambda: marks.append(cpu_seconds(pid)))
        )
        after = cpu_seconds(pid)
    before = marks[0] if marks else None
    if before is not None and after is not None:
        figures.cpu = after - before
    figures.line(label, elapsed, base, floor, own)
    documented(f"{BACKEND[0]} {label}")


BACKEND = [""]  # the backend the lines printed now are for (to find their documented figures)


def backend(
    name: str,
    url: str,
    args: argparse.Namespace,
    counts: list[int],
    floor: Floor,
    own: Floor | None = None,
) -> None:
    print(f"-- {name}: {args.tables} tables x {len(SEATS)} clients, {args.seconds:g} s")
    BACKEND[0] = name
    base = web_table_baseline(url, args.seconds)
    documented(f"{name} baseline: WebTable in process, no HTTP")
    baseline(url, args.seconds)
    for count in counts:
        label = f"HTTP, {count} server process{'es' if count > 1 else ''}"
        measure(label, url, count, args, base, floor, own)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=50, help="tables (4 clients each)")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each run")
    parser.add_argument("--postgres-only", action="store_true", help="skip the SQLite server")
    args = parser.parse_args()
    floor = reference(args)
    if not args.postgres_only:
        with tempfile.TemporaryDirectory() as folder:
            backend("SQLite file (WAL)", f"sqlite:///{folder}/load.db", args, [1], floor)
    pg = os.environ.get("TABLESIDE_TEST_POSTGRES_URL") or os.environ.get("TABLESIDE_DATABASE_URL")
    if pg and pg.startswith("postgresql"):
        with scratch_schema(pg, prefix="tableside_bench_ref") as url:
            own = reference(args, url)  # PostgreSQL's own floor, beside SQLite's (W-71)
        with scratch_schema(pg, prefix="tableside_bench") as url:
            backend("PostgreSQL", url, args, [1, 2], floor, own)
    else:
        print("PostgreSQL: skipped (set TABLESIDE_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
