"""Golden transcript of a seeded Realm of Strife fight: ambush, reactions, disengaging, AoOs.

Regenerate deliberately with ``python tests/golden/strife.py --write`` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tableside.encounter.engine import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import strife as golden


def test_golden_strife_transcript_matches_the_checked_in_file() -> None:
    assert golden.transcript() == golden.GOLDEN.read_text("utf-8")


def test_golden_fight_has_an_ambush_reactions_disengaging_and_aoos() -> None:
    encounter = golden.run_fight()
    kinds = [e.kind for r in encounter.records for e in r.events]
    commands = [r.command.kind for r in encounter.records if r.command is not None]
    first_round = next(e for r in encounter.records for e in r.events if e.kind == "round_started")
    assert first_round.data["round"] == 0 and first_round.data["ambush"] == "heroes"
    assert "aoo_offered" in kinds and "aoo" in commands
    assert "roll_with_the_blow" in commands
    assert any(e.data.get("reason") == "reaction" for r in encounter.records for e in r.events
               if e.kind == "reaction_spent")  # fmt: skip
    assert len(encounter.state.models) >= 4 and encounter.state.ended


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seeded_fights_replay_exactly(seed: int) -> None:
    encounter = golden.run_fight(seed)
    rebuilt = Encounter.from_records(encounter.game, seed, encounter.records)
    assert rebuilt.state == encounter.state
    assert encounter.verify_replay().state == encounter.state
