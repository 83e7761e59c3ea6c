"""Decisions: the choices a command involves, who makes them, and a command that waits for them.

A game lists the choices a command involves (:class:`Choice`): the defender's Reaction, the
Adjustments of the side with the surplus, a proposal of a modifier the Host must approve, the
physical dice of one stage … each with the combatant whose controller owns it (None: the Host),
where its answer goes in the command's arguments, the options (with their exact odds where the
odds exist) and the suggested one. The caller's policy (an :data:`Asker`, e.g. the web table's
seats) says for each choice whether the command's arguments stand, the suggestion is taken now,
or its owner is asked. A command with choices to ask is *pending* (D-1): the engine stores a
``request`` record, then one ``answer`` record per choice; the last answer decides the command
with the dice stream its request reserved, so a pending command replays, undoes and survives a
restart like any other (D-2). The answers are merged into the command's arguments, so the
resolved command in the log is one the one-shot engine would decide the same way.

Readings (D-1 … D-6) are in ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from tableside.dice import Rng
from tableside.encounter.log import JSON, Command
from tableside.errors import RulesError

APPROVE = "approve"
"""The kind of a proposal's choice: the Host approves the modifiers, or rejects them (D-4)."""
APPROVED = "approve"
REJECTED = "reject"


class WaitingError(RulesError):
    """A command sent while another waits for a decision (D-3), or an answer that is refused."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice a command involves, as the game sees it before anyone is asked.

    Attributes:
        kind: What is chosen: ``reaction``, ``adjustments``, ``approve``, ``dice`` …
        combatant: Whose choice it is (its controller makes it); None: the Host's.
        path: Where the answer goes in the command's arguments (keys and list indexes); an
            empty path merges an answer that is a JSON object into the arguments.
        options: The choices on offer, each ``{"value": …, "label": …}`` with, where the odds
            exist, ``"odds"``; an answer must be one of the values unless ``free``.
        suggested: The value taken when the owner does not answer in time (D-5).
        given: Whether the command's arguments already make this choice.
        prompt: The question in plain words, for the chooser.
        free: Any value is accepted here and validated by the game's own ``decide`` (explicit
            Adjustment steps, physical dice).
        key: Names the choice within its command, the same however often it is listed.
        gate: While this choice is asked and unanswered, the choices listed after it are not
            asked (its answer decides whether they exist: a proposal's approval, an offer to
            interpose). So a modifier is approved before any die is rolled (issue 21).
        info: What the page shows besides (``title``, ``dice``, ``input``, ``details``) and
            ``limit``, a bound the answer is clamped to (never refused on: it may be secret).
    """

    kind: str
    combatant: str | None
    path: tuple[str | int, ...]
    options: tuple[JSON, ...]
    suggested: Any
    given: bool = False
    prompt: str = ""
    free: bool = False
    key: str = ""
    gate: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The key, or one built from the kind and path."""
        return self.key or ".".join([self.kind, *(str(p) for p in self.path)])


REQUEST_KEYS = frozenset(
    {"id", "kind", "combatant", "path", "options", "suggested", "prompt", "free", "given", "key",
     "gate", "deadline"}
)  # fmt: skip
"""A stored request's own keys; any other key is the choice's ``info``."""


class Policy(StrEnum):
    """What the caller's policy makes of one choice."""

    KEEP = "keep"  # the arguments stand (given by its owner, or the default the owner sends)
    TAKE = "take"  # the suggestion is taken now (an NPC set to decide automatically, D-5)
    ASK = "ask"  # its owner is asked


@dataclass(frozen=True, slots=True)
class Ask:
    """The policy's verdict on one choice, with the deadline of a question (unix seconds)."""

    policy: Policy
    deadline: float | None = None


Asker = Callable[[Choice], Ask]
"""The caller's policy: refuses (raises) a choice made by someone it does not belong to."""


class Chooser(Protocol):
    """A game that lists the choices of a command (the games implement ``choices``)."""

    def choices(self, state: Any, command: Command, rng: Rng) -> Sequence[Choice]:
        """The choices ``command`` involves now (``rng``: a throwaway copy of its dice stream)."""
        ...


