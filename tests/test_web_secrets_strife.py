"""W-4 in a Realm of Strife attack with a secret side: the player sees its own numbers, truthfully.

Issue 12 (fix first): a secret NPC's attack on a player's model concealed the whole reaction, so
its flags became the truthy word "secret" and the log read ``secret with : d20 secret = secret,
secret, stopped, disarmed, item damaged``; the player's own AC, Dodge, reaction total and the
damage dice were hidden from them too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url
from test_web_secrets import strife_ambush

from tableside.web import create_app
from tableside.web.redact import SECRET, redact_record

PARRY = {"defender": "Aldric", "reaction": "parry"}


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    with database_url(request.param, tmp_path) as url, TestClient(create_app(url)) as c:
        yield c


def attack_result(record: dict[str, Any]) -> dict[str, Any]:
    event = next(e for e in record["events"] if e["kind"] == "attack_resolved")
    result: dict[str, Any] = event["data"]["result"]
    return result


def brute_attacks_aldric(client: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """The secret Brute attacks the player's Aldric, who parries: the Host's and player's record."""
    eid, host, player, _state = strife_ambush(client)
    url = f"/api/encounters/{eid}/commands"
    assert client.post(url, headers=host, json={"kind": "next", "args": {}}).status_code == 200
    attack = {"attacker": "Brute", "attacks": [PARRY]}
    r = client.post(url, headers=host, json={"kind": "attack", "args": attack})
    assert r.status_code == 200, r.text
    logs = [client.get(f"/api/encounters/{eid}/log", headers=h).json() for h in (host, player)]
    return logs[0]["records"][-1], logs[1]["records"][-1]


def test_w4_a_player_sees_their_own_ac_parry_and_damage_taken_from_a_secret_npc(
    client: TestClient,
) -> None:
    full, shown = (attack_result(r) for r in brute_attacks_aldric(client))
    assert shown["ac"] == full["ac"] and shown["dodge"] == full["dodge"]  # the player's own
    assert shown["reaction"] == full["reaction"]  # their Parry: d20, parts, total, flags
    assert isinstance(shown["reaction"]["total"], int)
    damage, secret_damage = full["damage"], shown["damage"]
    assert secret_damage["rolls"] == damage["rolls"] and secret_damage["dice"] == damage["dice"]
    assert secret_damage["total"] == damage["total"]  # what the player's model lost
    assert secret_damage["strength_modifier"] == SECRET  # the Brute's Strength is not shown
    assert secret_damage["parts"] == []
    assert shown["modified"] == SECRET and shown["naturals"] == full["naturals"]


def test_w4_the_record_says_only_what_happened_to_a_players_parry_against_a_secret_npc(
    client: TestClient,
) -> None:
    """The flags a player receives are the truth (true or false), never the word "secret"; the
    page's card of this record is checked in tests/test_web_e2e_log.py (W-25)."""
    full, shown = (attack_result(r) for r in brute_attacks_aldric(client))
    for flag in ("stopped", "disarmed", "item_damaged"):
        assert shown["reaction"][flag] is full["reaction"][flag]
    assert shown["damage"]["dice"] == "1d8" and shown["damage"]["rolls"] == full["damage"]["rolls"]


