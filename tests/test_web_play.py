"""The play form's API: exact odds, previews on a copy, the pickers' options (web/play.py).

SQLite only: these endpoints read the live encounter and write nothing, so the backend plays no
part beyond what tests/test_web_api.py covers on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient

from tableside.encounter.log import Command
from tableside.encounter.roster import add_commands
from tableside.encounter.war.args import EffectName, StrikeArgs, parse_args
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.strike import strike_setup
from tableside.errors import TablesideError
from tableside.majesty.geometry import distance
from tableside.majesty.odds import strike_odds
from tableside.majesty.odds_report import strike_odds_dict
from tableside.service import open_encounter
from tableside.strife.hit import D100, HitRule, classify_hit
from tableside.web import create_app, play
from tableside.web.table import WebTable

# Jackal (played by Bo) has the first Turn of the War seeded 7; the Host puts it next to Watcher.
STRIKE = {"striker": "Jackal", "defender": "Watcher"}
DICE = [9, 4, 12, 3, 8, 1, 10]


@dataclass
class Table:
    client: TestClient
    web: WebTable
    eid: int
    host: dict[str, str]
    ann: dict[str, str]  # plays Herald, Watcher
    bo: dict[str, str]  # plays Warrior, Jackal

    def post(self, path: str, who: dict[str, str], body: Any) -> Any:
        return self.client.post(f"/api/encounters/{self.eid}{path}", headers=who, json=body)

    def get(self, path: str, who: dict[str, str]) -> Any:
        return self.client.get(f"/api/encounters/{self.eid}{path}", headers=who)

    def command(self, kind: str, args: dict[str, Any], dice: list[int] | None = None) -> Any:
        body: dict[str, Any] = {"kind": kind, "args": args}
        if dice is not None:
            body["dice"] = dice
        r = self.post("/commands", self.host, body)
        assert r.status_code == 200, r.text
        return r.json()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'play.db'}")) as test_client:
        yield test_client


def new_table(client: TestClient, game: str, seed: int) -> tuple[int, dict[str, str], int]:
    r = client.post("/api/tables", json={"name": "Friday"})
    tid, host = r.json()["id"], auth(r.json()["host_token"])
    body = {"game": game, "name": "Ford", "seed": seed}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=body).json()["id"]
    return tid, host, eid


def seat(client: TestClient, tid: int, host: dict[str, str], chars: list[str]) -> dict[str, str]:
    body = {"name": "/".join(chars), "characters": chars}
    r = client.post(f"/api/tables/{tid}/players", headers=host, json=body)
    return auth(r.json()["token"])


def jackals_turn(client: TestClient) -> Table:
    """The War seeded 7: Ann plays Herald and Watcher, Bo Warrior and Jackal, whose Turn it is."""
    tid, host, eid = new_table(client, "majesty-war", 7)
    ann = seat(client, tid, host, ["Herald", "Watcher"])
    bo = seat(client, tid, host, ["Warrior", "Jackal"])
    t = Table(client, client.app.state.table, eid, host, ann, bo)  # type: ignore[attr-defined]
    for command in add_commands():
        t.command(command.kind, command.args)
    assert t.command("next", {})["state"]["current"] == "Jackal"
    return t


@pytest.fixture
def war_table(client: TestClient) -> Table:
    t = jackals_turn(client)
    t.command("host_set", {"id": "Jackal", "field": "position", "value": [1, 2, 0]})
    return t


def expected_odds(t: Table, raw: dict[str, Any]) -> dict[str, Any]:
    """strike_odds of the Strike built from the stored encounter, independently of the server."""
    encounter = open_encounter(t.web.store, t.eid)
    args = parse_args(StrikeArgs, raw, "strike")
    state, game = encounter.state, encounter.game
    assert isinstance(game, MajestyWar)
    setup = strike_setup(game, args, state.get(args.striker), state.get(args.defender), state)
    loaded: dict[str, Any] = json.loads(json.dumps(strike_odds_dict(strike_odds(setup))))
    return loaded


def snapshot(t: Table) -> tuple[Any, ...]:
    """Everything a write could change: revision, state, the whole log (as the Host sees it)."""
    shown = t.client.get(f"/api/encounters/{t.eid}", headers=t.host).json()
    records = t.get("/log", t.host).json()["records"]
    live = t.web.live(t.eid)
    return shown["state"]["revision"], shown["state"], records, live.revision, live.state


# --- odds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [{}, {"maneuvers": ["Piercing Thrust"]}, {"boon": 1}, {"bane": 2, "mode": "none"}],
    ids=["plain", "maneuver", "boon", "bane-none"],
)
def test_strike_odds_equal_strike_odds_of_the_same_setup_m13_m7(
    war_table: Table, extra: dict[str, Any]
) -> None:
    args = {**STRIKE, **extra}
    r = war_table.post("/odds", war_table.bo, {"kind": "strike", "args": args})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["odds"] == expected_odds(war_table, args)
    assert body["policy"] == args.get("mode", "best")
    assert body["ap_cost"] == 3
    defeat = Fraction(body["odds"]["defeat"]["fraction"])
    assert 0 <= defeat <= 1
    hits = body["odds"]["distributions"]["uncanceled_hits"]["values"]
    assert sum(Fraction(row["eq"]["fraction"]) for row in hits) == 1


def test_explicit_steps_are_weighed_as_best_before_the_roll_m13(war_table: Table) -> None:
    steps = [{"die": 0, "delta": 1}]
    explicit = {**STRIKE, "mode": "explicit", "steps": steps}
    r = war_table.post("/odds", war_table.bo, {"kind": "strike", "args": explicit})
    assert r.status_code == 200, r.text
    assert r.json()["policy"] == "best"
    assert r.json()["odds"] == expected_odds(war_table, STRIKE)


def test_odds_are_refused_when_the_strike_is_not_possible_now_m40(war_table: Table) -> None:
    before = snapshot(war_table)
    body = {"kind": "strike", "args": {"striker": "Warrior", "defender": "Herald"}}
    r = war_table.post("/odds", war_table.bo, body)
    assert r.status_code == 400
    assert r.json()["error"] == (
        "Warrior cannot Strike for 3 AP: it is Jackal's Turn and Warrior has 0 AP and 0 Readied AP."
    )
    assert snapshot(war_table) == before


def test_no_strike_odds_for_a_grapplers_two_ap_strike_which_is_a_might_check_m37(
    war_table: Table,
) -> None:
    war_table.command(
        "apply_effect", {"id": STRIKE["defender"], "effect": "grappled", "by": "Jackal"}
    )
    before = snapshot(war_table)
    body = {"kind": "strike", "args": {**STRIKE, "two_ap": True}}
    r = war_table.post("/odds", war_table.bo, body)
    assert r.status_code == 400, r.text
    assert "is a Might Check, not a Strike Roll" in r.json()["error"]
    assert snapshot(war_table) == before


@pytest.mark.parametrize(
    ("args", "status", "named"),
    [
        ({**STRIKE, "weapon": "Banana"}, 400, "'Banana'"),
        ({**STRIKE, "boon": -1}, 400, "-1"),
        ({**STRIKE, "maneuvers": ["Cartwheel"]}, 400, "'Cartwheel'"),
        ({"striker": "Jackal", "defender": "Nobody"}, 400, "'Nobody'"),
        ({**STRIKE, "colour": "red"}, 400, "colour"),
    ],
    ids=["weapon", "boon", "maneuver", "defender", "unknown-key"],
)
def test_bad_strike_args_are_one_sentence_naming_the_value(
    war_table: Table, args: dict[str, Any], status: int, named: str
) -> None:
    before = snapshot(war_table)
    # the player too, but odds naming an unknown combatant are the secrets' refusal (403, W-6)
    people = [war_table.host] + ([war_table.bo] if named != "'Nobody'" else [])
    for who in people:
        for path in ("/odds", "/preview"):
            body = {"kind": "strike", "args": args, "dice": DICE}
            r = war_table.post(path, who, body)
            assert r.status_code == status, r.text
            error = r.json()["error"]
            assert named in error
            assert error.endswith(".") and "Traceback" not in error
    assert snapshot(war_table) == before


def test_odds_of_another_kind_and_bad_bodies_are_refused(war_table: Table) -> None:
    r = war_table.post("/odds", war_table.host, {"kind": "move", "args": {"id": "Jackal"}})
    assert r.status_code == 400
    assert r.json()["error"] == (
        "Odds are given for the 'strike' command of this encounter, not for 'move'."
    )
    r = war_table.post("/odds", war_table.host, {"kind": "strike", "args": STRIKE, "x": 1})
    assert r.status_code == 422
    assert "x" in r.json()["error"]


def test_a_player_is_refused_odds_and_previews_for_anothers_character(war_table: Table) -> None:
    before = snapshot(war_table)
    body = {"kind": "strike", "args": STRIKE, "dice": DICE}
    for path in ("/odds", "/preview"):
        r = war_table.post(path, war_table.ann, body)
        assert r.status_code == 403
        assert r.json()["error"] == (
            "A player may act only for its own characters, and 'Jackal' (the strike command's "
            "striker) is not one of them."
        )
    assert war_table.post("/odds", {}, body).status_code == 401
    assert snapshot(war_table) == before


# --- preview ------------------------------------------------------------------------------------


def test_a_preview_writes_nothing_and_matches_the_command_it_previews_m13(
    war_table: Table,
) -> None:
    before = snapshot(war_table)
    body = {"kind": "strike", "args": STRIKE, "dice": DICE}
    r = war_table.post("/preview", war_table.bo, body)
    assert r.status_code == 200, r.text
    preview = r.json()
    assert snapshot(war_table) == before
    assert open_encounter(war_table.web.store, war_table.eid).revision == before[0]
    assert preview["revision"] == before[0]
    answer = war_table.post("/commands", war_table.bo, body)
    while answer.status_code == 202:  # Watcher's choices: the suggestions (D-1, D-5)
        asked = answer.json()["pending"][0]
        answer = war_table.post(f"/decisions/{asked['id']}", war_table.host,
                                {"choice": asked["suggested"]})  # fmt: skip
    done = answer.json()["record"]
    assert preview["record"]["events"] == done["events"]


def test_the_best_suggestion_as_explicit_steps_gives_the_same_strike_m13(
    war_table: Table,
) -> None:
    body = {"kind": "strike", "args": STRIKE, "dice": DICE}
    preview = war_table.post("/preview", war_table.bo, body).json()
    assert preview["adjustments"] == [
        {"die": 0, "from": 9, "to": 8, "by": "defender",
         "why": "best: Precision 1 vs Guard 2, raw sources (M-10, M-11, M-18)"},
    ]  # fmt: skip
    assert preview["steps"] == [{"die": 0, "delta": -1, "side": "defender"}]
    explicit = {**STRIKE, "mode": "explicit", "steps": preview["steps"]}
    again = war_table.post("/preview", war_table.bo, {**body, "args": explicit}).json()
    best, chosen = (strike_result(p["record"]) for p in (preview, again))
    assert chosen["final"] == best["final"] == [8, 4, 12, 3, 8, 1, 10]
    assert chosen["adjustments"][0]["from"] == 9 and chosen["adjustments"][0]["to"] == 8


def strike_result(record: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(
        e["data"]["result"] for e in record["events"] if e["kind"] == "strike_resolved"
    )
    return found


@pytest.mark.parametrize(
    ("dice", "error"),
    [
        (None, "The dice typed in (a preview never rolls the server's dice) ran out: 0 dice "
               "were given but die number 1 was needed."),
        (DICE[:6], "The dice typed in ran out: 6 dice were given but die number 7 was needed."),
        ([*DICE, 5], "The dice typed in had 8 dice but the roll used only 7; 1 left over."),
        ([13, *DICE[1:]], "Die number 1 of the dice typed in shows 13, which a d12 cannot show."),
    ],
    ids=["none", "short", "long", "face"],
)  # fmt: skip
def test_a_preview_needs_exactly_the_dice_typed_in_m7(
    war_table: Table, dice: list[int] | None, error: str
) -> None:
    before = snapshot(war_table)
    body: dict[str, Any] = {"kind": "strike", "args": STRIKE}
    if dice is not None:
        body["dice"] = dice
    r = war_table.post("/preview", war_table.bo, body)
    assert r.status_code == 400
    assert r.json()["error"] == error
    assert snapshot(war_table) == before


def test_boon_dice_are_typed_in_with_the_roll_m7(war_table: Table) -> None:
    body = {"kind": "strike", "args": {**STRIKE, "boon": 1}, "dice": [*DICE, 1]}
    r = war_table.post("/preview", war_table.bo, body)
    assert r.status_code == 200, r.text
    result = strike_result(r.json()["record"])
    assert result["rolled"] == [*DICE, 1]
    assert len(result["natural"]) == 7


# --- options ------------------------------------------------------------------------------------


def test_options_offer_a_player_only_its_own_strikers_with_target_distances(
    war_table: Table,
) -> None:
    r = war_table.get("/options", war_table.bo)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "strike"
    assert [a["id"] for a in body["actors"]] == ["Warrior", "Jackal"]
    jackal = body["actors"][1]
    assert jackal["weapon"] == "Club"
    state = war_table.web.live(war_table.eid).state
    for target in jackal["targets"]:
        other = state.get(target["id"]).position
        assert target["distance"] == round(distance((1.0, 2.0, 0.0), other), 2)
    assert {t["id"] for t in jackal["targets"]} == set(state.combatants) - {"Jackal"}
    assert "Piercing Thrust" in [m["name"] for m in body["maneuvers"]]
    assert "Club" in [w["name"] for w in body["weapons"]]
    host = war_table.get("/options", war_table.host).json()
    assert len(host["actors"]) == 8


# --- Realm of Strife ----------------------------------------------------------------------------


@pytest.fixture
def fight_table(client: TestClient) -> Table:
    """Aldric (Ann's, Movement 5) in base contact with a Goblin, secret to players by default."""
    tid, host, eid = new_table(client, "strife-combat", 5)
    aldric = seat(client, tid, host, ["Aldric"])
    t = Table(client, client.app.state.table, eid, host, aldric, host)  # type: ignore[attr-defined]
    t.command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes"})
    t.command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]})
    assert t.command("start", {"ambush": "heroes"})["state"]["current"] == "Aldric"
    return t


