"""The map's layers and pings (docs/web.md W-65 … W-67) on both backends, hostile inputs first.

The War of ``make_table``: Ann plays Herald (0, 0), Bo plays Brute (8, 6); the Warrior (8, 0)
is an NPC nobody plays.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import inspect
from test_hostile_oracle import stream_text
from test_web_play import new_table, seat
from test_web_tokens import Table, bearer, make_table

from tableside.store import Store
from tableside.store.layers import Area
from tableside.store.migrate import current_revision, downgrade, head_revision, upgrade
from tableside.store.tables import Seat
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.guards import IMAGE_MAX_BYTES
from tableside.web.stage import PingBody, map_feed, ping
from tableside.web.table import WebTable
from tableside.web.unseen import conceal, labels, unseen_in, without_unseen


@pytest.fixture
def table(url: str) -> Iterator[Table]:
    application: FastAPI = create_app(url)
    with TestClient(application):
        yield make_table(application)


def picture(kind: str = "PNG", size: tuple[int, int] = (40, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (90, 120, 60)).save(out, kind)
    return out.getvalue()


def put_image(t: Table, token: str, body: bytes, query: str = "width=24&x=-2&y=-3") -> Any:
    return t.api().put(
        f"/api/encounters/{t.eid}/background?{query}",
        headers={**bearer(token), "Content-Type": "application/octet-stream"},
        content=body,
    )


def path(t: Table, rest: str) -> str:
    return f"/api/encounters/{t.eid}{rest}"


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "WEBP"])
def test_w65_the_hosts_background_is_stored_and_served_to_the_table_only(
    table: Table, kind: str
) -> None:
    body = picture(kind)
    r = put_image(table, table.host, body)
    assert r.status_code == 200, r.text
    media = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}[kind]
    # 40 × 20 pixels laid 24 inches wide: 12 inches high, its corner where the Host said
    assert r.json()["background"] == {
        "type": media, "x": -2.0, "y": -3.0, "width": 24.0, "height": 12.0, "version": 1,
    }  # fmt: skip
    seen = table.api().get(path(table, "/background"), headers=bearer(table.ann))
    assert seen.status_code == 200 and seen.content == body
    assert seen.headers["content-type"] == media
    assert seen.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in seen.headers["content-security-policy"]
    assert table.api().get(path(table, "/background")).status_code == 401
    other = make_table(table.app)  # another table's Host and players: not this table's image
    for token in (other.host, other.ann):
        refused = table.api().get(path(table, "/background"), headers=bearer(token))
        assert refused.status_code in (403, 404) and refused.json()["error"]
    layers = table.api().get(path(table, "/map-layers"), headers=bearer(table.bo)).json()
    assert layers["background"]["width"] == 24.0
    gone = table.api().delete(path(table, "/background"), headers=bearer(table.host))
    assert gone.status_code == 200 and gone.json()["background"] is None
    assert table.api().get(path(table, "/background"), headers=bearer(table.ann)).status_code == 404


def test_w65_hostile_backgrounds_are_refused_with_one_sentence_and_nothing_stored(
    table: Table,
) -> None:
    png = picture()
    cases = [
        (table.ann, png, "width=24", 403),  # a player
        (table.host, b"GIF89a" + b"\0" * 40, "width=24", 415),  # a GIF
        (table.host, b"<svg xmlns='http://www.w3.org/2000/svg'/>", "width=24", 415),
        (table.host, b"\x89PNG\r\n\x1a\n" + b"\0" * 30, "width=24", 400),  # a PNG's head only
        (table.host, b"", "width=24", 400),
        (table.host, picture(size=(8193, 1)), "width=24", 400),  # too many pixels
        (table.host, png, "width=0", 422),
        (table.host, png, "width=1e9", 422),
        (table.host, png, "width=nan", 422),
        (table.host, png, "width=24&x=1e300", 422),
        (table.host, png + b"\0" * IMAGE_MAX_BYTES, "width=24", 413),  # too large
    ]
    for token, body, query, status in cases:
        r = put_image(table, token, body, query)
        assert r.status_code in (status, 400 if status == 422 else status), (query, r.text)
        assert isinstance(r.json()["error"], str) and r.json()["error"], r.text
    assert (
        table.api().delete(path(table, "/background"), headers=bearer(table.bo)).status_code == 403
    )
    layers = table.api().get(path(table, "/map-layers"), headers=bearer(table.host)).json()
    assert layers == {"version": 0, "background": None, "fog": []}


def fog(table: Table, token: str, areas: list[dict[str, Any]]) -> Any:
    return table.api().put(path(table, "/fog"), headers=bearer(token), json={"areas": areas})


def test_w66_a_fogged_npc_is_absent_from_a_players_state_and_log_not_greyed(table: Table) -> None:
    around_warrior = {"x": 7, "y": -1, "w": 2, "h": 2}
    assert fog(table, table.ann, [around_warrior]).status_code == 403
    r = fog(table, table.host, [around_warrior])
    assert r.status_code == 200 and r.json()["fog"] == [{"x": 7.0, "y": -1.0, "w": 2.0, "h": 2.0}]
    for token in (table.ann, table.bo):
        state = table.api().get(path(table, ""), headers=bearer(token))
        log = table.api().get(path(table, "/log"), headers=bearer(token))
        offered = table.api().get(path(table, "/options"), headers=bearer(token))
        assert offered.status_code == 200
        # not a row, not a record, not a target: not an id anywhere
        assert '"Warrior"' not in state.text + log.text + offered.text
        assert "Jackal" in state.text  # the others are there
    host = table.api().get(path(table, ""), headers=bearer(table.host)).text
    assert '"Warrior"' in host
    fog(table, table.host, [])  # revealed: it is back
    assert '"Warrior"' in table.api().get(path(table, ""), headers=bearer(table.ann)).text


def test_w66_fog_and_hide_unseen_except_ones_own_and_by_the_host() -> None:
    """W-66: in fog or hidden by the rules (Hide, S-22): unseen, unless it is the viewer's own."""
    host, player = Principal(1, None), Principal(1, Seat(5, 1, "Ann", ("Sera",)))
    state: dict[str, Any] = {"models": [{"id": "Sera", "position": [0, 0, 0], "hidden": True},
                        {"id": "Goblin", "position": [5, 5, 0], "hidden": False},
                        {"id": "Rat", "position": [-3, 0, 0], "hidden": True},
                        {"id": "Troll", "position": [20, 0, 0], "hidden": False}]}  # fmt: skip
    fogged = [Area(4, 4, 2, 2)]
    assert unseen_in(state, player, fogged) == {"Goblin", "Rat"}
    assert unseen_in(state, player, []) == {"Rat"}
    assert unseen_in(state, host, fogged) == frozenset()
    state["order"] = ["Rat", "Sera", "Troll"]
    state["current"] = "Rat"
    seen = without_unseen(state, frozenset({"Goblin", "Rat"}))
    assert [m["id"] for m in seen["models"]] == ["Sera", "Troll"]
    assert seen["order"] == ["Sera", "Troll"] and seen["current"] is None
    assert seen["unseen_turn"] is True


