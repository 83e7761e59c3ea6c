"""A Realm of Strife fight on the encounter engine: S-3, S-4, S-5, S-6, S-17 … S-19, S-22, S-23."""

from __future__ import annotations

from typing import Any

import pytest

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError
from tableside.strife.catalog import Pool, Resource, builtin_catalog

CATALOG = builtin_catalog()


def fight(seed: int = 3) -> Encounter[FightState]:
    return Encounter(StrifeFight(), seed)


def do(
    e: Encounter[FightState], kind: str, dice: tuple[int, ...] | None = None, /, **args: Any
) -> LogRecord:
    return e.execute(Command(kind, args, dice))


def add(
    e: Encounter[FightState], name: str, model: str, side: str, at: tuple[float, float], d20: int
) -> None:
    do(e, "add", (d20,), id=name, model=model, side=side, position=[at[0], at[1], 0.0])


def duel(ambush: str | None = None) -> Encounter[FightState]:
    """Aldric (Initiative 4) and Sera (8) against a Goblin (6) in contact with Aldric."""
    e = fight()
    add(e, "Aldric", "Aldric", "heroes", (0, 0), 10)  # score 14
    add(e, "Sera", "Sera", "heroes", (0, 5), 2)  # score 10
    add(e, "Goblin", "Goblin", "monsters", (1, 0), 12)  # score 18
    do(e, "start", ambush=ambush) if ambush else do(e, "start")
    return e


def test_s3_initiative_scores_rolled_on_joining_and_s4_highest_first() -> None:
    e = duel()
    scores = {m.id: m.score for m in e.state.models.values()}
    assert scores == {"Aldric": 14, "Sera": 10, "Goblin": 18}
    assert e.state.order == ("Goblin", "Aldric", "Sera")
    assert e.state.current == "Goblin"


def test_s4_an_ambush_gives_the_ambushers_a_free_round() -> None:
    e = duel(ambush="heroes")
    assert (e.state.round, e.state.order, e.state.current) == (0, ("Aldric", "Sera"), "Aldric")
    do(e, "next")
    do(e, "next")
    assert (e.state.round, e.state.current) == (1, "Goblin")


def test_s4_one_model_per_side_may_go_to_the_bottom_of_the_queue() -> None:
    e = duel()
    do(e, "next")  # Goblin → Aldric
    do(e, "bottom", id="Aldric")
    assert e.state.order == ("Goblin", "Sera", "Aldric") and e.state.current == "Sera"
    with pytest.raises(TablesideError, match="one model per side"):
        do(e, "bottom", id="Sera")


def extra_duel(name: str, extra: int) -> Encounter[FightState]:
    """The duel, with ``name`` added from a sheet with ``extra`` attacks per Action (SA-46)."""
    e = fight()
    rolls = {"Aldric": 10, "Sera": 2, "Goblin": 12}
    places = {"Aldric": (0.0, 0.0), "Sera": (0.0, 5.0), "Goblin": (1.0, 0.0)}
    for who, side in (("Aldric", "heroes"), ("Sera", "heroes"), ("Goblin", "monsters")):
        at = [*places[who], 0.0]
        if who == name:
            sheet = CATALOG.combatant(who).model_copy(update={"extra_attacks": extra})
            do(e, "add", (rolls[who],), id=who, sheet=sheet.model_dump(mode="json"), side=side,
               position=at)  # fmt: skip
        else:
            do(e, "add", (rolls[who],), id=who, model=who, side=side, position=at)
    do(e, "start")
    return e


def test_s4_one_reaction_per_round() -> None:
    e = extra_duel("Goblin", 1)
    twice = [{"defender": "Aldric", "reaction": "block"}] * 2
    with pytest.raises(TablesideError, match="already used its Reaction"):
        do(e, "attack", attacker="Goblin", attacks=twice)
    assert e.state.rounds.can_react("Aldric")  # the refused Action changed nothing
    do(e, "attack", attacker="Goblin", attacks=[{"defender": "Aldric", "reaction": "block"}])
    assert not e.state.rounds.can_react("Aldric")
    do(e, "next")  # Aldric's own Turn: still the same round
    do(e, "next")
    do(e, "next")  # round 2: Reactions come back
    assert e.state.round == 2 and e.state.rounds.can_react("Aldric")


