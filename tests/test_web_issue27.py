"""Issue 27 at the web table: Reactions offered when they trigger (SA-96), control of another
model (SA-97).

SQLite only: the commands' store is test_web_api.py's; here only who is asked or may send
changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_play import Table, new_table, seat

from tableside.encounter.roster import add_commands
from tableside.encounter.strife.forced import commander_of
from tableside.store import tables
from tableside.strife.catalog import builtin_catalog
from tableside.web import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'control.db'}")) as test_client:
        yield test_client


@pytest.fixture
def fight_table(client: TestClient) -> Table:
    """Aldric (Ann's, Reversal) in base contact with a secret Goblin (Swift Kick); Aldric's Turn."""
    tid, host, eid = new_table(client, "strife-combat", 5)
    aldric = seat(client, tid, host, ["Aldric"])
    t = Table(client, client.app.state.table, eid, host, aldric, host)  # type: ignore[attr-defined]
    t.command("add", {"id": "Aldric", "sheet": sheet("Aldric", skills=("Reversal",)),
                      "side": "heroes"})  # fmt: skip
    t.command("add", {"id": "Goblin", "sheet": sheet("Goblin", skills=("Swift Kick",)),
                      "side": "monsters", "position": [1, 0, 0]})  # fmt: skip
    assert t.command("start", {"ambush": "heroes"})["state"]["current"] == "Aldric"
    return t


def sheet(name: str, **changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = (
        builtin_catalog().combatant(name).model_copy(update=changes).model_dump(mode="json")
    )
    return document


def answer(t: Table, who: dict[str, str], decision: str, choice: Any) -> Any:
    r = t.post(f"/decisions/{decision}", who, {"choice": choice})
    assert r.status_code in (200, 202), r.text
    return r.json()


# --- SA-96 Reactions offered when they trigger --------------------------------------------------


def test_sa96_a_players_model_attacked_is_offered_its_reaction_and_no_reaction(
    fight_table: Table,
) -> None:
    """SA-96: the Goblin attacks Aldric: Ann is asked whether Aldric takes Reversal (or none);
    her Reversal spends his Reaction, so no Block is asked; her panel lists his Reactions."""
    t = fight_table
    actor = t.get("/options", t.ann).json()["actors"][0]
    assert actor["triggered"] == [
        {"name": "Reversal", "kind": "skill", "when": "when it is attacked"}
    ]
    while t.command("next", {})["state"]["current"] != "Goblin":
        pass
    attack = {"kind": "attack", "args": {"attacker": "Goblin", "attacks": [{"defender": "Aldric"}]}}
    assert t.post("/commands", t.host, attack).status_code == 202  # waits for Ann
    (asked,) = t.get("/decisions", t.ann).json()["decisions"]
    assert (asked["kind"], asked["combatant"]) == ("skill_reaction", "Aldric")
    assert [o["label"] for o in asked["options"]] == [
        "Reversal (Skill Reaction, when it is attacked)", "No reaction"]  # fmt: skip
    answer(t, t.ann, asked["id"], "Reversal")
    assert t.get("/decisions", t.ann).json()["decisions"] == []  # resolved: no Block asked
    log = t.get("/log", t.ann).json()
    text = json.dumps(log)
    assert "Skill Reaction: Reversal" in text


def test_sa96_a_secret_npcs_reactions_are_the_hosts_and_hidden_from_players(
    fight_table: Table,
) -> None:
    """SA-96, W-4: Aldric attacks the secret Goblin: the Host is asked about its Swift Kick;
    Ann reads nothing of it (not its name, not a decline)."""
    t = fight_table
    r = t.client.put(f"/api/encounters/{t.eid}/settings", headers=t.host,
                     json={"npcs_decide": "ask"})  # fmt: skip
    assert r.status_code == 200, r.text
    r = t.client.put(f"/api/encounters/{t.eid}/secrets/Goblin", headers=t.host,
                     json={"secret": True})  # fmt: skip
    assert r.status_code == 200, r.text
    attack = {"kind": "attack", "args": {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}}
    assert t.post("/commands", t.ann, attack).status_code == 202  # waits for the Host
    host = t.get("/decisions", t.host).json()["decisions"]
    kick = next(d for d in host if d["kind"] == "skill_reaction")
    assert kick["combatant"] == "Goblin" and kick["options"][0]["value"] == "Swift Kick"
    answer(t, t.host, kick["id"], None)
    (ward,) = t.get("/decisions", t.host).json()["decisions"]
    answer(t, t.host, ward["id"], None)  # its Ward-off, asked after (S-4)
    seen = json.dumps([t.get("/decisions", t.ann).json(), t.get("/log", t.ann).json()])
    at = seen.find("Swift Kick")
    assert at < 0, seen[max(0, at - 600) : at + 100]
    assert '"Goblin": null' not in seen


def send(t: Table, who: dict[str, str], kind: str, args: dict[str, Any]) -> Any:
    return t.post("/commands", who, {"kind": kind, "args": args})


def with_sera(t: Table) -> dict[str, str]:
    """Sera joins the heroes, played by a second seat (Bo); returns Bo's token."""
    table_id = tables.table_of(t.web.store, t.eid)
    assert table_id is not None
    bo = seat(t.client, table_id, t.host, ["Sera"])
    t.command("add", {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 3, 0]})
    return bo


