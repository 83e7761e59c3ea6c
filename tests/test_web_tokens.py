"""Tokens, sessions and CSRF (docs/security.md, W-11) and revocation and rotation (W-12).

Every test runs on SQLite and PostgreSQL. The live-stream tests run real servers (uvicorn in
threads of this process, each with its own application and store, as separate processes would
have) with a 30-second poll, so a stream that ends within a few seconds was woken, not polled.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from test_store_support import database_url

from tableside.encounter.roster import add_commands
from tableside.store import tables
from tableside.web import create_app
from tableside.web.auth import SESSION_COOKIE, csrf_token, token_hash
from tableside.web.table import WebTable

COOKIE_DOMAIN = "testserver.local"  # where the test client keeps the cookies the app sets
SLOW_POLL = 30.0  # seconds: a stream that notices within PROMPT was woken, not polled
PROMPT = 10.0  # a third of SLOW_POLL: room for a starved machine, far from a poll


@pytest.fixture
def app(url: str) -> Iterator[FastAPI]:
    application = create_app(url)
    with TestClient(application):  # runs the lifespan (LISTEN on PostgreSQL) around the test
        yield application


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Table:
    """A table with a War under way, a Host and two seats (tokens from the JSON API)."""

    app: FastAPI
    tid: int
    eid: int
    host: str
    ann: str  # plays Herald
    bo: str  # plays Brute
    ann_seat: int
    bo_seat: int

    @property
    def web(self) -> WebTable:
        table: WebTable = self.app.state.table
        return table

    def api(self) -> TestClient:
        return TestClient(self.app)

    def revision(self) -> int:
        return self.web.store.encounter(self.eid).revision


def make_table(app: FastAPI) -> Table:
    client = TestClient(app)
    r = client.post("/api/tables", json={"name": "Friday"})
    tid, host = r.json()["id"], r.json()["host_token"]
    body = {"game": "majesty-war", "name": "Ford", "seed": 7}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=bearer(host), json=body).json()["id"]
    for command in add_commands():
        answer = client.post(f"/api/encounters/{eid}/commands", headers=bearer(host),
                             json={"kind": command.kind, "args": command.args})  # fmt: skip
        assert answer.status_code == 200, answer.text
    seats = []
    for name, plays in (("Ann", ["Herald"]), ("Bo", ["Brute"])):
        r = client.post(f"/api/tables/{tid}/players", headers=bearer(host),
                        json={"name": name, "characters": plays})  # fmt: skip
        seats.append(r.json())
    return Table(app, tid, eid, host, seats[0]["token"], seats[1]["token"], seats[0]["id"],
                 seats[1]["id"])  # fmt: skip


@pytest.fixture
def table(app: FastAPI) -> Table:
    return make_table(app)


def browser(app: FastAPI, link: str, https: bool = False) -> tuple[TestClient, httpx.Response]:
    """A browser of its own (its own cookie jar) that opens a join link; the link's answer."""
    base = "https://testserver" if https else "http://testserver"
    client = TestClient(app, base_url=base, follow_redirects=False)
    return client, client.get(link)


def session_of(client: TestClient) -> str:
    value = client.cookies.get(SESSION_COOKIE, domain=COOKIE_DOMAIN)
    assert value, "no session cookie"
    return value


def csrf(client: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_token(session_of(client))}


# --- W-11: join links, session cookies, clean URLs ------------------------------------------------


def test_w11_a_join_link_sets_a_session_cookie_and_redirects_to_a_clean_url(table: Table) -> None:
    for token in (table.ann, table.host):
        client, r = browser(table.app, f"/join/{token}")
        assert r.status_code == 303 and r.headers["location"] == f"/tables/{table.tid}"
        assert r.headers["cache-control"] == "no-store"
        cookie = r.headers["set-cookie"]
        attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "path=/", "samesite=strict"} <= attributes
        assert "secure" not in attributes  # plain HTTP: a Secure cookie would never come back
        session = session_of(client)
        assert token not in cookie and session != token and len(session) >= 43
        page = client.get(r.headers["location"])
        assert page.status_code == 200 and token not in page.text
        assert ("You are the Host" in page.text) == (token == table.host)
        assert ("You are Ann" in page.text) == (token == table.ann)