def test_s4_an_out_of_turn_instant_uses_up_the_next_turns_instant() -> None:
    e = duel()
    do(e, "instant", id="Sera", name="Swift Kick")  # Goblin's Turn: out of turn
    do(e, "next")
    do(e, "next")  # Sera's Turn
    with pytest.raises(TablesideError, match="one instant"):
        do(e, "instant", id="Sera", name="Potion")


def test_s5_one_move_one_instant_one_action_that_ends_the_turn() -> None:
    e = duel()
    do(e, "instant", id="Goblin", name="shout")
    with pytest.raises(TablesideError, match="one instant"):
        do(e, "instant", id="Goblin", name="shout again")
    do(e, "attack", (3,), attacker="Goblin", attacks=[{"defender": "Aldric"}])  # critical miss
    with pytest.raises(TablesideError, match="ends the Turn"):
        do(e, "move", id="Goblin", to=[2.0, 0.0, 0.0])


def test_s5_recover_is_a_whole_turn() -> None:
    e = duel()
    do(e, "host_set", id="Goblin", field="hp", value=5)
    do(e, "whole_turn", id="Goblin", kind="recover")
    assert e.state.models["Goblin"].sheet.hp == 6
    with pytest.raises(TablesideError):
        do(e, "move", id="Goblin", to=[2.0, 0.0, 0.0])


def test_s5_consecutive_sprints_need_a_stamina_test() -> None:
    e = duel()
    do(e, "next")
    do(e, "next")
    do(e, "whole_turn", id="Sera", kind="sprint", to=[0.0, 15.0, 0.0])  # 2 × Movement 6
    for _ in range(3):
        do(e, "next")
    do(e, "whole_turn", (2,), id="Sera", kind="sprint", to=[0.0, 25.0, 0.0])  # d20 2 fails
    names = [c.name for c in e.state.models["Sera"].conditions]
    assert names == ["Exhaustion"]


def test_s6_movement_costs_and_knocked_down_crawls() -> None:
    e = duel()
    with pytest.raises(TablesideError, match="Movement is 5"):
        do(e, "move", id="Goblin", to=[1.0, 3.0, 0.0], difficult=True)  # 3" × 2
    do(e, "condition", id="Goblin", name="Knocked Down", source="trip")
    with pytest.raises(TablesideError, match="Movement is 5"):
        do(e, "move", id="Goblin", to=[1.0, 3.0, 0.0])  # crawling: 3" × 2


def test_s17_four_three_two_for_player_characters() -> None:
    e = extra_duel("Aldric", 3)
    do(e, "next")
    with pytest.raises(TablesideError, match="S-17"):
        do(e, "attack", attacker="Aldric", attacks=[{"defender": "Goblin"}] * 3)


def test_sa46_one_attack_with_each_weapon_held_per_action() -> None:
    """SA-46: Aldric holds one Long Sword: one attack per Action, not two; nothing applied."""
    e = duel()
    do(e, "next")
    before = e.revision
    with pytest.raises(TablesideError, match=r"may make 1 attack\(s\) in one Action.*SA-46"):
        do(e, "attack", attacker="Aldric", attacks=[{"defender": "Goblin"}] * 2)
    assert e.revision == before


def test_sa46_extra_attacks_still_use_a_weapon_once_without_them() -> None:
    """SA-46: an extra attack lets a weapon attack twice; 4-3-2 stays the ceiling (S-17)."""
    e = extra_duel("Aldric", 1)
    do(e, "next")
    record = do(e, "attack", attacker="Aldric", attacks=[{"defender": "Goblin"}] * 2)
    assert [ev.kind for ev in record.events].count("attack_resolved") == 2


def test_s18_disengaging_offers_attacks_of_opportunity_once_per_weapon() -> None:
    e = duel()
    do(e, "next")  # Aldric's Turn, in contact with the Goblin
    record = do(e, "move", id="Aldric", to=[-4.0, 0.0, 0.0])
    offers = [ev.data["offers"] for ev in record.events if ev.kind == "aoo_offered"]
    assert offers == [[{"attacker": "Goblin", "weapon": "Spear", "target": "Aldric"}]]
    do(e, "aoo", (40, 5), attacker="Goblin", target="Aldric", weapon="Spear")
    assert not e.state.rounds.can_react("Goblin")
    with pytest.raises(TablesideError, match="no Attack of Opportunity"):
        do(e, "aoo", (40, 5), attacker="Goblin", target="Aldric", weapon="Spear")


