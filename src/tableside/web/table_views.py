"""What the web table's reads and answers show: states, records, seats, decision cards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tableside.encounter.decisions import (
    PendingCommand,
)
from tableside.encounter.engine import Encounter
from tableside.encounter.log import LogRecord
from tableside.encounter.views import fight_json, state_json
from tableside.store import table_audience, tables
from tableside.web.auth import (
    Credential,
)
from tableside.web.redact import (
    IsSecret,
)

Presented = Credential | str | None  # a credential, a bare token, or nothing


def presented(given: Presented) -> Credential | None:
    """A credential from what a request presented (a bare string is a token)."""
    if isinstance(given, str):
        return Credential(given) if given else None
    return given if given is not None and given.secret else None


STATE_JSON: dict[str, Callable[[Any, int], dict[str, Any]]] = {
    "majesty-war": state_json,
    "strife-combat": fight_json,
}


def state_view(encounter: Encounter[Any]) -> dict[str, Any]:
    """An encounter's state as the command line's JSON (``war show`` / ``fight show``)."""
    return STATE_JSON[encounter.game.name](encounter.state, encounter.revision)


def current_actor(encounter: Encounter[Any]) -> str | None:
    """The combatant whose Turn it is, if any."""
    current = encounter.state.current
    if current is None or isinstance(current, str):
        return current
    return str(current.combatant)


def record_view(record: LogRecord, hidden: frozenset[int]) -> dict[str, Any]:
    """A record as JSON, marked hidden when its command is."""
    return {**record.to_json(), "hidden": record.seq in hidden}


@dataclass(frozen=True, slots=True)
class Seen:
    """The table's seats, whether the waiting command is hidden, and the viewer's secrecy."""

    seats: list[tables.Seat]
    hidden: bool
    secret: IsSecret
    settings: table_audience.DecisionSettings | None = None  # None: read when needed


def with_effects(options: list[dict[str, Any]], effects: list[Any]) -> list[dict[str, Any]]:
    """The options, each with its ``effect`` and ``outcome`` where the game computed them."""
    shown = []
    for option, effect in zip(options, effects, strict=False):
        shown.append({**option, **effect} if isinstance(effect, dict) else option)
    return shown + options[len(shown) :]


def card(pending: PendingCommand, mine: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One card for the waiting command: its questions ``who`` may answer (one *Apply*)."""
    if not mine:
        return []
    first = mine[0]
    command = first.get("command") or {}
    args = command.get("args") or {}
    actor = next((args[k] for k in ("striker", "attacker", "caster", "id", "actor")
                  if isinstance(args.get(k), str)), None)  # fmt: skip
    kind = str(command.get("kind") or pending.command.kind)
    title = f"{actor}'s {kind}" if actor else f"The waiting {kind}"
    return [{
        "seq": pending.seq, "title": title, "command": command,
        "questions": [q["id"] for q in mine],
        "decided_by": sorted({str(q.get("decided_by")) for q in mine}),
        "dice": next((q["dice"] for q in mine if isinstance(q.get("dice"), dict)), None),
    }]  # fmt: skip


def involved(state: Any, args: Any) -> list[str]:
    """The combatants a command involves: those its arguments name, and whoever Grapples one.

    Every string in the arguments (at any depth) that is a combatant's id counts; a War
    combatant's Grappler is added, since breaking free is a Check against its Might (M-37).
    """
    roster = getattr(state, "combatants", None)
    if roster is None:
        roster = getattr(state, "models", {})
    found: list[str] = []
    for text in strings(args):
        if text in roster and text not in found:
            found.append(text)
    for name in list(found):
        holder = getattr(roster[name], "grappled_by", None)
        if isinstance(holder, str) and holder in roster and holder not in found:
            found.append(holder)
    return found


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys aside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def odds_combatants(args: dict[str, Any]) -> list[object]:
    """Every combatant a Strike's or an attack's arguments name."""
    named = [args.get(key) for key in ("striker", "defender", "attacker")]
    attacks = args.get("attacks")
    if isinstance(attacks, list):
        named += [item.get("defender") for item in attacks if isinstance(item, dict)]
    return named


def seat_view(seat: tables.Seat) -> dict[str, Any]:
    """A seat as JSON (never its token)."""
    return {"id": seat.id, "name": seat.name, "characters": list(seat.characters)}
