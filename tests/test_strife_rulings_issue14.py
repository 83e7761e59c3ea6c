"""Named tests for the Realm of Strife fixes of issue 14 (S-20, S-22, S-24, SA-6 …)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from strife_builders import attack, custom_weapon, refused, sheet, shield, weapon

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import reaction_for
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError
from tableside.strife import reactions
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import Resource, builtin_catalog
from tableside.strife.checks import Contestant, Winner, roll_off_with_naturals
from tableside.strife.damage import DamageBasis
from tableside.strife.loadout import loadout
from tableside.strife.odds import attack_odds
from tableside.strife.odds_oracle import brute_force_attack_odds
from tableside.strife.records import Part
from tableside.strife.ruleset import STANDARD, UNCAPPED_SIZE
from tableside.strife.size import CreatureSize, size_difference

CATALOG = builtin_catalog()
ALDRIC = CATALOG.combatant("Aldric")
GOBLIN = CATALOG.combatant("Goblin")


# --- item 1: S-20 the eleven-step creature-size ladder ---------------------------------------


def test_s20_the_ladder_has_eleven_published_steps() -> None:
    ladder = {size.value: size.modifier for size in CreatureSize}
    assert ladder == {
        "micro": -32, "fine": -16, "diminutive": -8, "tiny": -4, "small": -2, "medium": 0,
        "large": 2, "huge": 4, "massive": 8, "gargantuan": 16, "colossal": 32,
    }  # fmt: skip
    assert size_difference(CreatureSize.MASSIVE, CreatureSize.FINE, UNCAPPED_SIZE) == 24
    assert size_difference(CreatureSize.MASSIVE, CreatureSize.FINE, STANDARD) == 10


def test_s20_a_small_goblin_blocks_at_minus_2() -> None:
    kite = reactions.block(GOBLIN, shield("Kite Shield"))
    test = reactions.reaction_test_with_natural(kite, GOBLIN, ALDRIC, 19, STANDARD)
    assert GOBLIN.size == CreatureSize.SMALL and ALDRIC.size == CreatureSize.MEDIUM
    assert Part("size difference", -2) in test.parts
    assert test.total == 19 + (8 - 10) + 1 - 2  # an untrained Kite Shield: Block 4 ÷ 4 (SA-10)


def test_s20_a_large_model_wins_a_roll_off_by_2_not_4() -> None:
    ogre = Contestant("Ogre", Part("STR", 0), size=CreatureSize.LARGE)
    man = Contestant("Man", Part("STR", 0))
    assert roll_off_with_naturals(ogre, man, (10, 13)).winner == Winner.OPPOSING
    assert roll_off_with_naturals(ogre, man, (10, 12)).winner == Winner.ACTING  # tie


def test_s20_exact_block_odds_of_a_small_defender_follow_the_ladder() -> None:
    """A Small STR 15 defender with a Kite Shield: +5 +4 −2, so naturals 14–19 succeed."""
    defender = sheet("Small Guard", strength=15, size=CreatureSize.SMALL, ac=0)
    setup = AttackSetup(
        attacker=ALDRIC,
        defender=defender,
        weapon=weapon("Long Sword"),
        reaction=reactions.block(defender, shield("Kite Shield")),
    )
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)
    chances = dict(zip(odds.reaction.labels, odds.reaction.probabilities, strict=True))
    assert (chances["success"], chances["critical"]) == (Fraction(6, 20), Fraction(1, 20))


# --- item 3: SA-6 minimum damage is never below 0 -------------------------------------------

WEAKLING = sheet("Weakling", strength=2)  # Strength −2 (S-14)
CUDGEL = custom_weapon("Cudgel", damage="1d4-1", crushing_blow=2)  # minimum 1 − 1 − 2 = −2
SHIELDED = sheet("Shielded", strength=14)  # Kite Shield Block: natural 13 + 4 + 4 = 21


def _blocked() -> AttackSetup:
    return AttackSetup(
        attacker=WEAKLING,
        defender=SHIELDED,
        weapon=CUDGEL,
        reaction=reactions.block(SHIELDED, shield("Kite Shield")),
    )


def test_sa06_a_negative_minimum_damage_does_not_eat_the_crushing_blow() -> None:
    kite = reactions.block(SHIELDED, shield("Kite Shield"))
    result = attack(50, reaction_die=13, attacker=WEAKLING, defender=SHIELDED, weapon_used=CUDGEL,
                    reaction=kite)  # fmt: skip
    assert result.damage is not None and result.damage.basis == DamageBasis.MINIMUM
    assert Part("minimum damage cannot be negative", 2) in result.damage.parts
    assert result.damage.total == 2  # max(0, −2) + Crushing Blow 2


def test_sa06_a_blocked_melee_crit_doubles_the_clamped_minimum_plus_crushing_blow() -> None:
    critter = WEAKLING.model_copy(update={"crit_chance": 5})
    result = attack(98, reaction_die=13, attacker=critter, defender=SHIELDED, weapon_used=CUDGEL,
                    reaction=reactions.block(SHIELDED, shield("Kite Shield")))  # fmt: skip
    assert result.damage is not None and result.damage.total == (0 + 2) * 2


def test_sa06_exact_odds_of_a_blocked_weak_hit_follow_the_clamp() -> None:
    setup = _blocked()
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)
    # Hit 4/5 × Block (success or critical) 8/20: every blocked hit deals exactly 2.
    basis = dict(zip(odds.damage_basis.labels, odds.damage_basis.probabilities, strict=True))
    assert basis["minimum"] == odds.damage.p(2) == Fraction(8, 25)
    # Unblocked hits 12/25 deal max(0, d4 − 3): 1 on a 4 only.
    assert odds.damage.p(1) == Fraction(3, 25)


# --- item 2: S-24 an untrained weapon keeps none of its attributes ---------------------------

UNTRAINED = sheet("Novice", proficiencies=("Swords",))
PIKEMAN = sheet("Pikeman", initiative=4)  # trained in Spears


def test_s24_an_untrained_reach_weapon_can_be_warded_off_by_any_ward_off_weapon() -> None:
    """An untrained Halberd (Reach 2) has base reach, so a Spear (Reach 1) may ward it off."""
    result = attack((), ward_off=(2, 19), attacker=UNTRAINED, defender=PIKEMAN,
                    weapon_used=weapon("Halberd"),
                    reaction=reactions.ward_off(PIKEMAN, weapon("Spear")))  # fmt: skip
    assert result.warded_off and result.use.reach == 0


def test_s24_a_trained_reach_weapon_still_needs_that_reach_to_ward_off() -> None:
    trained = sheet("Halberdier")
    refused(attack, 50, ward_off=(2, 19), attacker=trained, defender=PIKEMAN,
            weapon_used=weapon("Halberd"), reaction=reactions.ward_off(PIKEMAN, weapon("Spear")),
            match="Reach 2")  # fmt: skip


def test_s24_an_untrained_mace_has_no_stun_chance() -> None:
    mace = weapon("Mace")
    assert [e.name for e in mace.effects] == ["Stun"]
    result = attack(50, damage=(4,), attacker=UNTRAINED, weapon_used=mace)
    assert result.effect_rolls == () and result.inflicted == ()
    trained = attack(50, damage=(4,), effects=(1,), weapon_used=mace)
    assert [i.condition.name for i in trained.inflicted] == ["Stun"]


def test_s24_exact_odds_of_an_untrained_mace_put_on_no_stun() -> None:
    setup = AttackSetup(attacker=UNTRAINED, defender=sheet("Target"), weapon=weapon("Mace"))
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)
    assert not any("Stun" in label for label in odds.conditions.labels)
    trained = attack_odds(replace(setup, attacker=sheet("Maceman")))
    assert any("Stun" in label for label in trained.conditions.labels)


def test_s24_an_untrained_weapon_cannot_parry_but_may_parry_improvised() -> None:
    refused(reactions.parry, UNTRAINED, weapon("Dagger"), match="not trained")
    assert reactions.improvised_parry(weapon("Dagger")).improvised


def _spear_fight(proficiencies: list[str]) -> Encounter[FightState]:
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    spearman = {
        "name": "Spearman", "stats": {"STR": 12, "AGIL": 12, "INT": 10, "WIS": 10, "STAM": 10},
        "initiative": 9, "movement": 5, "ac": 10, "hp": 10, "hp_max": 10,
        "proficiencies": proficiencies, "main_hand": "Spear",
    }  # fmt: skip
    e.execute(Command("add", {"id": "Spearman", "sheet": spearman, "side": "heroes"}, (19,)))
    e.execute(Command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters",
                              "position": [1.8, 0.0, 0.0]}, (1,)))  # fmt: skip
    e.execute(Command("start", {}))
    return e


def test_s24_an_untrained_spear_reaches_only_base_contact_in_a_fight() -> None:
    strike = {"attacker": "Spearman", "attacks": [{"defender": "Goblin"}]}
    attack_at_reach = Command("attack", strike, (50, 4))
    trained = _spear_fight(["Spears"])
    trained.execute(attack_at_reach)  # 1.8" ≤ contact 1" + Reach 1
    untrained = _spear_fight(["Swords"])
    with pytest.raises(TablesideError, match="S-24"):
        untrained.execute(attack_at_reach)


def test_s24_the_policy_does_not_parry_with_an_untrained_weapon() -> None:
    e = _spear_fight(["Swords"])
    novice = e.state.models["Spearman"]
    sword = novice.sheet.model_copy(update={"main_hand": "Long Sword", "proficiencies": ()})
    assert reaction_for(CATALOG, e.state, replace(novice, sheet=sword)) is None
    trained = sword.model_copy(update={"proficiencies": ("Swords",)})
    assert reaction_for(CATALOG, e.state, replace(novice, sheet=trained)) == "parry"


# --- item 9: S-22 Stealth starts each fight at 0 unless hiding was declared ------------------


def _sera_fight(hiding: bool) -> Encounter[FightState]:
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    sera = {"id": "Sera", "model": "Sera", "side": "heroes", **({"hiding": True} if hiding else {})}
    e.execute(Command("add", sera, (10,)))
    e.execute(Command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters",
                              "position": [5.0, 0.0, 0.0]}, (10,)))  # fmt: skip
    return e


def _stealth(e: Encounter[FightState]) -> int:
    return e.state.models["Sera"].sheet.resources[Resource.STEALTH].current


def test_s22_stealth_is_reset_to_0_when_a_fight_starts() -> None:
    e = _sera_fight(hiding=False)
    assert _stealth(e) == 3  # Sera's sheet
    record = e.execute(Command("start", {}))
    assert _stealth(e) == 0
    assert e.state.models["Sera"].sheet.resources[Resource.STEALTH].maximum == 5
    assert (record.events[0].kind, record.events[0].rule) == ("resources_set", "S-22")


def test_s22_sa16_hiding_declared_before_the_fight_keeps_stealth() -> None:
    e = _sera_fight(hiding=True)
    e.execute(Command("start", {}))
    assert _stealth(e) == 3 and e.state.models["Sera"].hidden


def test_s22_hiding_cannot_be_declared_with_add_once_the_fight_started() -> None:
    e = _sera_fight(hiding=False)
    e.execute(Command("start", {}))
    late = {"id": "Rogue", "model": "Sera", "side": "heroes", "hiding": True}
    with pytest.raises(TablesideError, match="before the fight starts"):
        e.execute(Command("add", late, (10,)))
    assert "Rogue" not in e.state.models


# --- item 6: Hide is an Action (SA-41); moving while hidden is halved (SA-42) ---------------


def _sera_turn(hidden: bool = False) -> Encounter[FightState]:
    """Sera (Movement 6) on her Turn; the Goblin far away; optionally hidden beforehand."""
    e = _sera_fight(hiding=hidden)
    e.execute(Command("start", {}))
    while e.state.current != "Sera":
        e.execute(Command("next", {}))
    return e


def test_sa41_hide_is_an_action_that_ends_the_turn() -> None:
    e = _sera_turn()
    record = e.execute(Command("hide", {"id": "Sera"}))
    assert e.state.models["Sera"].hidden
    assert ("element_used", "action") in [(ev.kind, ev.data.get("element")) for ev in record.events]
    with pytest.raises(TablesideError, match="ends the Turn"):
        e.execute(Command("move", {"id": "Sera", "to": [0.0, 1.0, 0.0]}))


def test_sa41_hide_after_an_action_is_refused() -> None:
    e = _sera_turn()
    e.execute(Command("whole_turn", {"id": "Sera", "kind": "recover"}))
    with pytest.raises(TablesideError, match="ends the Turn"):
        e.execute(Command("hide", {"id": "Sera"}))


def test_sa42_moving_while_hidden_is_halved() -> None:
    hidden = _sera_turn(hidden=True)
    with pytest.raises(TablesideError, match="SA-42"):
        hidden.execute(Command("move", {"id": "Sera", "to": [0.0, 4.0, 0.0]}))  # 4" > 6 / 2
    hidden.execute(Command("move", {"id": "Sera", "to": [0.0, 3.0, 0.0]}))
    visible = _sera_turn()
    visible.execute(Command("move", {"id": "Sera", "to": [0.0, 4.0, 0.0]}))


def test_sa42_a_hustle_cancels_the_halving_of_sneaking() -> None:
    hidden = _sera_turn(hidden=True)
    sprint = {"id": "Sera", "kind": "sprint"}
    with pytest.raises(TablesideError, match="Hustle"):
        hidden.execute(Command("whole_turn", {**sprint, "to": [0.0, 7.0, 0.0]}))  # > Movement 6
    hidden.execute(Command("whole_turn", {**sprint, "to": [0.0, 6.0, 0.0]}))
    visible = _sera_turn()
    visible.execute(Command("whole_turn", {**sprint, "to": [0.0, 12.0, 0.0]}))  # 2 × Movement


# --- item 8: S-4 an out-of-turn Instant bars only the next Turn's Instant (SA-43) ------------


def _to_seras_turn_after_an_out_of_turn_instant() -> Encounter[FightState]:
    e = _sera_fight(hiding=False)
    e.execute(Command("start", {}))
    while e.state.current == "Sera":
        e.execute(Command("next", {}))
    e.execute(Command("instant", {"id": "Sera", "name": "Swift Kick"}))  # out of turn
    while e.state.current != "Sera":
        e.execute(Command("next", {}))
    return e


def test_sa43_a_whole_turn_after_an_out_of_turn_instant_is_allowed() -> None:
    e = _to_seras_turn_after_an_out_of_turn_instant()
    e.execute(Command("host_set", {"id": "Sera", "field": "hp", "value": 20}))
    e.execute(Command("whole_turn", {"id": "Sera", "kind": "recover"}))
    assert e.state.models["Sera"].sheet.hp == 21


def test_s04_an_out_of_turn_instant_bars_only_that_turns_instant() -> None:
    e = _to_seras_turn_after_an_out_of_turn_instant()
    with pytest.raises(TablesideError, match="one instant out of turn"):
        e.execute(Command("instant", {"id": "Sera", "name": "Potion"}))
    e.execute(Command("move", {"id": "Sera", "to": [0.0, 2.0, 0.0]}))
    e.execute(Command("hide", {"id": "Sera"}))  # the Action
    assert e.state.models["Sera"].elements == ("instant", "move", "action")


# --- item 7: S-19 Roll with the Blow: directly backward; −10 this round if still to come -----


def _duel() -> Encounter[FightState]:
    """Goblin (score 18) at 1" from Aldric (14) at the origin; Sera (10) 5" away."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    roster = (("Aldric", "heroes", (0.0, 0.0), 10), ("Sera", "heroes", (0.0, 5.0), 2),
              ("Goblin", "monsters", (1.0, 0.0), 12))  # fmt: skip
    for name, side, at, d20 in roster:
        args = {"id": name, "model": name, "side": side, "position": [*at, 0.0]}
        e.execute(Command("add", args, (d20,)))
    e.execute(Command("start", {}))
    assert e.state.order == ("Goblin", "Aldric", "Sera")
    return e


