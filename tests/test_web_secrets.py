"""Secret NPC values (docs/web.md W-1 … W-5): no byte a player receives carries them."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from patience import EVENT_WAIT
from test_store_support import BACKENDS, database_url, sent_statements

from tableside.store import Store, table_audience, table_log, tables
from tableside.web import create_app
from tableside.web.auth import Principal, token_hash
from tableside.web.hub import record_stream
from tableside.web.redact import SECRET, conceal, redact_event, redact_state
from tableside.web.table import WebTable

HERALD = json.loads(Path(__file__).parent.parent.joinpath("examples", "herald.json").read_text())
BOSS = {
    "format": "tableside/majesty-character",
    "version": 1,
    "name": "Boss",
    "side": "fallen",
    "weapon": "Sword",
    "attributes": {"might": 47, "swiftness": 37, "control": 33, "endurance": 4321,
                   "resolve": 3142, "passion": 1732},
    "overrides": {"guard": 977, "precision": 661},
}  # fmt: skip
NONE = {"mode": "none"}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class War:
    client: TestClient
    table: WebTable
    tid: int
    eid: int
    host: dict[str, str]
    host_token: str
    ann: dict[str, str]  # plays Herald
    ann_token: str
    bo: dict[str, str]  # plays nobody here

    def api(self, path: str = "") -> str:
        return f"/api/encounters/{self.eid}{path}"

    def command(self, who: dict[str, str], kind: str, **args: Any) -> Any:
        r = self.client.post(self.api("/commands"), headers=who, json={"kind": kind, "args": args})
        assert r.status_code == 200, r.text
        return r

    def state(self, who: dict[str, str]) -> dict[str, Any]:
        r = self.client.get(self.api(), headers=who)
        assert r.status_code == 200, r.text
        state: dict[str, Any] = r.json()["state"]
        return state

    def row(self, who: dict[str, str], combatant: str) -> dict[str, Any]:
        rows = self.state(who)["combatants"]
        found: dict[str, Any] = next(r for r in rows if r["id"] == combatant)
        return found


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    with database_url(request.param, tmp_path) as url, TestClient(create_app(url)) as c:
        yield c


def seat(client: TestClient, tid: int, host: dict[str, str], name: str, chars: list[str]) -> str:
    r = client.post(f"/api/tables/{tid}/players", headers=host,
                    json={"name": name, "characters": chars})  # fmt: skip
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def strife_table(client: TestClient) -> tuple[int, dict[str, str], dict[str, str]]:
    """A Realm of Strife fight (seed 5) at a new table, Al seated for Aldric: the encounter,
    the Host's and Al's headers."""
    r = client.post("/api/tables", json={"name": "Mill"}).json()
    tid, host = r["id"], auth(r["host_token"])
    new = {"game": "strife-combat", "name": "Ambush", "seed": 5}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
    npcs_decide(client, eid, host)
    return eid, host, auth(seat(client, tid, host, "Al", ["Aldric"]))


def npcs_decide(client: TestClient, eid: int, host: dict[str, str]) -> None:
    """The NPCs' choices take their suggestions (D-5): a player's Strike on one resolves."""
    r = client.put(f"/api/encounters/{eid}/settings", headers=host, json={"npcs_decide": "auto"})
    assert r.status_code == 200, r.text


@pytest.fixture
def war(client: TestClient) -> War:
    r = client.post("/api/tables", json={"name": "Friday"}).json()
    tid, host_token = r["id"], r["host_token"]
    host = auth(host_token)
    new = {"game": "majesty-war", "name": "Ford", "seed": 3}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
    npcs_decide(client, eid, host)
    for body in ({"character": BOSS, "position": [1, 0, 0]}, {"character": HERALD}):
        r = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
        assert r.status_code == 201, r.text
    ann = seat(client, tid, host, "Ann", ["Herald"])
    bo = seat(client, tid, host, "Bo", [])
    table: WebTable = client.app.state.table  # type: ignore[attr-defined]
    return War(client, table, tid, eid, host, host_token, auth(ann), ann, auth(bo))


def fight_it_out(war: War) -> list[str]:
    """Boss strikes Herald, the player's Herald strikes Boss; every answer the player got."""
    war.command(war.host, "next")
    war.command(war.host, "strike", striker="Boss", defender="Herald", **NONE, obstruction=0)
    war.command(war.host, "next")
    answers = [war.command(war.ann, "strike", striker="Herald", defender="Boss").text]
    answers.append(war.command(war.ann, "stance", id="Herald").text)
    return answers


