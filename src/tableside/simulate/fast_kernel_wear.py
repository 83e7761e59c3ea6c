"""The fast War kernel's bookkeeping of Wear, Falter, Epic results and Exertion (issue 26).

A combatant's form follows its Wear and Status lowerings (:func:`refresh`); Falter is capped
and its excess converts to Wear, all of it when the elohim is Defeated, held or under F:1 Cycle
(M-34, M-36, M-37); a Strike's drawn consequences are applied in ``war.apply_strike``'s order
(:func:`apply_strike`). Split from ``fast_kernel`` (issue 26).
"""

from __future__ import annotations

from tableside.simulate.fast_kernel_base import (
    AP_GAINED,
    ASLEEP,
    BOUND,
    D_E,
    D_EPIC,
    D_EXERTION,
    D_FALTER,
    DEFEATED,
    EPIC_DEFEAT,
    EPIC_LOWERED,
    EPIC_NONE,
    ERR_LOWERINGS,
    ERR_WEAR,
    FALTER_CAP,
    FIRED,
    FREE,
    I64,
    NEED,
    NEED_FORM,
    OK,
    S_EPIC,
    S_FALTER,
    S_KIND,
    S_WEAR,
    STRIKE_AP,
    TIMED_SLOTS,
    TURN_BASE,
    WEAR_PER_FALTER,
    Known,
    Needs,
    Runs,
    find,
    form_key,
    inline,
)


@inline
def form_of(s: Runs, k: Known, n: Needs, r: int, i: int, lowered: int, epic: int) -> int:
    """The form of combatant ``i`` of run ``r`` with these lowerings (−code when not known)."""
    key = form_key(s.wear[r, i, 0], s.wear[r, i, 1], s.wear[r, i, 2], i, lowered, epic)
    if key < 0:
        return -ERR_WEAR
    at = find(k.form_keys, key)
    if at < 0:
        n.kind[r], n.key[r] = NEED_FORM, key
        return -NEED
    return int(k.form_values[at])


@inline
def refresh(s: Runs, k: Known, n: Needs, r: int, i: int) -> int:
    """Combatant ``i``'s form again, after its Wear or lowerings changed."""
    form = form_of(s, k, n, r, i, s.lowered[r, i], s.epic[r, i])
    if form < 0:
        return -form
    s.form[r, i] = form
    return OK


@inline
def status(s: Runs, k: Known, r: int, i: int) -> int:
    """Combatant ``i``'s Status code (``DEFEATED`` …)."""
    return int(k.form_table[0, s.form[r, i]])


@inline
def take_wear(s: Runs, k: Known, n: Needs, r: int, i: int, e: int, rr: int, p: int) -> int:
    """A ``wear_taken`` event (nothing when all three are 0), the form refreshed."""
    if e == 0 and rr == 0 and p == 0:
        return OK
    s.wear[r, i, 0] += e
    s.wear[r, i, 1] += rr
    s.wear[r, i, 2] += p
    s.taken[r, i, 0] += e
    s.taken[r, i, 1] += rr
    s.taken[r, i, 2] += p
    return refresh(s, k, n, r, i)


@inline
def convert_if_defeated(s: Runs, k: Known, n: Needs, r: int, i: int) -> int:
    """A Defeated elohim's F:# all converts to WearR and WearP at once (M-34)."""
    if s.falter[r, i] > 0 and status(s, k, r, i) == DEFEATED:
        wear = WEAR_PER_FALTER * s.falter[r, i]
        s.falter[r, i] = 0
        return take_wear(s, k, n, r, i, 0, wear, wear)
    return OK


@inline
def waste_ap(s: Runs, r: int, i: int) -> None:
    """Falter wastes Readied AP first, then the Turn's AP (M-34, ``war.waste_available_ap``)."""
    wasted = min(s.falter[r, i], s.readied[r, i])
    s.readied[r, i] -= wasted
    s.falter[r, i] -= wasted
    wasted = min(s.falter[r, i], s.ap[r, i])
    s.ap[r, i] -= wasted
    s.falter[r, i] -= wasted


@inline
def inflict_falter(s: Runs, k: Known, n: Needs, r: int, i: int, amount: int) -> int:
    """Falter capped at 7, the excess to Wear, AP wasted (M-34).

    Defeated, F:1 Cycle, Grappled, Entangled, Bound or Asleep, all of it converts (M-34, M-36,
    M-37).
    """
    total = s.falter[r, i] + amount
    converts = (status(s, k, r, i) == DEFEATED or s.held[r, i] != FREE or s.fcycle[r, i] != 0
                or (s.cond[r, i] & (BOUND | ASLEEP)) != 0)  # fmt: skip
    falter = 0 if converts else min(FALTER_CAP, total)
    wear = WEAR_PER_FALTER * (total - falter)
    s.falter[r, i] = falter
    code = take_wear(s, k, n, r, i, 0, wear, wear)
    if code:
        return code
    waste_ap(s, r, i)
    return OK


@inline
def epic_result(s: Runs, k: Known, n: Needs, r: int, i: int, code: int) -> int:
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
    return refresh(s, k, n, r, i)


@inline
def add_exertion(s: Runs, r: int, i: int, amount: int, self_generated: bool) -> None:
    """Exertion with the free first 3 of each window when self-generated (M-4)."""
    if self_generated:
        window = s.window[r, i]
        ignored = min(amount, max(0, 3 - window))
        s.exertion[r, i] += amount - ignored
        s.window[r, i] = window + amount
    else:
        s.exertion[r, i] += amount


@inline
def apply_strike(s: Runs, k: Known, n: Needs, r: int, me: int, target: int, row: I64) -> int:
    """Wear, Falter, Exertion, AP, 12 Effects and Epic results, in war.apply_strike's order."""
    code = take_wear(s, k, n, r, target, row[D_E], row[D_E + 1], row[D_E + 2])
    code = code or convert_if_defeated(s, k, n, r, target)
    if code:
        return code
    kind, amount = row[S_KIND], row[S_WEAR]
    code = take_wear(s, k, n, r, me, amount * (kind == 0), amount * (kind == 1),
                      amount * (kind == 2))  # fmt: skip
    code = code or convert_if_defeated(s, k, n, r, me)
    if code:
        return code
    if row[D_FALTER] > 0:
        code = inflict_falter(s, k, n, r, target, row[D_FALTER])
        if code:
            return code
    if row[S_FALTER] > 0:
        code = inflict_falter(s, k, n, r, me, row[S_FALTER])
        if code:
            return code
    add_exertion(s, r, me, STRIKE_AP, True)
    add_exertion(s, r, target, row[D_EXERTION], False)
    s.twelves[r, me] += row[FIRED]
    s.ap[r, me] += row[AP_GAINED]
    if row[D_EPIC] != EPIC_NONE:
        code = epic_result(s, k, n, r, target, row[D_EPIC])
        if code:
            return code
    if row[S_EPIC] != EPIC_NONE:
        return epic_result(s, k, n, r, me, row[S_EPIC])
    return OK
