"""The third golden Realm of Strife fight: Shield Blow, knock-back, taunt, a thrown Dagger picked
up again, a crushing injury and a Goblin under water (issue 14; SA-70 … SA-76).

Regenerate deliberately with ``python tests/golden/strife_forced.py --write`` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tableside.encounter.engine import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import strife_forced as golden


def test_golden_forced_transcript_matches_the_checked_in_file() -> None:
    assert golden.transcript() == golden.GOLDEN.read_text("utf-8")


def test_golden_forced_fight_uses_a_shield_blow_forced_movement_and_a_thrown_dagger() -> None:
    """SA-73 Shield Blow; SA-70 knock-back without AoO; SA-71 taunt; SA-72; SA-74; SA-76."""
    encounter = golden.run_fight()
    events = [e for r in encounter.records for e in r.events]
    weapons = [e.data["result"]["weapon"] for e in events if e.kind == "attack_resolved"]
    assert "Kite Shield (Shield Blow)" in weapons
    knocked = next(e for e in events if e.kind == "moved" and e.data.get("kind") == "knock_back")
    after = events[events.index(knocked) + 1 :]
    assert knocked.data["id"] == "Goblin-1" and after[0].kind != "aoo_offered"
    taunted = next(e for e in events if e.kind == "moved" and e.data.get("compelled"))
    assert taunted.data == {"id": "Goblin-1", "to": [1.0, 0.0, 0.0], "moved": 3.0, "cost": 3.0,
                            "compelled": "taunt"}  # fmt: skip
    kinds = [e.kind for e in events]
    assert kinds.index("weapon_thrown") < kinds.index("picked_up")
    injuries = [e for e in events if e.rule == "SA-74"]
    assert injuries[0].data["condition"]["name"] == "Crushing Injury (arm)"
    assert "submerged_set" in kinds
    assert encounter.state.ended and encounter.state.winner == "heroes"


def test_golden_forced_fight_replays_exactly() -> None:
    encounter = golden.run_fight()
    rebuilt = Encounter.from_records(encounter.game, golden.SEED, encounter.records)
    assert rebuilt.state == encounter.state
    assert encounter.verify_replay().state == encounter.state
