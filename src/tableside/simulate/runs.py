"""One simulated run: where it starts, which dice it rolls, how it is played and what it scores.

A run starts from the state an exported encounter (``tableside/encounter`` v1, as written by
``tableside war export`` / ``fight export``) has reached: its log is replayed as stored, no dice
rolled. Run ``i`` of a simulation with base seed ``S`` then plays on as if the encounter's seed
were :func:`run_seed` ``(S, i)``: its command number ``n`` (counting on from the encounter's own
commands) rolls from ``SeededRng.stream(run_seed(S, i), n)``, exactly as the engine would. So every
run depends only on (file, S, i, policy, caps), never on how runs are shared among workers.
"""

from __future__ import annotations

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


MAX_SIDES = 2**32  # the largest die numpy draws from one 32-bit word (so StreamRng does too)
_WORD = 0xFFFFFFFF
_RAW_BATCH = 4  # 64-bit outputs fetched at a time: eight 32-bit words, a Strike's 7d12 and more


class StreamRng:
    """``SeededRng.stream(seed, stream)``'s dice, drawn exactly as numpy draws them, only faster.

    ``Generator.integers(1, sides + 1)`` on a PCG64 takes, for ``sides`` up to 2**32, 32-bit words
    from the bit generator (the low half of each 64-bit output first, then the high half) and
    maps each to a die with Lemire's method, drawing again on the rare rejected word. This class
    does the same in plain Python on words fetched a few outputs at a time, which spares a numpy
    call per die; most commands (moving, resting, ending a Turn) roll nothing, so the generator is
    built only when the first die is rolled. tests/test_simulate.py checks the dice against
    ``SeededRng.stream`` for many seeds and die sizes, rejections included.
    """

    __slots__ = ("_bits", "_words", "seed", "stream")

    def __init__(self, seed: int, stream: int) -> None:
        self.seed, self.stream = seed, stream
        self._bits: np.random.PCG64 | None = None
        self._words: list[int] = []  # 32-bit words not used yet, the next one last

    def roll(self, sides: int) -> int:
        """One die of ``sides`` faces (the same die as ``SeededRng.roll``)."""
        if not 1 <= sides <= MAX_SIDES:
            raise SimulationError(f"A simulated die needs 1 to {MAX_SIDES} faces, not {sides}.")
        if sides == 1:
            return 1  # numpy draws nothing for a range of one value
        if sides == MAX_SIDES:
            return 1 + self._next_word()
        scaled = self._next_word() * sides
        leftover = scaled & _WORD
        if leftover < sides:
            threshold = (_WORD - (sides - 1)) % sides
            while leftover < threshold:
                scaled = self._next_word() * sides
                leftover = scaled & _WORD
        return 1 + (scaled >> 32)

    def _next_word(self) -> int:
        if not self._words:
            if self._bits is None:
                self._bits = np.random.PCG64(np.random.SeedSequence([self.seed, self.stream]))
            words: list[int] = []
            for output in self._bits.random_raw(_RAW_BATCH).tolist():
                words += (output & _WORD, output >> 32)
            words.reverse()
            self._words = words
        return self._words.pop()


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
