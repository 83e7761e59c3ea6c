"""``tableside odds strike | check``: tables, JSON with exact fractions, charts, bad input → 2."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from clirun import refusal, run_cli

from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.odds import strike_odds
from tableside.majesty.strike import StrikeSetup

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")
PNG = b"\x89PNG\r\n\x1a\n"


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    return run_cli(capsys, monkeypatch, *args)


def odds_json(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    code, out, err = run(["odds", *args, "--json"], capsys, monkeypatch)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def fraction(text: str) -> Fraction:
    numerator, denominator = text.split("/")
    return Fraction(int(numerator), int(denominator))


def test_odds_strike_json_is_exact_and_matches_the_api(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = odds_json(
        ["strike", "--striker", HERALD, "--defender", WARRIOR, "--endurance", "20"],
        capsys, monkeypatch,
    )  # fmt: skip
    assert data["schema"] == "tableside/majesty-strike-odds" and data["exact"] is True
    assert data["endurance"] == 20 and data["seed"] is None
    net = data["distributions"]["net"]
    rows = net["values"]
    assert sum(fraction(r["eq"]["fraction"]) for r in rows) == 1
    assert fraction(rows[0]["ge"]["fraction"]) == 1 and fraction(rows[-1]["le"]["fraction"]) == 1
    for row in rows:
        assert abs(row["eq"]["p"] - float(fraction(row["eq"]["fraction"]))) < 1e-12
    assert set(data["chances"]) == {"epic", "defender_status", "striker_status"}
    assert "wear_E" in data["distributions"]
    defeat = fraction(data["defeat"]["fraction"])
    assert 0 < defeat < 1


def test_odds_strike_takes_the_options_of_majesty_strike(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [
        "--precision",
        "6",
        "--guard",
        "1",
        "--force",
        "5",
        "--weapon",
        "Axe",
        "--boon",
        "1",
        "--surprised",
        "--ignore-stops",
        "1",
        "--wear-percent",
        "10",
    ]
    data = odds_json(["strike", *args], capsys, monkeypatch)
    assert [(p["side"], p["count"]) for p in data["passes"]] == [("striker", 2)]
    assert data["reading"] == "surprised" and data["boon_net"] == 1
    code, out, _ = run(["majesty", "strike", *args, "--json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["weapon"] == "Axe"


def test_odds_strike_text_shows_the_table_and_the_chance_of_defeat(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(
        ["odds", "strike", "--striker", HERALD, "--defender", WARRIOR], capsys, monkeypatch
    )
    assert code == 0
    assert "P(Defender Defeated)" in out and "WearE dealt" in out and "mean" in out
    assert "≥" in out and "≤" in out and "Exact over all" in out


def test_odds_monte_carlo_is_seeded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["strike", "--mc", "20000", "--seed", "4"]
    first = odds_json(args, capsys, monkeypatch)
    assert first["exact"] is False and first["samples"] == 20000 and first["seed"] == 4
    assert odds_json(args, capsys, monkeypatch) == first


def test_odds_plot_writes_a_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    strike_png, check_png = tmp_path / "strike.png", tmp_path / "check.png"
    code, out, _ = run(["odds", "strike", "--plot", str(strike_png)], capsys, monkeypatch)
    assert code == 0 and str(strike_png) in out.replace("\n", "")  # wherever it was wrapped
    code, _, _ = run(
        ["odds", "check", "--attribute", "40", "--plot", str(check_png)], capsys, monkeypatch
    )
    assert code == 0
    for path in (strike_png, check_png):
        assert path.read_bytes()[:8] == PNG


def test_odds_check_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = odds_json(["check", "--kind", "social", "--factor", "4"], capsys, monkeypatch)
    assert data["schema"] == "tableside/majesty-check-odds"
    assert sum(fraction(v["fraction"]) for v in data["outcome"].values()) == 1
    assert {"net", "passes_short", "degree"} <= set(data["distributions"])


BAD = [
    (["odds", "strike", "--mode", "explicit"], "explicit"),
    (["odds", "strike", "--endurance", "-41"], "--endurance must be -40 to"),
    (["odds", "strike", "--mc", "0"], "--mc must be 1 to 10000000"),
    (["odds", "strike", "--plot", "chart.svg"], ".png"),
    (["odds", "strike", "--weapon", "Trebuchet"], "Trebuchet"),
    (["odds", "strike", "--boon", "9"], "--boon must be 0 to 6"),
    (["odds", "check"], "attribute"),
]


@pytest.mark.parametrize(("args", "named"), BAD, ids=[" ".join(a[1:]) for a, _ in BAD])
def test_bad_odds_input_exits_2_with_one_sentence(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert named in refusal(run(args, capsys, monkeypatch))


def test_a_chart_that_cannot_be_written_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "missing" / "chart.png"
    code, _, err = run(["odds", "strike", "--plot", str(target)], capsys, monkeypatch)
    assert code == 2 and "cannot be written" in err


def test_m2_endurance_option_sets_the_current_endurance() -> None:
    catalog = builtin_catalog()
    from builders import character

    setup = StrikeSetup(
        character("Herald", precision=8), character("Warrior", endurance=50),
        catalog.weapon("Axe"), catalog.weapon("Staff"),
    )  # fmt: skip
    low, high = strike_odds(setup, endurance=5), strike_odds(setup, endurance=120)
    assert low.endurance == 5 and high.endurance == 120
    assert low.defeat > high.defeat
