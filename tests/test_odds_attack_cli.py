"""``tableside odds attack``: the options of ``strife attack``, exact JSON, table, chart, Monte
Carlo, and bad input → exit 2 with one sentence (issue 5, Realm of Strife)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import refusal
from test_odds_cli import PNG, fraction, odds_json, run

from tableside.strife import reactions
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.loadout import effective_ac
from tableside.strife.odds import attack_odds

Capsys = pytest.CaptureFixture[str]
BLOCKED = ["attack", "Goblin", "Aldric", "--reaction", "block", "--hp", "3"]


def goblin_on_aldric() -> AttackSetup:
    catalog = builtin_catalog()
    aldric, goblin = catalog.combatant("Aldric"), catalog.combatant("Goblin")
    return AttackSetup(
        attacker=goblin,
        defender=aldric,
        weapon=catalog.weapon("Spear"),
        defender_ac=effective_ac(catalog, aldric).value,
        reaction=reactions.block(aldric, catalog.shield("Kite Shield")),
    )


def test_odds_attack_json_is_exact_and_equals_the_api(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = odds_json(BLOCKED, capsys, monkeypatch)
    expected = attack_odds(goblin_on_aldric(), hp=3)
    assert data["schema"] == "tableside/strife-attack-odds" and data["schema_version"] == 1
    assert data["exact"] is True and data["samples"] is None and data["seed"] is None
    assert data["hp"] == 3 and data["reaction"] == "block" and data["ac"] == expected.setup.ac
    assert fraction(data["defeat"]["fraction"]) == expected.defeat
    rows = data["distributions"]["damage"]["values"]
    assert [(r["value"], fraction(r["eq"]["fraction"])) for r in rows] == list(
        expected.damage.items()
    )
    assert fraction(rows[0]["ge"]["fraction"]) == 1 and fraction(rows[-1]["le"]["fraction"]) == 1
    outcome = data["chances"]["outcome"]
    assert sum(fraction(v["fraction"]) for v in outcome.values()) == 1
    assert set(outcome) == {"warded_off", "critical_miss", "auto_miss", "critical_hit", "hit",
                            "dodge", "armor_save"}  # fmt: skip
    assert fraction(data["chances"]["damaged_items"]["Kite Shield"]["fraction"]) > 0
    mean = data["distributions"]["damage"]["mean_fraction"]
    assert fraction(mean) == expected.damage.mean


def test_odds_attack_takes_the_options_of_strife_attack(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["Sera", "Goblin", "--weapon", "Dagger", "--precision", "--modifier", "10",
            "--crit", "20", "--ac", "35", "--dodge", "0", "--reaction", "ward-off",
            "--dual-wielding", "--distance", "0"]  # fmt: skip
    data = odds_json(["attack", *args], capsys, monkeypatch)
    assert data["precision"] is True and data["ac"] == 35 and data["dodge"] == 0
    assert data["crit_chance"] == 20 and data["reaction"] == "ward_off"
    assert 0 < fraction(data["chances"]["outcome"]["warded_off"]["fraction"]) < 1
    assert data["chances"]["outcome"]["critical_hit"]["p"] > 0  # two Small weapons may crit
    code, out, _ = run(["strife", "attack", *args, "--json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["weapon"] == "Dagger"


def test_odds_attack_text_shows_the_table_and_the_chance_of_defeat(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(["odds", *BLOCKED], capsys, monkeypatch)
    assert code == 0
    assert "P(Aldric reduced to 0 HP) from 3 HP" in out and "damage dealt" in out
    assert "≥" in out and "≤" in out and "mean" in out and "Reaction test" in out
    assert "Exact" in out


def test_odds_attack_monte_carlo_is_seeded(capsys: Capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    args = [*BLOCKED, "--mc", "3000", "--seed", "4"]
    first = odds_json(args, capsys, monkeypatch)
    assert first["exact"] is False and first["samples"] == 3000 and first["seed"] == 4
    assert odds_json(args, capsys, monkeypatch) == first
    exact = attack_odds(goblin_on_aldric(), hp=3).defeat
    estimate = fraction(first["defeat"]["fraction"])
    assert abs(float(estimate - exact)) <= 5 * float(exact * (1 - exact) / 3000) ** 0.5


def test_odds_attack_plot_writes_a_png(
    tmp_path: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    chart = tmp_path / "attack.png"
    code, out, _ = run(["odds", *BLOCKED, "--plot", str(chart)], capsys, monkeypatch)
    # the path as printed, wherever the console wrapped it
    assert code == 0 and str(chart) in out.replace("\n", "") and chart.read_bytes()[:8] == PNG
    data = odds_json([*BLOCKED, "--plot", str(chart)], capsys, monkeypatch)
    assert data["plot"] == str(chart)


def test_sa38_hp_sets_absorption_and_defeat_for_an_object(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Oak Door absorbs 50 % of its current HP from each hit (S-21): at 4 HP it absorbs 2.
    full = odds_json(["attack", "Cave Troll", "Oak Door"], capsys, monkeypatch)
    worn = odds_json(["attack", "Cave Troll", "Oak Door", "--hp", "4"], capsys, monkeypatch)
    lowest = {d["hp"]: d["distributions"]["damage"]["values"][1]["value"] for d in (full, worn)}
    assert lowest == {10: 2, 4: 5}  # 2d6+2+3 = 7 at least: 7 − 5 and 7 − 2
    assert fraction(worn["defeat"]["fraction"]) > fraction(full["defeat"]["fraction"])


BAD: list[tuple[list[str], str]] = [
    (["odds", *BLOCKED[:-1], "0"], "at least 1"),
    (["odds", *BLOCKED, "--mc", "0"], "--mc must be 1 to"),
    (["odds", *BLOCKED, "--plot", "chart.svg"], ".png"),
    (["odds", "attack", "Goblin", "Aldric", "--crit", "120"], "120"),
    (["odds", "attack", "Goblin", "Aldric", "--reaction", "dance"], "dance"),
    (["odds", "attack", "Goblin", "Balrog"], "Balrog"),
    (["odds", "attack", "Goblin", "Aldric", "--weapon", "Short Bow", "--reaction", "parry",
      "--reaction-weapon", "Long Sword"], "melee"),
    (["odds", "attack", "Goblin", "Aldric", "--distance", "5"], "5"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "named"), BAD, ids=[" ".join(a[4:]) for a, _ in BAD])
def test_bad_odds_attack_input_exits_2_with_one_sentence(
    args: list[str], named: str, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert named in refusal(run(args, capsys, monkeypatch))


def test_odds_attack_takes_no_dice(capsys: Capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(["odds", *BLOCKED, "--dice", "hit=37"], capsys, monkeypatch)
    assert code == 2 and out == "" and "--dice" in err
