"""The compiled kernel of the fast War engine: each run played command by command (issue 15).

``fast_war.Batch`` keeps every run's state in arrays; :func:`play` advances the runs one at a
time, command after command, in machine code (numba). The rules' derived values never enter
here: each combatant's Status, Stamina, place in the War Scroll and Strike signature come from
the engine's ``Character`` (a *form*, built in Python), each Strike's consequences from its
exact table (``fast_laws``), each War Scroll from ``majesty.scroll``. When a run meets a form,
table or Scroll not yet known, or an *ambiguous* Strike (rolled by the engine itself), its
command is undone (the run's state is restored from a snapshot; a Strike's drawn consequences
are kept, so nothing is drawn twice), the need is written down and the kernel goes on with the
next run; Python supplies what was needed and calls the kernel again for those runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from tableside.majesty.special import MAX_HELD, STRIKE_OTHERS_MARGIN
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


@jit
def distances_of(a: F64, b: F64, out: F64) -> None:
    """:func:`distance3` of each pair of rows, into ``out``."""
    for k in range(a.shape[0]):
        out[k] = distance3(a[k, 0] - b[k, 0], a[k, 1] - b[k, 1], a[k, 2] - b[k, 2])


@inline
def _find(keys: I64, key: int) -> int:
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


@inline
def _form(s: Runs, k: Known, n: Needs, r: int, i: int, lowered: int, epic: int) -> int:
    """The form of combatant ``i`` of run ``r`` with these lowerings (−code when not known)."""
    key = form_key(s.wear[r, i, 0], s.wear[r, i, 1], s.wear[r, i, 2], i, lowered, epic)
    if key < 0:
        return -ERR_WEAR
    at = _find(k.form_keys, key)
    if at < 0:
        n.kind[r], n.key[r] = NEED_FORM, key
        return -NEED
    return int(k.form_values[at])


@inline
def _refresh(s: Runs, k: Known, n: Needs, r: int, i: int) -> int:
    form = _form(s, k, n, r, i, s.lowered[r, i], s.epic[r, i])
    if form < 0:
        return -form
    s.form[r, i] = form
    return OK


@inline
def _status(s: Runs, k: Known, r: int, i: int) -> int:
    return int(k.form_table[0, s.form[r, i]])


@inline
def _take_wear(s: Runs, k: Known, n: Needs, r: int, i: int, e: int, rr: int, p: int) -> int:
    """A ``wear_taken`` event (nothing when all three are 0), the form refreshed."""
    if e == 0 and rr == 0 and p == 0:
        return OK
    s.wear[r, i, 0] += e
    s.wear[r, i, 1] += rr
    s.wear[r, i, 2] += p
    s.taken[r, i, 0] += e
    s.taken[r, i, 1] += rr
    s.taken[r, i, 2] += p
    return _refresh(s, k, n, r, i)


@inline
def _convert_if_defeated(s: Runs, k: Known, n: Needs, r: int, i: int) -> int:
    """A Defeated elohim's F:# all converts to WearR and WearP at once (M-34)."""
    if s.falter[r, i] > 0 and _status(s, k, r, i) == DEFEATED:
        wear = WEAR_PER_FALTER * s.falter[r, i]
        s.falter[r, i] = 0
        return _take_wear(s, k, n, r, i, 0, wear, wear)
    return OK


@inline
def _waste_ap(s: Runs, r: int, i: int) -> None:
    """Falter wastes Readied AP first, then the Turn's AP (M-34, ``war.waste_available_ap``)."""
    wasted = min(s.falter[r, i], s.readied[r, i])
    s.readied[r, i] -= wasted
    s.falter[r, i] -= wasted
    wasted = min(s.falter[r, i], s.ap[r, i])
    s.ap[r, i] -= wasted
    s.falter[r, i] -= wasted


