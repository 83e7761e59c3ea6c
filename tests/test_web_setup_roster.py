"""The set-up page's roster and seats (W-26 … W-28): the Realm of Strife character form, side as
a choice, removing a combatant, loading an encounter file, editing seats, who is connected,
join links with a QR code; every refusal is one sentence and writes nothing."""

from __future__ import annotations

import asyncio
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from clirun import Cli
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from test_web_setup import Host, client, error_in

from tableside.store import tables
from tableside.web.auth import SESSION_COOKIE, Principal, csrf_token
from tableside.web.guards import holder_key
from tableside.web.hub import REVOKED, Notifier, record_stream

__all__ = ["client"]  # the fixture (test_web_setup's), on both backends

EXAMPLES = Path(__file__).parent.parent / "examples"
KNIGHT = (EXAMPLES / "strife_knight.json").read_text()
CASTER = (EXAMPLES / "strife_caster.json").read_text()
AMBUSH = json.loads((EXAMPLES / "strife_ambush.json").read_text())
WAR_4V4 = json.loads((EXAMPLES / "war_4v4.json").read_text())
SHEET = {"mode": "sheet", "name": "Brannoc", "side": "", "side_new": "heroes", "size": "medium",
         "STR": "17", "AGIL": "9", "INT": "8", "WIS": "11", "STAM": "15", "hp_max": "32",
         "ac": "10", "dodge": "5", "initiative": "4", "movement": "5", "main_hand": "Long Sword",
         "off_hand": "", "shield": "Kite Shield", "armour": ["Chain Hauberk", "Plate Helm"],
         "proficiencies": ["Swords", "Shields", "Medium Armour"], "skills": "Dual Wield",
         "powers": ["Arcane Missile"], "res_Vigor": "10", "res_Vigor_max": "10",
         "resist_fire": "5", "x": "1", "y": "2", "z": "0", "secret": "default"}  # fmt: skip


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def state(client: TestClient, host: Host, eid: int) -> dict[str, Any]:
    found: dict[str, Any] = client.get(f"/api/encounters/{eid}", headers=auth(host.token)).json()
    shown: dict[str, Any] = found["state"]
    return shown


def models(client: TestClient, host: Host, eid: int) -> dict[str, dict[str, Any]]:
    rows = state(client, host, eid)
    return {r["id"]: r for r in rows.get("models", rows.get("combatants", []))}


def sheet_of(host: Host, eid: int, combatant: str) -> dict[str, Any]:
    for record in host.log(eid):
        args = record["command"]["args"]
        if record["command"]["kind"] == "add" and args["id"] == combatant:
            sheet: dict[str, Any] = record["events"][0]["data"]["sheet"]
            return sheet
    raise AssertionError(combatant)


def player(client: TestClient, host: Host, name: str, characters: list[str]) -> dict[str, Any]:
    body = {"name": name, "characters": characters}
    answer = client.post(f"/api/tables/{host.tid}/players", headers=auth(host.token), json=body)
    seat: dict[str, Any] = answer.json()
    return seat


# --- W-26: the Realm of Strife character form ---------------------------------------------------


def test_w26_the_strife_character_form_adds_a_whole_sheet(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    page = host.get(f"/tables/{host.tid}/encounters/{eid}/setup").text
    for field in ("STR", "hp_max", "ac", "dodge", "movement", "main_hand", "shield", "armour",
                  "proficiencies", "powers", "res_Vigor", "resist_fire", "size"):  # fmt: skip
        assert f'name="{field}"' in page, field
    assert "Arcane Missile" in page and "Kite Shield" in page and "Chain Hauberk" in page
    r = host.add(eid, SHEET)
    assert r.status_code == 303, error_in(r.text)
    sheet = sheet_of(host, eid, "Brannoc")
    assert sheet["stats"] == {"STR": 17, "AGIL": 9, "INT": 8, "WIS": 11, "STAM": 15}
    assert (sheet["hp"], sheet["hp_max"], sheet["ac"], sheet["dodge"]) == (32, 32, 10, 5)
    assert sheet["armour"] == ["Chain Hauberk", "Plate Helm"] and sheet["shield"] == "Kite Shield"
    assert sheet["powers"] == ["Arcane Missile"] and sheet["skills"] == ["Dual Wield"]
    assert sheet["resources"] == {"Vigor": {"current": 10, "maximum": 10}}
    assert sheet["resistances"] == {"fire": 5}
    assert models(client, host, eid)["Brannoc"]["side"] == "heroes"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"STR": "99"}, "Strength (stats.STR)"),
        ({"STR": "x"}, "Strength must be a whole number, got 'x'"),
        ({"hp_max": ""}, "HP maximum is required"),
        ({"name": ""}, "name is required"),
        (
            {"main_hand": "Banana"},
            "main hand's weapon must be one of the catalogue's, got 'Banana'",
        ),
        ({"powers": ["Fireball"]}, "Unknown choice 'Fireball' for powers"),
        ({"size": "vast"}, "Size must be one of"),
        ({"side_new": ""}, "side"),
    ],
)
def test_w26_a_bad_sheet_is_refused_naming_the_field_and_kept_as_typed(
    client: TestClient, change: dict[str, Any], words: str
) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    r = host.add(eid, {**SHEET, **change, "skills": "Typed skill"})
    assert r.status_code == 400
    assert words in error_in(r.text)
    assert 'id="sheet-form-error"' in r.text
    assert 'value="Typed skill"' in r.text  # what was typed is still there
    assert 'value="Chain Hauberk" checked' in r.text
    assert host.log(eid) == []


