"""Sweeps (issue 15, F-5): one combatant's number over a range, the win chance at each value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clirun import run_cli

from tableside.simulate.runs import SimulationError, load_start
from tableside.simulate.sweep import Sweep, parse_sweep, run_sweep, with_value

WAR_FILE = Path(__file__).resolve().parents[1] / "examples" / "war_4v4.json"
FIGHT_FILE = WAR_FILE.parent / "strife_ambush.json"


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def test_f5_a_sweep_is_parsed_from_id_field_and_range() -> None:
    assert parse_sweep("Brute.guard=2..8") == Sweep("Brute", "guard", tuple(range(2, 9)))
    assert parse_sweep(" Deceiver.Might = 30 .. 32 ") == Sweep("Deceiver", "might", (30, 31, 32))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Brute.guard", "A sweep is written ID.FIELD=LOW..HIGH"),
        ("Brute.luck=1..3", "A sweep can set one of might"),
        ("Brute.guard=8..2", "must run upward over at most 101 values, got 8..2."),
        ("Brute.guard=0..200", "got 0..200."),
    ],
)
def test_f5_a_bad_sweep_is_one_sentence(text: str, message: str) -> None:
    with pytest.raises(SimulationError, match=message):
        parse_sweep(text)


def test_f5_the_swept_value_reaches_the_combatant_and_nothing_else() -> None:
    doc = load(WAR_FILE)
    guard = load_start(with_value(doc, parse_sweep("Brute.guard=7..7"), 7)).state
    might = load_start(with_value(doc, parse_sweep("Brute.might=90..90"), 90)).state
    plain = load_start(doc).state
    assert guard.combatants["Brute"].character.war.guard == 7
    assert might.combatants["Brute"].character.natural.might == 90
    assert guard.combatants["Jackal"] == plain.combatants["Jackal"]
    assert doc == load(WAR_FILE)  # the document itself is left alone
    with pytest.raises(SimulationError, match="no combatant 'Nobody'"):
        with_value(doc, parse_sweep("Nobody.guard=1..2"), 1)


def test_f5_a_sweep_reports_each_value_and_the_closest_to_even() -> None:
    result = run_sweep(load(WAR_FILE), parse_sweep("Brute.guard=1..9"), 300, seed=3)
    chances = [point["wins"]["p"] for point in result["points"]]
    assert [p["value"] for p in result["points"]] == list(range(1, 10))
    assert result["side"] == "fallen" and all(p["engine"] == "fast" for p in result["points"])
    assert chances[-1] > chances[0]  # a better Guard helps Brute's side
    closest = min(result["points"], key=lambda p: (abs(p["wins"]["p"] - 0.5), p["value"]))
    assert result["closest_to_even"] == closest["value"]


def test_f5_f20_a_fight_is_swept_over_its_sheet_values_not_a_wars() -> None:
    with pytest.raises(SimulationError, match="Realm of Strife fight can set one of str, agil"):
        run_sweep(load(FIGHT_FILE), parse_sweep("Troll.might=1..2"), 5)
    other = {**load(FIGHT_FILE), "game": "chess"}
    with pytest.raises(SimulationError, match="Sweeps apply to a War or a Realm of Strife fight"):
        run_sweep(other, parse_sweep("Troll.ac=1..2"), 5)
    found = run_sweep(load(FIGHT_FILE), parse_sweep("Troll.hp=1..3"), 4, seed=1)
    assert found["side"] == "monsters" and len(found["points"]) == 3


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        *args: str) -> tuple[int, str, str]:  # fmt: skip
    return run_cli(capsys, monkeypatch, "simulate", *args)


def test_f5_the_cli_prints_the_sweep_and_draws_the_plot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    picture = tmp_path / "sweep.png"
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "100", "--workers", "1",
                         "--sweep", "Brute.guard=3..4", "--plot", str(picture))  # fmt: skip
    assert code == 0, err
    assert "closest to an even fight: Brute.guard =" in out
    assert picture.read_bytes()[:4] == b"\x89PNG"
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--plot", str(picture))
    assert code == 2 and out == "" and err == "error: --plot draws a sweep; give --sweep too.\n"
