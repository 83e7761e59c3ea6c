"""A simple, documented fighting policy for automated Wars (golden transcripts, simulation).

On its Turn each combatant: Strikes the nearest standing enemy within Melee Range while it has
the AP; otherwise moves straight toward the nearest standing enemy until 2.5" from it (or as far
as its AP allow) and Strikes if it then can; when nothing more is possible, it ends the Turn.
"""

from __future__ import annotations

from tableside.encounter.log import Command
from tableside.encounter.war_state import Combatant, WarState
from tableside.majesty.geometry import Point, distance

STRIKE_AP = 3
CLOSE_TO = 2.5


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


def next_command(state: WarState) -> Command:
    """The policy's next command for whoever's Turn it is (or 'next')."""
    current = state.current
    if state.ended or current is None:
        return Command("next")
    me = state.combatants.get(current.combatant)
    if me is None or me.defeated or me.bound or me.grappled_by is not None:
        return Command("next")
    target = nearest_enemy(state, me)
    if target is None:
        return Command("next")
    gap = distance(me.position, target.position)
    if gap <= 3.0 and me.ap >= STRIKE_AP:
        return Command("strike", {"striker": me.id, "defender": target.id})
    if gap > 3.0 and me.ap >= 1:
        inches = min(gap - CLOSE_TO, float(me.ap))
        destination = step_toward(me.position, target.position, inches)
        return Command("move", {"id": me.id, "to": list(destination)})
    return Command("next")
