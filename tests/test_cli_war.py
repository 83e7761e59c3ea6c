"""``tableside war``: a stored War from the command line, with undo, log, export and import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import Cli

from tableside.cli.app import main

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "war.db", capsys, monkeypatch, ("war",))


def started(cli: Cli) -> int:
    war_id = int(cli.json("new", "Skirmish", "--seed", "9")["id"])
    cli.json("add", str(war_id), "--character", HERALD, "--id", "Herald")
    cli.json("add", str(war_id), "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0")
    cli.json("next", str(war_id))
    return war_id


def test_a_war_from_new_to_strike_undo_redo(cli: Cli) -> None:
    war_id = str(started(cli))
    state = cli.json("show", war_id)
    assert state["current"] == "Herald" and state["revision"] == 3
    strike = cli.json("strike", war_id, "Herald", "Warrior", "--dice", "9,9,9,5,5,5,5")
    assert strike["record"]["events"][1]["kind"] == "strike_resolved"
    herald = next(c for c in strike["state"]["combatants"] if c["id"] == "Herald")
    assert herald["ap"] == 4
    undone = cli.json("undo", war_id)
    assert next(c for c in undone["state"]["combatants"] if c["id"] == "Herald")["ap"] == 7
    redone = cli.json("redo", war_id)
    assert redone["state"] == strike["state"] | {"revision": 6}


def test_show_and_log_render_text(cli: Cli) -> None:
    war_id = str(started(cli))
    code, out, _ = cli.run("show", war_id)
    assert code == 0 and "War Scroll — Cycle 1" in out and "Herald" in out
    code, out, _ = cli.run("log", war_id)
    assert code == 0 and "#3 next" in out and "[M-40]" in out


def test_stale_revision_and_bad_commands_exit_2_and_write_nothing(cli: Cli) -> None:
    war_id = str(started(cli))
    code, _, err = cli.run("next", war_id, "--revision", "1")
    assert code == 2 and "revision 1" in err and "revision 3" in err
    code, _, err = cli.run("strike", war_id, "Herald", "Ghost")
    assert code == 2 and "'Ghost'" in err
    code, _, err = cli.run("rest", war_id, "Herald", "--ap", "0")
    assert code == 2 and "--ap must be 1 to 7" in err
    assert cli.json("show", war_id)["revision"] == 3
    code, _, err = cli.run("show", "99")
    assert code == 2 and "99" in err


def test_export_and_import_round_trip(cli: Cli, tmp_path: Path) -> None:
    war_id = str(started(cli))
    cli.json("strike", war_id, "Herald", "Warrior")
    out = tmp_path / "war.json"
    code, _, err = cli.run("export", war_id, "--out", str(out))
    assert code == 0, err
    imported = cli.json("import", str(out))
    assert cli.json("show", str(imported["id"])) == cli.json("show", war_id)


def test_a_bad_import_names_the_field_and_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    war_id = str(started(cli))
    out = tmp_path / "war.json"
    cli.run("export", war_id, "--out", str(out))
    document = json.loads(out.read_text("utf-8"))
    document["records"][1]["revision"] = 7
    out.write_text(json.dumps(document), "utf-8")
    code, _, err = cli.run("import", str(out))
    assert code == 2 and "records" in err
    code, _, err = cli.run("show", "2")
    assert code == 2


def test_characters_save_list_export_import(cli: Cli, tmp_path: Path) -> None:
    saved = cli.json_in("character", "save", HERALD)
    assert saved["name"] == "Herald"
    listed = cli.json_in("character", "list")
    assert listed["characters"] == [{"id": saved["id"], "name": "Herald", "game": "majesty"}]
    out = tmp_path / "herald-record.json"
    code, _, err = cli.run_in("character", "export", str(saved["id"]), "--out", str(out))
    assert code == 0, err
    again = cli.json_in("character", "import", str(out))
    assert again["id"] != saved["id"]


def test_a_bad_character_is_refused_and_nothing_saved(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    document = json.loads(Path(HERALD).read_text("utf-8"))
    document["attributes"]["control"] = "lots"
    bad.write_text(json.dumps(document), "utf-8")
    code, _, err = cli.run_in("character", "save", str(bad))
    assert code == 2 and "attributes.control" in err
    assert cli.json_in("character", "list")["characters"] == []


# --- issue 13: the Host's command line ----------------------------------------------------------

STRIKE_DICE = "9,5,4,2,12,6,7"


def test_war_strike_prints_a_sentence_then_the_majesty_strike_breakdown(cli: Cli) -> None:
    war_id = str(started(cli))
    code, out, err = cli.run("strike", war_id, "Herald", "Warrior", "--dice", STRIKE_DICE)
    assert code == 0, err
    lines = out.splitlines()
    assert (
        lines[0] == "Herald Strikes Warrior with Sword: 1 uncanceled Hit(s); Warrior takes 7 WearE."
    )
    argv = ["tableside", "majesty", "strike", "--striker", HERALD, "--defender", WARRIOR, "--dice",
            STRIKE_DICE]  # fmt: skip
    cli.monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit):
        main()
    one_shot, err = cli.capsys.readouterr()
    flat = " ".join(out.split())  # the one-shot Strike wraps at 80 columns
    for line in one_shot.splitlines():
        if line.startswith(("Melee Strike", "Cost", "Adjusting", "Hits", "12 Effects", "Passion",
                            "WearE", "  %", "  minimum", "Defender", "Striker")):  # fmt: skip
            assert " ".join(line.split()) in flat, line
    assert lines.index("Melee Strike: Herald (Sword) → Fallen Warrior [ruleset standard]") == 1


def test_war_strike_adjust_makes_explicit_adjustments(cli: Cli) -> None:
    war_id = str(started(cli))
    done = cli.json("strike", war_id, "Herald", "Warrior", "--dice", STRIKE_DICE, "--mode",
                    "explicit", "--adjust", "defender:3+")  # fmt: skip
    command = done["record"]["command"]
    assert command["args"]["steps"] == [{"die": 2, "delta": 1, "side": "defender"}]
    result = done["record"]["events"][1]["data"]["result"]
    assert result["final"][2] == 5 and result["adjustments"][0]["by"] == "defender"
    code, _, err = cli.run("strike", war_id, "Herald", "Warrior", "--adjust", "3+")
    assert code == 2 and "--mode explicit" in err


def test_war_remove_takes_a_combatant_out(cli: Cli) -> None:
    war_id = str(started(cli))
    done = cli.json("remove", war_id, "Warrior")
    assert [c["id"] for c in done["state"]["combatants"]] == ["Herald"]
    code, _, err = cli.run("remove", war_id, "Nobody")
    assert code == 2 and "There is no combatant 'Nobody'" in err


def test_war_errors_say_a_list_is_too_long_plainly(cli: Cli) -> None:
    war_id = str(started(cli))
    code, _, err = cli.run("ready", war_id, "Herald", "--ap", "2", "--use", "a", "--use", "b",
                           "--use", "c")  # fmt: skip
    assert code == 2
    assert "uses: takes at most 2 items, not 3" in err
    assert "after validation" not in err


def test_m37_war_strike_with_grappled_and_the_grapplers_strike_breakdown(cli: Cli) -> None:
    war_id = str(started(cli))
    cli.json("effect", war_id, "Warrior", "grappled", "--by", "Herald")
    code, out, err = cli.run("strike", war_id, "Herald", "Warrior", "--two-ap", "--dice",
                             "9,9,10,5,5,5,5", "--mode", "none")  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Herald Strikes Warrior, whom it Grapples, with a Might Check: net")
    assert lines[1].startswith("Attribute Check: Factor")
    code, _, err = cli.run("strike", war_id, "Herald", "Warrior", "--with-grappled", "Warrior")
    assert code == 2 and "cannot Strike Warrior with Warrior" in err


LOADED = """
import sys
from tableside.cli.app import main
sys.argv = ["tableside", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = ("alembic", "numpy", "tableside.encounter.strife.fight", "tableside.cli.odds_cmds",
         "tableside.majesty.odds", "tableside.simulate")
print(sorted({m.split(".")[0] if m.startswith(("alembic", "numpy")) else m
              for m in sys.modules if m.startswith(heavy)}), file=sys.stderr)
"""


def test_a_war_command_imports_only_what_it_uses(cli: Cli) -> None:
    war_id = str(started(cli))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for args in (["--help"], ["war", "--help"], ["war", "show", war_id, "--db", cli.db]):
        done = subprocess.run([sys.executable, "-c", LOADED, *args], env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        assert done.stderr.strip().splitlines()[-1] == "[]", (args, done.stderr)


def test_war_effect_and_set_help_list_every_effect_and_field(cli: Cli) -> None:
    from typing import get_args

    from tableside.encounter.war.args import EffectName, HostField

    for command, names in (("effect", EffectName), ("set", HostField)):
        code, out, _ = cli.run_in("war", command, "--help")
        flat = " ".join(out.split())
        assert code == 0
        for name in get_args(names):
            assert f" {name}," in flat or f" {name}." in flat, (command, name)


def test_war_stance_full_dominion_and_ruleset_commands(cli: Cli) -> None:
    war_id = str(started(cli))
    cli.json("ruleset", war_id, "newer-full-stance")
    state = cli.json("stance", war_id, "Warrior", "--full")["state"]
    assert state["ruleset"] == "newer-full-stance"
    assert next(c for c in state["combatants"] if c["id"] == "Warrior")["full_stance"]
    state = cli.json("dominion", war_id, "Ward", "--at", "1,0,0", "--radius", "0.5")["state"]
    assert state["dominions"] == [{"id": "Ward", "center": [1.0, 0.0, 0.0], "radius": 0.5}]
    code, _, err = cli.run("strike", war_id, "Herald", "Warrior")
    assert code == 2 and "Dominion" in err
    code, out, _ = cli.run("show", war_id)
    assert "Full Defensive Stance" in out and "Ward at 1,0,0 radius 0.5" in out
    code, _, err = cli.run("ruleset", war_id, "house")
    assert code == 2 and "standard" in err


def test_the_lazy_command_listing_says_what_each_loaded_group_says() -> None:
    from importlib import import_module

    from tableside.cli.app import COMMANDS, GROUPS

    for name, (module, summary) in GROUPS.items():
        assert import_module(module).app.info.help == summary, name
    for name, (module, function, summary) in COMMANDS.items():
        doc = getattr(import_module(module), function).__doc__ or ""
        assert doc.splitlines()[0] == summary, name


def test_d13_war_strike_interpose_lets_an_eligible_elohim_take_the_strike(cli: Cli) -> None:
    """M-16, D-13: ``war strike --interpose Guard`` makes Guard's Control Check first."""
    war_id = str(int(cli.json("new", "Skirmish", "--seed", "9")["id"]))
    cli.json("add", war_id, "--character", HERALD, "--id", "Herald")
    cli.json("add", war_id, "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0")
    cli.json("add", war_id, "--character", WARRIOR, "--id", "Guard", "--at", "2,1,0")
    cli.json("next", war_id)
    cli.json("set", war_id, "Guard", "stance", "true")
    while cli.json("show", war_id)["current"] != "Herald":
        cli.json("next", war_id)
    done = cli.json("strike", war_id, "Herald", "Warrior", "--interpose", "Guard")
    events = done["record"]["events"]
    check = next(e for e in events if e["kind"] == "check_resolved")
    assert check["data"]["id"] == "Guard" and check["data"]["purpose"].startswith("interpose")
    note = next(e for e in events if e["kind"] == "note")
    struck = next(e for e in events if e["kind"] == "strike_resolved")["data"]["defender"]
    assert struck == ("Guard" if note["data"]["becomes_target"] else "Warrior")
    code, _out, err = cli.run("strike", war_id, "Herald", "Warrior", "--interpose", "Nobody")
    assert code == 2 and "Nobody" in err


def test_a42_war_barrier_is_raised_shown_and_ended(cli: Cli) -> None:
    """A-42: ``war barrier`` raises a Barrier the state and ``war show`` list; --off ends it."""
    war_id = str(started(cli))
    done = cli.json("barrier", war_id, "Ward", "--at", "6,0,0", "--radius", "1", "--resolve", "80")
    assert done["state"]["barriers"] == [
        {"id": "Ward", "center": [6.0, 0.0, 0.0], "radius": 1.0, "resolve": 80}
    ]
    code, out, _err = cli.run("show", war_id)
    assert code == 0 and "Barriers (Knock Back stops at them): Ward at 6,0,0" in out
    assert cli.json("barrier", war_id, "Ward", "--off")["state"]["barriers"] == []
