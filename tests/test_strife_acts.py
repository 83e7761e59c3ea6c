"""Issue 14 item 15 in fights: Full, Role-play and Quick acts, Skill and Role-play Reactions,
climbing and swimming tests, the Sprint streak and hiding declared before the fight
(SA-80 … SA-88; SA-89 is on the command line, tests/test_cli_fight_acts.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tableside.dice import SeededRng
from tableside.encounter.decisions import Ask, Policy
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, Event, LogRecord
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError
from tableside.strife.catalog import Resource
from tableside.strife.conditions import EXHAUSTION, has_condition

Dice = tuple[int, ...] | None


def fight(goblin_at: float = 5.0, *, declare_hiding: bool = False) -> Encounter[FightState]:
    """Sera (Movement 6, STR 9, AGIL 16, STAM 10) acts first; the Goblin (Small) second."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    e.execute(Command("add", {"id": "Sera", "model": "Sera", "side": "heroes"}, (10,)))
    goblin = {"id": "Goblin", "model": "Goblin", "side": "monsters",
              "position": [goblin_at, 0.0, 0.0]}  # fmt: skip
    e.execute(Command("add", goblin, (10,)))
    if declare_hiding:
        e.execute(Command("hide", {"id": "Sera"}))
    e.execute(Command("start", {}))
    assert e.state.current == "Sera"
    return e


def run(e: Encounter[FightState], command: str, dice: Dice = None, /, **args: Any) -> LogRecord:
    return e.execute(Command(command, args, dice))


def refused(
    e: Encounter[FightState], match: str, command: str, dice: Dice = None, /, **args: Any
) -> None:
    """The command is refused with ``match`` in its sentence, and nothing is written."""
    before = len(e.records)
    with pytest.raises(TablesideError, match=match):
        run(e, command, dice, **args)
    assert len(e.records) == before


def kinds(record: LogRecord) -> list[tuple[str, Any]]:
    return [(ev.kind, ev.data.get("element")) for ev in record.events]


def rolls_of(record: LogRecord) -> list[Event]:
    return [ev for ev in record.events if ev.kind == "test_resolved"]


def to_turn_of(e: Encounter[FightState], who: str) -> None:
    run(e, "next")
    while e.state.current != who:
        run(e, "next")


def replays(e: Encounter[FightState]) -> None:
    rebuilt = Encounter.from_records(e.game, 3, e.records)
    assert rebuilt.state == e.state
    assert e.verify_replay().state == e.state


# --- SA-80 Full Actions and Role-play Actions -------------------------------------------------


def test_sa80_a_full_action_is_the_turns_action_and_ends_the_turn() -> None:
    e = fight()
    record = run(e, "act", id="Sera", kind="full", name="drink the potion in the backpack")
    assert ("element_used", "action") in kinds(record)
    assert record.events[-1].data["text"] == "Full Action: drink the potion in the backpack"
    refused(e, "ends the Turn", "move", id="Sera", to=[0.0, 1.0, 0.0])
    refused(e, "ends the Turn", "attack", attacker="Sera", attacks=[{"defender": "Goblin"}])
    replays(e)


def test_sa80_a_full_action_may_follow_a_move_and_an_instant_but_not_an_attack() -> None:
    e = fight()
    run(e, "move", id="Sera", to=[0.0, 2.0, 0.0])
    run(e, "instant", id="Sera", name="call out to the troops")
    run(e, "act", id="Sera", kind="full", name="unlock the chest")
    assert e.state.models["Sera"].elements == ("move", "instant", "action")
    near = fight(goblin_at=1.0)
    run(near, "attack", (90, 3), attacker="Sera", attacks=[{"defender": "Goblin"}])
    refused(near, "ends the Turn", "act", id="Sera", kind="full", name="unlock the chest")


def test_sa80_a_full_action_takes_the_stat_test_asked_for() -> None:
    """AGIL 16: a natural 5 makes 21 > 20 (S-1), a natural 4 makes 20."""
    passed = rolls_of(run(fight(), "act", (5,), id="Sera", kind="full", name="pick", test="AGIL"))
    failed = rolls_of(run(fight(), "act", (4,), id="Sera", kind="full", name="pick", test="AGIL"))
    assert [t.data["success"] for t in passed + failed] == [True, False]
    assert passed[0].data["result"]["total"] == 21 and passed[0].rule == "SA-80"


