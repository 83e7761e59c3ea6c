"""The fast War kernel's ground: its codes, its state arrays, draws and distances (issue 15).

What every part of the compiled kernel (``fast_kernel``, ``fast_kernel_wear``,
``fast_kernel_turns``) shares: the codes of commands, conditions, needs and errors; the arrays
of every run's state (:class:`Runs`), of what is known (:class:`Known`) and of what a run waits
for (:class:`Needs`); each run's random stream (:func:`uniform`), ``math.dist`` bit for bit
(:func:`distance3`) and the look-ups of sorted keys. Split from ``fast_kernel`` (issue 26); the
kernel's modules are one numba cache (``disk_cache.KERNEL_SOURCES``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from tableside.simulate import numba_cache

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
F = TypeVar("F", bound=Callable[..., Any])

NEXT, STRIKE, MOVE, REST = 0, 1, 2, 3
STRIKE_AP, MELEE_RANGE, CLOSE_TO, REST_AP_MAX, TURN_AP = 3, 3.0, 2.5, 7, 7
BACK_TO, INSIDE_RANGE = 3.5, 1.0  # a ranged-only Striker's steps (policy.shoot, M-15, M-27)
FALTER_CAP, WEAR_PER_FALTER = 7, 3
TURN_BASE = 4096  # an End Point (cycle, turn) is coded cycle · 4096 + turn
TIMED_SLOTS = 8
NO_END = 1 << 62
WEAR_LIMIT = 1 << 14
DEFEATED = 2
PASSION_SPAN = 4096  # Passion − Resolve differences looked up in −4096 … 4096
FREE, HELD_BY_SOURCE = -1, -2  # held: not Grappled; Entangled or held by no combatant (M-37)
# A combatant's conditions (Runs.cond), kept from the start: the policy never changes them.
STANCE, FULL_STANCE, BOUND, ASLEEP, EXPOSED = 1, 2, 4, 8, 16
MAX_SURPRISERS = 63  # Surprise is a bit per Surpriser (Runs.surprised)
# The Defender's state in a Strike table's key (DefenderState, StrikeOptions.striker_in_stance).
# D_RANGED: a Ranged Strike (a ranged-only weapon, M-27).
D_GRAPPLED, D_STANCE, D_FULL, D_BOUND, D_EXPOSED, D_SURPRISED, D_STRIKER_STANCE, D_RANGED = (
    1, 2, 4, 8, 16, 32, 64, 128,
)  # fmt: skip
CONDITION_CODES = 256

# Columns of a Strike's consequence row (fast_laws).
D_E, S_KIND, S_WEAR, D_FALTER, S_FALTER, AP_GAINED, FIRED, D_EXERTION, D_EPIC, S_EPIC = (
    0, 3, 4, 5, 6, 7, 8, 9, 10, 11,
)  # fmt: skip
HOLD_KEPT = 12  # a Grappled Defender's outcome had 12 Effects: its Grappler keeps it (M-37)
EPIC_NONE, EPIC_LOWERED, EPIC_DEFEAT = 0, 1, 2

# Results of the kernel's functions: done, a need written down, or an error.
OK, NEED = 0, 1
NEED_FORM, NEED_TABLE, NEED_SCROLL, NEED_ROLL = 1, 2, 3, 4
ERR_WEAR, ERR_LOWERINGS, ERR_NO_TURN, ERR_ALL_DEFEATED, ERR_PASSION = 2, 3, 4, 5, 6
ERRORS = {
    ERR_WEAR: "A simulated combatant took more Wear than the fast path counts.",
    ERR_LOWERINGS: "Too many Status lowerings at once for the fast path.",
    ERR_NO_TURN: "No combatant can take a Turn.",
    ERR_ALL_DEFEATED: "No combatant can take a Turn: every one is Defeated.",
    ERR_PASSION: "A Passion or Resolve too large for the fast path.",
}
HASH_START, HASH_FACTOR = 1469598103934665603, 1099511628211
FACES = 12
T27 = 134217729.0  # 2**27 + 1: the Veltkamp-Dekker split


# Compiled once and cached on disk (a later process pays only a load); without numba's
# reference counting, which cost more than the whole command when the kernel's tuples of arrays
# were passed from function to function (so the kernel allocates nothing: callers pass room).
OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
numba_cache.install()  # the compiled code kept in the user's cache folder (issue 23)


def jit(function: F) -> F:
    """Compile with numba (:data:`OPTIONS`)."""
    return cast(F, numba.njit(**OPTIONS)(function))


def inline(function: F) -> F:
    """A helper of the kernel, compiled into its callers."""
    return cast(F, numba.njit(**OPTIONS, inline="always")(function))


class Runs(NamedTuple):
    """Every run's state: views into ``packed`` (one row per run) and the positions."""

    wear: I64  # runs × combatants × E/R/P
    taken: I64  # Wear taken (wear_taken events)
    lowered: I64
    epic: I64
    exertion: I64
    window: I64
    falter: I64
    poison: I64
    ap: I64
    twelves: I64
    weary: I64
    held: I64  # the Grappler's index, FREE or HELD_BY_SOURCE (M-37)
    readied: I64  # Readied AP (M-41)
    carried: I64  # AP carried over into the next Turn (M-41)
    cond: I64  # STANCE, FULL_STANCE, BOUND, ASLEEP, EXPOSED
    surprised: I64  # bit j: Surprised by combatant j until its next Turn (M-19)
    fcycle: I64  # F:1 Cycle's End Point (0: none; NO_END: until released, M-34)
    ends: I64  # runs × combatants × TIMED_SLOTS End Points (0: free)
    form: I64
    next_end: I64
    cycle: I64
    turn: I64
    order_n: I64
    ended: I64
    winner: I64
    commands: I64
    order_c: I64
    order_ap: I64
    packed: I64
    pos: F64


