"""What idle live streams cost everyone else: command latency with 0 and N open streams.

A real server (uvicorn in a subprocess, one process, SQLite in a temporary directory) serves two
tables, each with a War of the example roster. ``--streams`` Server-Sent Event streams are opened
with the Host token of table A and left idle; then the Host of table B sends ``--commands``
``stance`` commands one after another and their latency (sending to the whole answer) is
measured, before and after the streams are opened. The limits of open streams (W-13) are raised
through their environment variables for the run, so that one token may hold them all.

Run it on this tree, and on an older one with ``PYTHONPATH=<older>/src``, to compare::

    python bench/web_hostile.py --streams 300 --commands 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx

from tableside.encounter.roster import add_commands


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def server(streams: int) -> Iterator[str]:
    """The web table in a subprocess on a new SQLite file; its base URL."""
    with tempfile.TemporaryDirectory() as scratch:
        port = free_port()
        env = {**os.environ, "TABLESIDE_DATABASE_URL": f"sqlite:///{Path(scratch) / 'b.db'}",
               "TABLESIDE_STREAMS_PER_TOKEN": str(streams + 10),
               "TABLESIDE_STREAMS_PER_ADDRESS": str(streams + 10),
               "TABLESIDE_COMMANDS_PER_MINUTE": "1000000",
               "TABLESIDE_ADDRESS_COMMANDS_PER_MINUTE": "1000000",
               "TABLESIDE_TABLE_COMMANDS_PER_MINUTE": "1000000",
               "TABLESIDE_MAX_STREAMS": str(streams + 10)}  # fmt: skip
        command = [sys.executable, "-m", "uvicorn", "--factory", "tableside.web:create_app",
                   "--port", str(port), "--log-level", "warning",
                   "--timeout-graceful-shutdown", "1"]  # fmt: skip
        process = subprocess.Popen(command, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(base + "/", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def new_war(http: httpx.Client) -> tuple[int, str]:
    """A table with a War of the example roster: the encounter's id and the Host's token."""
    table = http.post("/api/tables", json={"name": "Bench"}).json()
    token = table["host_token"]
    headers = {"Authorization": f"Bearer {token}"}
    body = {"game": "majesty-war", "name": "Ford", "seed": 7}
    eid = http.post(f"/api/tables/{table['id']}/encounters", headers=headers, json=body).json()
    for command in add_commands():
        r = http.post(f"/api/encounters/{eid['id']}/commands", headers=headers,
                      json={"kind": command.kind, "args": command.args})  # fmt: skip
        r.raise_for_status()
    return int(eid["id"]), token


def latencies(http: httpx.Client, eid: int, token: str, count: int) -> list[float]:
    """Seconds per command for ``count`` commands sent one after another."""
    headers = {"Authorization": f"Bearer {token}"}
    took = []
    for i in range(count):
        body: dict[str, Any] = {"kind": "stance", "args": {"id": "Herald", "on": bool(i % 2)}}
        start = time.perf_counter()
        r = http.post(f"/api/encounters/{eid}/commands", headers=headers, json=body)
        took.append(time.perf_counter() - start)
        r.raise_for_status()
    return took


async def open_streams(base: str, eid: int, token: str, count: int) -> list[Any]:
    """``count`` idle streams (raw connections whose answers began 200)."""
    host, port = base.removeprefix("http://").split(":")
    writers = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /api/encounters/{eid}/stream HTTP/1.1\r\nHost: {host}\r\n"
                     f"Authorization: Bearer {token}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())  # fmt: skip
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"a stream was refused: {status!r}")
        writers.append(writer)
    return writers


def figures(label: str, took: list[float]) -> str:
    """Median and 90th percentile in ms."""
    ordered = sorted(took)
    p90 = ordered[int(0.9 * len(ordered))]
    return f"{label}: median {statistics.median(ordered) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms"


async def run(args: argparse.Namespace) -> None:
    """Measure with no stream, then with ``args.streams`` idle ones on another table."""
    with server(args.streams) as base, httpx.Client(base_url=base, timeout=60) as http:
        idle_eid, idle_token = new_war(http)
        eid, token = new_war(http)
        latencies(http, eid, token, 20)  # warm up
        print(figures("no stream", latencies(http, eid, token, args.commands)))
        writers = await open_streams(base, idle_eid, idle_token, args.streams)
        await asyncio.sleep(2.0)  # let every stream settle into its wait
        took = await asyncio.to_thread(latencies, http, eid, token, args.commands)
        print(figures(f"{args.streams} idle streams on another table's token", took))
        for writer in writers:
            writer.close()
            await writer.wait_closed()


def main() -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--commands", type=int, default=200)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
