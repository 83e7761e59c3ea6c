"""The fast Realm of Strife engine: the ambush under the Strife policy, attacks drawn from law.

A run keeps only what the policy and the rules it meets read (F-8): each model's HP,
position, conditions (and those put on during its own Turn), Turn elements, inches moved and
Movement spent this Turn and Roll-with-the-Blow Initiative penalty; the round, its Turn Order
and whose Turn it is; the Reactions spent and failed Parries of the round; the weapons used for
Attacks of Opportunity this Turn and the offers still open; who was damaged last and by whom;
whether the fight has ended and who won. Each command is the policy's
(``encounter/strife/policy.py``) worked out on that state, and applied in the order the engine
applies its events (``encounter/strife/``). An attack is not rolled: its consequences
are drawn from their exact joint law (:mod:`fast_strife_law`, F-9), one law per (attacker,
weapon, defender, reaction), computed from the engine's own ``attack_setup`` at the start.
A cast (the policy's F-40) is drawn from its law too (F-41): one per (caster, power, target,
Block or not), from the setup the engine's own ``cast_rolls`` builds; the run keeps each
caster's resource pools.

What it does not model makes :func:`unsupported` name a reason, and the full engine plays the
fight (F-10).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from tableside.dice import ScriptedRng
from tableside.dice.rng import DiceExhaustedError
from tableside.encounter.engine import copy_with
from tableside.encounter.log import Command
from tableside.encounter.strife.args import CONTACT, NEXT_TURN_END
from tableside.encounter.strife.climbing import rounded
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import (
    ROUNDING,
    _away,
    _toward,
    affordable,
    castable_powers,
    most_targets,
    pool_of,
    reaches,
    reaction_for,
)
from tableside.encounter.strife.state import FightState
from tableside.majesty.geometry import Point, distance
from tableside.simulate.fast_strife_law import Law, Outcome
from tableside.simulate.fast_strife_laws import ENGINE_READS, Laws, absorbed
from tableside.simulate.runs import COMMAND_CAP, RunOutcome
from tableside.simulate.tally import Tally
from tableside.strife.catalog import Catalog, PowerEntry, Resource
from tableside.strife.conditions import (
    KNOCKED_DOWN,
    Condition,
    add_condition,
    condition,
    end_condition,
    tick_round,
)
from tableside.strife.loadout import loadout
from tableside.strife.movement import Leg, leg_cost
from tableside.strife.turns import ROLL_WITH_THE_BLOW_INITIATIVE, RoundTracker

BATCH = 4096  # runs per batch: one generator each (F-11)
STRIFE_KEY = 16  # spawn-key tag of the fast Realm of Strife engine's generators (F-11)
ROLLED_BACK = "Roll with the Blow"
dist = math.dist  # ``geometry.distance`` is ``math.dist``: called directly in the hot loop
Choice = tuple[Any, ...]  # ("next",) | ("move", i, to) | ("attack", i, j, reaction) | ...


@dataclass(frozen=True)
class Roster:
    """What does not change in a fight: ids, sides, sheets' numbers, weapons, reactions."""

    ids: tuple[str, ...]
    side: tuple[str, ...]
    hp_max: tuple[int, ...]
    movement: tuple[int, ...]
    score: tuple[int, ...]
    initiative: tuple[int, ...]
    weapons: tuple[tuple[str, ...], ...]  # equipped weapons, first the policy's (S-18)
    reaction: tuple[str | None, ...]  # what the policy declares while the Reaction lasts
    foes: dict[str, tuple[int, ...]]  # per side, the models of the other sides
    powers: tuple[tuple[PowerEntry, ...], ...] = ()  # what the policy casts (F-40), per model
    shooting: tuple[frozenset[str], ...] = ()  # ranged weapons, per model (F-62)
    absorption: tuple[int, ...] = ()  # Absorption %, per model (F-64)


