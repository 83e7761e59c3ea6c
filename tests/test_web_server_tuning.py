"""The served process's tuning (issue 26).

SV-14: the collector's young generations collected less often, the oldest only on a timer.
SV-15: the play's hot endpoints run on the event loop, not the threadpool.
SV-16: each process keeps at most so many encounters in memory (ended ones let go first), never
letting go of one that waits for a decision.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url
from test_web_decisions import Table, fight_table, goblin_attacks_aldric

from tableside.encounter.log import Command
from tableside.encounter.policy import next_command
from tableside.encounter.roster import add_commands
from tableside.store import Store
from tableside.web import collector, create_app, direct
from tableside.web.auth import Principal
from tableside.web.table import WebTable

# -- SV-14: the collector ------------------------------------------------------------------------


@pytest.fixture
def collector_restored() -> Iterator[None]:
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_sv14_tune_freezes_start_up_and_never_walks_the_oldest_generation_on_its_own(
    collector_restored: None,
) -> None:
    kept = [{"built": n} for n in range(1000)]  # what start-up built
    collector.tune()
    assert gc.get_threshold() == (collector.GEN0, collector.GEN1, collector.NEVER)
    assert gc.get_freeze_count() >= len(kept)
    assert collector.GEN0 > 700 and collector.NEVER >= 2**30


def test_sv14_the_periodic_walk_frees_a_cycle_left_in_the_oldest_generation(
    collector_restored: None,
) -> None:
    collector.tune()

    class Node:
        other: Any = None

    first, second = Node(), Node()
    first.other, second.other = second, first  # a cycle: no reference count ever frees it
    gc.collect(1)  # promoted to the oldest generation, where Python's own rule never walks now
    del first, second
    before = sum(1 for found in gc.get_objects(2) if isinstance(found, Node))
    assert before == 2

    async def a_while() -> None:
        walking = asyncio.create_task(collector.collect_periodically(0.01))
        await asyncio.sleep(0.1)
        walking.cancel()

    asyncio.run(a_while())
    assert not any(isinstance(found, Node) for found in gc.get_objects())


def test_sv14_the_app_walks_on_its_timer_only_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[float] = []

    def walked(*_args: Any) -> int:
        walks.append(time.monotonic())
        return 0

    monkeypatch.setattr(gc, "collect", walked)
    app = create_app(f"sqlite:///{tmp_path / 'store.db'}", collect_every=0.02)
    with TestClient(app):
        time.sleep(0.3)
    assert len(walks) >= 3
    stopped = len(walks)
    time.sleep(0.1)
    assert len(walks) == stopped
    walks.clear()
    with TestClient(create_app(f"sqlite:///{tmp_path / 'other.db'}")):  # tests' apps: none
        time.sleep(0.1)
    assert walks == []


# -- SV-15: the hot endpoints on the event loop --------------------------------------------------

HOT = {
    "GET /api/encounters/{encounter_id}",
    "POST /api/encounters/{encounter_id}/commands",
    "POST /api/encounters/{encounter_id}/npc_turn",
    "GET /api/encounters/{encounter_id}/decisions",
    "POST /api/encounters/{encounter_id}/decisions",
    "POST /api/encounters/{encounter_id}/decisions/{decision}",
}


def test_sv15_only_the_plays_hot_endpoints_are_marked_for_the_loop(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'store.db'}")
    marked = {
        f"{method} {route.path}"
        for route in app.routes
        if isinstance(route, APIRoute) and getattr(route.endpoint, direct.ON_LOOP, False)
        for method in route.methods or ()
    }
    assert marked == HOT  # not the log, the odds, undo, a balance: their work is not bounded


def on_the_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def where(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Where each command and state read ran: (what, on the event loop)."""
    seen: list[tuple[str, bool]] = []
    execute, state = WebTable.execute, WebTable.state

    def executed(self: WebTable, *args: Any, **kwargs: Any) -> Any:
        seen.append(("command", on_the_loop()))
        return execute(self, *args, **kwargs)

    def read(self: WebTable, *args: Any, **kwargs: Any) -> Any:
        seen.append(("state", on_the_loop()))
        return state(self, *args, **kwargs)

    monkeypatch.setattr(WebTable, "execute", executed)
    monkeypatch.setattr(WebTable, "state", read)
    return seen


def a_war(client: TestClient) -> tuple[str, dict[str, str]]:
    made = client.post("/api/tables", json={"name": "Loop"}).json()
    host = {"Authorization": f"Bearer {made['host_token']}"}
    body = {"game": "majesty-war", "name": "Ford", "seed": 3}
    eid = client.post(f"/api/tables/{made['id']}/encounters", headers=host, json=body).json()["id"]
    return f"/api/encounters/{eid}", host


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("on_loop", "expected"), [(None, True), (True, True), (False, False)])
def test_sv15_a_command_and_a_state_read_run_on_the_event_loop_unless_the_app_says_not(
    backend: str,
    tmp_path: Path,
    where: list[tuple[str, bool]],
    on_loop: bool | None,
    expected: bool,
) -> None:
    with database_url(backend, tmp_path) as url:
        app = create_app(url) if on_loop is None else create_app(url, on_loop=on_loop)
        assert app.state.on_loop is expected  # None: the default, on either backend
        played(app)
    assert where == [("command", expected), ("state", expected)]


