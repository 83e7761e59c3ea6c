"""The roster's API (issue 25) on both backends: ownership, secrets, approval, carry-over, files.

CH-13: a player edits only its own characters, and a change to a rule-fixed number waits for
the Host unless the table trusts its players (CH-14). CH-16: a player sees only the names of
others' characters. CH-2, CH-9: a roster character joins a fight, its seat plays it there, and
the carry-over is proposed at the end and applied by the Host. CH-17: the table's file has no
token and imports all or nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from test_web_setup_roster import auth, client

from tableside.store import tables

BRANNOC: dict[str, Any] = {
    "name": "Brannoc", "stats": {"STR": 17, "AGIL": 9, "INT": 8, "WIS": 11, "STAM": 15},
    "initiative": 4, "movement": 5, "ac": 10, "dodge": 5, "hp": 32, "hp_max": 32,
    "resources": {"Vigor": {"current": 3, "maximum": 10}}, "main_hand": "Long Sword",
}  # fmt: skip
SEED = 1  # the Goblin's blow lands on Hale, left at 1 HP
SECRET_HP = 29  # Bo's character's HP: never sent to Ann
__all__ = ["client"]  # the fixture, on both backends


class Table:
    """A table with a Host and two players, Ann and Bo, each owning one character."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        made = client.post("/api/tables", json={"name": "Friday"}).json()
        self.tid, self.host = made["id"], made["host_token"]
        self.ann = self.seat("Ann")
        self.bo = self.seat("Bo")
        self.brannoc = self.add(BRANNOC, self.ann["id"])
        self.bos = self.add({**BRANNOC, "name": "Wren", "hp": SECRET_HP}, self.bo["id"])

    def seat(self, name: str) -> dict[str, Any]:
        body = {"name": name, "characters": []}
        found: dict[str, Any] = self.client.post(
            f"/api/tables/{self.tid}/players", headers=auth(self.host), json=body
        ).json()
        return found

    def add(self, sheet: dict[str, Any], owner: int | None) -> int:
        body = {"game": "strife-combat", "sheet": sheet, "owner": owner}
        r = self.client.post(f"/api/tables/{self.tid}/characters", headers=auth(self.host),
                             json=body)  # fmt: skip
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    def call(self, method: str, path: str, token: str, body: Any = None) -> Any:
        return self.client.request(method, path, headers=auth(token), json=body)


def test_ch13_ch16_a_player_sees_and_edits_only_its_own(client: TestClient) -> None:
    t = Table(client)
    ann = t.ann["token"]
    listed = t.call("GET", f"/api/tables/{t.tid}/characters", ann)
    assert listed.status_code == 200
    by_name = {c["name"]: c for c in listed.json()["characters"]}
    assert by_name["Brannoc"]["sheet"]["hp"] == 32
    assert by_name["Wren"] == {"id": t.bos, "name": "Wren", "game": "strife-combat"}  # CH-16
    assert f'"hp":{SECRET_HP}' not in listed.text.replace(" ", "")
    for method, body in (("GET", None), ("PATCH", {"sheet": BRANNOC})):
        refused = t.call(method, f"/api/characters/{t.bos}", ann, body)
        assert refused.status_code == 403 and "not yours" in refused.json()["error"]
    # A name applies at once; a number waits for the Host, who approves it (CH-13).
    renamed = t.call("PATCH", f"/api/characters/{t.brannoc}", ann,
                     {"sheet": {**BRANNOC, "name": "Bran"}}).json()  # fmt: skip
    assert renamed["name"] == "Bran" and renamed["pending"] is None
    waiting = t.call("PATCH", f"/api/characters/{t.brannoc}", ann,
                     {"sheet": {**BRANNOC, "name": "Bran", "ac": 40}}).json()  # fmt: skip
    assert waiting["sheet"]["ac"] == 10 and waiting["pending"]["fields"] == ["ac"]
    assert (
        t.call("PATCH", f"/api/characters/{t.brannoc}", ann, {"approve": True}).status_code == 403
    )
    approved = t.call("PATCH", f"/api/characters/{t.brannoc}", t.host, {"approve": True}).json()
    assert approved["sheet"]["ac"] == 40 and approved["pending"] is None
    # A table that trusts its players applies their numbers at once (CH-14).
    assert t.call("PUT", f"/api/tables/{t.tid}/roster-settings", ann,
                  {"trust_players": True}).status_code == 403  # fmt: skip
    t.call("PUT", f"/api/tables/{t.tid}/roster-settings", t.host, {"trust_players": True})
    trusted = t.call("PATCH", f"/api/characters/{t.brannoc}", ann,
                     {"sheet": {**BRANNOC, "ac": 12}}).json()  # fmt: skip
    assert trusted["sheet"]["ac"] == 12
    bad = t.call("PATCH", f"/api/characters/{t.brannoc}", ann, {"sheet": {**BRANNOC, "hp_max": 0}})
    assert bad.status_code == 400 and "hp_max" in bad.json()["error"]
    assert t.call("GET", "/api/characters/999", t.host).status_code == 404


