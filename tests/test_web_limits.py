"""The web table under a hostile or busy load: limits (W-13), busy tables (W-14), JSON failures
(W-15). See docs/security.md."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg.pq import TransactionStatus
from sqlalchemy import event, text
from typer.testing import CliRunner

from tableside import service
from tableside.cli.app import app as cli_app
from tableside.encounter.log import Command
from tableside.encounter.roster import add_commands, character_doc
from tableside.store import Store, table_log
from tableside.web import create_app
from tableside.web.auth import SESSION_COOKIE, csrf_token
from tableside.web.guards import holder_key
from tableside.web.table import WebTable
from tableside.web_limits import Limits

BIG = [2**63, 2**63 - 1, 2**31, -1, 0, "abc", "9" * 60]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def serving(url: str, limits: Limits | None = None, **kwargs: Any) -> Iterator[TestClient]:
    app = create_app(url, limits=limits or Limits(), **kwargs)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


class War:
    """A table with a War of the example roster and two seats, on a TestClient."""

    def __init__(self, client: Any, table: WebTable | None = None) -> None:
        self.client = client
        self._table = table
        r = client.post("/api/tables", json={"name": "Friday"})
        assert r.status_code == 201, r.text
        self.tid, self.host = r.json()["id"], auth(r.json()["host_token"])
        r = client.post(f"/api/tables/{self.tid}/encounters", headers=self.host,
                        json={"game": "majesty-war", "name": "Ford", "seed": 7})  # fmt: skip
        self.eid = r.json()["id"]
        self.holy = auth(self.seat("Ann", ["Herald", "Watcher"]))
        self.fallen = auth(self.seat("Bo", ["Warrior", "Jackal"]))
        for command in add_commands():
            assert self.command(self.host, command.kind, args=command.args).status_code == 200

    @property
    def table(self) -> WebTable:
        found: WebTable = self._table or self.client.app.state.table
        return found

    def seat(self, name: str, characters: list[str]) -> str:
        r = self.client.post(f"/api/tables/{self.tid}/players", headers=self.host,
                             json={"name": name, "characters": characters})  # fmt: skip
        assert r.status_code == 201, r.text
        token: str = r.json()["token"]
        return token

    def command(self, who: dict[str, str], kind: str, **extra: Any) -> httpx.Response:
        path = f"/api/encounters/{self.eid}/commands"
        r: httpx.Response = self.client.post(path, headers=who, json={"kind": kind, **extra})
        return r

    def revision(self) -> int:
        return self.table.store.encounter(self.eid).revision

    def log(self) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/encounters/{self.eid}/log", headers=self.host)
        records: list[dict[str, Any]] = r.json()["records"]
        return records


def host_form(client: TestClient, war: War, path: str, data: dict[str, str]) -> httpx.Response:
    """A set-up form posted by the Host's browser: its session cookie and CSRF proof (W-11)."""
    token = war.host["Authorization"].split()[1]
    assert client.get(f"/join/{token}", follow_redirects=False).status_code == 303
    session = client.cookies[SESSION_COOKIE]
    form = {**data, "csrf": csrf_token(session)}
    r: httpx.Response = client.post(path, data=form, follow_redirects=False)
    return r


def refused(r: httpx.Response, status: int, *words: str) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert list(body) == ["error"], body
    sentence: str = body["error"]
    assert sentence.endswith(".") and "Traceback" not in sentence and len(sentence) < 400
    for word in words:
        assert word in sentence, sentence
    return sentence


def count(store: Store, name: str) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(text(f"SELECT COUNT(*) FROM {name}")).scalar_one())


# --- W-13: limits -------------------------------------------------------------------------------


def test_w13_tables_created_per_address_are_limited_by_a_sliding_window(url: str) -> None:
    with serving(url, Limits(tables_per_minute=3)) as client:
        store: Store = client.app.state.table.store  # type: ignore[attr-defined]
        for i in range(3):
            assert client.post("/api/tables", json={"name": f"T{i}"}).status_code == 201
        r = client.post("/api/tables", json={"name": "One too many"})
        refused(r, 429, "at most 3 a minute")
        assert r.headers["retry-after"]
        page = client.post("/tables", data={"name": "By the form"})
        assert page.status_code == 429 and "at most 3 a minute" in page.text
        assert count(store, "game_tables") == 3
        other = TestClient(client.app, client=("203.0.113.9", 4000))  # another address
        assert other.post("/api/tables", json={"name": "Elsewhere"}).status_code == 201
        assert count(store, "game_tables") == 4


