"""The kernel's reading of the conditions that bind a Turn (F-72): ``fast_strife_compel`` on arrays.

Each condition kind carries what it binds (:data:`FEAR`, :data:`TAUNT`, :data:`CONTROL`; 0:
nothing) and the model its source names (``Static.kind_bind``, ``Static.kind_owner``, from
``fast_strife_compel.owner_of``); it binds while that model stands and is not the victim.
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_strife_kernel_base import (
    CONTACT,
    F64,
    KERNEL_FILES,
    State,
    Static,
    _dist,
    _dist_to,
    helper,
    inline,
)

numba_cache.covers(__file__, *KERNEL_FILES)

FEAR, TAUNT, CONTROL = 1, 2, 3  # what a condition kind binds (Static.kind_bind)


@inline
def _owner(s: State, k: Static, who: int, slot: int) -> int:
    """The standing model other than ``who`` that the condition in ``slot`` names (−1: none)."""
    owner = k.kind_owner[s.kind[who, slot]]
    if owner < 0 or owner == who or s.hp[owner] <= 0:
        return -1
    return int(owner)


@helper
def bound(s: State, k: Static, who: int) -> bool:
    """``fast_strife_compel.bound``: a binding condition holds ``who`` now."""
    for slot in range(s.held[who]):
        if k.kind_bind[s.kind[who, slot]] != 0 and _owner(s, k, who, slot) >= 0:
            return True
    return False


@helper
def taunt_allows(s: State, k: Static, attacker: int, target: int) -> bool:
    """``fast_strife_compel.taunt_allows``: a Taunted model aims only at a taunter (SA-91)."""
    taunted = False
    for slot in range(s.held[attacker]):
        if k.kind_bind[s.kind[attacker, slot]] == TAUNT:
            owner = _owner(s, k, attacker, slot)
            if owner == target:
                return True
            taunted = taunted or owner >= 0
    return not taunted


@helper
def may_move(s: State, k: Static, who: int, to: F64) -> bool:
    """``fast_strife_compel.may_move``: the engine's fear and taunt checks (SA-70, SA-71).

    Farther from each feared model; no farther from a taunter unless in base contact with it.
    """
    for slot in range(s.held[who]):
        bind = k.kind_bind[s.kind[who, slot]]
        if bind != FEAR and bind != TAUNT:
            continue
        owner = _owner(s, k, who, slot)
        if owner < 0:
            continue
        after, before = _dist_to(s.pos, owner, to), _dist(s.pos, who, owner)
        if bind == FEAR and after <= before:
            return False
        if bind == TAUNT and after > before and after > CONTACT:
            return False
    return True


@inline
def aimed(s: State, k: Static, me: int, count: int) -> bool:
    """Whether a Taunted caster may aim at every one of ``s.targets``' first ``count`` (SA-91)."""
    for t in range(count):  # noqa: SIM110 (a loop numba compiles)
        if not taunt_allows(s, k, me, s.targets[t, 0]):
            return False
    return True
