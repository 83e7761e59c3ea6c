"""Named tests for issue 14 item 14: forced movement, thrown weapons, Shield Blow, crushing
injury, situational modifiers, underwater and flying combat in fights (SA-70 … SA-77), climbers
not flying (SA-90) and taunts binding powers and Attacks of Opportunity (SA-91)."""

from __future__ import annotations

from typing import Any

import pytest
from strife_builders import refused

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, Event
from tableside.encounter.strife.args import AttackArgs, AttackItem
from tableside.encounter.strife.attack import attack_setup, penalty_context
from tableside.encounter.strife.choices import attack_approval
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.majesty.geometry import distance
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.odds import attack_odds
from tableside.strife.odds_oracle import brute_force_attack_odds
from tableside.strife.penalties import ClumsySource, weapon_use
from tableside.strife.records import Part

CATALOG = builtin_catalog()
Spot = tuple[float, float, float]


def _fight(
    *others: tuple[str, str, str, Spot],
    hero: dict[str, Any] | None = None,
    hero_name: str = "Aldric",
    at: Spot = (0.0, 0.0, 0.0),
) -> Encounter[FightState]:
    """The hero (first in the order) at ``at``, a Goblin 1" away, and any ``others``."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    sheet = CATALOG.combatant(hero_name).model_copy(update=hero or {}).model_dump(mode="json")
    e.execute(Command("add", {"id": hero_name, "sheet": sheet, "side": "heroes",
                              "position": list(at)}, (20,)))  # fmt: skip
    e.execute(Command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters",
                              "position": [1.0, 0.0, 0.0]}, (1,)))  # fmt: skip
    for name, model, side, spot in others:
        e.execute(Command("add", {"id": name, "model": model, "side": side,
                                  "position": list(spot)}, (2,)))  # fmt: skip
    e.execute(Command("start", {}))
    assert e.state.current == hero_name
    return e


def _kinds(events: tuple[Event, ...] | list[Event]) -> list[str]:
    return [ev.kind for ev in events]


def _refused(e: Encounter[FightState], kind: str, args: dict[str, Any], match: str,
             dice: tuple[int, ...] | None = None) -> str:  # fmt: skip
    """Refused with one sentence, and nothing written."""
    before = e.revision
    message = refused(e.execute, Command(kind, args, dice), match=match)
    assert e.revision == before
    assert message.endswith(".") and "\n" not in message  # one sentence
    return message


def _replays(e: Encounter[FightState]) -> None:
    rebuilt = Encounter.from_records(e.game, e.seed, e.records)
    assert rebuilt.state == e.state
    assert e.verify_replay().state == e.state


def _setup(e: Encounter[FightState], attacker: str, **item: Any) -> AttackSetup:
    game = e.game
    assert isinstance(game, StrifeFight)
    args = AttackItem(**item)
    return attack_setup(game, Pending(e.state), e.state.models[attacker], args)


# --- SA-70 forced movement ---------------------------------------------------------------------


def test_sa70_a_knock_back_moves_directly_away_at_once_without_an_aoo() -> None:
    """S-18, SA-70: knocked back out of contact, the Goblin offers nothing and spends nothing."""
    e = _fight()
    record = e.execute(Command("forced_move", {"id": "Goblin", "kind": "knock_back",
                                               "by": "Aldric", "to": [4.0, 0.0, 0.0]}))  # fmt: skip
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert moved.data["forced"] and moved.data["kind"] == "knock_back" and moved.rule == "SA-70"
    assert "aoo_offered" not in _kinds(record.events)
    goblin = e.state.models["Goblin"]
    assert goblin.position == (4.0, 0.0, 0.0) and goblin.elements == ()
    assert e.state.models["Aldric"].elements == ()  # not a Turn element of anybody's
    _refused(e, "forced_move", {"id": "Goblin", "kind": "knock_back", "by": "Aldric",
                                "to": [6.0, 1.0, 0.0]}, r"directly away.*strays")  # fmt: skip
    _refused(e, "forced_move", {"id": "Goblin", "kind": "knock_back", "by": "Aldric",
                                "to": [2.0, 0.0, 0.0]}, r"does not go away")  # fmt: skip
    _refused(e, "forced_move", {"id": "Goblin", "kind": "shove", "by": "Aldric",
                                "to": [6.0, 0.0, 0.0]}, r"kind")  # fmt: skip
    _replays(e)


def test_sa70_a_knock_back_stops_in_base_contact_with_the_first_model_in_the_way() -> None:
    """SA-70: the line from (1,0) to (5,0) meets Goblin-2 at (3, 0.5): it stops 1" from it."""
    e = _fight(("Goblin-2", "Goblin", "monsters", (3.0, 0.5, 0.0)))
    record = e.execute(Command("forced_move", {"id": "Goblin", "kind": "knock_back",
                                               "by": "Aldric", "to": [5.0, 0.0, 0.0]}))  # fmt: skip
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert moved.data["stopped_by"] == "Goblin-2" and moved.data["intended"] == [5.0, 0.0, 0.0]
    end = e.state.models["Goblin"].position
    assert end[0] == pytest.approx(3 - 0.75**0.5) and end[1] == 0.0
    assert distance(end, (3.0, 0.5, 0.0)) <= 1.0  # in base contact, not through it
    _replays(e)


