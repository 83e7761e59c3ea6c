"""The encounter engine: a Game decides events from commands; the state is their fold.

Undo and redo move whole commands (with the very events they produced) between the applied
list and the redo stack; a new command clears the redo stack. Every change bumps the revision,
and a command made against an older revision is refused (optimistic concurrency), unless the
caller lets it be decided against the current state (``exact=False``: the revision is then only
the one the caller saw, and a revision the encounter has not reached is still refused; W-14).
The log of records is all a store keeps; :meth:`Encounter.from_records` rebuilds the live state
from it and :meth:`Encounter.verify_replay` re-decides every command from the seed to prove it
exact.

A command whose choices belong to others waits (:mod:`tableside.encounter.decisions`, D-1): it
reserves its dice stream and is stored as a ``request`` record; each answer is an ``answer``
record, and the last one carries the command's events. While a command waits, no other command
is decided (D-3); undo withdraws the waiting command (redo puts it back, waiting, with its
answers so far).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from tableside.dice import ScriptedRng
from tableside.encounter.decisions import (
    APPROVE,
    Answer,
    Asker,
    Choice,
    PendingCommand,
    Policy,
    Request,
    WaitingError,
    at_deadline,
    check_answer,
    clamp,
    put,
)
from tableside.encounter.engine_parts import (
    Applied,
    Game,
    NothingToUndoError,
    ReplayMismatchError,
    clamped,
    command_rng,
    copy_with,
    describe,
    merged_takes,
)
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.errors import StaleRevisionError, TablesideError, TooManyAdjustmentsError

REASK_LIMIT = 8  # taking a suggestion may open new choices; a game never needs more rounds
CLAMP_ROUNDS = 2  # a Check's steps may name both sides: each side's excess is dropped in turn

S = TypeVar("S")

# The engine, and its parts (which lived here and are imported from here still).
__all__ = [
    "CLAMP_ROUNDS",
    "REASK_LIMIT",
    "Applied",
    "Encounter",
    "Game",
    "NothingToUndoError",
    "ReplayMismatchError",
    "clamped",
    "command_rng",
    "copy_with",
    "describe",
    "merged_takes",
]


class Encounter(Generic[S]):
    """A live encounter: applied commands, the redo stack, the revision and the log."""

    def __init__(self, game: Game[S], seed: int) -> None:
        self.game = game
        self.seed = seed
        self.initial = game.initial()
        self.applied: list[Applied[S]] = []
        self.redo_stack: list[Applied[S] | PendingCommand] = []
        self.records: list[LogRecord] = []
        self.next_seq = 0
        self.pending: PendingCommand | None = None
        self._effects: dict[tuple[int, str, int], list[Any]] = {}

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
        self,
        command: Command,
        expected_revision: int | None = None,
        exact: bool = True,
        asker: Asker | None = None,
        clamp_steps: bool = False,
    ) -> LogRecord:
        """Decide and apply a command, or make it wait (D-1); on any refusal nothing changes.

        Args:
            command: The command.
            expected_revision: The revision the command was made against (None: any).
            exact: Refuse it if records came after ``expected_revision`` (the default); when
                False it is decided against the current state, still valid or refused by the
                rules (W-14).
            asker: The policy that says, for each choice the command involves, whether its
                arguments stand, the suggestion is taken, or its owner is asked (None: the
                arguments stand, as for the one-shot engine).
            clamp_steps: Explicit Adjustment steps past what their side has are dropped instead
                of refused, and the record's ``note`` tells the Host (W-52: the count may be
                secret to the sender, and a refusal would tell it).
        """
        self.check_revision(expected_revision, exact)
        self.require_not_waiting()
        notes: list[str] = []
        while True:
            try:
                return self._execute(command, asker, notes)
            except TooManyAdjustmentsError as over:
                if not clamp_steps or len(notes) >= CLAMP_ROUNDS:
                    raise
                command, note = clamped(command, over)
                notes.append(note)

    def _execute(self, command: Command, asker: Asker | None, notes: list[str]) -> LogRecord:
        """One try of :meth:`execute` (``notes``: the Host's, from steps clamped so far)."""
        seq = self.next_seq
        taken: list[Choice] = []
        data = {"note": " ".join(notes)} if notes else None
        if asker is not None:
            command, questions = self.ask(command, seq, asker, (), taken)
            if questions:
                # what the suggestions would refuse is refused now: never a command nobody can
                # finish (issue 21: the Striker's own explicit steps the War refuses)
                self.trial(PendingCommand(seq, command, questions))
                return self._hold(command, seq, questions, data)
        command, events = self.decide_taking(command, seq, taken)
        state = self.fold(self.state, events)
        record = LogRecord(self.revision + 1, RecordKind.COMMAND, seq, command, events, data)
        self.applied.append(Applied(seq, command, events, state))
        self.redo_stack.clear()
        self.next_seq = seq + 1
        self.records.append(record)
        return record

    # -- decisions (D-1 … D-3) ---------------------------------------------------------

    def require_not_waiting(self) -> None:
        """Refuse a new command while another waits for a decision (D-3)."""
        if self.pending is None:
            return
        waiting = ", ".join(describe(r) for r in self.pending.open)
        raise WaitingError(
            f"The fight is waiting for {waiting}: answer it first, or the Host undoes the "
            f"waiting {self.pending.command.kind} to withdraw it."
        )

    def decide_taking(
        self, command: Command, seq: int, taken: Sequence[Choice]
    ) -> tuple[Command, tuple[Event, ...]]:
        """Decide ``command``; refused, the suggestions taken for it are passed over (SA-98).

        A suggestion the policy took for an NPC (D-5) that the rules refuse gives way to the
        choice's other options, in order, one choice at a time: the first command the engine
        accepts is the one decided. With none, the refusal stands. Checked only on a refusal,
        so a command whose suggestions stand costs nothing more.
        """
        try:
            return command, self.decide(command, seq)
        except TablesideError:
            if not taken:
                raise
            for choice in taken:
                for option in choice.options:
                    value = option.get("value")
                    if value == choice.suggested:
                        continue
                    tried = Command(command.kind, put(command.args, choice.path, value),
                                    command.dice)  # fmt: skip
                    try:
                        return tried, self.decide(tried, seq)
                    except TablesideError:
                        continue
            raise

    def ask(
        self,
        command: Command,
        seq: int,
        asker: Asker,
        asked: tuple[Request, ...],
        taken_out: list[Choice] | None = None,
    ) -> tuple[Command, tuple[Request, ...]]:
        """The command with the suggestions the policy takes, and the new questions to ask.

        The game lists the command's choices (``choices``, on a throwaway copy of its dice
        stream); a choice already asked is skipped. Taking a suggestion may open new choices
        (a Reaction taken opens its dice stage), so the listing repeats until nothing is taken,
        except for choices of the kinds the game ``settles`` (taking them opens nothing), or
        ``settles_for`` this command.
        """
        chooser = getattr(self.game, "choices", None)
        if chooser is None:
            return command, ()
        known = {r.choice.name for r in asked}
        settles: frozenset[str] = getattr(self.game, "settles", frozenset())
        took: list[tuple[Command, Choice]] = []  # the last listing's takes (SA-98)
        settling = getattr(self.game, "settles_for", None)
        if settling is not None:
            settles = settles | settling(command)
        for _ in range(REASK_LIMIT):
            taken = False
            found: list[Request] = []
            try:
                listed = chooser(self.state, command, command_rng(self.seed, seq, command))
            except TablesideError:
                retaken = self.retake(chooser, took, seq)
                if retaken is None:
                    raise
                command, took = retaken, []
                continue
            took = []
            for choice in listed:
                if choice.name in known:
                    continue
                verdict = asker(choice)
                if verdict.policy is Policy.TAKE and not choice.given:
                    took.append((command, choice))
                    args = put(command.args, choice.path, choice.suggested)
                    command = Command(command.kind, args, command.dice)
                    if taken_out is not None:
                        taken_out.append(choice)
                    # a choice the game says opens nothing needs no second listing (item 8)
                    taken = taken or choice.kind not in settles
                elif verdict.policy is Policy.ASK:
                    number = len(asked) + len(found)
                    named = replace(choice, key=choice.name)
                    found.append(Request(f"{seq}.{number}", named, verdict.deadline))
                    if choice.gate:
                        break  # what follows waits for this answer (an approval, an offer)
            if not taken:
                return command, tuple(found)
        raise WaitingError(f"The choices of this {command.kind} did not settle.")

    def retake(self, chooser: Any, took: list[tuple[Command, Choice]], seq: int) -> Command | None:
        """The suggestions just taken refused: the first other option the rules accept (SA-98).

        Each choice taken, in order, is given its other options in turn (on the command as it
        was before that take); the first whose command the game lists without refusing is the
        one kept. None (nothing taken, or no option accepted): the refusal stands.
        """
        for before, choice in took:
            for option in choice.options:
                value = option.get("value")
                if value == choice.suggested:
                    continue
                tried = Command(before.kind, put(before.args, choice.path, value), before.dice)
                try:
                    chooser(self.state, tried, command_rng(self.seed, seq, tried))
                except TablesideError:
                    continue
                return tried
        return None

    def _hold(
        self,
        command: Command,
        seq: int,
        questions: tuple[Request, ...],
        extra: dict[str, Any] | None = None,
    ) -> LogRecord:
        """Store ``command`` as waiting for ``questions`` (its dice stream reserved)."""
        data = {"requests": [r.to_json() for r in questions], **(extra or {})}
        record = LogRecord(self.revision + 1, RecordKind.REQUEST, seq, command, (), data)
        self.pending = PendingCommand(seq, command, questions)
        self.redo_stack.clear()
        self.next_seq = seq + 1
        self.records.append(record)
        return record

    def answer(self, request_id: str, value: Any, by: str, asker: Asker | None = None) -> LogRecord:
        """Answer one open decision; the last answer decides the command (D-1, D-2).

        A refused answer (not an option, or a choice the game's rules refuse) changes nothing.
        Rejecting a proposal withdraws the command (D-4). The answer may open new questions
        (the next stage of physical dice), asked through ``asker``.
        """
        pending = self.pending
        if pending is None:
            raise WaitingError("Nothing is waiting for a decision.")
        request = pending.request(request_id)
        check_answer(request, value)
        value, note = clamp(request, value, self.clamp_extra(pending, request))
        answer = Answer(request_id, value, by)
        answered = PendingCommand(
            pending.seq, pending.command, pending.questions, (*pending.answers, answer)
        )
        data: dict[str, Any] = {"answer": answer.to_json(), "requests": []}
        if note is not None:
            data["note"] = note  # for the Host: players' views leave it out (W-16)
        if answered.rejected:
            return self._settle(answered, None, (), {**data, "outcome": "withdrawn"})
        base, resolved = answered.command, answered.resolved()
        took: list[Choice] = []
        if asker is not None:
            taken, new = self.ask(resolved, pending.seq, asker, answered.questions, took)
            base = Command(base.kind, merged_takes(base.args, resolved.args, taken.args), base.dice)
            answered = PendingCommand(
                pending.seq, base, (*answered.questions, *new), answered.answers
            )
            data["requests"] = [r.to_json() for r in new]
            resolved = answered.resolved()
        if answered.open:
            self.trial(answered)
            record = LogRecord(self.revision + 1, RecordKind.ANSWER, pending.seq, base, (), data)
            self.pending = answered
            self.records.append(record)
            return record
        resolved, events = self.decide_taking(resolved, pending.seq, took)
        return self._settle(answered, resolved, events, {**data, "outcome": "resolved"})

    def effects(self, request_id: str) -> list[Any]:
        """What each option of an open question does (``effects``), computed once and cached.

        Games without ``effects`` (or questions whose options need none) give Nones. The
        outcome is found on a copy of the waiting command's own dice, with the answers so far.
        """
        pending = self.pending
        if pending is None:
            return []
        request = pending.request(request_id)
        key = (pending.seq, request_id, len(pending.answers))
        cached = self._effects.get(key)
        if cached is not None:
            return cached
        effects = getattr(self.game, "effects", None)
        found: list[Any] = [None for _ in request.choice.options]
        if effects is not None:
            command = pending.resolved()
            found = effects(self.state, command, command_rng(self.seed, pending.seq, command),
                            request.choice)  # fmt: skip
        stale = [k for k in self._effects if k[0] != key[0] or k[2] != key[2]]
        for old in stale:  # only the waiting command's questions as they stand now
            del self._effects[old]
        self._effects[key] = found
        return found

    def snapshot(self) -> tuple[Any, ...]:
        """What an answer changes, to put back when a later answer of a batch is refused."""
        return (self.pending, len(self.records), len(self.applied), list(self.redo_stack),
                self.next_seq)  # fmt: skip

    def restore(self, saved: tuple[Any, ...]) -> None:
        """Put back a :meth:`snapshot` (the answers applied since are dropped)."""
        pending, records, applied, redo, next_seq = saved
        self.pending = pending
        del self.records[records:]
        del self.applied[applied:]
        self.redo_stack = redo
        self.next_seq = next_seq

    def clamp_extra(self, pending: PendingCommand, request: Request) -> int:
        """Steps a side may make besides its surplus: its own tokens named so far (M-11)."""
        if request.choice.kind != "adjustments":
            return 0
        tokens = pending.resolved().args.get("obstruction", 0)
        return int(tokens) if isinstance(tokens, int) and not isinstance(tokens, bool) else 0

    def trial(self, answered: PendingCommand) -> None:
        """Refuse an answer the rules refuse, while other questions are open (issue 21).

        The command is decided on a throwaway copy of its dice with every open question taking
        its suggestion (nothing is kept): what the last answer would refuse is refused now, so
        no later answer can find the command jammed. A stage of dice still to come is no
        refusal.
        """
        command = answered.resolved()
        for open_request in answered.open:
            if open_request.choice.kind == APPROVE:
                continue
            command = Command(
                command.kind,
                put(command.args, open_request.choice.path, open_request.choice.suggested),
                command.dice,
            )
        rng = command_rng(self.seed, answered.seq, command)
        try:
            self.game.decide(self.state, command, rng)
        except TablesideError as refused:
            if type(refused).__name__ == "DiceNeededError":
                return
            raise

    def _settle(
        self,
        answered: PendingCommand,
        resolved: Command | None,
        events: tuple[Event, ...],
        data: dict[str, Any],
    ) -> LogRecord:
        """Record the last answer: the command decided (``resolved``) or withdrawn (None)."""
        command = resolved if resolved is not None else answered.command
        record = LogRecord(
            self.revision + 1, RecordKind.ANSWER, answered.seq, command, events, data
        )
        if resolved is not None:
            state = self.fold(self.state, events)
            self.applied.append(Applied(answered.seq, resolved, events, state))
        self.pending = None
        self.records.append(record)
        return record

    def expire(self, now: float, asker: Asker | None = None) -> list[LogRecord]:
        """Take the suggestion of every open decision whose deadline has passed (D-5)."""
        done: list[LogRecord] = []
        while self.pending is not None:
            due = [r for r in self.pending.open if r.deadline is not None and r.deadline <= now]
            if not due:
                break
            done.append(self.answer(due[0].id, at_deadline(due[0].choice), "timeout", asker))
        return done

    # -- undo and redo ------------------------------------------------------------------

    def undo(self, expected_revision: int | None = None) -> LogRecord:
        """Take back the last applied command (repeatable back to the start).

        While a command waits, undo withdraws it (D-3); redo puts it back, still waiting.
        """
        self.check_revision(expected_revision)
        if self.pending is not None:
            withdrawn = self.pending
            self.pending = None
            self.redo_stack.append(withdrawn)
            record = LogRecord(self.revision + 1, RecordKind.UNDO, withdrawn.seq, withdrawn.command)
            self.records.append(record)
            return record
        if not self.applied:
            raise NothingToUndoError("There is nothing to undo: no command is in effect.")
        undone = self.applied.pop()
        self.redo_stack.append(undone)
        record = LogRecord(self.revision + 1, RecordKind.UNDO, undone.seq, undone.command)
        self.records.append(record)
        return record

    def redo(self, expected_revision: int | None = None) -> LogRecord:
        """Put back the last undone command with exactly the events it had (or waiting)."""
        self.check_revision(expected_revision)
        self.require_not_waiting()
        if not self.redo_stack:
            raise NothingToUndoError("There is nothing to redo.")
        again = self.redo_stack.pop()
        if isinstance(again, PendingCommand):
            self.pending = again
            record = LogRecord(self.revision + 1, RecordKind.REDO, again.seq, again.command)
            self.records.append(record)
            return record
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
        elif record.kind == RecordKind.REQUEST:
            self._load_request(record)
        elif record.kind == RecordKind.ANSWER:
            self._load_answer(record)
        elif record.kind == RecordKind.UNDO:
            if self.pending is not None:
                self.redo_stack.append(self.pending)
                self.pending = None
            else:
                self.redo_stack.append(self.applied.pop())
        else:
            again = self.redo_stack.pop()
            if isinstance(again, PendingCommand):
                self.pending = again
            else:
                state = self.fold(self.state, again.events)
                self.applied.append(Applied(again.seq, again.command, again.events, state))
        self.records.append(record)

    def _load_request(self, record: LogRecord) -> None:
        """A stored request: the command waits again, its dice stream reserved."""
        if record.command is None or record.seq is None:
            raise ReplayMismatchError(f"Request record {record.revision} has no command.")
        data = record.data or {}
        questions = tuple(Request.from_json(r) for r in data.get("requests") or ())
        self.pending = PendingCommand(record.seq, record.command, questions)
        self.redo_stack.clear()
        self.next_seq = record.seq + 1

    def _load_answer(self, record: LogRecord) -> None:
        """A stored answer: the answer kept, and the command decided or withdrawn if last."""
        pending = self.pending
        if pending is None or record.command is None:
            raise ReplayMismatchError(
                f"Answer record {record.revision} answers no waiting command."
            )
        data = record.data or {}
        answer = Answer.from_json(data["answer"])
        new = tuple(Request.from_json(r) for r in data.get("requests") or ())
        outcome = data.get("outcome")
        if outcome == "resolved":
            state = self.fold(self.state, record.events)
            self.applied.append(Applied(pending.seq, record.command, record.events, state))
            self.pending = None
        elif outcome == "withdrawn":
            self.pending = None
        else:
            self.pending = PendingCommand(
                pending.seq,
                record.command,
                (*pending.questions, *new),
                (*pending.answers, answer),
            )

    @classmethod
    def from_records(cls, game: Game[S], seed: int, records: Sequence[LogRecord]) -> Encounter[S]:
        """Rebuild a live encounter from its stored log."""
        encounter = cls(game, seed)
        for record in records:
            encounter.load(record)
        return encounter

    def check_deciding_answer(self, record: LogRecord) -> None:
        """Re-decide the answer that decided a waiting command; refuse other events (D-2)."""
        if (record.data or {}).get("outcome") != "resolved":
            return
        if record.command is None or record.seq is None:
            raise ReplayMismatchError(f"Answer record {record.revision} decides no command.")
        if self.decide(record.command, record.seq) != record.events:
            raise ReplayMismatchError(
                f"Replaying revision {record.revision} (the answer that decided a waiting "
                "command) did not reproduce its stored events."
            )

    def verify_replay(self) -> Encounter[S]:
        """Re-decide every stored command from the seed and refuse any difference; return it."""
        replay: Encounter[S] = Encounter(self.game, self.seed)
        for record in self.records:
            if record.kind in (RecordKind.REQUEST, RecordKind.ANSWER):
                replay.check_deciding_answer(record)
                replay.load(record)
            elif record.kind == RecordKind.COMMAND and record.command is not None:
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