@dataclass(frozen=True, slots=True)
class Request:
    """One question put to a choice's owner, as stored in a request or answer record."""

    id: str
    choice: Choice
    deadline: float | None

    def to_json(self) -> JSON:
        """Plain JSON (what the request record stores and the decisions list shows)."""
        c = self.choice
        return {
            **{k: v for k, v in c.info.items()},
            "id": self.id,
            "kind": c.kind,
            "combatant": c.combatant,
            "path": list(c.path),
            "options": [dict(o) for o in c.options],
            "suggested": c.suggested,
            "prompt": c.prompt,
            "free": c.free,
            "given": c.given,
            "key": c.name,
            "gate": c.gate,
            "deadline": self.deadline,
        }

    @classmethod
    def from_json(cls, data: JSON) -> Request:
        """Inverse of :meth:`to_json`."""
        choice = Choice(
            kind=str(data["kind"]),
            combatant=data.get("combatant"),
            path=tuple(data.get("path") or ()),
            options=tuple(dict(o) for o in data.get("options") or ()),
            suggested=data.get("suggested"),
            prompt=str(data.get("prompt") or ""),
            free=bool(data.get("free")),
            given=bool(data.get("given")),
            key=str(data.get("key") or ""),
            gate=bool(data.get("gate")),
            info={k: v for k, v in data.items() if k not in REQUEST_KEYS},
        )
        return cls(str(data["id"]), choice, data.get("deadline"))


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer: the request it answers, the value chosen, and who chose it.

    ``by`` is ``host``, ``seat:<id>``, ``timeout`` (the suggestion taken at the deadline, D-5)
    or ``cli``; ``seat:removed`` in a table file's log names a seat removed before its export
    (CH-19).
    """

    request: str
    value: Any
    by: str

    def to_json(self) -> JSON:
        """Plain JSON."""
        return {"request": self.request, "value": self.value, "by": self.by}

    @classmethod
    def from_json(cls, data: JSON) -> Answer:
        """Inverse of :meth:`to_json`."""
        return cls(str(data["request"]), data.get("value"), str(data.get("by") or ""))


@dataclass(frozen=True, slots=True)
class PendingCommand:
    """A command that waits: its dice stream, its questions, and the answers so far."""

    seq: int
    command: Command
    questions: tuple[Request, ...]
    answers: tuple[Answer, ...] = field(default=())

    @property
    def open(self) -> tuple[Request, ...]:
        """The questions not yet answered, in the order asked."""
        done = {a.request for a in self.answers}
        return tuple(r for r in self.questions if r.id not in done)

    def request(self, request_id: str) -> Request:
        """The open question ``request_id``, or a refusal naming it."""
        for found in self.open:
            if found.id == request_id:
                return found
        asked = ", ".join(r.id for r in self.open) or "none"
        raise WaitingError(f"There is no open decision {request_id!r} (open: {asked}).")

    def resolved(self) -> Command:
        """The command with every answer so far merged into its arguments."""
        args = self.command.args
        for answer in self.answers:
            asked = next(r for r in self.questions if r.id == answer.request)
            if asked.choice.kind == APPROVE:
                continue
            args = put(args, asked.choice.path, answer.value)
        return Command(self.command.kind, args, self.command.dice)

    @property
    def rejected(self) -> bool:
        """Whether the Host rejected this command's proposal (it is withdrawn, D-4)."""
        for answer in self.answers:
            asked = next(r for r in self.questions if r.id == answer.request)
            if asked.choice.kind == APPROVE and answer.value == REJECTED:
                return True
        return False

    def to_json(self) -> JSON:
        """Plain JSON (the decisions list and ``war show``)."""
        return {
            "seq": self.seq,
            "command": self.command.to_json(),
            "requests": [r.to_json() for r in self.questions],
            "answers": [a.to_json() for a in self.answers],
            "open": [r.id for r in self.open],
        }


