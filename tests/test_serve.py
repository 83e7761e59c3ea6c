"""``tableside serve`` as the main job, and the serving path's cost per command.

The first part starts ``tableside serve --demo`` as a real subprocess on a free loopback port,
reads the links it prints and opens them; bad options exit with code 2 and one sentence. The
second part counts the statements a command sends to the database through HTTP and checks
that an encounter kept in memory is reused, reloaded when another process moved the store on,
and that a command decided on a stale copy is refused (409) with nothing written.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from ports import free_port
from test_store_support import postgres_base_url, sent_statements

from tableside import errors
from tableside.cli.serve_cmds import link_base
from tableside.encounter.log import Command
from tableside.service import open_encounter
from tableside.store import Store
from tableside.store.scratch import scratch_schema
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.demo import create_demo
from tableside.web.table import WebTable

TABLESIDE = str(Path(sys.executable).with_name("tableside"))
LINK = re.compile(r"^(?P<who>[^:]+):\s+(?P<url>http://\S+)$")
STARTUP = 60.0
Done = subprocess.CompletedProcess[str]
SERVING: list[int] = []


@contextmanager
def serving(args: list[str], env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """``tableside serve ARGS`` running; the lines it printed up to 'Press Ctrl+C to stop.'.

    The server's process id is the last item of ``SERVING`` while it runs.
    """
    proc = subprocess.Popen([TABLESIDE, "serve", *args], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, start_new_session=True)  # fmt: skip
    assert proc.stdout is not None
    SERVING.append(proc.pid)
    try:
        lines: list[str] = []
        deadline = time.monotonic() + STARTUP
        while not lines or lines[-1] != "Press Ctrl+C to stop.":
            line = proc.stdout.readline()
            assert line, f"tableside serve ended early: {lines}"
            assert time.monotonic() < deadline
            lines.append(line.rstrip("\n"))
        yield lines
    finally:
        SERVING.remove(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def workers() -> list[int]:
    """The worker processes (multiprocessing children) of the running ``tableside serve``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == SERVING[-1] and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


def links(lines: list[str]) -> list[tuple[str, str]]:
    """Every ``who: url`` line printed."""
    return [(m["who"], m["url"]) for m in map(LINK.match, lines) if m]


def get(url: str) -> httpx.Response:
    """GET, retrying while the server is still binding its port."""
    deadline = time.monotonic() + STARTUP
    while True:
        try:
            return httpx.get(url, timeout=10, follow_redirects=True)  # a link: cookie, redirect
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_serve_demo_prints_links_to_both_games_that_open(tmp_path: Path) -> None:
    port = free_port()
    with serving(["--demo", "--port", str(port), "--db", str(tmp_path / "t.db")]) as lines:
        assert lines[0] == f"Tableside web table on http://127.0.0.1:{port} (store " \
            f"sqlite+pysqlite:///{tmp_path / 't.db'})"  # fmt: skip
        assert "Demo table 1, War 1." in lines
        assert "Realm of Strife fight 2 at the same table." in lines
        printed = links(lines)
        assert [who for who, _url in printed] == [
            "Host", "The holy player", "The fallen player",
            "Host", "The heroes' player", "The monsters' player", "Host table"]  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        assert all(url.startswith(base) for _who, url in printed)
        war, fight = printed[0][1], printed[3][1]
        assert war.startswith(f"{base}/tables/1/encounters/1?token=")
        assert fight.startswith(f"{base}/tables/1/encounters/2?token=")
        pages = {url: get(url) for _who, url in printed}
        assert [r.status_code for r in pages.values()] == [200] * 7
        assert not any("token" in str(r.url) for r in pages.values())  # W-11: a clean URL
        assert printed[6][1] == f"{base}/tables/1?token={war.partition('?token=')[2]}"
        assert "Skirmish at the ford" in pages[printed[6][1]].text
        assert "War Scroll" in pages[war].text
        assert "Troll" in pages[fight].text and "Aldric" in pages[fight].text
        joined = pages[printed[1][1]].text
        assert "Skirmish at the ford" in joined and "Ambush at the mill" in joined


def test_a_second_start_reuses_the_demo_table_with_new_links(tmp_path: Path) -> None:
    """The demo table, its encounters and seats are reused; the old links stop working."""
    db = str(tmp_path / "t.db")
    printed: list[tuple[str, str]] = []
    for _number in (1, 2):
        port = free_port()
        with serving(["--demo", "--port", str(port), "--db", db]) as lines:
            assert "Demo table 1, War 1." in lines
            assert "Realm of Strife fight 2 at the same table." in lines
            found = links(lines)
            assert [who for who, _url in found] == [
                "Host", "The holy player", "The fallen player",
                "Host", "The heroes' player", "The monsters' player", "Host table"]  # fmt: skip
            if printed:
                old_war = printed[0][1].replace(printed[0][1].split("/tables")[0], "")
                base = f"http://127.0.0.1:{port}"
                assert get(f"{base}{old_war}").status_code == 401
                assert get(found[0][1]).status_code == 200
                assert get(found[4][1]).status_code == 200
            printed = found
    assert len(printed) == 7