def test_sa70_a_wall_or_the_edge_is_the_hosts_word() -> None:
    """SA-70: the fight has no terrain; the Host says a wall stopped the move where it ends."""
    e = _fight()
    record = e.execute(Command("forced_move", {"id": "Goblin", "kind": "knock_back",
                                               "by": "Aldric", "to": [2.0, 0.0, 0.0],
                                               "stopped_by": "wall"}))  # fmt: skip
    assert next(ev for ev in record.events if ev.kind == "moved").data["stopped_by"] == "wall"


def test_sa70_fear_drives_away_and_a_taunt_draws_near() -> None:
    """SA-70: fear must end farther from its source, a taunt nearer (or in base contact)."""
    e = _fight(("Sera", "Sera", "heroes", (-4.0, 0.0, 0.0)))
    _refused(e, "forced_move", {"id": "Goblin", "kind": "fear", "by": "Sera",
                                "to": [0.0, 1.0, 0.0]}, r"flees in fear.*farther")  # fmt: skip
    e.execute(Command("forced_move", {"id": "Goblin", "kind": "fear", "by": "Sera",
                                      "to": [3.0, 2.0, 0.0]}))  # fmt: skip
    _refused(e, "forced_move", {"id": "Goblin", "kind": "taunt", "by": "Sera",
                                "to": [6.0, 2.0, 0.0]}, r"taunted.*nearer")  # fmt: skip
    e.execute(Command("forced_move", {"id": "Goblin", "kind": "taunt", "by": "Sera",
                                      "to": [-4.0, 0.9, 0.0]}))  # fmt: skip
    goblin = e.state.models["Goblin"]
    assert distance(goblin.position, (-4.0, 0.0, 0.0)) == pytest.approx(1.0)  # stopped at Sera
    e.execute(Command("forced_move", {"id": "Goblin", "kind": "mind_control", "by": "Sera",
                                      "to": [-4.5, 3.0, 0.0]}))  # fmt: skip
    assert e.state.models["Goblin"].position == (-4.5, 3.0, 0.0)
    _replays(e)


def test_sa70_a_forced_move_needs_a_source_model_and_a_running_fight() -> None:
    e = _fight()
    _refused(e, "forced_move", {"id": "Goblin", "kind": "fear", "by": "Nobody",
                                "to": [3.0, 0.0, 0.0]}, r"no model 'Nobody'")  # fmt: skip
    _refused(e, "forced_move", {"id": "Goblin", "kind": "fear", "by": "Goblin",
                                "to": [3.0, 0.0, 0.0]}, r"cannot force itself")  # fmt: skip


# --- SA-71 Feared, Taunted, Mind Controlled on the victim's own Turn ---------------------------


def _goblins_turn(e: Encounter[FightState], name: str, source: str) -> None:
    e.execute(Command("condition", {"id": "Goblin", "name": name, "rounds": 1, "source": source}))
    _turn_of(e, "Goblin")


def _turn_of(e: Encounter[FightState], name: str) -> None:
    for _ in range(4):
        if e.state.current == name:
            return
        e.execute(Command("next", {}))
    assert e.state.current == name


def test_sa71_leaving_contact_offers_an_aoo_without_fear() -> None:
    """The contrast: the same move, unafraid, offers Aldric an Attack of Opportunity (S-18)."""
    e = _fight()
    e.execute(Command("next", {}))
    record = e.execute(Command("move", {"id": "Goblin", "to": [4.0, 0.0, 0.0]}))
    assert "aoo_offered" in _kinds(record.events)


