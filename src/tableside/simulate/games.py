"""How the simulation plays and scores each game: its policy, its clock, its losses.

Allies of Majesty War: the clock is the Cycle; losses are the Wear each combatant takes (the sum
of its ``wear_taken`` events: E, R and P); the fallen are those Defeated at the end. An Epic
Defeat (M-24) sets Endurance to −40 without a ``wear_taken`` event and so adds no Wear.

Realm of Strife: the clock is the round (0 is the ambush round); the loss is HP lost (HP at the
start of the run less HP at its end); the fallen are those down (0 HP) at the end. A fight that
has not started is started without an ambush (the ``start`` command) before the policy plays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tableside.dice import Rng
from tableside.encounter.log import Command, Event
from tableside.encounter.npc_turn import npc_command
from tableside.encounter.policy import WarPolicy
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import first_choice
from tableside.encounter.strife.policy import next_command as strife_next
from tableside.encounter.strife.state import FightState
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.errors import TablesideError

Counts = dict[str, list[int]]
S = TypeVar("S")


class SimGame(Protocol[S]):
    """One game as the simulation sees it."""

    @property
    def name(self) -> str:
        """The stored game name (``majesty-war``, ``strife-combat``)."""
        ...

    @property
    def unit(self) -> str:
        """What the clock counts: Cycle or round."""
        ...

    @property
    def measures(self) -> tuple[str, ...]:
        """The losses counted per combatant (Wear kinds, or HP)."""
        ...

    @property
    def policy(self) -> str:
        """The policy's name as the report gives it."""
        ...

    def play(self, state: S, command: Command, rng: Rng) -> tuple[list[Event], S]:
        """Decide a command; its events and the state after them."""
        ...

    def next_command(self, state: S) -> Command:
        """The policy's next command."""
        ...

    def clock(self, state: S) -> int:
        """The Cycle or round the encounter is in."""
        ...

    def ended(self, state: S) -> bool:
        """Whether the encounter is over."""
        ...

    def winner(self, state: S) -> str | None:
        """The winning side (None: nobody standing)."""
        ...

    def sides(self, state: S) -> dict[str, str]:
        """Every combatant's side, in the encounter's order."""
        ...

    def fallen(self, state: S) -> tuple[str, ...]:
        """Combatants Defeated (War) or down (Realm of Strife)."""
        ...

    def count(self, events: Iterable[Event], counts: Counts) -> None:
        """Add what a command's events cost each combatant to ``counts``."""
        ...

    def settle(self, start: S, end: S, counts: Counts) -> None:
        """Add what can only be measured from the start and end states to ``counts``."""
        ...


WEAR_INDEX = {"E": 0, "R": 1, "P": 2}


@dataclass(frozen=True)
class WarSim:
    """The Allies of Majesty War under :class:`WarPolicy` (Rest rule on by default)."""

    rest: bool = True
    game: MajestyWar = field(default_factory=MajestyWar)
    name: str = "majesty-war"
    unit: str = "Cycle"
    measures: tuple[str, ...] = ("E", "R", "P")

    def play(self, state: WarState, command: Command, rng: Rng) -> tuple[list[Event], WarState]:
        """The War's fast path (no full reports, no second fold).

        The policy's choice is played as it is; refused, the first of its choices the engine
        accepts, else the end of the Turn (SA-98), so a choice is validated only when it fails.
        """
        try:
            return self.game.play(state, command, rng)
        except TablesideError:
            return self.game.play(state, npc_command(self.game, state, everyone), rng)

    @property
    def policy(self) -> str:
        """``war`` or ``war+rest`` (docs/simulate.md)."""
        return "war+rest" if self.rest else "war"

    def next_command(self, state: WarState) -> Command:
        """The War policy."""
        return WarPolicy(rest=self.rest, catalog=self.game.catalog)(state)

    def clock(self, state: WarState) -> int:
        """The Cycle."""
        return int(state.cycle)

    def ended(self, state: WarState) -> bool:
        """The War has ended."""
        return state.ended

    def winner(self, state: WarState) -> str | None:
        """The side left standing."""
        return state.winner

    def sides(self, state: WarState) -> dict[str, str]:
        """Holy or fallen."""
        return {c.id: c.character.side.value for c in state.combatants.values()}

    def fallen(self, state: WarState) -> tuple[str, ...]:
        """Defeated combatants."""
        return tuple(c.id for c in state.combatants.values() if c.defeated)

    def count(self, events: Iterable[Event], counts: Counts) -> None:
        """Wear taken, by kind."""
        for event in events:
            if event.kind == "wear_taken":
                d = event.data
                counts[d["id"]][WEAR_INDEX[d["kind"]]] += int(d["amount"])

    def settle(self, start: WarState, end: WarState, counts: Counts) -> None:
        """Nothing: Wear is counted from the events."""


@dataclass(frozen=True)
class StrifeSim:
    """The Realm of Strife fight under the documented Realm of Strife policy."""

    game: StrifeFight = field(default_factory=StrifeFight)
    name: str = "strife-combat"
    unit: str = "round"
    measures: tuple[str, ...] = ("HP",)

    def play(self, state: FightState, command: Command, rng: Rng) -> tuple[list[Event], FightState]:
        """The fight's fast path (no full reports, no second fold).

        The policy's first choice is played as it is; refused, the policy's first choice the
        engine accepts is played instead (SA-94), so a choice is validated only when it fails.
        """
        try:
            return self.game.play(state, command, rng)
        except TablesideError:
            if state.round < 0:
                raise
            return self.game.play(state, strife_next(state, self.game.catalog, self.game), rng)

    @property
    def policy(self) -> str:
        """``strife`` (docs/simulate.md)."""
        return "strife"

    def next_command(self, state: FightState) -> Command:
        """Start the fight if need be, then the policy."""
        if state.round < 0:
            return Command("start", {})
        return first_choice(state, self.game.catalog)  # validated if refused: see play

    def clock(self, state: FightState) -> int:
        """The round."""
        return int(state.round)

    def ended(self, state: FightState) -> bool:
        """The fight has ended."""
        return state.ended

    def winner(self, state: FightState) -> str | None:
        """The side left standing."""
        return state.winner

    def sides(self, state: FightState) -> dict[str, str]:
        """Each model's side."""
        return {m.id: m.side for m in state.models.values()}

    def fallen(self, state: FightState) -> tuple[str, ...]:
        """Models down at 0 HP."""
        return tuple(m.id for m in state.models.values() if m.down)

    def count(self, events: Iterable[Event], counts: Counts) -> None:
        """Nothing: HP lost is measured from the states."""

    def settle(self, start: FightState, end: FightState, counts: Counts) -> None:
        """HP lost: HP at the start less HP at the end."""
        before = start.models
        for model in end.models.values():
            if model.id in before:
                counts[model.id][0] += before[model.id].sheet.hp - model.sheet.hp


def everyone(_model: str) -> bool:
    """A simulation's policy acts for every model."""
    return True


def sim_game(game: str, rest: bool = True) -> SimGame[Any]:
    """The simulation of a stored encounter's game (the caller has checked the name)."""
    return WarSim(rest=rest) if game == "majesty-war" else StrifeSim()