def test_w11_the_cookie_is_secure_over_tls_and_a_forwarded_header_alone_changes_nothing(
    table: Table,
) -> None:
    _client, r = browser(table.app, f"/join/{table.ann}", https=True)
    assert "secure" in r.headers["set-cookie"].lower()
    client = TestClient(table.app, follow_redirects=False)
    r = client.get(f"/join/{table.bo}", headers={"X-Forwarded-Proto": "https"})
    assert r.status_code == 303 and "secure" not in r.headers["set-cookie"].lower()


def test_w11_a_token_in_a_page_url_is_exchanged_for_the_cookie_and_dropped(table: Table) -> None:
    page = f"/tables/{table.tid}/encounters/{table.eid}"
    client, r = browser(table.app, f"{page}?token={table.host}")
    assert r.status_code == 303 and r.headers["location"] == page
    fight = client.get(page)
    assert fight.status_code == 200 and "War Scroll" in fight.text
    assert table.host not in fight.text and "token" not in fight.text.split('id="boot"')[1][:200]
    assert csrf_token(session_of(client)) in fight.text  # the page's proof for its script
    setup = f"{page}/setup"
    r = client.get(f"{setup}?token={table.host}")
    assert r.status_code == 303 and r.headers["location"] == setup
    assert client.get(setup).status_code == 200
    for bad in ("nope", table.ann + "x"):
        assert client.get(f"{page}?token={bad}").status_code == 401


def test_w11_pages_the_api_and_the_stream_take_the_cookie_and_never_a_token_in_the_url(
    table: Table,
) -> None:
    client, _r = browser(table.app, f"/join/{table.ann}")
    assert client.get(f"/api/encounters/{table.eid}").json()["role"] == "player"
    assert client.get(f"/tables/{table.tid}/encounters/{table.eid}").status_code == 200
    stranger = TestClient(table.app)
    r = stranger.get(f"/api/encounters/{table.eid}/stream", params={"token": table.ann})
    assert r.status_code == 401 and "error" in r.json()  # streams no longer read ?token=


def test_w11_each_token_keeps_its_newest_sessions_only(table: Table) -> None:
    clients = [
        browser(table.app, f"/join/{table.bo}")[0] for _ in range(tables.SESSIONS_PER_TOKEN + 3)
    ]
    assert tables.sessions(table.web.store, token_hash(table.bo)) == tables.SESSIONS_PER_TOKEN
    api = f"/api/encounters/{table.eid}"
    assert clients[-1].get(api).status_code == 200
    assert sum(c.get(api).status_code == 401 for c in clients) == 3


# --- W-11: CSRF --------------------------------------------------------------------------------


def test_w11_a_cookie_post_without_the_csrf_token_is_refused_and_writes_nothing(
    table: Table,
) -> None:
    client, _r = browser(table.app, f"/join/{table.host}")
    path = f"/api/encounters/{table.eid}/commands"
    body = {"kind": "stance", "args": {"id": "Herald"}}
    before = table.revision()
    for headers in ({}, {"X-CSRF-Token": "0" * 64}, {"X-CSRF-Token": csrf_token(table.host)}):
        r = client.post(path, json=body, headers=headers)
        assert r.status_code == 403 and "CSRF" in r.json()["error"], r.text
    r = client.post(f"/api/encounters/{table.eid}/undo", data={"revision": str(before)})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = client.delete(f"/api/tables/{table.tid}/players/{table.bo_seat}")
    assert r.status_code == 403
    r = client.post(f"/tables/{table.tid}/encounters", data={"game": "majesty-war", "name": "X"})
    assert r.status_code == 403 and r.headers["content-type"] == "application/json"
    assert table.revision() == before
    assert len(tables.table(table.web.store, table.tid).encounters) == 1
    assert len(tables.seats(table.web.store, table.tid)) == 2
    r = client.post(path, json=body, headers=csrf(client))
    assert r.status_code == 200 and table.revision() == before + 1
    form = {"game": "majesty-war", "name": "X", "csrf": csrf_token(session_of(client))}
    r = client.post(f"/tables/{table.tid}/encounters", data=form)
    assert r.status_code == 303 and len(tables.table(table.web.store, table.tid).encounters) == 2


