"""A cast through water on the fast Realm of Strife engine's Python path (F-70).

A projectile power (Blockable or Dodge-able, not touch) counts each inch to a target through
water twice when the caster or the target is under water (``forced.water_gap``, S-16, SA-76),
and the engine refuses a cast with a target beyond its range so counted. The policy's first
cast is chosen by the plain distance (F-40); refused, the policy tries each power it can pay for
at each enemy it reaches, with the others it reaches, then alone (``policy._other_casts``,
SA-94), and then its attacks and moves. :func:`accepted` is the engine's check,
:func:`other_cast` the policy's next casts; the kernel's are in ``fast_strife_kernel_water``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from tableside.encounter.strife.policy import affordable, most_targets, reaches
from tableside.majesty.geometry import Point
from tableside.simulate.fast_strife_run import Choice, Roster, Run
from tableside.strife.catalog import PowerEntry


def accepted(roster: Roster, pos: list[Point], caster: int, entry: PowerEntry,
             targets: tuple[int, ...]) -> bool:  # fmt: skip
    """Whether the engine's range check passes every target, through water (SA-60, SA-76)."""
    if entry.touch or not (entry.blockable or entry.dodge_allowed):
        return True
    for target in targets:
        gap = math.dist(pos[caster], pos[target])
        if roster.submerged[caster] or roster.submerged[target]:
            gap = 2 * gap
        if gap > float(entry.range):
            return False
    return True


def cast_choice(run: Run, roster: Roster, me: int, k: int, targets: tuple[int, ...]) -> Choice:
    """The cast of power ``k`` on ``targets``, each Blocking a blockable power while it may."""
    entry = roster.powers[me][k]
    blocks = tuple(entry.blockable and j not in run.reacted
                   and roster.reaction[j] == "block" for j in targets)  # fmt: skip
    return ("cast", me, targets, k, blocks)


def other_casts(
    run: Run, roster: Roster, me: int, enemies: list[tuple[float, str, int]]
) -> Iterator[Choice]:
    """``policy._other_casts``' casts in its order (SA-94).

    Each power it can pay for at each enemy it reaches, with the others it reaches (up to its
    most), then alone.
    """
    pools = run.pools[me]
    ordered = sorted(enemies)
    for k, entry in enumerate(roster.powers[me]):
        pool = pools.get(entry.resource, 0) if entry.resource is not None else 0
        if not affordable(entry, pool):
            continue
        reached = [j for gap, _, j in ordered if reaches(entry, gap)]
        for first in reached:
            with_others = (first, *(j for j in reached if j != first))[: most_targets(entry)]
            for targets in (with_others, (first,)):
                yield cast_choice(run, roster, me, k, targets)


def other_cast(
    run: Run, roster: Roster, me: int, enemies: list[tuple[float, str, int]]
) -> Choice | None:
    """``policy._other_casts`` put to :func:`accepted`: the first the engine takes (SA-94)."""
    for cast in other_casts(run, roster, me, enemies):
        if accepted(roster, run.pos, me, roster.powers[me][cast[3]], cast[2]):
            return cast
    return None