def test_sa80_a_role_play_action_is_a_stat_roll_off_against_a_foe() -> None:
    """Sera STR 9, Medium, +2 for size against the Small Goblin (STR 8) (S-2, S-20)."""
    shove = {"id": "Sera", "kind": "roleplay", "name": "shove the table", "test": "STR",
             "against": "Goblin"}  # fmt: skip
    won = rolls_of(run(fight(), "act", (15, 10), **shove))[0]
    lost = rolls_of(run(fight(), "act", (10, 15), **shove))[0]
    tie = rolls_of(run(fight(), "act", (10, 13), **shove))[0]  # 21 against 21
    assert [won.data["winner"], lost.data["winner"], tie.data["winner"]] == [
        "acting", "opposing", "acting"]  # fmt: skip
    assert won.data["result"]["acting"]["total"] == 15 + 9 + 2
    assert tie.data["result"]["tie"] is True
    other = rolls_of(run(fight(), "act", (10, 3), **shove, against_stat="AGIL"))[0]
    assert other.data["result"]["opposing"]["total"] == 3 + 12 and other.data["success"]


def test_sa80_bad_acts_are_refused_with_one_sentence_and_write_nothing() -> None:
    e = fight()
    base = {"id": "Sera", "name": "shove"}
    refused(e, "Only a Role-play Action", "act", kind="full", test="STR", against="Goblin", **base)
    refused(e, "needs the stat to test", "act", kind="roleplay", against="Goblin", **base)
    refused(e, "against itself", "act", kind="roleplay", test="STR", against="Sera", **base)
    refused(e, "needs a stat test", "act", kind="full", advantage=2, **base)
    refused(e, "needs a model to roll off", "act", kind="roleplay", against_stat="STR", **base)
    refused(e, "kind", "act", kind="dance", **base)
    refused(e, "There is no model 'Nobody'", "act", kind="roleplay", test="STR",
            against="Nobody", **base)  # fmt: skip
    refused(e, "not Goblin's Turn", "act", id="Goblin", kind="full", name="flee")


def test_sa80_d4_an_acts_advantage_is_the_hosts_to_approve() -> None:
    e = fight()
    game = StrifeFight()
    plain = Command("act", {"id": "Sera", "kind": "full", "name": "pick", "test": "AGIL"})
    helped = Command("act", {**plain.args, "advantage": 2})
    assert game.choices(e.state, plain, SeededRng.stream(3, 9)) == []
    [choice] = game.choices(e.state, helped, SeededRng.stream(3, 9))
    assert choice.kind == "approve" and choice.combatant is None and "advantage 2" in choice.prompt


# --- SA-81 Quick Actions and Role-play Instants -----------------------------------------------


def test_sa81_a_quick_action_is_the_instant_not_the_action() -> None:
    e = fight()
    record = run(e, "act", id="Sera", kind="quick", name="open the unlocked door")
    assert ("element_used", "instant") in kinds(record)
    refused(e, "one instant", "act", id="Sera", kind="roleplay_instant", name="duck")
    run(e, "move", id="Sera", to=[0.0, 2.0, 0.0])
    run(e, "act", id="Sera", kind="full", name="unlock the chest")


def test_sa81_a_role_play_instant_takes_a_stat_test_and_never_goes_out_of_turn() -> None:
    e = fight()
    [test] = rolls_of(run(e, "act", (12,), id="Sera", kind="roleplay_instant",
                          name="kick the brazier over", test="STR"))  # fmt: skip
    assert test.data["success"] and test.rule == "SA-81"
    refused(e, "use a Reaction", "act", id="Goblin", kind="roleplay_instant", name="duck")


# --- SA-82 Skill/Casting Reactions ------------------------------------------------------------


def test_sa82_a_skill_reaction_spends_the_rounds_one_reaction() -> None:
    e = fight(goblin_at=1.0)
    record = run(e, "react", id="Goblin", kind="skill", name="Counterspell",
                 trigger="Sera casts")  # fmt: skip
    spent = record.events[0]
    assert (spent.kind, spent.data["reason"]) == ("reaction_spent", "Skill Reaction: Counterspell")
    assert record.events[1].data["trigger"] == "Sera casts"
    refused(e, "already used its Reaction", "react", id="Goblin", kind="skill", name="Reversal")
    refused(e, "already used its Reaction", "attack", attacker="Sera",
            attacks=[{"defender": "Goblin", "reaction": "ward_off"}])  # fmt: skip
    to_turn_of(e, "Sera")  # round 2: the Reaction is back
    run(e, "react", id="Goblin", kind="skill", name="Reversal")
    replays(e)