def test_sa71_a_feared_model_must_move_away_and_provokes_no_aoo() -> None:
    """SA-71, S-18: fleeing in fear is a move under compulsion, not Disengaging."""
    e = _fight()
    _goblins_turn(e, "Feared", "Aldric")
    _refused(e, "move", {"id": "Goblin", "to": [0.5, 0.5, 0.0]}, r"flees in fear")
    record = e.execute(Command("move", {"id": "Goblin", "to": [4.0, 0.0, 0.0]}))
    moved = next(ev for ev in record.events if ev.kind == "moved")
    assert moved.data["compelled"] == "fear"
    assert "aoo_offered" not in _kinds(record.events)
    _replays(e)


def test_sa71_a_taunted_model_attacks_only_its_taunter_and_closes_on_it() -> None:
    """SA-71: Taunted by Aldric, the Goblin may not strike Sera nor back away from Aldric."""
    e = _fight(("Sera", "Sera", "heroes", (1.0, 1.0, 0.0)))
    _goblins_turn(e, "Taunted", "Aldric")
    _refused(e, "attack", {"attacker": "Goblin", "attacks": [{"defender": "Sera"}]},
             r"taunted: it may attack only Aldric, not Sera")  # fmt: skip
    _refused(e, "move", {"id": "Goblin", "to": [3.0, 0.0, 0.0]}, r"taunted.*nearer")
    record = e.execute(Command("attack", {"attacker": "Goblin", "attacks": [
        {"defender": "Aldric"}]}, (3,)))  # fmt: skip
    assert "attack_resolved" in _kinds(record.events)


def test_sa71_a_mind_controlled_model_is_moved_by_its_controller_without_an_aoo() -> None:
    """SA-71: a power's effect names its caster ("Sera's Curse of Control"): no AoO."""
    e = _fight(("Sera", "Sera", "heroes", (-5.0, 0.0, 0.0)))
    _goblins_turn(e, "Mind Controlled", "Sera's Curse of Control")
    record = e.execute(Command("move", {"id": "Goblin", "to": [1.0, 4.0, 0.0]}))
    assert next(ev for ev in record.events if ev.kind == "moved").data["compelled"] == (
        "mind_control"
    )
    assert "aoo_offered" not in _kinds(record.events)


def test_sa91_a_taunted_casters_offensive_power_targets_only_its_taunter() -> None:
    """SA-91: Taunted by the Goblin, Sera may not cast Arcane Missile at Grub, only at the Goblin;
    a power that deals no damage (typed by hand) is no offensive power and goes anywhere."""
    e = _fight(("Grub", "Goblin", "monsters", (-3.0, 6.0, 0.0)), hero_name="Sera",
               at=(-3.0, 0.0, 0.0))  # fmt: skip
    e.execute(Command("condition", {"id": "Sera", "name": "Taunted", "rounds": 3,
                                    "source": "Goblin"}))  # fmt: skip
    missile = {"caster": "Sera", "power": "Arcane Missile"}
    _refused(
        e,
        "cast",
        {**missile, "targets": ["Grub"]},
        r"Sera is taunted: its offensive powers may target only Goblin, not Grub \(SA-91\)",
    )
    _refused(
        e,
        "cast",
        {"caster": "Sera", "targets": ["Grub"], "power": "Hex", "element": "fire", "damage": "1d4"},
        r"offensive powers.*not Grub",
    )
    e.execute(Command("cast", {"caster": "Sera", "targets": ["Grub"], "power": "Calm Song",
                               "element": "fire"}))  # fmt: skip
    f = _fight(hero_name="Sera", at=(-3.0, 0.0, 0.0))
    f.execute(Command("condition", {"id": "Sera", "name": "Taunted", "rounds": 3,
                                    "source": "Goblin"}))  # fmt: skip
    record = f.execute(Command("cast", {**missile, "targets": ["Goblin"]}))
    assert "cast_resolved" in _kinds(record.events)
    _replays(f)