def roster_of(state: FightState, catalog: Catalog) -> Roster:
    """The static part of a fight."""
    models = list(state.models.values())
    fresh = copy_with(state, rounds=RoundTracker())
    return Roster(
        ids=tuple(m.id for m in models),
        side=tuple(m.side for m in models),
        hp_max=tuple(m.sheet.hp_max for m in models),
        movement=tuple(m.sheet.movement for m in models),
        score=tuple(m.score for m in models),
        initiative=tuple(m.sheet.initiative for m in models),
        weapons=tuple(tuple(w.name for w in loadout(catalog, m.sheet).weapons) for m in models),
        reaction=tuple(reaction_for(catalog, fresh, m) for m in models),
        foes={
            side: tuple(i for i, m in enumerate(models) if m.side != side)
            for side in {m.side for m in models}
        },
        powers=tuple(castable_powers(catalog, m.sheet) for m in models),
        shooting=tuple(_shooting(catalog, m) for m in models),
        absorption=tuple(m.sheet.absorption for m in models),
    )


def _shooting(catalog: Catalog, m: Any) -> frozenset[str]:
    """The ranged weapons a model holds (F-62)."""
    return frozenset(w.name for w in loadout(catalog, m.sheet).weapons if w.ranged)


def started(state: FightState, game: StrifeFight) -> FightState | None:
    """The fight after the simulation's ``start`` (no ambush) when it rolls no die (F-10).

    A fight already started is returned as it is. The start's Turn Order rolls only to break a
    tie of Initiative Score and Initiative stat; with such a tie, None (the full engine plays).
    """
    if state.round >= 0:
        return state
    try:
        return game.play(state, Command("start", {}), ScriptedRng(()))[1]
    except DiceExhaustedError:
        return None


def unsupported(state: FightState, catalog: Catalog) -> str | None:
    """Why the fast engine cannot play this fight from ``state`` (None: it can) (F-10)."""
    if state.round < 0:
        return "the fight has not started"
    if state.rounds.owes_instant or state.bottom or state.ground:
        return "an instant owed, the bottom of the queue or a weapon on the ground"
    for m in state.models.values():
        why = _model_unsupported(m, catalog)
        if why is not None:
            return f"{m.id}: {why}"
    return None


def _model_unsupported(m: Any, catalog: Catalog) -> str | None:
    if m.hidden or m.submerged or m.perched or m.position[2] != 0 or m.climbed:
        return "hidden, under water, climbing or above the ground"
    if m.instant_barred or m.sprints or "whole_turn" in m.elements:
        return "an instant out of turn or a Sprint"
    odd = {c.name for c in m.conditions} & ENGINE_READS
    if odd:
        return f"the condition {sorted(odd)[0]}"
    if "instant" in m.elements:
        return "an instant used this Turn"
    return None


