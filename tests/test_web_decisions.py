"""Decisions at the web table (issue 11): each choice made by its owner, over HTTP (D-1 … D-5).

A Host and two players (Al plays Aldric, Se plays Sera) against a secret NPC Goblin, on both
backends. The game's choices are :mod:`decisions_toy`'s stand-in (a defender's Reaction and the
Host's approval of an attack's modifiers), so these tests check the web table's policy, API,
deadlines and secrecy whatever the games list.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from decisions_toy import toy_choices
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url

from tableside.encounter.strife.fight import StrifeFight
from tableside.web import create_app
from tableside.web.table import WebTable


def nothing_open(seen: dict[str, Any]) -> bool:
    """Nothing waits: no question, no one waited for, no card (issue 21 adds cards)."""
    return bool(seen["decisions"] == [] and seen["waiting"] == [] and seen["cards"] == [])


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class AtEncounter:
    """What every table of these tests shares: its encounter's API, commands, whose Turn."""

    client: TestClient
    eid: int
    host: dict[str, str]

    def api(self, path: str = "") -> str:
        return f"/api/encounters/{self.eid}{path}"

    def command(self, who: dict[str, str], kind: str, **args: Any) -> Any:
        return self.client.post(
            self.api("/commands"), headers=who, json={"kind": kind, "args": args}
        )

    def turn_of(self, combatant: str) -> None:
        for _ in range(12):
            state = self.client.get(self.api(), headers=self.host).json()["state"]
            if state["current"] == combatant:
                return
            assert self.command(self.host, "next").status_code == 200
        raise AssertionError(f"{combatant} never got the Turn")


@dataclass
class Table(AtEncounter):
    client: TestClient
    url: str
    tid: int
    eid: int
    host: dict[str, str]
    al: dict[str, str]  # plays Aldric
    se: dict[str, str]  # plays Sera

    @property
    def web(self) -> WebTable:
        table: WebTable = self.client.app.state.table  # type: ignore[attr-defined]
        return table

    def decisions(self, who: dict[str, str]) -> dict[str, Any]:
        r = self.client.get(self.api("/decisions"), headers=who)
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found

    def decide(self, who: dict[str, str], decision: str, choice: Any) -> Any:
        return self.client.post(
            self.api(f"/decisions/{decision}"), headers=who, json={"choice": choice}
        )

    def revision(self) -> int:
        return self.web.store.encounter(self.eid).revision

    def log(self, who: dict[str, str]) -> list[dict[str, Any]]:
        r = self.client.get(self.api("/log"), headers=who)
        assert r.status_code == 200, r.text
        records: list[dict[str, Any]] = r.json()["records"]
        return records

    def settings(self, **changes: Any) -> dict[str, Any]:
        r = self.client.put(self.api("/settings"), headers=self.host, json=changes)
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found


@pytest.fixture
def toy_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StrifeFight, "choices", toy_choices, raising=False)


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def table(store_url: str, toy_game: None) -> Iterator[Table]:
    yield from fight_table(store_url)


@pytest.fixture
def real_fight(store_url: str) -> Iterator[Table]:
    """The same table with the fight's own choices (D-7)."""
    yield from fight_table(store_url)


def fight_table(store_url: str) -> Iterator[Table]:
    with TestClient(create_app(store_url)) as client:
        r = client.post("/api/tables", json={"name": "Mill"}).json()
        tid, host = r["id"], auth(r["host_token"])
        new = {"game": "strife-combat", "name": "Ambush", "seed": 5}
        eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
        tokens = []
        for name, chars in (("Al", ["Aldric"]), ("Se", ["Sera"])):
            seat = {"name": name, "characters": chars}
            tokens.append(client.post(f"/api/tables/{tid}/players", headers=host, json=seat))
        for body in (
            {"model": "Aldric", "side": "heroes", "position": [0, 0, 0]},
            {"model": "Sera", "side": "heroes", "position": [0, 1, 0]},
            {"model": "Goblin", "id": "Gob", "side": "monsters", "position": [1, 0, 0]},
        ):
            r = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
            assert r.status_code == 201, r.text
        url = f"/api/encounters/{eid}/commands"
        assert client.post(url, headers=host, json={"kind": "start", "args": {}}).status_code == 200
        al, se = (auth(t.json()["token"]) for t in tokens)
        yield Table(client, store_url, tid, eid, host, al, se)


