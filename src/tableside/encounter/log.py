"""The stored form of an encounter: an append-only list of log records, all plain JSON.

A record is a command (with the events it produced), an undo, a redo, a request (a command that
waits for others' choices, D-1) or an answer to one of its decisions (the last answer carries the
command's events). Replaying the records in
order rebuilds the live state exactly; re-deciding the commands from the seed reproduces the
events (``Encounter.verify_replay``). Stores persist records and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

JSON = dict[str, Any]


class RecordKind(StrEnum):
    """What a log record does."""

    COMMAND = "command"
    UNDO = "undo"
    REDO = "redo"
    REQUEST = "request"
    ANSWER = "answer"


@dataclass(frozen=True, slots=True)
class Command:
    """A request from the Host or a player: ``kind`` with JSON ``args``.

    ``dice`` holds physical dice typed in (every die, in the order rolled); None means the
    server rolls them from the encounter's seed.
    """

    kind: str
    args: JSON = field(default_factory=dict)
    dice: tuple[int, ...] | None = None

    def to_json(self) -> JSON:
        """Plain JSON."""
        return {
            "kind": self.kind,
            "args": self.args,
            "dice": None if self.dice is None else list(self.dice),
        }

    @classmethod
    def from_json(cls, data: JSON) -> Command:
        """Inverse of :meth:`to_json`."""
        dice = data.get("dice")
        return cls(
            str(data["kind"]), dict(data.get("args") or {}), None if dice is None else tuple(dice)
        )


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, with the rule that made it happen (a ruling id or a label)."""

    kind: str
    data: JSON
    rule: str | None = None

    def to_json(self) -> JSON:
        """Plain JSON."""
        return {"kind": self.kind, "data": self.data, "rule": self.rule}

    @classmethod
    def from_json(cls, data: JSON) -> Event:
        """Inverse of :meth:`to_json`."""
        return cls(str(data["kind"]), dict(data["data"]), data.get("rule"))


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One stored step of an encounter.

    ``revision`` is the encounter's revision after this record (1, 2, 3 …, no gaps): a store
    refuses a record whose revision is not exactly one more than the last (optimistic
    concurrency). ``seq`` numbers commands ever issued (it picks the command's dice stream).
    ``data`` holds a request's decisions or an answer's choice (D-1); None for other records.
    """

    revision: int
    kind: RecordKind
    seq: int | None = None
    command: Command | None = None
    events: tuple[Event, ...] = ()
    data: JSON | None = None

    def to_json(self) -> JSON:
        """Plain JSON (``data`` only when the record has it)."""
        found: JSON = {
            "revision": self.revision,
            "kind": self.kind.value,
            "seq": self.seq,
            "command": None if self.command is None else self.command.to_json(),
            "events": [e.to_json() for e in self.events],
        }
        if self.data is not None:
            found["data"] = self.data
        return found

    @classmethod
    def from_json(cls, data: JSON) -> LogRecord:
        """Inverse of :meth:`to_json`."""
        command = data.get("command")
        return cls(
            revision=int(data["revision"]),
            kind=RecordKind(data["kind"]),
            seq=data.get("seq"),
            command=None if command is None else Command.from_json(command),
            events=tuple(Event.from_json(e) for e in data.get("events") or ()),
            data=data.get("data"),
        )
