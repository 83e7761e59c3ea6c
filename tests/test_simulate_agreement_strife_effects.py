"""The fast Realm of Strife engine on Reactions, conditions and casting (issue 15, F-40 … F-42).

Three small fights, each built so that what it is about occurs in most runs:

* ``block_spell``: Aldric (Kite Shield) against a Goblin and Ilsa, a caster; Ilsa casts Arcane
  Missile at him and he Blocks it (SA-68) while his Reaction lasts, Blocks the Goblin's Spear,
  Ilsa Parries with her Dagger, Rolls with the Blow; Disarmed, Vulnerable and Knocked Down are
  on models at the start (the Host's ``condition``), so they tick and end in every run.
* ``parry_roll``: Sera (Dagger Parry, Dodge 15) and Aldric against the Cave Troll: Parries and
  failed Parries, Blocks, the Troll Club's Knocked Down, Critical Misses' Vulnerable.
* ``casters``: Ilsa, knowing Birds of Prey then Arcane Missile (one Spirit pool for both), and
  Sera against three Goblins.

Tests: the policy's casting rule (F-40); every cast law equal to the engine's own resolution
on every die face (F-41); exact transitions of full-engine runs with casts (the fast policy
chooses the engine policy's command, the state after it is the engine's); the fast engine
really plays (no fallback) and each effect occurs in most of its runs; and the statistical
agreement of the reports (F-42), whose power the test states and checks.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from agreement import compared, outside, sized, strife_gaps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replays import outcome_of
from scheduling import computed_once

from tableside.dice import ScriptedRng
from tableside.encounter.engine import Encounter, copy_with
from tableside.encounter.log import Command, Event
from tableside.encounter.strife.args import AttackItem, CastArgs
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.cast import cast_plan, cast_rolls
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import castable_powers, next_command
from tableside.encounter.strife.state import FightState, condition_from
from tableside.encounter.strife.turns import Pending
from tableside.simulate import simulate
from tableside.simulate.fast_strife import (
    Rules,
    Run,
    _batch,
    choose,
    command_of,
    engine_view,
    generator,
    roster_of,
    unsupported,
    view,
    why_not,
)
from tableside.simulate.fast_strife_compiled import why_not_kernel
from tableside.simulate.fast_strife_law import Law, Outcome, cast_law, joint_law
from tableside.simulate.fast_strife_laws import Laws, cast_laws
from tableside.simulate.fast_strife_oneroll import CASTING_D100
from tableside.simulate.games import StrifeSim
from tableside.simulate.runs import StreamRng, load_start, play_run, run_seed
from tableside.store.formats import encounter_document
from tableside.strife.casting import CastSetup, roll_cast
from tableside.strife.catalog import builtin_catalog
from tableside.strife.dice import parse_dice
from tableside.strife.odds import attack_odds
from tableside.strife.turns import RoundTracker

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ILSA: dict[str, Any] = json.loads((EXAMPLES / "strife_caster.json").read_text())
BIRDS_FIRST = {**ILSA, "powers": ["Birds of Prey", "Arcane Missile"]}
KNOCKED_UNTIL = "the end of its next Turn"


def model(who: str, side: str, x: float, y: float = 0.0, **kind: Any) -> dict[str, Any]:
    return {"id": who, "side": side, "position": [x, y, 0.0], **(kind or {"model": who})}


def fight_document(models: list[dict[str, Any]], conditions: tuple[dict[str, Any], ...] = (),
                   seed: int = 5) -> dict[str, Any]:  # fmt: skip
    encounter: Encounter[Any] = Encounter(StrifeFight(), seed)
    for args in models:
        encounter.execute(Command("add", args))
    for args in conditions:
        encounter.execute(Command("condition", args))
    return encounter_document("effects", "strife-combat", encounter.seed, encounter.records)


def block_spell() -> dict[str, Any]:
    return fight_document(
        [model("Aldric", "heroes", 0), model("Goblin", "monsters", 5),
         model("Ilsa", "monsters", 10, sheet=ILSA)],
        ({"id": "Aldric", "name": "Disarmed", "rounds": 2},
         {"id": "Goblin", "name": "Vulnerable", "rounds": 1},
         {"id": "Ilsa", "name": "Knocked Down", "until": KNOCKED_UNTIL}),
    )  # fmt: skip


def parry_roll() -> dict[str, Any]:
    return fight_document([model("Sera", "heroes", 0), model("Aldric", "heroes", 0, 3),
                           model("Troll", "monsters", 6, 1.5, model="Cave Troll")])  # fmt: skip


def casters() -> dict[str, Any]:
    return fight_document(
        [model("Ilsa", "heroes", 0, sheet=BIRDS_FIRST), model("Sera", "heroes", 0, 3),
         model("Goblin-1", "monsters", 9, model="Goblin"),
         model("Goblin-2", "monsters", 9, 3, model="Goblin"),
         model("Goblin-3", "monsters", 9, -3, model="Goblin")],
    )  # fmt: skip


def archer() -> dict[str, Any]:
    """F-62: Sera and Aldric against the Cave Troll and a Goblin with a Short Bow first.

    The Goblin never shoots on its Turn (the policy attacks only in contact, where a shot is
    refused, SA-48): in contact it moves toward the other hero (SA-94); it shoots those who
    leave it behind (Attacks of Opportunity, moving and shooting −5 an inch, S-16).
    """
    goblin = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    goblin.update(main_hand="Short Bow", off_hand=None, shield=None,
                  proficiencies=[*goblin["proficiencies"], "Bows"])  # fmt: skip
    return fight_document(
        [model("Sera", "heroes", 0), model("Aldric", "heroes", 0, 3),
         model("Troll", "monsters", 6, 1.5, model="Cave Troll"),
         model("Archer", "monsters", 6, -1.5, sheet=goblin)],
    )  # fmt: skip


def stun() -> dict[str, Any]:
    """F-63: Stun, only tracked by the engine: Aldric's Mace (10 % on a hit) and Ilsa's Curse
    Torment (25 % on a success) against two Goblins, one Stunned (2 rounds, the Host's)."""
    aldric = builtin_catalog().combatant("Aldric").model_dump(mode="json")
    aldric.update(main_hand="Mace", proficiencies=[*aldric["proficiencies"], "Bludgeons"])
    cursed = {**ILSA, "powers": ["Curse Torment"]}
    return fight_document(
        [model("Aldric", "heroes", 0, sheet=aldric), model("Ilsa", "heroes", -2, 3, sheet=cursed),
         model("Goblin-1", "monsters", 6, model="Goblin"),
         model("Goblin-2", "monsters", 6, 3, model="Goblin")],
        ({"id": "Goblin-2", "name": "Stun", "rounds": 2},),
    )  # fmt: skip


def door() -> dict[str, Any]:
    """F-64: Aldric and Sera against an Oak Door (Absorption 50 %) beside them and a Goblin."""
    return fight_document([model("Aldric", "heroes", 0), model("Sera", "heroes", 0, 3),
                           model("Door", "monsters", 1, 1.5, model="Oak Door"),
                           model("Goblin-1", "monsters", 6, model="Goblin")])  # fmt: skip


FIGHTS = {"block_spell": block_spell, "parry_roll": parry_roll, "casters": casters,
          "archer": archer, "stun": stun, "door": door}  # fmt: skip


def started(document: dict[str, Any]) -> FightState:
    """The fight after the simulation's ``start`` (no ambush; these rolls no die)."""
    state: FightState = load_start(document).state
    return StrifeFight().play(state, Command("start", {}), ScriptedRng(()))[1]


# --- F-40: the policy casts --------------------------------------------------------------------


def state_of(ilsa_at: float, spirit: int = 14, target: str = "Aldric") -> FightState:
    sheet = {**ILSA, "resources": {"Spirit": {"current": spirit, "maximum": 14}}}
    return started(fight_document([model(target, "heroes", 0),
                                   model("Ilsa", "monsters", ilsa_at, sheet=sheet)]))  # fmt: skip


def turn_of(state: FightState, who: str) -> FightState:
    return copy_with(state, turn=state.order.index(who))


def test_f40_a_caster_casts_its_first_power_at_the_nearest_enemy_in_range() -> None:
    """F-40: Arcane Missile (range 24) at Aldric 10" away; he has a shield, so he Blocks it."""
    state = turn_of(state_of(10.0), "Ilsa")
    command = next_command(state)
    assert command == Command("cast", {"caster": "Ilsa", "targets": ["Aldric"],
                                       "power": "Arcane Missile",
                                       "blocks": {"Aldric": "block"}})  # fmt: skip
    spent = copy_with(state, rounds=state.rounds.spend_reaction("Aldric"))
    assert "blocks" not in next_command(spent).args  # no Reaction left, no Block (SA-68)
    goblin = turn_of(state_of(10.0, target="Goblin"), "Ilsa")
    assert next_command(goblin).args == {"caster": "Ilsa", "targets": ["Goblin"],
                                         "power": "Arcane Missile"}  # fmt: skip


def test_f40_no_cast_out_of_range_in_contact_or_without_the_cost() -> None:
    """F-40: out of range it closes in; in contact it attacks (SA-61); 1 Spirit cannot pay."""
    assert next_command(turn_of(state_of(30.0), "Ilsa")).kind == "move"
    assert next_command(turn_of(state_of(0.9), "Ilsa")).kind == "attack"
    assert next_command(turn_of(state_of(10.0, spirit=1), "Ilsa")).kind == "move"
    assert next_command(turn_of(state_of(10.0, spirit=2), "Ilsa")).kind == "cast"


def test_f40_only_damaging_action_powers_with_a_casting_roll_are_cast() -> None:
    """F-40: Flame Strike rides a weapon attack (S-9), never cast; the order is the sheet's."""
    catalog = builtin_catalog()
    state = state_of(10.0)
    names = [e.name for e in castable_powers(catalog, state.models["Ilsa"].sheet)]
    assert names == ["Arcane Missile", "Birds of Prey"]
    cursed = {**ILSA, "powers": ["Curse of Control", "Curse Torment"]}
    curser = started(fight_document([model("Aldric", "heroes", 0),
                                     model("Ilsa", "monsters", 5, sheet=cursed)]))  # fmt: skip
    # Curse of Control deals no damage: only Curse Torment is cast
    assert [e.name for e in castable_powers(catalog, curser.models["Ilsa"].sheet)] == [
        "Curse Torment"
    ]


def test_f40_a_power_reaching_several_is_cast_on_the_nearest_it_reaches_up_to_its_most() -> None:
    """F-40: Birds of Prey (range 18, at most 3): the three nearest in range, not the 20" one."""
    sheet = {**ILSA, "powers": ["Birds of Prey"]}
    models = [model("Ilsa", "heroes", 0, sheet=sheet)]
    models += [model(f"G{i}", "monsters", x, model="Goblin")
               for i, x in enumerate((20.0, 7.0, 5.0, 9.0, 8.0))]  # fmt: skip
    state = turn_of(started(fight_document(models)), "Ilsa")
    command = next_command(state)
    assert command.args == {"caster": "Ilsa", "targets": ["G2", "G1", "G4"],
                            "power": "Birds of Prey"}  # fmt: skip
    roster = roster_of(state, builtin_catalog())
    assert command_of(choose(Run(state, roster), roster), roster) == command


def test_f73_a_one_roll_power_on_several_targets_is_played_on_the_kernel() -> None:
    """F-73: Arcane Torrent's targets share one casting d100 (SA-49): played fast, on the
    kernel, given that d100 (it fell back to the full engine before)."""
    sheet = {**ILSA, "powers": ["Arcane Torrent"]}
    document = fight_document([model("Aldric", "heroes", 0),
                               model("Ilsa", "monsters", 8, sheet=sheet)])  # fmt: skip
    report = simulate(document, 3, seed=1, engine="fast")
    assert report["engine"] == "fast" and "fallback" not in report
    assert why_not_kernel("strife-combat", load_start(document).state) is None


def test_f40_the_fast_policy_chooses_the_engine_policys_cast() -> None:
    """F-40: the fast engine's choice is the engine policy's command, argument for argument."""
    for state in (state_of(10.0), state_of(10.0, target="Goblin"), state_of(10.0, spirit=1)):
        state = turn_of(state, "Ilsa")
        roster = roster_of(state, builtin_catalog())
        assert command_of(choose(Run(state, roster), roster), roster) == next_command(state)


# --- F-41: each cast law is the engine's -------------------------------------------------------


def enumerated(
    setup: CastSetup, seen: set[str] | None = None
) -> tuple[dict[int, Fraction], Fraction]:
    """Damage law and P(effects apply) over every face of every die, through ``roll_cast``.

    ``seen`` collects the cast outcomes met (miscast, dodged, resisted …).
    """
    power = setup.power
    expr = parse_dice(power.damage) if power.damage else None
    damage_faces = list(itertools.product(range(1, expr.sides + 1), repeat=expr.count)) if expr \
        else [()]  # fmt: skip
    blocks = range(1, 21) if setup.reaction is not None else [None]
    weight = Fraction(1, 100 * len(blocks) * len(damage_faces))
    damage: dict[int, Fraction] = defaultdict(Fraction)
    applies = Fraction(0)
    for natural in range(1, 101):
        for block in blocks:
            for faces in damage_faces:
                dice = (natural, *(() if block is None else (block,)), *faces)
                result = roll_cast(setup, ScriptedRng(dice))
                if seen is not None:
                    seen.add(result.outcome.value)
                damage[0 if result.damage is None else result.damage.total] += weight
                stopped = result.reaction is not None and result.reaction.effect.stopped
                applies += weight if result.outcome.succeeds and not stopped else 0
    return {k: v for k, v in damage.items() if v}, applies


def law_marginals(law: Law) -> tuple[dict[int, Fraction], dict[str, Fraction]]:
    damage: dict[int, Fraction] = defaultdict(Fraction)
    labels: dict[str, Fraction] = defaultdict(Fraction)
    for outcome, p in zip(law.outcomes, law.chances, strict=True):
        damage[outcome.damage] += p
        for name in {c.name for _, c in outcome.inflicted}:
            labels[name] += p
    return dict(damage), dict(labels)


def setups_of(state: FightState) -> list[tuple[CastSetup, Law]]:
    """Each cast law of a fight with the engine's setup it was computed from."""
    game = StrifeFight()
    roster = roster_of(state, game.catalog)
    laws = cast_laws(state, game, roster)
    found = []
    for (i, k, j, block), law in laws.items():
        entry = roster.powers[i][k]
        args: dict[str, Any] = {"caster": roster.ids[i], "targets": [roster.ids[j]],
                                "power": entry.name}  # fmt: skip
        if block:
            args["blocks"] = {roster.ids[j]: "block"}
        parsed = CastArgs.model_validate(args)
        pending = Pending(copy_with(state, rounds=RoundTracker()), describe=False)
        caster = state.models[roster.ids[i]]
        setup = cast_rolls(game, pending, caster, parsed, cast_plan(game.catalog, parsed),
                           ScriptedRng((1,) * 64))[0].setup  # fmt: skip
        found.append((setup, law))
    return found


def test_f41_every_cast_law_equals_the_engines_cast_on_every_die_face() -> None:
    """F-41: damage law and the chance that effects apply, exactly, Blocked or not."""
    state = started(block_spell())
    resisting = fight_document(
        [model("Sera", "heroes", 0), model("Ilsa", "monsters", 10, sheet=ILSA)]
    )
    pairs = setups_of(state) + setups_of(started(casters())) + setups_of(started(resisting))
    kinds = {(s.power.name, s.reaction is not None) for s, _ in pairs}
    assert {("Arcane Missile", True), ("Arcane Missile", False), ("Birds of Prey", False)} <= kinds
    seen: set[str] = set()
    for setup, law in pairs:
        assert sum(law.chances) == 1
        damage, applies = enumerated(setup, seen)
        assert law_marginals(law)[0] == damage, setup.power.name
        assert law.reacts == (setup.reaction is not None)
        assert applies > 0
    # every branch of S-8 is met: Miscast, Critical Cast, Dodge (Missile-type), Resisted (Sera's
    # Arcane Resistance 15), success
    assert {"miscast", "critical_cast", "dodged", "resisted", "success"} <= seen, seen


def test_f41_a_power_effect_applies_with_its_chance_on_a_hit() -> None:
    """F-41: Curse Torment's 25 % Stun on a cast that succeeds (SA-62): P = P(hit) · 1/4."""
    cursed = {**ILSA, "powers": ["Curse Torment"]}
    state = started(fight_document([model("Aldric", "heroes", 0),
                                    model("Ilsa", "monsters", 5, sheet=cursed)]))  # fmt: skip
    [(setup, _)] = setups_of(state)
    law = cast_law(setup, builtin_catalog().power("Curse Torment").effects, "Ilsa's Curse Torment")
    damage, applies = enumerated(setup)
    got_damage, labels = law_marginals(law)
    assert got_damage == damage
    assert labels == {"Stun": applies * Fraction(1, 4)}
    stun = next(c for o in law.outcomes for _, c in o.inflicted)
    assert (stun.source, stun.rounds_left) == ("Ilsa's Curse Torment", 1)


def test_f63_a_power_putting_on_stun_is_played_fast_and_on_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """F-63, F-72: Stun is only tracked (played fast, on the kernel); Exhaustion put on in play
    (its stacks add up) is played by the Python fast path, which the kernel names."""
    cursed = {**ILSA, "powers": ["Curse Torment"]}
    document = fight_document([model("Aldric", "heroes", 0),
                               model("Ilsa", "monsters", 5, sheet=cursed)])  # fmt: skip
    report = simulate(document, 30, seed=1, engine="fast")
    assert report["engine"] == "fast" and "fallback" not in report
    state = load_start(document).state
    assert why_not_kernel("strife-combat", state) is None
    monkeypatch.setattr("tableside.simulate.fast_strife_compiled.EXHAUSTION", "Stun")
    monkeypatch.setattr("tableside.simulate.fast_strife_compiled._KNOWN", {})
    assert why_not_kernel("strife-combat", state) == (
        "the condition Stun put on in play (F-72: the Python path plays it)"
    )
    report = simulate(document, 3, seed=1, engine="fast")
    assert report["engine"] == "fast" and "fallback" not in report


def test_f64_exact_transitions_with_absorption() -> None:
    """F-64: 20 full runs of *door*: the damage before Absorption drawn, absorbed by its HP."""
    state = started(door())
    kinds: Counter[str] = Counter()
    for run in range(20):
        replay(state, 31, run, kinds)
    assert kinds["attack"] > 0 and kinds["roll_with_the_blow"] > 0, kinds


def test_f63_exact_transitions_with_stun() -> None:
    """F-63: 30 full runs of *stun* (the Mace's and Curse Torment's Stun, one at the start)."""
    state = started(stun())
    kinds: Counter[str] = Counter()
    for run in range(30):
        replay(state, 31, run, kinds)
    assert {"cast", "attack", "move", "next"} <= set(kinds), kinds


def test_f9_ward_off_laws_equal_attack_odds() -> None:
    """F-9: a Ward-off (the Goblin's Spear) law's damage and conditions equal ``attack_odds``.

    The policy never declares a Ward-off, so no simulated fight meets one; its law is exact.
    """
    state = started(block_spell())
    game = StrifeFight()
    pending = Pending(copy_with(state, rounds=RoundTracker()), describe=False)
    item = AttackItem(defender="Goblin", reaction="ward_off")
    setup = attack_setup(game, pending, state.models["Aldric"], item, free_attack=True)
    law, odds = joint_law(setup), attack_odds(setup)
    damage: dict[int, Fraction] = defaultdict(Fraction)
    labels: dict[str, Fraction] = defaultdict(Fraction)
    for outcome, p in zip(law.outcomes, law.chances, strict=True):
        damage[outcome.damage] += p
        for label in {f"{target}: {c.name}" for target, c in outcome.inflicted}:
            labels[label] += p
    assert sum(law.chances) == 1
    assert {k: v for k, v in damage.items() if v} == dict(odds.damage.items())
    assert dict(labels) == {k: v for k, v in odds.conditions.items() if v}
    assert Outcome(False, 0) in law.outcomes  # warded off: no damage


# --- F-41: exact transitions with casts --------------------------------------------------------


def cast_outcomes(events: list[Event]) -> list[Outcome]:
    """What the engine's own dice did to each target of a cast, in the targets' order."""
    targets = [e.data["target"] for e in events if e.kind == "cast_resolved"]
    damage = {e.data["id"]: int(e.data["damage"]) for e in events if e.kind == "hp_set"}
    inflicted: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for event in events:
        if event.kind == "condition_added":
            inflicted[event.data["id"]].append(
                ("defender", condition_from(event.data["condition"]))
            )
    return [Outcome(False, damage.get(t, 0), tuple(inflicted[t])) for t in targets]


def shared_face(given: Any, choice: Any, per_target: list[Outcome]) -> int:
    """A face of a one-roll power's shared casting d100 under which every target's outcome can
    happen, each by its law given that face (F-73); the engine's outcomes must have one."""
    _, caster, targets, k, blocks = choice
    laws = [given[caster, k, t, b] for t, b in zip(targets, blocks, strict=True)]
    return next(
        n
        for n in range(1, 101)
        if all(g.law(n).chance(o) > 0 for g, o in zip(laws, per_target, strict=True))
    )


def unabsorbed(law: Law, outcome: Outcome, roster: Any, run: Run, defender: int) -> Outcome:
    """The damage before the defender's Absorption (F-64) that gave the engine's HP lost.

    ``floor(% × HP / 100)`` is absorbed: HP lost ``d > 0`` came from ``d`` plus that; none
    lost, from any damage up to it (the law's least such outcome is taken).
    """
    percent = roster.absorption[defender]
    if not percent:
        return outcome
    held = percent * run.hp[defender] // 100
    if outcome.damage:
        return Outcome(outcome.failed_parry, outcome.damage + held, outcome.inflicted)
    found = sorted(
        o.damage
        for o in law.outcomes
        if o.damage <= held
        and (o.failed_parry, o.inflicted) == (outcome.failed_parry, outcome.inflicted)
    )
    return Outcome(outcome.failed_parry, found[0] if found else 0, outcome.inflicted)


def replay(state: FightState, base: int, run: int, kinds: Counter[str]) -> None:
    """One full-engine run, checked command by command against the fast engine (F-8, F-41)."""
    sim, game = StrifeSim(), StrifeFight()
    roster = roster_of(state, game.catalog)
    rules = Rules(roster, Laws(state, game, roster))
    seed, seq, steps = run_seed(base, run), 10, 0
    while not state.ended and state.round <= 100:
        command = sim.next_command(state)
        fast_run = Run(state, roster)
        assert view(fast_run, roster) == engine_view(state, roster)
        choice = choose(fast_run, roster)
        if command_of(choice, roster) != command:  # refused: the one the engine accepts (SA-94)
            command = next_command(state, game=game)
            kinds[f"refused, then {command.kind}"] += 1
        assert command_of(choice, roster) == command, (run, steps)
        events, after = sim.play(state, command, StreamRng(seed, seq))

        per_target = cast_outcomes(events) if command.kind == "cast" else []

        def given(law: Law, events: list[Event] = events, choice: Any = choice,
                  per_target: list[Outcome] = per_target,
                  fast: Run = fast_run) -> Outcome:  # fmt: skip
            if law is CASTING_D100:  # a one-roll power's shared casting d100 (F-73)
                return Outcome(False, shared_face(rules.laws.given, choice, per_target))
            if per_target:
                outcome = per_target.pop(0)
            else:
                outcome = outcome_of(events, roster.ids[choice[1]], roster.ids[choice[2]])
                outcome = unabsorbed(law, outcome, roster, fast, choice[2])
            assert law.chance(outcome) > 0, (outcome, run)
            return outcome

        rules.apply(fast_run, choice, given)
        assert view(fast_run, roster) == engine_view(after, roster), (run, steps, command)
        kinds[command.kind] += 1
        if command.kind == "aoo":
            kinds[f"aoo with {command.args['weapon']}"] += 1
        if command.kind == "cast" and "blocks" in command.args:
            kinds["cast blocked"] += 1
        if command.kind == "cast" and len(command.args["targets"]) > 1:
            kinds["cast on several"] += 1
        state, seq, steps = after, seq + 1, steps + 1


@pytest.mark.parametrize(("name", "runs"), [("block_spell", 40), ("casters", 30)])
def test_f41_exact_transitions_with_casts_blocks_and_conditions(name: str, runs: int) -> None:
    """F-41: every command of full runs with casts: same choice, same state after it (pools too)."""
    state = started(FIGHTS[name]())
    kinds: Counter[str] = Counter()
    for run in range(runs):
        replay(state, 31, run, kinds)
    assert {"cast", "attack", "move", "next"} <= set(kinds), kinds
    if name == "block_spell":
        assert kinds["cast blocked"] > 0 and kinds["roll_with_the_blow"] > 0, kinds
    else:
        assert kinds["cast on several"] > 0, kinds


def test_f62_exact_transitions_with_a_ranged_first_weapon() -> None:
    """F-62: 30 full runs of *archer*: its shot refused in contact, the engine's next accepted
    choice (a move toward another hero, or the end of its Turn) is the fast one; its Short Bow's
    Attacks of Opportunity (by inches moved) leave the engine's state."""
    state = started(archer())
    kinds: Counter[str] = Counter()
    for run in range(30):
        replay(state, 31, run, kinds)
    assert kinds["aoo with Short Bow"] > 0 and kinds["refused, then move"] > 0, kinds
    assert kinds["refused, then next"] > 0, kinds


def test_f41_a_cast_rule_changed_in_the_engine_only_fails_the_transition_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """F-41: no silent drift: an engine whose casts cost nothing (SA-49) fails the replay."""
    monkeypatch.setattr("tableside.encounter.strife.cast.spend_cost", lambda *args: None)
    state = started(block_spell())
    with pytest.raises(AssertionError) as caught:
        for run in range(5):
            replay(state, 31, run, Counter())
    assert "cast" in str(caught.value)  # the Spirit left after the cast differs


POWERS = ["Arcane Missile", "Birds of Prey", "Arcane Torrent", "Flame Strike", "Curse Torment",
          "Curse of Control"]  # fmt: skip


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    powers=st.lists(st.sampled_from(POWERS), max_size=3, unique=True),
    spirit=st.integers(0, 14),
    foes=st.lists(st.sampled_from(["Aldric", "Sera", "Goblin", "Cave Troll"]), min_size=1,
                  max_size=3),
    places=st.lists(st.tuples(st.floats(-15, 15), st.floats(-15, 15)), min_size=4, max_size=4),
    seed=st.integers(0, 10**6),
)  # fmt: skip
def test_f40_f41_casters_play_to_the_end_without_a_refused_command_and_fast_equals_full(
    powers: list[str], spirit: int, foes: list[str], places: list[tuple[float, float]], seed: int
) -> None:
    """F-40, F-41: every cast is legal; where the fast engine plays, it equals the engine."""
    sheet = {**ILSA, "powers": powers, "resources": {"Spirit": {"current": spirit, "maximum": 14}}}
    models = [model("Ilsa", "heroes", *places[0], sheet=sheet)]
    models += [model(f"F{i}", "monsters", *places[i + 1], model=name)
               for i, name in enumerate(foes)]  # fmt: skip
    document = fight_document(models, seed=seed)
    state = load_start(document).state
    outcome, _ = play_run(StrifeSim(), load_start(document), seed, 0, 30)
    assert outcome.commands > 0
    if why_not(state) is None:
        replay(started(document), seed, 0, Counter())