def test_w26_the_example_sheets_load_by_import_and_by_the_command_line(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    for doc, side in ((KNIGHT, "heroes"), (CASTER, "heroes")):
        r = host.add(eid, {"mode": "import", "document": doc, "side": side})
        assert r.status_code == 303, error_in(r.text)
    assert sheet_of(host, eid, "Ilsa")["powers"] == ["Arcane Missile", "Flame Strike",
                                                     "Birds of Prey"]  # fmt: skip
    cli = Cli(tmp_path / "fight.db", capsys, monkeypatch)
    fight = str(cli.json("fight", "new", "Mill", "--seed", "5")["id"])
    for name in ("strife_knight.json", "strife_caster.json"):
        cli.json("fight", "add", fight, "--id", name.split(".")[0], "--side", "heroes",
                 "--sheet", str(EXAMPLES / name))  # fmt: skip
    shown = cli.json("fight", "show", fight)
    assert sorted(m["id"] for m in shown["models"]) == ["strife_caster", "strife_knight"]
    bad = json.loads(CASTER) | {"powers": ["Fireball"]}
    r = host.add(eid, {"mode": "import", "document": json.dumps(bad), "side": "x", "id": "B"})
    assert r.status_code == 400 and "Fireball" in error_in(r.text)


def test_w26_side_is_a_choice_of_the_sides_present_or_a_new_one(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    assert host.add(eid, {"mode": "form", "model": "Goblin", "side": "", "side_new": "monsters"})
    page = host.get(f"/tables/{host.tid}/encounters/{eid}/setup").text
    select = re.search(r'<select name="side" data-new-side="model-side-new">(.*?)</select>',
                       page, re.S)  # fmt: skip
    assert select is not None
    assert '<option value="monsters" selected>' in select.group(1)
    assert "a new side" in select.group(1)
    r = host.add(eid, {"mode": "form", "model": "Goblin", "id": "G2", "side": "monsters",
                       "side_new": "ignored"})  # fmt: skip
    assert r.status_code == 303
    assert {m["side"] for m in models(client, host, eid).values()} == {"monsters"}
    r = host.add(eid, {"mode": "form", "model": "Goblin", "id": "G3", "side": ""})
    assert r.status_code == 400 and "side" in error_in(r.text)


# --- W-26: removing a combatant ------------------------------------------------------------------


def test_w26_the_host_removes_a_combatant_with_the_games_undoable_command(
    client: TestClient,
) -> None:
    host = Host(client)
    war = host.encounter("majesty-war", "Ford")
    r = host.post(f"/tables/{host.tid}/encounters/{war}/roster", {"document": json.dumps(WAR_4V4)})
    assert r.status_code == 303, error_in(r.text)
    r = host.post(f"/tables/{host.tid}/encounters/{war}/remove", {"combatant": "Herald"})
    assert r.status_code == 303
    assert "Herald" not in models(client, host, war)
    assert host.log(war)[-1]["command"] == {"kind": "remove", "args": {"id": "Herald"},
                                            "dice": None}  # fmt: skip
    undo = client.post(f"/api/encounters/{war}/undo", headers=auth(host.token))
    assert undo.status_code == 200 and "Herald" in models(client, host, war)

    fight = host.encounter("strife-combat", "Mill")
    body = {"document": AMBUSH}
    assert client.post(f"/api/encounters/{fight}/roster", headers=auth(host.token),
                       json=body).status_code == 201  # fmt: skip
    page = host.get(f"/tables/{host.tid}/encounters/{fight}/setup").text
    assert "Remove Goblin-1" in page
    r = host.post(f"/tables/{host.tid}/encounters/{fight}/remove", {"combatant": "Goblin-1"})
    assert r.status_code == 303 and "Goblin-1" not in models(client, host, fight)
    client.post(f"/api/encounters/{fight}/undo", headers=auth(host.token))
    client.post(f"/api/encounters/{fight}/commands", headers=auth(host.token),
                json={"kind": "start", "args": {}})  # fmt: skip
    revision = client.get(f"/api/encounters/{fight}", headers=auth(host.token)).json()
    page = host.get(f"/tables/{host.tid}/encounters/{fight}/setup").text
    assert "Remove Goblin-1" not in page and "keeps its place in the Turn" in page
    r = host.post(f"/tables/{host.tid}/encounters/{fight}/remove", {"combatant": "Goblin-1"})
    assert r.status_code == 400 and "The fight has started" in error_in(r.text)
    after = client.get(f"/api/encounters/{fight}", headers=auth(host.token)).json()
    assert after["state"]["revision"] == revision["state"]["revision"]


def test_w26_a_player_cannot_remove_or_load_and_a_form_needs_its_csrf(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war", "Ford")
    host.post(f"/tables/{host.tid}/encounters/{eid}/roster", {"document": json.dumps(WAR_4V4)})
    ann = player(client, host, "Ann", ["Herald"])
    r = client.post(f"/api/encounters/{eid}/remove", headers=auth(ann["token"]),
                    json={"id": "Herald"})  # fmt: skip
    assert r.status_code == 403 and "Only the Host" in r.json()["error"]
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth(ann["token"]),
                    json={"document": WAR_4V4})  # fmt: skip
    assert r.status_code == 403
    client.get(f"/join/{ann['token']}")  # Ann's browser: her session cookie
    r = client.post(f"/tables/{host.tid}/encounters/{eid}/remove", data={"combatant": "Herald"})
    assert r.status_code == 403
    host.sit()
    r = client.post(f"/tables/{host.tid}/encounters/{eid}/remove", data={"combatant": "Herald"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    assert len(host.log(eid)) == 8


# --- W-26: loading an encounter file -------------------------------------------------------------


def test_w26_an_encounter_file_adds_all_its_combatants_at_once(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth(host.token),
                    json={"document": AMBUSH})  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.json()["added"] == ["Aldric", "Sera", "Goblin-1", "Goblin-2", "Troll"]
    assert set(models(client, host, eid)) == {"Aldric", "Sera", "Goblin-1", "Goblin-2", "Troll"}
    assert [rec["command"]["kind"] for rec in host.log(eid)] == ["add"] * 5


def bad_entry_file() -> dict[str, Any]:
    """The ambush file with its fourth add naming a model the catalogue lacks."""
    doc: dict[str, Any] = json.loads(json.dumps(AMBUSH))
    adds = [r for r in doc["records"] if r["kind"] == "command" and r["command"]["kind"] == "add"]
    adds[3]["command"]["args"]["model"] = "Dragon"
    return doc


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ("not json", "The encounter file"),
        (json.dumps(WAR_4V4), "this encounter is Realm of Strife combat"),
        (
            json.dumps(
                {
                    "format": "tableside/encounter",
                    "version": 1,
                    "name": "E",
                    "game": "strife-combat",
                    "seed": 1,
                    "records": [],
                }
            ),
            "adds no combatant",
        ),
        (json.dumps({"format": "x"}), "Encounter document"),
        ("", "Choose an encounter file"),
    ],
)
def test_w26_a_bad_encounter_file_is_one_sentence_and_writes_nothing(
    client: TestClient, document: str, words: str
) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    r = host.post(f"/tables/{host.tid}/encounters/{eid}/roster", {"document": document})
    assert r.status_code == 400 and words in error_in(r.text), error_in(r.text)
    assert 'id="roster-form-error"' in r.text
    assert host.log(eid) == []


def test_w26_a_file_with_one_bad_entry_adds_none_and_names_it(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    assert host.add(eid, {"mode": "form", "model": "Goblin", "id": "Troll", "side": "x"})
    before = host.log(eid)
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth(host.token),
                    json={"document": AMBUSH})  # fmt: skip
    assert r.status_code == 400
    assert "Nothing was added: entry 5 of the file (Troll) cannot join" in r.json()["error"], (
        r.json()
    )
    assert "already a model 'Troll'" in r.json()["error"]
    assert host.log(eid) == before


def test_w26_an_encounter_file_that_does_not_replay_is_refused(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth(host.token),
                    json={"document": bad_entry_file()})  # fmt: skip
    assert r.status_code == 400 and "Dragon" in r.json()["error"], r.json()
    assert host.log(eid) == []


# --- W-28: seats ----------------------------------------------------------------------------------


def test_w28_the_host_edits_a_seat_and_its_link_keeps_working(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war", "Ford")
    host.post(f"/tables/{host.tid}/encounters/{eid}/roster", {"document": json.dumps(WAR_4V4)})
    ann = player(client, host, "Ann", ["Herald"])
    page = host.get(f"/tables/{host.tid}").text
    assert f'action="/tables/{host.tid}/players/{ann["id"]}/edit"' in page
    change = {"name": "Anna", "characters": ["Herald", "Warden"], "others": "Later"}
    r = host.post(f"/tables/{host.tid}/players/{ann['id']}/edit", change)
    assert r.status_code == 303
    mine = client.get(f"/api/tables/{host.tid}", headers=auth(ann["token"])).json()
    assert mine["seat"] == {"id": ann["id"], "name": "Anna",
                            "characters": ["Herald", "Warden", "Later"]}  # fmt: skip
    r = client.patch(f"/api/tables/{host.tid}/players/{ann['id']}", headers=auth(host.token),
                     json={"characters": ["Warden"]})  # fmt: skip
    assert r.status_code == 200 and r.json() == {"id": ann["id"], "name": "Anna",
                                                 "characters": ["Warden"]}  # fmt: skip
    r = client.patch(f"/api/tables/{host.tid}/players/{ann['id']}", headers=auth(ann["token"]),
                     json={"characters": ["Herald", "Boss"]})  # fmt: skip
    assert r.status_code == 403
    r = client.patch(f"/api/tables/{host.tid}/players/999", headers=auth(host.token),
                     json={"name": "X"})  # fmt: skip
    assert r.status_code == 404 and "no seat with id 999" in r.json()["error"]
    r = host.post(f"/tables/{host.tid}/players/{ann['id']}/edit", {"name": "", "others": "a b"})
    assert r.status_code == 400 and "character id" in error_in(r.text)
    r = host.post(f"/tables/{host.tid}/players/{ann['id']}/edit", {"name": ""})
    assert r.status_code == 400 and "name" in error_in(r.text)
    client.get(f"/join/{ann['token']}")  # Anna's own browser, with her session's CSRF proof
    session = client.cookies[SESSION_COOKIE]
    queen = {"name": "Queen", "others": "Boss", "csrf": csrf_token(session)}
    r = client.post(f"/tables/{host.tid}/players/{ann['id']}/edit", data=queen)
    assert r.status_code == 403 and "Only the Host" in r.json()["error"]
    seat = tables.seats(client.app.state.table.store, host.tid)[0]  # type: ignore[attr-defined]
    assert (seat.name, seat.characters) == ("Anna", ("Warden",))


def test_w28_a_new_link_shows_a_copy_button_and_an_inline_qr_code(client: TestClient) -> None:
    host = Host(client)
    ann = player(client, host, "Ann", [])
    r = host.post(f"/tables/{host.tid}/players/{ann['id']}/token", {"confirm": "on"})
    assert r.status_code == 201
    link = html.unescape(re.findall(r'id="link-box" readonly value="([^"]+)"', r.text)[0])
    assert "/join/" in link and 'data-copy="link-box"' in r.text
    svg = re.search(r'<figure class="qr" id="link-qr"><svg role="img"[^>]*>.*?</svg>', r.text,
                    re.S)  # fmt: skip
    assert svg is not None and "<path" in svg.group(0)
    assert not re.search(r"(src|href)=\"https?://(?!testserver)", r.text)  # nothing external
    assert "script-src 'self';" in r.headers["content-security-policy"]  # no inline script (W-73)
    assert re.search(r'<script src="/static/setup\.[0-9a-f]+\.js" integrity="sha384-', r.text)
    old = client.get(f"/api/tables/{host.tid}", headers=auth(ann["token"]))
    assert old.status_code == 401  # the old link stops working


def test_w28_who_is_connected_counts_each_seats_open_pages(client: TestClient) -> None:
    host = Host(client)
    ann = player(client, host, "Ann", [])
    table = client.app.state.table  # type: ignore[attr-defined]
    seat = next(s for s in tables.seats(table.store, host.tid) if s.id == ann["id"])
    url = f"/api/tables/{host.tid}/presence"
    found = client.get(url, headers=auth(host.token)).json()
    assert found["seats"][0]["connected"] == 0
    give_back = table.streams.take(holder_key(Principal(host.tid, seat)))  # Ann's page opens
    found = client.get(url, headers=auth(host.token)).json()
    assert found == {"host": 0, "seats": [{"id": ann["id"], "name": "Ann", "characters": [],
                                           "connected": 1}]}  # fmt: skip
    assert "token" not in json.dumps(found)
    page = host.get(f"/tables/{host.tid}").text
    assert f'data-seat="{ann["id"]}"\n role="status">connected' in page
    give_back()
    assert client.get(url, headers=auth(host.token)).json()["seats"][0]["connected"] == 0
    assert client.get(url, headers=auth(ann["token"])).status_code == 403


def test_w28_a_changed_seat_ends_its_stream_without_revoked() -> None:
    async def run(answer: bool | None) -> list[str]:
        notifier = Notifier()
        events = record_stream(notifier, 1, lambda after: ([], after), 0, poll=0.01,
                               alive=lambda: answer)  # fmt: skip
        sent: list[str] = []
        async for event in events:
            sent.append(event)
            if len(sent) > 3:
                break
        return sent

    assert asyncio.run(run(None)) == ["retry: 2000\n\n"]  # ended: the page reconnects
    assert asyncio.run(run(False)) == ["retry: 2000\n\n", REVOKED]


def test_w27_a_stopping_server_ends_every_open_stream() -> None:
    async def run() -> list[str]:
        notifier = Notifier()
        events = record_stream(notifier, 1, lambda after: ([], after), 0, poll=30.0)
        sent = [await anext(events)]

        async def stop_soon() -> None:
            await asyncio.sleep(0.05)
            notifier.stop()

        stopper = asyncio.create_task(stop_soon())
        sent += [event async for event in events]
        await stopper
        return sent

    assert asyncio.run(asyncio.wait_for(run(), EVENT_WAIT)) == ["retry: 2000\n\n"]


def test_w26_the_fights_remove_command_before_the_start_undoes_and_replays() -> None:
    from test_strife_fight import add, do, fight

    from tableside.encounter.engine import Encounter
    from tableside.encounter.strife.fight import StrifeFight
    from tableside.errors import TablesideError

    e = fight()
    add(e, "Aldric", "Aldric", "heroes", (0, 0), 10)
    add(e, "Goblin", "Goblin", "monsters", (1, 0), 12)
    add(e, "Troll", "Cave Troll", "monsters", (3, 0), 5)
    removed = do(e, "remove", id="Troll")
    assert [ev.kind for ev in removed.events] == ["model_removed"]
    assert set(e.state.models) == {"Aldric", "Goblin"}
    e.undo()
    assert "Troll" in e.state.models
    e.redo()
    replayed = Encounter.from_records(StrifeFight(), e.seed, e.records)
    assert set(replayed.state.models) == {"Aldric", "Goblin"}
    with pytest.raises(TablesideError, match="Nobody"):
        do(e, "remove", id="Nobody")
    do(e, "start")
    with pytest.raises(TablesideError, match="The fight has started, so Goblin cannot be removed"):
        do(e, "remove", id="Goblin")
    assert set(e.state.models) == {"Aldric", "Goblin"}


def test_w26_a_sheet_naming_an_unknown_power_is_refused_by_the_fight() -> None:
    from test_strife_fight import do, fight

    from tableside.errors import TablesideError
    from tableside.strife.catalog import builtin_catalog

    sheet = builtin_catalog().combatant("Sera").model_dump(mode="json") | {"powers": ["Fireball"]}
    e = fight()
    with pytest.raises(TablesideError, match="Fireball"):
        do(e, "add", id="Sera", sheet=sheet, side="heroes")
    assert e.state.models == {}
    sheet["powers"] = ["Arcane Missile"]
    do(e, "add", id="Sera", sheet=sheet, side="heroes")
    assert e.state.models["Sera"].sheet.powers == ("Arcane Missile",)
    plain = builtin_catalog().combatant("Aldric").model_dump(mode="json")
    assert "powers" not in plain  # a sheet without powers is written as before