def test_w13_the_roster_of_an_encounter_is_limited_in_both_games(url: str) -> None:
    with serving(url, Limits(max_combatants=8)) as client:
        war = War(client)  # the example roster: 8 combatants, the most allowed
        before = war.revision()
        extra = {"id": "Ninth", "character": character_doc("Ninth")}
        refused(war.command(war.host, "add", args=extra), 413, "8 combatants")
        r = client.post(f"/api/encounters/{war.eid}/characters", headers=war.host,
                        json={"character": character_doc("Ninth")})  # fmt: skip
        refused(r, 413, "8 combatants")
        page = host_form(
            client, war, f"/tables/{war.tid}/encounters/{war.eid}/characters",
            {"mode": "import", "document": json.dumps(character_doc("Ninth"))},
        )  # fmt: skip
        assert page.status_code == 413 and "8 combatants" in page.text
        assert war.revision() == before
        assert war.command(war.host, "next").status_code == 200  # the encounter still plays
        r = client.post(f"/api/tables/{war.tid}/encounters", headers=war.host,
                        json={"game": "strife-combat", "name": "Mill"})  # fmt: skip
        fight = f"/api/encounters/{r.json()['id']}/commands"
        for i in range(8):
            add = {"id": f"G{i}", "model": "Goblin", "side": "monsters", "position": [i, 0, 0]}
            r = client.post(fight, headers=war.host, json={"kind": "add", "args": add})
            assert r.status_code == 200, r.text
        add = {"id": "G9", "model": "Goblin", "side": "monsters", "position": [9, 0, 0]}
        r = client.post(fight, headers=war.host, json={"kind": "add", "args": add})
        refused(r, 413, "8 combatants")


def test_w13_seats_and_encounters_per_table_are_limited(url: str) -> None:
    with serving(url, Limits(max_seats=2, max_encounters=1)) as client:
        war = War(client)  # two seats and one encounter: both at their limit
        r = client.post(f"/api/tables/{war.tid}/players", headers=war.host,
                        json={"name": "Cy", "characters": []})  # fmt: skip
        refused(r, 413, "2 player seats")
        r = client.post(f"/api/tables/{war.tid}/encounters", headers=war.host,
                        json={"game": "majesty-war", "name": "Again"})  # fmt: skip
        refused(r, 413, "1 encounters")
        store = war.table.store
        assert count(store, "seats") == 2 and count(store, "encounters") == 1
        other = War(client)  # another table is not affected
        assert other.command(other.host, "next").status_code == 200


