"""Two fights in a row with the same roster characters, in each game (issue 25).

Realm of Strife: every carry-over line of the Combat page (S-22) is checked: HP, Spirit, Faith,
Focus and code stacks carry over (CH-3); Vigor returns to max after a reasonable break, half for
a wave fight (CH-4); Fury halves and is lost unless a battle follows within 2 minutes (CH-5);
Honor oaths may change (CH-6); a fight closed by ``end_combat`` is taken as it stands (CH-7);
Stealth starts the next fight at 0 (S-22, the engine's). Allies of Majesty: the Host's default
(CH-8). Nothing changes until the Host applies it, and only once (CH-9, CH-10); a rest
(CH-11, CH-12); the history read from the logs (CH-15).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tableside.campaign import play
from tableside.campaign.carry import Options, rest
from tableside.campaign.sheets import numbers, rule_fixed, validated
from tableside.encounter.log import Command
from tableside.errors import DataError
from tableside.service import open_encounter, run_command
from tableside.store import Store, roster, tables
from tableside.store.errors import StoreError

BRANNOC: dict[str, Any] = {
    "name": "Brannoc", "stats": {"STR": 17, "AGIL": 9, "INT": 8, "WIS": 11, "STAM": 15},
    "initiative": 4, "movement": 5, "ac": 10, "dodge": 5, "hp": 32, "hp_max": 32,
    "resources": {"Vigor": {"current": 3, "maximum": 10}, "Fury": {"current": 7, "maximum": 10},
                  "Spirit": {"current": 6, "maximum": 12}, "Faith": {"current": 5, "maximum": 8},
                  "Focus": {"current": 4, "maximum": 6}, "Honor": {"current": 3},
                  "Stealth": {"current": 5, "maximum": 10}},
    "main_hand": "Long Sword", "proficiencies": ["Swords"],
}  # fmt: skip
HERALD: dict[str, Any] = {
    "name": "Herald",
    "side": "holy",
    "weapon": "Sword",
    "attributes": {
        "might": 42,
        "swiftness": 31,
        "control": 30,
        "endurance": 60,
        "resolve": 48,
        "passion": 72,
    },
}
FALLEN: dict[str, Any] = {
    "format": "tableside/majesty-character",
    "version": 1,
    "name": "Fallen",
    "side": "fallen",
    "weapon": "Sword",
    "attributes": {
        "might": 40,
        "swiftness": 30,
        "control": 30,
        "endurance": 50,
        "resolve": 40,
        "passion": 50,
    },
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(f"sqlite:///{tmp_path / 'c.db'}") as opened:
        yield opened


def cmd(kind: str, **args: Any) -> Command:
    return Command(kind, args)


def fight(store: Store, table_id: int, game: str, name: str) -> int:
    return tables.create_table_encounter(store, table_id, name, game, 7)


def runner(store: Store, encounter_id: int) -> Any:
    return lambda command: run_command(store, encounter_id, command)


def strife_fight(store: Store, table_id: int, cid: int, hp: int, end: Command | None) -> int:
    """Brannoc and a goblin; Brannoc ends on ``hp``; ended by ``end`` or by the goblin's fall."""
    eid = fight(store, table_id, "strife-combat", "Mill")
    play.join(store, eid, cid, runner(store, eid), side="heroes")
    goblin = {**BRANNOC, "name": "Goblin", "resources": {}, "npc": True}
    run_command(store, eid, cmd("add", id="Goblin", sheet=goblin, side="monsters",
                                position=[30.0, 0.0, 0.0]))  # fmt: skip
    run_command(store, eid, cmd("start"))
    run_command(store, eid, cmd("host_set", id="Brannoc", field="hp", value=hp))
    if end is None:
        run_command(store, eid, cmd("host_set", id="Goblin", field="hp", value=0))
    else:
        run_command(store, eid, end)
    return eid


def changes(proposed: list[dict[str, Any]]) -> dict[str, tuple[Any, Any, str]]:
    return {c["name"]: (c["before"], c["after"], c["ruling"]) for c in proposed[0]["changes"]}