def test_sa82_a_reaction_on_the_models_own_turn_or_outside_the_fight_is_refused() -> None:
    e = fight()
    refused(e, "someone else's Turn", "react", id="Sera", kind="skill", name="Swift Kick")
    early: Encounter[FightState] = Encounter(StrifeFight(), 3)
    run(early, "add", (10,), id="Sera", model="Sera", side="heroes")
    refused(early, "has not started", "react", id="Sera", kind="skill", name="Swift Kick")
    run(e, "host_set", id="Goblin", field="hp", value=0)
    refused(e, "has ended", "react", id="Goblin", kind="skill", name="Swift Kick")


def test_sa82_undo_gives_the_reaction_back_and_redo_spends_it_again() -> None:
    e = fight()
    run(e, "react", id="Goblin", kind="skill", name="Counterspell")
    e.undo()
    assert e.state.rounds.can_react("Goblin")
    e.redo()
    assert not e.state.rounds.can_react("Goblin")
    replays(e)


# --- SA-83 Role-play and other Reactions ------------------------------------------------------


def test_sa83_a_role_play_reaction_takes_its_stat_test_out_of_turn() -> None:
    """Goblin AGIL 12: a natural 9 makes 21 (passes), 8 makes 20 (fails), 1 always fails."""
    leap = {"id": "Goblin", "kind": "roleplay", "name": "leap onto the table", "test": "AGIL"}
    results = [rolls_of(run(fight(), "react", (n,), **leap))[0] for n in (9, 8, 1)]
    assert [t.data["success"] for t in results] == [True, False, False]
    assert results[2].data["result"]["automatic"] == "natural_1"
    assert all(t.rule == "SA-83" for t in results)
    other = run(fight(), "react", None, id="Goblin", kind="other", name="catch the rope")
    assert other.events[0].data["reason"] == "Reaction: catch the rope" and not rolls_of(other)


def test_sa83_a_reactions_advantage_needs_a_test_and_the_hosts_approval() -> None:
    e = fight()
    refused(e, "needs a stat test", "react", id="Goblin", kind="roleplay", name="leap",
            advantage=3)  # fmt: skip
    helped = Command("react", {"id": "Goblin", "kind": "roleplay", "name": "leap",
                               "test": "AGIL", "advantage": 3})  # fmt: skip
    [choice] = StrifeFight().choices(e.state, helped, SeededRng.stream(3, 9))
    assert choice.kind == "approve"


# --- SA-84 Climbing at normal speed (Strength test) -------------------------------------------


def test_sa84_climbing_costs_two_an_inch_and_asks_no_test() -> None:
    e = fight()
    record = run(e, "move", id="Sera", to=[0.0, 0.0, 3.0], mode="climb")
    moved = record.events[-2]
    assert (moved.kind, moved.data["cost"]) == ("moved", 6.0) and not rolls_of(record)


def test_sa84_a_passed_strength_test_climbs_at_normal_speed() -> None:
    """Sera STR 9: a natural 12 makes 21; she climbs 5" for 5 of her Movement 6."""
    e = fight()
    record = run(e, "move", (12,), id="Sera", to=[0.0, 0.0, 5.0], mode="climb",
                 normal_speed=True)  # fmt: skip
    [test] = rolls_of(record)
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert test.data["success"] and test.rule == "SA-84"
    assert (moved.data["moved"], moved.data["cost"]) == (5.0, 5.0)
    assert e.state.models["Sera"].position == (0.0, 0.0, 5.0)


def test_sa84_a_failed_strength_test_climbs_at_the_climbing_rate_and_stops_short() -> None:
    """A natural 11 makes 20: 5" at 2 an inch would cost 10, so she climbs 3" for her 6."""
    e = fight()
    record = run(e, "move", (11,), id="Sera", to=[0.0, 0.0, 5.0], mode="climb",
                 normal_speed=True)  # fmt: skip
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert (moved.data["moved"], moved.data["cost"]) == (3.0, 6.0)
    assert moved.data["stopped"] == "Strength test failed: climbing rate"
    assert e.state.models["Sera"].position == (0.0, 0.0, 3.0)
    replays(e)