def goblin_attacks_aldric(t: Table, **item: Any) -> Any:
    t.turn_of("Gob")
    return t.command(t.host, "attack", attacker="Gob", attacks=[{"defender": "Aldric", **item}])


def test_d1_an_npc_attack_on_a_pc_waits_for_its_player_who_parries(table: Table) -> None:
    """D-1, D-4: the NPC's attack waits (202); Aldric's player, not Sera's, chooses Parry."""
    r = goblin_attacks_aldric(table)
    assert r.status_code == 202, r.text
    pending = r.json()["pending"]
    assert [(p["kind"], p["combatant"]) for p in pending] == [("reaction", "Aldric")]
    assert "Aldric's player (Al)" in pending[0]["waiting_for"]
    assert r.json()["record"]["kind"] == "request"
    mine = table.decisions(table.al)["decisions"]
    assert [d["id"] for d in mine] == [pending[0]["id"]]
    assert {"id", "kind", "combatant", "options", "suggested", "deadline", "prompt"} <= set(mine[0])
    assert mine[0]["deadline"] is None  # the default setting waits (D-5)
    others = table.decisions(table.se)
    assert others["decisions"] == []
    assert [w["combatant"] for w in others["waiting"]] == ["Aldric"]
    before = table.revision()
    refused = table.decide(table.se, pending[0]["id"], "parry")
    assert refused.status_code == 403
    assert refused.json() == {"error": "How Aldric reacts is Aldric's player's choice."}
    assert table.revision() == before
    done = table.decide(table.al, pending[0]["id"], "parry")
    assert done.status_code == 200, done.text
    record = done.json()["record"]
    assert record["kind"] == "answer" and record["data"]["outcome"] == "resolved"
    assert record["command"]["args"]["attacks"][0]["reaction"] == "parry"
    assert record["data"]["answer"]["by"].startswith("seat:")
    assert any(e["kind"] == "attack_resolved" for e in record["events"])
    assert nothing_open(table.decisions(table.host))


def test_d3_another_command_while_waiting_is_refused_naming_who_it_waits_for(table: Table) -> None:
    """D-3: 409 naming the player the fight waits for; nothing written."""
    assert goblin_attacks_aldric(table).status_code == 202
    before = table.revision()
    r = table.command(table.host, "next")
    assert r.status_code == 409
    assert "waiting for Aldric's player (Al)" in r.json()["error"]
    assert table.revision() == before


def test_d3_the_hosts_undo_withdraws_the_waiting_command_and_redo_restores_it(
    table: Table,
) -> None:
    """D-3: undo withdraws the waiting command; redo puts it back, waiting."""
    pending = goblin_attacks_aldric(table).json()["pending"]
    undone = table.client.post(table.api("/undo"), headers=table.host)
    assert undone.status_code == 200, undone.text
    assert table.decisions(table.al)["decisions"] == []
    redone = table.client.post(table.api("/redo"), headers=table.host)
    assert redone.status_code == 200, redone.text
    assert [d["id"] for d in table.decisions(table.al)["decisions"]] == [pending[0]["id"]]
    assert table.client.post(table.api("/redo"), headers=table.host).status_code == 409


def test_d4_the_host_may_answer_any_decision(table: Table) -> None:
    """D-4: the Host answers the player's decision (recorded as the Host's)."""
    pending = goblin_attacks_aldric(table).json()["pending"]
    r = table.decide(table.host, pending[0]["id"], None)
    assert r.status_code == 200, r.text
    assert r.json()["record"]["data"]["answer"]["by"] == "host"


