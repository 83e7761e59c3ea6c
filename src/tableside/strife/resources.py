"""Class resources at the end and start of a combat (S-22)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tableside.strife.catalog import Pool, Resource
from tableside.strife.rounding import half_of

Pools = Mapping[Resource, Pool]


@dataclass(frozen=True, slots=True)
class CombatEnd:
    """Resources after a combat ends (S-22).

    Attributes:
        pools: Every resource after the end-of-combat rules.
        fury_decayed: Fury right after the combat (half, rounded half up; SA-1); it is what
            ``pools`` holds when another battle follows within 2 minutes, else Fury is 0.
        honor_oaths_may_change: Honor oaths and virtues may be changed at the next combat.
    """

    pools: dict[Resource, Pool]
    fury_decayed: int | None
    honor_oaths_may_change: bool


def _vigor(pool: Pool, wave: bool) -> Pool:
    """Vigor returns to max, or half max in a wave fight (Host's choice) (S-22)."""
    if pool.maximum is None:
        return pool
    restored = half_of(pool.maximum) if wave else pool.maximum
    return Pool(current=max(pool.current, restored), maximum=pool.maximum)


def end_of_combat(
    pools: Pools, *, wave: bool = False, battle_within_2_minutes: bool = False
) -> CombatEnd:
    """Apply S-22 to a model's resources at the end of a combat.

    Vigor is restored, Fury halves at once and is lost unless another battle follows within 2
    minutes; Honor code stacks, Spirit, Faith, Focus and Stealth (and HP, kept apart) carry over.
    """
    after = dict(pools)
    fury_decayed = None
    if Resource.VIGOR in pools:
        after[Resource.VIGOR] = _vigor(pools[Resource.VIGOR], wave)
    if Resource.FURY in pools:
        fury = pools[Resource.FURY]
        fury_decayed = half_of(fury.current)
        kept = fury_decayed if battle_within_2_minutes else 0
        after[Resource.FURY] = Pool(current=kept, maximum=fury.maximum)
    return CombatEnd(after, fury_decayed, Resource.HONOR in pools)


def start_of_combat(pools: Pools, *, hiding_declared: bool = False) -> dict[Resource, Pool]:
    """Stealth starts each combat at 0 unless hiding was declared beforehand (S-22, SA-16)."""
    after = dict(pools)
    stealth = pools.get(Resource.STEALTH)
    if stealth is not None and not hiding_declared:
        after[Resource.STEALTH] = Pool(current=0, maximum=stealth.maximum)
    return after
