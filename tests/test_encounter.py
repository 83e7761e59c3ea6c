"""The encounter engine: commands, events, undo/redo, revisions, replay (issue: War)."""

from __future__ import annotations

import pytest
from war_builders import add, do, war, who

from tableside.encounter.engine import Encounter, NothingToUndoError
from tableside.encounter.log import Command, LogRecord
from tableside.errors import StaleRevisionError, TablesideError


def test_commands_bump_the_revision_and_log_events_with_rules() -> None:
    encounter = war()
    record = add(encounter, "Herald")
    assert encounter.revision == record.revision == 1
    assert record.events[0].kind == "combatant_added"
    assert record.events[0].rule == "M-40"


def test_undo_repeats_back_to_the_start_and_redo_restores_exactly() -> None:
    encounter = war()
    add(encounter, "Herald")
    add(encounter, "Warrior", side="fallen", position=(2.0, 0.0, 0.0))
    do(encounter, "next")
    states = [encounter.state]
    for _ in range(3):
        encounter.undo()
        states.append(encounter.state)
    assert encounter.state.combatants == {}
    with pytest.raises(NothingToUndoError):
        encounter.undo()
    for expected in reversed(states[:-1]):
        encounter.redo()
        assert encounter.state == expected
    with pytest.raises(NothingToUndoError):
        encounter.redo()


def test_a_new_command_clears_redo() -> None:
    encounter = war()
    add(encounter, "Herald")
    encounter.undo()
    add(encounter, "Warrior", side="fallen")
    with pytest.raises(NothingToUndoError):
        encounter.redo()


def test_stale_revision_is_refused_and_nothing_changes() -> None:
    encounter = war()
    add(encounter, "Herald")
    before = (encounter.revision, encounter.state)
    with pytest.raises(StaleRevisionError, match=r"revision 0 .* revision 1"):
        encounter.execute(Command("next"), expected_revision=0)
    with pytest.raises(StaleRevisionError):
        encounter.undo(expected_revision=5)
    assert (encounter.revision, encounter.state) == before


def test_a_refused_command_is_not_half_applied() -> None:
    encounter = war()
    add(encounter, "Herald")
    add(encounter, "Warrior", side="fallen", position=(9.0, 0.0, 0.0))
    do(encounter, "next")
    striker = encounter.state.current
    assert striker is not None
    other = "Warrior" if striker.combatant == "Herald" else "Herald"
    before = (encounter.revision, encounter.state)
    with pytest.raises(TablesideError, match="Melee Strike"):
        do(encounter, "strike", striker=striker.combatant, defender=other)
    assert (encounter.revision, encounter.state) == before
    assert who(encounter, striker.combatant).ap == 7


def test_replay_from_records_and_from_seed_is_exact() -> None:
    encounter = war(seed=11)
    add(encounter, "Herald")
    add(encounter, "Warrior", side="fallen", position=(2.0, 0.0, 0.0))
    for _ in range(6):
        do(encounter, "next")
        current = encounter.state.current
        assert current is not None
        other = "Warrior" if current.combatant == "Herald" else "Herald"
        do(encounter, "strike", striker=current.combatant, defender=other)
    encounter.undo()
    encounter.undo()
    encounter.redo()
    loaded = Encounter.from_records(encounter.game, 11, encounter.records)
    assert loaded.state == encounter.state
    replayed = encounter.verify_replay()
    assert replayed.state == encounter.state
    assert [r.to_json() for r in replayed.records] == [r.to_json() for r in encounter.records]


def test_records_round_trip_as_json() -> None:
    encounter = war()
    add(encounter, "Herald")
    do(encounter, "next")
    for record in encounter.records:
        assert LogRecord.from_json(record.to_json()) == record


def test_physical_dice_must_all_be_used() -> None:
    encounter = war()
    add(encounter, "Herald")
    add(encounter, "Warrior", side="fallen", position=(2.0, 0.0, 0.0))
    do(encounter, "next")
    current = encounter.state.current
    assert current is not None
    other = "Warrior" if current.combatant == "Herald" else "Herald"
    with pytest.raises(TablesideError, match="left over"):
        do(encounter, "strike", (9, 9, 9, 5, 5, 5, 5, 5), striker=current.combatant, defender=other)
    record = do(
        encounter, "strike", (9, 9, 9, 5, 5, 5, 5), striker=current.combatant, defender=other
    )
    assert record.events[1].data["result"]["natural"] == [9, 9, 9, 5, 5, 5, 5]


def test_unknown_command_is_refused() -> None:
    with pytest.raises(TablesideError, match="Unknown War command 'dance'"):
        war().execute(Command("dance"))
