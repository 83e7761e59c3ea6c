"""The working copy both fights' commands run on: events applied to the state as emitted.

Each game's ``Pending`` (:mod:`tableside.encounter.war.pending`,
:mod:`tableside.encounter.strife.turns`) names its state; what they share is
here, so neither package imports the other; each names its ``evolve`` in :meth:`evolved`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tableside.encounter.log import Event

State = TypeVar("State")


@dataclass
class WorkingCopy(Generic[State]):
    """A working copy of the state that applies each emitted event at once.

    If any step of a command refuses, the engine keeps nothing of it; later steps see the
    events of earlier ones.
    """

    state: State
    events: list[Event] = field(default_factory=list)
    describe: bool = True  # full reports (Strikes, Checks, attacks, casts) in informational events

    def emit(self, event_kind: str, rule: str | None = None, /, **data: Any) -> None:
        """Record an event and apply it."""
        event = Event(event_kind, data, rule)
        self.events.append(event)
        self.state = self.evolved(event)

    def evolved(self, event: Event) -> State:
        """The state with ``event`` applied: the game's own ``evolve``."""
        raise NotImplementedError
