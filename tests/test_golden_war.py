"""Golden transcript: a seeded 4-against-4 War run to its end renders exactly as checked in.

If a deliberate rules change alters it, regenerate with ``python tests/golden/war.py --write``
and review the diff. The second, scripted War (``tests/golden/war_rulings.py``) walks through the
rulings of issue 13 (M-4, M-21, M-24, M-34 … M-41, A-15, A-29 … A-34), one step per ruling.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tableside.encounter.engine import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import war as golden
import war_rulings as rulings


def test_golden_war_transcript_matches_the_checked_in_file() -> None:
    assert golden.transcript() == golden.GOLDEN.read_text("utf-8")


def test_golden_war_ends_with_a_winner_and_replays_exactly() -> None:
    encounter = golden.run_war()
    assert encounter.state.ended and encounter.state.winner in ("holy", "fallen")
    assert len(encounter.state.combatants) == 8
    assert encounter.verify_replay().state == encounter.state


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_long_seeded_wars_replay_exactly_from_their_log(seed: int) -> None:
    encounter = golden.run_war(seed)
    assert encounter.state.ended
    assert len(encounter.records) > 40
    rebuilt = Encounter.from_records(encounter.game, seed, encounter.records)
    assert rebuilt.state == encounter.state
    assert encounter.verify_replay().state == encounter.state


# --- the scripted War of issue 13's rulings ------------------------------------------------------


def test_golden_rulings_war_transcript_matches_the_checked_in_file() -> None:
    assert rulings.transcript() == rulings.GOLDEN.read_text("utf-8")


@pytest.mark.parametrize(
    ("ruling", "line"),
    [
        ("M-36", "Herald Strikes Warrior with Sword: natural [1, 2, 3, 11, 9, 5, 5]"
                 " → final [1, 2, 3, 11, 9, 5, 5]; Hits 3, Stops 0"),
        ("M-41 A-29", "Cycle 2, Turn 3 (Segment 1): Watcher's Turn, 3 AP + 3 carried"),
        ("M-34 A-31", "ap_wasted id=Nimble pool=ap ap=7 reason=F:1 Cycle"),
        ("M-34", "wear_taken id=Warrior kind=R amount=12 source=4 Falter converted"),
        ("M-24 A-30", "Cycle 2 begins: 1:Herald(7), 1:Nimble(7), 1:Watcher(3), 1:Wall(7),"
                      " A:Herald(7)"),
        ("M-35 A-15", "Wall Swiftness Check to avoid a collision"),
        ("M-37", "stance_set id=Herald on=False reason=Grappling"),
        ("M-4 A-32", "exertion_set id=Warrior exertion=8 window=6 added=3 ignored=0 source=Strike"
                     "  [M-4]\n    weary_set id=Warrior weary=True"),
        ("M-21 A-33", "readied_set id=Herald ap=2 uses=['Move'] gained=1"),
        ("M-41 A-34", "readied_set id=Herald ap=1 uses=[] spent=1 action=Move"),
    ],
)  # fmt: skip
def test_golden_rulings_war_shows_each_ruling(ruling: str, line: str) -> None:
    assert line in rulings.GOLDEN.read_text("utf-8"), ruling


def test_golden_rulings_war_replays_and_undoes_exactly() -> None:
    encounter = rulings.run_war()
    assert encounter.verify_replay().state == encounter.state
    rebuilt = Encounter.from_records(encounter.game, rulings.SEED, encounter.records)
    assert rebuilt.state == encounter.state
    final = encounter.state
    states = []
    for _ in range(12):
        states.append(encounter.state)
        encounter.undo()
    for expected in reversed(states):
        encounter.redo()
        assert encounter.state == expected
    assert encounter.state == final