def test_ch18_a_player_adds_a_character_only_to_its_own_seat(client: TestClient) -> None:
    t = Table(client)
    ann, url = t.ann["token"], f"/api/tables/{t.tid}/characters"
    mine = {"game": "strife-combat", "sheet": {**BRANNOC, "name": "Tamsin"}, "owner": t.ann["id"]}
    made = t.call("POST", url, ann, mine)
    assert made.status_code == 201, made.text
    listed = t.call("GET", url, ann).json()["characters"]
    assert {c["name"]: c.get("owner") for c in listed}["Tamsin"] == t.ann["id"]
    for owner, words in ((t.bo["id"], f"not to seat {t.bo['id']}'s"), (None, "not to the Host's")):
        refused = t.call("POST", url, ann, {**mine, "owner": owner})
        assert refused.status_code == 403, refused.text
        assert words in refused.json()["error"] and refused.json()["error"].endswith(".")
    bad = t.call("POST", url, ann, {**mine, "sheet": {**BRANNOC, "hp_max": 0}})
    assert bad.status_code == 400 and "hp_max" in bad.json()["error"]
    names = [c["name"] for c in t.call("GET", url, t.host).json()["characters"]]
    assert names == ["Brannoc", "Wren", "Tamsin"]  # nothing else was added


def test_ch2_ch9_into_a_fight_and_back_by_the_api(client: TestClient) -> None:
    t = Table(client)
    eid = t.call("POST", f"/api/tables/{t.tid}/encounters", t.host,
                 {"game": "strife-combat", "name": "Mill", "seed": 7}).json()["id"]  # fmt: skip
    added = t.call("POST", f"/api/encounters/{eid}/characters", t.host,
                   {"roster": t.brannoc, "side": "heroes"})  # fmt: skip
    assert added.status_code == 201, added.text
    assert added.json()["combatant"] == "Brannoc"
    goblin = {**BRANNOC, "name": "Goblin", "resources": {}}
    body = {"id": "Goblin", "sheet": goblin, "side": "monsters", "position": [30, 0, 0]}
    t.call("POST", f"/api/encounters/{eid}/characters", t.host, body)
    early = t.call("GET", f"/api/encounters/{eid}/carry-over", t.host)
    assert early.json() == {"ended": False, "proposed": []}
    early = t.call("POST", f"/api/encounters/{eid}/carry-over", t.host, {})
    assert early.status_code == 409 and "has not ended" in early.json()["error"]
    for kind, args in (("start", {}), ("host_set", {"id": "Brannoc", "field": "hp", "value": 20}),
                       ("host_set", {"id": "Goblin", "field": "hp", "value": 0})):  # fmt: skip
        r = t.call("POST", f"/api/encounters/{eid}/commands", t.host, {"kind": kind, "args": args})
        assert r.status_code == 200, r.text
    assert r.json()["carry_over"][0]["name"] == "Brannoc"  # the end answers with it (CH-9)
    seen = t.call("GET", f"/api/encounters/{eid}", t.ann["token"]).json()
    assert seen["role"] == "player"
    assert t.call("GET", f"/api/encounters/{eid}/carry-over", t.ann["token"]).status_code == 403
    proposed = t.call("GET", f"/api/encounters/{eid}/carry-over", t.host).json()["proposed"]
    assert {c["name"]: (c["before"], c["after"]) for c in proposed[0]["changes"]} == {
        "HP": (32, 20), "Vigor": (3, 10)}  # fmt: skip
    applied = t.call("POST", f"/api/encounters/{eid}/carry-over", t.host, {})
    assert applied.status_code == 200 and len(applied.json()["applied"]) == 1
    sheet = t.call("GET", f"/api/characters/{t.brannoc}", t.ann["token"]).json()
    assert sheet["sheet"]["hp"] == 20 and sheet["carried"]["encounter"] == eid
    assert sheet["history"][0]["encounter"] == eid and sheet["history"][0]["winner"] == "heroes"
    rested = t.call("POST", f"/api/characters/{t.brannoc}/rest", t.host, {"amount": 5}).json()
    assert rested["sheet"]["hp"] == 25
    # One character's file imports into a roster (the Host's), a bad one names the field.
    single = t.call("GET", f"/api/characters/{t.brannoc}/export", t.ann["token"]).json()
    assert single["format"] == "tableside/roster-character" and single["sheet"]["hp"] == 25
    copied = t.call("POST", f"/api/tables/{t.tid}/characters/import", t.host, single)
    assert copied.status_code == 201
    bad = t.call("POST", f"/api/tables/{t.tid}/characters/import", t.host, {**single, "version": 2})
    assert bad.status_code == 400 and "version" in bad.json()["error"]
    assert t.call("POST", f"/api/tables/{t.tid}/characters/import", t.ann["token"],
                  single).status_code == 403  # fmt: skip
    # The whole table's file has no token, and imports as a new table.
    exported = t.call("GET", f"/api/tables/{t.tid}/export", t.host)
    assert t.host not in exported.text and t.ann["token"] not in exported.text
    document = exported.json()
    made = client.post("/api/tables/import", json=document)
    assert made.status_code == 201, made.text
    new = made.json()
    again = t.call("GET", f"/api/tables/{new['id']}/characters", new["host_token"]).json()
    assert [c["name"] for c in again["characters"]] == ["Brannoc", "Wren", "Brannoc"]
    again_file = t.call("GET", f"/api/tables/{new['id']}/export", new["host_token"]).json()
    assert again_file["encounters"][0]["encounter"] == document["encounters"][0]["encounter"]
    broken = json.loads(json.dumps(document))
    broken["characters"][1]["sheet"]["hp_max"] = 0
    refused = client.post("/api/tables/import", json=broken)
    assert refused.status_code == 400 and "characters.1" in refused.json()["error"]