@inline
def _inflict_falter(s: Runs, k: Known, n: Needs, r: int, i: int, amount: int) -> int:
    """Falter capped at 7, the excess to Wear, AP wasted (M-34).

    Defeated, F:1 Cycle, Grappled, Entangled, Bound or Asleep, all of it converts (M-34, M-36,
    M-37).
    """
    total = s.falter[r, i] + amount
    converts = (_status(s, k, r, i) == DEFEATED or s.held[r, i] != FREE or s.fcycle[r, i] != 0
                or (s.cond[r, i] & (BOUND | ASLEEP)) != 0)  # fmt: skip
    falter = 0 if converts else min(FALTER_CAP, total)
    wear = WEAR_PER_FALTER * (total - falter)
    s.falter[r, i] = falter
    code = _take_wear(s, k, n, r, i, 0, wear, wear)
    if code:
        return code
    _waste_ap(s, r, i)
    return OK


@inline
def _epic_result(s: Runs, k: Known, n: Needs, r: int, i: int, code: int) -> int:
    """Status lowered for 1 Cycle, or Defeat with Endurance −40 (M-24)."""
    if code == EPIC_LOWERED:
        cycle, turn = s.cycle[r], s.turn[r]
        ends = 2 * TURN_BASE if cycle == 0 else (cycle + 1) * TURN_BASE + max(turn, 0)
        slot = -1
        for t in range(TIMED_SLOTS):
            if s.ends[r, i, t] == 0:
                slot = t
                break
        if slot < 0:
            return ERR_LOWERINGS
        s.ends[r, i, slot] = ends
        s.next_end[r] = min(s.next_end[r], ends)
        s.lowered[r, i] += 1
    elif code == EPIC_DEFEAT:
        s.epic[r, i] = 1
        s.wear[r, i, 0] = k.endurance[i] + 40
    return _refresh(s, k, n, r, i)


@inline
def _add_exertion(s: Runs, r: int, i: int, amount: int, self_generated: bool) -> None:
    """Exertion with the free first 3 of each window when self-generated (M-4)."""
    if self_generated:
        window = s.window[r, i]
        ignored = min(amount, max(0, 3 - window))
        s.exertion[r, i] += amount - ignored
        s.window[r, i] = window + amount
    else:
        s.exertion[r, i] += amount


@inline
def _apply_strike(s: Runs, k: Known, n: Needs, r: int, me: int, target: int, row: I64) -> int:
    """Wear, Falter, Exertion, AP, 12 Effects and Epic results, in war.apply_strike's order."""
    code = _take_wear(s, k, n, r, target, row[D_E], row[D_E + 1], row[D_E + 2])
    code = code or _convert_if_defeated(s, k, n, r, target)
    if code:
        return code
    kind, amount = row[S_KIND], row[S_WEAR]
    code = _take_wear(s, k, n, r, me, amount * (kind == 0), amount * (kind == 1),
                      amount * (kind == 2))  # fmt: skip
    code = code or _convert_if_defeated(s, k, n, r, me)
    if code:
        return code
    if row[D_FALTER] > 0:
        code = _inflict_falter(s, k, n, r, target, row[D_FALTER])
        if code:
            return code
    if row[S_FALTER] > 0:
        code = _inflict_falter(s, k, n, r, me, row[S_FALTER])
        if code:
            return code
    _add_exertion(s, r, me, STRIKE_AP, True)
    _add_exertion(s, r, target, row[D_EXERTION], False)
    s.twelves[r, me] += row[FIRED]
    s.ap[r, me] += row[AP_GAINED]
    if row[D_EPIC] != EPIC_NONE:
        code = _epic_result(s, k, n, r, target, row[D_EPIC])
        if code:
            return code
    if row[S_EPIC] != EPIC_NONE:
        return _epic_result(s, k, n, r, me, row[S_EPIC])
    return OK


@inline
def strike_ap(s: Runs, r: int, me: int) -> int:
    """A plain Strike's AP: 3, and 1 more from Defensive Stance (M-14, M-17)."""
    return STRIKE_AP + int(s.cond[r, me] & STANCE)