def brute_force_hits(rule: HitRule, modifier: int) -> dict[str, Fraction]:
    law: dict[str, Fraction] = {}
    for natural in range(1, D100 + 1):
        outcome = classify_hit(natural, natural + modifier, rule).value
        law[outcome] = law.get(outcome, Fraction(0)) + Fraction(1, D100)
    return law


@pytest.mark.parametrize("modifiers", [[], [-25], [40]], ids=["none", "minus", "plus"])
def test_attack_odds_are_the_hit_law_by_brute_force_s7(
    fight_table: Table, modifiers: list[int]
) -> None:
    attack = {"defender": "Goblin", "modifiers": modifiers}
    args = {"attacker": "Aldric", "attacks": [attack]}
    r = fight_table.post("/odds", fight_table.host, {"kind": "attack", "args": args})
    assert r.status_code == 200, r.text
    found = r.json()["attacks"][0]
    goblin = fight_table.web.live(fight_table.eid).state.models["Goblin"].sheet
    aldric = fight_table.web.live(fight_table.eid).state.models["Aldric"].sheet
    assert (found["ac"], found["dodge"], found["weapon"]) == (8, goblin.dodge, "Long Sword")
    rule = HitRule(ac=found["ac"], dodge=goblin.dodge, crit_chance=aldric.crit_chance,
                   critical_miss_range=aldric.critical_miss_chance)  # fmt: skip
    oracle = brute_force_hits(rule, sum(modifiers))
    shown = {k: Fraction(v["fraction"]) for k, v in found["outcomes"].items()}
    assert {k: v for k, v in shown.items() if v} == oracle
    hit = oracle.get("hit", Fraction(0)) + oracle.get("critical_hit", Fraction(0))
    assert Fraction(found["hit"]["fraction"]) == hit
    assert Fraction(found["whole"]["hit"]["fraction"]) == hit  # no reaction: the same roll