class Known(NamedTuple):
    """What the kernel looks up: the roster, forms, Strike tables and War Scrolls known."""

    side: I64
    by_id: I64
    endurance: I64
    per_turn: I64
    sides_present: int
    form_keys: I64
    form_values: I64
    form_table: I64  # status, Stamina, strike form, scroll place, Passion, Resolve, Might
    triggers: I64  # Passion Effect triggers of Passion − Resolve + PASSION_SPAN
    law_keys: I64
    law_values: I64
    law_start: I64
    law_cumulative: F64
    law_rows: I64
    law_ambiguous: I64
    law_dice: I64  # dice an ambiguous table's Strike rolls
    scroll_hash: I64  # sorted
    scroll_index: I64
    scroll_rows: I64
    scroll_n: I64
    scroll_c: I64
    scroll_ap: I64
    reach: F64  # a ranged-only weapon's range (0: a weapon that Strikes in melee)
    dominions: F64  # Spiritual Dominions: x, y, z and radius per row (M-15, A-40, F-65)


class Needs(NamedTuple):
    """Per run: what it waits for, and the Strike consequences it has drawn."""

    kind: I64
    key: I64
    args: I64  # runs × 4: striker form, defender form, 12 Effects, the Defender's state code
    row: I64  # runs × combatants (the Scroll places of a new War Scroll)
    pending: I64  # runs × 12
    has_pending: I64
    draws: I64  # random numbers the run has drawn
    dice: I64  # runs × dice: an ambiguous Strike's roll