def boss_numbers(war: War) -> set[str]:
    """Every number of Boss of 100 or more the Host can see: its values and its Strike sides."""
    row = war.row(war.host, "Boss")
    found = {str(row[k]) for k in ("endurance", "resolve", "passion")}
    found |= {str(v) for v in BOSS["attributes"].values() if v >= 100}  # type: ignore[attr-defined]
    log = war.client.get(war.api("/log"), headers=war.host).json()["records"]
    for record in log:
        for event in record.get("events", []):
            if event["kind"] == "strike_resolved":
                result, data = event["data"]["result"], event["data"]
                side = "striker" if data["striker"] == "Boss" else "defender"
                keys = ("precision", "force") if side == "striker" else ("guard",)
                found |= {str(result[k]["value"]) for k in keys if result[k]["value"] >= 100}
                found |= {str(v) for v in result[f"{side}_after"].values() if isinstance(v, int)}
    return {n for n in found if int(n) >= 100}


def player_bytes(war: War, who: dict[str, str], token: str) -> str:
    """State, log and the fight page as ``who`` receives them."""
    parts = [war.client.get(war.api(), headers=who).text,
             war.client.get(war.api("/log"), headers=who).text,
             war.client.get(f"/tables/{war.tid}/encounters/{war.eid}",
                            params={"token": token}).text]  # fmt: skip
    for part in parts:
        assert "Internal Server Error" not in part
    return "\n".join(parts)


def stream_bytes(war: War, who: Principal) -> str:
    """Every record the live stream sends ``who`` from revision 0 (the stream's own reader)."""

    async def read() -> list[str]:
        def reader(rev: int) -> tuple[list[dict[str, Any]], int]:
            return war.table.visible_after(who, war.eid, rev)

        stream = record_stream(war.table.notifier, war.eid, reader, 0, poll=30.0)
        got = [await anext(stream)]
        total = war.table.store.encounter(war.eid).revision
        while sum(chunk.startswith("id:") for chunk in got) < total:
            got.append(await asyncio.wait_for(anext(stream), EVENT_WAIT))
        await stream.aclose()
        return got

    return "".join(asyncio.run(read()))


def test_w1_a_secret_npcs_values_never_reach_a_player_while_the_host_sees_them(war: War) -> None:
    answers = fight_it_out(war)
    numbers = boss_numbers(war)
    assert {"4321", "3142", "1732", "977", "661"} <= numbers
    player = Principal(war.tid, war.table.principal(war.ann_token).seat)
    received = "\n".join([*answers, player_bytes(war, war.ann, war.ann_token),
                          stream_bytes(war, player)])  # fmt: skip
    # standing alone: a random token (a 64-hex CSRF proof, a session id) may hold any digits
    leaked = {n for n in numbers if re.search(rf"(?<![0-9A-Za-z_-]){n}(?![0-9A-Za-z_-])", received)}
    assert leaked == set()
    host = player_bytes(war, war.host, war.host_token) + stream_bytes(war, Principal(war.tid, None))
    assert all(n in host for n in {"4321", "3142", "1732", "977", "661"})