def every_attack(t: Table, args: dict[str, Any]) -> dict[str, Fraction]:
    """Brute force: the live fight decides the attack for every d100 and damage die (1d8)."""
    live = t.web.live(t.eid)
    found: dict[str, Fraction] = {"defeat": Fraction(0), "damage": Fraction(0)}
    for natural in range(1, D100 + 1):
        for dice, weight in [((natural,), Fraction(1, D100))] + [
            ((natural, d), Fraction(1, D100 * 8)) for d in range(1, 9)
        ]:
            try:
                events = live.decide(Command("attack", args, dice), live.next_seq)
            except TablesideError:
                continue  # too few dice for this natural (it rolls damage) or too many
            dealt = [e.data for e in events if e.kind == "hp_set"]
            found["damage"] += weight * sum(d["damage"] for d in dealt)
            found["defeat"] += weight * any(d["hp"] == 0 for d in dealt)
    return found


@pytest.mark.parametrize("modifiers", [[], [-60]], ids=["none", "minus"])
def test_whole_attack_odds_agree_with_every_die_through_the_fight_s7_s14(
    fight_table: Table, modifiers: list[int]
) -> None:
    args = {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "modifiers": modifiers}]}
    r = fight_table.post("/odds", fight_table.host, {"kind": "attack", "args": args})
    whole = r.json()["attacks"][0]["whole"]
    oracle = every_attack(fight_table, args)
    assert Fraction(whole["defeat"]["fraction"]) == oracle["defeat"]
    mean = sum(row["value"] * Fraction(row["eq"]["fraction"]) for row in whole["damage"]["values"])
    assert mean == oracle["damage"]
    assert whole["hp"] == fight_table.web.live(fight_table.eid).state.models["Goblin"].sheet.hp


