"""``odds attack`` / ``strife attack`` with named situational modifiers (SA-75) and a Shield
Blow (SA-73): exact and equal to the API (whose brute-force check is in test_strife_forced);
bad input exits 2."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from test_odds_cli import fraction, odds_json, run

from tableside.encounter.strife.forced import shield_blow_weapon
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.loadout import effective_ac
from tableside.strife.odds import attack_odds
from tableside.strife.records import Part

Capsys = pytest.CaptureFixture[str]
CATALOG = builtin_catalog()


def _aldric_on_goblin(**changes: object) -> AttackSetup:
    aldric, goblin = CATALOG.combatant("Aldric"), CATALOG.combatant("Goblin")
    setup = AttackSetup(attacker=aldric, defender=goblin, weapon=CATALOG.weapon("Long Sword"),
                        defender_ac=effective_ac(CATALOG, goblin).value)  # fmt: skip
    return replace(setup, **changes)  # type: ignore[arg-type]


def _outcomes(data: dict[str, object]) -> dict[str, Fraction]:
    chances = data["chances"]
    assert isinstance(chances, dict)
    return {k: fraction(v["fraction"]) for k, v in chances["outcome"].items()}


def test_sa75_odds_attack_takes_named_situational_modifiers_exactly(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = odds_json(["attack", "Aldric", "Goblin", "--situational", "high ground=10",
                      "--situational", "cover=-20"], capsys, monkeypatch)  # fmt: skip
    setup = _aldric_on_goblin(hit_modifiers=(Part("high ground", 10), Part("cover", -20)))
    expected = attack_odds(setup)  # = brute force: test_strife_forced (SA-75)
    assert _outcomes(data) == dict(
        zip(expected.outcome.labels, expected.outcome.probabilities, strict=True)
    )
    plain = odds_json(["attack", "Aldric", "Goblin"], capsys, monkeypatch)
    assert _outcomes(plain)["armor_save"] < _outcomes(data)["armor_save"]  # a net −10 to hit


def test_sa73_odds_attack_shield_blow_is_exact(
    capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = odds_json(["attack", "Aldric", "Goblin", "--shield-blow"], capsys, monkeypatch)
    weapon = shield_blow_weapon(CATALOG, CATALOG.combatant("Aldric"))
    setup = _aldric_on_goblin(weapon=weapon)
    expected = attack_odds(setup)  # = brute force: test_strife_forced (SA-73)
    damage = data["distributions"]["damage"]["values"]
    assert [(r["value"], fraction(r["eq"]["fraction"])) for r in damage] == list(
        expected.damage.items()
    )
    assert max(r["value"] for r in damage) == 2 * (6 + 1)  # a critical 1d6 + STR 16


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--situational", "cover"], "--situational takes a name and a whole number"),
        (["--situational", "cover=-500"], "from -100 to 100"),
        (["--shield-blow", "--weapon", "Long Sword"], "--shield-blow strikes with the shield"),
    ],
)
def test_sa73_sa75_bad_options_exit_2_with_one_sentence(
    extra: list[str], said: str, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _out, err = run(["odds", "attack", "Aldric", "Goblin", *extra], capsys, monkeypatch)
    assert code == 2 and said in err and "Traceback" not in err
    code, _out, err = run(["strife", "attack", "Sera", "Goblin", "--shield-blow"],
                          capsys, monkeypatch)  # fmt: skip
    assert code == 2 and "no shield equipped" in err