def test_w83_the_sheet_pages_show_a_player_only_its_own(client: TestClient) -> None:
    t = Table(client)
    ann, host = t.ann["token"], t.host
    roster_page = t.call("GET", f"/tables/{t.tid}/characters", ann)
    assert roster_page.status_code == 200
    assert f'href="/characters/{t.brannoc}"' in roster_page.text
    assert "Wren" in roster_page.text and f'href="/characters/{t.bos}"' not in roster_page.text
    page = t.call("GET", f"/characters/{t.brannoc}", ann)
    assert page.status_code == 200 and "Brannoc" in page.text and 'id="approve"' not in page.text
    assert t.call("GET", f"/characters/{t.bos}", ann).status_code == 403
    t.call("PATCH", f"/api/characters/{t.brannoc}", ann, {"sheet": {**BRANNOC, "hp": 30}})
    hosts = t.call("GET", f"/characters/{t.brannoc}", host).text
    assert 'id="pending"' in hosts and 'id="approve"' in hosts
    majesty = {"name": "Herald", "attributes": {"might": 42, "swiftness": 31, "control": 30,
               "endurance": 60, "resolve": 48, "passion": 72}}  # fmt: skip
    body = {"game": "majesty", "sheet": majesty, "owner": t.ann["id"]}
    herald = t.call("POST", f"/api/tables/{t.tid}/characters", host, body).json()["id"]
    page = t.call("GET", f"/characters/{herald}", ann)
    assert page.status_code == 200 and "Endurance" in page.text and "Wear E" in page.text