def test_a_player_gets_no_odds_against_a_secret_npc_until_the_host_opens_it_w1(
    fight_table: Table,
) -> None:
    args = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    body = {"kind": "attack", "args": args}
    r = fight_table.post("/odds", fight_table.ann, body)
    assert r.status_code == 403
    assert r.json()["error"] == (
        "Odds involving Goblin are not shown to players: its values are secret."
    )
    opened = fight_table.client.put(
        f"/api/encounters/{fight_table.eid}/secrets/Goblin",
        headers=fight_table.host,
        json={"secret": False},
    )
    assert opened.status_code == 200, opened.text
    r = fight_table.post("/odds", fight_table.ann, body)
    assert r.status_code == 200, r.text
    assert r.json() == fight_table.post("/odds", fight_table.host, body).json()


def test_attack_odds_refuse_a_reaction_the_defender_cannot_make_s12(fight_table: Table) -> None:
    before = snapshot(fight_table)
    args = {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "reaction": "parry"}]}
    r = fight_table.post("/odds", fight_table.host, {"kind": "attack", "args": args})
    assert r.status_code == 400
    assert r.json()["error"] == "Spear has no Parry attribute; use an improvised parry (S-12)."
    assert snapshot(fight_table) == before


def test_fight_options_list_weapons_and_the_reactions_each_target_may_declare_s4(
    fight_table: Table,
) -> None:
    body = fight_table.get("/options", fight_table.ann).json()
    assert body["kind"] == "attack"
    (aldric,) = body["actors"]
    assert aldric["weapons"] == ["Long Sword"]
    (goblin,) = aldric["targets"]
    assert goblin["id"] == "Goblin" and goblin["distance"] == 1.0
    for reaction in body["reactions"]:
        attack = {"defender": "Goblin", "reaction": reaction}
        args = {"attacker": "Aldric", "attacks": [attack]}
        r = fight_table.post("/odds", fight_table.host, {"kind": "attack", "args": args})
        declared = "equipped to" not in r.text and "attribute" not in r.text
        assert declared == (reaction in goblin["reactions"]), (reaction, r.text)


