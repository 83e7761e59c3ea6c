"""The fast War kernel's Cycles and Turns: expiries, War Scrolls, Turn starts (issue 26).

Timed lowerings and F:1 Cycle end at their End Points; a new Cycle's War Scroll is looked up by
the standing combatants' places (M-40, A-30); a Turn starts as ``war.start_turn`` starts it
(M-19, M-34 … M-41); after every command the Defeated's Falter converts and the War may end.
Split from ``fast_kernel`` (issue 26).
"""

from __future__ import annotations

from tableside.simulate.fast_kernel_base import (
    DEFEATED,
    ERR_ALL_DEFEATED,
    ERR_NO_TURN,
    HASH_FACTOR,
    HASH_START,
    I64,
    NEED,
    NEED_SCROLL,
    NO_END,
    OK,
    TIMED_SLOTS,
    TURN_AP,
    TURN_BASE,
    Known,
    Needs,
    Runs,
    inline,
)
from tableside.simulate.fast_kernel_wear import (
    convert_if_defeated,
    form_of,
    refresh,
    status,
    waste_ap,
)


@inline
def expire(s: Runs, k: Known, n: Needs, r: int, now: int) -> int:
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
        code = refresh(s, k, n, r, i)
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
def start_cycle(s: Runs, k: Known, n: Needs, r: int) -> int:
    """Expiries, then the new Cycle's War Scroll from the standing combatants (M-40, A-30)."""
    upcoming = s.cycle[r] + 1
    code = expire(s, k, n, r, upcoming * TURN_BASE)
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
            form = form_of(s, k, n, r, i, max(0, s.lowered[r, i] - ending), s.epic[r, i])
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
def start_turn(s: Runs, k: Known, n: Needs, r: int, index: int) -> int:
    """Expiries, the Turn's resets, Readied AP resting, Poison, AP arriving, Falter wasting them.

    As ``war.start_turn`` (M-19, M-34 … M-41): Surprise ends; carried AP join the Turn's;
    unused Readied AP count as Rest; under F:1 Cycle every AP arriving is wasted (M-34,
    ``war.grant_turn_ap``).
    """
    code = expire(s, k, n, r, s.cycle[r] * TURN_BASE + index)
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
    waste_ap(s, r, me)
    return OK


@inline
def current(s: Runs, r: int) -> tuple[bool, int]:
    """Whether run ``r`` is in a Turn, and whose it is."""
    turn = s.turn[r]
    has = turn >= 0 and turn < s.order_n[r]
    return has, s.order_c[r, min(max(turn, 0), s.order_c.shape[1] - 1)]


@inline
def next_turn(s: Runs, k: Known, n: Needs, r: int) -> int:
    """End the Turn and start the next standing combatant's (a new Cycle when due)."""
    has, me = current(s, r)
    if has:
        s.ap[r, me] = 0
    for _ in range(s.form.shape[1] * 8 + 8):
        index = s.turn[r] + 1
        if index >= s.order_n[r]:
            code = start_cycle(s, k, n, r)
            if code:
                return code
            index = 0
        who = s.order_c[r, index]
        if status(s, k, r, who) != DEFEATED:
            return start_turn(s, k, n, r, index)
        s.turn[r] = index
    return ERR_NO_TURN


@inline
def after(s: Runs, k: Known, n: Needs, r: int) -> int:
    """After every command: Falter of the Defeated converts, Weary, the end of the War."""
    c = s.form.shape[1]
    for i in range(c):
        if s.falter[r, i] > 0:
            code = convert_if_defeated(s, k, n, r, i)
            if code:
                return code
    has, me = current(s, r)
    if has:
        s.weary[r, me] = s.exertion[r, me] > k.form_table[1, s.form[r, me]]
    holy = fallen = False
    for i in range(c):
        if status(s, k, r, i) != DEFEATED:
            if k.side[i] == 0:
                holy = True
            else:
                fallen = True
    if k.sides_present == 2 and not (holy and fallen) and not s.ended[r]:
        s.ended[r] = 1
        s.winner[r] = 0 if holy else (1 if fallen else -1)
    return OK
