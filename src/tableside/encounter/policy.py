"""A simple, documented fighting policy for automated Wars (golden transcripts, simulation).

On its Turn each combatant: Strikes the nearest standing enemy within Melee Range while it has
the AP; otherwise moves straight toward the nearest standing enemy until 2.5" from it (or as far
as its AP allow) and Strikes if it then can; when nothing more is possible, it ends the Turn.

A combatant whose weapon cannot Strike in melee (a Bow or a Sling) makes Ranged Strikes instead
(M-27), which reach beyond 3" and up to the weapon's range (M-15). Its target is still the
nearest standing enemy: within that band it Strikes it; nearer, it steps straight back until
3.5" away; beyond its range, it moves toward it until 1" inside the range (as far as its AP
allow), and Strikes if it then can.

A combatant in Defensive Stance pays 1 AP more for each Strike (M-14, M-17): it Strikes only
with the 4 AP that costs (F-55).

A Grappler (M-37) that may not Strike others (less than 40 more Might than one it holds) takes
as its target the nearest standing enemy it holds, and with none it ends its Turn.

With the rest rule on (:class:`WarPolicy` ``rest=True``, the simulation's default; the golden
transcript runs without it), two things change, both about Exertion (M-4):

1. A Weary combatant (Exertion above its Stamina) whose target is out of its Strike's reach
   (beyond Melee Range; for a ranged-only weapon, outside the band above) first Rests off the
   excess (Exertion less Stamina, at most its AP and 7) before it moves.
2. AP it would otherwise lose at the end of its Turn (too few left to Strike or to Move) are
   spent on Rest while it has Exertion (at most 7 AP per Rest).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tableside.encounter.log import Command
from tableside.encounter.war.state import Combatant, WarState
from tableside.majesty import special
from tableside.majesty.catalog import Catalog, Weapon, builtin_catalog
from tableside.majesty.character import Attribute
from tableside.majesty.geometry import Point, distance

STRIKE_AP = 3
MELEE_RANGE = 3.0
CLOSE_TO = 2.5
BACK_TO = 3.5  # a ranged-only Striker steps back to this distance (beyond Melee Range)
INSIDE_RANGE = 1.0  # and closes to this much inside its weapon's range
REST_AP_MAX = 7


def nearest_enemy(state: WarState, me: Combatant) -> Combatant | None:
    """The closest standing combatant of the other side (ties: lowest id)."""
    enemies = [
        c
        for c in state.combatants.values()
        if c.character.side != me.character.side and not c.defeated
    ]
    return min(enemies, key=lambda c: (distance(me.position, c.position), c.id), default=None)


def held_by(state: WarState, me: Combatant) -> list[Combatant]:
    """Everyone ``me`` is Grappling (M-37)."""
    return [
        c
        for c in state.combatants.values()
        if c.grappled_by == me.id and c.entangled_strength is None
    ]


def target_of(state: WarState, me: Combatant) -> Combatant | None:
    """The nearest standing enemy; a Grappler that may not Strike others, one it holds (M-37)."""
    held = held_by(state, me)
    might = special.grappler_might(me.character.referenced(Attribute.MIGHT), len(held))
    if all(
        special.grappler_options(might, c.character.referenced(Attribute.MIGHT)).strike_others
        for c in held
    ):
        return nearest_enemy(state, me)
    enemies = [c for c in held if c.character.side != me.character.side and not c.defeated]
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
    """The combatant whose Turn it is, if it can act at all (not Defeated, Bound, Grappled, Asleep).

    An Asleep elohim is incapacitated (A-43): its Turn passes, as a Bound one's (M-36).
    """
    current = state.current
    if state.ended or current is None:
        return None
    me = state.combatants.get(current.combatant)
    if me is None or me.defeated or me.bound or me.asleep or me.grappled_by is not None:
        return None
    return me


def strike_ap(me: Combatant) -> int:
    """What a plain Strike costs it: 3 AP, 1 more in Defensive Stance (M-14, M-17, F-55)."""
    return STRIKE_AP + (1 if me.stance else 0)


def fight(me: Combatant, target: Combatant) -> Command | None:
    """Strike the target within Melee Range, or move toward it; None when neither is possible."""
    gap = distance(me.position, target.position)
    if gap <= MELEE_RANGE and me.ap >= strike_ap(me):
        return Command("strike", {"striker": me.id, "defender": target.id})
    if gap > MELEE_RANGE and me.ap >= 1:
        inches = min(gap - CLOSE_TO, float(me.ap))
        destination = step_toward(me.position, target.position, inches)
        return Command("move", {"id": me.id, "to": list(destination)})
    return None


def step_away(start: Point, source: Point, inches: float) -> Point:
    """The point ``inches`` from start straight away from source (along +x if they coincide)."""
    gap = distance(start, source)
    if gap == 0:
        return (start[0] + inches, start[1], start[2])
    t = inches / gap
    return (
        start[0] + (start[0] - source[0]) * t,
        start[1] + (start[1] - source[1]) * t,
        start[2] + (start[2] - source[2]) * t,
    )


def move_to(me: Combatant, target: Combatant, keep: float) -> Command | None:
    """Move straight toward (or away from) the target to end ``keep``" from it, AP allowing."""
    gap = distance(me.position, target.position)
    inches = min(abs(gap - keep), float(me.ap))
    if me.ap < 1 or inches <= 0:
        return None
    if keep > gap:
        destination = step_away(me.position, target.position, inches)
    else:
        destination = step_toward(me.position, target.position, inches)
    return Command("move", {"id": me.id, "to": list(destination)})


