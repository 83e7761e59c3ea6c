"""The fast Strife kernel's casts through water: the engine's range check, the policy's next casts.

As ``fast_strife_water`` on the Python path (F-70): a projectile power (Blockable or Dodge-able,
not touch) counts each inch to a target twice when the caster or the target is under water
(``forced.water_gap``, S-16, SA-76), and the engine refuses a cast with a target beyond its
range so counted; the policy then tries each power it can pay for at each enemy it reaches,
with the others it reaches, then alone (``policy._other_casts``, SA-94).
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_strife_kernel_base import (
    CAST,
    KERNEL_FILES,
    REACTED,
    State,
    Static,
    _bit,
    _dist,
    _next_enemy,
    _reaches,
    helper,
    inline,
)
from tableside.simulate.fast_strife_kernel_compel import aimed

numba_cache.covers(__file__, *KERNEL_FILES)


@inline
def _cast_accepted(s: State, k: Static, me: int, p: int, count: int) -> bool:
    """``fast_strife_water.accepted``: each of ``s.targets``' first ``count`` within range.

    And, for a Taunted caster, each one of its taunters (SA-91, F-72).
    """
    if k.binds and not aimed(s, k, me, count):
        return False
    if not k.power_projectile[p]:
        return True
    for t in range(count):
        target = s.targets[t, 0]
        gap = _dist(s.pos, me, target)
        if k.submerged[me] or k.submerged[target]:
            gap = 2 * gap
        if gap > k.power_range[p]:
            return False
    return True


@inline
def _target(s: State, k: Static, p: int, t: int, j: int) -> None:
    """Target ``t`` of a cast of ``p`` is model ``j``, Blocking while it may (SA-68)."""
    s.targets[t, 0] = j
    s.targets[t, 1] = int(k.power_blockable[p] == 1 and k.blocker[j] == 1
                          and not _bit(s.scalar[REACTED], j))  # fmt: skip


@inline
def _with_others(s: State, k: Static, me: int, p: int, first: int) -> int:
    """``first``, then the other enemies ``p`` reaches in order, up to its most: how many."""
    _target(s, k, p, 0, first)
    count, last, last_gap = 1, -1, -1.0
    while count < k.power_most[p]:
        near, near_gap = _next_enemy(s, k, me, last, last_gap)
        if near < 0:
            break
        last, last_gap = near, near_gap
        if near != first and _reaches(k, p, near_gap):
            _target(s, k, p, count, near)
            count += 1
    return count


@helper
def _other_cast(s: State, k: Static, me: int) -> bool:
    """``fast_strife_water.other_cast``: the first next cast the engine takes.

    Into ``s.command`` and ``s.targets``; False: none (the policy attacks or moves).
    """
    for p in range(k.power_start[me], k.power_start[me + 1]):
        res, cost = k.power_resource[p], k.power_cost[p]
        if cost != 0 and (res < 0 or s.pools[me, res] < cost):
            continue
        first, first_gap = -1, -1.0
        while True:
            first, first_gap = _next_enemy(s, k, me, first, first_gap)
            if first < 0:
                break
            if not _reaches(k, p, first_gap):
                continue
            count = _with_others(s, k, me, p, first)
            if not _cast_accepted(s, k, me, p, count):
                count = 1
                if not _cast_accepted(s, k, me, p, count):
                    continue
            s.command[0], s.command[1], s.command[2], s.command[3] = CAST, me, count, p
            return True
    return False
