"""Make it even from the web (issue 26, F-54): proposed by the Host, applied when accepted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_simulate_agreement_strife_effects import fight_document, model
from test_web_setup import Host

from tableside.web import create_app

EXAMPLES = Path(__file__).parent.parent / "examples"
WAR_4V4 = json.loads((EXAMPLES / "war_4v4.json").read_text())


@pytest.fixture
def war(tmp_path: Path) -> Iterator[tuple[TestClient, Host, int]]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'even.db'}")) as client:
        host = Host(client)
        eid = host.encounter("majesty-war")
        r = host.post(f"/tables/{host.tid}/encounters/{eid}/roster",
                      {"document": json.dumps(WAR_4V4)})  # fmt: skip
        assert r.status_code == 303, r.text
        yield client, host, eid


def call(client: TestClient, host: Host, eid: int, path: str, body: dict[str, Any]) -> Any:
    return client.post(f"/api/encounters/{eid}/{path}", json=body,
                       headers={"Authorization": f"Bearer {host.token}"})  # fmt: skip


def state(client: TestClient, host: Host, eid: int) -> Any:
    headers = {"Authorization": f"Bearer {host.token}"}
    return client.get(f"/api/encounters/{eid}", headers=headers).json()["state"]


def test_f54_the_host_gets_a_proposal_and_nothing_changes(
    war: tuple[TestClient, Host, int],
) -> None:
    client, host, eid = war
    before = state(client, host, eid)["revision"]
    r = call(client, host, eid, "even", {"target": "holy=60%", "change": "Brute=1..2", "runs": 40})
    assert r.status_code == 200, r.text
    found = r.json()
    assert found["proposal"] in (1, 2) and found["side"] == "holy" and found["target"] == 0.6
    assert found["accept"] == {"change": "Brute=1..2", "value": found["proposal"]}
    assert [p["value"] for p in found["points"]] == [1, 2]
    assert state(client, host, eid)["revision"] == before == found["revision"]  # not applied


def test_f54_an_accepted_proposal_is_applied_all_at_once(
    war: tuple[TestClient, Host, int],
) -> None:
    client, host, eid = war
    r = call(client, host, eid, "even/accept", {"change": "Brute=1..3", "value": 3})
    assert r.status_code == 200, r.text
    assert r.json()["added"] == ["Brute.2", "Brute.3"]
    ids = [c["id"] for c in state(client, host, eid)["combatants"]]
    assert "Brute.2" in ids and "Brute.3" in ids
    r = call(client, host, eid, "even/accept", {"change": "Brute.endurance=31..33", "value": 31})
    assert r.status_code == 200, r.text
    brute = next(c for c in state(client, host, eid)["combatants"] if c["id"] == "Brute")
    assert brute["endurance"] == 31, brute  # removed and added again with the number set


def test_f54_bad_asks_are_refused_in_one_sentence_and_players_refused(
    war: tuple[TestClient, Host, int],
) -> None:
    client, host, eid = war
    before = state(client, host, eid)["revision"]
    for path, body, words in (
        ("even", {"target": "holy", "change": "Brute=1..2"}, "A target is written"),
        ("even", {"target": "elves=50%", "change": "Brute=1..2", "runs": 10}, "'elves'"),
        ("even", {"target": "holy=50%", "change": "Brute=1..40"}, "at most 21 values"),
        ("even/accept", {"change": "Brute=1..2", "value": 5}, "not one of the change's"),
        ("even/accept", {"change": "Nobody=1..2", "value": 2}, "no combatant 'Nobody'"),
    ):
        r = call(client, host, eid, path, body)
        assert r.status_code == 400 and words in r.json()["error"], (path, body, r.text)
    seat = client.post(f"/api/tables/{host.tid}/players", json={"name": "Ann", "characters": []},
                       headers={"Authorization": f"Bearer {host.token}"}).json()  # fmt: skip
    body = {"target": "holy=60%", "change": "Brute=1..2"}
    r = client.post(f"/api/encounters/{eid}/even", json=body,
                    headers={"Authorization": f"Bearer {seat['token']}"})  # fmt: skip
    assert r.status_code == 403
    assert state(client, host, eid)["revision"] == before  # nothing written on any refusal


@pytest.fixture
def fight(tmp_path: Path) -> Iterator[tuple[TestClient, Host, int]]:
    """A Realm of Strife fight not yet started: Aldric and Sera against two Goblins."""
    document = fight_document([model("Aldric", "heroes", 0), model("Sera", "heroes", 0, 3),
                               model("Goblin-1", "monsters", 6, model="Goblin"),
                               model("Goblin-2", "monsters", 6, 3, model="Goblin")])  # fmt: skip
    with TestClient(create_app(f"sqlite:///{tmp_path / 'fight.db'}")) as client:
        host = Host(client)
        eid = host.encounter("strife-combat", "Mill")
        r = host.post(f"/tables/{host.tid}/encounters/{eid}/roster",
                      {"document": json.dumps(document)})  # fmt: skip
        assert r.status_code == 303, r.text
        yield client, host, eid


def test_f61_the_host_proposes_and_accepts_how_many_of_a_catalogue_npc(
    fight: tuple[TestClient, Host, int],
) -> None:
    """F-61: proposed on the fight as it stands, nothing changed; accepted all at once."""
    client, host, eid = fight
    before = state(client, host, eid)["revision"]
    change = "catalog:Goblin@monsters=0..2"
    r = call(client, host, eid, "even", {"target": "heroes=50%", "change": change, "runs": 30})
    assert r.status_code == 200, r.text
    found = r.json()
    assert found["change"]["kind"] == "catalog" and found["change"]["side"] == "monsters"
    assert [p["value"] for p in found["points"]] == [0, 1, 2]
    assert found["accept"] == {"change": change, "value": found["proposal"]}
    assert state(client, host, eid)["revision"] == before  # not applied
    r = call(client, host, eid, "even/accept", {"change": change, "value": 2})
    assert r.status_code == 200, r.text
    assert r.json()["added"] == ["Goblin-3", "Goblin-4"]
    models = {m["id"]: m for m in state(client, host, eid)["models"]}
    assert models["Goblin-4"]["side"] == "monsters" and models["Goblin-4"]["position"] == [6, 5, 0]
    r = call(client, host, eid, "even/accept", {"change": change, "value": 0})
    assert r.status_code == 200 and r.json()["added"] == [] and r.json()["kind"] == "catalog"


def test_f61_bad_catalogue_asks_are_refused_in_one_sentence(
    fight: tuple[TestClient, Host, int], war: tuple[TestClient, Host, int]
) -> None:
    """F-61: an unknown NPC or side, a bad range, a War (no NPC catalogue): 400, nothing done."""
    client, host, eid = fight
    before = state(client, host, eid)["revision"]
    for path, body, words in (
        ("even", {"target": "heroes=50%", "change": "catalog:Dragon@monsters=0..1", "runs": 10},
         "no character or monster 'Dragon'"),
        ("even/accept", {"change": "catalog:Goblin@elves=0..2", "value": 2}, "no side 'elves'"),
        ("even/accept", {"change": "catalog:Goblin@monsters=2..1", "value": 2},
         "runs upward from 0"),
    ):  # fmt: skip
        r = call(client, host, eid, path, body)
        assert r.status_code == 400 and words in r.json()["error"], (path, body, r.text)
    assert state(client, host, eid)["revision"] == before
    client, host, eid = war
    r = call(client, host, eid, "even/accept", {"change": "catalog:Goblin@holy=0..2", "value": 1})
    assert r.status_code == 400 and "Only a Realm of Strife fight" in r.json()["error"]