def test_serve_without_demo_serves_an_empty_store(tmp_path: Path) -> None:
    port = free_port()
    with serving(["--port", str(port), "--db", str(tmp_path / "t.db")]) as lines:
        assert links(lines) == []
        assert get(f"http://127.0.0.1:{port}/openapi.json").status_code == 200
        made = httpx.post(f"http://127.0.0.1:{port}/api/tables", json={"name": "Mine"}, timeout=10)
        assert made.status_code == 201 and made.json()["id"] == 1


def test_the_demo_table_holds_a_war_and_a_fight_under_way_with_a_seat_per_side(url: str) -> None:
    with Store.open(url) as store:
        table = WebTable(store)
        demo = create_demo(table)
        host = Principal(demo.table_id, None)
        view = table.table_view(host)
        assert [(e["id"], e["game"], e["revision"]) for e in view["encounters"]] == [
            (demo.encounter_id, "majesty-war", 9), (demo.fight_id, "strife-combat", 6)]  # fmt: skip
        assert [(s["name"], s["characters"]) for s in view["seats"]][2:] == [
            ("The heroes' player", ["Aldric", "Sera"]),
            ("The monsters' player", ["Goblin-1", "Goblin-2", "Troll"])]  # fmt: skip
        fight = table.state(demo.fight_id, host)
        assert fight["ambush"] == "heroes" and fight["current"] == "Sera" and not fight["ended"]
        heroes = table.principal(demo.fight_links["The heroes' player"].removeprefix("/join/"))
        sera = Command("bottom", {"id": "Sera"})
        assert table.execute(heroes, demo.fight_id, sera, 6)["record"]["revision"] == 7


ADDRESSES = [
    ("127.0.0.1", "http://127.0.0.1:8000"),
    ("0.0.0.0", "http://127.0.0.1:8000"),
    ("::", "http://[::1]:8000"),
    ("table.local", "http://table.local:8000"),
]


@pytest.mark.parametrize(("host", "base"), ADDRESSES)
def test_printed_links_name_an_address_a_browser_can_open(host: str, base: str) -> None:
    assert link_base(host, 8000) == base


def run_serve(args: list[str], env: dict[str, str] | None = None) -> Done:
    return subprocess.run([TABLESIDE, "serve", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "0"], "--port"),
        (["--port", "70000"], "--port"),
        (["--workers", "0"], "--workers"),
        (["--port", "eighty"], "--port"),
        (["--colour"], "No such option"),
    ],
)
def test_bad_options_exit_with_code_2(args: list[str], words: str, tmp_path: Path) -> None:
    done = run_serve([*args, "--db", str(tmp_path / "t.db")])
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "t.db").exists()


def test_a_port_in_use_is_refused_in_one_sentence_before_anything_is_created(
    tmp_path: Path,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_serve(["--demo", "--port", str(port), "--db", str(tmp_path / "t.db")])
    assert done.returncode == 2
    assert done.stderr == f"error: Cannot listen on 127.0.0.1:{port}: it is in use.\n"
    assert done.stdout == "" and not (tmp_path / "t.db").exists()


def test_an_unknown_address_or_an_unusable_database_is_one_sentence(tmp_path: Path) -> None:
    done = run_serve(["--host", "no.such.host.invalid", "--db", str(tmp_path / "t.db")])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: Cannot listen on host 'no.such.host.invalid': no such address.\n"
    missing = tmp_path / "missing" / "t.db"
    done = run_serve(["--port", str(free_port()), "--db", str(missing)])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"error: Cannot open the database sqlite+pysqlite:///{missing}")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_several_workers_need_postgresql(tmp_path: Path) -> None:
    done = run_serve(["--workers", "2", "--db", str(tmp_path / "t.db"), "--port",
                      str(free_port())])  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --workers 2 needs PostgreSQL")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "t.db").exists()