class Run:
    """One run's state (F-8): everything the policy and the rules it meets read."""

    __slots__ = ("aoo", "conds", "elements", "ended", "failed", "fresh", "hp", "last_by",
                 "last_damaged", "moved", "offers", "order", "penalty", "pools", "pos", "reacted",
                 "round", "spent", "turn", "winner")  # fmt: skip

    def __init__(self, state: FightState, roster: Roster) -> None:
        index = {who: i for i, who in enumerate(roster.ids)}
        models = [state.models[who] for who in roster.ids]
        self.hp = [m.sheet.hp for m in models]
        self.pos: list[Point] = [m.position for m in models]
        self.conds: list[tuple[Condition, ...]] = [m.conditions for m in models]
        self.fresh: list[tuple[str, ...]] = [m.fresh for m in models]
        self.elements: list[tuple[str, ...]] = [m.elements for m in models]
        self.moved = [m.moved for m in models]
        self.spent = [m.movement_spent for m in models]
        self.penalty = [m.initiative_penalty for m in models]
        self.round = state.round
        self.order = [index[who] for who in state.order]
        self.turn = state.turn
        self.reacted = {index[who] for who in state.rounds.reactions_spent}
        self.failed = {index[who] for who in state.rounds.failed_parry}
        self.aoo = {index[who]: set(w) for who, w in state.aoo.used.items()}
        self.offers = [(index[o.attacker], o.weapon, index[o.target]) for o in state.offers]
        self.last_damaged = index.get(state.last_damaged or "")
        self.last_by = index.get(state.last_damaged_by or "")
        self.ended, self.winner = state.ended, state.winner
        self.pools = [pools_of(m, powers) for m, powers in zip(models, roster.powers, strict=True)]

    def copy(self) -> Run:
        """A copy to play on (the start is shared by every run of a batch)."""
        new = Run.__new__(Run)
        new.hp, new.pos, new.conds, new.fresh = (
            [*self.hp],
            [*self.pos],
            [*self.conds],
            [*self.fresh],
        )
        new.elements, new.moved, new.spent = [*self.elements], [*self.moved], [*self.spent]
        new.penalty, new.order, new.offers = [*self.penalty], [*self.order], [*self.offers]
        new.reacted, new.failed = set(self.reacted), set(self.failed)
        new.aoo = {k: set(v) for k, v in self.aoo.items()}
        new.pools = [*self.pools]  # each dict is replaced, never changed (``Rules.cast``)
        new.round, new.turn, new.last_damaged, new.last_by = (
            self.round, self.turn, self.last_damaged, self.last_by)  # fmt: skip
        new.ended, new.winner = self.ended, self.winner
        return new

    @property
    def current(self) -> int | None:
        """Whose Turn it is."""
        return self.order[self.turn] if 0 <= self.turn < len(self.order) else None


def view(run: Run, roster: Roster) -> dict[str, Any]:
    """Every number the fast engine keeps, by name (the exact-transition tests compare it)."""
    ids = roster.ids
    return {
        "hp": dict(zip(ids, run.hp, strict=True)),
        "position": dict(zip(ids, run.pos, strict=True)),
        "conditions": dict(zip(ids, run.conds, strict=True)),
        "fresh": dict(zip(ids, run.fresh, strict=True)),
        "elements": dict(zip(ids, run.elements, strict=True)),
        "moved": dict(zip(ids, run.moved, strict=True)),
        "movement_spent": dict(zip(ids, run.spent, strict=True)),
        "initiative_penalty": dict(zip(ids, run.penalty, strict=True)),
        "round": run.round,
        "order": tuple(ids[i] for i in run.order),
        "turn": run.turn,
        "reactions_spent": frozenset(ids[i] for i in run.reacted),
        "failed_parry": frozenset(ids[i] for i in run.failed),
        "aoo_used": {ids[i]: frozenset(w) for i, w in run.aoo.items()},
        "offers": tuple((ids[a], w, ids[t]) for a, w, t in run.offers),
        "last_damaged": None if run.last_damaged is None else ids[run.last_damaged],
        "last_damaged_by": None if run.last_by is None else ids[run.last_by],
        "ended": run.ended,
        "winner": run.winner,
        "resources": {ids[i]: pools for i, pools in enumerate(run.pools) if pools},
    }


def engine_view(state: FightState, roster: Roster) -> dict[str, Any]:
    """The same numbers read from the engine's state."""
    return view(Run(state, roster), roster)


# --- the policy (encounter/strife/policy.py) ---------------------------------------------------


def _reach(run: Run, roster: Roster, i: int) -> float:
    """Inches its Movement pays for: half crawling, Knocked Down (S-6, S-23)."""
    conds = run.conds[i]
    knocked = bool(conds) and any(c.name == KNOCKED_DOWN for c in conds)
    return roster.movement[i] / 2 if knocked else float(roster.movement[i])