def test_w11_a_cross_site_request_is_refused_even_with_the_csrf_token(table: Table) -> None:
    client, _r = browser(table.app, f"/join/{table.host}")
    path = f"/api/encounters/{table.eid}/commands"
    body = {"kind": "stance", "args": {"id": "Herald"}}
    before = table.revision()
    for extra in ({"Origin": "https://evil.example"}, {"Origin": "http://testserver.evil"},
                  {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):  # fmt: skip
        r = client.post(path, json=body, headers={**csrf(client), **extra})
        assert r.status_code == 403 and "error" in r.json(), (extra, r.text)
    assert table.revision() == before
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert client.post(path, json=body, headers={**csrf(client), **same}).status_code == 200
    # a page's own form under no-referrer sends Origin: null; the CSRF proof decides
    form = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
    assert client.post(path, json=body, headers=form).status_code == 403
    assert client.post(path, json=body, headers={**csrf(client), **form}).status_code == 200


def test_w11_bearer_clients_need_no_csrf_token(table: Table) -> None:
    client = table.api()
    r = client.post(f"/api/encounters/{table.eid}/commands", headers=bearer(table.host),
                    json={"kind": "stance", "args": {"id": "Herald"}})  # fmt: skip
    assert r.status_code == 200


# --- W-11: headers -----------------------------------------------------------------------------


def test_w11_answers_that_carry_tokens_are_not_stored_and_no_page_may_be_framed(
    table: Table,
) -> None:
    api = table.api()
    host = bearer(table.host)
    carrying = [
        api.post("/api/tables", json={"name": "Other"}),
        api.post(f"/api/tables/{table.tid}/players", headers=host, json={"name": "Cy"}),
        api.post(f"/api/tables/{table.tid}/players/{table.bo_seat}/token", headers=host),
        api.post("/tables", data={"name": "Paged"}),
        api.get(f"/join/{table.ann}", follow_redirects=False),
    ]
    for r in carrying:
        assert r.status_code in (200, 201, 303), r.text
        assert r.headers["cache-control"] == "no-store", r.request.url
    client, _r = browser(table.app, f"/join/{table.host}")
    pages = [
        client.get("/"),
        client.get(f"/tables/{table.tid}"),
        client.get(f"/tables/{table.tid}/encounters/{table.eid}"),
        client.get(f"/tables/{table.tid}/encounters/{table.eid}/setup"),
        browser(table.app, f"/join/{table.ann}")[0].get(f"/tables/{table.tid}"),
    ]
    for page in pages:
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["cache-control"] == "no-store"
    r = table.api().post(f"/api/tables/{table.tid}/host-token", headers=host)
    assert (
        r.headers["cache-control"] == "no-store"
        and "frame-ancestors 'none'" in (r.headers["content-security-policy"])
    )


# --- W-12: removal and rotation --------------------------------------------------------------


def test_w12_removing_a_seat_refuses_its_token_and_sessions_at_once(table: Table) -> None:
    api = table.api()
    ann_browser, _r = browser(table.app, f"/join/{table.ann}")
    state = f"/api/encounters/{table.eid}"
    page = f"/tables/{table.tid}/encounters/{table.eid}"
    assert api.get(state, headers=bearer(table.ann)).status_code == 200
    assert ann_browser.get(page).status_code == 200
    r = api.delete(f"/api/tables/{table.tid}/players/{table.ann_seat}", headers=bearer(table.host))
    assert r.status_code == 200 and r.json()["name"] == "Ann" and r.json()["removed"] is True
    assert api.get(state, headers=bearer(table.ann)).status_code == 401
    for path in (state, page, f"/tables/{table.tid}"):
        r = ann_browser.get(path)
        assert r.status_code == 401 and "revoked" in r.json()["error"], path
    assert api.get(f"/join/{table.ann}").status_code == 401
    assert tables.sessions(table.web.store, token_hash(table.ann)) == 0
    assert api.get(state, headers=bearer(table.bo)).status_code == 200  # others keep theirs
    seats = api.get(f"/api/tables/{table.tid}", headers=bearer(table.host)).json()["seats"]
    assert [s["name"] for s in seats] == ["Bo"]


def test_w12_a_new_join_link_refuses_the_old_one_at_once(table: Table) -> None:
    api = table.api()
    old_browser, _r = browser(table.app, f"/join/{table.bo}")
    path = f"/api/tables/{table.tid}/players/{table.bo_seat}/token"
    r = api.post(path, headers=bearer(table.host))
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    assert new != table.bo and r.json()["join_link"] == f"/join/{new}"
    assert r.json()["characters"] == ["Brute"]
    state = f"/api/encounters/{table.eid}"
    assert api.get(state, headers=bearer(table.bo)).status_code == 401
    assert old_browser.get(state).status_code == 401
    assert api.get(f"/join/{table.bo}").status_code == 401
    assert api.get(state, headers=bearer(new)).json()["role"] == "player"
    new_browser, r = browser(table.app, f"/join/{new}")
    assert r.status_code == 303 and new_browser.get(state).status_code == 200
    r = api.post(f"/api/encounters/{table.eid}/commands", headers=bearer(new),
                 json={"kind": "stance", "args": {"id": "Herald"}})  # fmt: skip
    assert r.status_code == 403  # still Bo's seat: Brute only


def test_w12_a_new_host_link_refuses_the_old_one_at_once(table: Table) -> None:
    api = table.api()
    old_browser, _r = browser(table.app, f"/join/{table.host}")
    r = api.post(f"/api/tables/{table.tid}/host-token", headers=bearer(table.host))
    assert r.status_code == 200
    new = r.json()["host_token"]
    assert r.json()["join_link"] == f"/join/{new}" and new != table.host
    view = f"/api/tables/{table.tid}"
    assert api.get(view, headers=bearer(table.host)).status_code == 401
    assert old_browser.get(f"/tables/{table.tid}").status_code == 401
    assert api.get(view, headers=bearer(new)).json()["role"] == "host"
    assert api.get(view, headers=bearer(table.ann)).json()["role"] == "player"


def test_w12_only_the_tables_host_removes_or_rotates(table: Table) -> None:
    api = table.api()
    other = api.post("/api/tables", json={"name": "Other"}).json()["host_token"]
    seat = f"/api/tables/{table.tid}/players/{table.bo_seat}"
    for token, status in ((table.ann, 403), (table.bo, 403), (other, 403), ("nope", 401)):
        assert api.delete(seat, headers=bearer(token)).status_code == status
        assert api.post(f"{seat}/token", headers=bearer(token)).status_code == status
        r = api.post(f"/api/tables/{table.tid}/host-token", headers=bearer(token))
        assert r.status_code == status and "error" in r.json()
    r = api.delete(f"/api/tables/{table.tid}/players/999", headers=bearer(table.host))
    assert (
        r.status_code == 404 and r.json()["error"] == f"Table {table.tid} has no seat with id 999."
    )
    assert api.get(f"/api/encounters/{table.eid}", headers=bearer(table.bo)).status_code == 200
    assert api.get(f"/api/tables/{table.tid}", headers=bearer(table.host)).status_code == 200


def test_w12_the_hosts_table_page_removes_seats_and_makes_new_links_when_confirmed(
    table: Table,
) -> None:
    client, _r = browser(table.app, f"/join/{table.host}")
    page = client.get(f"/tables/{table.tid}")
    assert f'action="/tables/{table.tid}/players/{table.ann_seat}/remove"' in page.text
    assert f'action="/tables/{table.tid}/host-token"' in page.text
    proof = {"csrf": csrf_token(session_of(client))}
    remove = f"/tables/{table.tid}/players/{table.ann_seat}/remove"
    r = client.post(remove, data=proof)  # the box is not ticked
    assert r.status_code == 400 and "Tick the box" in r.text
    assert len(tables.seats(table.web.store, table.tid)) == 2
    r = client.post(remove, data={**proof, "confirm": "on"})
    assert r.status_code == 303 and r.headers["location"] == f"/tables/{table.tid}"
    assert [s.name for s in tables.seats(table.web.store, table.tid)] == ["Bo"]
    r = client.post(f"/tables/{table.tid}/players/{table.bo_seat}/token",
                    data={**proof, "confirm": "on"})  # fmt: skip
    assert r.status_code == 201 and "/join/" in r.text and r.headers["cache-control"] == "no-store"
    assert TestClient(table.app).get(f"/join/{table.bo}").status_code == 401
    r = client.post(f"/tables/{table.tid}/host-token", data={**proof, "confirm": "on"})
    assert r.status_code == 201 and "New Host link" in r.text
    assert TestClient(table.app).get(f"/join/{table.host}").status_code == 401
    assert client.get(f"/tables/{table.tid}").status_code == 200  # this browser stays the Host


# --- W-12: live streams of a revoked token end -------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(application: FastAPI) -> Iterator[str]:
    """A real server for ``application`` in a thread of this process; its base URL."""
    port = free_port()
    config = uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning",
                            timeout_graceful_shutdown=1)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def follow(url: str, headers: dict[str, str], into: queue.Queue[Any]) -> threading.Thread:
    """Read a stream in a thread: puts "open", then each event's name, then "ended" and when."""

    def run() -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=60)) as r:
                into.put(("open", r.status_code))
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        into.put(("event", line.removeprefix("event: ")))
            into.put(("ended", time.monotonic()))
        except httpx.HTTPError as error:
            into.put(("failed", repr(error)))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def ended_after(into: queue.Queue[Any], since: float) -> tuple[list[str], float]:
    """The events a stream sent until it ended, and how long after ``since`` it ended."""
    events: list[str] = []
    while True:
        kind, value = into.get(timeout=PROMPT + 5)
        assert kind != "failed", value
        if kind == "ended":
            return events, value - since
        events.append(value)