def put(args: JSON, path: Sequence[str | int], value: Any) -> JSON:
    """``args`` with ``value`` at ``path`` (copies along the path; an empty path merges)."""
    if not path:
        if not isinstance(value, Mapping):
            raise WaitingError(f"This answer must be a JSON object, not {value!r}.")
        return {**args, **value}
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        raise WaitingError(f"A decision's path cannot start with a list index ({head}).")
    current = args.get(head)
    if not rest:
        return {**args, head: value}
    if isinstance(rest[0], int):
        items = list(current) if isinstance(current, list | tuple) else []
        index = rest[0]
        if not 0 <= index < len(items) or not isinstance(items[index], Mapping):
            raise WaitingError(f"A decision's path {list(path)} does not fit the command.")
        items[index] = put(dict(items[index]), rest[1:], value) if rest[1:] else value
        return {**args, head: items}
    inner = dict(current) if isinstance(current, Mapping) else {}
    return {**args, head: put(inner, rest, value)}


def check_answer(request: Request, value: Any) -> None:
    """Refuse a value that is not one of the request's options (unless the choice is free).

    A free answer is checked against the choice's ``input`` (its type and ranges: a count, dice
    faces, Adjustment steps) before anything else, so no answer is ever stored unchecked (issue
    21). A free answer merged into the arguments (empty path) may set only the keys its options
    set: the Defender's Adjustments cannot carry a Host's modifier along (D-8).
    """
    values = [o.get("value") for o in request.choice.options]
    if request.choice.free:
        spec = request.choice.info.get("input")
        if not offered(value, values):
            check_input(request, spec, value)
        if not request.choice.path:
            check_keys(request, value)
        return
    if not offered(value, values):
        shown = ", ".join(repr(v) for v in values)
        raise WaitingError(f"{value!r} is not one of the options of {whose(request)} ({shown}).")


def offered(value: Any, values: Sequence[Any]) -> bool:
    """Whether ``value`` is one of ``values``, of the same type (``true`` is not the count 1)."""
    return any(v == value and type(v) is type(value) for v in values)


def whose(request: Request) -> str:
    """The decision named with its combatant: ``decision 4.1 (Herald's adjustments)``."""
    owner = request.choice.combatant or "the Host"
    return f"decision {request.id} ({owner}'s {request.choice.kind.replace('_', ' ')})"


def whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (not a flag)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_input(request: Request, spec: Any, value: Any) -> None:
    """Refuse a free answer that does not fit the choice's ``input`` (type and ranges)."""
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    if kind == "count":
        low, high = int(spec["min"]), int(spec["max"])
        if not whole(value) or not low <= value <= high:
            raise WaitingError(
                f"The answer to {whose(request)} must be a whole number from {low} to {high}, "
                f"not {short(value)}."
            )
    elif kind == "dice":
        check_faces(request, spec, value)
    elif kind == "steps":
        check_steps(request, spec, value)


def short(value: Any) -> str:
    """A value for a refusal, cut short (an answer may be huge)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_faces(request: Request, spec: Mapping[str, Any], value: Any) -> None:
    """A dice stage's faces: null (the server rolls them) or ``count`` faces of 1 … ``sides``."""
    if value is None:
        return
    count, sides = int(spec["count"]), int(spec["sides"])
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(whole(f) and 1 <= f <= sides for f in value)
    ):
        what = str(spec.get("what") or f"The answer to {whose(request)}")
        roller = request.choice.combatant or "the Host"
        raise WaitingError(
            f"{what[:1].upper()}{what[1:]} ({roller}'s {count}d{sides}) needs {count} "
            f"{'die' if count == 1 else 'dice'} of 1 to {sides}, not {short(value)} (or "
            "null: the server rolls them)."
        )


