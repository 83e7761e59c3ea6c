"""The compiled kernel of the fast Realm of Strife engine: runs played in machine code (issue 15).

:mod:`fast_strife` plays a run in plain Python, one command after the other; this kernel (numba)
plays the very same transitions (F-8) on arrays: each model's HP, position, conditions (slots of
a *kind* — name, source, ``until`` — and the rounds left), the names put on during its own Turn,
Turn elements, inches moved and Roll-with-the-Blow penalty; the round, Turn Order and whose Turn
it is; Reactions spent and failed Parries (bit sets); AoO weapons used this Turn (bit sets per
model) and the offers still open; who was damaged last and by whom; the end and the winner. The
Movement spent this Turn is not kept: nothing the policy or the rules it meets read it. Each
caster's resource pools are kept, and the policy's casts (F-40) are played as the Python path
plays them (F-41, F-60): one draw per target from the cast's exact law.

Each attack's consequences are drawn from the same exact joint laws (``fast_strife_law``, F-9),
turned into arrays: per law its cumulative floats and, per outcome, the failed Parry, the
damage and the conditions put on (F-50). Each run's uniform numbers are the War kernel's
(``fast_kernel.uniform``, SplitMix64 of batch key, run and count). Distances are
``fast_kernel.distance3`` (``math.dist`` bit for bit) and positions are rounded as Python's
``round(x, 3)`` rounds them (:func:`round3`, correctly rounded from the exact product by 1000).

The tables and the start state are built by :mod:`fast_strife_compiled`; this module holds only
what numba compiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from tableside.simulate import numba_cache
from tableside.simulate.fast_kernel import distance3, uniform

F = TypeVar("F", bound=Callable[..., Any])

# As the War kernel's (own copy, so that a change there does not silently change this one):
# cached on disk, no GIL, no reference counting (the kernel allocates nothing), no fast-math
# (distances and rounding are bit for bit Python's).
OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
numba_cache.install()  # the compiled code kept in the user's cache folder (issue 23)


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
ACTION, MOVE = 1, 2  # Turn elements, as bits
NEXT, MOVE_TO, ATTACK, AOO, ROLL, CAST = 0, 1, 2, 3, 4, 5  # commands
OK, ERR_SLOTS, ERR_OFFERS, ERR_SHOT = 0, 1, 2, 3
SPLIT = 134217729.0  # 2**27 + 1: the Veltkamp-Dekker split

# Scalars of a run (``State.scalar``).
ORDER_N, TURN, ROUND, REACTED, FAILED, OFFERS_N, LAST_HURT, LAST_BY, ENDED, WINNER = range(10)
DRAWS, COMMANDS = 10, 11
SCALARS = 12


class State(NamedTuple):
    """One run's state (scratch), or the start every run copies."""

    hp: I64
    pos: F64  # models × 3
    kind: I64  # models × slots: condition kinds (−1: free)
    rounds: I64  # models × slots: rounds left (−1: lasts ``until`` something)
    held: I64  # conditions per model
    fresh: I64  # bit set of condition names put on during the model's own Turn (SA-50)
    elements: I64  # bit set: ACTION, MOVE
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
    shot_of: I64  # attacker × weapon × defender × whole inches moved: a shot's law (−1: none)
    absorption: I64  # per model, its Absorption % (F-64)
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
    """Inches its Movement pays for: half crawling, Knocked Down (S-6, S-23)."""
    if _has_name(s, i, k.knocked, k):
        return float(k.movement[i] / 2)
    return float(k.movement[i])


@inline
def _current(s: State) -> int:
    turn = s.scalar[TURN]
    return int(s.order[turn]) if 0 <= turn < s.scalar[ORDER_N] else -1


@inline
def _bit(mask: int, i: int) -> bool:
    return (mask >> i) & 1 == 1


# --- the policy (encounter/strife/policy.py) ---------------------------------------------------