def test_w2_a_player_sees_what_the_table_sees_of_a_secret_npc(war: War) -> None:
    fight_it_out(war)
    boss = war.row(war.ann, "Boss")
    assert boss["status"] == "normal" and boss["position"] == [1.0, 0.0, 0.0]
    assert boss["side"] == "fallen" and boss["stance"] is False
    assert [boss[k] for k in ("endurance", "resolve", "passion", "ap", "falter")] == [SECRET] * 5
    war.command(war.host, "host_set", id="Boss", field="falter", value=3)
    war.command(war.host, "apply_effect", id="Boss", effect="bound")
    boss = war.row(war.ann, "Boss")
    assert boss["bound"] is True and boss["falter"] == SECRET
    log = war.client.get(war.api("/log"), headers=war.ann).json()["records"]
    host_set = next(r for r in log if r["command"]["kind"] == "host_set")
    assert host_set["command"]["args"] == {"id": "Boss", "field": "falter", "value": SECRET}
    add = log[0]["command"]["args"]["character"]
    assert add["name"] == "Boss" and add["weapon"] == "Sword" and add["attributes"] == conceal(
        BOSS["attributes"])  # fmt: skip


def test_w2_a_defeated_secret_npc_shows_as_defeated(war: War) -> None:
    war.command(war.host, "next")
    war.command(war.host, "host_set", id="Boss", field="wear_e", value=4400)
    boss = war.row(war.ann, "Boss")
    assert boss["status"] == "defeated" and boss["endurance"] == SECRET
    assert war.state(war.ann)["winner"] == "holy"


def test_w1_players_characters_stay_open_to_every_player(war: War) -> None:
    fight_it_out(war)
    for who in (war.ann, war.bo):
        herald = war.row(who, "Herald")
        assert isinstance(herald["endurance"], int) and isinstance(herald["ap"], int)
        assert war.row(who, "Boss")["endurance"] == SECRET


def test_w1_the_host_opens_one_npc_or_all_of_them(war: War) -> None:
    r = war.client.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": False})
    assert r.status_code == 200
    assert {"id": "Boss", "npc": True, "choice": False, "secret": False} in r.json()["combatants"]
    assert war.row(war.ann, "Boss")["endurance"] == 4321
    war.client.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": None})
    assert war.row(war.ann, "Boss")["endurance"] == SECRET
    r = war.client.put(war.api("/secrets"), headers=war.host, json={"npcs_secret": False})
    assert r.status_code == 200 and r.json()["npcs_secret"] is False
    assert war.row(war.ann, "Boss")["endurance"] == 4321


def test_w1_a_played_character_made_secret_stays_open_to_its_own_player(war: War) -> None:
    r = war.client.put(war.api("/secrets/Herald"), headers=war.host, json={"secret": True})
    assert r.status_code == 200
    assert war.row(war.ann, "Herald")["endurance"] == 60
    assert war.row(war.bo, "Herald")["endurance"] == SECRET
    assert war.row(war.host, "Herald")["endurance"] == 60


def test_w1_secrecy_is_the_hosts_and_bad_input_changes_nothing(war: War) -> None:
    before = war.client.get(war.api("/secrets"), headers=war.host).json()
    for body, status in (({"secret": True}, 403),):
        r = war.client.put(war.api("/secrets/Boss"), headers=war.ann, json=body)
        assert r.status_code == status and "Host" in r.json()["error"]
    assert war.client.get(war.api("/secrets"), headers=war.ann).status_code == 403
    r = war.client.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": "maybe"})
    assert r.status_code == 422 and "secret" in r.json()["error"]
    r = war.client.put(war.api("/secrets"), headers=war.host, json={"npcs": False})
    assert r.status_code == 422
    r = war.client.put("/api/encounters/999/secrets/Boss", headers=war.host, json={"secret": True})
    assert r.status_code in (403, 404)
    assert war.client.get(war.api("/secrets"), headers=war.host).json() == before


def test_w1_a_refused_character_leaves_no_secrecy_choice(war: War) -> None:
    bad = {**BOSS, "name": "Other", "attributes": {**BOSS["attributes"], "might": -1}}  # type: ignore[dict-item]
    before = war.client.get(war.api("/secrets"), headers=war.host).json()
    r = war.client.post(war.api("/characters"), headers=war.host,
                        json={"character": {**BOSS, "weapon": "Banana"}, "id": "X",
                              "secret": False})  # fmt: skip
    assert r.status_code == 400 and "Banana" in r.json()["error"]
    r = war.client.post(war.api("/characters"), headers=war.host, json={"character": bad})
    assert r.status_code == 400 and "attributes.might" in r.json()["error"]
    assert war.client.get(war.api("/secrets"), headers=war.host).json() == before
    assert tables_choices(war) == {}


