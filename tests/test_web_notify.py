"""Fan-out between server processes on PostgreSQL (LISTEN/NOTIFY), and none on SQLite.

The PostgreSQL cases follow ``test_store_support``: skipped without
``$TABLESIDE_TEST_POSTGRES_URL``, failing under CI. Every stream here polls only every 30
seconds, so a record that arrives within a second was pushed, not polled.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import psycopg
import pytest
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from ports import free_port
from test_store_support import database_url, postgres_base_url
from test_web_stream import parse, stance

from tableside import errors, service
from tableside.store import Store, table_log
from tableside.store.db import NOTIFY_CHANNEL
from tableside.store.scratch import scratch_schema
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.demo import create_demo
from tableside.web.hub import Notifier, record_stream
from tableside.web.notify import Listener, listen, parse_payload
from tableside.web.stage import Pings
from tableside.web.table import WebTable

SLOW_POLL = 30.0
PROMPT = 10.0  # seconds: a pushed record arrives well within this (idle: milliseconds, starved:
# seconds); a polled one would take SLOW_POLL, three times as long


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    with database_url("postgresql", tmp_path) as url:
        yield url


def raw_connection(store: Store) -> psycopg.Connection[Any]:
    args, kwargs = store.engine.dialect.create_connect_args(store.engine.url)
    return psycopg.connect(*args, **kwargs, autocommit=True)


def announcements(connection: psycopg.Connection[Any], wait: float) -> list[str]:
    return [n.payload for n in connection.notifies(timeout=wait)]


def test_payloads_name_the_encounter() -> None:
    assert parse_payload("12:40") == 12
    assert parse_payload("nonsense") is None


def test_an_append_on_postgresql_is_announced_once_committed_and_never_when_refused(
    pg_url: str,
) -> None:
    with Store.open(pg_url) as store:
        table = WebTable(store)
        demo = create_demo(table)
        eid = demo.encounter_id
        revision = store.encounter(eid).revision
        with raw_connection(store) as listening:
            assert listen(listening).startswith(NOTIFY_CHANNEL)
            service.run_command(store, eid, stance("Herald"))
            encounter = service.open_encounter(store, eid)
            record = encounter.execute(stance("Watcher"))
            table_log.append(store, eid, record, hidden=True)
            expected = [f"{eid}:{revision + 1}", f"{eid}:{revision + 2}"]
            assert announcements(listening, 0.5) == expected
            with pytest.raises(errors.StaleRevisionError):
                store.append(eid, record)  # revision + 2 again: refused, nothing written
            assert announcements(listening, 0.3) == []


def test_sv5_each_schema_announces_on_its_own_channel(pg_url: str) -> None:
    """SV-5: a database's channels are shared by its schemas; each store's appends wake only the
    listeners of its own schema (two tests' or tables' stores in one database never mix)."""
    with (
        scratch_schema(postgres_base_url(), prefix="tableside_test") as other_url,
        Store.open(pg_url) as store,
        Store.open(other_url) as other,
    ):
        mine, theirs = create_demo(WebTable(store)), create_demo(WebTable(other))
        with raw_connection(store) as listening, raw_connection(other) as overhearing:
            channel, other_channel = listen(listening), listen(overhearing)
            assert channel != other_channel
            assert channel.startswith(f"{NOTIFY_CHANNEL}_") and len(channel) <= 63
            revision = store.encounter(mine.encounter_id).revision
            service.run_command(other, theirs.encounter_id, stance("Herald"))
            service.run_command(store, mine.encounter_id, stance("Herald"))
            assert announcements(listening, 0.5) == [f"{mine.encounter_id}:{revision + 1}"]
            assert len(announcements(overhearing, 0.3)) == 1  # its own append only
    with psycopg.connect(postgres_base_url().replace("postgresql+psycopg", "postgresql"),
                         autocommit=True) as public:  # fmt: skip
        assert listen(public) == NOTIFY_CHANNEL  # the schema public keeps the plain name


def test_the_listener_wakes_streams_at_once_and_comes_back_after_losing_its_connection(
    pg_url: str,
) -> None:
    with Store.open(pg_url) as store, Store.open(pg_url) as other:
        table = WebTable(store)
        demo = create_demo(table)
        eid = demo.encounter_id
        host = Principal(demo.table_id, None)
        start = store.encounter(eid).revision
        notifier = Notifier()
        listener = Listener(store, notifier)
        assert listener.start() and listener.connected

        async def scenario() -> list[float]:
            stream = record_stream(
                notifier, eid, lambda rev: table.visible_after(host, eid, rev), start, SLOW_POLL
            )
            await anext(stream)
            delays = []
            for who in ("Brute", "Herald"):
                began = time.monotonic()
                # another process (no notifier of ours): only LISTEN/NOTIFY can wake the stream
                await asyncio.to_thread(service.run_command, other, eid, stance(who))
                event = parse(await asyncio.wait_for(anext(stream), EVENT_WAIT))
                delays.append(time.monotonic() - began)
                assert event["command"]["args"] == {"id": who}
                if who == "Brute":  # cut the listener off: it must reconnect and listen again
                    pid = listener.backend_pid()
                    with raw_connection(other) as admin:
                        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                    deadline = time.monotonic() + EVENT_WAIT
                    while time.monotonic() < deadline:
                        if listener.connects == 2 and listener.connected:
                            break
                        await asyncio.sleep(0.05)
                    assert listener.connects == 2 and listener.connected
            await stream.aclose()
            return delays

        try:
            delays = asyncio.run(scenario())
        finally:
            listener.stop()
        assert not listener.connected
        assert max(delays) < PROMPT, delays


def test_on_sqlite_there_is_no_listener_and_the_poll_stands_in(tmp_path: Path) -> None:
    with database_url("sqlite", tmp_path) as url, TestClient(create_app(url)) as client:
        assert not hasattr(client.app.state, "listener")  # type: ignore[attr-defined]
        assert client.post("/api/tables", json={"name": "T"}).status_code == 201


def test_a_postgresql_app_listens_while_it_runs(pg_url: str) -> None:
    app = create_app(pg_url)
    with TestClient(app):
        listener: Listener = app.state.listener
        assert listener.connected
    assert not listener.connected


# -- two real server processes ---------------------------------------------------------------

SERVER = """
import sys, uvicorn
from tableside.web import create_app
url, port, poll = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
uvicorn.run(create_app(url, poll=poll, listen_poll=poll), host="127.0.0.1", port=port,
            log_level="warning", timeout_graceful_shutdown=1)