# --- F-42: the fast engine plays, the effects occur, the reports agree -------------------------


def occurrences(document: dict[str, Any], runs: int = 300, seed: int = 3) -> dict[str, float]:
    """In what share of fast runs each command, reaction and inflicted condition occurs."""
    batch = _batch(load_start(document).state)
    roster, rules = batch.roster, batch.rules
    rng = generator(seed, 0)
    seen: Counter[str] = Counter()
    for _ in range(runs):
        run, here = Run(batch.start, roster), set[str]()

        def draw(law: Law, here: set[str] = here) -> Outcome:
            outcome = law.draw(float(rng.random()))
            here.update(c.name for _, c in outcome.inflicted)
            if outcome.failed_parry:
                here.add("failed Parry")
            return outcome

        while not run.ended and run.round <= 100:
            choice = choose(run, roster)
            here.add(choice[0])
            if choice[0] == "attack" and choice[3]:
                here.add(choice[3])
            if choice[0] == "cast" and any(choice[4]):
                here.add("Block of a power")
            if choice[0] == "cast" and len(choice[2]) > 1:
                here.add("cast on several")
            if choice[0] in ("attack", "aoo") and roster.absorption[choice[2]]:
                here.add("attack on Absorption")
            if choice[0] == "aoo" and choice[3] in roster.shooting[choice[1]]:
                here.add("shot")
            if choice[0] == "move" and shooter_in_contact(run, roster, choice[1]):
                here.add("toward another")
            rules.apply(run, choice, draw)
        seen.update(here)
    return {k: v / runs for k, v in seen.items()}