@inline
def condition_code(s: Runs, k: Known, r: int, me: int, target: int) -> int:
    """The Defender's state as ``war.strike_setup`` builds it, and the Striker's Stance.

    Grappled or Entangled (Guard halved, M-17, M-37), Defensive or Full Defensive Stance (M-17),
    Bound, Exposed or Bound (M-19, M-36), Surprised by this Striker (M-19); a Ranged Strike.
    """
    cond, theirs = s.cond[r, target], s.cond[r, me]
    stance, full = (cond & STANCE) != 0, (cond & FULL_STANCE) != 0
    surprised = (s.surprised[r, target] >> me) & 1
    return int(
        D_GRAPPLED * int(s.held[r, target] != FREE) + D_STANCE * int(stance and not full)
        + D_FULL * int(full) + D_BOUND * int((cond & BOUND) != 0)
        + D_EXPOSED * int((cond & (EXPOSED | BOUND)) != 0) + D_SURPRISED * surprised
        + D_STRIKER_STANCE * int((theirs & STANCE) != 0) + D_RANGED * int(k.reach[me] > 0)
    )  # fmt: skip


@inline
def _strike(s: Runs, k: Known, n: Needs, r: int, me: int, target: int, base: int) -> int:
    """A plain Strike: its consequences drawn from its exact table (or rolled: NEED_ROLL)."""
    if not n.has_pending[r]:
        twelves = min(s.twelves[r, me], k.per_turn[me])
        striker, defender = s.form[r, me], s.form[r, target]
        difference = k.form_table[4, striker] - k.form_table[5, defender]
        if abs(difference) > PASSION_SPAN:
            return ERR_PASSION
        triggers = k.triggers[difference + PASSION_SPAN]
        state = condition_code(s, k, r, me, target)
        key = (((k.form_table[2, striker] * (1 << 24) + k.form_table[2, defender]) * 4
                + triggers) * 8 + twelves) * CONDITION_CODES + state  # fmt: skip
        at = _find(k.law_keys, key)
        if at < 0:
            n.kind[r], n.key[r] = NEED_TABLE, key
            n.args[r, 0], n.args[r, 1], n.args[r, 2] = striker, defender, twelves
            n.args[r, 3] = state
            return NEED
        table = k.law_values[at]
        if k.law_ambiguous[table]:  # its dice, for the engine to resolve
            for die in range(k.law_dice[table]):
                n.dice[r, die] = int(uniform(base, r, n.draws[r]) * FACES) + 1
                n.draws[r] += 1
            n.kind[r], n.args[r, 0] = NEED_ROLL, table
            return NEED
        lo, hi = k.law_start[table], k.law_start[table + 1]
        u = uniform(base, r, n.draws[r])
        n.draws[r] += 1
        a, b = lo, hi
        while a < b:  # the first cumulative probability above u
            mid = (a + b) // 2
            if k.law_cumulative[mid] <= u:
                a = mid + 1
            else:
                b = mid
        drawn = min(a, hi - 1)
        for column in range(n.pending.shape[1]):
            n.pending[r, column] = k.law_rows[drawn, column]
        n.has_pending[r] = 1
    s.ap[r, me] -= strike_ap(s, r, me)
    code = _apply_strike(s, k, n, r, me, target, n.pending[r])
    if code == OK and s.held[r, target] == me and n.pending[r, HOLD_KEPT] == 0:
        s.held[r, target] = FREE  # released after the Grappler's Strike (M-37)
    return code


@inline
def keep_from(k: Known, me: int, gap: float) -> float:
    """Where a move ends, in inches from the target (``policy.fight``, ``policy.shoot``).

    2.5" for a weapon that Strikes in melee; for a ranged-only one, 3.5" when within Melee Range,
    else 1" inside its range (M-15, M-27).
    """
    if k.reach[me] == 0:
        return CLOSE_TO
    return BACK_TO if gap <= MELEE_RANGE else k.reach[me] - INSIDE_RANGE