def _taunted_goblin_left_by_sera(taunted: bool) -> tuple[Encounter[FightState], Any]:
    """Sera leaves base contact with the Goblin on her Turn; the Goblin is Taunted by Aldric."""
    e = _fight(("Sera", "Sera", "heroes", (1.0, 1.0, 0.0)))
    if taunted:
        e.execute(Command("condition", {"id": "Goblin", "name": "Taunted", "rounds": 3,
                                        "source": "Aldric"}))  # fmt: skip
    _turn_of(e, "Sera")
    return e, e.execute(Command("move", {"id": "Sera", "to": [1.0, 5.0, 0.0]}))


def test_sa91_a_taunted_model_gets_no_attack_of_opportunity_but_on_its_taunter() -> None:
    """SA-91, S-18: Sera disengaging from the taunted Goblin offers it nothing (untaunted, the
    same move offers an AoO); its own aoo on Sera is refused; Aldric leaving it still offers."""
    _, plain = _taunted_goblin_left_by_sera(taunted=False)
    assert "aoo_offered" in _kinds(plain.events)
    e, record = _taunted_goblin_left_by_sera(taunted=True)
    assert "aoo_offered" not in _kinds(record.events)
    _refused(
        e,
        "aoo",
        {"attacker": "Goblin", "target": "Sera", "weapon": "Spear"},
        r"Goblin is taunted: it may take an Attack of Opportunity only on Aldric, not Sera",
    )
    f = _fight(("Sera", "Sera", "heroes", (1.0, 1.0, 0.0)))
    f.execute(Command("condition", {"id": "Goblin", "name": "Taunted", "rounds": 3,
                                    "source": "Aldric"}))  # fmt: skip
    away = f.execute(Command("move", {"id": "Aldric", "to": [-4.0, 0.0, 0.0]}))
    offers = next(ev for ev in away.events if ev.kind == "aoo_offered").data["offers"]
    assert {o["attacker"] for o in offers} == {"Goblin"} and offers[0]["target"] == "Aldric"
    _replays(f)


def test_sa71_curse_of_control_makes_the_goblins_move_compelled() -> None:
    """SA-62, SA-71: the catalogue's Curse of Control puts Controlled on: no AoO leaving Aldric."""
    e = _fight(("Sera", "Sera", "heroes", (-5.0, 0.0, 0.0)))
    _turn_of(e, "Sera")
    e.execute(Command("cast", {"caster": "Sera", "targets": ["Goblin"],
                               "power": "Curse of Control"}, (80,)))  # fmt: skip
    assert any(c.name == "Controlled" for c in e.state.models["Goblin"].conditions)
    _turn_of(e, "Goblin")
    record = e.execute(Command("move", {"id": "Goblin", "to": [4.0, 0.0, 0.0]}))
    assert next(ev for ev in record.events if ev.kind == "moved").data["compelled"] == (
        "mind_control"
    )
    assert "aoo_offered" not in _kinds(record.events)


# --- SA-72 a thrown weapon leaves the hand ------------------------------------------------------


def _sera_throws() -> Encounter[FightState]:
    e = _fight(hero_name="Sera", at=(-3.0, 0.0, 0.0))
    e.execute(
        Command(
            "attack",
            {"attacker": "Sera", "attacks": [{"defender": "Goblin", "thrown": True}]},
            (3,),
        )
    )  # fmt: skip  (a critical miss: no dice)
    return e


def test_sa72_a_thrown_dagger_leaves_the_hand_and_lies_at_the_target() -> None:
    e = _sera_throws()
    sera = e.state.models["Sera"]
    assert sera.sheet.main_hand is None and sera.sheet.off_hand == "Dagger"
    assert e.state.ground == (("Dagger", (1.0, 0.0, 0.0)),)
    thrown = next(ev for r in e.records for ev in r.events if ev.kind == "weapon_thrown")
    assert thrown.data == {"id": "Sera", "weapon": "Dagger", "hand": "main_hand",
                           "at": [1.0, 0.0, 0.0]} and thrown.rule == "SA-72"  # fmt: skip
    _replays(e)