def shooter_in_contact(run: Run, roster: Any, me: int) -> bool:
    """A model with a ranged first weapon, in contact and not disengaging (F-62, SA-94)."""
    weapons = roster.weapons[me]
    if not weapons or weapons[0] not in roster.shooting[me] or 2 * run.hp[me] < roster.hp_max[me]:
        return False
    gaps = [math.dist(run.pos[me], run.pos[j]) for j in roster.foes[roster.side[me]]
            if run.hp[j] > 0]  # fmt: skip
    return bool(gaps) and min(gaps) <= 1.0


MOST = {
    "block_spell": ("cast", "Block of a power", "block", "parry", "failed Parry", "roll", "aoo"),
    "parry_roll": ("parry", "block", "failed Parry", "Knocked Down", "aoo"),
    "casters": ("cast", "cast on several", "parry", "failed Parry", "roll"),
    "archer": ("shot", "toward another", "aoo", "parry", "failed Parry", "Knocked Down"),
    "stun": ("Stun", "cast", "block", "roll"),
    "door": ("attack on Absorption", "roll"),
}


@pytest.mark.parametrize("name", list(FIGHTS))
def test_f42_the_fast_engine_plays_and_each_effect_occurs_in_most_runs(name: str) -> None:
    """F-42: no fallback; its Reactions, conditions and casts occur in over half the runs."""
    document = FIGHTS[name]()
    assert unsupported(started(document), builtin_catalog()) is None
    report = simulate(document, 50, seed=2, engine="fast")
    assert report["engine"] == "fast" and "fallback" not in report
    shares = occurrences(document)
    assert {k: shares.get(k, 0.0) for k in MOST[name] if shares.get(k, 0.0) <= 0.5} == {}


