"""``tableside fight`` for forced movement, thrown weapons, Shield Blows, crushing injuries,
situational modifiers and water (SA-70 … SA-76)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clirun import Cli

FORCED = ("fight", "forced-move")


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def _duel(cli: Cli, hero: str = "Aldric", at: str = "0,0,0") -> str:
    fight = str(cli.json("fight", "new", "At the ford", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", hero, "--model", hero, "--side", "heroes",
             "--at", at, "--dice", "20")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", fight)
    return fight


def _revision(cli: Cli, fight: str) -> int:
    return int(cli.json("fight", "show", fight)["revision"])


def _model(state: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(m for m in state["models"] if m["id"] == name)
    return found


def test_sa70_fight_forced_move_knocks_back_and_refuses_a_sideways_knock(cli: Cli) -> None:
    fight = _duel(cli)
    before = _revision(cli, fight)
    code, _out, err = cli.run(*FORCED, fight, "Goblin", "--kind", "knock_back", "--by",
                              "Aldric", "--to", "1,3,0")  # fmt: skip
    assert code == 2 and "directly away" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert _revision(cli, fight) == before  # nothing written
    code, _out, err = cli.run(*FORCED, fight, "Goblin", "--kind", "push", "--by", "Aldric",
                              "--to", "4,0,0")  # fmt: skip
    assert code == 2 and "kind" in err
    done = cli.json(*FORCED, fight, "Goblin", "--kind", "knock_back", "--by", "Aldric",
                    "--to", "4,0,0")  # fmt: skip
    kinds = [e["kind"] for e in done["record"]["events"]]
    assert kinds == ["moved"] and done["record"]["events"][0]["data"]["forced"] is True
    code, out, _ = cli.run("fight", "log", fight)
    assert code == 0 and "[SA-70]" in out


def test_sa72_fight_pick_up_takes_a_thrown_dagger_back(cli: Cli) -> None:
    fight = _duel(cli, "Sera", "-3,0,0")
    thrown = cli.json("fight", "attack", fight, "Sera", "--target", "Goblin", "--thrown",
                      "--dice", "3")  # fmt: skip
    assert thrown["state"]["ground"] == [{"weapon": "Dagger", "at": [1.0, 0.0, 0.0]}]
    assert _model(thrown["state"], "Sera")["weapons"] == ["Dagger"]
    code, out, _ = cli.run("fight", "show", fight)
    assert code == 0 and "On the ground: Dagger at (1.0, 0.0, 0.0)" in out
    cli.json("fight", "next", fight)
    cli.json("fight", "next", fight)
    code, _out, err = cli.run("fight", "pick-up", fight, "Sera", "--weapon", "Dagger")
    assert code == 2 and "within base contact" in err
    cli.json("fight", "move", fight, "Sera", "--to", "0.5,0.5,0")
    done = cli.json("fight", "pick-up", fight, "Sera", "--weapon", "Dagger")
    assert _model(done["state"], "Sera")["weapons"] == ["Dagger", "Dagger"]
    assert done["state"]["ground"] == []


def test_sa73_sa74_sa75_fight_attack_shield_blow_injury_and_situational(cli: Cli) -> None:
    fight = _duel(cli)
    code, _out, err = cli.run("fight", "attack", fight, "Aldric", "--target", "Goblin",
                              "--situational", "high ground")  # fmt: skip
    assert code == 2 and "--situational takes a name and a whole number" in err
    code, _out, err = cli.run("fight", "attack", fight, "Aldric", "--target", "Goblin",
                              "--crushing-injury", "knee")  # fmt: skip
    assert code == 2 and "crushing_injury" in err
    done = cli.json("fight", "attack", fight, "Aldric", "--target", "Goblin", "--shield-blow",
                    "--situational", "high ground=10", "--dice", "80,2,50")  # fmt: skip
    result = next(e for e in done["record"]["events"] if e["kind"] == "attack_resolved")
    assert result["data"]["result"]["weapon"] == "Kite Shield (Shield Blow)"
    assert {"label": "high ground", "amount": 10} in result["data"]["result"]["modifiers"]


def test_sa76_fight_water_puts_a_model_under_water(cli: Cli) -> None:
    fight = _duel(cli)
    done = cli.json("fight", "water", fight, "Aldric")
    assert done["record"]["events"][0]["kind"] == "submerged_set"
    code, out, _ = cli.run("fight", "show", fight)
    assert code == 0 and "(under water)" in out
    code, _out, err = cli.run("fight", "move", fight, "Aldric", "--to", "-2,0,0")
    assert code == 2 and "under water" in err
    cli.json("fight", "water", fight, "Aldric", "--out")
    cli.json("fight", "move", fight, "Aldric", "--to", "-2,0,0")