@inline
def _move(s: Runs, k: Known, r: int, me: int, target: int) -> None:
    """Straight toward (or away from) the target to end ``keep_from`` it, as the AP allow.

    ``policy.step_toward`` and ``policy.step_away`` (straight along +x from the same point).
    """
    x, y, z = s.pos[r, me, 0], s.pos[r, me, 1], s.pos[r, me, 2]
    gap = distance(s.pos, r, me, target)
    keep = keep_from(k, me, gap)
    inches = min(abs(gap - keep), float(s.ap[r, me]))
    if keep > gap and gap == 0:
        s.pos[r, me, 0] = x + inches
    elif keep > gap:
        t = inches / gap
        s.pos[r, me, 0] = x + (x - s.pos[r, target, 0]) * t
        s.pos[r, me, 1] = y + (y - s.pos[r, target, 1]) * t
        s.pos[r, me, 2] = z + (z - s.pos[r, target, 2]) * t
    else:
        t = 0.0 if gap == 0 else min(1.0, inches / gap)
        s.pos[r, me, 0] = x + (s.pos[r, target, 0] - x) * t
        s.pos[r, me, 1] = y + (s.pos[r, target, 1] - y) * t
        s.pos[r, me, 2] = z + (s.pos[r, target, 2] - z) * t
    moved = distance3(x - s.pos[r, me, 0], y - s.pos[r, me, 1], z - s.pos[r, me, 2])
    s.ap[r, me] -= int(math.ceil(moved - 1e-9))  # noqa: RUF046 (numba's ceil)


@inline
def _expire(s: Runs, k: Known, n: Needs, r: int, now: int) -> int:
    """Timed Status lowerings and F:1 Cycle end at their End Point (M-34, M-39)."""
    if now < s.next_end[r]:
        return OK
    first = NO_END
    for i in range(s.ends.shape[1]):
        if s.fcycle[r, i] > 0 and s.fcycle[r, i] <= now:
            s.fcycle[r, i] = 0
        elif s.fcycle[r, i] > 0:
            first = min(first, s.fcycle[r, i])
        for t in range(TIMED_SLOTS):
            end = s.ends[r, i, t]
            if end > 0 and end <= now:
                s.lowered[r, i] -= 1
                s.ends[r, i, t] = 0
            elif end > 0:
                first = min(first, end)
    s.next_end[r] = first
    for i in range(s.ends.shape[1]):
        code = _refresh(s, k, n, r, i)
        if code:
            return code
    return OK


@inline
def scroll_hash(row: I64) -> int:
    """A hash of one row of Scroll places."""
    h = HASH_START
    for v in row:
        h = (h ^ (v + 1)) * HASH_FACTOR
    return int(h)