def test_s18_forced_movement_never_provokes() -> None:
    e = duel()
    do(e, "attack", (60, 6), attacker="Goblin", attacks=[{"defender": "Aldric"}])
    record = do(e, "roll_with_the_blow", id="Aldric", to=[-2.0, 0.0, 0.0])
    assert "aoo_offered" not in [ev.kind for ev in record.events]


def test_s19_roll_with_the_blow_moves_back_knocks_down_and_costs_initiative() -> None:
    e = duel()
    do(e, "attack", (60, 6), attacker="Goblin", attacks=[{"defender": "Aldric"}])
    with pytest.raises(TablesideError, match=r"at most 2\.5"):
        do(e, "roll_with_the_blow", id="Aldric", to=[-3.0, 0.0, 0.0])
    do(e, "roll_with_the_blow", id="Aldric", to=[-2.0, 0.0, 0.0])
    aldric = e.state.models["Aldric"]
    assert aldric.conditions[0].name == "Knocked Down"
    # Aldric's Turn is still to come this round: 14 − 10 = 4 < 10 now (S-19, SA-44).
    assert e.state.order == ("Goblin", "Sera", "Aldric") and aldric.initiative_penalty == 0


def test_s19_not_without_damage_first() -> None:
    e = duel()
    with pytest.raises(TablesideError, match="right after taking damage"):
        do(e, "roll_with_the_blow", id="Aldric", to=[-1.0, 0.0, 0.0])


def test_s23_conditions_with_durations_tick_by_round() -> None:
    e = duel()
    do(e, "condition", id="Goblin", name="Stun", rounds=1, source="Mace")
    assert e.state.models["Goblin"].conditions[0].rounds_left == 1
    for _ in range(3):
        do(e, "next")
    do(e, "next")  # round 2 begins: the Stun has run out
    assert e.state.models["Goblin"].conditions == ()


def test_s22_end_of_combat_restores_vigor() -> None:
    e = duel()
    do(e, "end_combat")
    assert e.state.ended
    pools = e.state.models["Aldric"].sheet.resources
    assert pools["Vigor"].current == pools["Vigor"].maximum  # type: ignore[index]


def test_undo_redo_and_replay_of_a_fight() -> None:
    e = duel()
    do(e, "attack", (60, 6), attacker="Goblin", attacks=[{"defender": "Aldric"}])
    hp = e.state.models["Aldric"].sheet.hp
    e.undo()
    assert e.state.models["Aldric"].sheet.hp == 30
    e.redo()
    assert e.state.models["Aldric"].sheet.hp == hp
    assert e.verify_replay().state == e.state


def test_bad_commands_are_refused_cleanly() -> None:
    e = duel()
    before = (e.revision, e.state)
    for kind, args in (("attack", {"attacker": "Ghost", "attacks": [{"defender": "Aldric"}]}),
                       ("move", {"id": "Aldric", "to": [1, 1, 0]}),
                       ("bottom", {"id": "Sera"}), ("dance", {})):  # fmt: skip
        with pytest.raises(TablesideError):
            e.execute(Command(kind, args))
    assert (e.revision, e.state) == before


def test_s8_s15_a_cast_on_two_targets_shares_the_spell_power() -> None:
    e = fight()
    add(e, "Sera", "Sera", "heroes", (0, 0), 19)
    add(e, "Goblin-1", "Goblin", "monsters", (5, 0), 1)
    add(e, "Goblin-2", "Goblin", "monsters", (5, 2), 1)
    do(e, "start")
    # one casting d100 (80) for the power (SA-49), then 1d4 damage for each target; spell power
    # 3 over 2 hits → 2 each
    record = do(e, "cast", (80, 2, 3), caster="Sera", targets=["Goblin-1", "Goblin-2"],
                power="Shadow Bolt", element="shadow", damage="1d4", spell_power=3)  # fmt: skip
    casts = [ev.data for ev in record.events if ev.kind == "cast_resolved"]
    assert [c["spell_power"] for c in casts] == [2, 2]
    hp = {m.id: m.sheet.hp for m in e.state.models.values()}
    assert hp["Goblin-1"] == 8 - (2 + 2) and hp["Goblin-2"] == 8 - (3 + 2)


