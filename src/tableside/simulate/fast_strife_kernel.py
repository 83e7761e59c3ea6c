"""The compiled kernel of the fast Realm of Strife engine: runs played in machine code (issue 15).

:mod:`fast_strife` plays a run in plain Python, one command after the other; this kernel (numba)
plays the very same transitions (F-8) on arrays: each model's HP, position, conditions (slots of
a *kind* — name, source, ``until`` — and the rounds left), the names put on during its own Turn,
Turn elements, inches moved, Roll-with-the-Blow penalty and perch (F-71); the round, Turn Order
and whose Turn it is; Reactions spent, failed Parries and the bottom of the queue (bit sets,
F-68); AoO weapons used this Turn (bit sets per model) and the offers still open; who was
damaged last and by whom; the end and the winner. The Movement spent this Turn is not kept:
nothing the policy or the rules it meets read it. Each caster's resource pools are kept, and the
policy's casts (F-40) are played as the Python path plays them (F-41, F-60): one draw per target
from the cast's exact law.

Each attack's consequences are drawn from the same exact joint laws (``fast_strife_law``, F-9),
turned into arrays: per law its cumulative floats and, per outcome, the failed Parry, the
damage and the conditions put on (F-50). Each run's uniform numbers are the War kernel's
(``fast_kernel.uniform``, SplitMix64 of batch key, run and count). Distances are
``fast_kernel.distance3`` (``math.dist`` bit for bit) and positions are rounded as Python's
``round(x, 3)`` rounds them (:func:`round3`, correctly rounded from the exact product by 1000).

The tables and the start state are built by :mod:`fast_strife_compiled`; this module and its
parts hold only what numba compiles: the arrays and small helpers (:mod:`fast_strife_kernel_base`),
the policy (:mod:`fast_strife_kernel_policy`), the commands (:mod:`fast_strife_kernel_acts`),
the Turns (:mod:`fast_strife_kernel_turns`) and here the runs (:func:`play`).
"""

from __future__ import annotations

from tableside.simulate import numba_cache
from tableside.simulate.fast_kernel import uniform
from tableside.simulate.fast_strife_kernel_acts import _apply
from tableside.simulate.fast_strife_kernel_base import (
    ACTION,
    BARRED,
    BOTTOM,
    COMMANDS,
    CONTACT,
    ENDED,
    F64,
    FAILED,
    I64,
    INSTANT,
    KERNEL_FILES,
    LAST_BY,
    LAST_HURT,
    MOVE,
    OFFERS_N,
    OK,
    ORDER_N,
    OWED,
    PENALTY,
    REACTED,
    ROUND,
    ROUNDING,
    SCALARS,
    TURN,
    WHOLE_TURN,
    WINNER,
    State,
    Static,
    inline,
    jit,
    round3,
)
from tableside.simulate.fast_strife_kernel_policy import _choose

numba_cache.covers(__file__, *KERNEL_FILES)

__all__ = ["ACTION", "BARRED", "BOTTOM", "COMMANDS", "CONTACT", "ENDED", "FAILED", "INSTANT",
           "LAST_BY", "LAST_HURT", "MOVE", "OFFERS_N", "OK", "ORDER_N", "OWED", "PENALTY",
           "REACTED", "ROUND", "ROUNDING", "SCALARS", "TURN", "WHOLE_TURN", "WINNER", "State",
           "Static", "play", "round3", "uniform"]  # fmt: skip


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
    _copy1(s.perched, start.perched)


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