def test_w66_hostile_fog_bodies_are_refused(table: Table) -> None:
    bad: list[Any] = [
        [{"x": 0, "y": 0, "w": 0, "h": 1}],
        [{"x": 0, "y": 0, "w": -1, "h": 1}],
        [{"x": "0", "y": 0, "w": 1, "h": 1}],
        [{"x": 0, "y": 0, "w": 1, "h": 1, "z": 3}],
        [{"x": 0, "y": 0, "w": 1, "h": 1}] * 401,
    ]
    for areas in bad:
        r = fog(table, table.host, areas)
        assert 400 <= r.status_code < 500 and r.json()["error"], r.text


def test_w67_a_ping_reaches_every_stream_of_the_encounter(table: Table) -> None:
    feed = map_feed(table.web, table.eid)
    r = table.api().post(path(table, "/ping"), headers=bearer(table.ann), json={"x": 3, "y": 4})
    assert r.status_code == 201
    events = feed()
    assert events and events[-1].startswith("event: map\n")
    data = json.loads(events[-1].split("data: ", 1)[1])
    assert data == {"kind": "ping", "x": 3.0, "y": 4.0, "by": "Ann"}
    assert feed() == []  # each ping once
    fog(table, table.host, [{"x": 0, "y": 0, "w": 1, "h": 1}])
    assert json.loads(feed()[0].split("data: ", 1)[1])["kind"] == "map"  # the layers moved
    bad = table.api().post(path(table, "/ping"), headers=bearer(table.ann), json={"x": 1e9, "y": 0})
    assert bad.status_code in (400, 422)
    assert (
        ping(table.web, Principal(table.tid, None), table.eid, PingBody(x=1, y=1))["by"] == "Host"
    )