def test_sa84_climbing_and_swimming_circumstances_belong_to_their_mode() -> None:
    e = fight()
    refused(e, "climbing test", "move", id="Sera", to=[0.0, 1.0, 0.0], normal_speed=True)
    refused(e, "climbing test", "move", id="Sera", to=[0.0, 1.0, 0.0], mode="swim",
            agility_test=True)  # fmt: skip
    refused(e, "for swimming", "move", id="Sera", to=[0.0, 1.0, 0.0], current="with")
    refused(e, "current", "move", id="Sera", to=[0.0, 1.0, 0.0], mode="swim", current="uphill")
    refused(e, "costs 7.0", "move", id="Sera", to=[0.0, 0.0, 7.0], mode="climb",
            normal_speed=True)  # fmt: skip


# --- SA-85 Slippery and prolonged climbs (Agility and Stamina tests) ---------------------------


def test_sa85_a_failed_agility_test_on_a_slippery_climb_makes_no_headway() -> None:
    """AGIL 16: a natural 4 makes 20 (fails): Sera stays, and her Move is spent."""
    e = fight()
    record = run(e, "move", (4,), id="Sera", to=[0.0, 0.0, 2.0], mode="climb",
                 agility_test=True, difficult=True)  # fmt: skip
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert moved.data["stopped"] == "Agility test failed" and moved.data["moved"] == 0.0
    assert e.state.models["Sera"].position == (0.0, 0.0, 0.0)
    refused(e, "one move", "move", id="Sera", to=[0.0, 1.0, 0.0])
    passed = fight()
    run(passed, "move", (5,), id="Sera", to=[0.0, 0.0, 2.0], mode="climb", agility_test=True,
        difficult=True)  # fmt: skip
    assert passed.state.models["Sera"].position == (0.0, 0.0, 2.0)
    assert passed.state.models["Sera"].movement_spent == 6.0  # slippery: 3 an inch


def climb_turns(e: Encounter[FightState], dice: list[Dice], walk_after: int = -1) -> LogRecord:
    """Sera climbs 6" a Turn at normal speed (one Move each Turn), or walks once."""
    record = None
    for turn, rolled in enumerate(dice):
        if turn:
            to_turn_of(e, "Sera")
        x, y, z = e.state.models["Sera"].position
        if turn == walk_after:
            record = run(e, "move", id="Sera", to=[x + 1.0, y, z])
            continue
        record = run(e, "move", rolled, id="Sera", to=[x, y, z + 6.0], mode="climb",
                     normal_speed=True)  # fmt: skip
    assert record is not None
    return record


def test_sa85_a_climbing_move_beyond_twice_movement_asks_a_stamina_test() -> None:
    """Movement 6: 6" and 12" ask nothing; the Move to 18" asks STAM 10 (natural 5: fails)."""
    e = fight()
    last = climb_turns(e, [(12,), (12,), (12, 5)])
    [strength, stamina] = rolls_of(last)
    assert strength.data["success"]
    assert stamina.data["purpose"] == "prolonged climb Stamina test" and not stamina.data["success"]
    assert has_condition(e.state.models["Sera"].conditions, EXHAUSTION)
    assert e.state.models["Sera"].climbed == 18.0
    rested = fight()
    climb_turns(rested, [(12,), None, (12,), (12,)], walk_after=1)  # the walk ends the climb
    assert rested.state.models["Sera"].climbed == 12.0
    assert not has_condition(rested.state.models["Sera"].conditions, EXHAUSTION)
    replays(e)


# --- SA-86 Swimming and currents --------------------------------------------------------------


def test_sa86_swimming_against_a_current_needs_a_strength_test_to_move_forward() -> None:
    """STR 9: a natural 11 fails (Sera stays), 12 passes (2 an inch)."""
    e = fight()
    record = run(e, "move", (11,), id="Sera", to=[0.0, 3.0, 0.0], mode="swim", current="against")
    assert e.state.models["Sera"].position == (0.0, 0.0, 0.0)
    assert next(ev for ev in record.events if ev.kind == "moved").data["stopped"] == (
        "Strength test failed")  # fmt: skip
    swam = fight()
    run(swam, "move", (12,), id="Sera", to=[0.0, 3.0, 0.0], mode="swim", current="against")
    assert swam.state.models["Sera"].position == (0.0, 3.0, 0.0)
    assert swam.state.models["Sera"].movement_spent == 6.0


