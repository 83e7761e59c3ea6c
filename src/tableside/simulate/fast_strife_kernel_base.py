"""The fast Realm of Strife kernel's arrays, numbers and small helpers (issue 15, F-50).

The kernel (:mod:`fast_strife_kernel`) is cut by concern: this module holds its numba options,
the run's and the fight's arrays (:class:`State`, :class:`Static`), their codes and the small
helpers every part inlines (distances, rounding, the current model); the policy is in
:mod:`fast_strife_kernel_policy`, the rules it meets in :mod:`fast_strife_kernel_acts` (commands)
and :mod:`fast_strife_kernel_turns` (Turn Order, the end of a Turn). numba checks only the file
of the function it caches, so each of these modules keys its machine code by all of their
sources (:data:`KERNEL_FILES`, ``numba_cache.covers``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from tableside.simulate import numba_cache
from tableside.simulate.fast_kernel import distance3

F = TypeVar("F", bound=Callable[..., Any])

KERNEL_FILES = tuple(
    str(Path(__file__).with_name(f"{name}.py"))
    for name in ("fast_kernel", "fast_strife_kernel", "fast_strife_kernel_base",
                 "fast_strife_kernel_policy", "fast_strife_kernel_acts",
                 "fast_strife_kernel_turns", "fast_strife_kernel_compel",
                 "fast_strife_kernel_water")
)  # fmt: skip

# As the War kernel's (own copy, so that a change there does not silently change this one):
# cached on disk, no GIL, no reference counting (the kernel allocates nothing), no fast-math
# (distances and rounding are bit for bit Python's).
OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
numba_cache.install()  # the compiled code kept in the user's cache folder (issue 23)
numba_cache.covers(__file__, *KERNEL_FILES)


def jit(function: F) -> F:
    """Compile with numba (:data:`OPTIONS`)."""
    return cast(F, numba.njit(**OPTIONS)(function))


def inline(function: F) -> F:
    """A small, hot helper of the kernel, compiled into its callers."""
    return cast(F, numba.njit(**OPTIONS, inline="always")(function))


def helper(function: F) -> F:
    """A helper of the kernel compiled apart (inlining every one doubled the first compile)."""
    return cast(F, numba.njit(**OPTIONS)(function))


I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

CONTACT = 1.0  # ``strife.args.CONTACT``
ROUNDING = 0.005  # ``strife.policy.ROUNDING``
PENALTY = 10  # ``turns.ROLL_WITH_THE_BLOW_INITIATIVE``
ACTION, MOVE, INSTANT, WHOLE_TURN = 1, 2, 4, 8  # Turn elements, as bits
OWED, BARRED = 16, 32  # its next Turn's instant used out of turn; this Turn's barred (S-4, F-74)
NEXT, MOVE_TO, ATTACK, AOO, ROLL, CAST = 0, 1, 2, 3, 4, 5  # commands
OK, ERR_SLOTS, ERR_OFFERS, ERR_SHOT = 0, 1, 2, 3
SPLIT = 134217729.0  # 2**27 + 1: the Veltkamp-Dekker split

# Scalars of a run (``State.scalar``).
ORDER_N, TURN, ROUND, REACTED, FAILED, OFFERS_N, LAST_HURT, LAST_BY, ENDED, WINNER = range(10)
DRAWS, COMMANDS = 10, 11
BOTTOM = 12  # bit set: who went to the bottom of the queue this round (S-4, F-68)
SCALARS = 13


class State(NamedTuple):
    """One run's state (scratch), or the start every run copies."""

    hp: I64
    pos: F64  # models × 3
    kind: I64  # models × slots: condition kinds (−1: free)
    rounds: I64  # models × slots: rounds left (−1: lasts ``until`` something)
    held: I64  # conditions per model
    fresh: I64  # bit set of condition names put on during the model's own Turn (SA-50)
    elements: I64  # bit set: ACTION, MOVE, INSTANT, WHOLE_TURN, and OWED, BARRED (F-74)
    moved: F64
    penalty: I64
    order: I64
    aoo: I64  # bit set of weapons used for AoOs this Turn
    offers: I64  # offers × (attacker, weapon, target)
    scalar: I64
    command: I64  # the chosen command: kind, who, other (a cast: targets), weapon, slot or power
    to: F64  # the chosen command's point
    pools: I64  # models × resources: what each caster holds of each resource (F-60)
    targets: I64  # a cast's targets × (model, Blocks, outcome drawn)
    perched: I64  # per model, 1: above the ground where it climbed to, not flying (F-71)


