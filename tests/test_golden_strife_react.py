"""The third golden Realm of Strife fight: hiding declared before the fight, a climb at normal
speed, a Skill Reaction, a Role-play Action roll-off, a Hustle and a Full Action (issue 14 item
15; SA-42, SA-80, SA-82, SA-84, SA-88).

Regenerate deliberately with ``python tests/golden/strife_react.py --write`` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tableside.encounter.engine import Encounter
from tableside.strife.catalog import Resource

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import strife_react as golden


def test_golden_react_transcript_matches_the_checked_in_file() -> None:
    assert golden.transcript() == golden.GOLDEN.read_text("utf-8")


def test_golden_react_fight_climbs_reacts_with_a_skill_hustles_and_acts() -> None:
    """SA-88 Stealth kept; SA-84 the climb's Strength test; SA-82 Swift Kick spends Sera's
    Reaction; SA-80 a roll-off and a Full Action; SA-42 the Hustle covers Movement 6 at most."""
    encounter = golden.run_fight()
    sera = encounter.state.models["Sera"]
    assert sera.hidden and sera.sheet.resources[Resource.STEALTH].current == 3
    events = [e for r in encounter.records for e in r.events]
    tests = {e.data["purpose"]: e for e in events if e.kind == "test_resolved"}
    climb = tests["climb at normal speed Strength test"]
    assert climb.data["success"] and climb.rule == "SA-84"
    moved = events[events.index(climb) + 1]
    assert (moved.data["to"], moved.data["cost"]) == ([0.0, -5.0, 3.0], 3.0)  # sneaking: half
    kick = next(e for e in events if e.kind == "reaction_spent" and e.data["id"] == "Sera")
    assert kick.data["reason"] == "Skill Reaction: Swift Kick"
    assert tests["Skill Reaction: Swift Kick"].data["success"]
    assert tests["Role-play Action: pin her to the wall"].data["result"]["schema"] == (
        "tableside/strife-roll-off")  # fmt: skip
    hustle = next(e for e in events if e.kind == "sprinted")
    assert hustle.data == {"id": "Sera", "sprints": 1, "hustle": True}
    assert any(e.kind == "note" and e.data.get("act") == "full" for e in events)
    assert encounter.state.ended and encounter.state.winner == "heroes"


def test_golden_react_fight_replays_exactly() -> None:
    encounter = golden.run_fight()
    rebuilt = Encounter.from_records(encounter.game, golden.SEED, encounter.records)
    assert rebuilt.state == encounter.state
    assert encounter.verify_replay().state == encounter.state
