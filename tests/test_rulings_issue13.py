"""Issue 13: the War against the rule texts (M-24, M-34 … M-41), one test per wrong item."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from builders import strike, strike_setup, striker_adjusts

from tableside.cli.app import main
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.odds import strike_odds
from tableside.majesty.rolls import EXPOSED
from tableside.majesty.strike import DefenderState

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")


def cli_json(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    monkeypatch.setattr(sys, "argv", ["tableside", *args, "--json"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    out, err = capsys.readouterr()
    assert exit_info.value.code in (0, None), err
    data: dict[str, Any] = json.loads(out)
    return data


# --- 1. Bound is Exposed (M-36) -----------------------------------------------------------------

# 1s, 2s and 3s (Misses when Exposed), an 11 (a 12 when Exposed, M-19).
BOUND_DICE = (1, 1, 2, 3, 11, 9, 6)


def test_m36_bound_strike_reads_dice_as_exposed() -> None:
    bound = strike(BOUND_DICE, state=DefenderState(bound=True), mode=AdjustMode.NONE)
    exposed = strike(BOUND_DICE, state=DefenderState(exposed=True), mode=AdjustMode.NONE)
    assert bound.reading == EXPOSED
    assert bound.outcome == exposed.outcome
    assert bound.outcome.uncanceled_stops == 0  # 1s inert, 1–3 Misses
    assert bound.outcome.twelve_effects == 1  # the 11 reads as a 12


def test_m36_majesty_strike_bound_reads_dice_as_exposed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ["majesty", "strike", "--striker", HERALD, "--defender", WARRIOR, "--dice",
            ",".join(map(str, BOUND_DICE)), "--mode", "none"]  # fmt: skip
    bound = cli_json([*base, "--bound"], capsys, monkeypatch)
    exposed = cli_json([*base, "--bound", "--exposed"], capsys, monkeypatch)
    assert bound["reading"] == "exposed"
    assert {k: v for k, v in bound.items() if k != "seed"} == {
        k: v for k, v in exposed.items() if k != "seed"
    }


def test_m36_bound_odds_are_the_law_of_the_exposed_reading(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bound = strike_odds(strike_setup(state=DefenderState(bound=True), **striker_adjusts(1)))
    exposed = strike_odds(
        strike_setup(state=DefenderState(bound=True, exposed=True), **striker_adjusts(1))
    )
    assert bound.reading == EXPOSED
    assert dict(bound.net.items()) == dict(exposed.net.items())
    assert dict(bound.striker_falter.items()) == {0: 1}  # 1s inert: no Striker Falter
    base = ["odds", "strike", "--striker", HERALD, "--defender", WARRIOR]
    cli_bound = cli_json([*base, "--bound"], capsys, monkeypatch)
    cli_exposed = cli_json([*base, "--bound", "--exposed"], capsys, monkeypatch)
    assert cli_bound["distributions"] == cli_exposed["distributions"]
