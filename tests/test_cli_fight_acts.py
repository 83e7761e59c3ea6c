"""``tableside fight act / react``, climbing and swimming on ``fight move``, ``hide`` before the
start and ``end-combat --battle-within-2-minutes`` (issue 14 item 15; SA-80 … SA-89)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clirun import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def fight(cli: Cli, hide: bool = False) -> str:
    """Sera acts first (d20 10 → 18), the Goblin second (10 → 16), 5" away."""
    fight = str(cli.json("fight", "new", "At the mill", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Sera", "--model", "Sera", "--side", "heroes",
             "--dice", "10")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "5,0,0", "--dice", "10")  # fmt: skip
    if hide:
        cli.json("fight", "hide", fight, "Sera")
    cli.json("fight", "start", fight)
    return fight


def events(result: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = result["record"]["events"]
    return found


def refused(cli: Cli, fight: str, *args: str, match: str) -> None:
    """Exit 2, one sentence naming the problem, nothing written."""
    before = cli.json("fight", "show", fight)["revision"]
    code, _, err = cli.run(*args)
    assert code == 2 and match in err, err
    assert "Traceback" not in err and err.strip().count("\n") == 0
    assert cli.json("fight", "show", fight)["revision"] == before


def test_sa80_fight_act_full_and_role_play_actions(cli: Cli) -> None:
    f = fight(cli)
    done = cli.json("fight", "act", f, "Sera", "--kind", "roleplay", "--name", "shove the table",
                    "--test", "STR", "--against", "Goblin", "--dice", "15,10")  # fmt: skip
    [test] = [e for e in events(done) if e["kind"] == "test_resolved"]
    assert test["data"]["winner"] == "acting" and test["rule"] == "S-2"
    refused(cli, f, "fight", "act", f, "Sera", "--kind", "full", "--name", "unlock",
            match="ends the Turn")  # fmt: skip
    code, out, _ = cli.run("fight", "log", f)
    assert code == 0 and "Role-play Action: shove the table" in out


def test_sa80_fight_act_bad_input_exits_2_and_writes_nothing(cli: Cli) -> None:
    f = fight(cli)
    refused(cli, f, "fight", "act", f, "Sera", "--kind", "dance", "--name", "x", match="kind")
    refused(cli, f, "fight", "act", f, "Sera", "--kind", "full", "--name", "x", "--test", "LUCK",
            match="test")  # fmt: skip
    refused(cli, f, "fight", "act", f, "Sera", "--kind", "full", "--name", "x", "--against",
            "Goblin", "--test", "STR", match="Only a Role-play Action")  # fmt: skip


def test_sa82_fight_react_spends_the_rounds_reaction(cli: Cli) -> None:
    f = fight(cli)
    done = cli.json("fight", "react", f, "Goblin", "--kind", "skill", "--name", "Counterspell",
                    "--trigger", "Sera casts")  # fmt: skip
    assert events(done)[0]["kind"] == "reaction_spent"
    assert "Goblin" in done["state"]["reactions_spent"]
    refused(cli, f, "fight", "react", f, "Goblin", "--kind", "roleplay", "--name", "leap",
            match="already used its Reaction")  # fmt: skip
    refused(cli, f, "fight", "react", f, "Sera", "--kind", "skill", "--name", "Swift Kick",
            match="someone else's Turn")  # fmt: skip
    undone = cli.json("fight", "undo", f)
    assert undone["state"]["reactions_spent"] == []


def test_sa83_fight_react_role_play_with_a_stat_test(cli: Cli) -> None:
    f = fight(cli)
    done = cli.json("fight", "react", f, "Goblin", "--kind", "roleplay", "--name", "leap",
                    "--test", "AGIL", "--dice", "9")  # fmt: skip
    [test] = [e for e in events(done) if e["kind"] == "test_resolved"]
    assert test["data"]["success"] and test["data"]["result"]["total"] == 21


def test_sa84_fight_move_climbs_at_normal_speed_after_a_strength_test(cli: Cli) -> None:
    f = fight(cli)
    done = cli.json("fight", "move", f, "Sera", "--to", "0,0,5", "--mode", "climb",
                    "--normal-speed", "--dice", "11")  # fmt: skip
    moved = next(e for e in events(done) if e["kind"] == "moved")
    assert moved["data"]["to"] == [0.0, 0.0, 3.0] and moved["data"]["stopped"]
    refused(cli, f, "fight", "move", f, "Sera", "--to", "0,1,0", "--current", "with",
            match="for swimming")  # fmt: skip


def test_sa86_fight_move_swims_with_the_current(cli: Cli) -> None:
    f = fight(cli)
    done = cli.json("fight", "move", f, "Sera", "--to", "0,6,0", "--mode", "swim",
                    "--current", "with")  # fmt: skip
    assert next(e for e in events(done) if e["kind"] == "moved")["data"]["cost"] == 6.0


def test_sa88_fight_hide_before_the_start_declares_hiding(cli: Cli) -> None:
    """Declared hiding: the start resets no Stealth of Sera's (S-22); undeclared, it does."""
    hidden = fight(cli, hide=True)
    sera = next(m for m in cli.json("fight", "show", hidden)["models"] if m["id"] == "Sera")
    assert sera["hidden"] is True
    code, out, _ = cli.run("fight", "log", hidden)
    assert code == 0 and "declared=True  [SA-88]" in out and "resources_set" not in out
    code, out, _ = cli.run("fight", "log", fight(cli))
    assert "resources_set id=Sera" in out


def fury_fight(cli: Cli, tmp_path: Path) -> str:
    """A berserker with 7 Fury against a Goblin."""
    sheet = {"name": "Brann", "npc": False, "size": "medium",
             "stats": {"STR": 16, "AGIL": 10, "INT": 8, "WIS": 8, "STAM": 14},
             "initiative": 4, "movement": 5, "ac": 10, "dodge": 5, "hp": 30, "hp_max": 30,
             "resources": {"Fury": {"current": 7, "maximum": 20}}}  # fmt: skip
    path = tmp_path / "brann.json"
    path.write_text(json.dumps(sheet), "utf-8")
    f = str(cli.json("fight", "new", "Waves", "--seed", "5")["id"])
    cli.json("fight", "add", f, "--id", "Brann", "--sheet", str(path), "--side", "heroes",
             "--dice", "10")  # fmt: skip
    cli.json("fight", "add", f, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "5,0,0", "--dice", "10")  # fmt: skip
    cli.json("fight", "start", f)
    return f


def fury(result: dict[str, Any]) -> int:
    brann = next(e for e in events(result) if e["kind"] == "resources_set" and
                 e["data"]["id"] == "Brann")  # fmt: skip
    value: int = brann["data"]["resources"]["Fury"]["current"]
    return value


def test_sa89_fight_end_combat_keeps_half_the_fury_when_another_battle_follows(
    cli: Cli, tmp_path: Path
) -> None:
    """Fury 7 halves to 4 (half up, SA-1) and is kept; without the flag it is lost (S-22)."""
    kept = cli.json("fight", "end-combat", fury_fight(cli, tmp_path), "--battle-within-2-minutes")
    lost = cli.json("fight", "end-combat", fury_fight(cli, tmp_path))
    assert (fury(kept), fury(lost)) == (4, 0)
    note = next(e for e in events(kept) if e["kind"] == "resources_set" and
                e["data"]["id"] == "Brann")  # fmt: skip
    assert note["data"]["fury_decayed"] == 4 and note["data"]["battle_within_2_minutes"] is True