def test_ch3_to_ch7_two_strife_fights_carry_every_line_of_the_combat_page(store: Store) -> None:
    table_id = tables.create_table(store, "Friday", "ab" * 32)
    seat = tables.add_seat(store, table_id, "Ann", (), "cd" * 32)
    cid = roster.add_character(store, table_id, "strife-combat",
                               validated("strife-combat", BRANNOC), seat.id)  # fmt: skip
    # Fight 1 closed by end_combat, another battle within 2 minutes (CH-7: taken as it stands).
    one = strife_fight(store, table_id, cid, 20,
                       cmd("end_combat", battle_within_2_minutes=True))  # fmt: skip
    proposed = play.proposal(store, one, Options())
    assert proposed[0]["notes"] == [
        "Honor oaths and virtues may be changed at the start of the next combat (CH-6)."
    ]
    assert changes(proposed) == {
        "HP": (32, 20, "CH-3"),  # HP carries over
        "Vigor": (3, 10, "CH-4"),  # back to max after the fight
        "Fury": (7, 4, "CH-5"),  # halved (rounded half up, SA-1), kept: a battle follows soon
        "Stealth": (5, 0, "CH-3"),  # the fight began with Stealth 0 (no hiding declared)
    }
    assert roster.character(store, cid).sheet["hp"] == 32  # nothing changed yet (CH-9)
    play.apply(store, one, Options())
    after = roster.character(store, cid)
    pools = after.sheet["resources"]
    assert after.sheet["hp"] == 20
    assert {k: pools[k]["current"] for k in ("Spirit", "Faith", "Focus", "Honor")} == {
        "Spirit": 6,
        "Faith": 5,
        "Focus": 4,
        "Honor": 3,
    }  # carried over as they stood (CH-3)
    assert after.carried is not None and after.carried["encounter"] == one  # CH-10
    assert play.proposal(store, one, Options()) == []  # carried once
    # Fight 2 starts from the carried state and ends by the goblin's fall: S-22 is applied by
    # the proposal, the Host saying it was a wave fight with no battle soon (CH-4, CH-5).
    two = strife_fight(store, table_id, cid, 12, None)
    state = open_encounter(store, two).state
    assert state.models["Brannoc"].sheet.resources["Fury"].current == 4  # it came in with 4
    proposed = play.proposal(store, two, Options(wave=True))
    assert changes(proposed) == {"HP": (20, 12, "CH-3"), "Fury": (4, 0, "CH-5")}  # Vigor 10≥5
    play.apply(store, two, Options(wave=True))
    sheet = roster.character(store, cid).sheet
    assert sheet["hp"] == 12 and sheet["resources"]["Fury"]["current"] == 0
    # A rest: HP and Spirit regain as much (CH-11); Faith and Focus do not.
    rested = rest("strife-combat", sheet, 10)
    assert rested["hp"] == 22 and rested["resources"]["Spirit"]["current"] == 12
    assert rested["resources"]["Focus"] == sheet["resources"]["Focus"]
    assert rest("strife-combat", sheet)["hp"] == 32
    history = play.history(store, cid)
    assert [(h["encounter"], h["ended"], h["winner"]) for h in history] == [
        (one, True, None), (two, True, "heroes")]  # fmt: skip
    # What the fight itself changed (its Fury decays only in the carry-over, CH-7).
    assert history[1]["changed"] == [{"name": "HP", "before": 20, "after": 12}]


def test_ch5_fury_halves_and_is_lost_without_a_battle_soon(store: Store) -> None:
    table_id = tables.create_table(store, "Friday", "ab" * 32)
    cid = roster.add_character(store, table_id, "strife-combat",
                               validated("strife-combat", BRANNOC), None)  # fmt: skip
    one = strife_fight(store, table_id, cid, 32, None)
    assert changes(play.proposal(store, one, Options()))["Fury"] == (7, 0, "CH-5")
    assert changes(play.proposal(store, one, Options(battle_soon=True)))["Fury"] == (7, 4, "CH-5")


def war(store: Store, table_id: int, cid: int, wear_e: int, exertion: int) -> int:
    eid = fight(store, table_id, "majesty-war", "Ford")
    play.join(store, eid, cid, runner(store, eid))
    run_command(store, eid, cmd("add", id="Fallen", character=FALLEN, position=[5.0, 0, 0]))
    run_command(store, eid, cmd("host_set", id="Herald", field="wear_e", value=wear_e))
    run_command(store, eid, cmd("host_set", id="Herald", field="exertion", value=exertion))
    run_command(store, eid, cmd("host_set", id="Fallen", field="wear_e", value=60))
    return eid


