"""Deciding a War: which events each command produces (M-14 … M-41 on live combatants).

Every decision works on a :class:`Pending` copy of the state that applies each event as it is
emitted, so later steps see earlier ones; if any step refuses, the engine keeps nothing.

:meth:`MajestyWar.play` is the simulation's fast path: the same decision, returning the state the
Pending copy already holds (no second fold) and, with ``describe=False``, leaving the full Strike
and Check reports out of the informational events (the state never reads them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tableside.dice import Rng, ScriptedRng
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command, Event
from tableside.encounter.war.commands import HANDLERS
from tableside.encounter.war.pending import (
    Pending,
    check_war_end,
    convert_if_defeated,
    update_weary,
)
from tableside.encounter.war.state import WarState, evolve
from tableside.encounter.war.strike import memo_key
from tableside.errors import RulesError
from tableside.majesty.catalog import Catalog, builtin_catalog
from tableside.majesty.ruleset import STANDARD, Ruleset


@dataclass(frozen=True)
class MajestyWar:
    """The Allies of Majesty War as an encounter Game."""

    catalog: Catalog = field(default_factory=builtin_catalog)
    ruleset: Ruleset = STANDARD
    name: str = "majesty-war"
    # Taking the suggestion of these choices opens no other (the Target's Obstruction and
    # Adjustments are the Strike's last choices): the engine need not list them again.
    settles: frozenset[str] = frozenset({"obstruction", "adjustments"})
    # The last Strike decided: (state, key, events, dice used). Listing a Strike's choices
    # decides it on a copy of its dice; the command then decided with the same arguments on
    # the same state and stream reuses those events (issue 21: a Strike about two decides).
    _memo: list[tuple[WarState, str, tuple[Event, ...], int]] = field(
        default_factory=list, compare=False, repr=False
    )

    def initial(self) -> WarState:
        """An empty War Scroll."""
        return WarState()

    def evolve(self, state: WarState, event: Event) -> WarState:
        """Apply one event."""
        return evolve(state, event)

    def decide(self, state: WarState, command: Command, rng: Rng) -> list[Event]:
        """Validate a command and return its events (a Strike just decided: reused)."""
        return self.decide_keyed(state, command, rng, memo_key(command, rng))

    def decide_keyed(
        self, state: WarState, command: Command, rng: Rng, key: str | None
    ) -> list[Event]:
        """:meth:`decide` with ``memo_key(command, rng)`` already made (``key``)."""
        memo = self._memo[0] if self._memo else None
        if key is not None and memo is not None and memo[0] is state and memo[1] == key:
            if isinstance(rng, ScriptedRng):
                rng.used = memo[3]
            return list(memo[2])
        events = self.pending(state, command, rng, describe=True).events
        if key is not None:
            self._memo[:] = [(state, key, tuple(events), getattr(rng, "used", 0))]
        return events

    def choices(self, state: WarState, command: Command, rng: Rng) -> Sequence[Choice]:
        """The choices ``command`` involves and who owns each (issue 11; D-8 … D-13).

        Args:
            state: The War before the command.
            command: The command as sent.
            rng: A throwaway copy of the command's dice stream (each option's outcome is shown
                on the very dice the command will use).
        """
        from tableside.encounter.war.choices import war_choices

        return war_choices(self, state, command, rng)

    def effects(
        self, state: WarState, command: Command, rng: Rng, choice: Choice
    ) -> list[dict[str, Any] | None]:
        """What each option of an asked question does (read when the question is read)."""
        from tableside.encounter.war.choices import war_effects

        return war_effects(self, state, command, rng, choice)

    def play(
        self, state: WarState, command: Command, rng: Rng, describe: bool = False
    ) -> tuple[list[Event], WarState]:
        """Decide a command and return its events with the state after them (= their fold)."""
        p = self.pending(state, command, rng, describe)
        return p.events, p.state

    def pending(self, state: WarState, command: Command, rng: Rng, describe: bool) -> Pending:
        """Run a command's handler on a Pending copy of the state (raise to refuse)."""
        handler = HANDLERS.get(command.kind)
        if handler is None:
            raise RulesError(f"Unknown War command {command.kind!r}; known: {', '.join(HANDLERS)}.")
        p = Pending(state, describe=describe)
        handler(self, p, command.args, rng)
        for who in list(p.state.combatants):
            convert_if_defeated(p, who)  # however it became Defeated (M-34)
        if p.state.current is not None:
            update_weary(p, p.state.current.combatant)  # Stamina may have changed (M-4)
        check_war_end(p)
        return p
