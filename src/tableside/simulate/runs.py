"""One simulated run: where it starts, which dice it rolls, how it is played and what it scores.

A run starts from the state an exported encounter (``tableside/encounter`` v1, as written by
``tableside war export`` / ``fight export``) has reached: its log is replayed as stored, no dice
rolled. Run ``i`` of a simulation with base seed ``S`` then plays on as if the encounter's seed
were :func:`run_seed` ``(S, i)``: its command number ``n`` (counting on from the encounter's own
commands) rolls from ``SeededRng.stream(run_seed(S, i), n)``, exactly as the engine would. So every
run depends only on (file, S, i, policy, caps), never on how runs are shared among workers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.errors import TablesideError
from tableside.service import GAMES, game_for
from tableside.simulate.games import Counts, SimGame, sim_game
from tableside.store.formats import parse_encounter

COMMAND_CAP = 100_000  # a run still going after this many commands counts as unfinished


class SimulationError(TablesideError):
    """A simulation that cannot be run as asked."""


def run_seed(base: int, run: int) -> int:
    """The dice seed of run ``run``: child ``run`` of ``SeedSequence(base)``, 63 bits of it."""
    child = np.random.SeedSequence(base, spawn_key=(run,))
    return int(child.generate_state(1, np.uint64)[0]) >> 1


class StreamRng:
    """``SeededRng.stream(seed, stream)``'s dice, built only when the first die is rolled.

    Most commands (moving, resting, ending a Turn) roll nothing, so most streams are never built;
    those that are give exactly ``SeededRng.stream``'s dice (tests/test_simulate.py checks it).
    """

    __slots__ = ("_integers", "seed", "stream")

    def __init__(self, seed: int, stream: int) -> None:
        self.seed, self.stream = seed, stream
        self._integers: Callable[[int, int], Any] | None = None

    def roll(self, sides: int) -> int:
        """One die of ``sides`` faces (the same call as ``SeededRng.roll``)."""
        if self._integers is None:
            sequence = np.random.SeedSequence([self.seed, self.stream])
            self._integers = np.random.Generator(np.random.PCG64(sequence)).integers
        return int(self._integers(1, sides + 1))


@dataclass(frozen=True)
class Start:
    """Where every run begins: the game, the state, the next command number, the file's seed."""

    game: str
    name: str
    seed: int
    state: Any
    next_seq: int


def load_start(document: Any) -> Start:
    """Validate an exported encounter and replay its log to the state it has reached."""
    doc, records = parse_encounter(document)
    if doc.game not in GAMES:
        raise SimulationError(
            f"This file holds a {doc.game!r} encounter, which cannot be simulated "
            f"(known: {', '.join(GAMES)})."
        )
    encounter = Encounter.from_records(game_for(doc.game), doc.seed, records)
    return Start(doc.game, doc.name, doc.seed, encounter.state, encounter.next_seq)


def check_playable(sim: SimGame[Any], start: Start) -> None:
    """Refuse an encounter that has ended or has fewer than two sides."""
    if sim.ended(start.state):
        raise SimulationError(
            f"The encounter {start.name!r} has already ended (winner: "
            f"{sim.winner(start.state) or 'nobody'}); there is nothing to simulate."
        )
    sides = sorted(set(sim.sides(start.state).values()))
    if len(sides) < 2:
        raise SimulationError(
            f"The encounter {start.name!r} needs combatants on two sides to be simulated; "
            f"it has {', '.join(sides) or 'none'}."
        )


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What one run came to.

    ``winner`` is the side left standing (None for a draw or an unfinished run); ``clock`` the
    Cycle or round the run ended in (or was stopped in); ``losses`` per combatant, in
    :attr:`SimGame.measures` order; ``fallen`` those Defeated or down at the end.
    """

    run: int
    finished: bool
    winner: str | None
    clock: int
    commands: int
    losses: tuple[tuple[str, tuple[int, ...]], ...]
    fallen: tuple[str, ...]


def play_run(
    sim: SimGame[Any], start: Start, base: int, run: int, cap: int
) -> tuple[RunOutcome, Any]:
    """Play run ``run`` to its end (or to the cap on the clock); its outcome and final state."""
    seed = run_seed(base, run)
    state, seq, commands = start.state, start.next_seq, 0
    counts: Counts = {who: [0] * len(sim.measures) for who in sim.sides(state)}
    while not sim.ended(state) and sim.clock(state) <= cap and commands < COMMAND_CAP:
        command = sim.next_command(state)
        events, state = refusal_named(sim, state, command, StreamRng(seed, seq), run)
        sim.count(events, counts)
        seq, commands = seq + 1, commands + 1
    sim.settle(start.state, state, counts)
    return outcome(sim, state, run, commands, counts), state


def refusal_named(sim: SimGame[Any], state: Any, command: Command, rng: StreamRng,
                  run: int) -> tuple[list[Any], Any]:  # fmt: skip
    """Play one command; a refusal (a state the policy cannot handle) names the run."""
    try:
        return sim.play(state, command, rng)
    except TablesideError as error:
        raise SimulationError(
            f"Run {run} stopped because the policy's {command.kind} command was refused: {error}"
        ) from None


def outcome(sim: SimGame[Any], state: Any, run: int, commands: int, counts: Counts) -> RunOutcome:
    """Score a run's final state."""
    finished = sim.ended(state)
    return RunOutcome(
        run=run,
        finished=finished,
        winner=sim.winner(state) if finished else None,
        clock=sim.clock(state),
        commands=commands,
        losses=tuple((who, tuple(values)) for who, values in counts.items()),
        fallen=sim.fallen(state),
    )


def simulation_for(start: Start, rest: bool) -> SimGame[Any]:
    """The game's simulation, with the War policy's Rest rule on or off."""
    return sim_game(start.game, rest)
