"""The fast Strife kernel's policy: ``encounter/strife/policy.py`` on the run's arrays (F-50).

:func:`_choose` writes the policy's next command into ``State.command`` (and its point into
``State.to``, a cast's targets into ``State.targets``).
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_strife_kernel_base import (
    ACTION,
    AOO,
    ATTACK,
    CAST,
    CONTACT,
    ENDED,
    FAILED,
    KERNEL_FILES,
    LAST_BY,
    LAST_HURT,
    MOVE,
    MOVE_TO,
    NEXT,
    OFFERS_N,
    REACTED,
    ROLL,
    ROUNDING,
    WHOLE_TURN,
    State,
    Static,
    _away,
    _bit,
    _current,
    _dist,
    _next_enemy,
    _reach,
    _reaches,
    _toward,
    helper,
    inline,
)
from tableside.simulate.fast_strife_kernel_compel import bound, may_move, taunt_allows
from tableside.simulate.fast_strife_kernel_water import _cast_accepted, _other_cast, _with_others

numba_cache.covers(__file__, *KERNEL_FILES)


# --- the policy (encounter/strife/policy.py) ---------------------------------------------------


@inline
def _choose(s: State, k: Static) -> None:
    """The Strife policy's next command, into ``s.command`` and ``s.to``."""
    for o in range(s.scalar[OFFERS_N]):  # a Taunted one's only at its taunter (SA-91, F-72)
        if k.binds == 0 or taunt_allows(s, k, s.offers[o, 0], s.offers[o, 2]):
            s.command[0], s.command[1] = AOO, s.offers[o, 0]
            s.command[2], s.command[3] = s.offers[o, 2], s.offers[o, 1]
            return
    if _roll_with_the_blow(s, k):
        return
    _turn(s, k)


@inline
def _roll_with_the_blow(s: State, k: Static) -> bool:
    hurt = s.scalar[LAST_HURT]
    if hurt < 0:
        return False
    by = s.scalar[LAST_BY] if s.scalar[LAST_BY] >= 0 else _current(s)
    if by < 0 or s.hp[hurt] <= 0 or 2 * s.hp[hurt] >= k.hp_max[hurt]:
        return False
    if _bit(s.scalar[REACTED], hurt) or _bit(s.scalar[FAILED], hurt):
        return False
    inches = min(1.0, k.movement[hurt] / 2 - ROUNDING)
    if inches <= 0:
        return False
    s.command[0], s.command[1] = ROLL, hurt
    _away(s.pos, hurt, by, inches, s.to)
    return True


@inline
def _nearest(s: State, k: Static, me: int) -> tuple[int, float]:
    """The nearest standing enemy (ties: the lower id) and its distance; −1 for none."""
    near, gap = -1, 0.0
    for j in range(s.hp.shape[0]):
        if k.side[j] == k.side[me] or s.hp[j] <= 0:
            continue
        d = _dist(s.pos, me, j)
        if near < 0 or d < gap or (d == gap and k.rank[j] < k.rank[near]):
            near, gap = j, d
    return near, gap


@inline
def _turn(s: State, k: Static) -> None:
    s.command[0] = NEXT
    me = _current(s)
    if me < 0 or s.scalar[ENDED] or s.elements[me] & (ACTION | WHOLE_TURN):  # S-5, F-74
        return
    near, gap = _nearest(s, k, me)
    if near < 0:
        return
    reach = _reach(s, k, me) if k.movement[me] else 0.0
    can_move = not s.elements[me] & MOVE and reach > 0
    armed = k.weapons[me] > 0
    s.command[1], s.command[2] = me, near
    if k.binds and bound(s, k, me):  # Feared, Taunted, Controlled (SA-71, F-72)
        _compelled(s, k, me, near, gap, reach)
    elif gap <= CONTACT and can_move and 2 * s.hp[me] < k.hp_max[me]:
        s.command[0] = MOVE_TO
        _away(s.pos, me, near, reach, s.to)
    elif k.power_start[me + 1] > k.power_start[me] and _cast(s, k, me, gap):
        return
    elif gap <= CONTACT and armed and not k.shoots_first[me]:
        s.command[0] = ATTACK
        s.command[3] = 1 if _bit(s.scalar[REACTED], near) else 0
    elif gap > CONTACT and can_move and armed:
        s.command[0] = MOVE_TO
        _toward(s.pos, me, near, min(reach, gap - 0.9), s.to)
    elif armed and can_move and k.shoots_first[me]:
        _toward_another(s, k, me, near, gap, reach)


