"""A Realm of Strife fight as an encounter Game: :class:`StrifeFight`.

It decides a command by running its handler (:data:`~tableside.encounter.strife.commands.HANDLERS`)
on a :class:`~tableside.encounter.strife.turns.Pending` copy of the state, lists the choices a
command involves (:mod:`tableside.encounter.strife.choices`) and reuses a rehearsed command's
events (:mod:`tableside.encounter.strife.rehearsal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tableside.dice import Rng
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command, Event
from tableside.encounter.strife import forced
from tableside.encounter.strife.commands import HANDLERS
from tableside.encounter.strife.rehearsal import rehearsed
from tableside.encounter.strife.state import FightState, evolve
from tableside.encounter.strife.turns import Pending, check_end
from tableside.errors import RulesError
from tableside.strife.catalog import Catalog, builtin_catalog
from tableside.strife.ruleset import STANDARD, StrifeRuleset


@dataclass(frozen=True)
class StrifeFight:
    """A Realm of Strife combat as an encounter Game."""

    catalog: Catalog = field(default_factory=builtin_catalog)
    ruleset: StrifeRuleset = STANDARD
    name: str = "strife-combat"

    def initial(self) -> FightState:
        """No models yet."""
        return FightState()

    def evolve(self, state: FightState, event: Event) -> FightState:
        """Apply one event."""
        return evolve(state, event)

    def decide(self, state: FightState, command: Command, rng: Rng) -> list[Event]:
        """Validate a command and return its events.

        A command just rehearsed on the same state with the same fresh dice stream
        (:func:`rehearse`: the attack's dry run, issue 21 item 8) is not decided again: its
        events are the rehearsal's (checked equal in ``tests/test_strife_rehearsal.py``).
        """
        found = rehearsed(self, state, command, rng)
        if found is not None:
            return found.events
        return self.pending(state, command, rng, describe=True).events

    def play(
        self, state: FightState, command: Command, rng: Rng, describe: bool = False
    ) -> tuple[list[Event], FightState]:
        """Decide a command and return its events with the state after them (= their fold).

        The simulation's fast path: no second fold, and with ``describe=False`` no full reports
        in the informational events (the state never reads them).
        """
        p = self.pending(state, command, rng, describe)
        return p.events, p.state

    def choices(self, state: FightState, command: Command, rng: Rng) -> Sequence[Choice]:
        """The choices ``command`` involves, each for its owner (D-4, D-6, D-7).

        See :mod:`tableside.encounter.strife.choices`; ``rng`` is a throwaway copy of the
        command's dice stream.
        """
        from tableside.encounter.strife.choices import strife_choices

        # A controlled model's choices are its controller's for the duration (SA-95).
        return [forced.to_controller(state, c) for c in strife_choices(self, state, command, rng)]

    def settles_for(self, command: Command) -> frozenset[str]:
        """The choices whose suggestion, taken, opens no other choice of ``command`` (item 8).

        A Reaction taken opens nothing when the attack has no physical dice (no stage to ask)
        and no two of its attacks share a defender (no later Reaction waits on it), so the
        engine need not list the attack's choices a second time.
        """
        attacks = command.args.get("attacks")
        if (
            command.kind != "attack"
            or command.args.get("physical")
            or not isinstance(attacks, list)
        ):
            return frozenset()
        defenders = [a.get("defender") if isinstance(a, dict) else None for a in attacks]
        return frozenset({"reaction"}) if len(set(defenders)) == len(defenders) else frozenset()

    def effects(
        self, state: FightState, command: Command, rng: Rng, choice: Choice
    ) -> list[dict[str, Any] | None]:
        """What each option of an asked question does (read when the question is read)."""
        from tableside.encounter.strife.choices import strife_effects

        return strife_effects(self, state, command, choice)

    def pending(self, state: FightState, command: Command, rng: Rng, describe: bool) -> Pending:
        """Run a command's handler on a Pending copy of the fight (raise to refuse)."""
        handler = HANDLERS.get(command.kind)
        if handler is None:
            raise RulesError(
                f"Unknown fight command {command.kind!r}; known: {', '.join(HANDLERS)}."
            )
        p = Pending(state, describe=describe)
        handler(self, p, command.args, rng)
        check_end(p)
        return p