def _goblin_hits_aldric(e: Encounter[FightState]) -> None:
    e.execute(Command("attack", {"attacker": "Goblin", "attacks": [{"defender": "Aldric"}]},
                      (60, 6)))  # fmt: skip


def test_s19_roll_with_the_blow_only_directly_backward() -> None:
    e = _duel()
    _goblin_hits_aldric(e)
    for sideways in ([0.0, 2.0, 0.0], [-1.5, 1.5, 0.0], [0.5, 0.0, 0.0]):
        with pytest.raises(TablesideError, match="directly backward"):
            e.execute(Command("roll_with_the_blow", {"id": "Aldric", "to": sideways}))
    e.execute(Command("roll_with_the_blow", {"id": "Aldric", "to": [-2.0, 0.0, 0.0]}))
    assert e.state.models["Aldric"].position == (-2.0, 0.0, 0.0)


def test_s19_the_initiative_penalty_applies_this_round_when_the_turn_is_still_to_come() -> None:
    e = _duel()
    _goblin_hits_aldric(e)
    e.execute(Command("roll_with_the_blow", {"id": "Aldric", "to": [-2.0, 0.0, 0.0]}))
    assert e.state.order == ("Goblin", "Sera", "Aldric")  # this round: 14 − 10 = 4 < 10
    for _ in range(3):
        e.execute(Command("next", {}))
    assert (e.state.round, e.state.order) == (2, ("Goblin", "Aldric", "Sera"))  # spent