def test_w13_a_body_past_the_limit_is_refused_declared_or_streamed(url: str) -> None:
    with serving(url, Limits(max_body_bytes=4096)) as client:
        war = War(client)
        store = war.table.store
        huge = {"name": "x" * 5000}
        refused(client.post("/api/tables", json=huge), 413, "4096 bytes")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"name": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        r = client.post("/api/tables", content=chunks(),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert "content-length" not in r.request.headers
        refused(r, 413, "4096 bytes")
        body = json.dumps({"kind": "next", "args": {"pad": "z" * 5000}}).encode()
        r = client.post(f"/api/encounters/{war.eid}/commands", content=iter([body]),
                        headers={**war.host, "Content-Type": "application/json"})  # fmt: skip
        refused(r, 413)
        r = client.post("/api/tables", content=b"{}", headers={"Content-Length": "9" * 30})
        refused(r, 413)
        assert count(store, "game_tables") == 1
        assert war.command(war.host, "next").status_code == 200


@contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


def test_w13_open_streams_are_limited_per_token_and_in_all(url: str) -> None:
    app = create_app(url, limits=Limits(streams_per_token=2, max_streams=3), poll=0.05)
    table: WebTable = app.state.table
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        war = War(http, table)
        host, holy = (w["Authorization"].split()[1] for w in (war.host, war.holy))
        path = f"/api/encounters/{war.eid}/stream"
        opened: list[Any] = []

        def open_stream(token: str) -> httpx.Response:
            request = http.build_request("GET", path, headers=auth(token))
            r = http.send(request, stream=True)
            opened.append(r)
            return r

        try:
            assert [open_stream(host).status_code for _ in range(2)] == [200, 200]
            r = open_stream(host)
            r.read()
            refused(r, 429, "2 live streams")
            fallen = war.fallen["Authorization"].split()[1]
            assert [open_stream(t).status_code for t in (holy, holy, fallen)] == [200] * 3
            r = open_stream(fallen)
            r.read()
            refused(r, 429, "3 live streams")  # the players' streams fill the process
            holy_key = holder_key(table.principal(holy))
            assert table.streams.open() == 3 and table.streams.open(holy_key) == 2
            r = http.post(f"/api/encounters/{war.eid}/commands", headers=war.host,
                          json={"kind": "next"})  # fmt: skip
            assert r.status_code == 200  # commands still go through
            opened[0].close()
            host_key = holder_key(table.principal(host))
            wait_until(lambda: table.streams.open(host_key) == 1)
            assert open_stream(host).status_code == 200  # a Host's table always gets its own
            opened[3].close()
            wait_until(lambda: table.streams.open() == 2)
            assert open_stream(fallen).status_code == 200  # the slot was given back
        finally:
            for r in opened:
                r.close()
        wait_until(lambda: table.streams.open() == 0)


def wait_until(done: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_w13_idle_streams_make_no_reads_of_their_own(url: str) -> None:
    """Ten idle streams polling every 0.05 s would read 200 times a second; they read once."""
    app = create_app(url, limits=Limits(), poll=0.05)
    table: WebTable = app.state.table
    reads: list[int] = []
    real = table.visible_after

    def counted(*args: Any) -> Any:
        reads.append(1)
        return real(*args)

    table.visible_after = counted  # type: ignore[method-assign,assignment]
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        war = War(http, table)
        token = war.host["Authorization"].split()[1]
        path = f"/api/encounters/{war.eid}/stream"
        streams = [
            http.send(http.build_request("GET", path, headers=auth(token)), stream=True)
            for _ in range(8)
        ]
        try:
            wait_until(lambda: len(reads) >= 8)
            time.sleep(1.0)
            assert len(reads) <= 8 + 8  # at most one more each (the watch's first look)
            with Store.open(url) as other:  # another process: the watch task wakes them
                service.run_command(other, war.eid, Command("stance", {"id": "Herald"}))
            lines = streams[0].iter_lines()
            wanted = f"id: {war.revision()}"
            deadline = time.monotonic() + 10
            while next(lines) != wanted:
                assert time.monotonic() < deadline
        finally:
            for s in streams:
                s.close()


# --- W-14: busy tables --------------------------------------------------------------------------


def test_w14_a_command_still_valid_after_newer_records_is_decided_not_refused(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        for on in (True, False, True):
            seen = war.revision()
            assert war.command(war.fallen, "stance", args={"id": "Warrior", "on": on}).is_success
            r = war.command(war.holy, "stance", args={"id": "Herald", "on": on}, revision=seen)
            assert r.status_code == 200, r.text
            assert r.json()["state"]["revision"] == seen + 2
            assert war.command(war.fallen, "stance", args={"id": "Jackal"}).is_success
            r = war.command(war.holy, "stance", args={"id": "Watcher"}, revision=seen,
                            exact_revision=True)  # fmt: skip
            refused(r, 409, f"revision {seen}", "3 newer record")
        ahead = war.revision() + 5
        r = war.command(war.holy, "stance", args={"id": "Herald"}, revision=ahead)
        refused(r, 409, "only at revision")
        r = client.post(f"/api/encounters/{war.eid}/undo", headers=war.host,
                        json={"revision": war.revision() - 1})  # fmt: skip
        refused(r, 409)  # the Host's undo is always exact


def test_w14_with_others_busy_a_players_commands_with_its_revision_go_through(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        stop = threading.Event()
        others: list[int] = []

        def busy() -> None:
            on = True
            while not stop.is_set():
                r = war.command(war.fallen, "stance", args={"id": "Warrior", "on": on})
                others.append(r.status_code)
                on = not on
                time.sleep(0.005)

        thread = threading.Thread(target=busy)
        thread.start()
        try:
            statuses, exact = [], []
            for i in range(12):
                seen = war.revision()
                time.sleep(0.03)  # the others move on meanwhile
                args = {"id": "Herald", "on": bool(i % 2)}
                statuses.append(war.command(war.holy, "stance", args=args, revision=seen))
                seen = war.revision()
                time.sleep(0.03)
                exact.append(war.command(war.holy, "stance", args=args, revision=seen,
                                         exact_revision=True).status_code)  # fmt: skip
        finally:
            stop.set()
            thread.join()
        assert [r.status_code for r in statuses] == [200] * 12, [r.text for r in statuses]
        assert 409 in exact and set(exact) <= {200, 409}
        assert others and set(others) == {200}


def test_w14_a_command_beaten_by_another_process_is_decided_again_unless_exact(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving(url) as client:
        war = War(client)
        real = table_log.append
        raced: list[int] = []

        def race(store: Store, eid: int, *args: Any) -> None:
            if not raced:  # another process appends between this one's read and its append
                raced.append(1)
                with Store.open(url) as other:
                    service.run_command(other, eid, Command("stance", {"id": "Jackal"}))
            real(store, eid, *args)

        monkeypatch.setattr(table_log, "append", race)
        seen = war.revision()
        r = war.command(war.holy, "stance", args={"id": "Herald"}, revision=seen)
        assert r.status_code == 200, r.text
        assert [x["command"]["args"]["id"] for x in war.log()[-2:]] == ["Jackal", "Herald"]
        raced.clear()
        seen = war.revision()
        r = war.command(war.holy, "stance", args={"id": "Herald"}, revision=seen,
                        exact_revision=True)  # fmt: skip
        refused(r, 409)
        assert war.revision() == seen + 1  # only the other process's record


# --- W-15: every refusal and failure is JSON ----------------------------------------------------


@pytest.mark.parametrize("bad", BIG)
def test_w15_ids_no_row_can_have_are_404_json_on_every_route(url: str, bad: object) -> None:
    with serving(url) as client:
        war = War(client)
        token = war.host["Authorization"].split()[1]
        for method, path in (
            ("GET", f"/api/encounters/{bad}"),
            ("GET", f"/api/encounters/{bad}/log"),
            ("POST", f"/api/encounters/{bad}/commands"),
            ("GET", f"/api/encounters/{bad}/stream?token={token}"),
            ("GET", f"/api/tables/{bad}"),
            ("POST", f"/api/tables/{bad}/players"),
            ("GET", f"/tables/{bad}?token={token}"),
            ("GET", f"/tables/{war.tid}/encounters/{bad}?token={token}"),
            ("GET", f"/tables/{bad}/encounters/{war.eid}/setup?token={token}"),
        ):
            r = client.request(method, path, headers=war.host, json={"kind": "next"})
            refused(r, 404, "There is no")
            assert str(bad)[:60] not in r.json()["error"] or len(str(bad)) < 40


def test_w15_a_huge_after_or_last_event_id_is_refused(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        path = f"/api/encounters/{war.eid}/stream"
        refused(client.get(path, params={"after": 2**63}, headers=war.host), 422, "after")
        r = client.get(path, headers={**war.host, "Last-Event-ID": str(2**63)})
        refused(r, 422)


def test_w15_deep_json_is_refused_with_one_sentence(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        before = war.revision()
        deep = '{"kind": "next", "args": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
        r = client.post(f"/api/encounters/{war.eid}/commands", content=deep.encode(),
                        headers={**war.host, "Content-Type": "application/json"})  # fmt: skip
        refused(r, 400, "could not be read")
        long_number = '{"name": ' + "9" * 5000 + "}"
        r = client.post("/api/tables", content=long_number.encode(),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert 400 <= r.status_code < 500 and list(r.json()) == ["error"]
        page = host_form(
            client, war, f"/tables/{war.tid}/encounters/{war.eid}/characters",
            {"mode": "import", "document": "[" * 5000 + "]" * 5000},
        )  # fmt: skip
        assert page.status_code == 400 and "nested too deeply" in page.text
        assert war.revision() == before


@contextmanager
def read_only(store: Store, on: list[bool]) -> Iterator[None]:
    """Every transaction of the store refused writes while ``on[0]`` (the database's own no).

    SQLite's no is set on each connection as it is taken from the pool, before its transaction
    begins: set at ``begin``, after the store's own ``BEGIN IMMEDIATE``, a connection left
    read-only by the spell would refuse that BEGIN before it could be lifted (issue 23).
    """

    def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if store.backend == "sqlite":
            dbapi_connection.execute(f"PRAGMA query_only = {int(on[0])}")

    def begin(connection: Any) -> None:
        if on[0] and store.backend != "sqlite":
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")

    def on_driver(dbapi_connection: Any, sql: str) -> None:
        """The same on the hot path's own connections (issue 26, SV-1): before its BEGIN.

        On PostgreSQL they are in autocommit, a statement often its own transaction (SV-20,
        SV-21): the session's default is set, and lifted with the spell.
        """
        if store.backend == "sqlite":
            if sql.startswith("BEGIN"):
                dbapi_connection.execute(f"PRAGMA query_only = {int(on[0])}")
        elif dbapi_connection.info.transaction_status == TransactionStatus.IDLE:
            setting = "on" if on[0] else "off"
            dbapi_connection.execute(f"SET default_transaction_read_only = {setting}")

    event.listen(store.engine, "checkout", checkout)
    event.listen(store.engine, "begin", begin)
    listeners = store._link.listeners if store._link is not None else []
    listeners.append(on_driver)
    try:
        yield
    finally:
        listeners.remove(on_driver)
        event.remove(store.engine, "begin", begin)
        event.remove(store.engine, "checkout", checkout)


def test_w15_a_read_only_database_answers_503_and_loses_nothing(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        store = war.table.store
        log = war.log()
        on = [True]
        with read_only(store, on):
            r = war.command(war.holy, "stance", args={"id": "Herald"})
            refused(r, 503, "nothing was changed")
            refused(client.post(f"/api/encounters/{war.eid}/undo", headers=war.host), 503)
            refused(client.post("/api/tables", json={"name": "New"}), 503)
            assert war.eid not in war.table._live  # no copy ahead of the store is kept
            assert war.log() == log
            on[0] = False
            r = war.command(war.holy, "stance", args={"id": "Herald"})
            assert r.status_code == 200, r.text
        assert war.log()[:-1] == log and war.log()[-1]["revision"] == len(log) + 1


def test_w15_unknown_routes_wrong_methods_and_bad_bodies_are_json(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        refused(client.get("/nowhere"), 404, "GET /nowhere")
        refused(client.get("/api/" + "n" * 5000), 404)
        refused(client.delete("/api/tables"), 405, "DELETE", "POST")
        refused(client.put(f"/api/encounters/{war.eid}/commands", headers=war.host), 405)
        r = client.post("/api/tables", content=b"{", headers={"Content-Type": "application/json"})
        refused(r, 422, "not valid JSON")
        sentence = refused(client.post("/api/tables", json={"name": "n" * 5000}), 422, "name")
        assert "n" * 41 not in sentence
        r = war.command(war.host, "Q" * 39, args={"id": "w" * 5000})
        assert "w" * 41 not in r.json()["error"]


def test_w15_an_unforeseen_failure_is_500_json_and_logged_not_sent(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with serving(url) as client:
        war = War(client)

        def broken(*_args: Any) -> Any:
            raise RuntimeError("boom: secret detail 977")

        war.table.table_view = broken  # type: ignore[method-assign,assignment]
        with caplog.at_level(logging.ERROR, logger="tableside.web"):
            r = client.get(f"/api/tables/{war.tid}", headers=war.host)
        refused(r, 500, "(logged)")
        assert "977" not in r.text and "boom" not in r.text
        assert "boom: secret detail 977" in caplog.text and "Traceback" in caplog.text


def test_w13_limits_come_from_the_environment_and_serve_options() -> None:
    limits = Limits.from_env({"TABLESIDE_MAX_BODY_BYTES": "1000", "TABLESIDE_MAX_SEATS": " 3 "})
    assert limits.max_body_bytes == 1000 and limits.max_seats == 3
    assert limits.tables_per_minute == Limits().tables_per_minute
    with pytest.raises(ValueError, match="TABLESIDE_MAX_STREAMS must be a whole number"):
        Limits.from_env({"TABLESIDE_MAX_STREAMS": "lots"})
    done = CliRunner().invoke(cli_app, ["serve", "--help"])
    for option in ("--tables-per-minute", "--max-combatants", "--max-seats", "--max-encounters",
                   "--max-body-bytes", "--streams-per-token", "--max-streams"):  # fmt: skip
        assert option in done.output