def test_sa86_swimming_with_the_current_costs_one_an_inch_without_a_test() -> None:
    e = fight()
    refused(e, "costs 12.0", "move", id="Sera", to=[0.0, 6.0, 0.0], mode="swim")
    record = run(e, "move", id="Sera", to=[0.0, 6.0, 0.0], mode="swim", current="with")
    assert not rolls_of(record) and e.state.models["Sera"].movement_spent == 6.0


# --- SA-87 Sprints and Hustles in a row -------------------------------------------------------


def test_sa87_a_sprint_after_a_turn_without_one_asks_no_stamina_test() -> None:
    e = fight()
    run(e, "whole_turn", id="Sera", kind="sprint", to=[0.0, 12.0, 0.0])
    to_turn_of(e, "Sera")
    run(e, "move", id="Sera", to=[0.0, 13.0, 0.0])
    to_turn_of(e, "Sera")
    record = run(e, "whole_turn", id="Sera", kind="sprint", to=[0.0, 25.0, 0.0])
    assert not rolls_of(record) and e.state.models["Sera"].sprints == 1


def test_sa87_a_hustle_on_the_next_turn_asks_the_stamina_test() -> None:
    e = fight(declare_hiding=True)
    run(e, "whole_turn", id="Sera", kind="sprint", to=[0.0, 6.0, 0.0])
    to_turn_of(e, "Sera")
    record = run(e, "whole_turn", (3,), id="Sera", kind="sprint", to=[0.0, 12.0, 0.0])
    [test] = rolls_of(record)
    assert test.data["purpose"] == "Sprint Stamina test" and not test.data["result"]["success"]
    assert e.state.models["Sera"].sprints == 2
    replays(e)


# --- SA-88 Hiding declared before the fight ---------------------------------------------------


def stealth(e: Encounter[FightState]) -> int:
    return e.state.models["Sera"].sheet.resources[Resource.STEALTH].current


def test_sa88_hide_before_the_start_declares_hiding_and_keeps_stealth() -> None:
    e = fight(declare_hiding=True)
    declared = next(r for r in e.records if r.command is not None and r.command.kind == "hide")
    assert declared.events[0].data == {"id": "Sera", "hidden": True, "declared": True}
    assert stealth(e) == 3 and e.state.models["Sera"].hidden
    assert e.state.models["Sera"].elements == ()  # no Action was spent before the fight
    assert stealth(fight()) == 0


def test_sa88_hiding_is_declared_once() -> None:
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    run(e, "add", (10,), id="Sera", model="Sera", side="heroes", hiding=True)
    refused(e, "already declared", "hide", id="Sera")


def test_sa82_d4_an_approved_advantage_applies_and_a_rejected_one_withdraws_the_reaction() -> None:
    """AGIL 12 + natural 7 = 19 fails; with the Host's approved +3 it makes 22 and passes."""
    leap = {"id": "Goblin", "kind": "roleplay", "name": "leap", "test": "AGIL", "advantage": 3}
    ask = lambda c: Ask(Policy.ASK if c.kind == "approve" else Policy.KEEP)  # noqa: E731
    e = fight()
    e.execute(Command("react", leap, (7,)), asker=ask)
    assert e.pending is not None and e.state.rounds.can_react("Goblin")
    (approve,) = e.pending.open
    last = e.answer(approve.id, "approve", "host", ask)
    [test] = [ev for ev in last.events if ev.kind == "test_resolved"]
    assert test.data["result"]["total"] == 22 and test.data["success"]
    assert not e.state.rounds.can_react("Goblin")
    rejected = fight()
    rejected.execute(Command("react", leap, (7,)), asker=ask)
    assert rejected.pending is not None
    (approve,) = rejected.pending.open
    rejected.answer(approve.id, "reject", "host", ask)
    assert rejected.pending is None and rejected.state.rounds.can_react("Goblin")
    replays(e)


def test_sa87_a_hidden_models_disengage_keeps_half_its_movement() -> None:
    """Sneaking's half and the Disengage Action's half do not compound: 3" of Movement 6."""
    e = fight(goblin_at=1.0, declare_hiding=True)
    refused(e, "half", "disengage", id="Sera", to=[-3.5, 0.0, 0.0])  # 3.5" > 3"
    run(e, "disengage", id="Sera", to=[-3.0, 0.0, 0.0])  # 3"
    assert e.state.models["Sera"].position == (-3.0, 0.0, 0.0)