def choose(run: Run, roster: Roster) -> Choice:
    """The Strife policy's next command on the run's state."""
    if run.offers:
        attacker, weapon, target = run.offers[0]
        return ("aoo", attacker, target, weapon)
    rolled = _roll_with_the_blow(run, roster)
    if rolled is not None:
        return rolled
    return _turn(run, roster)


def _roll_with_the_blow(run: Run, roster: Roster) -> Choice | None:
    hurt = run.last_damaged
    if hurt is None:
        return None
    by = run.last_by if run.last_by is not None else run.current
    if by is None or run.hp[hurt] <= 0:
        return None
    if 2 * run.hp[hurt] >= roster.hp_max[hurt] or hurt in run.reacted or hurt in run.failed:
        return None
    inches = min(1.0, roster.movement[hurt] / 2 - ROUNDING)
    if inches <= 0:
        return None
    return ("roll", hurt, _away(run.pos[hurt], run.pos[by], inches))


def _turn(run: Run, roster: Roster) -> Choice:
    turn = run.turn
    if not 0 <= turn < len(run.order):
        return ("next",)
    me = run.order[turn]
    if run.ended or "action" in run.elements[me]:
        return ("next",)
    here, side, hp, pos, ids = run.pos[me], roster.side[me], run.hp, run.pos, roster.ids
    enemies = [(dist(here, pos[j]), ids[j], j) for j in roster.foes[side] if hp[j] > 0]
    if not enemies:
        return ("next",)
    gap, _, near = min(enemies)
    reach = _reach(run, roster, me) if roster.movement[me] else 0.0
    can_move = "move" not in run.elements[me] and reach > 0
    armed = bool(roster.weapons[me])
    if gap <= CONTACT and can_move and 2 * hp[me] < roster.hp_max[me]:
        return ("move", me, _away(here, run.pos[near], reach))
    if roster.powers[me]:
        cast = _cast(run, roster, me, enemies)
        if cast is not None:
            return cast
    shoots = armed and roster.weapons[me][0] in roster.shooting[me]
    if gap <= CONTACT and armed and not shoots:
        reaction = None if near in run.reacted else roster.reaction[near]
        return ("attack", me, near, reaction)
    if gap > CONTACT and can_move and armed:
        return ("move", me, _toward(here, run.pos[near], min(reach, gap - 0.9)))
    if shoots and can_move:  # its shot refused in contact (SA-48): toward another (SA-94, F-62)
        for other_gap, _, other in sorted(enemies)[1:]:
            if other_gap > CONTACT:
                return ("move", me, _toward(here, pos[other], min(reach, other_gap - 0.9)))
    return ("next",)


def command_of(choice: Choice, roster: Roster) -> Command:
    """The engine command a fast choice stands for (the engine policy's, argument for argument)."""
    ids = roster.ids
    kind = choice[0]
    if kind == "aoo":
        return Command("aoo", {"attacker": ids[choice[1]], "target": ids[choice[2]],
                               "weapon": choice[3]})  # fmt: skip
    if kind == "roll":
        return Command("roll_with_the_blow", {"id": ids[choice[1]], "to": list(choice[2])})
    if kind == "move":
        return Command("move", {"id": ids[choice[1]], "to": list(choice[2])})
    if kind == "attack":
        item = {"defender": ids[choice[2]], "reaction": choice[3]}
        return Command("attack", {"attacker": ids[choice[1]],
                                  "attacks": [{k: v for k, v in item.items() if v}]})  # fmt: skip
    if kind == "cast":
        return cast_command(choice, roster)
    return Command("next")


