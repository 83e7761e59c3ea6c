"""How the web table answers open decisions: fallbacks, deadlines, NPCs' questions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tableside.encounter.decisions import (
    APPROVE,
    Ask,
    Choice,
    PendingCommand,
    Policy,
    Request,
)
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.errors import TablesideError
from tableside.store import tables
from tableside.web.auth import (
    commander,
)
from tableside.web.decisions import (
    NoSuchDecisionError,
    TablePolicy,
    owner_seat,
)


class LazyAsker:
    """A policy read from the store only when a command has a choice to judge.

    A command without choices (``next``, ``move`` …) then costs no read of the seats or the
    decision settings: it stays one read and one write (docs/web.md, Performance).
    """

    def __init__(self, build: Callable[[], TablePolicy], host: bool = False) -> None:
        self.build = build
        self.host = host
        self.policy: TablePolicy | None = None

    def __call__(self, choice: Choice) -> Ask:
        """The verdict of the policy, read on the first call.

        A choice the Host gives stands (D-4) without reading anything: a Host's Strike with
        the Target's choices in its arguments reads no seats (issue 21, item 8).
        """
        if choice.given and self.host:
            return Ask(Policy.KEEP)
        if self.policy is None:
            self.policy = self.build()
        return self.policy(choice)


def fallbacks(choice: Choice, first: Any) -> list[Any]:
    """The answers to try, in order: ``first``, then the other options (SA-98).

    A proposal at its deadline is only rejected, and a free choice takes only ``first`` (D-5).
    """
    if choice.kind == APPROVE or choice.free:
        return [first]
    others = [o.get("value") for o in choice.options if o.get("value") != first]
    return [first, *others]


def first_accepted(
    encounter: Encounter[Any], request: Request, answers: list[Any], by: str, asker: Any
) -> LogRecord | None:
    """The record of the first of ``answers`` the rules accept (None: every one refused)."""
    for value in answers:
        try:
            return encounter.answer(request.id, value, by, asker)
        except TablesideError:
            continue
    return None


def npcs_of(state: Any, played: frozenset[str]) -> Callable[[str], bool]:
    """Whether a model is an NPC's to command: no seat plays its commander (SA-97, SA-98)."""
    command_of = commander(state)
    return lambda model: command_of(model) not in played


def is_due(request: Request, now: float) -> bool:
    """Whether a request's deadline has passed (D-5)."""
    return request.deadline is not None and request.deadline <= now


def overdue(encounter: Encounter[Any], now: float) -> bool:
    """Whether the encounter waits for a decision whose deadline has passed (D-5)."""
    pending = encounter.pending
    return pending is not None and any(is_due(r, now) for r in pending.open)


def players_roll(command: Command, played: frozenset[str]) -> Command:
    """An attack rolled at the table: a defending player's own dice are typed by that player.

    When the Host rolls physical dice for an attack (``physical``), each defender a seat plays is
    a physical roller too, so its Block/Parry test and Ward-off d20 are asked of its player,
    never rolled by the server (issue 21, D-6).
    """
    physical = command.args.get("physical")
    attacks = command.args.get("attacks")
    if command.kind != "attack" or not isinstance(physical, list) or not physical:
        return command
    if not isinstance(attacks, list):
        return command
    defenders = [a.get("defender") for a in attacks if isinstance(a, dict)]
    added = [d for d in dict.fromkeys(defenders)
             if isinstance(d, str) and d in played and d not in physical]  # fmt: skip
    if not added:
        return command
    return Command(command.kind, {**command.args, "physical": [*physical, *added]}, command.dice)


def is_npcs(choice: Choice, seats: list[tables.Seat]) -> bool:
    """Whether a choice is an NPC's (no seat plays its combatant; not a proposal's approval)."""
    return (
        choice.kind != "approve"
        and choice.combatant is not None
        and (owner_seat(choice, seats) is None)
    )


def find_open(pending: PendingCommand | None, request_id: str) -> Request:
    """The open decision ``request_id``, or a refusal naming it (404)."""
    if pending is None:
        raise NoSuchDecisionError(
            f"There is no open decision {request_id!r}: the fight waits for nothing."
        )
    for request in pending.open:
        if request.id == request_id:
            return request
    raise NoSuchDecisionError(f"There is no open decision {request_id!r}.")