def tables_choices(war: War) -> dict[str, bool]:

    return table_audience.secrecy(war.table.store, war.eid).choices


def test_w2_a_secret_strife_models_hit_points_show_only_whether_it_is_down(
    client: TestClient,
) -> None:
    eid, host, player = strife_table(client)
    for body in ({"model": "Aldric", "side": "heroes"},
                 {"model": "Goblin", "side": "monsters", "position": [1, 0, 0]}):  # fmt: skip
        r = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
        assert r.status_code == 201, r.text

    def goblin(who: dict[str, str]) -> dict[str, Any]:
        models = client.get(f"/api/encounters/{eid}", headers=who).json()["state"]["models"]
        found: dict[str, Any] = next(m for m in models if m["id"] == "Goblin")
        return found

    assert isinstance(goblin(host)["hp"], int)
    assert goblin(player)["hp"] == SECRET and goblin(player)["score"] == SECRET
    assert goblin(player)["position"] == [1.0, 0.0, 0.0]
    cmd = {"kind": "host_set", "args": {"id": "Goblin", "field": "hp", "value": 0}}
    r = client.post(f"/api/encounters/{eid}/commands", headers=host, json=cmd)
    assert r.status_code == 200, r.text
    assert goblin(player)["hp"] == "down"
    log = client.get(f"/api/encounters/{eid}/log", headers=player).json()["records"]
    hp = next(e for r in log for e in r["events"] if e["kind"] == "hp_set")
    assert hp["data"]["hp"] == "down" and hp["data"]["damage"] == SECRET
    added = next(e for r in log for e in r["events"] if e["kind"] == "model_added"
                 and e["data"]["id"] == "Goblin")  # fmt: skip
    assert added["data"]["score"] == SECRET and added["data"]["sheet"]["hp"] == SECRET


# --- the redaction rules themselves ---------------------------------------------------------------


def only(combatant: str) -> Any:
    return lambda c: c == combatant


def test_w3_an_event_kind_not_listed_is_concealed_but_its_combatant_named() -> None:
    event = {"kind": "new_kind", "data": {"id": "Boss", "value": 4321, "parts": [1]}, "rule": "X"}
    assert redact_event(event, only("Boss"))["data"] == {"id": "Boss", "value": SECRET, "parts": []}
    assert redact_event(event, only("Herald")) == event


def test_w4_a_secret_strikers_force_is_hidden_but_the_wear_it_dealt_is_not() -> None:
    wear = {"kind": "E", "hits": 2, "force": 883, "base": 1766, "amount": 1766, "flats": []}
    result = {"schema": "tableside/majesty-strike", "precision": {"value": 661, "parts": []},
              "guard": {"value": 2, "parts": []}, "force": {"value": 883, "parts": []},
              "rolled": [1, 2], "wear": wear, "advantage": 659,
              "defender_after": {"name": "Herald", "endurance": 1}}  # fmt: skip
    event = {"kind": "strike_resolved", "rule": "M-20",
             "data": {"striker": "Boss", "defender": "Herald", "result": result}}  # fmt: skip
    shown = redact_event(event, only("Boss"))["data"]["result"]
    assert shown["precision"] == {"value": SECRET, "parts": []} and shown["guard"]["value"] == 2
    assert shown["force"]["value"] == SECRET and shown["advantage"] == SECRET
    assert shown["wear"] == {"kind": "E", "hits": 2, "force": SECRET, "base": SECRET,
                             "amount": 1766, "flats": []}  # fmt: skip
    assert shown["rolled"] == [1, 2] and shown["defender_after"]["endurance"] == 1
    hidden = redact_event(event, only("Herald"))["data"]["result"]
    assert hidden["wear"] == {"kind": "E", "hits": SECRET, "force": SECRET, "base": SECRET,
                              "amount": SECRET, "flats": []}  # fmt: skip
    assert hidden["force"]["value"] == 883 and hidden["defender_after"]["endurance"] == SECRET