def _cast(
    run: Run, roster: Roster, me: int, enemies: list[tuple[float, str, int]]
) -> Choice | None:
    """F-40: the first castable power it can pay for that reaches the nearest enemy.

    ``enemies`` are (distance, id, index) of the standing enemies; the targets are the nearest
    it reaches, up to the power's most, each with whether it Blocks.
    """
    pools = run.pools[me]
    nearest = min(enemies)[0]
    for k, entry in enumerate(roster.powers[me]):
        pool = pools.get(entry.resource, 0) if entry.resource is not None else 0
        if affordable(entry, pool) and reaches(entry, nearest):
            reached = [j for gap, _, j in sorted(enemies) if reaches(entry, gap)]
            targets = tuple(reached[: most_targets(entry)])
            blocks = tuple(entry.blockable and j not in run.reacted
                           and roster.reaction[j] == "block" for j in targets)  # fmt: skip
            return ("cast", me, targets, k, blocks)
    return None


def cast_command(choice: Choice, roster: Roster) -> Command:
    """The engine's ``cast`` command a fast cast choice stands for (F-40)."""
    _, caster, targets, k, blocks = choice
    ids = roster.ids
    args: dict[str, object] = {"caster": ids[caster], "targets": [ids[j] for j in targets],
                               "power": roster.powers[caster][k].name}  # fmt: skip
    if any(blocks):
        args["blocks"] = {ids[j]: "block" for j, b in zip(targets, blocks, strict=True) if b}
    return Command("cast", args)


def pools_of(model: Any, powers: tuple[PowerEntry, ...]) -> dict[Resource, int]:
    """The pools a model's castable powers are paid from, as its sheet holds them."""
    return {e.resource: pool_of(model.sheet, e) for e in powers if e.resource is not None}


# --- the rules the policy meets (encounter/strife/) ----------------------------------------------


