"""Make it even from the web (issue 26, F-54): proposed by the Host, applied when accepted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
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