def test_d4_a_bad_choice_is_refused_with_one_sentence_and_nothing_written(table: Table) -> None:
    """D-1: not one of the options -> 400; an unknown decision -> 404."""
    pending = goblin_attacks_aldric(table).json()["pending"]
    before = table.revision()
    r = table.decide(table.al, pending[0]["id"], "dodge")
    assert r.status_code == 400 and "'dodge' is not one of the options" in r.json()["error"]
    assert table.decide(table.al, "99.0", "parry").status_code == 404
    assert table.revision() == before


def test_d4_a_players_command_setting_anothers_choice_is_refused(table: Table) -> None:
    """D-4: Aldric's player may not declare Sera's (or the Goblin's) Reaction: 403, nothing."""
    table.turn_of("Aldric")
    before = table.revision()
    for defender, owner in (("Sera", "Sera's player's"), ("Gob", "the Host's")):
        attack = [{"defender": defender, "reaction": "parry"}]
        r = table.command(table.al, "attack", attacker="Aldric", attacks=attack)
        assert r.status_code == 403, r.text
        assert r.json() == {"error": f"How {defender} reacts is {owner} choice."}
    assert table.revision() == before


def test_d4_a_players_modifier_is_a_proposal_the_host_approves(table: Table) -> None:
    """D-4: a player's modifier asks the Host; it applies once approved."""
    table.settings(npcs_decide="auto")
    table.turn_of("Aldric")
    attack = [{"defender": "Gob", "modifiers": [10]}]
    r = table.command(table.al, "attack", attacker="Aldric", attacks=attack)
    assert r.status_code == 202, r.text
    (proposal,) = r.json()["pending"]
    assert proposal["kind"] == "approve" and proposal["waiting_for"].startswith("the Host")
    assert table.decisions(table.al)["decisions"] == []  # the player cannot approve it
    assert table.decide(table.al, proposal["id"], "approve").status_code == 403
    (asked,) = table.decisions(table.host)["decisions"]
    done = table.decide(table.host, asked["id"], "approve")
    assert done.status_code == 200, done.text
    args = done.json()["record"]["command"]["args"]["attacks"][0]
    assert args["modifiers"] == [10] and args["reaction"] is None  # NPC decided (D-5)


def test_d4_a_players_modifier_without_approval_never_applies(table: Table) -> None:
    """D-4: rejected, the command is withdrawn; its modifier never reaches the state."""
    table.settings(npcs_decide="auto")
    table.turn_of("Aldric")
    before = table.client.get(table.api(), headers=table.host).json()["state"]
    attack = [{"defender": "Gob", "modifiers": [10]}]
    (proposal,) = table.command(table.al, "attack", attacker="Aldric", attacks=attack).json()[
        "pending"
    ]
    r = table.decide(table.host, proposal["id"], "reject")
    assert r.status_code == 200 and r.json()["record"]["data"]["outcome"] == "withdrawn"
    after = table.client.get(table.api(), headers=table.host).json()["state"]
    assert {k: v for k, v in after.items() if k != "revision"} == {
        k: v for k, v in before.items() if k != "revision"
    }
    assert not any(r["events"] for r in table.log(table.host) if r["kind"] == "answer")


def test_d4_a_table_that_trusts_players_keeps_their_modifiers(table: Table) -> None:
    """D-4: with trust_modifiers the proposal stands without asking."""
    table.settings(npcs_decide="auto", trust_modifiers=True)
    table.turn_of("Aldric")
    attack = [{"defender": "Gob", "modifiers": [10]}]
    r = table.command(table.al, "attack", attacker="Aldric", attacks=attack)
    assert r.status_code == 200, r.text
    assert r.json()["record"]["command"]["args"]["attacks"][0]["modifiers"] == [10]