def test_migration_0010_adds_map_layers_and_takes_them_back(url: str) -> None:
    """0010 creates ``map_layers``; its downgrade drops it, and the upgrade makes it again."""
    with Store.open(url) as store:
        downgrade(store.engine, "0009")
        assert "map_layers" not in inspect(store.engine).get_table_names()
        upgrade(store.engine)
        assert "map_layers" in inspect(store.engine).get_table_names()
        assert current_revision(store.engine) == head_revision()


def test_w66_a_model_hiding_by_the_rules_is_absent_for_players_s22(url: str) -> None:
    """A Goblin added hiding (S-22, SA-16) is in the Host's state only; Ann sees her Aldric."""
    with TestClient(create_app(url)) as client:
        tid, host, eid = new_table(client, "strife-combat", 5)
        ann = seat(client, tid, host, ["Aldric"])
        adds = [{"id": "Aldric", "model": "Aldric", "side": "heroes"},
                {"id": "Lurker", "model": "Goblin", "side": "monsters", "position": [4, 0, 0],
                 "hiding": True}]  # fmt: skip
        for args in adds:
            r = client.post(f"/api/encounters/{eid}/commands", headers=host,
                            json={"kind": "add", "args": args})  # fmt: skip
            assert r.status_code == 200, r.text
        seen = "".join(
            client.get(f"/api/encounters/{eid}{p}", headers=ann).text
            for p in ("", "/log", "/options")
        )
        assert "Lurker" not in seen and '"Aldric"' in seen
        assert "Lurker" in client.get(f"/api/encounters/{eid}", headers=host).text


def unseen_named(received: str, cid: str) -> list[str]:
    """Where ``cid`` is named as a word in ``received`` (a sheet's "Fallen Warrior" aside)."""
    return re.findall(rf".{{0,40}}(?<!Fallen )\b{cid}\b.{{0,40}}", received)


def every_byte(client: TestClient, eid: int, who: dict[str, str], seat: Principal) -> list[str]:
    """A player's state, log, decision card, options, reach rings and live stream."""
    api = f"/api/encounters/{eid}"
    parts = [client.get(api + p, headers=who).text
             for p in ("", "/log", "/decisions", "/options", "/map")]  # fmt: skip
    table: WebTable = client.app.state.table  # type: ignore[attr-defined]
    return [*parts, stream_text(table, seat, eid)]


def test_w66_a_fogged_striker_asking_a_player_is_said_unseen_in_every_byte(table: Table) -> None:
    """The Warrior, fogged beside Herald, Strikes her: Ann's card says "an unseen attacker".

    Every byte Ann receives (her card, the fight's answers to her, her state, log, stream,
    previews, move prices and refusals) is free of the Warrior's id; the Host's card names it.
    """
    client, api = table.api(), path(table, "")
    host, ann = bearer(table.host), bearer(table.ann)
    fog(table, table.host, [{"x": 0.5, "y": -0.5, "w": 1, "h": 1}])  # beside Herald (0, 0)
    place = {"id": "Warrior", "field": "position", "value": [1, 0, 0]}
    assert client.post(api + "/commands", headers=host,
                       json={"kind": "host_set", "args": place}).status_code == 200  # fmt: skip
    for _ in range(8):
        if client.get(api, headers=host).json()["state"]["current"] == "Warrior":
            break
        client.post(api + "/commands", headers=host, json={"kind": "next", "args": {}})
    strike = {"kind": "strike", "args": {"striker": "Warrior", "defender": "Herald"}}
    assert client.post(api + "/commands", headers=host, json=strike).status_code == 202
    seat_of = Principal(table.tid, table.web.principal(table.ann).seat)
    received = every_byte(client, table.eid, ann, seat_of)
    card = client.get(api + "/decisions", headers=ann).json()
    assert card["cards"][0]["title"] == "An unseen attacker's strike"
    (asked,) = card["decisions"]
    assert asked["prompt"].startswith("An unseen attacker's Strike on Herald")
    assert asked["dice"]["for"] == "An unseen attacker's Strike on Herald"
    waits = client.post(api + "/commands", headers=ann, json={"kind": "next", "args": {}})
    priced = client.post(api + "/move-cost", headers=ann, json={"id": "Herald", "to": [0, 3, 0]})
    answered = client.post(f"{api}/decisions/{asked['id']}", headers=ann, json={"choice": 0})
    assert waits.status_code in (403, 409) and answered.status_code == 200, answered.text
    received += [
        waits.text,
        priced.text,
        answered.text,
        *every_byte(client, table.eid, ann, seat_of),
    ]
    assert unseen_named("\n".join(received), "Warrior") == []
    assert "an unseen attacker" in answered.text  # the strike's record, said to Ann
    host_card = client.get(api + "/log", headers=host).text
    assert "Warrior" in host_card