@pytest.mark.parametrize("how", ["remove", "rotate"])
def test_w12_a_stream_open_on_a_revoked_seat_ends_within_seconds(url: str, how: str) -> None:
    application = create_app(url, poll=SLOW_POLL, listen_poll=SLOW_POLL)
    with serving(application) as base:
        table = make_table(application)
        stream = f"{base}/api/encounters/{table.eid}/stream?after={table.revision()}"
        client = httpx.Client(base_url=base, follow_redirects=False)
        assert client.get(f"/join/{table.ann}").status_code == 303
        cookie = {"Cookie": f"{SESSION_COOKIE}={client.cookies[SESSION_COOKIE]}"}
        ann_token, ann_cookie, bo = queue.Queue[Any](), queue.Queue[Any](), queue.Queue[Any]()
        follow(stream, bearer(table.ann), ann_token)
        follow(stream, cookie, ann_cookie)
        follow(stream, bearer(table.bo), bo)
        for into in (ann_token, ann_cookie, bo):
            assert into.get(timeout=EVENT_WAIT) == ("open", 200)
        time.sleep(0.3)  # every stream has read the log once and waits
        seat = f"{base}/api/tables/{table.tid}/players/{table.ann_seat}"
        revoked = time.monotonic()
        if how == "remove":
            r = httpx.delete(seat, headers=bearer(table.host), timeout=EVENT_WAIT)
        else:
            r = httpx.post(f"{seat}/token", headers=bearer(table.host), timeout=EVENT_WAIT)
        assert r.status_code == 200
        for into in (ann_token, ann_cookie):
            events, took = ended_after(into, revoked)
            assert events == ["revoked"] and took < PROMPT, (events, took)
        assert bo.empty()  # Bo's stream stays open
        command = {"kind": "stance", "args": {"id": "Herald"}}
        httpx.post(f"{base}/api/encounters/{table.eid}/commands", headers=bearer(table.host),
                   json=command, timeout=EVENT_WAIT)  # fmt: skip
        assert bo.get(timeout=PROMPT) == ("event", "record")
        r = httpx.get(stream, headers=bearer(table.ann), timeout=EVENT_WAIT)
        assert r.status_code == 401  # and the browser's EventSource, reconnecting, gets 401


def test_w12_on_postgresql_another_process_closes_its_streams_of_a_rotated_host_link(
    tmp_path: Path,
) -> None:
    with database_url("postgresql", tmp_path) as pg:
        here = create_app(pg, poll=SLOW_POLL, listen_poll=SLOW_POLL)
        there = create_app(pg, poll=SLOW_POLL, listen_poll=SLOW_POLL)
        with serving(here) as base_here, serving(there) as base_there:
            table = make_table(here)
            path = f"/api/encounters/{table.eid}/stream?after={table.revision()}"
            into: queue.Queue[Any] = queue.Queue()
            follow(base_there + path, bearer(table.host), into)
            assert into.get(timeout=EVENT_WAIT) == ("open", 200)
            deadline = time.monotonic() + 10
            while not there.state.listener.connected:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            time.sleep(0.3)
            revoked = time.monotonic()
            r = httpx.post(f"{base_here}/api/tables/{table.tid}/host-token",
                           headers=bearer(table.host), timeout=EVENT_WAIT)  # fmt: skip
            assert r.status_code == 200
            events, took = ended_after(into, revoked)
            assert events == ["revoked"] and took < PROMPT, (events, took)