def test_workers_on_postgresql_serve_the_demo_from_several_processes(tmp_path: Path) -> None:
    with scratch_schema(postgres_base_url(), prefix="tableside_test") as url:
        port = free_port()
        env = {"TABLESIDE_DATABASE_URL": url}
        with serving(["--demo", "--workers", "2", "--port", str(port)], env) as lines:
            assert lines[0].endswith(", 2 processes)")
            printed = links(lines)
            assert len(printed) == 7
            for _who, link in printed:
                assert get(link).status_code == 200
            assert len(workers()) == 2
            token = printed[0][1].split("?token=")[1]
            answers = [
                httpx.post(f"http://127.0.0.1:{port}/api/encounters/1/commands", timeout=10,
                           headers={"Authorization": f"Bearer {token}"},
                           json={"kind": "stance", "args": {"id": "Herald", "on": i % 2 == 0}})
                for i in range(6)
            ]  # fmt: skip
            assert [a.status_code for a in answers] == [200] * 6
            revisions = [a.json()["record"]["revision"] for a in answers]
            assert revisions == list(range(revisions[0], revisions[0] + 6))
            concurrent_commands_are_stored_or_refused_whole(port, token, revisions[-1])


def concurrent_commands_are_stored_or_refused_whole(port: int, token: str, start: int) -> None:
    """12 commands at once, each on a connection of its own (so both workers get some)."""
    base = f"http://127.0.0.1:{port}/api/encounters/1"
    headers = {"Authorization": f"Bearer {token}"}
    answers: list[httpx.Response] = []

    def send(i: int) -> None:
        body = {"kind": "stance", "args": {"id": "Watcher", "on": i % 2 == 0}}
        answers.append(httpx.post(f"{base}/commands", headers=headers, json=body, timeout=30))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = sorted(a.json()["record"]["revision"] for a in answers if a.status_code == 200)
    refused = [a for a in answers if a.status_code != 200]
    assert all(a.status_code == 409 and list(a.json()) == ["error"] for a in refused)
    assert stored == list(range(start + 1, start + 1 + len(stored)))  # no gap, no duplicate
    log = httpx.get(f"{base}/log", headers=headers, timeout=10).json()["records"]
    assert [r["revision"] for r in log] == list(range(1, start + 1 + len(stored)))


# -- the serving path --------------------------------------------------------------------------


statements = sent_statements  # through SQLAlchemy and on the driver (issue 26, SV-1)


def test_a_command_over_http_is_one_read_and_one_write(url: str) -> None:
    with TestClient(create_app(url)) as client:
        table: WebTable = client.app.state.table  # type: ignore[attr-defined]
        demo = create_demo(table)
        headers = {"Authorization": f"Bearer {demo.host_page.split('?token=')[1]}"}
        path = f"/api/encounters/{demo.encounter_id}/commands"
        body = {"kind": "stance", "args": {"id": "Herald"}}
        assert client.post(path, headers=headers, json=body).status_code == 200
        with statements(table.store) as sent:
            r = client.post(path, headers=headers, json=body)
        assert r.status_code == 200, r.text
    # the authorising read (token, seat, encounter and its table at once), then the append:
    # no revision read, no log replay (the encounter in memory is current)
    reads = [s for s in sent if s.startswith("SELECT") and "pg_notify" not in s]
    assert len(reads) == 1 and "JOIN seats" in reads[0] and "JOIN game_tables" in reads[0]
    writes = [s for s in sent if s.startswith(("UPDATE", "INSERT", "WITH"))]
    if url.startswith("postgresql"):  # SV-21: the bump, the record and pg_notify at once
        assert len(writes) == 1 and writes[0].startswith("WITH bumped AS (UPDATE encounters")
        assert "INSERT INTO log_records" in writes[0] and "pg_notify" in writes[0]
    else:
        assert [s.split()[0] for s in writes] == ["UPDATE", "INSERT"]
    assert sent.index(reads[0]) < sent.index(writes[0])


def test_refusals_still_name_the_first_thing_wrong(url: str) -> None:
    with TestClient(create_app(url)) as client:
        demo = create_demo(client.app.state.table)  # type: ignore[attr-defined]
        other = client.post("/api/tables", json={"name": "Other"}).json()["host_token"]
        host = demo.host_page.split("?token=")[1]
        path = f"/api/encounters/{demo.encounter_id}"
        for token, missing, status in (
            (None, demo.encounter_id, 401), ("nope", 999, 401), (host, 999, 404),
            (other, demo.encounter_id, 403), (other, 999, 404)):  # fmt: skip
            headers = {} if token is None else {"Authorization": f"Bearer {token}"}
            r = client.get(f"/api/encounters/{missing}", headers=headers)
            assert r.status_code == status, (token, missing, r.text)
            assert list(r.json()) == ["error"]
        assert client.get(path, headers={"Authorization": f"Bearer {host}"}).status_code == 200