class Rules:
    """Applies the policy's commands to a run, in the engine's order of events."""

    def __init__(self, roster: Roster, laws: Laws) -> None:
        self.roster, self.laws = roster, laws
        self.sides = set(roster.side)
        self.costs: dict[tuple[float, bool], float] = {}

    def apply(self, run: Run, choice: Choice, draw: Callable[[Law], Outcome]) -> None:
        """Play one command; ``draw`` picks each attack's outcome from its law."""
        kind = choice[0]
        if kind == "next":
            self.next(run)
        elif kind == "move":
            self.move(run, choice[1], choice[2])
        elif kind == "attack":
            _, attacker, defender, reaction = choice
            run.elements[attacker] = (*run.elements[attacker], "action")
            weapon = self.roster.weapons[attacker][0]
            law = self.laws.table[attacker, weapon, defender, reaction]
            self.attack(run, attacker, defender, law, draw(law))
        elif kind == "aoo":
            _, attacker, target, weapon = choice
            used = run.aoo.setdefault(attacker, set())
            if not used:
                run.reacted.add(attacker)
            used.add(weapon)
            run.offers = [o for o in run.offers if not (o[0] == attacker and o[1] == weapon)]
            if weapon in self.roster.shooting[attacker]:  # F-62
                law = self.laws.shot(attacker, weapon, target, int(run.moved[attacker]))
            else:
                law = self.laws.table[attacker, weapon, target, None]
            self.attack(run, attacker, target, law, draw(law))
        elif kind == "roll":
            self.roll(run, choice[1], choice[2])
        elif kind == "cast":
            self.cast(run, choice, draw)

    def attack(self, run: Run, attacker: int, defender: int, law: Law, outcome: Outcome) -> None:
        """``apply_attack``: the reaction spent, damage dealt, conditions put on (S-7, S-23)."""
        if law.reacts:
            run.reacted.add(defender)
            if outcome.failed_parry:
                run.failed.add(defender)
        damage = outcome.damage
        if damage and self.roster.absorption[defender]:  # F-64
            damage = absorbed(damage, self.roster.absorption[defender], run.hp[defender])
        if damage:
            run.hp[defender] = max(0, run.hp[defender] - damage)
            run.last_damaged, run.last_by = defender, attacker
            if run.hp[defender] == 0:
                self.check_end(run)
        for target, item in outcome.inflicted:
            self.put_on(run, attacker if target == "attacker" else defender, item)

    def cast(self, run: Run, choice: Choice, draw: Callable[[Law], Outcome]) -> None:
        """``do_cast`` (F-41): the Action, the cost, the Blocks, each target's damage, effects.

        Each target's cast is drawn from its own law (one target, or a casting roll each); the
        damage is dealt target by target, then the effects are put on each target the damage
        has not downed (SA-62).
        """
        _, caster, targets, k, blocks = choice
        entry = self.roster.powers[caster][k]
        run.elements[caster] = (*run.elements[caster], "action")
        if entry.cost and entry.resource is not None:
            pools = run.pools[caster]
            run.pools[caster] = {**pools, entry.resource: pools[entry.resource] - entry.cost}
        drawn = []
        for target, block in zip(targets, blocks, strict=True):
            law = self.laws.casts[caster, k, target, block]
            if law.reacts:
                run.reacted.add(target)
            drawn.append((target, draw(law)))
        for target, outcome in drawn:
            if outcome.damage:
                run.hp[target] = max(0, run.hp[target] - outcome.damage)
                run.last_damaged, run.last_by = target, caster
        if any(run.hp[target] == 0 for target, _ in drawn):
            self.check_end(run)
        for target, outcome in drawn:
            if run.hp[target] > 0:
                for _, item in outcome.inflicted:
                    self.put_on(run, target, item)

    def put_on(self, run: Run, who: int, item: Condition) -> None:
        """A condition added; one put on during its own Turn is not ticked (SA-50)."""
        run.conds[who] = add_condition(run.conds[who], item)
        if run.current == who:
            run.fresh[who] = (*run.fresh[who], item.name)

    def move(self, run: Run, who: int, to: Point) -> None:
        """A walking Move: its cost (S-6) and the Attacks of Opportunity it offers (S-18)."""
        run.elements[who] = (*run.elements[who], "move")
        inches = distance(run.pos[who], to)
        cost = self.cost(inches, run.conds[who])
        before = self.contacts(run, who)
        run.pos[who] = to
        run.moved[who] += rounded(inches)
        run.spent[who] += cost
        after = self.contacts(run, who)
        for enemy in before:
            if enemy in after:
                continue
            used = run.aoo.get(enemy)
            if not used and enemy in run.reacted:
                continue
            spent = used or set()
            for weapon in dict.fromkeys(self.roster.weapons[enemy]):
                if weapon not in spent:
                    run.offers.append((enemy, weapon, who))

    def cost(self, inches: float, conds: tuple[Condition, ...]) -> float:
        """A walking Move's cost as the ``moved`` event holds it (S-6, S-23), remembered."""
        knocked = any(c.name == KNOCKED_DOWN for c in conds)
        found = self.costs.get((inches, knocked))
        if found is None:
            leg = Leg(Fraction(inches).limit_denominator(100))
            found = round(float(leg_cost(leg, conds)), 3)
            self.costs[inches, knocked] = found
        return found

    def contacts(self, run: Run, who: int) -> list[int]:
        """Standing enemies in base contact, in the fight's order."""
        here, hp, pos = run.pos[who], run.hp, run.pos
        return [j for j in self.roster.foes[self.roster.side[who]]
                if hp[j] > 0 and dist(pos[j], here) <= CONTACT]  # fmt: skip

    def roll(self, run: Run, who: int, to: Point) -> None:
        """Roll with the Blow: Reaction, move back, −10 Initiative, Knocked Down (S-19)."""
        run.reacted.add(who)
        inches = distance(run.pos[who], to)
        run.pos[who] = to
        run.moved[who] += round(inches, 3)
        self.penalise(run, who)
        self.put_on(run, who, condition(KNOCKED_DOWN, ROLLED_BACK, until=NEXT_TURN_END))

    def penalise(self, run: Run, who: int) -> None:
        """``penalise_initiative``: this round's queue, or the next round's (S-19, SA-44)."""
        rest = list(run.order[run.turn + 1 :]) if run.turn >= 0 else []
        if who not in rest:
            run.penalty[who] = ROLL_WITH_THE_BLOW_INITIATIVE
            return
        rest.remove(who)
        key = (self.roster.score[who] - ROLL_WITH_THE_BLOW_INITIATIVE, self.roster.initiative[who])
        at = next((k for k, j in enumerate(rest) if self.score_key(run, j) < key), len(rest))
        rest.insert(at, who)
        run.order = [*run.order[: run.turn + 1], *rest]

    def score_key(self, run: Run, j: int) -> tuple[int, int]:
        """A model's place in Turn Order (S-3, S-19)."""
        return (self.roster.score[j] - run.penalty[j], self.roster.initiative[j])

    def next(self, run: Run) -> None:
        """End the Turn (conditions tick or end, S-19, SA-50) and begin the next."""
        who = run.current
        if who is not None:
            conds = run.conds[who]
            if run.fresh[who] or any(c.rounds_left is not None for c in conds):
                kept = [c for c in conds if c.name in run.fresh[who]]
                ticked = tick_round([c for c in conds if c.name not in run.fresh[who]])
                run.conds[who], run.fresh[who] = (*ticked, *kept), ()
            for item in conds:
                if item.until == NEXT_TURN_END:
                    run.conds[who] = end_condition(run.conds[who], item.name)
        self.next_turn(run)

    def next_turn(self, run: Run) -> None:
        """The next standing model's Turn, or a new round (S-4, S-5)."""
        for index in range(run.turn + 1, len(run.order)):
            j = run.order[index]
            if run.hp[j] > 0:
                run.turn = index
                run.elements[j], run.moved[j], run.spent[j] = (), 0.0, 0.0
                run.aoo, run.offers = {}, []
                run.last_damaged = run.last_by = None
                return
        standing = [j for j in range(len(run.hp)) if run.hp[j] > 0]
        ids, initiative = self.roster.ids, self.roster.initiative
        run.order = sorted(
            standing, key=lambda j: (-self.score_key(run, j)[0], -initiative[j], ids[j])
        )
        run.round += 1
        run.turn = -1
        run.reacted, run.failed, run.offers = set(), set(), []
        for j in run.order:
            run.penalty[j] = 0
        self.next_turn(run)

    def check_end(self, run: Run) -> None:
        """The fight ends when only one side has models standing."""
        standing = {self.roster.side[j] for j in range(len(run.hp)) if run.hp[j] > 0}
        if run.round >= 0 and len(self.sides) > 1 and len(standing) < 2 and not run.ended:
            run.ended, run.winner = True, next(iter(standing), None)