@inline
def _choose(s: State, k: Static) -> None:
    """The Strife policy's next command, into ``s.command`` and ``s.to``."""
    if s.scalar[OFFERS_N] > 0:
        s.command[0], s.command[1] = AOO, s.offers[0, 0]
        s.command[2], s.command[3] = s.offers[0, 2], s.offers[0, 1]
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
    if me < 0 or s.scalar[ENDED] or s.elements[me] & ACTION:
        return
    near, gap = _nearest(s, k, me)
    if near < 0:
        return
    reach = _reach(s, k, me) if k.movement[me] else 0.0
    can_move = not s.elements[me] & MOVE and reach > 0
    armed = k.weapons[me] > 0
    s.command[1], s.command[2] = me, near
    if gap <= CONTACT and can_move and 2 * s.hp[me] < k.hp_max[me]:
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


@inline
def _reaches(k: Static, p: int, gap: float) -> bool:
    """``strife_policy.reaches``: touch in base contact; else in range, not in contact."""
    if k.power_touch[p]:
        return gap <= CONTACT
    return gap <= k.power_range[p] and not gap <= CONTACT


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
        count, last, last_gap = 0, -1, -1.0
        while count < k.power_most[p]:
            near, near_gap = _next_enemy(s, k, me, last, last_gap)
            if near < 0:
                break
            last, last_gap = near, near_gap
            if _reaches(k, p, near_gap):
                s.targets[count, 0] = near
                s.targets[count, 1] = int(k.power_blockable[p] == 1 and k.blocker[near] == 1
                                          and not _bit(s.scalar[REACTED], near))  # fmt: skip
                count += 1
        s.command[0], s.command[1], s.command[2], s.command[3] = CAST, me, count, p
        return True
    return False


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


# --- the rules the policy meets (encounter/strife/) ----------------------------------------------


@inline
def _apply(s: State, k: Static, key: int, run: int) -> int:
    """Play the chosen command; an attack draws the run's next uniform number."""
    kind, who, other = s.command[0], s.command[1], s.command[2]
    if kind == NEXT:
        return _next(s, k)
    if kind == MOVE_TO:
        return _move(s, k, who)
    if kind == ROLL:
        return _roll(s, k, who)
    if kind == CAST:
        return _do_cast(s, k, key, run)
    if kind == ATTACK:
        s.elements[who] |= ACTION
        law = k.law_of[who, 0, other, s.command[3]]
    else:
        weapon = s.command[3]
        if s.aoo[who] == 0:
            s.scalar[REACTED] |= 1 << who
        s.aoo[who] |= 1 << weapon
        _drop_offers(s, who, weapon)
        law = k.law_of[who, weapon, other, 1]
        if k.shot_of[who, weapon, other, 0] >= 0:  # a ranged weapon: by inches moved (F-62)
            inches = int(s.moved[who])
            if inches >= k.shot_of.shape[3]:
                return ERR_SHOT
            law = k.shot_of[who, weapon, other, inches]
    u = uniform(key, run, s.scalar[DRAWS])
    s.scalar[DRAWS] += 1
    return _attack(s, k, who, other, law, _draw(k, law, u))


@inline
def _drop_offers(s: State, attacker: int, weapon: int) -> None:
    kept = 0
    for o in range(s.scalar[OFFERS_N]):
        if s.offers[o, 0] == attacker and s.offers[o, 1] == weapon:
            continue
        for c in range(3):
            s.offers[kept, c] = s.offers[o, c]
        kept += 1
    s.scalar[OFFERS_N] = kept