def test_w5_the_war_scroll_shows_a_secret_combatants_turns_but_not_their_ap() -> None:
    order = [{"combatant": "Boss", "segment": "1", "ap": 7},
             {"combatant": "Herald", "segment": "1", "ap": 7}]  # fmt: skip
    state = {"order": order, "combatants": []}
    assert redact_state(state, only("Boss"))["order"] == [
        {"combatant": "Boss", "segment": "1", "ap": SECRET},
        {"combatant": "Herald", "segment": "1", "ap": 7}]  # fmt: skip


def test_w6_w10_players_get_no_odds_or_previews_against_a_secret_npc(war: War) -> None:
    war.command(war.host, "next")
    war.command(war.host, "strike", striker="Boss", defender="Herald", **NONE, obstruction=0)
    war.command(war.host, "next")
    strike = {"kind": "strike", "args": {"striker": "Herald", "defender": "Boss"}}
    r = war.client.post(war.api("/odds"), headers=war.ann, json=strike)
    assert r.status_code == 403 and "Boss" in r.json()["error"] and "secret" in r.json()["error"]
    assert war.client.post(war.api("/odds"), headers=war.host, json=strike).status_code == 200
    dice = {**strike, "dice": [12, 9, 3, 8, 1, 10, 11]}
    r = war.client.post(war.api("/preview"), headers=war.ann, json=dice)
    assert r.status_code == 403 and "Boss" in r.json()["error"] and "W-10" in r.json()["error"]
    options = war.client.get(war.api("/options"), headers=war.ann)
    received = r.text + options.text
    assert options.status_code == 200 and not {n for n in boss_numbers(war) if n in received}
    host = war.client.post(war.api("/preview"), headers=war.host, json=dice).json()
    host_result = next(e for e in host["record"]["events"] if e["kind"] == "strike_resolved")
    assert host_result["data"]["result"]["guard"]["value"] == 977
    war.client.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": False})
    assert war.client.post(war.api("/odds"), headers=war.ann, json=strike).status_code == 200


def strife_ambush(
    client: TestClient, **brute_values: int
) -> tuple[int, dict[str, str], dict[str, str], dict[str, Any]]:
    """A fight: the player's Aldric on his Turn against a secret sheet, Brute (HP 4321, AC 83).

    Returns the encounter id, the Host's and the player's headers, and the state as the Host
    reads it.
    """
    from tableside.strife.catalog import builtin_catalog

    eid, host, player = strife_table(client)
    goblin = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    brute = {**goblin, "name": "Brute", "hp": 4321, "hp_max": 4321, "ac": 83, **brute_values}
    for body in ({"model": "Aldric", "side": "heroes"},
                 {"sheet": brute, "side": "monsters", "position": [1, 0, 0]}):  # fmt: skip
        r = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
        assert r.status_code == 201, r.text
    url = f"/api/encounters/{eid}/commands"
    assert client.post(url, headers=host, json={"kind": "start", "args": {}}).status_code == 200
    state = client.get(f"/api/encounters/{eid}", headers=host).json()["state"]
    if state["current"] != "Aldric":
        assert client.post(url, headers=host, json={"kind": "next", "args": {}}).status_code == 200
    return eid, host, player, state