def test_a_fight_preview_writes_nothing_and_matches_the_attack_s7(fight_table: Table) -> None:
    before = snapshot(fight_table)
    args = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    body = {"kind": "attack", "args": args, "dice": [70, 8]}
    refused = fight_table.post("/preview", fight_table.ann, body)
    assert refused.status_code == 403 and "W-10" in refused.json()["error"]  # the Goblin is secret
    preview = fight_table.post("/preview", fight_table.host, body).json()
    assert snapshot(fight_table) == before
    (hp,) = [e["data"] for e in preview["record"]["events"] if e["kind"] == "hp_set"]
    assert isinstance(hp["damage"], int)
    assert preview["adjustments"] == [] and preview["steps"] == []
    done = fight_table.post("/commands", fight_table.host, body).json()["record"]
    assert preview["record"] == done


# --- the play panel's options (issue 12) --------------------------------------------------------


def test_w17_the_nearest_enemy_is_the_default_target_not_an_ally_or_one_out() -> None:
    people = [
        ("Ally", "heroes", (1.0, 0.0, 0.0), False),
        ("Fallen", "monsters", (2.0, 0.0, 0.0), True),  # out of the fight
        ("Far", "monsters", (9.0, 0.0, 0.0), False),
        ("Near", "monsters", (4.0, 0.0, 0.0), False),
    ]
    found = play.targets(
        "Me", "heroes", (0.0, 0.0, 0.0), [*people, ("Me", "heroes", (0, 0, 0), False)]
    )
    assert [t["id"] for t in found] == ["Ally", "Fallen", "Near", "Far"]  # the nearest first
    assert [t["enemy"] for t in found] == [False, True, True, True]
    assert play.nearest_enemy(found) == "Near"
    assert play.nearest_enemy(found[:2]) is None


