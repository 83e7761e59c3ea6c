"""Golden transcript: a seeded 4-against-4 War run to its end renders exactly as checked in.

If a deliberate rules change alters it, regenerate with ``python tests/golden/war.py --write``
and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tableside.encounter.engine import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import war as golden


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