def test_w4_a_players_attack_on_a_secret_strife_sheet_reveals_none_of_its_numbers(
    client: TestClient,
) -> None:
    eid, host, player, state = strife_ambush(client, initiative=29)
    url = f"/api/encounters/{eid}/commands"
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Brute"}]}
    answer = client.post(url, headers=player, json={"kind": "attack", "args": attack})
    assert answer.status_code == 200, answer.text
    host_log = client.get(f"/api/encounters/{eid}/log", headers=host).text
    score = next(m["score"] for m in state["models"] if m["id"] == "Brute")
    numbers = {"4321", "83", str(score)}
    assert all(n in host_log for n in numbers)
    reads = [client.get(f"/api/encounters/{eid}{path}", headers=player) for path in ("", "/log")]
    received = "\n".join([answer.text, *(r.text for r in reads)])
    assert {n for n in numbers if f": {n}" in received or f":{n}" in received} == set()
    shown = next(e for e in answer.json()["record"]["events"] if e["kind"] == "attack_resolved")
    assert shown["data"]["result"]["ac"] == SECRET and shown["data"]["result"]["natural"] != SECRET


# -- the secrecy read folded into the authorising read (table_log.access) -------------------------


def other_process(war: War) -> TestClient:
    """A second server on the same store: its own WebTable, Store and connection pool."""
    return TestClient(create_app(war.table.store.url))


def test_w5_a_change_made_through_another_process_applies_to_the_next_request(war: War) -> None:
    war.command(war.host, "next")
    assert war.row(war.ann, "Boss")["endurance"] == SECRET  # this process read the secrecy
    with other_process(war) as other:
        r = other.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": False})
        assert r.status_code == 200, r.text
        assert war.row(war.ann, "Boss")["endurance"] == 4321
        answer = war.command(war.ann, "stance", id="Herald").json()
        boss = next(r for r in answer["state"]["combatants"] if r["id"] == "Boss")
        assert boss["endurance"] == 4321
        r = other.put(war.api("/secrets"), headers=war.host, json={"npcs_secret": True})
        r = other.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": None})
        assert r.status_code == 200, r.text
        answer = war.command(war.ann, "stance", id="Herald").json()
        boss = next(r for r in answer["state"]["combatants"] if r["id"] == "Boss")
        assert boss["endurance"] == SECRET
        assert war.row(war.ann, "Boss")["endurance"] == SECRET
        # A seat given to Boss in the other process opens it to every player (W-1).
        seat(other, war.tid, war.host, "Cy", ["Boss"])
        assert war.row(war.bo, "Boss")["endurance"] == 4321


def test_w5_a_request_uses_the_secrecy_of_its_authorising_read_once(war: War) -> None:
    who, _info = war.table.at_encounter(war.ann_token, war.eid)
    with other_process(war) as other:
        other.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": False})
        first = war.table.state(war.eid, who)  # this request was authorised before the change
        again = war.table.state(war.eid, who)  # anything later reads the secrecy anew
    assert next(r for r in first["combatants"] if r["id"] == "Boss")["endurance"] == SECRET
    assert next(r for r in again["combatants"] if r["id"] == "Boss")["endurance"] == 4321


def test_w5_a_stream_reads_the_secrecy_anew_for_every_batch(war: War) -> None:
    war.command(war.host, "next")
    war.command(war.host, "strike", striker="Boss", defender="Herald", **NONE, obstruction=0)
    who, _info = war.table.at_encounter(war.ann_token, war.eid)  # the stream's authorising read
    assert "4321" not in json.dumps(war.table.visible_after(who, war.eid, 0)[0])
    who, _info = war.table.at_encounter(war.ann_token, war.eid)  # its read is left unused here
    with other_process(war) as other:
        other.put(war.api("/secrets/Boss"), headers=war.host, json={"secret": False})
        records = json.dumps(war.table.visible_after(who, war.eid, 0)[0])
    assert "4321" in records