def test_d5_a_player_attacking_an_npc_asks_the_host_unless_npcs_decide(table: Table) -> None:
    """D-5: the NPC's Reaction is the Host's; with npcs_decide auto its suggestion is taken."""
    table.settings(npcs_decide="ask")  # auto is the default since issue 21
    table.turn_of("Aldric")
    attack = [{"defender": "Gob"}]
    r = table.command(table.al, "attack", attacker="Aldric", attacks=attack)
    assert r.status_code == 202
    assert r.json()["pending"][0]["waiting_for"].startswith("the Host")
    table.client.post(table.api("/undo"), headers=table.host)
    table.settings(npcs_decide="auto")
    r = table.command(table.al, "attack", attacker="Aldric", attacks=attack)
    assert r.status_code == 200, r.text
    item = r.json()["record"]["command"]["args"]["attacks"][0]
    assert "reaction" in item and item["reaction"] is None  # the suggestion, taken


def test_d5_a_passed_deadline_takes_the_suggestion_on_the_next_access(table: Table) -> None:
    """D-5: after decision_timeout seconds the suggestion is taken, by "timeout"."""
    table.settings(decision_timeout=30)
    now = time.time()
    table.web.clock = lambda: now
    (asked,) = goblin_attacks_aldric(table).json()["pending"]
    assert asked["deadline"] == pytest.approx(now + 30)
    table.web.clock = lambda: now + 31
    assert nothing_open(table.decisions(table.al))
    last = table.log(table.host)[-1]
    assert last["data"]["answer"] == {"request": asked["id"], "value": None, "by": "timeout"}
    assert last["data"]["outcome"] == "resolved"


def test_d5_the_sweeper_takes_a_passed_deadline_without_any_request(table: Table) -> None:
    """D-5: the background sweeper expires a decision nobody touches (5 s, the shortest)."""
    table.settings(decision_timeout=5)
    goblin_attacks_aldric(table)
    before = table.revision()
    stop = time.time() + 9
    while table.revision() == before and time.time() < stop:
        time.sleep(0.2)
    assert table.revision() == before + 1
    records, _hidden = table.web.store.load(table.eid)[1], None
    assert records[-1].data is not None and records[-1].data["answer"]["by"] == "timeout"


def test_d2_a_server_restart_keeps_the_decision_waiting(table: Table) -> None:
    """D-2: a new server on the same database still waits; the owner answers there."""
    (asked,) = goblin_attacks_aldric(table).json()["pending"]
    with TestClient(create_app(table.url)) as other:
        web: WebTable = other.app.state.table  # type: ignore[attr-defined]
        stop = time.time() + 5
        while table.eid not in web._live and time.time() < stop:
            time.sleep(0.05)  # the sweeper adopts the waiting encounter at start (D-5)
        assert web._live[table.eid].pending is not None
        r = other.get(table.api("/decisions"), headers=table.al)
        assert [d["id"] for d in r.json()["decisions"]] == [asked["id"]]
        done = other.post(table.api(f"/decisions/{asked['id']}"), headers=table.al,
                          json={"choice": "parry"})  # fmt: skip
        assert done.status_code == 200, done.text


def test_d2_a_deadline_that_passed_during_a_restart_is_taken_on_first_access(
    table: Table,
) -> None:
    """D-5: a new server takes the suggestion of a decision overdue since before it started."""
    table.settings(decision_timeout=60)
    now = time.time()
    table.web.clock = lambda: now
    goblin_attacks_aldric(table)
    app = create_app(table.url)
    app.state.table.clock = lambda: now + 61
    with TestClient(app) as other:
        r = other.get(table.api("/decisions"), headers=table.se)
        assert nothing_open(r.json())
    assert table.web.store.load(table.eid)[1][-1].data["answer"]["by"] == "timeout"  # type: ignore[index]


def test_d5_a_player_sees_no_odds_that_follow_a_secret_npcs_values(table: Table) -> None:
    """D-5, W-4: the Goblin is secret to Al, so the odds of its attack are not shown to him."""
    goblin_attacks_aldric(table)
    (mine,) = table.decisions(table.al)["decisions"]
    assert all(o["odds"] is None and "Gob" in o["odds_hidden"] for o in mine["options"])
    assert mine["suggested"] is None
    (hosts,) = table.decisions(table.host)["decisions"]
    assert hosts["options"][1]["odds"] == {"hit": 0.42} and "suggested" not in hosts.get(
        "suggested_hidden", ""
    )
    request = next(r for r in table.log(table.al) if r["kind"] == "request")
    assert all(o["odds"] is None for o in request["data"]["requests"][0]["options"])
    table.client.put(table.api("/secrets/Gob"), headers=table.host, json={"secret": False})
    (mine,) = table.decisions(table.al)["decisions"]
    assert mine["options"][1]["odds"] == {"hit": 0.42}