@helper
def _toward_another(s: State, k: Static, me: int, near: int, gap: float, reach: float) -> None:
    """Its shot refused in contact (SA-48): toward the next enemy not in contact (SA-94, F-62)."""
    last, last_gap = near, gap
    while True:
        other, other_gap = _next_enemy(s, k, me, last, last_gap)
        if other < 0:
            return
        if other_gap > CONTACT:
            s.command[0], s.command[2] = MOVE_TO, other
            _toward(s.pos, me, other, min(reach, other_gap - 0.9), s.to)
            return
        last, last_gap = other, other_gap


@helper
def _cast(s: State, k: Static, me: int, gap: float) -> bool:
    """F-40: the first power it can pay for that reaches the nearest enemy, on the nearest.

    The targets are the standing enemies it reaches in order of (distance, id), up to the
    power's most, each with whether it Blocks (into ``s.targets``); False: no cast.
    """
    for p in range(k.power_start[me], k.power_start[me + 1]):
        res, cost = k.power_resource[p], k.power_cost[p]
        if cost != 0 and (res < 0 or s.pools[me, res] < cost):
            continue
        if not _reaches(k, p, gap):
            continue
        nearest, _ = _next_enemy(s, k, me, -1, -1.0)  # reached: the others it reaches after it
        count = _with_others(s, k, me, p, nearest)
        if not _cast_accepted(s, k, me, p, count):  # refused through water (F-70)
            return _other_cast(s, k, me)
        s.command[0], s.command[1], s.command[2], s.command[3] = CAST, me, count, p
        return True
    return False


# --- a bound model's Turn (F-72) -----------------------------------------------------------------


@helper
def _compelled(s: State, k: Static, me: int, near: int, gap: float, reach: float) -> None:
    """``fast_strife_compel.compelled_turn``: the first choice the engine accepts (SA-94).

    The policy's choices in its order, into ``s.command`` (``s.command[1]`` is ``me``).
    """
    can_move = not s.elements[me] & MOVE and reach > 0
    armed = k.weapons[me] > 0
    if gap <= CONTACT and can_move and 2 * s.hp[me] < k.hp_max[me]:
        _away(s.pos, me, near, reach, s.to)
        if may_move(s, k, me, s.to):
            s.command[0], s.command[2] = MOVE_TO, near
            return
    if k.power_start[me + 1] > k.power_start[me] and _cast(s, k, me, gap):
        return  # the first cast the engine accepts: in range through water, at a taunter
    if _attacks(s, k, me, near, gap, armed):
        return
    if gap > CONTACT and can_move and armed:
        _toward(s.pos, me, near, min(reach, gap - 0.9), s.to)
        if may_move(s, k, me, s.to):
            s.command[0], s.command[2] = MOVE_TO, near
            return
    last, last_gap = near, gap
    while True:
        other, other_gap = _next_enemy(s, k, me, last, last_gap)
        if other < 0:
            break
        last, last_gap = other, other_gap
        if other_gap <= CONTACT and armed:
            if _attacks(s, k, me, other, other_gap, armed):
                return
        elif can_move and armed:
            _toward(s.pos, me, other, min(reach, other_gap - 0.9), s.to)
            if may_move(s, k, me, s.to):
                s.command[0], s.command[2] = MOVE_TO, other
                return
    s.command[0] = NEXT


@inline
def _attacks(s: State, k: Static, me: int, target: int, gap: float, armed: bool) -> bool:
    """An attack on ``target`` in contact, unless a shot (SA-48) or a taunt (SA-71) refuses it."""
    if gap > CONTACT or not armed or k.shoots_first[me] or not taunt_allows(s, k, me, target):
        return False
    s.command[0], s.command[2] = ATTACK, target
    s.command[3] = 1 if _bit(s.scalar[REACTED], target) else 0
    return True