def three_goblins_and_sera() -> Encounter[FightState]:
    e = fight()
    add(e, "Sera", "Sera", "heroes", (0, 0), 19)
    add(e, "Goblin-1", "Goblin", "monsters", (5, 0), 1)
    add(e, "Goblin-2", "Goblin", "monsters", (5, 2), 1)
    do(e, "start")
    return e


def test_sa49_separate_rolls_roll_the_casting_d100_for_each_target() -> None:
    """SA-49: with ``separate_rolls`` each target has its own casting roll."""
    e = three_goblins_and_sera()
    record = do(e, "cast", (80, 2, 3), caster="Sera", targets=["Goblin-1", "Goblin-2"],
                power="Shadow Bolt", element="shadow", damage="1d4",
                separate_rolls=True)  # fmt: skip
    casts = [ev.data for ev in record.events if ev.kind == "cast_resolved"]
    assert len(casts) == 2
    hp = {m.id: m.sheet.hp for m in e.state.models.values()}
    assert hp["Goblin-1"] == 8 - 2 and hp["Goblin-2"] == 8  # the second casting roll (3) missed


def test_sa49_a_miscast_of_a_one_roll_power_is_the_whole_cast() -> None:
    """SA-49: one casting roll of 1 miscasts against every target; no damage dice are rolled."""
    e = three_goblins_and_sera()
    record = do(e, "cast", (1,), caster="Sera", targets=["Goblin-1", "Goblin-2"],
                power="Shadow Bolt", element="shadow", damage="1d4")  # fmt: skip
    casts = [ev.data for ev in record.events if ev.kind == "cast_resolved"]
    assert len(casts) == 2
    assert {m.sheet.hp for m in e.state.models.values() if m.side == "monsters"} == {8}


def test_sa49_the_power_cost_is_spent_even_on_a_miscast() -> None:
    """SA-49: the cost comes off the caster's resource first; too little is refused."""
    e = fight()
    sheet = CATALOG.combatant("Sera").model_copy(
        update={"resources": {Resource.SPIRIT: Pool(current=5, maximum=10)}}
    )
    do(e, "add", (19,), id="Sera", sheet=sheet.model_dump(mode="json"), side="heroes",
       position=[0.0, 0.0, 0.0])  # fmt: skip
    add(e, "Goblin-1", "Goblin", "monsters", (5, 0), 1)
    do(e, "start")
    before = e.revision
    with pytest.raises(TablesideError, match=r"Sera has 5 Spirit, not the 6 Shadow Bolt costs"):
        do(e, "cast", (1,), caster="Sera", targets=["Goblin-1"], power="Shadow Bolt",
           element="shadow", cost=6, resource="Spirit")  # fmt: skip
    assert e.revision == before
    record = do(e, "cast", (1,), caster="Sera", targets=["Goblin-1"], power="Shadow Bolt",
                element="shadow", damage="1d4", cost=4, resource="Spirit")  # fmt: skip
    assert record.events[1].kind == "resources_set" and record.events[1].rule == "SA-49"
    assert e.state.models["Sera"].sheet.resources[Resource.SPIRIT].current == 1


def test_a_cast_with_an_unknown_element_is_refused() -> None:
    e = duel()
    with pytest.raises(TablesideError, match="element"):
        do(e, "cast", caster="Goblin", targets=["Aldric"], power="Zap", element="plasma")


def test_sa37_melee_needs_contact_and_ranged_its_range() -> None:
    e = fight()
    add(e, "Aldric", "Aldric", "heroes", (0, 0), 19)
    add(e, "Goblin", "Goblin", "monsters", (4, 0), 1)
    do(e, "start")
    with pytest.raises(TablesideError, match="base contact"):
        do(e, "attack", attacker="Aldric", attacks=[{"defender": "Goblin"}])