def test_sa72_picking_it_up_is_the_instant_within_base_contact() -> None:
    e = _sera_throws()
    e.execute(Command("next", {}))
    _turn_of(e, "Sera")
    _refused(e, "pick_up", {"id": "Sera", "weapon": "Dagger"}, r'lies 4\.0" away.*SA-72')
    _refused(e, "pick_up", {"id": "Sera", "weapon": "Spear"}, r"no Spear lies on the ground")
    e.execute(Command("move", {"id": "Sera", "to": [0.5, 0.5, 0.0]}))
    record = e.execute(Command("pick_up", {"id": "Sera", "weapon": "dagger"}))
    assert "instant" in e.state.models["Sera"].elements
    assert next(ev for ev in record.events if ev.kind == "picked_up").data["hand"] == "main_hand"
    assert e.state.models["Sera"].sheet.main_hand == "Dagger" and e.state.ground == ()
    _replays(e)


def test_sa72_no_free_hand_no_pick_up() -> None:
    """Aldric holds a Long Sword and a Kite Shield: both hands are full."""
    e = _fight(("Sera", "Sera", "heroes", (-3.0, 0.0, 0.0)))
    _turn_of(e, "Sera")
    e.execute(Command("attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin", "thrown": True}]}, (3,)))  # fmt: skip
    _turn_of(e, "Aldric")
    _refused(e, "pick_up", {"id": "Aldric", "weapon": "Dagger"}, r"no free hand")


# --- SA-73 Shield Blow --------------------------------------------------------------------------


def test_sa73_a_shield_blow_strikes_with_the_kite_shield_and_may_stun() -> None:
    """S-16, SA-73: the Kite Shield's blow (1d6, Stun 10 %) as the off hand's attack."""
    e = _fight()
    record = e.execute(Command("attack", {"attacker": "Aldric", "attacks": [
        {"defender": "Goblin", "shield_blow": True}]}, (90, 4, 7)))  # fmt: skip
    resolved = next(ev for ev in record.events if ev.kind == "attack_resolved")
    assert resolved.data["result"]["weapon"] == "Kite Shield (Shield Blow)"
    assert resolved.data["result"]["damage"]["total"] == 4 + 1  # d6 4, STR 16 +1 (S-14)
    assert e.state.models["Goblin"].sheet.hp == 3
    assert any(c.name == "Stun" for c in e.state.models["Goblin"].conditions)
    _replays(e)


def test_sa73_a_shield_blow_is_the_off_hand_attack_once_per_action() -> None:
    e = _fight()
    _refused(e, "attack", {"attacker": "Aldric", "attacks": [
        {"defender": "Goblin", "shield_blow": True},
        {"defender": "Goblin", "shield_blow": True}]}, r"at most one Shield Blow")  # fmt: skip
    _refused(e, "attack", {"attacker": "Aldric", "attacks": [
        {"defender": "Goblin", "shield_blow": True, "weapon": "Long Sword"}]},
        r"strikes with the shield")  # fmt: skip
    record = e.execute(
        Command(
            "attack",
            {
                "attacker": "Aldric",
                "attacks": [{"defender": "Goblin"}, {"defender": "Goblin", "shield_blow": True}],
            },
            (2, 3),
        )
    )  # fmt: skip  (two critical misses)
    weapons = [ev.data["result"]["weapon"] for ev in record.events if ev.kind == "attack_resolved"]
    assert weapons == ["Long Sword", "Kite Shield (Shield Blow)"]
    sera = _fight(hero_name="Sera")
    _refused(sera, "attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin", "shield_blow": True}]}, r"no shield equipped")  # fmt: skip


def test_sa73_an_untrained_shield_blow_is_clumsy_and_never_stuns() -> None:
    """S-16: untrained, the Block ÷ 4 and the blow is Clumsy (−5 × L = −15) with no stun."""
    e = _fight(hero={"proficiencies": ("Swords",)})
    setup = _setup(e, "Aldric", defender="Goblin", shield_blow=True)
    use = weapon_use(setup.attacker, setup.weapon, setup.context)
    assert Part("Clumsy (no proficiency) −5 × size L", -15) in use.parts
    assert not use.attributes_usable
    record = e.execute(
        Command(
            "attack",
            {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "shield_blow": True}]},
            (90, 4),
        )
    )  # fmt: skip  (no effect die)
    assert "effect_rolled" not in _kinds(record.events)
    assert not any(c.name == "Stun" for c in e.state.models["Goblin"].conditions)


def test_sa73_exact_odds_of_a_shield_blow_match_brute_force() -> None:
    setup = _setup(_fight(), "Aldric", defender="Goblin", shield_blow=True)
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)


# --- SA-74 crushing injury ---------------------------------------------------------------------


