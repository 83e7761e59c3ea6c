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

from tableside.majesty.special import MAX_HELD, STRIKE_OTHERS_MARGIN
from tableside.simulate.fast_kernel_base import (
    ASLEEP,
    BACK_TO,
    BOUND,
    CLOSE_TO,
    CONDITION_CODES,
    D_BOUND,
    D_EXPOSED,
    D_FULL,
    D_GRAPPLED,
    D_RANGED,
    D_STANCE,
    D_STRIKER_STANCE,
    D_SURPRISED,
    DEFEATED,
    ERR_PASSION,
    EXPOSED,
    F64,
    FACES,
    FREE,
    FULL_STANCE,
    HOLD_KEPT,
    I64,
    INSIDE_RANGE,
    MELEE_RANGE,
    MOVE,
    NEED,
    NEED_ROLL,
    NEED_TABLE,
    NEXT,
    OK,
    PASSION_SPAN,
    REST,
    REST_AP_MAX,
    STANCE,
    STRIKE,
    STRIKE_AP,
    Known,
    Needs,
    Runs,
    crosses,
    distance,
    distance3,
    find,
    inline,
    jit,
    uniform,
)
from tableside.simulate.fast_kernel_turns import after, current, next_turn
from tableside.simulate.fast_kernel_wear import apply_strike, status

__all__ = ["choose", "choose_many", "condition_code", "distance3", "play", "uniform"]


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
        at = find(k.law_keys, key)
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
    code = apply_strike(s, k, n, r, me, target, n.pending[r])
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
    has, me = current(s, r)
    go = has and status(s, k, r, me) != DEFEATED and s.held[r, me] == FREE
    go = go and (s.cond[r, me] & (BOUND | ASLEEP)) == 0  # policy.acting: nor Bound nor Asleep
    target, gap, found = k.by_id[0], math.inf, False
    if go:
        only_held = _holds_too_strong(s, k, r, me)
        for j in range(k.by_id.shape[0]):  # the nearest standing enemy, ties: lowest id
            i = k.by_id[j]
            if only_held and s.held[r, i] != me:
                continue
            if k.side[i] != k.side[me] and status(s, k, r, i) != DEFEATED:
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
def blocked(s: Runs, k: Known, r: int, me: int, target: int) -> bool:
    """Whether a Spiritual Dominion stands between the Striker and its target (M-15, A-40).

    The policy's Strike has no path: ``check_reach`` samples only the Striker's place, so the
    Strike is refused when the straight line from it to the Defender crosses a Dominion (F-65).
    """
    for d in range(k.dominions.shape[0]):
        if crosses(s.pos[r, me], s.pos[r, target], k.dominions[d]):
            return True
    return False


@inline
def refused(s: Runs, r: int, me: int) -> tuple[int, int]:
    """What the simulation plays when the engine refuses the policy's Strike (F-66).

    ``WarSim.play`` takes the first of ``npc_turn.war_candidates`` the engine accepts: the
    policy's choice without and with the Rest rule (the same Strike, refused), then a Rest of
    up to 7 AP while there is Exertion (M-4), else the end of the Turn.
    """
    amount = min(min(s.ap[r, me], s.exertion[r, me]), REST_AP_MAX)
    return (REST, amount) if amount >= 1 else (NEXT, 0)


@inline
def _command(s: Runs, k: Known, n: Needs, r: int, rest: bool, base: int) -> int:
    kind, me, target, _, amount = choose(s, k, r, rest)
    if kind == STRIKE and k.dominions.shape[0] > 0 and blocked(s, k, r, me, target):
        kind, amount = refused(s, r, me)
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
        code = next_turn(s, k, n, r)
    if code:
        return code
    code = after(s, k, n, r)
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