def test_sa97_the_owner_is_refused_naming_the_controller_and_commands_again_after_undo(
    fight_table: Table,
) -> None:
    """SA-97: Aldric, Mind Controlled by the Goblin (an NPC), is the Host's to command; his
    player is refused in one sentence naming the Goblin; undone, the control is gone."""
    t = fight_table
    t.command("condition", {"id": "Aldric", "name": "Mind Controlled", "source": "Goblin"})
    move = {"id": "Aldric", "to": [0, 1, 0]}
    r = send(t, t.ann, "move", move)
    assert r.status_code == 403, r.text
    sentence = r.json()["error"]
    assert sentence == (
        "Aldric is controlled by Goblin: its commands are sent by the seat that plays Goblin "
        "until the control ends (SA-97)."
    )
    assert send(t, t.ann, "next", {}).status_code == 403  # nor ends its Turn
    options = t.get("/options", t.ann).json()
    assert options["yours"] is False and options["actors"] == []
    assert options["controlled"] == [{"id": "Aldric", "by": "Goblin"}]
    assert t.get("/options", t.host).json()["yours"] is True  # the NPC controller's: the Host's
    r = t.client.post(f"/api/encounters/{t.eid}/undo", headers=t.host, json={})
    assert r.status_code == 200, r.text
    assert send(t, t.ann, "move", move).status_code == 200  # back to its own player


def test_sa97_the_controllers_seat_commands_the_controlled_model_for_the_duration(
    fight_table: Table,
) -> None:
    """SA-97: the Goblin, Mind Controlled by Sera for 1 round, is commanded by Sera's seat;
    nobody else's; its secret values stay secret; when the rounds run out, the Host's again."""
    t = fight_table
    bo = with_sera(t)
    t.command("condition", {"id": "Goblin", "name": "Mind Controlled", "source": "Sera",
                            "rounds": 1})  # fmt: skip
    state = t.web.live(t.eid).state
    assert commander_of(state, "Goblin") == "Sera" and commander_of(state, "Aldric") == "Aldric"
    while t.command("next", {})["state"]["current"] != "Goblin":
        pass
    options = t.get("/options", bo).json()
    goblin = next(a for a in options["actors"] if a["id"] == "Goblin")
    assert options["yours"] is True and goblin["controlled_by"] == "Sera"
    assert set(goblin["values"]) == {"used", "movement"}  # no HP, AC or Dodge of the NPC
    assert send(t, t.ann, "move", {"id": "Goblin", "to": [2, 0, 0]}).status_code == 403
    r = send(t, bo, "move", {"id": "Goblin", "to": [2, 0, 0]})
    assert r.status_code == 200, r.text
    assert send(t, bo, "next", {}).status_code == 200
    while t.command("next", {})["state"]["current"] != "Goblin":
        pass  # a round on: the condition's one round has run out
    assert commander_of(t.web.live(t.eid).state, "Goblin") == "Goblin"
    assert send(t, bo, "next", {}).status_code == 403


# --- SA-98 NPC policies that know the rules at the web table ------------------------------------


def npc_turn(t: Table, who: dict[str, str]) -> Any:
    return t.client.post(f"/api/encounters/{t.eid}/npc_turn", headers=who)


def test_sa98_the_host_plays_an_npcs_turn_and_the_player_is_asked_its_reactions(
    fight_table: Table,
) -> None:
    """SA-98: only the Host, only on an NPC's Turn; the Goblin's Turn is played by the policy
    through the engine, its attack leaving Aldric's Reactions to Ann (SA-96, D-7)."""
    t = fight_table
    assert npc_turn(t, t.ann).status_code == 403
    r = npc_turn(t, t.host)
    assert r.status_code == 400
    assert r.json()["error"] == (
        "It is the Turn of Aldric, which a player commands: the Host plays only the Turns of "
        "NPCs (SA-98)."
    )
    while t.command("next", {})["state"]["current"] != "Goblin":
        pass
    r = npc_turn(t, t.host)
    assert r.status_code == 202, r.text  # the Goblin attacks Aldric: Ann is asked
    assert r.json()["record"]["command"]["kind"] == "attack"
    assert "reaction" not in r.json()["record"]["command"]["args"]["attacks"][0]
    (asked,) = t.get("/decisions", t.ann).json()["decisions"]
    assert asked["kind"] == "skill_reaction"


def test_sa98_a_wars_npc_turn_is_played_by_the_policy_through_the_engine(
    client: TestClient,
) -> None:
    """SA-98: at a War, the Host's NPC Turn sends the policy's accepted commands until the Turn
    passes; an NPC whose suggestion the engine refuses is never stuck."""
    tid, host, eid = new_table(client, "majesty-war", 7)
    ann = seat(client, tid, host, ["Herald", "Watcher"])
    t = Table(client, client.app.state.table, eid, host, ann, host)  # type: ignore[attr-defined]
    for command in add_commands():
        t.command(command.kind, command.args)
    current = t.command("next", {})["state"]["current"]
    while current in ("Herald", "Watcher"):
        current = t.command("next", {})["state"]["current"]
    before = t.web.live(t.eid).revision
    r = npc_turn(t, t.host)
    assert r.status_code in (200, 202), r.text
    log = t.get("/log", t.host).json()
    log = log["records"] if isinstance(log, dict) else log
    sent = [rec["command"] for rec in log if rec["revision"] > before and rec["kind"] == "command"]
    assert sent and all(c["kind"] == "next" or current in json.dumps(c["args"]) for c in sent)
