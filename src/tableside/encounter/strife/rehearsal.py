"""Dry runs and the rehearsal: a command decided on a throwaway copy of its dice stream.

A dry run tells whether the rules accept a command (the choices ask nobody about a command
that could never be decided); a rehearsal keeps its events so the real command reuses them
(issue 21, item 8).
"""

from __future__ import annotations

import copy
import pickle
import threading
from dataclasses import dataclass

from tableside.dice import Rng, SeededRng
from tableside.encounter.log import Command
from tableside.encounter.strife.dice import PHYSICAL_ARGS
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import FightRules, Pending
from tableside.errors import TablesideError


@dataclass(frozen=True)
class Rehearsal:
    """A command decided on a throwaway copy of its fresh dice stream: what it was and gave."""

    game: FightRules
    state: FightState
    key: tuple[bytes, int, int | None]
    pending: Pending


_rehearsal = threading.local()  # each thread's last rehearsal (one request at a time)


def stream_key(command: Command, rng: Rng) -> tuple[bytes, int, int | None] | None:
    """What fixes a command's events on a given state, with its dice stream.

    Its kind and arguments (pickled, so ``True``, ``1`` and ``1.0`` differ) and an unused seeded
    stream's seed and number.

    None: dice typed in, or a stream already rolled from (never rehearsed).
    """
    if command.dice is not None or not isinstance(rng, SeededRng):
        return None
    if rng._generator is not None:
        return None
    try:
        args = pickle.dumps((command.kind, command.args), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return (args, rng.seed, rng._stream)


def rehearse(game: FightRules, state: FightState, command: Command, rng: Rng) -> Pending:
    """Decide ``command`` on ``rng`` (a throwaway copy) with full reports, and keep it.

    The real :meth:`StrifeFight.decide` of the same command on the same state and stream takes
    it (raise to refuse).
    """
    key = stream_key(command, rng)
    _rehearsal.last = None
    p = game.pending(state, command, rng, describe=True)
    if key is not None:
        _rehearsal.last = Rehearsal(game, state, key, p)
    return p


def rehearsed(game: FightRules, state: FightState, command: Command, rng: Rng) -> Pending | None:
    """The kept rehearsal of exactly this command, state and fresh stream, taken once.

    The state must be the very object rehearsed on. None: decide it.
    """
    kept: Rehearsal | None = getattr(_rehearsal, "last", None)
    if kept is None or kept.game is not game or kept.state is not state:
        return None
    _rehearsal.last = None
    return kept.pending if stream_key(command, rng) == kept.key else None


def throwaway(rng: Rng) -> Rng:
    """A fresh copy of the command's seeded stream (typed dice: any stream will do).

    A stream not yet drawn from is made anew from its seed and number (a deep copy costs more).
    """
    if isinstance(rng, SeededRng):
        if rng._generator is None:
            copied = SeededRng(rng.seed)
            copied._stream = rng._stream
            return copied
        return copy.deepcopy(rng)
    return SeededRng.stream(0, 0)


def streamed(command: Command) -> Command:
    """The command with every die from the stream: no typed or physical dice (a dry run)."""
    args = {k: v for k, v in command.args.items() if k not in PHYSICAL_ARGS}
    return Command(command.kind, args)


def dry_run(game: FightRules, state: FightState, command: Command, rng: Rng) -> None:
    """Decide ``command`` on a throwaway copy (raise what the rules refuse)."""
    game.pending(state, streamed(command), throwaway(rng), describe=False)


def passes(game: FightRules, state: FightState, command: Command, rng: Rng) -> bool:
    """Whether the rules accept ``command`` now."""
    try:
        dry_run(game, state, command, rng)
    except TablesideError:
        return False
    return True