def test_ch2_loading_war_4v4_does_not_give_its_herald_to_a_seat_named_herald(
    client: TestClient,
) -> None:
    """The reported bug: a seat listing "Herald" (an earlier War's) took the file's Herald."""
    t = Table(client)
    herald_seat = t.client.post(f"/api/tables/{t.tid}/players", headers=auth(t.host),
                                json={"name": "Cy", "characters": ["Herald"]}).json()  # fmt: skip
    war = t.call("POST", f"/api/tables/{t.tid}/encounters", t.host,
                 {"game": "majesty-war", "name": "Ford", "seed": 7}).json()["id"]  # fmt: skip
    document = json.loads((Path(__file__).parent.parent / "examples" / "war_4v4.json").read_text())
    loaded = t.call("POST", f"/api/encounters/{war}/roster", t.host, {"document": document})
    assert loaded.status_code == 201, loaded.text
    cy = herald_seat["token"]
    moved = t.call("POST", f"/api/encounters/{war}/commands", cy,
                   {"kind": "stance", "args": {"id": "Herald"}})  # fmt: skip
    assert moved.status_code == 403, moved.text
    secrets = t.call("GET", f"/api/encounters/{war}/secrets", t.host).json()["combatants"]
    assert {c["id"]: c["npc"] for c in secrets}["Herald"] is True
    # The Host gives the file's Watcher to Cy by adding its id to Cy's seat: now Cy's.
    edit = {"name": "Cy", "characters": ["Herald", "Watcher"]}
    edited = t.call("PATCH", f"/api/tables/{t.tid}/players/{herald_seat['id']}", t.host, edit)
    assert edited.status_code == 200, edited.text
    secrets = t.call("GET", f"/api/encounters/{war}/secrets", t.host).json()["combatants"]
    assert {c["id"]: c["npc"] for c in secrets}["Watcher"] is False
    assert {c["id"]: c["npc"] for c in secrets}["Herald"] is True


def test_w86_the_hosts_roster_page_lists_the_carry_over_to_confirm(client: TestClient) -> None:
    t = Table(client)
    eid = t.call("POST", f"/api/tables/{t.tid}/encounters", t.host,
                 {"game": "strife-combat", "name": "Mill", "seed": 7}).json()["id"]  # fmt: skip
    t.call("POST", f"/api/encounters/{eid}/characters", t.host,
           {"roster": t.brannoc, "side": "heroes"})  # fmt: skip
    page = t.call("GET", f"/tables/{t.tid}/encounters/{eid}/carry-over", t.host).text
    assert 'id="not-ended"' in page
    t.call("POST", f"/api/encounters/{eid}/commands", t.host,
           {"kind": "end_combat", "args": {"battle_within_2_minutes": True}})  # fmt: skip
    table_page = t.call("GET", f"/tables/{t.tid}", t.host).text
    assert f'href="/tables/{t.tid}/characters"' in table_page
    listed = t.call("GET", f"/tables/{t.tid}/characters", t.host).text
    assert f'href="/tables/{t.tid}/encounters/{eid}/carry-over">Mill</a>: 1 character' in listed
    assert 'id="waiting-carry"' not in t.call("GET", f"/tables/{t.tid}/characters",
                                               t.ann["token"]).text  # fmt: skip
    page = t.call("GET", f"/tables/{t.tid}/encounters/{eid}/carry-over?wave=true", t.host)
    assert page.status_code == 200 and "Vigor: 3 → 10" in page.text and 'id="apply"' in page.text
    refused = t.call("GET", f"/tables/{t.tid}/encounters/{eid}/carry-over", t.ann["token"])
    assert refused.status_code == 403
    t.call("POST", f"/api/encounters/{eid}/carry-over", t.host, {})
    assert 'id="nothing"' in t.call("GET", f"/tables/{t.tid}/encounters/{eid}/carry-over",
                                    t.host).text  # fmt: skip
    assert 'id="waiting-carry"' not in t.call("GET", f"/tables/{t.tid}/characters", t.host).text


def goblin_asks_hale(t: Table) -> tuple[int, str]:
    """A fight where the Goblin attacks Ann's Hale (1 HP): the encounter and Hale's reaction."""
    new = {"game": "strife-combat", "name": "Ford", "seed": SEED}
    eid = int(t.call("POST", f"/api/tables/{t.tid}/encounters", t.host, new).json()["id"])
    trained = {**BRANNOC, "name": "Hale", "proficiencies": ["Swords", "Shields"],
               "shield": "Kite Shield"}  # fmt: skip
    t.call("POST", f"/api/encounters/{eid}/characters", t.host,
           {"roster": t.add(trained, t.ann["id"]), "side": "heroes"})  # fmt: skip
    goblin = {**BRANNOC, "name": "Goblin", "resources": {}, "proficiencies": ["Swords"]}
    npc = {"id": "Goblin", "sheet": goblin, "side": "monsters", "position": [1, 0, 0]}
    t.call("POST", f"/api/encounters/{eid}/characters", t.host, npc)
    for kind, args in (("start", {}), ("host_set", {"id": "Hale", "field": "hp", "value": 1})):
        assert t.call("POST", f"/api/encounters/{eid}/commands", t.host,
                      {"kind": kind, "args": args}).status_code == 200  # fmt: skip
    while t.call("GET", f"/api/encounters/{eid}", t.host).json()["state"]["current"] != "Goblin":
        t.call("POST", f"/api/encounters/{eid}/commands", t.host, {"kind": "next", "args": {}})
    attack = {"attacker": "Goblin", "attacks": [{"defender": "Hale"}]}
    asked = t.call("POST", f"/api/encounters/{eid}/commands", t.host,
                   {"kind": "attack", "args": attack})  # fmt: skip
    assert asked.status_code == 202, asked.text  # Hale's reaction is asked (Ann's, or the Host)
    assert "carry_over" not in asked.json()
    (first,) = asked.json()["pending"]
    return eid, str(first["id"])