@inline
def _mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@inline
def uniform(base: int, run: int, count: int) -> float:
    """The run's ``count``-th uniform number in [0, 1): SplitMix64 of (batch key, run, count).

    Each run draws from its own stream, so its draws do not depend on the order in which the
    kernel meets the runs (nor on which forms and tables a process already knows).
    """
    stream = _mix(np.uint64(base) ^ _mix(np.uint64(run)))
    return float(_mix(stream + np.uint64(count)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@inline
def _plus(total: float, error: float, x: float) -> tuple[float, float]:
    new = total + x
    return new, error + ((total - new) + x)


@inline
def distance(pos: F64, r: int, i: int, j: int) -> float:
    """``math.dist`` of points ``pos[r, i]`` and ``pos[r, j]``: :func:`distance3`."""
    return distance3(pos[r, i, 0] - pos[r, j, 0], pos[r, i, 1] - pos[r, j, 1],
                     pos[r, i, 2] - pos[r, j, 2])  # fmt: skip


@inline
def distance3(x: float, y: float, z: float) -> float:
    """``math.dist`` of CPython 3.11 for a difference (x, y, z), bit for bit."""
    d0, d1, d2 = abs(x), abs(y), abs(z)
    big = max(d0, max(d1, d2))
    if big == 0.0:
        return 0.0
    _, exponent = math.frexp(big)
    scale = math.ldexp(1.0, -exponent)
    total, f1, f2, f3 = 1.0, 0.0, 0.0, 0.0
    for d in (d0, d1, d2):
        x = d * scale
        t = x * T27
        hi = t - (t - x)
        lo = x - hi
        total, f1 = _plus(total, f1, hi * hi)
        total, f2 = _plus(total, f2, 2.0 * hi * lo)
        f3 = f3 + lo * lo
    h = math.sqrt(total - 1.0 + (f1 + f2 + f3))
    t = h * T27
    hi = t - (t - h)
    lo = h - hi
    total, f1 = _plus(total, f1, -hi * hi)
    total, f2 = _plus(total, f2, -2.0 * hi * lo)
    total, f3 = _plus(total, f3, -lo * lo)
    x = total - 1.0 + (f1 + f2 + f3)
    return (h + x / (2.0 * h)) / scale


@inline
def crosses(a: F64, b: F64, dominion: F64) -> bool:
    """``geometry.crosses`` of segment ab and one Dominion (x, y, z, radius), bit for bit.

    True when the segment meets the sphere's surface: one end inside and one out, or both out
    and its closest point to the centre inside (M-15, A-9); both inside: not blocked (F-65).
    """
    cx, cy, cz, radius = dominion[0], dominion[1], dominion[2], dominion[3]
    inside_a = distance3(a[0] - cx, a[1] - cy, a[2] - cz) < radius
    inside_b = distance3(b[0] - cx, b[1] - cy, b[2] - cz) < radius
    if inside_a != inside_b:
        return True
    if inside_a:
        return False
    x, y, z = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    length2 = x * x + y * y + z * z
    t = 0.0
    if length2 != 0:
        t = min(1.0, max(0.0, ((cx - a[0]) * x + (cy - a[1]) * y + (cz - a[2]) * z) / length2))
    nearest_x, nearest_y, nearest_z = a[0] + x * t, a[1] + y * t, a[2] + z * t
    return bool(distance3(nearest_x - cx, nearest_y - cy, nearest_z - cz) < radius)


@jit
def crosses_many(a: F64, b: F64, dominion: F64, out: I64) -> None:
    """:func:`crosses` of each pair of rows and one Dominion, into ``out`` (for the tests)."""
    for k in range(a.shape[0]):
        out[k] = crosses(a[k], b[k], dominion)


@jit
def distances_of(a: F64, b: F64, out: F64) -> None:
    """:func:`distance3` of each pair of rows, into ``out``."""
    for k in range(a.shape[0]):
        out[k] = distance3(a[k, 0] - b[k, 0], a[k, 1] - b[k, 1], a[k, 2] - b[k, 2])


@inline
def find(keys: I64, key: int) -> int:
    """Position of ``key`` in the sorted ``keys``, or −1."""
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < keys.shape[0] and keys[lo] == key else -1


@inline
def form_key(e: int, rr: int, p: int, who: int, lowered: int, epic: int) -> int:
    """``fast_war.Forms.key`` of one state (−1: more Wear than a key holds)."""
    if e >= WEAR_LIMIT or rr >= WEAR_LIMIT or p >= WEAR_LIMIT:
        return -1
    code = (e * WEAR_LIMIT + rr) * WEAR_LIMIT + p
    return int(((code * 16 + lowered) * 2 + epic) * 64 + who)
