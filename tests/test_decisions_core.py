"""The decisions core (D-1 … D-3): a command that waits, its answers, undo, redo, replay, storage.

A toy game keeps the rules out of the way: a ``gain`` adds its ``n`` plus one d6 and has one
choice, the ``guard`` of combatant B, that B's controller owns. The games' own choices are tested
in ``test_decisions_strife.py`` and ``test_decisions_war.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_store_support import BACKENDS, database_url

from tableside.dice import Rng
from tableside.encounter.decisions import (
    APPROVE,
    Ask,
    Choice,
    Policy,
    WaitingError,
    approval,
    put,
)
from tableside.encounter.engine import Encounter, NothingToUndoError, ReplayMismatchError
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.store import Store


class Toy:
    """A game with one choice per ``gain``: B's guard (and a Host approval of ``bonus``)."""

    name = "toy"

    def initial(self) -> int:
        return 0

    def decide(self, state: int, command: Command, rng: Rng) -> list[Event]:
        if command.args.get("guard") == "refuse":
            raise WaitingError("B cannot guard like that.")
        gain = int(command.args.get("n", 0)) + int(command.args.get("bonus", 0)) + rng.roll(6)
        return [Event("gained", {"n": gain, "guard": command.args.get("guard")}, "D-1")]

    def evolve(self, state: int, event: Event) -> int:
        return state + int(event.data["n"])

    def choices(self, state: int, command: Command, rng: Rng) -> Sequence[Choice]:
        found = [
            Choice(
                "guard",
                "B",
                ("guard",),
                ({"value": "high", "label": "High"}, {"value": "low", "label": "Low"}),
                "high",
                given="guard" in command.args,
                prompt="How does B guard?",
                free=command.args.get("free_guard", False),
            )
        ]
        proposal = approval("A", command.args, {"bonus": 0}, "A's gain")
        if proposal is not None:
            found.append(proposal)
        return found


def asking(deadline: float | None = None) -> Any:
    """An asker that asks every choice not given (and every approval)."""

    def ask(choice: Choice) -> Ask:
        if choice.given and choice.kind != APPROVE:
            return Ask(Policy.KEEP)
        return Ask(Policy.ASK, deadline)

    return ask


def taking(choice: Choice) -> Ask:
    return Ask(Policy.KEEP if choice.given else Policy.TAKE)


@pytest.fixture
def war() -> Encounter[int]:
    encounter: Encounter[int] = Encounter(Toy(), 11)
    encounter.execute(Command("gain", {"n": 1}))
    return encounter


def test_d1_a_command_with_a_choice_to_ask_waits_as_a_request_record(war: Encounter[int]) -> None:
    """D-1: nothing is decided; the request names the question, and the dice stream is kept."""
    before = war.state
    record = war.execute(Command("gain", {"n": 2}), asker=asking())
    assert record.kind == RecordKind.REQUEST and record.events == ()
    assert record.seq == 1 and war.next_seq == 2
    assert war.state == before
    assert war.pending is not None
    assert [r.id for r in war.pending.open] == ["1.0"]
    assert record.data is not None and record.data["requests"][0]["combatant"] == "B"


def test_d1_the_last_answer_decides_with_the_reserved_dice_stream(war: Encounter[int]) -> None:
    """D-1: the answer's record carries exactly the events the one-shot command would give."""
    one_shot: Encounter[int] = Encounter(Toy(), 11)
    one_shot.execute(Command("gain", {"n": 1}))
    expected = one_shot.execute(Command("gain", {"n": 2, "guard": "low"}))
    war.execute(Command("gain", {"n": 2}), asker=asking())
    answer = war.answer("1.0", "low", "seat:2")
    assert answer.kind == RecordKind.ANSWER
    assert answer.data is not None and answer.data["outcome"] == "resolved"
    assert answer.data["answer"] == {"request": "1.0", "value": "low", "by": "seat:2"}
    assert answer.command == expected.command
    assert answer.events == expected.events
    assert war.state == one_shot.state and war.pending is None


