"""Hypothesis state machine: random War commands, undo, redo; invariants hold throughout."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from war_builders import doc

from tableside.encounter.engine import Applied, Encounter
from tableside.encounter.log import Command
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.errors import TablesideError
from tableside.majesty.character import WEAR_FLOOR, WearKind

NAMES = ("A", "B", "C", "D")
GAME = MajestyWar()
coordinate = st.floats(min_value=-1.5, max_value=1.5, allow_nan=False).map(lambda v: round(v, 1))
point = st.tuples(coordinate, coordinate, st.just(0.0))


class WarMachine(RuleBasedStateMachine):
    """Random fights; every refused command leaves everything unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.encounter: Encounter[WarState] = Encounter(GAME, 7)

    def attempt(self, command: Command) -> None:
        before = (self.encounter.revision, self.encounter.state)
        try:
            self.encounter.execute(command)
        except TablesideError:
            assert (self.encounter.revision, self.encounter.state) == before

    @initialize(speeds=st.lists(st.integers(7, 17), min_size=3, max_size=3), at=point)
    def four_combatants(self, speeds: list[int], at: Any) -> None:
        for name, side, speed in zip(NAMES[:3], ("holy", "fallen", "fallen"), speeds, strict=True):
            position = [at[0] if name == "A" else 0.0, 0.0, 0.0]
            args = {
                "id": name,
                "character": doc(name, side=side, speed=speed),
                "position": position,
            }
            self.encounter.execute(Command("add", args))

    @rule(name=st.sampled_from(NAMES), side=st.sampled_from(["holy", "fallen"]), at=point,
          speed=st.integers(7, 17), endurance=st.integers(20, 90))  # fmt: skip
    def add(self, name: str, side: str, at: Any, speed: int, endurance: int) -> None:
        character = doc(name, side=side, speed=speed, endurance=endurance)
        self.attempt(Command("add", {"id": name, "character": character, "position": list(at)}))

    @rule()
    def next_turn(self) -> None:
        self.attempt(Command("next"))

    @rule(
        pick=st.integers(0, 3),
        boon=st.integers(0, 2),
        ignore=st.integers(0, 2),
        mode=st.sampled_from(["best", "none"]),
        maneuver=st.sampled_from([[], ["Disarm"], ["Crushing Blow"], ["Piercing Thrust"]]),
    )
    def strike_now(self, pick: int, boon: int, ignore: int, mode: str, maneuver: list[str]) -> None:
        state = self.encounter.state
        striker = state.current.combatant if state.current is not None else "A"
        others = sorted(n for n in state.combatants if n != striker) or ["A"]
        args = {"striker": striker, "defender": others[pick % len(others)], "boon": boon,
                "ignore_stops": ignore, "mode": mode, "maneuvers": maneuver}  # fmt: skip
        self.attempt(Command("strike", args))

    @rule(name=st.sampled_from(NAMES), to=point)
    def move(self, name: str, to: Any) -> None:
        self.attempt(Command("move", {"id": name, "to": list(to)}))

    @rule(name=st.sampled_from(NAMES),
          effect=st.sampled_from(["falter", "poison", "falter_cycle", "bound", "unbound",
                                  "exposed", "wear_e", "lower_status", "asleep", "knock_back"]),
          amount=st.integers(0, 9))  # fmt: skip
    def effect(self, name: str, effect: str, amount: int) -> None:
        self.attempt(Command("apply_effect", {"id": name, "effect": effect, "amount": amount}))

    @rule(name=st.sampled_from(NAMES), ap=st.integers(1, 7))
    def rest(self, name: str, ap: int) -> None:
        self.attempt(Command("rest", {"id": name, "ap": ap}))

    @precondition(lambda self: bool(self.encounter.applied))
    @rule()
    def undo(self) -> None:
        before = self.encounter.applied[-2].state if len(self.encounter.applied) > 1 else None
        self.encounter.undo()
        assert self.encounter.state == (before if before is not None else self.encounter.initial)

    @precondition(lambda self: bool(self.encounter.redo_stack))
    @rule()
    def redo(self) -> None:
        again = self.encounter.redo_stack[-1]
        assert isinstance(again, Applied)  # no command here waits for a decision
        expected = again.state
        self.encounter.redo()
        assert self.encounter.state == expected

    @invariant()
    def no_falter_above_seven_and_no_value_below_minus_forty(self) -> None:
        for c in self.encounter.state.combatants.values():
            assert 0 <= c.falter <= 7
            for kind in WearKind:
                assert c.character.current(kind.attribute) >= WEAR_FLOOR
            assert c.ap >= 0 and c.poison >= 0 and c.character.exertion >= 0

    @invariant()
    def the_log_rebuilds_the_state(self) -> None:
        rebuilt = Encounter.from_records(GAME, 7, self.encounter.records)
        assert rebuilt.state == self.encounter.state

    def teardown(self) -> None:
        replay = self.encounter.verify_replay()
        assert replay.state == self.encounter.state


WarMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestWarMachine = WarMachine.TestCase
