"""The fast Strife kernel's commands: an attack, an AoO, a cast, a Move, a Roll (F-50, F-41).

:func:`_apply` plays the command the policy chose (``State.command``) as ``encounter/strife/``
plays it, drawing each attack's or cast's outcome from its law with the run's next uniform
number.
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_kernel import uniform
from tableside.simulate.fast_strife_kernel_base import (
    ACTION,
    ATTACK,
    CAST,
    CONTACT,
    DRAWS,
    ERR_OFFERS,
    ERR_SHOT,
    ERR_SLOTS,
    FAILED,
    KERNEL_FILES,
    LAST_BY,
    LAST_HURT,
    MOVE,
    MOVE_TO,
    NEXT,
    OFFERS_N,
    OK,
    REACTED,
    ROLL,
    State,
    Static,
    _bit,
    _current,
    _dist,
    _dist_to,
    _rounded,
    helper,
    inline,
    round3,
)
from tableside.simulate.fast_strife_kernel_compel import bound, taunt_allows
from tableside.simulate.fast_strife_kernel_turns import _check_end, _next, _penalise

numba_cache.covers(__file__, *KERNEL_FILES)


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
        if k.shot_of[who, weapon, other, 0, 0] >= 0:  # a ranged weapon: by inches moved (F-62)
            inches = int(s.moved[who])
            if inches >= k.shot_of.shape[3]:
                return ERR_SHOT
            flying = int(s.pos[who, 2] > 0 and not s.perched[who])  # F-71
            law = k.shot_of[who, weapon, other, inches, flying]
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

    One draw per target, in the targets' order, from its own law; on several targets of a
    one-roll power the shared casting d100 is drawn first and each target's law is the one given
    its face (F-73). The damage is dealt target by target, the fight's end checked, then the
    effects put on each target still standing.
    """
    caster, count, p = s.command[1], s.command[2], s.command[3]
    s.elements[caster] |= ACTION
    res, cost = k.power_resource[p], k.power_cost[p]
    if cost != 0 and res >= 0:
        s.pools[caster, res] -= cost
    face = -1
    if count > 1 and k.cast_given[p, s.targets[0, 0], s.targets[0, 1], 0] >= 0:
        u = uniform(key, run, s.scalar[DRAWS])
        s.scalar[DRAWS] += 1
        face = k.damage[_draw(k, k.d100, u)] - 1
    for t in range(count):
        target = s.targets[t, 0]
        law = k.cast_of[p, target, s.targets[t, 1]]
        if face >= 0:
            law = k.cast_given[p, target, s.targets[t, 1], face]
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
    if s.to[2] <= 0 or s.to[2] != s.pos[who, 2]:  # up or down leaves a perch (SA-90, F-71)
        s.perched[who] = 0
    for axis in range(3):
        s.pos[who, axis] = s.to[axis]
    s.moved[who] += _rounded(inches)
    left = before & ~_contacts(s, k, who)
    if k.binds and bound(s, k, who):  # a move under compulsion offers none (SA-71, F-72)
        return OK
    for enemy in range(s.hp.shape[0]):
        if not _bit(left, enemy) or (k.binds and not taunt_allows(s, k, enemy, who)):  # SA-91
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
    if s.to[2] <= 0:  # a forced move keeps a perch above the ground (F-71)
        s.perched[who] = 0
    for axis in range(3):
        s.pos[who, axis] = s.to[axis]
    s.moved[who] += round3(inches)
    _penalise(s, k, who)
    return _put_on(s, k, who, k.rolled, -1)