class Static(NamedTuple):
    """The fight's roster and attack laws, as arrays."""

    side: I64
    hp_max: I64
    movement: I64
    score: I64
    initiative: I64
    rank: I64  # place of the model's id in sorted order (ties of distance and Turn Order)
    weapons: I64  # distinct equipped weapons
    reacts: I64  # 1: the policy declares a reaction while the Reaction lasts
    law_of: I64  # attacker × weapon × defender × (policy's reaction, none): law (−1: none)
    law_start: I64  # law → first outcome (one more entry than laws)
    law_reacts: I64
    cumulative: F64  # per outcome
    failed: I64
    damage: I64
    put_start: I64  # outcome → first condition put on (one more entry than outcomes)
    put_target: I64  # 0: the attacker, 1: the defender
    put_kind: I64
    put_rounds: I64
    kind_name: I64
    kind_source: I64
    kind_next_turn: I64  # 1: lasts to the end of the model's next Turn
    power_start: I64  # model → its first castable power, in the policy's order (F-40, F-60)
    power_resource: I64  # per power: resource code (−1: none)
    power_cost: I64
    power_touch: I64
    power_range: F64
    power_most: I64  # the most targets of one cast
    power_blockable: I64
    blocker: I64  # per model, 1: the policy Blocks a blockable power while the Reaction lasts
    cast_of: I64  # power × target × Blocks: law (−1: none)
    shoots_first: I64  # per model, 1: its first weapon is ranged (F-62)
    shot_of: I64  # attacker × weapon × defender × whole inches moved × flying: a shot's law
    absorption: I64  # per model, its Absorption % (F-64)
    cast_given: I64  # power × target × Blocks × casting d100 − 1: law given that face (F-73)
    d100: int  # the law of a one-roll power's shared casting d100 (F-73)
    sneaks: I64  # per model, 1: hidden, half its Movement for a Move (F-69)
    swims: I64  # per model, 1: under water and not aquatic, 2" an inch (F-70)
    kind_bind: I64  # per kind, what it binds (F-72): 0 nothing, 1 fear, 2 taunt, 3 control
    kind_owner: I64  # per kind, the model its source names (−1: none)
    binds: int  # 1: some kind binds (F-72)
    submerged: I64  # per model, 1: under water, a projectile's range through it counts 2 (F-70)
    power_projectile: I64  # per power, 1: Blockable or Dodge-able, not touch (F-70)
    knocked: int  # name code of Knocked Down
    rolled: int  # kind of the Roll with the Blow's Knocked Down
    sides: int


@inline
def round3(x: float) -> float:
    """Python's ``round(x, 3)``: the double nearest to x·1000 rounded half to even, over 1000.

    x·1000 is split exactly into p + e (Dekker's product; 1000 needs no split); the nearest
    integer n of p is the answer's numerator unless p is a half exactly, where e's sign (or,
    at e = 0, evenness) decides; n / 1000 is correctly rounded, as CPython's decimal string is.
    """
    if not math.isfinite(x) or abs(x) >= 1e15:
        return x
    p = x * 1000.0
    t = x * SPLIT
    hi = t - (t - x)
    lo = x - hi
    e = (hi * 1000.0 - p) + lo * 1000.0
    n = float(np.rint(p))
    d = p - n
    if d == 0.5 and e > 0.0:
        n += 1.0
    elif d == -0.5 and e < 0.0:
        n -= 1.0
    return n / 1000.0


@inline
def _rounded(x: float) -> float:
    """``strife.climbing.rounded``: 0 within 1e-9, else :func:`round3`."""
    return 0.0 if abs(x) <= 1e-9 else round3(x)


@inline
def _dist(pos: F64, i: int, j: int) -> float:
    return distance3(pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1], pos[i, 2] - pos[j, 2])


@inline
def _dist_to(pos: F64, i: int, to: F64) -> float:
    return distance3(pos[i, 0] - to[0], pos[i, 1] - to[1], pos[i, 2] - to[2])


@inline
def _away(pos: F64, i: int, j: int, inches: float, to: F64) -> None:
    """``strife.policy._away``: ``inches`` straight away from model j, rounded."""
    gap = _dist(pos, i, j)
    if gap == 0.0:
        gap = 1.0
    for axis in range(3):
        a, b = pos[i, axis], pos[j, axis]
        to[axis] = round3(a + (a - b) / gap * inches)


@inline
def _toward(pos: F64, i: int, j: int, inches: float, to: F64) -> None:
    """``strife.policy._toward``: ``inches`` toward model j (at most all the way), rounded."""
    gap = _dist(pos, i, j)
    if gap == 0.0:
        gap = 1.0
    t = min(1.0, inches / gap)
    for axis in range(3):
        a, b = pos[i, axis], pos[j, axis]
        to[axis] = round3(a + (b - a) * t)


@inline
def _has_name(s: State, i: int, name: int, k: Static) -> bool:
    for slot in range(s.held[i]):  # noqa: SIM110 (a loop numba compiles)
        if k.kind_name[s.kind[i, slot]] == name:
            return True
    return False


@inline
def _reach(s: State, k: Static, i: int) -> float:
    """Inches its Movement pays for: halved sneaking, then half crawling or swimming.

    (Knocked Down, S-6, S-23; hidden, SA-42, F-69; under water, SA-76, F-70.)
    """
    whole = k.movement[i] / 2 if k.sneaks[i] else float(k.movement[i])
    if k.swims[i] or _has_name(s, i, k.knocked, k):
        return float(whole / 2)
    return float(whole)


@inline
def _current(s: State) -> int:
    turn = s.scalar[TURN]
    return int(s.order[turn]) if 0 <= turn < s.scalar[ORDER_N] else -1


@inline
def _bit(mask: int, i: int) -> bool:
    return (mask >> i) & 1 == 1


@inline
def _reaches(k: Static, p: int, gap: float) -> bool:
    """``strife_policy.reaches``: touch in base contact; else in range, not in contact."""
    if k.power_touch[p]:
        return gap <= CONTACT
    return gap <= k.power_range[p] and not gap <= CONTACT


@inline
def _next_enemy(s: State, k: Static, me: int, last: int, last_gap: float) -> tuple[int, float]:
    """The standing enemy next after (``last_gap``, ``last``) in order of (distance, id)."""
    near, gap = -1, 0.0
    for j in range(s.hp.shape[0]):
        if k.side[j] == k.side[me] or s.hp[j] <= 0:
            continue
        d = _dist(s.pos, me, j)
        if last >= 0 and (d < last_gap or (d == last_gap and k.rank[j] <= k.rank[last])):
            continue
        if near < 0 or d < gap or (d == gap and k.rank[j] < k.rank[near]):
            near, gap = j, d
    return near, gap