def check_steps(request: Request, spec: Mapping[str, Any], value: Any) -> None:
    """Adjustments: a mode on offer; explicit: at most ``max_steps`` steps of ±1 on the roll."""
    modes = list(spec.get("modes") or ())
    mode = value.get("mode") if isinstance(value, Mapping) else None
    if mode not in modes:
        raise WaitingError(
            f"The answer to {whose(request)} must name a mode of {', '.join(modes)}, "
            f"not {short(mode)}."
        )
    steps = value.get("steps", [])
    if mode != "explicit" and steps not in ([], None):
        raise WaitingError(f"Steps are named only with mode explicit ({whose(request)}).")
    if not isinstance(steps, list) or len(steps) > int(spec["max_steps"]):
        raise WaitingError(
            f"The steps of {whose(request)} must be a list of at most {spec['max_steps']}."
        )
    dice, side = int(spec["dice"]), spec.get("side")
    for step in steps:
        ok = (
            isinstance(step, Mapping)
            and set(step) <= {"die", "delta", "side"}
            and whole(step.get("die"))
            and 0 <= step["die"] < dice
            and step.get("delta") in (1, -1)
            and whole(step.get("delta"))
            and step.get("side") in (None, side)
        )
        if not ok:
            raise WaitingError(
                f'A step of {whose(request)} must be {{"die": 0 to {dice - 1}, "delta": 1 '
                f"or -1}} for the {side}'s dice, not {short(step)}."
            )


def clamp(request: Request, value: Any, extra: int = 0) -> tuple[Any, str | None]:
    """The answer with its explicit steps cut to the choice's ``limit`` (+ ``extra``), and a note.

    The limit (the Adjustments the side has) may be secret to the chooser: refusing a longer list
    would tell it the count, so the steps past it are dropped and the Host is told (issue 21).
    """
    limit = request.choice.info.get("limit")
    if not isinstance(limit, int) or isinstance(limit, bool) or not isinstance(value, Mapping):
        return value, None
    steps = value.get("steps")
    allowed = limit + extra
    if not isinstance(steps, list) or len(steps) <= allowed:
        return value, None
    note = (
        f"{request.choice.combatant} named {len(steps)} Adjustments; only the first {allowed} "
        "were made (the rest are past what it has)."
    )
    return {**value, "steps": steps[:allowed]}, note


def check_keys(request: Request, value: Any) -> None:
    """Refuse a merged answer that is no object, or sets keys none of the options set."""
    if not isinstance(value, Mapping):
        raise WaitingError(f"The answer to {whose(request)} must be a JSON object.")
    allowed = {k for o in request.choice.options if isinstance(o.get("value"), Mapping)
               for k in o["value"]}  # fmt: skip
    extra = sorted(str(k) for k in value if k not in allowed)
    if allowed and extra:
        raise WaitingError(
            f"The answer to {whose(request)} may set only {', '.join(sorted(allowed))}, "
            f"not {', '.join(extra)}."
        )


def approval(
    combatant: str | None, args: Mapping[str, Any], defaults: Mapping[str, Any], what: str
) -> Choice | None:
    """The Host's approval of the modifiers in ``args`` that differ from ``defaults`` (D-4).

    Args:
        combatant: The combatant the command acts for (shown; the Host owns the choice).
        args: The command's arguments.
        defaults: Each Host-only modifier and its value when nobody sets it.
        what: The command in plain words (``Aldric's Strike on Watcher``).
    """
    proposed = {k: args[k] for k, default in defaults.items() if k in args and args[k] != default}
    if not proposed:
        return None
    listed = ", ".join(f"{k} {v}" for k, v in proposed.items())
    return Choice(
        kind=APPROVE,
        combatant=None,
        path=(),
        options=(
            {"value": APPROVED, "label": f"Approve {listed}"},
            {"value": REJECTED, "label": "Reject: the command is withdrawn"},
        ),
        suggested=APPROVED,
        given=True,
        prompt=f"{what} proposes {listed}. Approve?",
        key=f"{APPROVE}:{combatant}",
        gate=True,
        info={"title": f"Approve {listed}?", "details": {"rules": ["D-4"]}},
    )


def at_deadline(choice: Choice) -> Any:
    """The answer a deadline takes: the suggestion, except a proposal, which is rejected (D-5).

    A proposal's suggested answer is Approve (the Host usually approves, issue 21), but an
    unanswered proposal never applies a modifier by default.
    """
    return REJECTED if choice.kind == APPROVE else choice.suggested