def test_d4_a_hidden_host_command_that_waits_stays_hidden_from_players(table: Table) -> None:
    """D-4, issue 21 item 2: a hidden command's records never reach players, but a choice of a
    player's character is asked of its player, with the command's kind alone."""
    table.turn_of("Gob")
    body = {"kind": "attack", "hidden": True,
            "args": {"attacker": "Gob", "attacks": [{"defender": "Aldric"}]}}  # fmt: skip
    r = table.client.post(table.api("/commands"), headers=table.host, json=body)
    assert r.status_code == 202
    (asked,) = r.json()["pending"]
    seen = table.decisions(table.al)
    (mine,) = seen["decisions"]
    assert mine["id"] == asked["id"] and mine["command"] == {"kind": "attack", "args": {},
                                                             "dice": None}  # fmt: skip
    assert "Aldric's player" in seen["waiting"][0]["waiting_for"]
    other = table.decisions(table.se)
    assert other["decisions"] == [] and other["waiting"][0]["waiting_for"] == "the Host"
    refused = table.command(table.se, "move", id="Sera", to=[0, 2, 0])
    assert refused.status_code == 409 and "waiting for the Host" in refused.json()["error"]
    assert table.decide(table.se, asked["id"], "parry").status_code == 404  # not Sera's
    done = table.decide(table.al, asked["id"], "parry")
    assert done.status_code == 200 and done.json()["record"] == {"kind": "answer", "hidden": True}
    assert not [r for r in table.log(table.al) if r["kind"] in ("request", "answer")]
    assert [r["kind"] for r in table.log(table.host)][-2:] == ["request", "answer"]


def test_d5_settings_are_the_hosts_and_validated(table: Table) -> None:
    """D-4, D-5: GET/PUT settings, Host only, one sentence for a bad value."""
    url = table.api("/settings")
    got = table.client.get(url, headers=table.host).json()
    assert got == {"decision_timeout": None, "npcs_decide": "auto", "trust_modifiers": False,
                   "hidden_asks": "player"}  # fmt: skip
    assert table.client.get(url, headers=table.al).status_code == 403
    assert table.client.put(url, headers=table.al, json={"npcs_decide": "auto"}).status_code == 403
    for bad in ({"decision_timeout": 2}, {"npcs_decide": "never"}, {"colour": 1}):
        r = table.client.put(url, headers=table.host, json=bad)
        assert r.status_code == 422 and r.json()["error"].endswith("."), r.text
    assert table.settings(decision_timeout=10)["decision_timeout"] == 10
    assert table.settings(decision_timeout=None)["decision_timeout"] is None


# --- with the games' own choices (D-7, D-8, D-11) ----------------------------------------------


def test_d7_an_npc_attack_on_a_pc_with_the_fights_own_choices(real_fight: Table) -> None:
    """D-7 at the table: Aldric's player sees the legal Reactions (odds hidden) and parries."""
    t = real_fight
    r = goblin_attacks_aldric(t)
    assert r.status_code == 202, r.text
    (mine,) = t.decisions(t.al)["decisions"]
    assert "parry" in [o["value"] for o in mine["options"]]
    assert all(o["odds"] is None for o in mine["options"])  # the Goblin's values are secret
    assert t.decide(t.se, mine["id"], "parry").status_code == 403
    done = t.decide(t.al, mine["id"], "parry")
    assert done.status_code == 200, done.text
    assert done.json()["record"]["command"]["args"]["attacks"][0]["reaction"] == "parry"
    (hosts,) = [r for r in t.log(t.host) if r["kind"] == "request"][-1]["data"]["requests"]
    assert hosts["options"][1]["odds"] is not None  # the Host sees the exact odds