def test_d1_an_answer_not_among_the_options_changes_nothing(war: Encounter[int]) -> None:
    """D-1: a refused answer writes nothing and the command still waits."""
    war.execute(Command("gain", {"n": 2}), asker=asking())
    records = list(war.records)
    with pytest.raises(WaitingError, match=r"'sideways' is not one of the options"):
        war.answer("1.0", "sideways", "seat:2")
    with pytest.raises(WaitingError, match=r"no open decision '9.9'"):
        war.answer("9.9", "low", "seat:2")
    assert war.records == records and war.pending is not None


def test_d1_a_free_answer_the_rules_refuse_changes_nothing() -> None:
    """D-1: a free choice is checked by the game's own decide; a refusal keeps it waiting."""
    war: Encounter[int] = Encounter(Toy(), 3)
    war.execute(Command("gain", {"free_guard": True}), asker=asking())
    with pytest.raises(WaitingError, match="cannot guard like that"):
        war.answer("0.0", "refuse", "seat:2")
    assert war.pending is not None and war.revision == 1
    war.answer("0.0", "anything", "seat:2")
    assert war.pending is None


def test_d3_no_other_command_is_decided_while_one_waits(war: Encounter[int]) -> None:
    """D-3: the refusal names whom the fight waits for; nothing is written."""
    war.execute(Command("gain", {"n": 2}), asker=asking())
    with pytest.raises(WaitingError, match=r"waiting for B's guard \(decision 1\.0\)"):
        war.execute(Command("gain", {"n": 5}))
    with pytest.raises(WaitingError):
        war.redo()
    assert war.revision == 2


def test_d3_undo_withdraws_a_waiting_command_and_redo_restores_it_with_its_answers() -> None:
    """D-3: undo while waiting withdraws; redo puts it back waiting, answers kept."""
    war: Encounter[int] = Encounter(Toy(), 5)
    war.execute(Command("gain", {"n": 1, "bonus": 2}), asker=asking())
    assert war.pending is not None and len(war.pending.open) == 2
    war.answer("0.0", "high", "seat:2")
    undone = war.undo()
    assert undone.kind == RecordKind.UNDO and undone.seq == 0
    assert war.pending is None and war.state == 0
    war.redo()
    assert war.pending is not None and [r.id for r in war.pending.open] == ["0.1"]
    war.answer("0.1", "approve", "host")
    assert war.pending is None and war.state > 3


def test_d3_undo_after_the_answer_takes_back_the_whole_command(war: Encounter[int]) -> None:
    """D-3: a decided command undoes and redoes like any other, with the events it had."""
    war.execute(Command("gain", {"n": 2}), asker=asking())
    war.answer("1.0", "low", "seat:2")
    after = war.state
    war.undo()
    assert war.state == war.applied[-1].state
    war.redo()
    assert war.state == after
    war.undo()
    war.undo()
    with pytest.raises(NothingToUndoError):
        war.undo()


def test_d4_a_rejected_proposal_withdraws_the_command(war: Encounter[int]) -> None:
    """D-4: the Host's rejection decides nothing; the record says it was withdrawn."""
    before = war.state
    war.execute(Command("gain", {"n": 2, "bonus": 50, "guard": "low"}), asker=asking())
    assert war.pending is not None
    assert [r.choice.kind for r in war.pending.open] == [APPROVE]
    record = war.answer("1.0", "reject", "host")
    assert record.data is not None and record.data["outcome"] == "withdrawn"
    assert record.events == () and war.pending is None and war.state == before
    war.execute(Command("gain", {"n": 1}))  # the fight goes on


def test_d5_an_overdue_decision_takes_its_suggestion_as_a_timeout_answer(
    war: Encounter[int],
) -> None:
    """D-5: expiry answers with the suggestion, by "timeout"; an early call does nothing."""
    war.execute(Command("gain", {"n": 2}), asker=asking(deadline=100.0))
    assert war.expire(99.0) == []
    done = war.expire(100.0)
    assert len(done) == 1 and done[0].data is not None
    assert done[0].data["answer"] == {"request": "1.0", "value": "high", "by": "timeout"}
    assert war.pending is None


