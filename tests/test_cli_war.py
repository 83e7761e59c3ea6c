"""``tableside war``: a stored War from the command line, with undo, log, export and import."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tableside.cli.app import main

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")


class Cli:
    def __init__(
        self, db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.db, self.capsys, self.monkeypatch = str(db), capsys, monkeypatch

    def run(self, *args: str) -> tuple[int, str, str]:
        return self.run_in("war", *args)

    def json_in(self, *args: str) -> dict[str, Any]:
        code, out, err = self.run_in(*args, "--json")
        assert code == 0, err
        data: dict[str, Any] = json.loads(out)
        return data

    def run_in(self, *args: str) -> tuple[int, str, str]:
        argv = ["tableside", *args, "--db", self.db]
        self.monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit) as exit_info:
            main()
        out, err = self.capsys.readouterr()
        code = exit_info.value.code
        return (code if isinstance(code, int) else 0), out, err

    def json(self, *args: str) -> dict[str, Any]:
        code, out, err = self.run(*args, "--json")
        assert code == 0, err
        data: dict[str, Any] = json.loads(out)
        return data


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "war.db", capsys, monkeypatch)


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