def test_d14_aldric_leaves_the_goblin_and_the_host_takes_its_attack_of_opportunity(
    real_fight: Table,
) -> None:
    """D-14 at the table: Aldric's player moves away (202); only the Host answers for the Goblin."""
    t = real_fight
    t.settings(npcs_decide="ask")  # auto is the default since issue 21
    t.turn_of("Aldric")
    before = t.revision()
    bad = t.command(t.al, "move", id="Aldric", to=[-4.0, 0.0, 0.0], aoo={"Gob/Spear": False})
    assert bad.status_code == 403, bad.text  # not Aldric's player's choice
    assert t.revision() == before
    r = t.command(t.al, "move", id="Aldric", to=[-4.0, 0.0, 0.0])
    assert r.status_code == 202, r.text
    assert [(p["kind"], p["combatant"]) for p in r.json()["pending"]] == [("aoo", "Gob")]
    assert t.decisions(t.al)["decisions"] == []  # the Goblin's choice is the Host's
    (offer,) = t.decisions(t.host)["decisions"]
    assert t.decide(t.al, offer["id"], True).status_code == 403
    done = t.decide(t.host, offer["id"], True)
    assert done.status_code == 200, done.text
    kinds = [e["kind"] for e in done.json()["record"]["events"]]
    assert "aoo_used" in kinds and "attack_resolved" in kinds


@dataclass
class War(AtEncounter):
    client: TestClient
    eid: int
    host: dict[str, str]
    ann: dict[str, str]  # plays Herald (holy)
    bo: dict[str, str]  # plays Reaver (fallen)

    def answer_all(self, approve: str = "approve") -> Any:
        """The Host answers what waits: proposals with ``approve``, the rest as suggested."""
        last = None
        for _ in range(8):
            found = self.client.get(self.api("/decisions"), headers=self.host).json()["decisions"]
            if not found:
                return last
            asked = found[0]
            choice = approve if asked["kind"] == "approve" else asked["suggested"]
            last = self.client.post(self.api(f"/decisions/{asked['id']}"), headers=self.host,
                                    json={"choice": choice})  # fmt: skip
            assert last.status_code in (200, 202), last.text
        raise AssertionError("still waiting")


@pytest.fixture
def war(store_url: str) -> Iterator[War]:
    """Ann's Herald, Bo's Reaver (a fallen PC with a high Guard) and Boss, a secret NPC."""
    from tableside.encounter.roster import character_doc

    with TestClient(create_app(store_url)) as client:
        r = client.post("/api/tables", json={"name": "Ford"}).json()
        tid, host = r["id"], auth(r["host_token"])
        new = {"game": "majesty-war", "name": "Ford", "seed": 3}
        eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
        players = []
        for name, chars in (("Ann", ["Herald"]), ("Bo", ["Reaver"])):
            seat = {"name": name, "characters": chars}
            made = client.post(f"/api/tables/{tid}/players", headers=host, json=seat).json()
            players.append(auth(made["token"]))
        for character, at in (
            (character_doc("Herald", "holy", attributes={"swiftness": 40}), [0, 0, 0]),
            (character_doc("Reaver", "fallen", overrides={"guard": 20}), [1, 0, 0]),
            (character_doc("Boss", "fallen"), [0, 1, 0]),
        ):
            body = {"character": character, "position": at}
            made = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
            assert made.status_code == 201, made.text
        yield War(client, eid, host, players[0], players[1])


