"""The fast Realm of Strife engine: the ambush under the Strife policy, attacks drawn from law.

A run keeps only what the policy and the rules it meets read (F-8): each model's HP,
position, conditions (and those put on during its own Turn), Turn elements, inches moved and
Movement spent this Turn and Roll-with-the-Blow Initiative penalty; the round, its Turn Order
and whose Turn it is; the Reactions spent and failed Parries of the round; the weapons used for
Attacks of Opportunity this Turn and the offers still open; who was damaged last and by whom;
whether the fight has ended and who won. Each command is the policy's
(``encounter/strife/policy.py``) worked out on that state, and applied in the order the engine
applies its events (``encounter/strife/``). An attack is not rolled: its consequences
are drawn from their exact joint law (:mod:`fast_strife_law`, F-9), one law per (attacker,
weapon, defender, reaction), computed from the engine's own ``attack_setup`` at the start.
A cast (the policy's F-40) is drawn from its law too (F-41): one per (caster, power, target,
Block or not), from the setup the engine's own ``cast_rolls`` builds; the run keeps each
caster's resource pools. Where the models are — a weapon on the ground, the bottom of the queue
(kept per round), hidden, under water, climbing, perched or flying (each model's perch kept) —
is played as the engine plays it (:mod:`fast_strife_places`, :mod:`fast_strife_water`, F-68 …
F-71).

What it does not model makes :func:`unsupported` name a reason, and the full engine plays the
fight (F-10). The run's state and roster are in :mod:`fast_strife_run`, the policy in
:mod:`fast_strife_choose`, the rules in :mod:`fast_strife_rules`; this module starts, batches
and spreads the runs.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from tableside.dice import ScriptedRng
from tableside.dice.rng import DiceExhaustedError
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.simulate.fast_strife_choose import (
    cast_command,
    choose,
    command_of,
)
from tableside.simulate.fast_strife_law import Law, Outcome
from tableside.simulate.fast_strife_laws import Laws
from tableside.simulate.fast_strife_rules import Rules
from tableside.simulate.fast_strife_run import (
    ROLLED_BACK,
    Choice,
    Roster,
    Run,
    dist,
    engine_view,
    pools_of,
    roster_of,
    view,
)
from tableside.simulate.runs import COMMAND_CAP, RunOutcome
from tableside.simulate.tally import Tally
from tableside.strife.catalog import Catalog

__all__ = ["BATCH", "ROLLED_BACK", "STRIFE_KEY", "Batch", "Choice", "Roster", "Rules", "Run",
           "cast_command", "choose", "command_of", "dist", "engine_view", "generator",
           "play_batch", "pools_of", "roster_of", "run_fast", "spread", "started",
           "unsupported", "view", "why_not"]  # fmt: skip

BATCH = 4096  # runs per batch: one generator each (F-11)
STRIFE_KEY = 16  # spawn-key tag of the fast Realm of Strife engine's generators (F-11)


def started(state: FightState, game: StrifeFight) -> FightState | None:
    """The fight after the simulation's ``start`` (no ambush) when it rolls no die (F-10).

    A fight already started is returned as it is. The start's Turn Order rolls only to break a
    tie of Initiative Score and Initiative stat; with such a tie, None (the full engine plays).
    """
    if state.round >= 0:
        return state
    try:
        return game.play(state, Command("start", {}), ScriptedRng(()))[1]
    except DiceExhaustedError:
        return None


def unsupported(state: FightState, catalog: Catalog) -> str | None:
    """Why the fast engine cannot play this fight from ``state`` (None: it can) (F-10)."""
    if state.round < 0:
        return "the fight has not started"
    for m in state.models.values():
        why = _model_unsupported(m, catalog)
        if why is not None:
            return f"{m.id}: {why}"
    return None


def _model_unsupported(m: Any, catalog: Catalog) -> str | None:
    """What of one model the fast engine does not model (None: all of it is played).

    Every place (F-68 … F-71), condition (F-72) and instant (F-74) is played.
    """
    return None


# --- many runs -----------------------------------------------------------------------------------


class Batch:
    """Runs of one fight from one start on the fast engine."""

    def __init__(self, state: FightState, game: StrifeFight | None = None, extra: int = 0) -> None:
        self.extra = extra  # commands played before ``state`` (the simulation's ``start``)
        self.game = game or StrifeFight()
        self.start = state
        self.roster = roster_of(state, self.game.catalog)
        self.laws = Laws(state, self.game, self.roster)
        self.rules = Rules(self.roster, self.laws)

    def play(self, first: int, count: int, cap: int, rng: np.random.Generator) -> list[RunOutcome]:
        """Runs ``first`` … ``first + count − 1`` to their end or the cap on rounds."""
        uniforms: list[float] = []

        def draw(law: Law) -> Outcome:
            if not uniforms:
                uniforms.extend(rng.random(4096).tolist())
            return law.draw(uniforms.pop())

        template = Run(self.start, self.roster)
        roster, apply = self.roster, self.rules.apply
        ids, start_hp = roster.ids, template.hp
        outcomes = []
        for number in range(first, first + count):
            run = template.copy()
            commands = self.extra
            while not run.ended and run.round <= cap and commands < COMMAND_CAP:
                apply(run, choose(run, roster), draw)
                commands += 1
            losses = tuple((who, (start_hp[i] - run.hp[i],)) for i, who in enumerate(ids))
            fallen = tuple(who for i, who in enumerate(ids) if run.hp[i] <= 0)
            outcomes.append(RunOutcome(number, run.ended, run.winner if run.ended else None,
                                       run.round, commands, losses, fallen))  # fmt: skip
        return outcomes


def why_not(state: FightState, game: StrifeFight | None = None) -> str | None:
    """Why the fast engine cannot play this fight (None: it can): the start, then the laws."""
    game = game or StrifeFight()
    begun = started(state, game)
    if begun is None:
        return "the start's Turn Order needs a roll-off (a tie of Initiative)"
    why = unsupported(begun, game.catalog)
    if why is not None:
        return why
    return _batch(state, game).laws.unsupported()


_KNOWN: dict[bytes, Batch] = {}  # the last batch per start state in this process


def _batch(state: FightState, game: StrifeFight | None = None) -> Batch:
    key = pickle.dumps(state)
    batch = _KNOWN.get(key)
    if batch is None:
        game = game or StrifeFight()
        begun = started(state, game)
        if begun is None:
            raise ValueError("the fight's start rolls dice; ask why_not first")
        batch = Batch(begun, game, extra=int(begun is not state))
        _KNOWN.clear()
        _KNOWN[key] = batch
    return batch


def play_batch(state: FightState, seed: int, cap: int, first: int, count: int) -> Tally:
    """Runs ``first`` … ``first + count − 1`` on the fast engine, tallied (F-11 seeds)."""
    batch = _batch(state)
    tally = Tally({who: side for who, side in zip(batch.roster.ids, batch.roster.side,
                                                  strict=True)}, 1)  # fmt: skip
    for outcome in batch.play(first, count, cap, generator(seed, first)):
        tally.add(outcome)
    return tally


def generator(seed: int, first: int) -> np.random.Generator:
    """The generator of the batch starting at run ``first`` (its own spawn key, F-11)."""
    sequence = np.random.SeedSequence(seed, spawn_key=(STRIFE_KEY, first // BATCH))
    return np.random.Generator(np.random.PCG64(sequence))


def run_fast(state: FightState, seed: int, cap: int, runs: int, workers: int,
             progress: Callable[[int], None] | None = None) -> Tally:  # fmt: skip
    """Every run on this Python fast path, batches on ``workers`` processes, in run order.

    A fight the compiled kernel covers is played there instead by
    ``fast_strife_compiled.run_any`` (F-50), which the simulator calls.
    """
    return spread(play_batch, BATCH, state, seed, cap, runs, workers, progress)


def spread(
    play: Callable[[FightState, int, int, int, int], Tally],
    batch: int,
    state: FightState,
    seed: int,
    cap: int,
    runs: int,
    workers: int,
    progress: Callable[[int], None] | None,
) -> Tally:
    """Runs cut in batches of ``batch``, each ``play(state, seed, cap, first, count)``.

    The batches run here or on ``workers`` processes (``play`` is a module's function, so it
    pickles); their tallies are merged in run order, so any number of workers gives the same.
    """
    pieces = [(first, min(batch, runs - first)) for first in range(0, runs, batch)]
    tallies: list[Tally] = []
    if workers <= 1 or len(pieces) == 1:
        for first, count in pieces:
            tallies.append(play(state, seed, cap, first, count))
            if progress is not None:
                progress(count)
    else:
        with ProcessPoolExecutor(min(workers, len(pieces))) as pool:
            futures = [pool.submit(play, state, seed, cap, first, count)
                       for first, count in pieces]  # fmt: skip
            for future, (_, count) in zip(futures, pieces, strict=True):
                tallies.append(future.result())
                if progress is not None:
                    progress(count)
    total = tallies[0]
    for more in tallies[1:]:
        total.merge(more)
    return total