def test_sa50_a_1_round_condition_put_on_after_its_victim_acted_lasts_its_next_turn() -> None:
    """SA-50: Aldric acted; a 1-round Stun put on him then lasts through his next Turn."""
    e = duel()  # Goblin, Aldric, Sera
    do(e, "next")  # Goblin → Aldric
    do(e, "next")  # Aldric → Sera: Aldric has acted this round
    do(e, "condition", id="Aldric", name="Stun", rounds=1, source="spell")
    do(e, "next")  # Sera → round 2: Goblin
    do(e, "next")  # Goblin → Aldric
    assert e.state.current == "Aldric"
    assert [c.name for c in e.state.models["Aldric"].conditions] == ["Stun"]
    record = do(e, "next")  # Aldric's Turn ends
    assert ("conditions_ticked", "SA-50") in [(ev.kind, ev.rule) for ev in record.events]
    assert e.state.models["Aldric"].conditions == ()


def test_sa50_a_condition_put_on_during_the_victims_own_turn_counts_from_its_next() -> None:
    """SA-50: a 1-round condition taken on one's own Turn still covers the next Turn."""
    e = duel()
    do(e, "next")  # Aldric's Turn
    do(e, "condition", id="Aldric", name="Vulnerable", rounds=1, source="trap")
    do(e, "next")  # Aldric's Turn ends: the fresh condition does not tick
    assert [c.name for c in e.state.models["Aldric"].conditions] == ["Vulnerable"]
    do(e, "next")  # Sera → round 2: Goblin
    do(e, "next")  # Goblin → Aldric: his next Turn, still Vulnerable
    assert e.state.current == "Aldric"
    assert [c.name for c in e.state.models["Aldric"].conditions] == ["Vulnerable"]
    do(e, "next")  # Aldric's next Turn ends
    assert e.state.models["Aldric"].conditions == ()


def test_sa51_a_move_resumes_after_an_instant_made_during_it() -> None:
    """SA-51: Move 2", an Instant, then the rest of the Move: 3" more, not 4"; one Move."""
    e = duel()
    do(e, "next")
    do(e, "next")  # Sera (Movement 6), 5" from Aldric
    do(e, "move", id="Sera", to=[0.0, 7.0, 0.0])
    do(e, "instant", id="Sera", name="Quick Draw")
    before = e.revision
    with pytest.raises(TablesideError, match=r"only 4\.0 of Sera's Movement 6 is left.*SA-51"):
        do(e, "move", id="Sera", to=[0.0, 12.0, 0.0])
    assert e.revision == before
    record = do(e, "move", id="Sera", to=[0.0, 11.0, 0.0])
    assert record.events[0].data["resumed"] and record.events[0].data["cost"] == 4.0
    assert e.state.models["Sera"].moved == 6.0  # both legs count for moving and shooting
    with pytest.raises(TablesideError, match=r"only 0\.0 of Sera's Movement 6 is left"):
        do(e, "move", id="Sera", to=[0.0, 11.5, 0.0])


def test_sa51_without_an_instant_a_second_move_is_refused() -> None:
    """S-5: one Move a Turn; only an Instant during it lets the Move resume (SA-51)."""
    e = duel()
    do(e, "next")
    do(e, "next")
    do(e, "move", id="Sera", to=[0.0, 7.0, 0.0])
    with pytest.raises(TablesideError, match="one move"):
        do(e, "move", id="Sera", to=[0.0, 8.0, 0.0])


def test_sa52_the_disengage_action_leaves_contact_without_attacks_of_opportunity() -> None:
    """S-6, S-18, SA-52: half Movement, no AoO offered, and the Action ends the Turn."""
    e = duel()
    do(e, "next")  # Aldric (Movement 5), in contact with the Goblin
    with pytest.raises(TablesideError, match=r'at most half of Aldric\'s Movement \(2\.5"\)'):
        do(e, "disengage", id="Aldric", to=[-3.0, 0.0, 0.0])
    record = do(e, "disengage", id="Aldric", to=[-1.5, 0.0, 0.0])
    assert "aoo_offered" not in [ev.kind for ev in record.events]
    assert e.state.offers == ()
    with pytest.raises(TablesideError, match="Action, which ends the Turn"):
        do(e, "move", id="Aldric", to=[-2.0, 0.0, 0.0])


def test_sa52_no_disengage_action_after_moving() -> None:
    """S-6: a Disengage Action is only possible before moving this Turn."""
    e = duel()
    do(e, "next")
    do(e, "move", id="Aldric", to=[0.0, -0.5, 0.0])
    with pytest.raises(TablesideError, match="only possible before moving"):
        do(e, "disengage", id="Aldric", to=[-1.5, 0.0, 0.0])