def _goblin_strikes(reaction_die: int, *more: int, place: str = "arm") -> Encounter[FightState]:
    e = _fight()
    e.execute(Command("next", {}))
    e.execute(Command("attack", {"attacker": "Goblin", "attacks": [
        {"defender": "Aldric", "reaction": "block", "crushing_injury": place}]},
        (100, reaction_die, *more)))  # fmt: skip
    return e


def test_sa74_a_blocked_melee_critical_crushes_the_named_limb() -> None:
    """S-10: a Block (15 + 6 + 4 > 20) takes the Goblin's critical: the arm is crushed."""
    e = _goblin_strikes(15)
    injury = next(c for c in e.state.models["Aldric"].conditions if c.name.startswith("Crushing"))
    assert injury.name == "Crushing Injury (arm)" and injury.source == "Goblin's blocked critical"
    assert injury.until == "the Host removes it"
    _replays(e)


def test_sa74_no_injury_on_a_critical_block_or_a_failed_block() -> None:
    critical = _goblin_strikes(20)  # a Critical Block: the crit is a regular hit, blocked
    failed = _goblin_strikes(1, 5)  # natural 1 fails: full damage, no Block took the crit
    for e in (critical, failed):
        assert not any(c.name.startswith("Crushing") for c in e.state.models["Aldric"].conditions)


def test_sa74_a_crushing_injury_is_the_hosts_to_approve() -> None:
    e = _fight()
    e.execute(Command("next", {}))
    game = e.game
    assert isinstance(game, StrifeFight)
    args = AttackArgs(attacker="Goblin", attacks=(AttackItem(
        defender="Aldric", reaction="block", crushing_injury="shoulder"),))  # fmt: skip
    choice = attack_approval(game, e.state, args)
    assert choice is not None and "crushing injury shoulder" in choice.prompt
    _refused(e, "attack", {"attacker": "Goblin", "attacks": [
        {"defender": "Aldric", "crushing_injury": "leg"}]}, r"crushing_injury")  # fmt: skip


# --- SA-75 situational modifiers ---------------------------------------------------------------


def test_sa75_situational_modifiers_are_named_in_the_attack_and_its_odds() -> None:
    e = _fight()
    setup = _setup(e, "Aldric", defender="Goblin",
                   situational={"high ground": 10, "cover": -20})  # fmt: skip
    assert setup.hit_modifiers == (Part("high ground", 10), Part("cover", -20))
    assert attack_odds(setup) == brute_force_attack_odds(setup)
    record = e.execute(Command("attack", {"attacker": "Aldric", "attacks": [
        {"defender": "Goblin", "situational": {"high ground": 10, "cover": -20}}]},
        (15,)))  # fmt: skip
    result = next(ev for ev in record.events if ev.kind == "attack_resolved").data["result"]
    assert {"label": "cover", "amount": -20} in result["modifiers"]
    assert result["modified"] == 15 + 10 - 20 and result["outcome"] == "armor_save"  # AC 8


def test_sa75_situational_modifiers_need_the_hosts_approval_and_stay_in_bounds() -> None:
    e = _fight()
    game = e.game
    assert isinstance(game, StrifeFight)
    args = AttackArgs(attacker="Aldric", attacks=(AttackItem(
        defender="Goblin", situational={"flanking": 10}),))  # fmt: skip
    choice = attack_approval(game, e.state, args)
    assert choice is not None and "flanking" in choice.prompt
    _refused(e, "attack", {"attacker": "Aldric", "attacks": [
        {"defender": "Goblin", "situational": {"flanking": 500}}]}, r"situational")  # fmt: skip


# --- SA-76 underwater, SA-77 flying ------------------------------------------------------------


def test_sa76_striking_a_submerged_target_is_clumsy_for_a_land_dweller() -> None:
    """S-16: −5 per size step for a non-aquatic attacker: the Long Sword (M) −10."""
    e = _fight()
    e.execute(Command("water", {"id": "Goblin"}))
    setup = _setup(e, "Aldric", defender="Goblin")
    use = weapon_use(setup.attacker, setup.weapon, setup.context)
    assert ClumsySource.UNDERWATER in use.clumsy
    assert Part("Clumsy (underwater) −5 × size M", -10) in use.parts
    fish = _fight(hero={"aquatic": True})
    fish.execute(Command("water", {"id": "Goblin"}))
    dry = _setup(fish, "Aldric", defender="Goblin")
    assert ClumsySource.UNDERWATER not in weapon_use(dry.attacker, dry.weapon, dry.context).clumsy
    _refused(e, "water", {"id": "Goblin"}, r"already under water")


