"""The encounter engine: a Game decides events from commands; the state is their fold.

Undo and redo move whole commands (with the very events they produced) between the applied
list and the redo stack; a new command clears the redo stack. Every change bumps the revision,
and a command made against an older revision is refused (optimistic concurrency), unless the
caller lets it be decided against the current state (``exact=False``: the revision is then only
the one the caller saw, and a revision the encounter has not reached is still refused; W-14).
The log of records is all a store keeps; :meth:`Encounter.from_records` rebuilds the live state
from it and :meth:`Encounter.verify_replay` re-decides every command from the seed to prove it
exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.errors import StaleRevisionError, TablesideError

S = TypeVar("S")
R = TypeVar("R")


def copy_with(record: R, **changes: Any) -> R:
    """``dataclasses.replace`` for the games' own frozen state records, without its overhead.

    For dataclasses with neither ``__post_init__`` nor slots nor cached properties (the War's
    ``WarState`` and ``Combatant``, the fight's ``FightState`` and ``Model``), a copy of the
    instance dictionary with the changed fields is the very value ``replace`` builds, without
    its per-call field introspection, the hottest line of a simulated fight.
    """
    new = object.__new__(type(record))
    new.__dict__.update(record.__dict__)
    new.__dict__.update(changes)
    return new


class NothingToUndoError(TablesideError):
    """Undo or redo with nothing to undo or redo."""


class ReplayMismatchError(TablesideError):
    """Re-deciding a stored command did not reproduce its stored events."""


class Game(Protocol[S]):
    """The rules of one game as seen by the engine."""

    @property
    def name(self) -> str:
        """The game's name, stored with each encounter."""
        ...

    def initial(self) -> S:
        """The state before any command."""
        ...

    def decide(self, state: S, command: Command, rng: Rng) -> list[Event]:
        """Validate ``command`` against ``state`` and return its events (raise to refuse)."""
        ...

    def evolve(self, state: S, event: Event) -> S:
        """Apply one event (pure; never refuses)."""
        ...


@dataclass(frozen=True, slots=True)
class Applied(Generic[S]):
    """A command that is in effect, with its events and the state after it."""

    seq: int
    command: Command
    events: tuple[Event, ...]
    state: S


def command_rng(seed: int, seq: int, command: Command) -> Rng:
    """Physical dice typed in, or the encounter's seeded stream for command number ``seq``."""
    if command.dice is not None:
        return ScriptedRng(command.dice, "dice typed in")
    return SeededRng.stream(seed, seq)


class Encounter(Generic[S]):
    """A live encounter: applied commands, the redo stack, the revision and the log."""

    def __init__(self, game: Game[S], seed: int) -> None:
        self.game = game
        self.seed = seed
        self.initial = game.initial()
        self.applied: list[Applied[S]] = []
        self.redo_stack: list[Applied[S]] = []
        self.records: list[LogRecord] = []
        self.next_seq = 0

    @property
    def revision(self) -> int:
        """How many records the log holds: bumped by every command, undo and redo."""
        return len(self.records)

    @property
    def state(self) -> S:
        """The current state: the fold of every applied command's events."""
        return self.applied[-1].state if self.applied else self.initial

    def fold(self, state: S, events: Sequence[Event]) -> S:
        """Apply events in order."""
        for event in events:
            state = self.game.evolve(state, event)
        return state

    def check_revision(self, expected: int | None, exact: bool = True) -> None:
        """Refuse a command made against another revision (``exact``) or a later one (W-14)."""
        if expected is None or expected == self.revision:
            return
        if expected > self.revision:
            raise StaleRevisionError(
                f"This command was made against revision {expected} but the encounter is only "
                f"at revision {self.revision}; reload and try again."
            )
        if exact:
            raise StaleRevisionError(
                f"This command was made against revision {expected} but the encounter is at "
                f"revision {self.revision}: {self.revision - expected} newer record(s); "
                "reload and try again."
            )

    def decide(self, command: Command, seq: int) -> tuple[Event, ...]:
        """Decide a command's events without changing anything."""
        rng = command_rng(self.seed, seq, command)
        events = tuple(self.game.decide(self.state, command, rng))
        if isinstance(rng, ScriptedRng):
            rng.expect_all_used()
        return events

    def execute(
        self, command: Command, expected_revision: int | None = None, exact: bool = True
    ) -> LogRecord:
        """Decide and apply a command; on any refusal nothing changes.

        Args:
            command: The command.
            expected_revision: The revision the command was made against (None: any).
            exact: Refuse it if records came after ``expected_revision`` (the default); when
                False it is decided against the current state, still valid or refused by the
                rules (W-14).
        """
        self.check_revision(expected_revision, exact)
        seq = self.next_seq
        events = self.decide(command, seq)
        state = self.fold(self.state, events)
        record = LogRecord(self.revision + 1, RecordKind.COMMAND, seq, command, events)
        self.applied.append(Applied(seq, command, events, state))
        self.redo_stack.clear()
        self.next_seq = seq + 1
        self.records.append(record)
        return record

    def undo(self, expected_revision: int | None = None) -> LogRecord:
        """Take back the last applied command (repeatable back to the start)."""
        self.check_revision(expected_revision)
        if not self.applied:
            raise NothingToUndoError("There is nothing to undo: no command is in effect.")
        undone = self.applied.pop()
        self.redo_stack.append(undone)
        record = LogRecord(self.revision + 1, RecordKind.UNDO, undone.seq, undone.command)
        self.records.append(record)
        return record

    def redo(self, expected_revision: int | None = None) -> LogRecord:
        """Put back the last undone command with exactly the events it had."""
        self.check_revision(expected_revision)
        if not self.redo_stack:
            raise NothingToUndoError("There is nothing to redo.")
        again = self.redo_stack.pop()
        state = self.fold(self.state, again.events)
        self.applied.append(Applied(again.seq, again.command, again.events, state))
        record = LogRecord(
            self.revision + 1, RecordKind.REDO, again.seq, again.command, again.events
        )
        self.records.append(record)
        return record

    def load(self, record: LogRecord) -> None:
        """Apply a stored record as it was (no dice are rolled)."""
        if record.revision != self.revision + 1:
            raise StaleRevisionError(
                f"Record revision {record.revision} does not follow revision {self.revision}."
            )
        if record.kind == RecordKind.COMMAND and record.command is not None:
            seq = record.seq if record.seq is not None else self.next_seq
            state = self.fold(self.state, record.events)
            self.applied.append(Applied(seq, record.command, record.events, state))
            self.redo_stack.clear()
            self.next_seq = seq + 1
        elif record.kind == RecordKind.UNDO:
            self.redo_stack.append(self.applied.pop())
        else:
            again = self.redo_stack.pop()
            state = self.fold(self.state, again.events)
            self.applied.append(Applied(again.seq, again.command, again.events, state))
        self.records.append(record)

    @classmethod
    def from_records(cls, game: Game[S], seed: int, records: Sequence[LogRecord]) -> Encounter[S]:
        """Rebuild a live encounter from its stored log."""
        encounter = cls(game, seed)
        for record in records:
            encounter.load(record)
        return encounter

    def verify_replay(self) -> Encounter[S]:
        """Re-decide every stored command from the seed and refuse any difference; return it."""
        replay: Encounter[S] = Encounter(self.game, self.seed)
        for record in self.records:
            if record.kind == RecordKind.COMMAND and record.command is not None:
                replay.next_seq = record.seq if record.seq is not None else replay.next_seq
                again = replay.execute(record.command)
                if again.events != record.events:
                    raise ReplayMismatchError(
                        f"Replaying revision {record.revision} ({record.command.kind}) did not "
                        "reproduce its stored events."
                    )
            elif record.kind == RecordKind.UNDO:
                replay.undo()
            else:
                replay.redo()
        return replay