def test_s19_a_model_that_already_took_its_turn_pays_next_round() -> None:
    e = _duel()
    e.execute(Command("next", {}))  # Aldric's Turn: he walks away and the Goblin strikes
    e.execute(Command("move", {"id": "Aldric", "to": [-2.0, 0.0, 0.0]}))
    e.execute(Command("aoo", {"attacker": "Goblin", "target": "Aldric", "weapon": "Spear"},
                      (60, 6)))  # fmt: skip
    e.execute(Command("roll_with_the_blow", {"id": "Aldric", "to": [-4.0, 0.0, 0.0]}))
    assert e.state.order == ("Goblin", "Aldric", "Sera")  # this round is unchanged
    e.execute(Command("next", {}))
    e.execute(Command("next", {}))
    assert (e.state.round, e.state.order) == (2, ("Goblin", "Sera", "Aldric"))


# --- item 11: S-16 `fight show` gives the AC attacks use ---------------------------------------


def test_s16_fight_show_gives_aldric_the_armoured_ac_attacks_use() -> None:
    """S-16: Aldric's sheet AC is 10; with his armour attacks use 30, and so does the view."""
    from tableside.cli.fight_render import models_table
    from tableside.encounter.views import fight_json
    from tableside.strife.loadout import effective_ac

    e: Encounter[FightState] = Encounter(StrifeFight(), 1)
    e.execute(Command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes"}))
    assert ALDRIC.ac == 10
    assert effective_ac(CATALOG, ALDRIC).value == 30  # what fight.attack_setup uses
    view = fight_json(e.state, e.revision)["models"][0]
    assert view["ac"] == 30 and view["movement"] == ALDRIC.movement
    cells = [str(cell) for cell in models_table(e.state).columns[3].cells]
    assert cells == ["30"]


# --- item 12: weapons held (SA-45) and move costs in inches --------------------------------------


def _armed_duel() -> Encounter[FightState]:
    e: Encounter[FightState] = Encounter(StrifeFight(), 1)
    e.execute(Command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes"}))
    e.execute(
        Command(
            "add", {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}
        )
    )
    e.execute(Command("start", {}))
    return e


def test_sa45_an_attack_with_a_weapon_the_model_does_not_hold_is_refused() -> None:
    """SA-45: naming a catalogue weapon the attacker does not hold is refused, nothing applied."""
    e = _armed_duel()
    actor = e.state.current
    assert actor is not None
    other = "Goblin" if actor == "Aldric" else "Aldric"
    held = {w.name for w in loadout(CATALOG, e.state.models[actor].sheet).weapons}
    stranger = next(w for w in ("Halberd", "Spear", "Mace", "Dagger") if w not in held)
    before = e.revision
    with pytest.raises(TablesideError, match=rf"{actor} does not hold a {stranger}: it holds"):
        e.execute(
            Command(
                "attack", {"attacker": actor, "attacks": [{"defender": other, "weapon": stranger}]}
            )
        )
    assert e.revision == before


def test_s06_a_move_cost_refusal_gives_inches_not_fractions() -> None:
    """S-6: the refusal of a path beyond Movement reads in decimal inches."""
    from tableside.strife.movement import Leg, check_path

    with pytest.raises(TablesideError, match=r"costs 5\.1 inches of movement but Movement is 5"):
        check_path(5, [Leg(Fraction(464, 91))])


# --- items 4 and 5: attack allowance (SA-46), penalties in fights (SA-47), contact (SA-48) -------


def _sheet_fight(
    hero: dict[str, object], at: tuple[float, float, float] = (0.0, 0.0, 0.0)
) -> Encounter[FightState]:
    """Sera from a changed sheet (hero first in the order), and a Goblin 1" away."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 1)
    sheet = CATALOG.combatant("Sera").model_copy(update=hero).model_dump(mode="json")
    e.execute(Command("add", {"id": "Sera", "sheet": sheet, "side": "heroes",
                              "position": list(at)}, (20,)))  # fmt: skip
    e.execute(Command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters",
                              "position": [1.0, 0.0, 0.0]}, (1,)))  # fmt: skip
    e.execute(Command("start", {}))
    assert e.state.current == "Sera"
    return e


def _setup(e: Encounter[FightState], weapon: str | None = None) -> AttackSetup:
    from tableside.encounter.strife import args, attack, turns

    item = args.AttackItem(defender="Goblin", weapon=weapon)
    game = e.game
    assert isinstance(game, StrifeFight)
    return attack.attack_setup(game, turns.Pending(e.state), e.state.models["Sera"], item)


def test_sa46_two_daggers_attack_once_each_and_no_more() -> None:
    """SA-46: Sera holds two Daggers: two attacks per Action, a third is refused."""
    e = _sheet_fight({})
    two = [{"defender": "Goblin"}] * 2
    with pytest.raises(TablesideError, match=r"may make 2 attack\(s\).*not 3 \(SA-46\)"):
        e.execute(Command("attack", {"attacker": "Sera", "attacks": [*two, two[0]]}))
    record = e.execute(Command("attack", {"attacker": "Sera", "attacks": two}))
    assert [ev.kind for ev in record.events].count("attack_resolved") == 2


def test_sa47_an_unskilled_sword_and_dagger_are_clumsy_and_cannot_crit() -> None:
    """S-16, SA-47: dual wielding beyond two Small weapons without the skill, in a fight."""
    from tableside.strife.penalties import weapon_use

    e = _sheet_fight(
        {"main_hand": "Long Sword", "skills": (), "proficiencies": ("Swords", "Daggers")}
    )
    setup = _setup(e)
    assert setup.context.other_hand is not None and setup.context.other_hand.name == "Dagger"
    use = weapon_use(setup.attacker, setup.weapon, setup.context)
    assert Part("Clumsy (dual wielding) −10 × size M", -20) in use.parts
    assert not use.can_crit
    skilled = _setup(_sheet_fight({"main_hand": "Long Sword"}))  # Sera has Dual Wield
    assert weapon_use(skilled.attacker, skilled.weapon, skilled.context).can_crit


def test_sa47_moving_then_shooting_costs_5_per_inch_and_flying_5_more() -> None:
    """S-16, SA-26, SA-47: the inches moved this Turn and flight (a sheet that can fly, SA-93)."""
    from tableside.strife.penalties import weapon_use

    kit: dict[str, object] = {"main_hand": "Short Bow", "off_hand": None, "can_fly": True}
    e = _sheet_fight(kit, at=(-6.0, 0.0, 2.0))
    e.execute(Command("move", {"id": "Sera", "to": [-9.0, 0.0, 2.0]}))
    setup = _setup(e)
    assert setup.context.inches_moved == 3 and setup.context.flying
    parts = weapon_use(setup.attacker, setup.weapon, setup.context).parts
    assert Part('moving and shooting (3")', -15) in parts
    assert Part("flying shooter", -5) in parts


def test_sa48_no_ranged_attack_on_a_target_in_base_contact() -> None:
    """SA-48: a Short Bow cannot shoot the Goblin in base contact; nothing is applied."""
    e = _sheet_fight({"main_hand": "Short Bow", "off_hand": None})
    before = e.revision
    with pytest.raises(TablesideError, match=r"cannot shoot Goblin with Short Bow.*SA-48"):
        e.execute(Command("attack", {"attacker": "Sera", "attacks": [{"defender": "Goblin"}]}))
    assert e.revision == before


# --- item 14: thrown attacks in fights (SA-69) ---------------------------------------------------


def test_sa69_sera_throws_a_dagger_within_its_thrown_range_as_a_ranged_attack() -> None:
    """SA-69, S-16: a Dagger (Thrown 6") reaches 5" away; 7" is out of range; not in contact."""
    e = _sheet_fight({}, at=(-4.0, 0.0, 0.0))  # 5" from the Goblin
    setup = _setup_thrown(e)
    assert setup.context.thrown and setup.ranged
    near = _sheet_fight({})  # 1" away: base contact
    with pytest.raises(TablesideError, match=r"cannot throw Dagger at Goblin.*SA-48"):
        near.execute(Command("attack", {"attacker": "Sera", "attacks": [
            {"defender": "Goblin", "thrown": True}]}))  # fmt: skip
    far = _sheet_fight({}, at=(-6.0, 0.0, 0.0))
    with pytest.raises(TablesideError, match=r'7\.0" away, beyond the range of Dagger thrown'):
        far.execute(Command("attack", {"attacker": "Sera", "attacks": [
            {"defender": "Goblin", "thrown": True}]}))  # fmt: skip
    record = e.execute(Command("attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin", "thrown": True}]}))  # fmt: skip
    assert [ev.kind for ev in record.events].count("attack_resolved") == 1


def test_sa69_an_untrained_thrower_has_half_the_thrown_range() -> None:
    """S-16: without the Daggers proficiency the Dagger's 6" Thrown range is halved to 3"."""
    e = _sheet_fight({"proficiencies": ("Bows",)}, at=(-3.0, 0.0, 0.0))  # 4" away
    with pytest.raises(TablesideError, match=r'beyond the range of Dagger thrown \(3"\)'):
        e.execute(Command("attack", {"attacker": "Sera", "attacks": [
            {"defender": "Goblin", "thrown": True}]}))  # fmt: skip


def _setup_thrown(e: Encounter[FightState]) -> AttackSetup:
    from tableside.encounter.strife import args, attack, turns

    item = args.AttackItem(defender="Goblin", thrown=True)
    game = e.game
    assert isinstance(game, StrifeFight)
    return attack.attack_setup(game, turns.Pending(e.state), e.state.models["Sera"], item)