def test_w1_the_authorising_read_carries_a_players_secrecy_only(war: War) -> None:
    war.client.put(war.api("/secrets/Herald"), headers=war.host, json={"secret": True})
    war.client.put(war.api("/secrets"), headers=war.host, json={"npcs_secret": False})
    seat(war.client, war.tid, war.host, "Cy", ["Boss", "Nobody"])
    store = war.table.store
    player = table_log.access(store, token_hash(war.ann_token), war.eid)
    assert player is not None and player.secrecy is not None
    assert player.secrecy == table_audience.secrecy(store, war.eid)
    played = frozenset({"Herald", "Boss", "Nobody"})
    assert player.secrecy == table_audience.Secrecy(False, {"Herald": True}, played)
    host = table_log.access(store, token_hash(war.host_token), war.eid)
    assert host is not None and host.holder is not None and host.secrecy is None
    stranger = table_log.access(store, token_hash("nobody's"), war.eid)
    assert stranger is not None and stranger.holder is None and stranger.secrecy is None
    assert table_audience.secrecy(store, 999) == table_audience.Secrecy(True, {}, frozenset())


def test_w5_a_players_read_costs_two_statements_in_one_transaction(war: War) -> None:
    war.row(war.ann, "Boss")  # the encounter is now in memory
    with sent_statements(war.table.store) as sent:  # SQLAlchemy's or the driver's (SV-1)
        assert war.row(war.ann, "Boss")["endurance"] == SECRET
    statements = [s.split()[0] for s in sent]
    # the authorising read and the secrecy; SQLite's explicit BEGIN shows, PostgreSQL's does not
    assert [s for s in statements if s != "BEGIN"] == ["SELECT", "SELECT"]
    assert statements.count("BEGIN") <= 1


COMBATANTS = ["Boss", "Herald", "Imp", "Jackal"]


@pytest.mark.slow  # make check leaves it out (issue 23: among its slowest)
@settings(max_examples=25, deadline=None)
@given(
    seats=st.lists(st.lists(st.sampled_from(COMBATANTS), max_size=3), min_size=1, max_size=3),
    choices=st.dictionaries(st.sampled_from(COMBATANTS), st.sampled_from([True, False, None])),
    npcs_secret=st.sampled_from([True, False, None]),
)
def test_w1_the_one_statement_read_matches_what_was_stored(
    seats: list[list[str]], choices: dict[str, bool | None], npcs_secret: bool | None
) -> None:
    """The setting, the choices and the seats' characters, against a model of what was written;
    another table's seats and another encounter's choices at the same table never count."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(f"sqlite:///{folder}/secrecy.db")
        try:
            eid = store_secrecy(store, seats, choices, npcs_secret)
            expected = table_audience.Secrecy(
                npcs_secret is not False,
                {c: s for c, s in choices.items() if s is not None},
                frozenset(c for characters in seats for c in characters),
            )
            assert table_audience.secrecy(store, eid) == expected
            found = table_log.access(store, token_hash("p0"), eid)
            assert found is not None and found.secrecy == expected
        finally:
            store.close()


def store_secrecy(
    store: Store, seats: list[list[str]], choices: dict[str, bool | None], npcs_secret: bool | None
) -> int:
    """An encounter with these seats, choices and setting (each first written the other way),
    next to decoys: another encounter's choices, another table's seat; its id."""
    tid = tables.create_table(store, "Here", token_hash("host"))
    eid = tables.create_table_encounter(store, tid, "Ford", "majesty-war", 1)
    elsewhere = tables.create_table_encounter(store, tid, "Mill", "majesty-war", 2)
    other = tables.create_table(store, "There", token_hash("other host"))
    tables.create_table_encounter(store, other, "Inn", "majesty-war", 3)
    tables.add_seat(store, other, "Stranger", tuple(COMBATANTS), token_hash("stranger"))
    table_audience.set_secret(store, elsewhere, "Boss", False)
    table_audience.set_npcs_secret(store, elsewhere, False)
    for n, characters in enumerate(seats):
        tables.add_seat(store, tid, f"P{n}", tuple(characters), token_hash(f"p{n}"))
    for combatant, secret in choices.items():
        table_audience.set_secret(store, eid, combatant, not secret)
        table_audience.set_secret(store, eid, combatant, secret)
    if npcs_secret is not None:
        table_audience.set_npcs_secret(store, eid, not npcs_secret)
        table_audience.set_npcs_secret(store, eid, npcs_secret)
    return eid