def test_w17_options_give_each_target_its_side_and_the_nearest_enemy(war_table: Table) -> None:
    body = war_table.get("/options", war_table.bo).json()
    jackal = next(a for a in body["actors"] if a["id"] == "Jackal")
    distances = [t["distance"] for t in jackal["targets"]]
    assert distances == sorted(distances)
    sides = {
        c.id: c.character.side.value
        for c in war_table.web.live(war_table.eid).state.combatants.values()
    }
    for target in jackal["targets"]:
        assert target["side"] == sides[target["id"]]
        assert target["enemy"] == (sides[target["id"]] != "fallen")
        assert set(target) == {"id", "side", "enemy", "out", "distance"}
    assert jackal["nearest"] == "Watcher"  # 1" away; the nearest of the other side


def test_w17_options_say_whether_the_turn_is_the_viewers(
    war_table: Table, fight_table: Table
) -> None:
    assert war_table.get("/options", war_table.bo).json()["yours"] is True  # Jackal's player
    assert war_table.get("/options", war_table.ann).json()["yours"] is False
    assert war_table.get("/options", war_table.host).json()["yours"] is False  # a seat plays it
    assert fight_table.get("/options", fight_table.ann).json()["yours"] is True  # Aldric's
    while fight_table.command("next", {})["state"]["current"] != "Goblin":
        pass  # to the Goblin's Turn: an NPC's, so the Host's
    assert fight_table.get("/options", fight_table.host).json()["yours"] is True
    assert fight_table.get("/options", fight_table.ann).json()["yours"] is False


def test_w18_options_carry_the_own_values_and_the_engines_tables(war_table: Table) -> None:
    body = war_table.get("/options", war_table.bo).json()
    jackal = next(a for a in body["actors"] if a["id"] == "Jackal")
    assert {k: jackal["values"][k] for k in ("speed", "precision", "guard", "force")} == {
        "speed": 13, "precision": 1, "guard": 2, "force": 5}  # fmt: skip
    assert body["effects"] == list(get_args(EffectName)) and body["everyone"] == []
    host = war_table.get("/options", war_table.host).json()
    assert len(host["everyone"]) == 8 and host["started"] is True


def test_w19_a_players_options_hold_no_value_of_a_secret_npc(fight_table: Table) -> None:
    body = fight_table.get("/options", fight_table.ann).json()
    assert [a["id"] for a in body["actors"]] == ["Aldric"]
    assert body["actors"][0]["values"]["ac"] == 30 and body["actors"][0]["values"]["hp"] == 30
    (goblin,) = body["actors"][0]["targets"]
    assert set(goblin) == {"id", "side", "enemy", "out", "distance", "reactions"}
    text = json.dumps(body)
    for secret in ('"hp": 8', '"dodge": 10', '"ac": 8'):
        assert secret not in text
    host = fight_table.get("/options", fight_table.host).json()
    goblin_values = next(a for a in host["actors"] if a["id"] == "Goblin")["values"]
    assert goblin_values["hp"] == 8 and goblin_values["dodge"] == 10


def test_w18_a_casters_powers_are_those_its_pools_pay_for(client: TestClient) -> None:
    _tid, host, eid = new_table(client, "strife-combat", 5)
    t = Table(client, client.app.state.table, eid, host, host, host)  # type: ignore[attr-defined]
    t.command("add", {"id": "Sera", "model": "Sera", "side": "heroes"})
    t.command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [2, 0, 0]})
    body = t.get("/options", host).json()
    sera, aldric = body["actors"]
    assert "Arcane Missile" in [p["name"] for p in sera["powers"]]
    assert all(p["resource"] == "Spirit" for p in sera["powers"])
    assert aldric["powers"] == []  # Vigor and Honor pay for none of the catalogue's
    assert body["started"] is False and "Knocked Down" in body["conditions"]
    assert sera["nearest"] is None  # nobody of another side


def test_options_of_an_unknown_encounter_or_without_a_token_are_json_errors(
    war_table: Table,
) -> None:
    r = war_table.client.get("/api/encounters/999/options", headers=war_table.host)
    assert r.status_code == 404 and r.json()["error"].endswith(".")
    r = war_table.client.get(f"/api/encounters/{war_table.eid}/options")
    assert r.status_code in (401, 403) and "error" in r.json()