@contextmanager
def two_copies(url: str) -> Iterator[tuple[Store, WebTable, WebTable, int, Principal, str]]:
    """The demo table on two ``WebTable`` copies over their own stores, as two server processes
    hold it: our store, our copy, theirs, the encounter, its Host and the Host's token."""
    with Store.open(url) as mine, Store.open(url) as theirs:
        here, there = WebTable(mine), WebTable(theirs)
        demo = create_demo(here)
        token = demo.host_page.split("?token=")[1]
        yield mine, here, there, demo.encounter_id, Principal(demo.table_id, None), token


def stance(who: str) -> Command:
    return Command("stance", {"id": who})


def test_another_process_append_is_picked_up_before_the_next_command(url: str) -> None:
    with two_copies(url) as (_mine, here, there, eid, host, token):
        here.at_encounter(token, eid)
        here.execute(host, eid, stance("Herald"), None)
        there.at_encounter(token, eid)
        there.execute(host, eid, stance("Watcher"), None)  # the other process moves on
        _who, info = here.at_encounter(token, eid)  # the read shows it, so memory reloads
        answer = here.execute(host, eid, stance("Guardian"), info.revision)
        assert answer["record"]["revision"] == info.revision + 1
        kinds = [r["command"]["args"]["id"] for r in here.log(host, eid)[-3:]]
        assert kinds == ["Herald", "Watcher", "Guardian"]


def test_a_command_decided_on_a_copy_gone_stale_is_refused_then_the_next_one_reloads(
    url: str,
) -> None:
    with two_copies(url) as (mine, here, there, eid, host, token):
        _who, seen = here.at_encounter(token, eid)  # this request's read ...
        there.at_encounter(token, eid)
        there.execute(host, eid, stance("Watcher"), None)  # ... then another process appends
        with pytest.raises(errors.StaleRevisionError, match=f"revision {seen.revision}"):
            here.execute(host, eid, stance("Herald"), None, exact=True)  # W-14: no retry
        assert mine.encounter(eid).revision == seen.revision + 1  # nothing of ours written
        here.at_encounter(token, eid)
        answer = here.execute(host, eid, stance("Herald"), None)
        assert answer["record"]["revision"] == seen.revision + 2
        there.execute(host, eid, stance("Watcher"), None)  # and again, behind this copy's back
        answer = here.execute(host, eid, stance("Herald"), None)  # not exact: decided again
        assert answer["record"]["revision"] == seen.revision + 4


def test_concurrent_commands_on_one_encounter_through_http_are_serialised(url: str) -> None:
    with TestClient(create_app(url)) as client:
        demo = create_demo(client.app.state.table)  # type: ignore[attr-defined]
        headers = {"Authorization": f"Bearer {demo.host_page.split('?token=')[1]}"}
        path = f"/api/encounters/{demo.encounter_id}"
        start = client.get(path, headers=headers).json()["state"]["revision"]
        codes: list[int] = []

        def send(i: int, exact: bool) -> None:
            body = {"kind": "stance", "args": {"id": "Herald", "on": i % 2 == 0},
                    "revision": start, "exact_revision": exact}  # fmt: skip
            codes.append(client.post(f"{path}/commands", headers=headers, json=body).status_code)

        for exact, expected, moved in ((True, [200] + [409] * 5, 1), (False, [200] * 6, 7)):
            codes.clear()
            threads = [threading.Thread(target=send, args=(i, exact)) for i in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(codes) == expected  # exact: one wins; W-14: all decided in turn
            revision = client.get(path, headers=headers).json()["state"]["revision"]
            assert revision == start + moved


def test_a_copy_behind_the_store_catches_up_record_by_record_to_the_rebuilt_state(
    url: str,
) -> None:
    with two_copies(url) as (mine, here, there, eid, host, token):
        here.at_encounter(token, eid)
        with here.lock(eid):
            copy = here.live(eid)
        there.at_encounter(token, eid)
        there.execute(host, eid, stance("Watcher"), None)
        there.execute(host, eid, Command("next"), None, hidden=True)
        there.step_back(host, eid, None, redo=False)
        there.step_back(host, eid, None, redo=True)
        there.execute(host, eid, stance("Guardian"), None)
        here.at_encounter(token, eid)
        with here.lock(eid):
            caught = here.live(eid)
        rebuilt = open_encounter(mine, eid)
        assert caught is copy  # the same copy, brought up to date, not rebuilt from the log
        assert caught.revision == rebuilt.revision == copy.revision
        assert caught.state == rebuilt.state and caught.records == rebuilt.records
        assert caught.next_seq == rebuilt.next_seq
        assert here.state(eid, host) == there.state(eid, host)
