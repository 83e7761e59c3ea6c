"""The fast Strife kernel's Turns: the end of a Turn, Turn Order, a round, the end (F-50).

As ``encounter/strife/`` plays them: conditions ticked or ended at the end of a Turn (S-19,
SA-50), the next standing model's Turn or a new round (S-3 to S-5), the Roll with the Blow's
penalty in the queue (S-19, SA-44) and the end of the fight.
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_strife_kernel_base import (
    BARRED,
    BOTTOM,
    ENDED,
    FAILED,
    INSTANT,
    KERNEL_FILES,
    LAST_BY,
    LAST_HURT,
    OFFERS_N,
    OK,
    ORDER_N,
    OWED,
    PENALTY,
    REACTED,
    ROUND,
    TURN,
    WINNER,
    State,
    Static,
    _bit,
    _current,
    helper,
    inline,
)

numba_cache.covers(__file__, *KERNEL_FILES)


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
        j = s.order[index]  # not after one gone to the bottom of the queue (S-4, F-68)
        if _bit(s.scalar[BOTTOM], j) or _before(s, k, j, score, k.initiative[who]):
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
    s.elements[j] = INSTANT | BARRED if s.elements[j] & OWED else 0  # owed: used, barred (F-74)
    s.moved[j] = 0.0
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
    s.scalar[REACTED] = s.scalar[FAILED] = s.scalar[OFFERS_N] = s.scalar[BOTTOM] = 0
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
