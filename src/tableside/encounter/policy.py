"""A simple, documented fighting policy for automated Wars (golden transcripts, simulation).

On its Turn each combatant: Strikes the nearest standing enemy within Melee Range while it has
the AP; otherwise moves straight toward the nearest standing enemy until 2.5" from it (or as far
as its AP allow) and Strikes if it then can; when nothing more is possible, it ends the Turn.

With the rest rule on (:class:`WarPolicy` ``rest=True``, the simulation's default; the golden
transcript runs without it), two things change, both about Exertion (M-4):

1. A Weary combatant (Exertion above its Stamina) with no standing enemy within Melee Range
   first Rests off the excess (Exertion less Stamina, at most its AP and 7) before it advances.
2. AP it would otherwise lose at the end of its Turn (too few left to Strike or to Move) are
   spent on Rest while it has Exertion (at most 7 AP per Rest).
"""

from __future__ import annotations

from dataclasses import dataclass

from tableside.encounter.log import Command
from tableside.encounter.war_state import Combatant, WarState
from tableside.majesty.geometry import Point, distance

STRIKE_AP = 3
MELEE_RANGE = 3.0
CLOSE_TO = 2.5
REST_AP_MAX = 7


def nearest_enemy(state: WarState, me: Combatant) -> Combatant | None:
    """The closest standing combatant of the other side (ties: lowest id)."""
    enemies = [
        c
        for c in state.combatants.values()
        if c.character.side != me.character.side and not c.defeated
    ]
    return min(enemies, key=lambda c: (distance(me.position, c.position), c.id), default=None)


def step_toward(start: Point, goal: Point, inches: float) -> Point:
    """The point ``inches`` along the straight line from start to goal."""
    total = distance(start, goal)
    t = 0.0 if total == 0 else min(1.0, inches / total)
    return (
        start[0] + (goal[0] - start[0]) * t,
        start[1] + (goal[1] - start[1]) * t,
        start[2] + (goal[2] - start[2]) * t,
    )


def acting(state: WarState) -> Combatant | None:
    """The combatant whose Turn it is, if it can act at all (not Defeated, Bound or Grappled)."""
    current = state.current
    if state.ended or current is None:
        return None
    me = state.combatants.get(current.combatant)
    if me is None or me.defeated or me.bound or me.grappled_by is not None:
        return None
    return me


def fight(me: Combatant, target: Combatant) -> Command | None:
    """Strike the target within Melee Range, or move toward it; None when neither is possible."""
    gap = distance(me.position, target.position)
    if gap <= MELEE_RANGE and me.ap >= STRIKE_AP:
        return Command("strike", {"striker": me.id, "defender": target.id})
    if gap > MELEE_RANGE and me.ap >= 1:
        inches = min(gap - CLOSE_TO, float(me.ap))
        destination = step_toward(me.position, target.position, inches)
        return Command("move", {"id": me.id, "to": list(destination)})
    return None


def rest(me: Combatant, most: int) -> Command | None:
    """Rest for up to ``most`` Exertion (1 per AP, at most 7 AP, M-4); None if nothing to rest."""
    ap = min(most, me.ap, me.character.exertion, REST_AP_MAX)
    return Command("rest", {"id": me.id, "ap": ap}) if ap >= 1 else None


def weary_rest(me: Combatant, target: Combatant) -> Command | None:
    """Rule 1: Weary and out of Melee Range → Rest off the Exertion above Stamina first."""
    excess = me.character.exertion - me.character.war.stamina
    if excess <= 0 or distance(me.position, target.position) <= MELEE_RANGE:
        return None
    return rest(me, excess)


@dataclass(frozen=True)
class WarPolicy:
    """The War policy; ``rest`` adds the two Rest rules of the module docstring."""

    rest: bool = False

    def __call__(self, state: WarState) -> Command:
        """The next command for whoever's Turn it is (or 'next')."""
        me = acting(state)
        target = None if me is None else nearest_enemy(state, me)
        if me is None or target is None:
            return Command("next")
        chosen = weary_rest(me, target) if self.rest else None
        chosen = chosen or fight(me, target)
        if chosen is None and self.rest:
            chosen = rest(me, REST_AP_MAX)
        return chosen or Command("next")


def next_command(state: WarState) -> Command:
    """The policy's next command for whoever's Turn it is (or 'next'); no Rest rule."""
    return WarPolicy()(state)
