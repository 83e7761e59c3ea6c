"""Decisions on the command line (docs/decisions.md, D-1 … D-5): show, decide, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import Cli as FightCli

from tableside.store import Store, tables
from tableside.web.auth import token_hash


class Cli(FightCli):
    """The fight command line of ``test_cli_fight``, with the encounter's revision."""

    def revision(self, encounter: str) -> int:
        revision: int = self.json("fight", "show", encounter)["revision"]
        return revision


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def table_fight(cli: Cli) -> str:
    """A fight at a web table where Al plays Aldric; the Goblin (an NPC) acts first."""
    store = Store.open(f"sqlite:///{cli.db}")
    try:
        tid = tables.create_table(store, "Mill", token_hash("host-token"))
        tables.add_seat(store, tid, "Al", ("Aldric",), token_hash("al-token"))
        fight = str(tables.create_table_encounter(store, tid, "Ambush", "strife-combat", 5))
    finally:
        store.close()
    cli.json("fight", "add", fight, "--id", "Aldric", "--model", "Aldric", "--side", "heroes",
             "--dice", "10")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "12")  # fmt: skip
    cli.json("fight", "start", fight, "--ambush", "monsters")
    assert cli.json("fight", "show", fight)["current"] == "Goblin"
    return fight


def test_d1_a_hosts_attack_on_a_pc_waits_and_show_says_for_whom(cli: Cli) -> None:
    """D-1, D-4: the command line is the Host; Aldric's Reaction is asked of his player."""
    fight = table_fight(cli)
    waiting = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")
    assert waiting["record"]["kind"] == "request"
    (asked,) = waiting["pending"]
    assert (asked["kind"], asked["combatant"]) == ("reaction", "Aldric")
    assert asked["waiting_for"] == "Aldric's player (Al): how Aldric reacts"
    shown = cli.json("fight", "show", fight)
    assert [p["id"] for p in shown["pending"]] == [asked["id"]]
    code, out, _err = cli.run("fight", "show", fight)
    assert code == 0 and f"decision {asked['id']}: Aldric's player (Al)" in out


def test_d3_another_command_on_a_waiting_fight_exits_2_naming_who_it_waits_for(cli: Cli) -> None:
    """D-3: exit 2, one sentence, nothing written."""
    fight = table_fight(cli)
    cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")
    before = cli.revision(fight)
    code, _out, err = cli.run("fight", "next", fight)
    assert code == 2 and "waiting for Aldric's reaction" in err and "Traceback" not in err
    assert cli.revision(fight) == before


def test_d4_decide_answers_as_the_host_with_a_bare_word_or_json(cli: Cli) -> None:
    """D-4: ``fight decide`` answers by "cli"; CHOICE is a bare word or JSON."""
    fight = table_fight(cli)
    (asked,) = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")["pending"]
    values = [o["value"] for o in asked["options"]]
    assert "block" in values and None in values
    done = cli.json("fight", "decide", fight, asked["id"], "block")
    record = done["record"]
    assert record["data"]["answer"] == {"request": asked["id"], "value": "block", "by": "cli"}
    assert record["data"]["outcome"] == "resolved" and "pending" not in done
    assert record["command"]["args"]["attacks"][0]["reaction"] == "block"
    cli.json("fight", "undo", fight)  # the resolved attack
    redo = cli.json("fight", "redo", fight)
    assert redo["record"]["kind"] == "redo"
    cli.json("fight", "undo", fight)
    again = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")["pending"][0]
    assert (
        cli.json("fight", "decide", fight, again["id"], "null")["record"]["command"]["args"][
            "attacks"
        ][0]["reaction"]
        is None
    )


def test_d1_a_bad_decision_or_choice_exits_2_and_writes_nothing(cli: Cli) -> None:
    """D-1: an unknown decision, a value not on offer, or nothing waiting: exit 2."""
    fight = table_fight(cli)
    code, _out, err = cli.run("fight", "decide", fight, "0.0", "block")
    assert code == 2 and "waits for no decision" in err
    (asked,) = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")["pending"]
    before = cli.revision(fight)
    code, _out, err = cli.run("fight", "decide", fight, asked["id"], "dodge")
    assert code == 2 and "'dodge' is not one of the options" in err
    code, _out, err = cli.run("fight", "decide", fight, "99.0", "block")
    assert code == 2 and "no open decision '99.0'" in err
    assert cli.revision(fight) == before


def test_d3_undo_withdraws_the_waiting_command(cli: Cli) -> None:
    """D-3: ``fight undo`` withdraws it; the fight goes on."""
    fight = table_fight(cli)
    cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")
    undone = cli.json("fight", "undo", fight)
    assert undone["record"]["kind"] == "undo" and "pending" not in undone
    assert "pending" not in cli.json("fight", "show", fight)


def test_d4_an_encounter_of_no_table_keeps_the_commands_arguments(cli: Cli) -> None:
    """D-4: off any web table the command line's commands resolve at once, as before."""
    fight = str(cli.json("fight", "new", "Ambush", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Aldric", "--model", "Aldric", "--side", "heroes",
             "--dice", "10")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "12")  # fmt: skip
    cli.json("fight", "start", fight, "--ambush", "monsters")
    done = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric")
    assert done["record"]["kind"] == "command" and "pending" not in done


def test_d1_war_decide_takes_a_json_object(cli: Cli) -> None:
    """D-1: CHOICE as JSON reaches the decision as an object (a War's merged answer)."""
    from tableside.cli.decide_cmds import parse_choice

    assert parse_choice('{"mode": "best"}') == {"mode": "best"}
    assert parse_choice("null") is None and parse_choice("parry") == "parry"
    assert parse_choice("3") == 3
    code, out, _err = cli.run("war", "decide", "--help")
    assert code == 0 and "Answer a pending decision as the Host" in out