# --- many runs -----------------------------------------------------------------------------------


class Batch:
    """Runs of one fight from one start on the fast engine."""

    def __init__(self, state: FightState, game: StrifeFight | None = None, extra: int = 0) -> None:
        self.extra = extra  # commands played before ``state`` (the simulation's ``start``)
        self.game = game or StrifeFight()
        self.start = state
        self.roster = roster_of(state, self.game.catalog)
        self.laws = Laws(state, self.game, self.roster)
        self.rules = Rules(self.roster, self.laws)

    def play(self, first: int, count: int, cap: int, rng: np.random.Generator) -> list[RunOutcome]:
        """Runs ``first`` … ``first + count − 1`` to their end or the cap on rounds."""
        uniforms: list[float] = []

        def draw(law: Law) -> Outcome:
            if not uniforms:
                uniforms.extend(rng.random(4096).tolist())
            return law.draw(uniforms.pop())

        template = Run(self.start, self.roster)
        roster, apply = self.roster, self.rules.apply
        ids, start_hp = roster.ids, template.hp
        outcomes = []
        for number in range(first, first + count):
            run = template.copy()
            commands = self.extra
            while not run.ended and run.round <= cap and commands < COMMAND_CAP:
                apply(run, choose(run, roster), draw)
                commands += 1
            losses = tuple((who, (start_hp[i] - run.hp[i],)) for i, who in enumerate(ids))
            fallen = tuple(who for i, who in enumerate(ids) if run.hp[i] <= 0)
            outcomes.append(RunOutcome(number, run.ended, run.winner if run.ended else None,
                                       run.round, commands, losses, fallen))  # fmt: skip
        return outcomes