def test_sa76_a_throw_through_water_counts_each_inch_twice() -> None:
    """S-16: 4" to a submerged Goblin counts 8", beyond the Dagger's Thrown 6"."""
    e = _fight(hero_name="Sera", at=(-3.0, 0.0, 0.0))
    e.execute(Command("water", {"id": "Goblin"}))
    _refused(e, "attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin", "thrown": True}]}, r'8\.0" away, beyond the range')  # fmt: skip


def test_sa76_a_projectile_power_through_water_counts_each_inch_twice() -> None:
    """S-16 "This also applies to projectile based spells": 15" counts 30" > Arcane Missile 24"."""
    e = _fight(hero_name="Sera", at=(-14.0, 0.0, 0.0))
    e.execute(Command("water", {"id": "Goblin"}))
    cast = {"caster": "Sera", "targets": ["Goblin"], "power": "Arcane Missile"}
    _refused(e, "cast", cast, r'30\.0" away, beyond the range of Arcane Missile')
    dry = _fight(hero_name="Sera", at=(-14.0, 0.0, 0.0))
    record = dry.execute(Command("cast", cast, (60, 3)))
    assert "cast_resolved" in _kinds(record.events)


def test_sa76_a_submerged_model_swims() -> None:
    """S-6: under water a land dweller swims, 2" of Movement an inch."""
    e = _fight()
    e.execute(Command("water", {"id": "Aldric"}))
    _refused(e, "move", {"id": "Aldric", "to": [-2.0, 0.0, 0.0]}, r"under water.*swim")
    record = e.execute(Command("move", {"id": "Aldric", "to": [-2.0, 0.0, 0.0], "mode": "swim"}))
    assert next(ev for ev in record.events if ev.kind == "moved").data["cost"] == 4.0
    wet = _fight()
    wet.execute(Command("water", {"id": "Aldric"}))
    _refused(wet, "whole_turn", {"id": "Aldric", "kind": "sprint", "to": [-6.0, 0.0, 0.0]},
             r"under water and cannot Sprint")  # fmt: skip


def test_sa76_a_submerged_caster_miscasts_fire_more_often() -> None:
    """S-16: a fully submerged caster's fire power: miscast range 5 + 25, so 28 miscasts."""

    def cast(e: Encounter[FightState], dice: tuple[int, ...]) -> str:
        record = e.execute(Command("cast", {"caster": "Sera", "targets": ["Goblin"],
                                            "power": "Fire Dart", "element": "fire",
                                            "damage": "1d4"}, dice))  # fmt: skip
        return str(next(ev for ev in record.events if ev.kind == "cast_resolved")
                   .data["result"]["outcome"])  # fmt: skip

    assert cast(_fight(hero_name="Sera", at=(-3.0, 0.0, 0.0)), (28, 2)) == "success"
    wet = _fight(hero_name="Sera", at=(-3.0, 0.0, 0.0))
    wet.execute(Command("water", {"id": "Sera"}))
    assert cast(wet, (28,)) == "miscast"
    _replays(wet)


def test_sa77_a_sprint_stays_on_the_ground() -> None:
    """S-5: "while sprinting all passive effects are prevented (i.e. … Flying)"."""
    e = _fight()
    _refused(e, "whole_turn", {"id": "Aldric", "kind": "sprint", "to": [-4.0, 0.0, 2.0]},
             r"Flying is prevented while sprinting")  # fmt: skip
    e.execute(Command("whole_turn", {"id": "Aldric", "kind": "sprint", "to": [-4.0, 0.0, 0.0]}))


# --- SA-90 a climber is above the ground but not flying ----------------------------------------


def _sera_up(mode: str) -> Encounter[FightState]:
    """Sera 3" above the ground at (-3, 0, 3): climbed (6 of her Movement 6) or flown (3)."""
    e = _fight(hero_name="Sera", at=(-3.0, 0.0, 0.0))
    e.execute(Command("move", {"id": "Sera", "to": [-3.0, 0.0, 3.0], "mode": mode}))
    assert e.state.models["Sera"].position == (-3.0, 0.0, 3.0)
    return e


