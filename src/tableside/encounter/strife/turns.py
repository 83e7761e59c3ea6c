"""The working copy a command runs on (:class:`Pending`) and the Turn's bookkeeping (S-3, S-5).

Every handler of :mod:`tableside.encounter.strife.commands` takes a :class:`Pending`, emits
events on it and raises :class:`~tableside.errors.RulesError` to refuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tableside.dice import Rng
from tableside.encounter.log import Command, Event
from tableside.encounter.strife.state import FightState, Model, evolve
from tableside.encounter.working import WorkingCopy
from tableside.errors import RulesError
from tableside.strife.catalog import Catalog
from tableside.strife.ruleset import StrifeRuleset
from tableside.strife.turns import TurnElement, check_turn


class FightRules(Protocol):
    """What the handlers read of the game they decide for: :class:`~.fight.StrifeFight`.

    A protocol, so that the handlers' modules need not import the game built on them.
    """

    @property
    def catalog(self) -> Catalog:
        """The weapons, armour, Powers and models the fight knows."""
        ...

    @property
    def ruleset(self) -> StrifeRuleset:
        """The rules' options in force."""
        ...

    def pending(self, state: FightState, command: Command, rng: Rng, describe: bool) -> Pending:
        """Run a command's handler on a Pending copy of the fight (raise to refuse)."""
        ...


@dataclass
class Pending(WorkingCopy[FightState]):
    """A working copy of the fight that applies each event as it is emitted."""

    def evolved(self, event: Event) -> FightState:
        """The state with ``event`` applied."""
        return evolve(self.state, event)

    def model(self, name: str) -> Model:
        """A model that must exist."""
        found = self.state.models.get(name)
        if found is None:
            known = ", ".join(self.state.models) or "none yet"
            raise RulesError(f"There is no model {name!r} in this fight (known: {known}).")
        return found


def check_end(p: Pending) -> None:
    """The fight ends when only one side has models standing."""
    sides = {m.side for m in p.state.models.values()}
    standing = {m.side for m in p.state.models.values() if not m.down}
    if p.state.round >= 0 and len(sides) > 1 and len(standing) < 2 and not p.state.ended:
        p.emit("fight_ended", None, winner=next(iter(standing), None))


def use_element(p: Pending, who: str, element: TurnElement) -> None:
    """Record a Turn element after checking the Turn's structure (S-5)."""
    if p.state.ended:
        raise RulesError("The fight has ended.")
    if p.state.current != who:
        raise RulesError(f"It is not {who}'s Turn (it is {p.state.current or 'nobody'}'s).")
    m = p.model(who)
    if TurnElement.ACTION.value in m.elements:
        raise RulesError(f"{who} has taken its Action, which ends the Turn (S-5).")
    if element == TurnElement.INSTANT and m.instant_barred:
        raise RulesError(f"{who} used this Turn's one instant out of turn (S-4).")
    check_turn([TurnElement(e) for e in (*acted(m), element.value)])
    p.emit("element_used", "S-5", id=who, element=element.value)


def acted(m: Model) -> tuple[str, ...]:
    """What the model did this Turn: an Instant spent out of turn does not count (S-4, SA-34).

    Only that Turn's Instant is barred, so a Whole Turn may still follow (SA-43).
    """
    if not m.instant_barred:
        return m.elements
    rest = list(m.elements)
    rest.remove(TurnElement.INSTANT.value)
    return tuple(rest)


def turn_order(state: FightState) -> list[str]:
    """This round's order: Initiative Score less any Roll with the Blow penalty (S-3, S-19)."""
    standing = [m for m in state.models.values() if not m.down]
    key = {m.id: (m.score - m.initiative_penalty, m.sheet.initiative) for m in standing}
    return sorted(key, key=lambda name: (-key[name][0], -key[name][1], name))


def start_round(p: Pending, number: int, order: list[str], ambush: str | None = None) -> None:
    """A new round: Reactions come back, the queue resets (S-4); conditions tick per Turn."""
    p.emit("round_started", "S-4", round=number, order=order, ambush=ambush)
    for m in p.state.models.values():
        if m.initiative_penalty and m.id in order:
            p.emit("initiative_penalty", "S-19", id=m.id, penalty=0)
    next_turn(p)


def next_turn(p: Pending) -> None:
    """Begin the next standing model's Turn, or the next round."""
    for index in range(p.state.turn + 1, len(p.state.order)):
        m = p.state.models.get(p.state.order[index])
        if m is not None and not m.down:
            p.emit("turn_started", "S-5", id=m.id, turn=index, round=p.state.round)
            return
    start_round(p, p.state.round + 1, turn_order(p.state))