def why_not(state: FightState, game: StrifeFight | None = None) -> str | None:
    """Why the fast engine cannot play this fight (None: it can): the start, then the laws."""
    game = game or StrifeFight()
    begun = started(state, game)
    if begun is None:
        return "the start's Turn Order needs a roll-off (a tie of Initiative)"
    why = unsupported(begun, game.catalog)
    if why is not None:
        return why
    return _batch(state, game).laws.unsupported()


_KNOWN: dict[bytes, Batch] = {}  # the last batch per start state in this process


def _batch(state: FightState, game: StrifeFight | None = None) -> Batch:
    key = pickle.dumps(state)
    batch = _KNOWN.get(key)
    if batch is None:
        game = game or StrifeFight()
        begun = started(state, game)
        if begun is None:
            raise ValueError("the fight's start rolls dice; ask why_not first")
        batch = Batch(begun, game, extra=int(begun is not state))
        _KNOWN.clear()
        _KNOWN[key] = batch
    return batch


def play_batch(state: FightState, seed: int, cap: int, first: int, count: int) -> Tally:
    """Runs ``first`` … ``first + count − 1`` on the fast engine, tallied (F-11 seeds)."""
    batch = _batch(state)
    tally = Tally({who: side for who, side in zip(batch.roster.ids, batch.roster.side,
                                                  strict=True)}, 1)  # fmt: skip
    for outcome in batch.play(first, count, cap, generator(seed, first)):
        tally.add(outcome)
    return tally


def generator(seed: int, first: int) -> np.random.Generator:
    """The generator of the batch starting at run ``first`` (its own spawn key, F-11)."""
    sequence = np.random.SeedSequence(seed, spawn_key=(STRIFE_KEY, first // BATCH))
    return np.random.Generator(np.random.PCG64(sequence))


def run_fast(state: FightState, seed: int, cap: int, runs: int, workers: int,
             progress: Callable[[int], None] | None = None) -> Tally:  # fmt: skip
    """Every run on this Python fast path, batches on ``workers`` processes, in run order.

    A fight the compiled kernel covers is played there instead by
    ``fast_strife_compiled.run_any`` (F-50), which the simulator calls.
    """
    return spread(play_batch, BATCH, state, seed, cap, runs, workers, progress)


def spread(
    play: Callable[[FightState, int, int, int, int], Tally],
    batch: int,
    state: FightState,
    seed: int,
    cap: int,
    runs: int,
    workers: int,
    progress: Callable[[int], None] | None,
) -> Tally:
    """Runs cut in batches of ``batch``, each ``play(state, seed, cap, first, count)``.

    The batches run here or on ``workers`` processes (``play`` is a module's function, so it
    pickles); their tallies are merged in run order, so any number of workers gives the same.
    """
    pieces = [(first, min(batch, runs - first)) for first in range(0, runs, batch)]
    tallies: list[Tally] = []
    if workers <= 1 or len(pieces) == 1:
        for first, count in pieces:
            tallies.append(play(state, seed, cap, first, count))
            if progress is not None:
                progress(count)
    else:
        with ProcessPoolExecutor(min(workers, len(pieces))) as pool:
            futures = [pool.submit(play, state, seed, cap, first, count)
                       for first, count in pieces]  # fmt: skip
            for future, (_, count) in zip(futures, pieces, strict=True):
                tallies.append(future.result())
                if progress is not None:
                    progress(count)
    total = tallies[0]
    for more in tallies[1:]:
        total.merge(more)
    return total