def test_w4_a_ward_off_roll_off_shows_both_d20s_and_the_winner_not_a_secret_total() -> None:
    """Issue 21 item 5, W-4, S-2, S-13: the player typed 14 for Aldric's Ward-off d20; the card
    shows it, the secret Goblin's d20 and who won, never the Goblin's Initiative or total."""
    side = {"label": "Goblin", "natural": 11, "stat": {"label": "Initiative", "amount": 6},
            "parts": [], "total": 17}  # fmt: skip
    aldric = {"label": "Aldric", "natural": 14, "stat": {"label": "Initiative", "amount": 4},
              "parts": [{"label": "size difference", "amount": 2}], "total": 20}  # fmt: skip
    roll_off = {"schema": "tableside/strife-roll-off", "schema_version": 1,
                "ruleset": "standard", "acting": aldric, "opposing": side, "winner": "acting",
                "tie": False, "rulings": ["S-2", "S-20"]}  # fmt: skip
    result: dict[str, Any] = {
        "schema": "tableside/strife-attack", "attacker": "Aldric", "defender": "Goblin",
        "weapon": "Long Sword", "ward_off": roll_off, "warded_off": False, "naturals": [55],
        "natural": 55, "outcome": "hit", "ac": 8, "dodge": 10, "rulings": ["S-2", "S-13"],
    }  # fmt: skip
    event = {"kind": "attack_resolved", "rule": "S-7",
             "data": {"attacker": "Aldric", "defender": "Goblin", "result": result}}  # fmt: skip
    record = {"revision": 9, "kind": "answer", "seq": 5, "hidden": False, "events": [event],
              "command": {"kind": "attack", "args": {"attacker": "Aldric"}}}  # fmt: skip
    shown = attack_result(redact_record(record, {"Goblin"}.__contains__))["ward_off"]
    assert shown["acting"] == aldric  # the player's own side, whole
    assert shown["opposing"]["label"] == "Goblin" and shown["opposing"]["natural"] == 11
    assert shown["opposing"]["total"] == SECRET and shown["opposing"]["stat"]["amount"] == SECRET
    assert shown["winner"] == "acting"
    both = attack_result(redact_record(record, {"Goblin", "Aldric"}.__contains__))["ward_off"]
    assert both["acting"]["natural"] == 14 and both["acting"]["total"] == SECRET


def test_w4_a_secret_defenders_reaction_keeps_its_dice_and_prints_no_false_flag() -> None:
    """The issue's case: a secret model parries and fails; no flag is said to have happened."""
    result: dict[str, Any] = {
        "schema": "tableside/strife-attack", "attacker": "Aldric", "defender": "Brute",
        "weapon": "Long Sword", "precision": False, "ward_off": None, "warded_off": False,
        "naturals": [40], "natural": 40, "modifiers": [{"label": "Skill", "amount": 5}],
        "modified": 45, "ac": 83, "dodge": 7, "outcome": "hit",
        "reaction": {"kind": "parry", "items": ["Spear"], "roll": 4,
                     "parts": [{"label": "Parry (AGIL 61 − 10)", "amount": 51}], "total": 55,
                     "result": "failure", "stopped": False, "disarmed": False,
                     "item_damaged": False},
        "damage": {"dice": "1d8", "rolls": [6], "basis": "full", "strength_modifier": 1,
                   "flat": 0, "crushing_blow": 0, "crit_multiplier": 1, "absorbed": 3,
                   "total": 4, "parts": [{"label": "1d8", "amount": 6},
                                         {"label": "Strength", "amount": 1},
                                         {"label": "absorbed (50 %)", "amount": -3}]},
        "effects": [], "rulings": ["S-7"],
    }  # fmt: skip
    event = {"kind": "attack_resolved", "rule": "S-7",
             "data": {"attacker": "Aldric", "defender": "Brute", "result": result}}  # fmt: skip
    record = {"revision": 7, "kind": "command", "seq": 6, "hidden": False, "events": [event],
              "command": {"kind": "attack", "args": {"attacker": "Aldric"}}}  # fmt: skip
    shown = redact_record(record, {"Brute"}.__contains__)
    s = attack_result(shown)
    assert s["ac"] == SECRET and s["dodge"] == SECRET
    assert s["modifiers"] == result["modifiers"] and s["modified"] == 45  # the player's own
    assert s["reaction"]["roll"] == 4 and s["reaction"]["result"] == "failure"
    assert s["reaction"]["total"] == SECRET and s["reaction"]["parts"] == []
    assert s["damage"]["rolls"] == [6] and s["damage"]["strength_modifier"] == 1
    assert s["damage"]["total"] == SECRET and s["damage"]["absorbed"] == SECRET
    assert s["damage"]["parts"] == result["damage"]["parts"][:2]  # no absorption shown
    for flag in ("stopped", "disarmed", "item_damaged"):
        assert s["reaction"][flag] is False  # a flag is the truth, not the truthy "secret"
    assert "61" not in str(s) and "83" not in str(s) and "55" not in str(s)
