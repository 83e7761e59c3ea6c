"""The command line: options, JSON schema, physical dice, and bad input → exit 2, one sentence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clirun import refusal, run_cli

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")

STRIKE_KEYS = {
    "natural", "discarded", "adjustments", "final", "adjuster", "adjustments_available", "epic",
    "hits", "stops", "hits_regardless_of_stops", "uncanceled_hits", "uncanceled_stops",
    "twelve_effects", "striker_falter", "defensive_hits", "passion_triggers", "wear",
    "wear_to_striker", "defender_status_change", "striker_status_change", "rulings", "seed",
}  # fmt: skip
CHECK_KEYS = {"natural", "discarded", "adjustments", "final", "net", "outcome", "passes_short"}


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    return run_cli(capsys, monkeypatch, *args)


def strike_json(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    code, out, err = run(["majesty", "strike", *args, "--json"], capsys, monkeypatch)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_strike_json_has_the_documented_keys(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = strike_json(
        ["--striker", HERALD, "--defender", WARRIOR, "--seed", "7"], capsys, monkeypatch
    )
    assert data.keys() >= STRIKE_KEYS
    assert set(data["wear"]) >= {"kind", "base", "flat", "percent", "amount"}
    for item in data["adjustments"]:
        assert set(item) >= {"die", "from", "to", "by"}
    assert data["seed"] == 7


def test_same_seed_same_strike(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--striker", HERALD, "--defender", WARRIOR, "--seed", "42"]
    assert strike_json(args, capsys, monkeypatch) == strike_json(args, capsys, monkeypatch)


def test_physical_dice_resolve_exactly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # M-18: Precision 2 vs Guard 4 → the Defender makes 1 Adjustment; best lowers the lone 12.
    args = ["--precision", "2", "--guard", "4", "--force", "4", "--dice", "12,9,9,5,5,2,7"]
    data = strike_json(args, capsys, monkeypatch)
    assert data["natural"] == [12, 9, 9, 5, 5, 2, 7]
    assert data["adjuster"] == "defender"
    assert data["adjustments_available"] == 1
    assert data["adjustments"] == [
        {"die": 0, "from": 12, "to": 11, "by": "defender", "why": data["adjustments"][0]["why"]}
    ]
    assert data["final"] == [11, 9, 9, 5, 5, 2, 7]
    assert (data["hits"], data["stops"], data["uncanceled_hits"]) == (3, 1, 2)
    assert data["wear"]["base"] == 8
    assert data["seed"] is None


def test_boon_dice_are_all_typed_in_and_discarded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # M-7 worked example: Boon:2 discards the two 2s.
    args = ["--dice", "12,10,9,6,6,5,3,2,2", "--boon", "2", "--mode", "none"]
    data = strike_json(args, capsys, monkeypatch)
    assert data["discarded"] == [2, 2]
    assert data["natural"] == [12, 10, 9, 6, 6, 5, 3]
    assert data["net"] == 3


def test_explicit_adjustments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--precision", "5", "--guard", "1", "--dice", "8,8,5,5,5,2,7"]
    data = strike_json([*args, "--mode", "explicit", "--adjust", "1+,2+"], capsys, monkeypatch)
    assert data["final"] == [9, 9, 5, 5, 5, 2, 7]
    assert [a["by"] for a in data["adjustments"]] == ["striker", "striker"]


def test_human_breakdown(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(
        ["majesty", "strike", "--striker", HERALD, "--defender", WARRIOR, "--dice",
         "12,1,9,4,3,10,11", "--mode", "none"],
        capsys, monkeypatch,
    )  # fmt: skip
    assert code == 0
    assert "12/1 pairs: 1" in out
    assert "Hits × Force" in out
    assert "Rulings: " in out and "M-26" in out
    assert "→" in out


def test_check_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # M-30 worked example: Control 53 resists an Allotment of 40 → FV 5 vs 4 → 1 Adjustment.
    code, out, err = run(
        ["majesty", "check", "--kind", "resist", "--attribute", "53", "--allotment", "40",
         "--dice", "9,8,5,5,4,2,1", "--json"],
        capsys, monkeypatch,
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data.keys() >= CHECK_KEYS
    assert (data["factor"], data["opposing"], data["adjustments_available"]) == (5, 4, 1)
    assert data["adjuster"] == "roller"
    assert data["net"] == -1 + 1  # 9 − (2, 1) = −1, then 8 → 9 makes it 0
    assert data["outcome"] == "failure"
    assert data["passes_short"] == 3


def test_roll_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(
        ["majesty", "roll", "--raw-for", "2", "--dice", "12,12,5,5,5,1,4", "--json"],
        capsys, monkeypatch,
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert data["epic"] is None  # 12,12 vs one 1 → one unpaired 12: not Epic (M-9)
    assert data["net"] >= 3


BAD_INPUT = [
    (["majesty", "strike", "--dice", "13,1,2,3,4,5,6"], "13"),
    (["majesty", "strike", "--dice", "1,2,3,4,5,6,7", "--boon", "2"], "9 dice"),
    (["majesty", "strike", "--force", "-1"], "-1"),
    (["majesty", "strike", "--weapon", "Trident"], "Trident"),
    (["majesty", "strike", "--distance", "9"], '9.0"'),
    (["majesty", "strike", "--weapon", "Bow", "--ranged", "--distance", "2"], '2.0"'),
    (["majesty", "strike", "--weapon", "Bow", "--distance", "2"], "Ranged-only"),
    (["majesty", "strike", "--striker", "missing.json"], "missing.json"),
    (["majesty", "strike", "--dice", "1,2,x"], "'x'"),
    (["majesty", "strike", "--boon", "-1"], "-1"),
    (["majesty", "strike", "--maneuver", "Somersault"], "Somersault"),
    (["majesty", "strike", "--mode", "explicit", "--adjust", "1+"], "nobody"),
    (["majesty", "strike", "--adjust", "1+"], "--mode explicit"),
    (["majesty", "strike", "--ruleset", "homebrew"], "homebrew"),
    (["majesty", "strike", "--distance", "1", "--path", "5,0,0"], "allows only"),
    (["majesty", "check"], "--attribute"),
    (
        ["majesty", "check", "--kind", "attribute", "--attribute", "30", "--allotment", "4"],
        "resist",
    ),
]


@pytest.mark.parametrize(("args", "named"), BAD_INPUT, ids=[" ".join(a[1:]) for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_sentence(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert named in refusal(run(args, capsys, monkeypatch))


def test_bad_character_file_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads(Path(HERALD).read_text("utf-8"))
    doc["attributes"]["might"] = -3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), "utf-8")
    code, _, err = run(["majesty", "strike", "--striker", str(bad)], capsys, monkeypatch)
    assert code == 2
    assert "attributes.might" in err and "-3" in err


def test_option_errors_exit_2_without_traceback() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", "from tableside.cli.app import main; main()", "majesty", "strike",
         "--mode", "bogus"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert "bogus" in completed.stderr
