"""The web table's live stream (Server-Sent Events), its demo table and ``tableside serve``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from typer.testing import CliRunner

from tableside import service
from tableside.cli.app import app as cli_app
from tableside.cli.serve_cmds import demo_lines
from tableside.encounter.log import Command
from tableside.store import Store
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.demo import create_demo
from tableside.web.hub import record_stream
from tableside.web.table import WebTable


@pytest.fixture
def table(url: str) -> Iterator[WebTable]:
    app = create_app(url)
    web: WebTable = app.state.table
    yield web
    web.store.close()


def parse(event: str) -> dict[str, Any]:
    fields = dict(line.split(": ", 1) for line in event.strip().splitlines())
    data: dict[str, Any] = json.loads(fields["data"])
    assert fields["id"] == str(data["revision"]) and fields["event"] == "record"
    return data


def stance(who: str) -> Command:
    return Command("stance", {"id": who})


def test_the_stream_pushes_each_visible_record_as_it_is_committed(table: WebTable) -> None:
    demo = create_demo(table)
    eid = demo.encounter_id
    host = Principal(demo.table_id, None)
    player = table.principal(next(iter(demo.player_links.values())).removeprefix("/join/"))
    start = table.store.encounter(eid).revision

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        def reader(who: Principal) -> Any:
            return lambda rev: table.visible_after(who, eid, rev)

        streams = [record_stream(table.notifier, eid, reader(w), start, poll=30.0)
                   for w in (player, host)]  # fmt: skip
        for stream in streams:
            assert await anext(stream) == "retry: 2000\n\n"
        waiting = [asyncio.ensure_future(anext(s)) for s in streams]
        await asyncio.sleep(0.05)
        assert not any(w.done() for w in waiting)
        assert table.notifier.streams(eid) == 2
        await asyncio.to_thread(table.execute, host, eid, stance("Herald"), None, True)
        await asyncio.to_thread(table.execute, host, eid, stance("Watcher"), None)
        await asyncio.to_thread(table.step_back, host, eid, None, False)
        got: list[list[dict[str, Any]]] = [[], []]
        for i, stream in enumerate(streams):
            event = await asyncio.wait_for(waiting[i], EVENT_WAIT)
            while True:
                if "event: moved" not in event:  # the player's stream may say the hidden one
                    got[i].append(parse(event))
                if len(got[i]) == (2 if i == 0 else 3):
                    break
                event = await asyncio.wait_for(anext(stream), EVENT_WAIT)
            await stream.aclose()
        assert table.notifier.streams(eid) == 0
        return got[0], got[1]

    seen_by_player, seen_by_host = asyncio.run(scenario())
    assert [(r["revision"], r["kind"]) for r in seen_by_player] == [
        (start + 2, "command"), (start + 3, "undo")]  # fmt: skip
    assert seen_by_player[0]["command"]["args"] == {"id": "Watcher"}
    assert [(r["revision"], r["hidden"]) for r in seen_by_host] == [
        (start + 1, True), (start + 2, False), (start + 3, False)]  # fmt: skip


def test_a_players_stream_says_the_table_moved_after_a_hidden_command(table: WebTable) -> None:
    """Issue 12: after a hidden Host roll the players' pages stayed stale until a reload."""
    demo = create_demo(table)
    eid = demo.encounter_id
    host = Principal(demo.table_id, None)
    player = table.principal(next(iter(demo.player_links.values())).removeprefix("/join/"))
    start = table.store.encounter(eid).revision

    async def scenario() -> list[str]:
        stream = record_stream(
            table.notifier, eid, lambda rev: table.visible_after(player, eid, rev), start, 30.0
        )
        assert await anext(stream) == "retry: 2000\n\n"
        waiting = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        await asyncio.to_thread(table.execute, host, eid, stance("Herald"), None, True)
        first = await asyncio.wait_for(waiting, EVENT_WAIT)
        await asyncio.to_thread(table.execute, host, eid, stance("Watcher"), None)
        second = await asyncio.wait_for(anext(stream), EVENT_WAIT)
        await stream.aclose()
        return [first, second]

    moved, shown = asyncio.run(scenario())
    assert moved == f'id: {start + 1}\nevent: moved\ndata: {{"revision":{start + 1}}}\n\n'
    assert "Herald" not in moved
    assert parse(shown)["revision"] == start + 2  # the next visible record as before


def test_the_stream_picks_up_records_written_by_another_process(table: WebTable, url: str) -> None:
    demo = create_demo(table)
    eid = demo.encounter_id
    host = Principal(demo.table_id, None)
    start = table.store.encounter(eid).revision

    async def scenario() -> dict[str, Any]:
        stream = record_stream(
            table.notifier, eid, lambda rev: table.visible_after(host, eid, rev), start, poll=0.05
        )
        await anext(stream)
        with Store.open(url) as other:  # no notifier: only the poll can see this
            service.run_command(other, eid, stance("Brute"))
        event = await asyncio.wait_for(anext(stream), EVENT_WAIT)
        await stream.aclose()
        return parse(event)

    record = asyncio.run(scenario())
    assert record["revision"] == start + 1 and record["command"]["args"] == {"id": "Brute"}


def test_the_stream_endpoint_needs_a_token_for_the_table(table: WebTable, url: str) -> None:
    demo = create_demo(table)
    with TestClient(create_app(url)) as client:
        path = f"/api/encounters/{demo.encounter_id}/stream"
        assert client.get(path).status_code == 401
        other = client.post("/api/tables", json={"name": "Other"}).json()["host_token"]
        r = client.get(path, headers={"Authorization": f"Bearer {other}"})
        assert r.status_code == 403 and "error" in r.json()


def test_the_demo_table_has_a_war_under_way_and_a_seat_per_side(table: WebTable) -> None:
    lines = demo_lines(table, "http://127.0.0.1:8000")
    assert lines[0] == "Demo table 1, War 1."
    assert lines[1].startswith("Host:   http://127.0.0.1:8000/tables/1/encounters/1?token=")
    assert [line.split(":")[0] for line in lines[2:]] == ["The holy player", "The fallen player"]
    state = table.state(1, Principal(1, None))
    assert len(state["combatants"]) == 8 and state["cycle"] == 1 and state["current"]
    seats = table.table_view(Principal(1, None))["seats"]
    assert seats[0]["characters"] == ["Herald", "Watcher", "Guardian", "Messenger"]


def test_tableside_serve_is_on_the_command_line() -> None:
    done = CliRunner().invoke(cli_app, ["serve", "--help"])
    assert done.exit_code == 0
    for option in ("--host", "--port", "--db", "--demo"):
        assert option in done.output