def test_ch8_two_wars_carry_wear_and_rest_away_exertion(store: Store) -> None:
    table_id = tables.create_table(store, "Friday", "ab" * 32)
    cid = roster.add_character(store, table_id, "majesty-war",
                               validated("majesty-war", HERALD), None)  # fmt: skip
    one = war(store, table_id, cid, 12, 4)
    with pytest.raises(StoreError):  # the wrong encounter's carry-over is refused whole
        roster.apply_carry_over(store, one, {"Fallen": (cid, HERALD, {})})
    assert changes(play.proposal(store, one, Options())) == {"Wear E": (0, 12, "CH-8")}
    play.apply(store, one, Options())
    sheet = roster.character(store, cid).sheet
    assert sheet["wear"] == {"E": 12, "R": 0, "P": 0} and sheet["exertion"] == 0
    assert {n["name"]: n["current"] for n in numbers("majesty-war", sheet)}["Endurance"] == 48
    two = war(store, table_id, cid, 20, 3)  # it comes in with its Wear; the Host sets 20
    assert open_encounter(store, two).state.combatants["Herald"].character.wear.E == 20
    assert changes(play.proposal(store, two, Options(keep_exertion=True))) == {
        "Wear E": (12, 20, "CH-8"), "Exertion": (0, 3, "CH-8")}  # fmt: skip
    play.apply(store, two, Options(keep_exertion=True))
    rested = rest("majesty-war", roster.character(store, cid).sheet)  # CH-12
    assert rested["wear"] == {"E": 0, "R": 0, "P": 0} and rested["exertion"] == 0


def test_ch9_no_proposal_before_the_end_and_no_join_across_tables_or_games(store: Store) -> None:
    table_id = tables.create_table(store, "Friday", "ab" * 32)
    other = tables.create_table(store, "Inn", "ef" * 32)
    cid = roster.add_character(store, table_id, "majesty-war",
                               validated("majesty-war", HERALD), None)  # fmt: skip
    eid = fight(store, table_id, "majesty-war", "Ford")
    play.join(store, eid, cid, runner(store, eid))
    with pytest.raises(play.NotEndedError, match="has not ended"):
        play.proposal(store, eid, Options())
    with pytest.raises(DataError, match="already has a combatant 'Herald'"):
        play.join(store, eid, cid, runner(store, eid))
    elsewhere = fight(store, other, "majesty-war", "Ford")
    with pytest.raises(DataError, match="another table"):
        play.join(store, elsewhere, cid, runner(store, elsewhere))
    strife = fight(store, table_id, "strife-combat", "Mill")
    with pytest.raises(DataError, match="is a majesty-war character"):
        play.join(store, strife, cid, runner(store, strife))
    with pytest.raises(DataError, match="bad id"):
        play.join(store, eid, cid, runner(store, eid), combatant="bad id")


def test_ch1_sheets_are_validated_with_the_field_named(store: Store) -> None:
    with pytest.raises(DataError, match=r"sheet: field hp_max"):
        validated("strife-combat", {**BRANNOC, "hp_max": 0})
    with pytest.raises(DataError, match=r"attributes.might"):
        validated("majesty-war", {**HERALD, "attributes": {**HERALD["attributes"], "might": -1}})


def test_ch13_rule_fixed_fields_are_the_numbers_and_the_gear() -> None:
    sheet = validated("strife-combat", BRANNOC)
    assert (
        rule_fixed("strife-combat", sheet, {**sheet, "name": "Bran", "skills": ["Dual Wield"]})
        == []
    )
    assert rule_fixed("strife-combat", sheet, {**sheet, "hp": 1, "ac": 50}) == ["ac", "hp"]
    herald = validated("majesty-war", HERALD)
    assert rule_fixed("majesty-war", herald, {**herald, "name": "H"}) == []
    assert rule_fixed("majesty-war", herald, {**herald, "tier": 2}) == ["tier"]