def test_ch9_an_answer_that_ends_the_fight_answers_the_host_with_the_carry_over(
    client: TestClient,
) -> None:
    """CH-9: the Host's answer to a decision that ends the fight proposes the carry-over too."""
    t = Table(client)
    eid, decision = goblin_asks_hale(t)
    answer = t.call("POST", f"/api/encounters/{eid}/decisions/{decision}", t.host,
                    {"choice": None})  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert t.call("GET", f"/api/encounters/{eid}", t.host).json()["state"]["ended"], answer.text
    proposed = answer.json()["carry_over"]
    assert [(p["name"], p["sheet"]["hp"]) for p in proposed] == [("Hale", 0)]
    assert proposed == t.call("GET", f"/api/encounters/{eid}/carry-over", t.host).json()["proposed"]


def answers_by(client: TestClient, tid: int, host: str) -> list[str]:
    """Who chose each answer in the table's encounters (``by``), as its file says."""
    document = client.get(f"/api/tables/{tid}/export", headers=auth(host)).json()
    return [r["data"]["answer"]["by"] for e in document["encounters"]
            for r in e["encounter"]["records"] if r["kind"] == "answer"]  # fmt: skip


def test_ch19_an_imported_tables_log_names_its_new_seats(client: TestClient) -> None:
    """CH-19: answers by a seat name the new table's seat after an import; a file naming a
    seat it lacks is refused whole; a seat removed before the export is written as removed."""
    t = Table(client)
    eid, decision = goblin_asks_hale(t)
    answered = t.call("POST", f"/api/encounters/{eid}/decisions/{decision}", t.ann["token"],
                      {"choice": None})  # fmt: skip
    assert answered.status_code == 200, answered.text
    assert answers_by(client, t.tid, t.host) == [f"seat:{t.ann['id']}"]
    document = t.call("GET", f"/api/tables/{t.tid}/export", t.host).json()
    made = client.post("/api/tables/import", json=document).json()
    seats = {s["name"]: s["id"] for s in made["seats"]}
    assert seats["Ann"] != t.ann["id"]
    assert answers_by(client, made["id"], made["host_token"]) == [f"seat:{seats['Ann']}"]
    # A file whose log names a seat it does not hold is refused, and writes nothing.
    store = client.app.state.table.store  # type: ignore[attr-defined]
    before = tables.tables_named(store, "Friday")
    broken = json.loads(json.dumps(document))
    (at,) = [i for i, r in enumerate(broken["encounters"][0]["encounter"]["records"])
             if r["kind"] == "answer"]  # fmt: skip
    broken["encounters"][0]["encounter"]["records"][at]["data"]["answer"]["by"] = "seat:999"
    refused = client.post("/api/tables/import", json=broken)
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        f"Table file: encounters.0.encounter.records.{at}: its answer is by seat:999, and no "
        "seat has key 999."
    )
    assert tables.tables_named(store, "Friday") == before  # all or nothing
    # Ann's seat removed: the file says a removed seat chose, and imports.
    assert t.call("DELETE", f"/api/tables/{t.tid}/players/{t.ann['id']}", t.host).status_code in (
        200, 204)  # fmt: skip
    assert answers_by(client, t.tid, t.host) == ["seat:removed"]
    again = client.post("/api/tables/import", json=t.call(
        "GET", f"/api/tables/{t.tid}/export", t.host).json())  # fmt: skip
    assert again.status_code == 201, again.text
    assert answers_by(client, again.json()["id"], again.json()["host_token"]) == ["seat:removed"]