def shoot(me: Combatant, target: Combatant, weapon: Weapon) -> Command | None:
    """A ranged-only Striker: Strike in the band (3", range], else step into it (M-15, M-27)."""
    gap, reach = distance(me.position, target.position), float(weapon.ranged_range or 0)
    if MELEE_RANGE < gap <= reach:
        if me.ap < strike_ap(me):
            return None
        return Command("strike", {"striker": me.id, "defender": target.id, "ranged": True})
    return move_to(me, target, BACK_TO if gap <= MELEE_RANGE else reach - INSIDE_RANGE)


def rest(me: Combatant, most: int) -> Command | None:
    """Rest for up to ``most`` Exertion (1 per AP, at most 7 AP, M-4); None if nothing to rest."""
    ap = min(most, me.ap, me.character.exertion, REST_AP_MAX)
    return Command("rest", {"id": me.id, "ap": ap}) if ap >= 1 else None


def in_reach(me: Combatant, target: Combatant, weapon: Weapon) -> bool:
    """Whether it could Strike the target from where it stands (M-15, M-27)."""
    gap = distance(me.position, target.position)
    if weapon.melee:
        return gap <= MELEE_RANGE
    return MELEE_RANGE < gap <= float(weapon.ranged_range or 0)


def weary_rest(me: Combatant, target: Combatant, weapon: Weapon) -> Command | None:
    """Rule 1: Weary and out of its Strike's reach → Rest off the Exertion above Stamina first."""
    excess = me.character.exertion - me.character.war.stamina
    if excess <= 0 or in_reach(me, target, weapon):
        return None
    return rest(me, excess)


@dataclass(frozen=True)
class WarPolicy:
    """The War policy; ``rest`` adds the two Rest rules of the module docstring."""

    rest: bool = False
    catalog: Catalog = field(default_factory=builtin_catalog)

    def attack(self, me: Combatant, target: Combatant, weapon: Weapon) -> Command | None:
        """Strike or close in: in melee, or with Ranged Strikes for a ranged-only weapon."""
        return fight(me, target) if weapon.melee else shoot(me, target, weapon)

    def __call__(self, state: WarState) -> Command:
        """The next command for whoever's Turn it is (or 'next')."""
        me = acting(state)
        target = None if me is None else target_of(state, me)
        if me is None or target is None:
            return Command("next")
        weapon = self.catalog.weapon(me.character.weapon)
        chosen = weary_rest(me, target, weapon) if self.rest else None
        chosen = chosen or self.attack(me, target, weapon)
        if chosen is None and self.rest:
            chosen = rest(me, REST_AP_MAX)
        return chosen or Command("next")


def next_command(state: WarState) -> Command:
    """The policy's next command for whoever's Turn it is (or 'next'); no Rest rule."""
    return WarPolicy()(state)