def test_w66_a_hiding_attacker_asking_a_player_is_said_unseen_s22(url: str) -> None:
    """A Goblin hiding (S-22) attacks Aldric: Al is asked how Aldric reacts, never told who."""
    with TestClient(create_app(url)) as client:
        tid, host, eid = new_table(client, "strife-combat", 5)
        al = seat(client, tid, host, ["Aldric"])
        api = f"/api/encounters/{eid}"
        adds = [{"id": "Aldric", "model": "Aldric", "side": "heroes"},
                {"id": "Lurker", "model": "Goblin", "side": "monsters", "position": [1, 0, 0],
                 "hiding": True}]  # fmt: skip
        for args in adds:
            r = client.post(api + "/commands", headers=host, json={"kind": "add", "args": args})
            assert r.status_code == 200, r.text
        client.post(api + "/commands", headers=host, json={"kind": "start", "args": {}})
        if client.get(api, headers=host).json()["state"]["current"] != "Lurker":
            client.post(api + "/commands", headers=host, json={"kind": "next", "args": {}})
        attack = {"attacker": "Lurker", "attacks": [{"defender": "Aldric"}]}
        r = client.post(api + "/commands", headers=host, json={"kind": "attack", "args": attack})
        assert r.status_code == 202, r.text
        table: WebTable = client.app.state.table  # type: ignore[attr-defined]
        token = al["Authorization"].split(" ", 1)[1]
        seat_of = Principal(tid, table.principal(token).seat)
        received = every_byte(client, eid, al, seat_of)
        (asked,) = client.get(api + "/decisions", headers=al).json()["decisions"]
        assert asked["prompt"].startswith("An unseen attacker attacks Aldric")
        assert asked["command"]["args"]["attacker"] == "an unseen attacker"
        answered = client.post(f"{api}/decisions/{asked['id']}", headers=al,
                               json={"choice": None})  # fmt: skip
        assert answered.status_code == 200, answered.text
        received += [answered.text, *every_byte(client, eid, al, seat_of)]
        assert unseen_named("\n".join(received), "Lurker") == []
        assert "Lurker" in client.get(api + "/log", headers=host).text


def test_w66_conceal_says_unseen_ids_in_values_keys_and_words_only() -> None:
    """An id, its spaced form and keys are said as unseen; a longer word or id is left alone."""
    said = labels({"Goblin_2", "Rat"}, {"kind": "strike", "args": {"striker": "Goblin_2"}})
    value = {"Rat": ["Goblin_2", "Goblin 2 strikes Herald", "Rations", "Goblin_20", "Rat's Turn"]}
    assert conceal(value, said) == {"an unseen combatant": [
        "an unseen attacker", "An unseen attacker strikes Herald", "Rations", "Goblin_20",
        "An unseen combatant's Turn"]}  # fmt: skip
    assert conceal({"Rat": 1, "an unseen combatant": 2}, said) == {
        "an unseen combatant": 1,
        "an unseen combatant (another)": 2,
    }  # nothing lost
    assert conceal(value, {}) is value