def test_d11_a_players_boon_1_is_approved_by_the_host(war: War) -> None:
    """D-4, D-11: Ann proposes Boon 1; it applies once the Host approves it."""
    war.turn_of("Herald")
    r = war.command(war.ann, "strike", striker="Herald", defender="Boss", boon=1)
    assert r.status_code == 202, r.text
    kinds = [p["kind"] for p in r.json()["pending"]]
    assert "approve" in kinds
    assert all(p["waiting_for"].startswith("the Host") for p in r.json()["pending"])
    assert war.client.get(war.api("/decisions"), headers=war.ann).json()["decisions"] == []
    done = war.answer_all("approve")
    record = done.json()["record"]
    assert record["data"]["outcome"] == "resolved" and record["command"]["args"]["boon"] == 1
    assert any(e["kind"] == "strike_resolved" for e in record["events"])


def test_d8_the_defenders_player_chooses_the_adjustments(war: War) -> None:
    """D-8: Ann Strikes Bo's Reaver, which has the surplus; Bo (not Ann) picks none."""
    war.turn_of("Herald")
    r = war.command(war.ann, "strike", striker="Herald", defender="Reaver")
    assert r.status_code == 202, r.text
    mine = war.client.get(war.api("/decisions"), headers=war.bo).json()["decisions"]
    adjust = next(d for d in mine if d["kind"] == "adjustments")
    assert adjust["combatant"] == "Reaver" and adjust["suggested"] == {"mode": "best"}
    assert war.client.get(war.api("/decisions"), headers=war.ann).json()["decisions"] == []
    refused = war.client.post(war.api(f"/decisions/{adjust['id']}"), headers=war.ann,
                              json={"choice": {"mode": "none"}})  # fmt: skip
    assert refused.status_code == 403
    assert refused.json()["error"] == "How Reaver uses its Adjustments is Reaver's player's choice."
    answered = None
    for _ in range(4):
        mine = war.client.get(war.api("/decisions"), headers=war.bo).json()["decisions"]
        if not mine:
            break
        choice = {"mode": "none"} if mine[0]["kind"] == "adjustments" else mine[0]["suggested"]
        answered = war.client.post(war.api(f"/decisions/{mine[0]['id']}"), headers=war.bo,
                                   json={"choice": choice})  # fmt: skip
        assert answered.status_code in (200, 202), answered.text
    assert answered is not None and answered.status_code == 200
    assert answered.json()["record"]["command"]["args"]["mode"] == "none"
    r = war.command(war.ann, "strike", striker="Herald", defender="Reaver", mode="best")
    assert r.status_code in (403, 409)  # Reaver's choice (or the Turn has moved on)


def test_d5_w4_an_option_label_with_secret_numbers_reads_as_its_value(war: War) -> None:
    """W-4: Boss's Strike on Herald: Ann's Obstruction options lose the outcomes on Boss."""
    war.turn_of("Boss")
    r = war.command(war.host, "strike", striker="Boss", defender="Herald")
    assert r.status_code == 202, r.text
    mine = war.client.get(war.api("/decisions"), headers=war.ann).json()["decisions"]
    tokens = next(d for d in mine if d["kind"] == "obstruction")
    hosts = war.client.get(war.api("/decisions"), headers=war.host).json()["decisions"]
    whole = next(d for d in hosts if d["kind"] == "obstruction")
    # issue 21: the Host reads each option's effect, computed when the question is read
    assert "Wear" in whole["options"][0]["effect"] and "outcome" in whole["options"][0]
    assert whole["dice"]["natural"] == tokens["dice"]["natural"]  # the dice are public (W-4)
    for option in tokens["options"]:  # no effect is computed for Ann: it follows Boss's values
        assert set(option) == {"value", "label"}
        assert "Boss" not in option["label"]
    assert tokens["suggested"] == 0  # no token: a suggestion that follows nothing secret
    labels = [o["label"] for o in tokens["options"]]
    assert labels[:2] == ["No Obstruction token", "1 Obstruction token"]
    assert labels == [o["label"] for o in whole["options"]]  # plain words, nothing secret


