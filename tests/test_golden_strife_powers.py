"""The second golden Realm of Strife fight: Arcane Torrent on two targets, Impale, dual wielding
and Disengage (issue 14; SA-46, SA-49, SA-52, SA-60, SA-64).

Regenerate deliberately with ``python tests/golden/strife_powers.py --write`` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tableside.encounter.engine import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import strife_powers as golden


def test_golden_powers_transcript_matches_the_checked_in_file() -> None:
    assert golden.transcript() == golden.GOLDEN.read_text("utf-8")


def test_golden_powers_fight_casts_on_two_targets_impales_dual_wields_and_disengages() -> None:
    """SA-49, SA-60: one casting roll for both; SA-64 an Impale; SA-46 two Daggers; SA-52."""
    encounter = golden.run_fight()
    events = [e for r in encounter.records for e in r.events]
    casts = [e.data["result"] for e in events if e.kind == "cast_resolved"]
    targets = [e.data["target"] for e in events if e.kind == "cast_resolved"]
    assert targets == ["Goblin-1", "Goblin-2"]
    assert len({c["natural"] for c in casts}) == 1 and casts[0]["power"] == "Arcane Torrent"
    impale = next(e for e in events if e.kind == "attack_resolved" and e.rule == "S-13")
    assert impale.data["impale"] == 5 and impale.data["result"]["damage"]["total"] > 0
    attacks = [r for r in encounter.records if r.command is not None and r.command.kind == "attack"]
    dual = next(
        r for r in attacks if r.command is not None and r.command.args["attacker"] == "Sera"
    )
    assert [e.data["result"]["weapon"] for e in dual.events if e.kind == "attack_resolved"] == [
        "Dagger", "Dagger"]  # fmt: skip
    disengaged = next(e for e in events if e.kind == "moved" and e.data.get("disengage"))
    after = events[events.index(disengaged) + 1 :]
    assert disengaged.data["id"] == "Aldric" and after[0].kind != "aoo_offered"
    assert encounter.state.ended and encounter.state.winner == "heroes"


def test_golden_powers_fight_replays_exactly() -> None:
    encounter = golden.run_fight()
    rebuilt = Encounter.from_records(encounter.game, golden.SEED, encounter.records)
    assert rebuilt.state == encounter.state
    assert encounter.verify_replay().state == encounter.state