"""


@pytest.fixture
def servers(pg_url: str) -> Iterator[list[str]]:
    """Two uvicorn processes serving the same PostgreSQL database; their base URLs."""
    ports = [free_port(), free_port()]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs = [
        subprocess.Popen([sys.executable, "-c", SERVER, pg_url, str(port), str(SLOW_POLL)], env=env)
        for port in ports
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for proc, base in zip(procs, bases, strict=True):
            wait_until_up(proc, base)
        yield bases
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def wait_until_up(proc: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the server on {base} exited"
        try:
            if httpx.get(f"{base}/openapi.json", timeout=1).status_code == 200:
                return  # the lifespan (and so LISTEN) has started before anything is served
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the server on {base} did not start")


def follow(
    base: str, eid: int, token: str, after: int, into: queue.Queue[Any], kind: str = "record"
) -> threading.Thread:
    """Read a live stream in a thread, putting (arrival time, record) on ``into``.

    ``kind`` "map": the data of each ``map`` event instead (W-67), the records left out.
    """

    def wanted(event: list[str]) -> bool:
        return kind == "record" or f"event: {kind}" in event

    def read(event: list[str]) -> Any:
        if kind == "record":
            return parse("\n".join(event))
        return json.loads(next(p for p in event if p.startswith("data: ")).removeprefix("data: "))

    def run() -> None:
        params: dict[str, Any] = {"after": after}
        headers = {"Authorization": f"Bearer {token}"}
        url = f"{base}/api/encounters/{eid}/stream"
        timeout = httpx.Timeout(5, read=60)
        try:
            with httpx.stream("GET", url, params=params, headers=headers, timeout=timeout) as r:
                into.put((time.monotonic(), None))  # connected
                event: list[str] = []
                for line in r.iter_lines():
                    if line:
                        event.append(line)
                    elif any(part.startswith("data: ") for part in event):
                        if wanted(event):
                            into.put((time.monotonic(), read(event)))
                        event = []
                    else:
                        event = []
        except httpx.TransportError:
            pass  # the server stopped at the end of the test

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_command_to_one_server_process_reaches_the_stream_of_another_at_once(
    pg_url: str, servers: list[str]
) -> None:
    with Store.open(pg_url) as store:
        demo = create_demo(WebTable(store))
        start = store.encounter(demo.encounter_id).revision
    eid = demo.encounter_id
    token = demo.host_page.split("?token=")[1]
    arrivals: list[queue.Queue[Any]] = [queue.Queue(), queue.Queue()]
    for base, into in zip(servers, arrivals, strict=True):
        follow(base, eid, token, start, into)
        assert into.get(timeout=EVENT_WAIT)[1] is None
    time.sleep(0.2)  # both servers have read the log once and wait
    headers = {"Authorization": f"Bearer {token}"}
    for i, (sender, who) in enumerate(zip(servers, ("Herald", "Brute"), strict=True)):
        sent = time.monotonic()
        answer = httpx.post(
            f"{sender}/api/encounters/{eid}/commands",
            headers=headers,
            json={"kind": "stance", "args": {"id": who}},
            timeout=EVENT_WAIT,
        )
        assert answer.status_code == 200, answer.text
        for into in arrivals:  # the sender's own stream and the other process's stream
            arrived, record = into.get(timeout=EVENT_WAIT)
            assert record["revision"] == start + 1 + i
            assert record["command"]["args"] == {"id": who}
            assert arrived - sent < PROMPT, (sender, arrived - sent)


def test_w67_a_ping_and_a_fog_change_reach_the_pages_of_another_process_at_once(
    pg_url: str, servers: list[str]
) -> None:
    """Two server processes: a ping taken by one and the fog set through the other reach the
    streams of both within a second (their poll is 30 s): the ping in its announcement, the fog
    read from the store after its own (W-67)."""
    with Store.open(pg_url) as store:
        demo = create_demo(WebTable(store))
    eid, token = demo.encounter_id, demo.host_page.split("?token=")[1]
    arrivals: list[queue.Queue[Any]] = [queue.Queue(), queue.Queue()]
    for base, into in zip(servers, arrivals, strict=True):
        follow(base, eid, token, 10**6, into, kind="map")
        assert into.get(timeout=EVENT_WAIT)[1] is None
    time.sleep(0.3)  # both streams have read once and wait
    headers = {"Authorization": f"Bearer {token}"}
    sent = time.monotonic()
    r = httpx.post(f"{servers[0]}/api/encounters/{eid}/ping", headers=headers,
                   json={"x": 3, "y": 4}, timeout=EVENT_WAIT)  # fmt: skip
    assert r.status_code == 201, r.text
    for into in arrivals:
        arrived, data = into.get(timeout=EVENT_WAIT)
        assert data == {"kind": "ping", "x": 3.0, "y": 4.0, "by": "Host"}
        assert arrived - sent < PROMPT
    sent = time.monotonic()
    fog = {"areas": [{"x": 0, "y": 0, "w": 1, "h": 1}]}
    r = httpx.put(f"{servers[1]}/api/encounters/{eid}/fog", headers=headers, json=fog,
                  timeout=EVENT_WAIT)  # fmt: skip
    assert r.status_code == 200, r.text
    for into in arrivals:
        arrived, data = into.get(timeout=EVENT_WAIT)
        assert data == {"kind": "map", "version": 1}
        assert arrived - sent < PROMPT
    for into in arrivals:  # each once: the process that took the ping did not keep it twice
        assert into.empty()


def test_w67_a_malformed_or_own_announcement_keeps_no_ping() -> None:
    pings = Pings()
    pings.heard(5, f"ping:{pings.origin}:" + json.dumps({"x": 1, "y": 2, "by": "Ann"}))
    pings.heard(5, "map")
    pings.heard(5, "ping:other:" + json.dumps({"x": 1, "y": 2, "by": ""}))
    assert pings.after(5, 0) == []
    with pytest.raises(ValueError):
        pings.heard(5, "ping:other:" + json.dumps({"x": 1e12, "y": 2, "by": "Ann"}))
    pings.heard(5, "ping:other:" + json.dumps({"x": 1, "y": 2, "by": "Ann"}))
    assert pings.after(5, 0) == [(1, {"kind": "ping", "x": 1.0, "y": 2.0, "by": "Ann"})]