def test_d6_a_player_enters_its_own_physical_dice_stage_by_stage(real_fight: Table) -> None:
    """D-6: Aldric's player rolls at the table: each stage of his dice is asked of him in turn."""
    t = real_fight
    t.settings(npcs_decide="auto")
    t.turn_of("Aldric")
    attack = [{"defender": "Gob"}]
    r = t.command(t.al, "attack", attacker="Aldric", attacks=attack, physical=["Aldric"])
    assert r.status_code == 202, r.text
    stages = []
    answer = r
    while answer.status_code == 202:
        (asked,) = answer.json()["pending"]
        assert (asked["kind"], asked["combatant"], asked["mine"]) == ("dice", "Aldric", True)
        stages.append(asked["key"])
        option = asked["options"][0]
        assert t.decide(t.se, asked["id"], [1] * option["count"]).status_code == 403
        answer = t.decide(t.al, asked["id"], [min(50, option["sides"])] * option["count"])
    assert answer.status_code == 200, answer.text
    assert len(stages) >= 1 and any(
        e["kind"] == "attack_resolved" for e in answer.json()["record"]["events"]
    )


def test_issue21_d6_the_host_rolls_the_goblins_dice_and_aldrics_player_his_parry(
    real_fight: Table,
) -> None:
    """D-6, issue 21 item 5: the Host types the Goblin's dice; Aldric's Parry d20 is asked of
    Aldric's player (never rolled by the server), after the Goblin's d100, and the typed faces
    are in the attack's breakdown."""
    t = real_fight
    t.turn_of("Gob")
    attack = [{"defender": "Aldric"}]
    r = t.command(t.host, "attack", attacker="Gob", attacks=attack, physical=["Gob"])
    assert r.status_code == 202, r.text
    assert r.json()["record"]["command"]["args"]["physical"] == ["Gob", "Aldric"]
    asked_of: list[tuple[str, str]] = []
    answer = r
    while answer.status_code == 202:
        asked = answer.json()["pending"][0]
        asked_of.append((asked["key"], asked["combatant"]))
        if asked["kind"] == "reaction":
            answer = t.decide(t.al, asked["id"], "parry")
        elif asked["combatant"] == "Aldric":
            assert "Block/Parry test" in asked["prompt"] and asked["input"]["sides"] == 20
            answer = t.decide(t.al, asked["id"], [14])
        else:
            faces = [min(60, asked["input"]["sides"])] * asked["input"]["count"]
            answer = t.decide(t.host, asked["id"], faces)
        assert answer.status_code in (200, 202), answer.text
    keys = [k for k, _who in asked_of]
    assert ("dice.0.reaction", "Aldric") in asked_of
    assert keys.index("dice.0.hit") < keys.index("dice.0.reaction")  # the d100 first
    record = answer.json()["record"]
    assert record["command"]["args"]["rolled"]["0.reaction"] == [14]
    (resolved,) = [e for e in record["events"] if e["kind"] == "attack_resolved"]
    assert resolved["data"]["result"]["reaction"]["roll"] == 14  # the typed d20 in the breakdown


def test_d4_the_hosts_own_modifier_stands_when_the_player_answers(real_fight: Table) -> None:
    """D-4: a modifier in the Host's command was judged as it was sent; Al's answer resolves it."""
    t = real_fight
    r = goblin_attacks_aldric(t, modifiers=[5])
    assert r.status_code == 202, r.text
    (asked,) = r.json()["pending"]
    assert asked["kind"] == "reaction"
    done = t.decide(t.al, asked["id"], None)
    assert done.status_code == 200, done.text
    assert done.json()["record"]["command"]["args"]["attacks"][0]["modifiers"] == [5]


def test_w11_another_tables_token_starts_no_session_on_this_tables_page(real_fight: Table) -> None:
    """W-11 (found by the hostile suite): a join link of table 2 on table 1's page is refused."""
    other = real_fight.client.post("/api/tables", json={"name": "Inn"}).json()["host_token"]
    page = f"/tables/{real_fight.tid}/encounters/{real_fight.eid}"
    r = real_fight.client.get(page, params={"token": other}, follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers
    mine = real_fight.client.get(page, params={"token": real_fight.host["Authorization"][7:]},
                                 follow_redirects=False)  # fmt: skip
    assert mine.status_code == 303