# Each fight's design win probability (the side nearest 1/2, moved towards 1/2 by about two
# standard errors: block_spell 0.669, parry_roll 0.049, casters 0.065 measured) and the CPU of a
# full run over a fast one (casters on the kernel since F-60: 887 and 570, were 17 and 18 on the
# Python path; archer, F-62, 130): agreement.sized gives block_spell 43,000 full runs and
# 1,259,000 fast, parry_roll 10,000 and 287,000, casters 13,000 and 293,000, archer 9,000 and
# 100,000 (archer measured 0.041); stun (F-63, monsters 0.0055 measured, ratio 140) 2,000 and
# 21,000; door (F-64, monsters 0.0006 measured, ratio 170) 1,000 and 11,000.
DESIGN = {"block_spell": (0.664, 887), "parry_roll": (0.054, 878), "casters": (0.069, 570),
          "archer": (0.046, 130), "stun": (0.009, 140), "door": (0.004, 170)}  # fmt: skip
# The win-probability shift each comparison catches with 90 % probability (checked on the figures).
CAUGHT = {"block_spell": 0.01, "parry_roll": 0.01, "casters": 0.01, "archer": 0.01,
          "stun": 0.01, "door": 0.01}  # fmt: skip


@pytest.fixture(scope="module", params=list(FIGHTS))
def reports(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    name: str = request.param
    computed_once(tmp_path_factory, f"f42-reports-{name}")
    document = FIGHTS[name]()
    full, quick = compared(document, sized(*DESIGN[name], CAUGHT[name]), seed=41)
    return name, full, quick


def test_f42_wins_end_losses_and_falls_agree(
    reports: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    """F-42: win probabilities, the round of the end, HP lost and falls within 3 standard errors.

    The power is stated per fight (``CAUGHT``): a shift of that size in a win probability lands
    beyond the bound with at least 90 % probability, and a shifted copy of the fast figures fails.
    """
    name, full, quick = reports
    assert outside(strife_gaps(full, quick, CAUGHT[name])) == [], name
