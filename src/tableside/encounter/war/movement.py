"""Movement: moving for AP and Knock Back with its collisions and Barriers (M-35, M-40, A-42)."""

from __future__ import annotations

import math
from typing import Any

from tableside.dice import Rng
from tableside.encounter.war.args import (
    MoveArgs,
    cached_args,
)
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    deal_wear,
    inflict_falter,
    require_free,
    run_check,
    spend_ap,
)
from tableside.encounter.war.state import WarState
from tableside.majesty import special
from tableside.majesty.character import Attribute
from tableside.majesty.geometry import Point, distance


def do_move(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Move in 3D for 1 AP per inch, whole inches rounded up."""
    args = cached_args(MoveArgs, raw, "move")
    c = p.combatant(args.id)
    require_free(c, "Move")
    inches = distance(c.position, args.to)
    cost = math.ceil(inches - 1e-9)
    spend_ap(p, c.id, cost, "Move")
    p.emit("moved", "M-40", id=c.id, to=list(args.to), inches=round(inches, 3), ap=cost)


def knock_back(p: Pending, who: str, origin: Any, inches: float, rng: Rng) -> None:
    """Knock Back: move away, Control Check Falter, collisions with their Wear (M-35)."""
    c = p.combatant(who)
    end = special.knock_back_destination(origin, c.position, inches)
    others = {o.id: o.position for o in p.state.combatants.values() if o.id != who}
    wall = first_barrier(p.state, c.position, end)
    for hit in special.path_collisions(c.position, end, others):
        if wall is not None and wall.inches_left > hit.inches_left:
            break  # the Barrier comes first on the path
        if not avoided(p, hit.other, rng):  # each elohim met in turn, until one is hit
            collide(p, who, hit, rng)
            end, wall = hit.point, None
            break
    if wall is not None:
        hit_barrier(p, who, wall)
        end = wall.point
    p.emit("moved", "M-35", id=who, to=list(end), inches=inches, ap=0, forced=True)
    setup = special.knock_back_check(c.character.referenced(Attribute.CONTROL), inches)
    result = run_check(p, who, setup, rng, "Knock Back Control Check", "M-35")
    falter = special.knock_back_falter(result.passes_short, inches)
    if falter:
        inflict_falter(p, who, falter, "Knock Back")


def first_barrier(state: WarState, start: Point, end: Point) -> special.Collision | None:
    """The first Barrier the Knock Back's path meets, if any (A-42)."""
    hits = [
        hit
        for name, b in sorted(state.barriers.items())
        if (hit := special.barrier_collision(start, end, b.center, b.radius, name)) is not None
    ]
    return max(hits, key=lambda h: h.inches_left, default=None)


def hit_barrier(p: Pending, who: str, wall: special.Collision) -> None:
    """A Barrier stops the Knock Back: WearE as a collision with its Resolve as Endurance (A-42).

    A Barrier makes no Check and takes no Wear.
    """
    c = p.combatant(who)
    barrier = p.state.barriers[wall.other]
    wear = special.collision_wear(c.character.current_endurance, barrier.resolve, wall.inches_left)
    deal_wear(p, who, "E", wear.knocked, f"collision with the Barrier {wall.other}", "M-35")


def avoided(p: Pending, other: str, rng: Rng) -> bool:
    """The elohim in the way may first try a Swiftness Check to avoid the collision (M-35)."""
    o = p.combatant(other)
    setup = special.avoid_collision_check(o.character.referenced(Attribute.SWIFTNESS))
    result = run_check(p, other, setup, rng, "Swiftness Check to avoid a collision", "M-35")
    return special.avoids_collision(result)


def collide(p: Pending, who: str, hit: special.Collision, rng: Rng) -> None:
    """Collision: the other Falters by its Control Check's Passes short; both take WearE (M-35)."""
    o, c = p.combatant(hit.other), p.combatant(who)
    setup = special.collision_control_check(o.character.referenced(Attribute.CONTROL))
    short = run_check(p, o.id, setup, rng, "collision Control Check", "M-35").passes_short
    if short:
        inflict_falter(p, o.id, short, "collision")
    wear = special.collision_wear(
        c.character.current_endurance, o.character.current_endurance, hit.inches_left
    )
    deal_wear(p, who, "E", wear.knocked, "collision", "M-35")
    deal_wear(p, o.id, "E", wear.other, "collision", "M-35")