def test_d5_a_taken_suggestion_is_written_into_the_command(war: Encounter[int]) -> None:
    """D-5: an owner that decides automatically gets the suggestion in the command's args."""
    record = war.execute(Command("gain", {"n": 2}), asker=taking)
    assert record.kind == RecordKind.COMMAND
    assert record.command is not None and record.command.args["guard"] == "high"


def test_d2_replay_and_reload_rebuild_every_step_of_a_wait() -> None:
    """D-2: from_records equals the live encounter after each record; verify_replay passes."""
    war: Encounter[int] = Encounter(Toy(), 9)
    steps: list[Callable[[], object]] = [
        lambda: war.execute(Command("gain", {"n": 1}), asker=asking()),
        lambda: war.answer("0.0", "low", "seat:2"),
        lambda: war.execute(Command("gain", {"n": 2, "bonus": 1}), asker=asking(5.0)),
        lambda: war.answer("1.1", "approve", "host"),
        lambda: war.undo(),
        lambda: war.redo(),
        lambda: war.expire(6.0),
        lambda: war.undo(),
        lambda: war.redo(),
    ]
    for step in steps:
        step()
        again = Encounter.from_records(Toy(), 9, war.records)
        assert again.state == war.state
        assert again.pending == war.pending
        assert again.next_seq == war.next_seq
        war.verify_replay()


def test_d2_replay_refuses_a_tampered_answer() -> None:
    """D-2: the answer that decided a command is re-decided from the seed on replay."""
    war: Encounter[int] = Encounter(Toy(), 9)
    war.execute(Command("gain", {"n": 1}), asker=asking())
    war.answer("0.0", "low", "seat:2")
    last = war.records[-1]
    forged = LogRecord(
        last.revision, last.kind, last.seq, last.command, (Event("gained", {"n": 99}),), last.data
    )
    war.records[-1] = forged
    with pytest.raises(ReplayMismatchError, match="answer that decided a waiting command"):
        war.verify_replay()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with database_url(request.param, tmp_path) as url, Store.open(url) as opened:
        yield opened


def test_d2_a_waiting_command_survives_a_restart(store: Store) -> None:
    """D-2: request and answer records are stored with their data; reloading keeps the wait."""
    war: Encounter[int] = Encounter(Toy(), 4)
    encounter_id = store.create_encounter("Toy", "toy", 4)
    war.execute(Command("gain", {"n": 1, "bonus": 3}), asker=asking(42.5))
    war.answer("0.0", "high", "seat:1")
    for record in war.records:
        store.append(encounter_id, record)
    _info, records = store.load(encounter_id)
    assert [r.to_json() for r in records] == [r.to_json() for r in war.records]
    again = Encounter.from_records(Toy(), 4, records)
    assert again.pending == war.pending
    assert again.pending is not None and again.pending.open[0].deadline == 42.5
    document = store.export_encounter(encounter_id)
    copy = store.import_encounter(document)
    assert [r.to_json() for r in store.load(copy)[1]] == [r.to_json() for r in war.records]


def test_put_places_an_answer_at_its_path() -> None:
    """D-1: an answer lands at its path in the args; an empty path merges an object."""
    args = {"attacks": [{"defender": "A"}, {"defender": "B"}]}
    assert put(args, ("attacks", 1, "reaction"), "parry") == {
        "attacks": [{"defender": "A"}, {"defender": "B", "reaction": "parry"}]
    }
    assert args["attacks"][1] == {"defender": "B"}  # copied, not changed
    assert put({"a": 1}, (), {"mode": "none"}) == {"a": 1, "mode": "none"}
    assert put({}, ("rolled", "hit"), [55]) == {"rolled": {"hit": [55]}}
    with pytest.raises(WaitingError, match="does not fit the command"):
        put(args, ("attacks", 5, "reaction"), "parry")
    with pytest.raises(WaitingError, match="must be a JSON object"):
        put(args, (), "parry")