def played(app: Any) -> None:
    """One command and one state read, through the app's routes."""
    with TestClient(app) as client:
        api, host = a_war(client)
        first = next(iter(add_commands()))
        done = client.post(f"{api}/commands", headers=host,
                           json={"kind": first.kind, "args": first.args})  # fmt: skip
        assert done.status_code == 200, done.text
        assert client.get(api, headers=host).status_code == 200


def test_sv15_a_request_fastapi_solves_runs_on_the_threadpool_and_is_answered_alike(
    tmp_path: Path, where: list[tuple[str, bool]]
) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'store.db'}")) as client:
        api, host = a_war(client)
        commands = list(add_commands())
        answers = []
        for command, content_type in zip(
            commands[:2], ["application/json", "application/json; charset=utf-8"], strict=True
        ):
            body = json.dumps({"kind": command.kind, "args": command.args}).encode()
            answers.append(client.post(f"{api}/commands", content=body,
                                       headers={**host, "content-type": content_type}))  # fmt: skip
        assert [a.status_code for a in answers] == [200, 200]
        assert [a.json()["record"]["revision"] for a in answers] == [1, 2]
    assert where == [("command", True), ("command", False)]  # the charset's: FastAPI's handler


# -- SV-16: the encounters kept in memory --------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def fights(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    with database_url(request.param, tmp_path) as url:
        yield from fight_table(url)


def another_war(t: Table, name: str) -> int:
    body = {"game": "majesty-war", "name": name, "seed": len(name)}
    made = t.client.post(f"/api/tables/{t.tid}/encounters", headers=t.host, json=body)
    assert made.status_code == 201, made.text
    eid = int(made.json()["id"])
    for command in list(add_commands())[:2]:
        done = t.client.post(f"/api/encounters/{eid}/commands", headers=t.host,
                             json={"kind": command.kind, "args": command.args})  # fmt: skip
        assert done.status_code == 200, done.text
    return eid


def test_sv16_past_the_bound_the_least_recently_used_is_let_go_and_read_again_alike(
    fights: Table,
) -> None:
    web = fights.web
    before = fights.client.get(fights.api(), headers=fights.host).json()
    web.live_kept = 2
    wars = [another_war(fights, name) for name in ("Ford", "Mill", "Bridge")]
    assert list(web._live) == wars[1:]  # the fight let go first, then the least recent War
    again = fights.client.get(fights.api(), headers=fights.host).json()
    assert again == before  # read again from the store, alike
    assert list(web._live) == [wars[2], fights.eid]  # now the most recent
    assert fights.command(fights.host, "next").status_code == 200  # and played on


def test_sv16_an_encounter_waiting_for_a_decision_is_never_let_go(fights: Table) -> None:
    web = fights.web
    web.live_kept = 1
    (asked,) = goblin_attacks_aldric(fights).json()["pending"]
    for name in ("Ford", "Mill"):
        another_war(fights, name)
    assert fights.eid in web._live  # waits: kept past the bound (D-5's sweeper needs it)
    assert len(web._live) == 2  # the waiting fight and the last War
    done = fights.decide(fights.al, asked["id"], asked["suggested"])
    assert done.status_code == 200, done.text  # 200: nothing waits any more
    another_war(fights, "Bridge")
    assert fights.eid not in web._live  # answered: let go like any other


@pytest.mark.parametrize("backend", BACKENDS)
def test_sv16_ended_encounters_are_let_go_first_and_at_most_so_many_kept(
    backend: str, tmp_path: Path
) -> None:
    with database_url(backend, tmp_path) as url:
        web = WebTable(Store.open(url))
        try:
            web.live_kept, web.ended_kept = 3, 1
            table_id, _token = web.create_table("Ends")
            host = Principal(table_id, None)
            ended = [war_started(web, host, table_id, name, to_the_end=True) for name in "AB"]
            assert list(web._live) == ended  # two ended, three kept at most: nothing let go
            playing = [war_started(web, host, table_id, "C")]
            assert list(web._live) == [ended[1], *playing]  # A: ended, past the ended bound
            playing += [war_started(web, host, table_id, name) for name in "DE"]
            assert list(web._live) == playing  # B let go before any War still played
            assert web.live(ended[0]).state.ended  # read again from the store as it was
        finally:
            web.store.close()


def war_started(
    web: WebTable, host: Principal, table_id: int, name: str, to_the_end: bool = False
) -> int:
    """A War of the example roster, its Cycle begun (and, with ``to_the_end``, played out)."""
    info = web.create_encounter(host, table_id, "majesty-war", name, ord(name))
    for command in [*add_commands(), Command("next")]:
        web.execute(host, info.id, command, None)
    while to_the_end and not web.live(info.id).state.ended:
        web.execute(host, info.id, next_command(web.live(info.id).state), None)
    return info.id