def test_sa90_a_climber_at_z3_throws_without_the_flying_penalty() -> None:
    """SA-90: on the wall she moved 3" (−15) but is not flying: no further −5 (S-16)."""
    e = _sera_up("climb")
    setup = _setup(e, "Sera", defender="Goblin", thrown=True)
    assert not setup.context.flying and setup.context.inches_moved == 3
    record = e.execute(Command("attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin", "thrown": True}]}))  # fmt: skip
    result = next(ev for ev in record.events if ev.kind == "attack_resolved").data["result"]
    assert "flying shooter" not in str(result)
    _replays(e)


def test_sa90_a_flyer_at_z3_takes_the_flying_penalty_in_its_exact_odds() -> None:
    """SA-77, SA-90: risen to z 3 by a Move that is no climb, Sera flies: the further −5."""
    flown, climbed = _sera_up("walk"), _sera_up("climb")
    up = _setup(flown, "Sera", defender="Goblin", thrown=True)
    wall = _setup(climbed, "Sera", defender="Goblin", thrown=True)
    assert up.context.flying and not wall.context.flying
    assert up.context.inches_moved == wall.context.inches_moved == 3
    high, low = attack_odds(up), attack_odds(wall)
    assert high == brute_force_attack_odds(up) and low == brute_force_attack_odds(wall)
    assert high.exact and high.hits < low.hits  # the −5 is in the exact odds


def test_sa90_walking_along_a_ledge_keeps_a_climber_off_flying() -> None:
    """SA-90: a climber that walks on at the height it climbed to stands there; leaving that
    height by any Move but a climb is flying; back on the ground it is neither."""
    e = _sera_up("climb")
    _next_turn_of(e, "Sera")
    e.execute(Command("move", {"id": "Sera", "to": [-4.0, 0.0, 3.0]}))
    assert e.state.models["Sera"].perched and not _setup(e, "Sera", defender="Goblin",
                                                         thrown=True).context.flying  # fmt: skip
    e.execute(Command("host_set", {"id": "Sera", "field": "position", "value": [-4.0, 0.0, 5.0]}))
    assert e.state.models["Sera"].perched  # the Host put the climber higher on the wall
    _next_turn_of(e, "Sera")
    e.execute(Command("move", {"id": "Sera", "to": [-4.0, 0.0, 6.0]}))
    assert not e.state.models["Sera"].perched
    game = e.game
    assert isinstance(game, StrifeFight)
    assert penalty_context(game, e.state.models["Sera"], CATALOG.weapon("Dagger")).flying
    e.execute(Command("host_set", {"id": "Sera", "field": "position", "value": [-4.0, 0.0, 0.0]}))
    assert not e.state.models["Sera"].perched
    _replays(e)


def _next_turn_of(e: Encounter[FightState], name: str) -> None:
    e.execute(Command("next", {}))
    _turn_of(e, name)


def test_sa90_a_climber_may_sprint_along_its_height_a_flyer_may_not() -> None:
    """S-5, SA-77, SA-90: a Sprint is ground movement: a climber may Sprint on at the height it
    stands (a ledge), not up or down the wall; a flyer's Sprint ends on the ground."""
    e = _sera_up("climb")
    _next_turn_of(e, "Sera")
    _refused(e, "whole_turn", {"id": "Sera", "kind": "sprint", "to": [-3.0, 0.0, 5.0]},
             r"cannot Sprint up or down")  # fmt: skip
    e.execute(Command("whole_turn", {"id": "Sera", "kind": "sprint", "to": [-9.0, 0.0, 3.0]}))
    assert e.state.models["Sera"].position == (-9.0, 0.0, 3.0)
    f = _sera_up("walk")
    _next_turn_of(f, "Sera")
    _refused(f, "whole_turn", {"id": "Sera", "kind": "sprint", "to": [-9.0, 0.0, 3.0]},
             r"Flying is prevented while sprinting")  # fmt: skip


def test_sa72_pick_up_replays_after_undo() -> None:
    """Undo of a throw gives the Dagger back; redo throws it again, exactly."""
    e = _sera_throws()
    before = e.state
    e.undo()
    assert e.state.models["Sera"].sheet.main_hand == "Dagger" and e.state.ground == ()
    e.redo()
    assert e.state == before