@inline
def _start_cycle(s: Runs, k: Known, n: Needs, r: int) -> int:
    """Expiries, then the new Cycle's War Scroll from the standing combatants (M-40, A-30)."""
    upcoming = s.cycle[r] + 1
    code = _expire(s, k, n, r, upcoming * TURN_BASE)
    if code:
        return code
    soon = s.next_end[r] // TURN_BASE <= upcoming
    row = n.row[r]
    for i in range(s.form.shape[1]):
        form = s.form[r, i]
        if soon:  # lowerings ending during the new Cycle do not shape its Scroll
            ending = 0
            for t in range(TIMED_SLOTS):
                end = s.ends[r, i, t]
                if end > 0 and end // TURN_BASE <= upcoming:
                    ending += 1
            form = _form(s, k, n, r, i, max(0, s.lowered[r, i] - ending), s.epic[r, i])
            if form < 0:
                return -form
        row[i] = k.form_table[3, form]
    h = scroll_hash(row)
    found = -1
    lo, hi = 0, k.scroll_hash.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if k.scroll_hash[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    while found < 0 and lo < k.scroll_hash.shape[0] and k.scroll_hash[lo] == h:
        index = k.scroll_index[lo]
        same = True
        for i in range(row.shape[0]):
            same = same and k.scroll_rows[index, i] == row[i]
        if same:
            found = index
        lo += 1
    if found < 0:
        n.kind[r], n.key[r] = NEED_SCROLL, h
        return NEED
    size = k.scroll_n[found]
    if size == 0:
        return ERR_ALL_DEFEATED
    s.order_n[r] = size
    for t in range(size):
        s.order_c[r, t], s.order_ap[r, t] = k.scroll_c[found, t], k.scroll_ap[found, t]
    s.cycle[r] = upcoming
    s.turn[r] = -1
    return OK


@inline
def _start_turn(s: Runs, k: Known, n: Needs, r: int, index: int) -> int:
    """Expiries, the Turn's resets, Readied AP resting, Poison, AP arriving, Falter wasting them.

    As ``war.start_turn`` (M-19, M-34 … M-41): Surprise ends; carried AP join the Turn's;
    unused Readied AP count as Rest; under F:1 Cycle every AP arriving is wasted (M-34,
    ``war.grant_turn_ap``).
    """
    code = _expire(s, k, n, r, s.cycle[r] * TURN_BASE + index)
    if code:
        return code
    s.turn[r] = index
    me = s.order_c[r, index]
    s.window[r, me] = 0
    s.twelves[r, me] = 0
    s.surprised[r, me] = 0
    carried = s.carried[r, me]
    s.carried[r, me] = 0
    if s.readied[r, me]:
        s.exertion[r, me] = max(0, s.exertion[r, me] - s.readied[r, me])
        s.readied[r, me] = 0
    poison = s.poison[r, me]
    if poison:
        s.exertion[r, me] += poison
        s.poison[r, me] = poison // 2
    if s.fcycle[r, me] != 0:
        s.ap[r, me] = 0
        return OK
    s.ap[r, me] = min(s.order_ap[r, index] + carried, TURN_AP)
    _waste_ap(s, r, me)
    return OK


@inline
def _current(s: Runs, r: int) -> tuple[bool, int]:
    turn = s.turn[r]
    has = turn >= 0 and turn < s.order_n[r]
    return has, s.order_c[r, min(max(turn, 0), s.order_c.shape[1] - 1)]


@inline
def _next(s: Runs, k: Known, n: Needs, r: int) -> int:
    """End the Turn and start the next standing combatant's (a new Cycle when due)."""
    has, me = _current(s, r)
    if has:
        s.ap[r, me] = 0
    for _ in range(s.form.shape[1] * 8 + 8):
        index = s.turn[r] + 1
        if index >= s.order_n[r]:
            code = _start_cycle(s, k, n, r)
            if code:
                return code
            index = 0
        who = s.order_c[r, index]
        if _status(s, k, r, who) != DEFEATED:
            return _start_turn(s, k, n, r, index)
        s.turn[r] = index
    return ERR_NO_TURN


@inline
def _after(s: Runs, k: Known, n: Needs, r: int) -> int:
    """After every command: Falter of the Defeated converts, Weary, the end of the War."""
    c = s.form.shape[1]
    for i in range(c):
        if s.falter[r, i] > 0:
            code = _convert_if_defeated(s, k, n, r, i)
            if code:
                return code
    has, me = _current(s, r)
    if has:
        s.weary[r, me] = s.exertion[r, me] > k.form_table[1, s.form[r, me]]
    holy = fallen = False
    for i in range(c):
        if _status(s, k, r, i) != DEFEATED:
            if k.side[i] == 0:
                holy = True
            else:
                fallen = True
    if k.sides_present == 2 and not (holy and fallen) and not s.ended[r]:
        s.ended[r] = 1
        s.winner[r] = 0 if holy else (1 if fallen else -1)
    return OK


@inline
def _holds_too_strong(s: Runs, k: Known, r: int, me: int) -> bool:
    """Whether ``me`` may Strike only those it holds (``policy.target_of``, M-37).

    So it is when it lacks 40 more Might than one it Grapples (its Might split when it holds
    two).
    """
    holding = 0
    for i in range(s.held.shape[1]):
        if s.held[r, i] == me:
            holding += 1
    if holding == 0:
        return False
    might = k.form_table[6, s.form[r, me]]
    if holding >= MAX_HELD:
        might = might // 2
    for i in range(s.held.shape[1]):
        if s.held[r, i] == me and might - k.form_table[6, s.form[r, i]] < STRIKE_OTHERS_MARGIN:
            return True
    return False


@inline
def choose(s: Runs, k: Known, r: int, rest: bool) -> tuple[int, int, int, float, int]:
    """The War policy's command (encounter/policy.py): kind, who, target, gap, Rest AP."""
    has, me = _current(s, r)
    go = has and _status(s, k, r, me) != DEFEATED and s.held[r, me] == FREE
    go = go and (s.cond[r, me] & BOUND) == 0  # policy.acting: the Bound do not act (M-36)
    target, gap, found = k.by_id[0], math.inf, False
    if go:
        only_held = _holds_too_strong(s, k, r, me)
        for j in range(k.by_id.shape[0]):  # the nearest standing enemy, ties: lowest id
            i = k.by_id[j]
            if only_held and s.held[r, i] != me:
                continue
            if k.side[i] != k.side[me] and _status(s, k, r, i) != DEFEATED:
                d = distance(s.pos, r, i, me)
                if d < gap:
                    target, gap, found = i, d, True
    go = go and found
    ap, exertion = s.ap[r, me], s.exertion[r, me]
    stamina = k.form_table[1, s.form[r, me]]
    reach = k.reach[me]
    near = gap <= MELEE_RANGE if reach == 0 else MELEE_RANGE < gap <= reach  # policy.in_reach
    if not go:
        return NEXT, me, target, gap, 0
    if rest:
        excess = exertion - stamina
        first = min(min(excess, ap), min(exertion, REST_AP_MAX))
        if excess > 0 and not near and first >= 1:  # Rest rule 1 (M-4)
            return REST, me, target, gap, first
    if near and ap >= strike_ap(s, r, me):
        return STRIKE, me, target, gap, 0
    if not near and ap >= 1 and min(abs(gap - keep_from(k, me, gap)), float(ap)) > 0:
        return MOVE, me, target, gap, 0
    if rest:
        second = min(min(ap, exertion), REST_AP_MAX)
        if second >= 1:  # Rest rule 2 (M-4)
            return REST, me, target, gap, second
    return NEXT, me, target, gap, 0


@jit
def choose_many(s: Runs, k: Known, rows: I64, rest: bool, out: I64, gap: F64) -> None:
    """:func:`choose` of each run in ``rows``: kind, who, target, Rest AP in ``out``."""
    for j in range(rows.shape[0]):
        out[0, j], out[1, j], out[2, j], gap[j], out[3, j] = choose(s, k, rows[j], rest)


@inline
def _command(s: Runs, k: Known, n: Needs, r: int, rest: bool, base: int) -> int:
    kind, me, target, _, amount = choose(s, k, r, rest)
    if kind == STRIKE:
        code = _strike(s, k, n, r, me, target, base)
    elif kind == MOVE:
        _move(s, k, r, me, target)
        code = OK
    elif kind == REST:
        s.ap[r, me] -= amount
        s.exertion[r, me] = max(0, s.exertion[r, me] - amount)
        code = OK
    else:
        code = _next(s, k, n, r)
    if code:
        return code
    code = _after(s, k, n, r)
    if code:
        return code
    s.commands[r] += 1
    return OK


@jit
def play(s: Runs, k: Known, n: Needs, rows: I64, rest: bool, cap: int, command_cap: int,
         limit: int, base: int, packed: I64, pos: F64) -> tuple[int, int]:  # fmt: skip
    """Up to ``limit`` commands of each run in ``rows`` (until its end or a cap).

    A command that needs something is undone and its need written in ``n``. Returns (error
    code, run): (0, −1) when no run met an error. ``packed``, ``pos``: room for a snapshot.
    """
    for r in rows:
        done = 0
        while done < limit:
            if s.ended[r] or s.cycle[r] > cap or s.commands[r] >= command_cap:
                break
            for j in range(packed.shape[0]):
                packed[j] = s.packed[r, j]
            for i in range(pos.shape[0]):
                for axis in range(3):
                    pos[i, axis] = s.pos[r, i, axis]
            code = _command(s, k, n, r, rest, base)
            if code:
                for j in range(packed.shape[0]):
                    s.packed[r, j] = packed[j]
                for i in range(pos.shape[0]):
                    for axis in range(3):
                        s.pos[r, i, axis] = pos[i, axis]
                if code != NEED:
                    return code, r
                break
            n.has_pending[r] = 0
            done += 1
    return OK, -1
