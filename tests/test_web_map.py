"""The battle map's API: a move's cost decided on a copy (W-20, W-21), reach rings (W-22).

SQLite only: these endpoints read the live encounter and write nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_play import Table, fight_table, jackals_turn, snapshot

from tableside.web import create_app

__all__ = ["fight_table"]  # the fixture, shared with test_web_play


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'map.db'}")) as test_client:
        yield test_client


@pytest.fixture
def war_table(client: TestClient) -> Table:
    """The War seeded 7: Jackal (Bo's) has the first Turn at (8, 2, 0) with 7 AP."""
    return jackals_turn(client)


def cost(t: Table, who: dict[str, str], body: dict[str, Any]) -> Any:
    return t.post("/move-cost", who, body)


def moved_event(answer: dict[str, Any]) -> dict[str, Any]:
    events = answer["record"]["events"]
    found: dict[str, Any] = next(e["data"] for e in events if e["kind"] == "moved")
    return found


@pytest.mark.parametrize("to", [[6.5, 2, 0], [8, 2, 3], [5, 6, 1]], ids=["half", "up", "diagonal"])
def test_w20_a_war_move_costs_what_the_engine_charges_and_nothing_is_written(
    war_table: Table, to: list[float]
) -> None:
    before = snapshot(war_table)
    r = cost(war_table, war_table.bo, {"id": "Jackal", "to": to})
    assert r.status_code == 200, r.text
    priced = r.json()
    assert snapshot(war_table) == before
    assert priced["allowed"] is True and priced["unit"] == "AP"
    assert priced["from"] == [8.0, 2.0, 0.0] and priced["to"] == [float(v) for v in to]
    assert priced["path"] == [priced["from"], priced["to"]]
    done = war_table.post(
        "/commands", war_table.bo, {"kind": "move", "args": {"id": "Jackal", "to": to}}
    )
    assert done.status_code == 200, done.text
    assert moved_event(done.json())["ap"] == priced["cost"]
    jackal = next(c for c in done.json()["state"]["combatants"] if c["id"] == "Jackal")
    assert jackal["ap"] == priced["left"] == 7 - priced["cost"]


def test_w20_a_fractional_war_move_is_rounded_up_as_the_engine_does_m40(war_table: Table) -> None:
    priced = cost(war_table, war_table.bo, {"id": "Jackal", "to": [6.5, 2, 0]}).json()
    assert (priced["inches"], priced["cost"], priced["left"]) == (1.5, 2, 5)


def test_w20_a_move_the_engine_refuses_says_why_and_writes_nothing(war_table: Table) -> None:
    before = snapshot(war_table)
    r = cost(war_table, war_table.bo, {"id": "Jackal", "to": [0, 20, 0]})
    assert r.status_code == 200, r.text
    assert r.json()["allowed"] is False
    assert r.json()["reason"] == (
        "Jackal cannot Move for 20 AP: it is Jackal's Turn and Jackal has 7 AP and 0 Readied AP."
    )
    not_turn = cost(war_table, war_table.bo, {"id": "Warrior", "to": [7, 0, 0]}).json()
    assert not_turn["allowed"] is False and "Jackal's Turn" in not_turn["reason"]
    assert snapshot(war_table) == before


def test_w20_only_the_host_may_place_a_combatant_instead(war_table: Table) -> None:
    body = {"id": "Warrior", "to": [7, 0, 0]}
    assert cost(war_table, war_table.bo, body).json()["place"] is False
    assert cost(war_table, war_table.host, body).json()["place"] is True


def test_a_player_may_not_price_a_move_of_anothers_character(war_table: Table) -> None:
    before = snapshot(war_table)
    for who in ("Jackal", "Nobody"):
        r = cost(war_table, war_table.ann, {"id": who, "to": [1, 1, 0]})
        assert r.status_code == 403
        assert r.json() == {
            "error": f"A player may act only for its own characters, and "
            f"'{who}' (the move command's id) is not one of them."
        }
    assert cost(war_table, {}, {"id": "Jackal", "to": [1, 1, 0]}).status_code == 401
    assert snapshot(war_table) == before


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        (
            {"id": "Nobody", "to": [1, 1, 0]},
            400,
            "There is no combatant 'Nobody' in this encounter to move.",
        ),
        (
            {"id": "Jackal", "to": [1, 1]},
            422,
            "Bad request: field to: List should have at least 3 items after validation, not 2.",
        ),
        (
            {"id": "Jackal", "to": [1, 1, 0], "speed": 3},
            422,
            "Bad request: field speed: Extra inputs are not permitted (got 3).",
        ),
        (
            {"id": "Jackal", "to": [1, 1, 0], "difficult": True},
            400,
            "move command: field difficult: Extra inputs are not permitted (got True).",
        ),
    ],
    ids=["unknown", "two-numbers", "unknown-key", "terrain-in-a-war"],
)
def test_bad_move_cost_requests_are_one_json_sentence_and_write_nothing(
    war_table: Table, body: dict[str, Any], status: int, error: str
) -> None:
    before = snapshot(war_table)
    r = cost(war_table, war_table.host, body)
    assert (r.status_code, r.json()) == (status, {"error": error})
    assert snapshot(war_table) == before


