"""The encounter engine's parts: the Game protocol, applied commands, dice streams, helpers.

:class:`tableside.encounter.engine.Encounter` is built on these; they are imported from
``tableside.encounter.engine`` too, where they lived first.
"""

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.encounter.decisions import (
    Request,
)
from tableside.encounter.log import Command, Event
from tableside.errors import TablesideError, TooManyAdjustmentsError

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


def clamped(command: Command, over: TooManyAdjustmentsError) -> tuple[Command, str]:
    """``command`` without the explicit steps past the count, and the Host's note (W-52)."""
    steps = command.args.get("steps")
    if not isinstance(steps, list) or not over.drop or max(over.drop) >= len(steps):
        raise over
    kept = [step for place, step in enumerate(steps) if place not in set(over.drop)]
    sides = {"striker": "striker", "roller": "striker", "defender": "defender",
             "opponent": "defender", None: "striker"}  # fmt: skip
    who = command.args.get(sides.get(over.side, "striker")) or f"The {over.side}"
    note = (
        f"{who} named {over.named} Adjustments; only the first {over.allowed} were made (the "
        "rest are past what it has, W-52)."
    )
    return Command(command.kind, {**command.args, "steps": kept}, command.dice), note


def describe(request: Request) -> str:
    """Who a request waits for, in words: ``Aldric's reaction (decision 4.0)``."""
    owner = f"{request.choice.combatant}'s" if request.choice.combatant else "the Host's"
    return f"{owner} {request.choice.kind} (decision {request.id})"


def merged_takes(
    base: dict[str, Any], before: dict[str, Any], after: dict[str, Any]
) -> dict[str, Any]:
    """``base`` with the top-level arguments the policy's taken suggestions changed."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    return {**base, **changed}