@inline
def _draw(k: Static, law: int, u: float) -> int:
    """``Law.draw``: the first outcome whose cumulative chance exceeds ``u`` (else the last)."""
    lo, hi = k.law_start[law], k.law_start[law + 1]
    last = hi - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if k.cumulative[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return int(min(lo, last))


@inline
def _attack(s: State, k: Static, attacker: int, defender: int, law: int, o: int) -> int:
    """``apply_attack``: the reaction spent, damage dealt, conditions put on (S-7, S-23)."""
    if k.law_reacts[law]:
        s.scalar[REACTED] |= 1 << defender
        if k.failed[o]:
            s.scalar[FAILED] |= 1 << defender
    damage = k.damage[o]
    if damage and k.absorption[defender]:  # floor(% × current HP / 100) absorbed (S-21, F-64)
        damage = max(0, damage - k.absorption[defender] * s.hp[defender] // 100)
    if damage:
        s.hp[defender] = max(0, s.hp[defender] - damage)
        s.scalar[LAST_HURT], s.scalar[LAST_BY] = defender, attacker
        if s.hp[defender] == 0:
            _check_end(s, k)
    for c in range(k.put_start[o], k.put_start[o + 1]):
        who = attacker if k.put_target[c] == 0 else defender
        code = _put_on(s, k, who, k.put_kind[c], k.put_rounds[c])
        if code:
            return code
    return OK


@helper
def _do_cast(s: State, k: Static, key: int, run: int) -> int:
    """``do_cast`` (F-41, F-60): the Action, the cost, Blocks, each target's damage, effects.

    One draw per target, in the targets' order, from its own law; the damage is dealt target by
    target, the fight's end checked, then the effects put on each target still standing.
    """
    caster, count, p = s.command[1], s.command[2], s.command[3]
    s.elements[caster] |= ACTION
    res, cost = k.power_resource[p], k.power_cost[p]
    if cost != 0 and res >= 0:
        s.pools[caster, res] -= cost
    for t in range(count):
        target = s.targets[t, 0]
        law = k.cast_of[p, target, s.targets[t, 1]]
        if k.law_reacts[law]:
            s.scalar[REACTED] |= 1 << target
        u = uniform(key, run, s.scalar[DRAWS])
        s.scalar[DRAWS] += 1
        s.targets[t, 2] = _draw(k, law, u)
    downed = False
    for t in range(count):
        target, damage = s.targets[t, 0], k.damage[s.targets[t, 2]]
        if damage:
            s.hp[target] = max(0, s.hp[target] - damage)
            s.scalar[LAST_HURT], s.scalar[LAST_BY] = target, caster
        downed = downed or s.hp[target] == 0
    if downed:
        _check_end(s, k)
    for t in range(count):
        target, o = s.targets[t, 0], s.targets[t, 2]
        if s.hp[target] <= 0:
            continue
        for c in range(k.put_start[o], k.put_start[o + 1]):
            code = _put_on(s, k, target, k.put_kind[c], k.put_rounds[c])
            if code:
                return code
    return OK


@helper
def _put_on(s: State, k: Static, who: int, kind: int, rounds: int) -> int:
    """``add_condition`` (same name and source merge, SA-12); on its own Turn it is fresh."""
    name = k.kind_name[kind]
    merged = False
    for slot in range(s.held[who]):
        old = s.kind[who, slot]
        if k.kind_name[old] == name and k.kind_source[old] == k.kind_source[kind]:
            if s.rounds[who, slot] >= 0 and rounds >= 0:
                s.rounds[who, slot] = max(s.rounds[who, slot], rounds)
            else:
                s.kind[who, slot], s.rounds[who, slot] = kind, rounds
            merged = True
            break
    if not merged:
        slot = s.held[who]
        if slot >= s.kind.shape[1]:
            return ERR_SLOTS
        s.kind[who, slot], s.rounds[who, slot] = kind, rounds
        s.held[who] += 1
    if _current(s) == who:
        s.fresh[who] |= 1 << name
    return OK


@inline
def _contacts(s: State, k: Static, who: int) -> int:
    """Bit set of the standing enemies in base contact."""
    found = 0
    for j in range(s.hp.shape[0]):
        if k.side[j] != k.side[who] and s.hp[j] > 0 and _dist(s.pos, j, who) <= CONTACT:
            found |= 1 << j
    return found


@helper
def _move(s: State, k: Static, who: int) -> int:
    """A walking Move and the Attacks of Opportunity it offers (S-6, S-18)."""
    s.elements[who] |= MOVE
    inches = _dist_to(s.pos, who, s.to)
    before = _contacts(s, k, who)
    for axis in range(3):
        s.pos[who, axis] = s.to[axis]
    s.moved[who] += _rounded(inches)
    left = before & ~_contacts(s, k, who)
    for enemy in range(s.hp.shape[0]):
        if not _bit(left, enemy):
            continue
        used = s.aoo[enemy]
        if used == 0 and _bit(s.scalar[REACTED], enemy):
            continue
        for weapon in range(k.weapons[enemy]):
            if _bit(used, weapon):
                continue
            o = s.scalar[OFFERS_N]
            if o >= s.offers.shape[0]:
                return ERR_OFFERS
            s.offers[o, 0], s.offers[o, 1], s.offers[o, 2] = enemy, weapon, who
            s.scalar[OFFERS_N] = o + 1
    return OK


@helper
def _roll(s: State, k: Static, who: int) -> int:
    """Roll with the Blow: Reaction, move back, −10 Initiative, Knocked Down (S-19)."""
    s.scalar[REACTED] |= 1 << who
    inches = _dist_to(s.pos, who, s.to)
    for axis in range(3):
        s.pos[who, axis] = s.to[axis]
    s.moved[who] += round3(inches)
    _penalise(s, k, who)
    return _put_on(s, k, who, k.rolled, -1)


@inline
def _before(s: State, k: Static, j: int, score: int, initiative: int) -> bool:
    """Whether model j's place key (Initiative Score less penalty, Initiative) is lower."""
    mine = k.score[j] - s.penalty[j]
    return bool(mine < score or (mine == score and k.initiative[j] < initiative))


@helper
def _penalise(s: State, k: Static, who: int) -> None:
    """``penalise_initiative``: this round's queue, or the next round's (S-19, SA-44)."""
    turn, n = s.scalar[TURN], s.scalar[ORDER_N]
    start = turn + 1 if turn >= 0 else n
    at = -1
    for index in range(start, n):
        if s.order[index] == who:
            at = index
    if at < 0:
        s.penalty[who] = PENALTY
        return
    for index in range(at, n - 1):
        s.order[index] = s.order[index + 1]
    score, place = k.score[who] - PENALTY, n - 1
    for index in range(start, n - 1):
        if _before(s, k, s.order[index], score, k.initiative[who]):
            place = index
            break
    for index in range(n - 1, place, -1):
        s.order[index] = s.order[index - 1]
    s.order[place] = who


@inline
def _next(s: State, k: Static) -> int:
    """End the Turn (conditions tick or end, S-19, SA-50) and begin the next."""
    who = _current(s)
    if who >= 0:
        _end_turn_conditions(s, k, who)
    _next_turn(s, k)
    return OK


@helper
def _end_turn_conditions(s: State, k: Static, who: int) -> None:
    """Fresh ones kept, the others ticked (fresh last); those to the end of this Turn end."""
    n = s.held[who]
    ending = 0
    timed = False
    for slot in range(n):
        kind = s.kind[who, slot]
        if k.kind_next_turn[kind]:
            ending |= 1 << k.kind_name[kind]
        timed = timed or s.rounds[who, slot] >= 0
    fresh = s.fresh[who]
    if fresh or timed:
        kept = 0
        for phase in range(2):  # the ticked ones, then the fresh ones, each in order
            for slot in range(n):
                kind, rounds = s.kind[who, slot], s.rounds[who, slot]
                is_fresh = _bit(fresh, k.kind_name[kind])
                if is_fresh != (phase == 1):
                    continue
                if not is_fresh and rounds >= 0:
                    if rounds <= 1:
                        continue
                    rounds -= 1
                s.kind[who, n + kept], s.rounds[who, n + kept] = kind, rounds
                kept += 1
        for slot in range(kept):
            s.kind[who, slot], s.rounds[who, slot] = s.kind[who, n + slot], s.rounds[who, n + slot]
        n = kept
        s.fresh[who] = 0
    kept = 0
    for slot in range(n):
        if not _bit(ending, k.kind_name[s.kind[who, slot]]):
            s.kind[who, kept], s.rounds[who, kept] = s.kind[who, slot], s.rounds[who, slot]
            kept += 1
    s.held[who] = kept


@inline
def _begin(s: State, index: int) -> None:
    j = s.order[index]
    s.scalar[TURN] = index
    s.elements[j], s.moved[j] = 0, 0.0
    for i in range(s.aoo.shape[0]):
        s.aoo[i] = 0
    s.scalar[OFFERS_N] = 0
    s.scalar[LAST_HURT] = s.scalar[LAST_BY] = -1


@inline
def _next_turn(s: State, k: Static) -> None:
    """The next standing model's Turn, or a new round (S-4, S-5)."""
    for index in range(s.scalar[TURN] + 1, s.scalar[ORDER_N]):
        if s.hp[s.order[index]] > 0:
            _begin(s, index)
            return
    _new_round(s, k)
    for index in range(s.scalar[ORDER_N]):
        if s.hp[s.order[index]] > 0:
            _begin(s, index)
            return


@inline
def _later(s: State, k: Static, a: int, b: int) -> bool:
    """Whether model a comes after model b in a new round's Turn Order (S-3, S-19)."""
    sa, sb = k.score[a] - s.penalty[a], k.score[b] - s.penalty[b]
    if sa != sb:
        return bool(sa < sb)
    if k.initiative[a] != k.initiative[b]:
        return bool(k.initiative[a] < k.initiative[b])
    return bool(k.rank[a] > k.rank[b])


@helper
def _new_round(s: State, k: Static) -> None:
    n = 0
    for j in range(s.hp.shape[0]):
        if s.hp[j] > 0:
            at = n
            while at > 0 and _later(s, k, s.order[at - 1], j):
                s.order[at] = s.order[at - 1]
                at -= 1
            s.order[at] = j
            n += 1
    s.scalar[ORDER_N] = n
    s.scalar[ROUND] += 1
    s.scalar[TURN] = -1
    s.scalar[REACTED] = s.scalar[FAILED] = s.scalar[OFFERS_N] = 0
    for index in range(n):
        s.penalty[s.order[index]] = 0


@helper
def _check_end(s: State, k: Static) -> None:
    """The fight ends when only one side has models standing."""
    standing, last = 0, -1
    for j in range(s.hp.shape[0]):
        if s.hp[j] > 0 and not _bit(standing, k.side[j]):
            standing |= 1 << k.side[j]
            last = k.side[j]
    one = standing == 0 or standing & (standing - 1) == 0
    if s.scalar[ROUND] >= 0 and k.sides > 1 and one and not s.scalar[ENDED]:
        s.scalar[ENDED], s.scalar[WINNER] = 1, last


# --- many runs -----------------------------------------------------------------------------------


@inline
def _copy1(a: I64 | F64, b: I64 | F64) -> None:
    for i in range(a.shape[0]):
        a[i] = b[i]


@inline
def _copy2(a: I64 | F64, b: I64 | F64) -> None:
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = b[i, j]


@inline
def _copy(s: State, start: State) -> None:
    """Every field of ``start`` into ``s`` (element by element: the kernel allocates nothing)."""
    _copy1(s.hp, start.hp)
    _copy2(s.pos, start.pos)
    _copy2(s.kind, start.kind)
    _copy2(s.rounds, start.rounds)
    _copy1(s.held, start.held)
    _copy1(s.fresh, start.fresh)
    _copy1(s.elements, start.elements)
    _copy1(s.moved, start.moved)
    _copy1(s.penalty, start.penalty)
    _copy1(s.order, start.order)
    _copy1(s.aoo, start.aoo)
    _copy2(s.offers, start.offers)
    _copy1(s.scalar, start.scalar)
    _copy2(s.pools, start.pools)


@jit
def play(s: State, k: Static, start: State, key: int, first: int, count: int, cap: int,
         command_cap: int, limit: int, out: I64, hp: I64) -> int:  # fmt: skip
    """Runs ``first`` … ``first + count − 1`` of the batch with ``key``, each from ``start``.

    A run stops at its end, past the cap on rounds, at ``command_cap`` commands (counting the
    ``start``'s, in ``start.scalar[COMMANDS]``) or after ``limit`` commands of its own (−1: no
    limit); ``s`` then holds its state. ``out`` gets per run: ended, winner (side code, −1:
    none), round, commands; ``hp``: the final HP. Returns OK, or an error code (room exceeded:
    the batch must be played by the Python fast path).
    """
    for r in range(count):
        _copy(s, start)
        played = 0
        while not s.scalar[ENDED] and s.scalar[ROUND] <= cap and s.scalar[COMMANDS] < command_cap:
            if played == limit:
                break
            _choose(s, k)
            code = _apply(s, k, key, first + r)
            if code:
                return code
            s.scalar[COMMANDS] += 1
            played += 1
        out[r, 0], out[r, 1] = s.scalar[ENDED], s.scalar[WINNER]
        out[r, 2], out[r, 3] = s.scalar[ROUND], s.scalar[COMMANDS]
        for i in range(s.hp.shape[0]):
            hp[r, i] = s.hp[i]
    return OK
