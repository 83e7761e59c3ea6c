"""The fast Realm of Strife engine's rules: the policy's commands applied to a run (F-8, F-41).

:class:`Rules` applies each command in the order ``encounter/strife/`` applies its events.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from tableside.encounter.strife.args import CONTACT, NEXT_TURN_END
from tableside.encounter.strife.climbing import rounded
from tableside.majesty.geometry import Point, distance
from tableside.simulate.fast_strife_compel import bound, taunt_allows
from tableside.simulate.fast_strife_law import Law, Outcome
from tableside.simulate.fast_strife_laws import Laws, absorbed
from tableside.simulate.fast_strife_oneroll import cast_draws
from tableside.simulate.fast_strife_run import ROLLED_BACK, Choice, Roster, Run, dist
from tableside.strife.conditions import (
    KNOCKED_DOWN,
    Condition,
    add_condition,
    condition,
    end_condition,
    tick_round,
)
from tableside.strife.movement import Leg, MoveMode, leg_cost
from tableside.strife.turns import ROLL_WITH_THE_BLOW_INITIATIVE


class Rules:
    """Applies the policy's commands to a run, in the engine's order of events."""

    def __init__(self, roster: Roster, laws: Laws) -> None:
        self.roster, self.laws = roster, laws
        self.sides = set(roster.side)
        self.costs: dict[tuple[float, bool, bool], float] = {}

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
                # flying: above the ground and not perched (``forced.flying``, F-71)
                flying = run.pos[attacker][2] > 0 and not run.perched[attacker]
                law = self.laws.shot(attacker, weapon, target, int(run.moved[attacker]), flying)
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

        Each target's cast is drawn from its own law (one target, or a casting roll each), or on
        several targets of a one-roll power from its law given the shared casting d100 (F-73);
        the damage is dealt target by target, then the effects are put on each target the
        damage has not downed (SA-62).
        """
        _, caster, targets, k, blocks = choice
        entry = self.roster.powers[caster][k]
        run.elements[caster] = (*run.elements[caster], "action")
        if entry.cost and entry.resource is not None:
            pools = run.pools[caster]
            run.pools[caster] = {**pools, entry.resource: pools[entry.resource] - entry.cost}
        keys = [(caster, k, target, block) for target, block in zip(targets, blocks, strict=True)]
        drawn = []
        for target, (law, outcome) in zip(  # one-roll: the shared d100 first (F-73)
            targets, cast_draws(self.laws.casts, self.laws.given, keys, draw), strict=True
        ):
            if law.reacts:
                run.reacted.add(target)
            drawn.append((target, outcome))
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
        """A Move: its cost (S-6) and the Attacks of Opportunity it offers (S-18)."""
        run.elements[who] = (*run.elements[who], "move")
        inches = distance(run.pos[who], to)
        cost = self.cost(inches, run.conds[who], self.roster.swims[who])
        before = self.contacts(run, who)
        if to[2] <= 0 or to[2] != run.pos[who][2]:  # its own Move up or down leaves a perch
            run.perched[who] = False  # (``perched_after``, SA-90, F-71)
        run.pos[who] = to
        run.moved[who] += rounded(inches)
        run.spent[who] += cost
        after = self.contacts(run, who)
        if run.conds[who] and bound(run, self.roster, who):  # under compulsion (SA-71, F-72)
            return
        for enemy in before:
            if enemy in after or not taunt_allows(run, self.roster, enemy, who):  # SA-91
                continue
            used = run.aoo.get(enemy)
            if not used and enemy in run.reacted:
                continue
            spent = used or set()
            for weapon in dict.fromkeys(self.roster.weapons[enemy]):
                if weapon not in spent:
                    run.offers.append((enemy, weapon, who))

    def cost(self, inches: float, conds: tuple[Condition, ...], swim: bool = False) -> float:
        """A Move's cost as the ``moved`` event holds it (S-6, S-23, SA-76), remembered.

        Walking (crawling Knocked Down), or swimming under water (F-70).
        """
        knocked = any(c.name == KNOCKED_DOWN for c in conds)
        found = self.costs.get((inches, knocked, swim))
        if found is None:
            mode = MoveMode.SWIM if swim else MoveMode.WALK
            leg = Leg(Fraction(inches).limit_denominator(100), mode)
            found = round(float(leg_cost(leg, conds)), 3)
            self.costs[inches, knocked, swim] = found
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
        run.perched[who] = run.perched[who] and to[2] > 0  # a forced move keeps a perch (F-71)
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
        at = next((k for k, j in enumerate(rest)  # not after one gone to the bottom (S-4, F-68)
                   if j in run.bottom or self.score_key(run, j) < key), len(rest))  # fmt: skip
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
                owed = j in run.owes  # its instant went out of turn: used, barred (S-4, F-74)
                run.elements[j], run.moved[j], run.spent[j] = ("instant",) if owed else (), 0.0, 0.0
                run.barred[j] = owed
                run.owes.discard(j)
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
        run.reacted, run.failed, run.offers, run.bottom = set(), set(), [], frozenset()
        for j in run.order:
            run.penalty[j] = 0
        self.next_turn(run)

    def check_end(self, run: Run) -> None:
        """The fight ends when only one side has models standing."""
        standing = {self.roster.side[j] for j in range(len(run.hp)) if run.hp[j] > 0}
        if run.round >= 0 and len(self.sides) > 1 and len(standing) < 2 and not run.ended:
            run.ended, run.winner = True, next(iter(standing), None)