def test_w20_a_realm_of_strife_move_costs_movement_with_its_terrain_s6(fight_table: Table) -> None:
    before = snapshot(fight_table)
    plain = cost(fight_table, fight_table.ann, {"id": "Aldric", "to": [-2, 0, 0]}).json()
    rough = cost(
        fight_table, fight_table.ann, {"id": "Aldric", "to": [-2, 0, 0], "difficult": True}
    ).json()
    too_far = cost(
        fight_table, fight_table.ann, {"id": "Aldric", "to": [-3, 0, 0], "difficult": True}
    ).json()
    assert snapshot(fight_table) == before
    assert (plain["cost"], plain["unit"], plain["left"]) == (2.0, "inches", 3.0)
    assert (rough["cost"], rough["left"]) == (4.0, 1.0)
    assert too_far == {
        **too_far,
        "allowed": False,
        "reason": "This path costs 6.0 inches of movement but Movement is 5 (S-6).",
    }
    args = {"id": "Aldric", "to": [0.5, 0, 0], "difficult": True}  # still in contact: no AoO
    near = cost(fight_table, fight_table.ann, args).json()
    done = fight_table.post("/commands", fight_table.ann, {"kind": "move", "args": args})
    assert moved_event(done.json())["cost"] == near["cost"] == 1.0


def test_w21_leaving_contact_names_the_attacks_of_opportunity_offered_s18(
    fight_table: Table,
) -> None:
    priced = cost(fight_table, fight_table.ann, {"id": "Aldric", "to": [-2, 0, 0]}).json()
    assert priced["offers"] == [{"attacker": "Goblin", "weapon": "Spear", "target": "Aldric"}]


def test_w21_a_player_learns_no_secret_npc_value_through_move_costs(fight_table: Table) -> None:
    """The Goblin is secret to players (W-1): its move is refused them like another's character;
    their own move's answer is what the Host gets (nothing in it comes from the Goblin's values)."""
    r = cost(fight_table, fight_table.ann, {"id": "Goblin", "to": [3, 0, 0]})
    assert r.status_code == 403
    assert r.json() == {
        "error": "A player may act only for its own characters, and 'Goblin' "
        "(the move command's id) is not one of them."
    }
    hosts = cost(fight_table, fight_table.host, {"id": "Goblin", "to": [3, 0, 0]}).json()
    assert hosts["allowed"] is False  # not its Turn, and the Host is told so
    body = {"id": "Aldric", "to": [-2, 0, 0]}
    mine = cost(fight_table, fight_table.ann, body).json()
    assert mine == {**cost(fight_table, fight_table.host, body).json(), "place": False}
    assert "secret" not in str(mine)


def test_w22_reach_rings_are_given_only_for_the_callers_own_combatants(
    war_table: Table, fight_table: Table
) -> None:
    war = war_table.get("/map", war_table.bo).json()["rings"]
    assert war == {
        "Warrior": [{"label": "Melee Range", "inches": 3.0}],
        "Jackal": [{"label": "Melee Range", "inches": 3.0}],
    }
    assert len(war_table.get("/map", war_table.host).json()["rings"]) == 8
    fight = fight_table.get("/map", fight_table.ann).json()["rings"]
    assert fight == {"Aldric": [{"label": "Long Sword reach", "inches": 1.0}]}
    hosts = fight_table.get("/map", fight_table.host).json()["rings"]
    assert hosts["Goblin"] == [
        {"label": "Spear reach", "inches": 2.0},
        {"label": "Spear thrown", "inches": 8.0},
    ]
    assert war_table.get("/map", {}).status_code == 401


def test_w22_two_daggers_give_one_reach_ring_and_one_thrown_ring_s16(fight_table: Table) -> None:
    fight_table.command(
        "add", {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 5, 0]}
    )
    rings = fight_table.get("/map", fight_table.host).json()["rings"]["Sera"]
    assert rings == [
        {"label": "Dagger reach", "inches": 1.0},
        {"label": "Dagger thrown", "inches": 6.0},
    ]


def test_w20_while_the_fight_waits_for_a_decision_a_move_is_not_possible_d3(
    fight_table: Table,
) -> None:
    asks = {"npcs_decide": "ask"}  # automatic is the default since issue 21
    url = f"/api/encounters/{fight_table.eid}/settings"
    assert fight_table.client.put(url, headers=fight_table.host, json=asks).status_code == 200
    left = fight_table.post(
        "/commands", fight_table.ann, {"kind": "move", "args": {"id": "Aldric", "to": [-2, 0, 0]}}
    )
    assert left.status_code == 202, left.text  # the Goblin's Attack of Opportunity is asked
    before = snapshot(fight_table)
    priced = cost(fight_table, fight_table.ann, {"id": "Aldric", "to": [-1, 0, 0]}).json()
    assert priced["allowed"] is False
    assert priced["reason"].startswith("The fight is waiting for ")
    assert priced["reason"].endswith(
        "; a move waits until it is answered (or the Host undoes the waiting command)."
    )
    assert snapshot(fight_table) == before
