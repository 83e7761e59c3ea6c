"""``tableside table characters …`` and ``tableside table export|import`` (issue 25, CH-17).

The same store as the web table: a character added on the command line is the table's roster
character; a bad sheet or file exits 2 with one sentence and writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import Cli

from tableside.store import Store, roster, tables

EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "table.db", capsys, monkeypatch)


def test_ch17_the_roster_and_the_table_file_on_the_command_line(cli: Cli, tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{cli.db}") as store:
        tid = tables.create_table(store, "Friday", "ab" * 32)
        seat = tables.add_seat(store, tid, "Ann", (), "cd" * 32).id
    knight, herald = str(EXAMPLES / "strife_knight.json"), str(EXAMPLES / "herald.json")
    one = cli.json("table", "characters", "add", knight, "--table", str(tid), "--game",
                   "strife", "--owner", str(seat))["id"]  # fmt: skip
    two = cli.json("table", "characters", "add", herald, "--table", str(tid), "--game",
                   "majesty-war")["id"]  # fmt: skip
    listed = cli.json("table", "characters", "list", "--table", str(tid))["characters"]
    assert [(c["name"], c["owner"]) for c in listed] == [("Brannoc", seat), ("Herald", None)]
    code, out, _ = cli.run("table", "characters", "show", str(one))
    assert code == 0 and "HP         32 / 32" in out and "Vigor      10 / 10" in out
    cli.json("table", "characters", "rest", str(two))
    edited = cli.json("table", "characters", "edit", str(one), "--host")
    assert edited["owner"] is None
    # One character's file, and the whole table's, round-trip.
    single = tmp_path / "brannoc.json"
    cli.run("table", "characters", "export", str(one), "--out", str(single))
    again = cli.json("table", "characters", "import", str(single), "--table", str(tid))["id"]
    assert again > two
    whole = tmp_path / "table.json"
    cli.run("table", "export", str(tid), "--out", str(whole))
    assert "cd" * 32 not in whole.read_text()
    made = cli.json("table", "import", str(whole))
    with Store.open(f"sqlite:///{cli.db}") as store:
        names = [c.name for c in roster.characters(store, made["id"])]
        assert names == ["Brannoc", "Herald", "Brannoc"]
        assert [s.name for s in tables.seats(store, made["id"])] == ["Ann"]


def refused_in_one_sentence(cli: Cli, cases: list[tuple[tuple[str, ...], str]]) -> None:
    """Each command exits 2 with one sentence holding its words, and no traceback."""
    for args, words in cases:
        code, out, err = cli.run(*args)
        assert code == 2, (args, out, err)
        assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_ch1_bad_input_exits_2_with_one_sentence_and_writes_nothing(
    cli: Cli, tmp_path: Path
) -> None:
    with Store.open(f"sqlite:///{cli.db}") as store:
        tid = tables.create_table(store, "Friday", "ab" * 32)
    bad = tmp_path / "bad.json"
    sheet = json.loads((EXAMPLES / "strife_knight.json").read_text())
    bad.write_text(json.dumps({**sheet, "hp_max": 0}))
    cases = [
        (("table", "characters", "add", str(bad), "--table", str(tid), "--game", "strife"),
         "hp_max"),
        (("table", "characters", "add", str(bad), "--table", str(tid), "--game", "chess"),
         "majesty-war or strife-combat"),
        (("table", "characters", "show", "99"), "no roster character with id 99"),
        (("table", "characters", "list", "--table", "42"), "no table with id 42"),
        (("table", "import", str(bad)), "Table file"),
    ]  # fmt: skip
    refused_in_one_sentence(cli, cases)
    with Store.open(f"sqlite:///{cli.db}") as store:
        assert roster.characters(store, tid) == []
        assert tables.tables_named(store, "Friday") == (tid,)


def test_ch2_ch9_join_an_encounter_and_carry_over_on_the_command_line(
    cli: Cli, tmp_path: Path
) -> None:
    """CH-2: ``characters join`` binds a roster character; CH-9: ``carry-over`` only shows
    the proposal, and applies it with ``--apply``; bad input exits 2 with one sentence."""
    from tableside.encounter.log import Command
    from tableside.service import run_command

    with Store.open(f"sqlite:///{cli.db}") as store:
        tid = tables.create_table(store, "Friday", "ab" * 32)
        eid = tables.create_table_encounter(store, tid, "Mill", "strife-combat", 7)
        other = tables.create_table(store, "Other", "cd" * 32)
    knight = str(EXAMPLES / "strife_knight.json")
    cid = cli.json("table", "characters", "add", knight, "--table", str(tid), "--game",
                   "strife")["id"]  # fmt: skip
    joined = cli.json("table", "characters", "join", str(eid), str(cid), "--side", "heroes")
    assert joined["combatant"] == "Brannoc"
    code, out, err = cli.run("table", "carry-over", str(eid))
    assert code == 2 and "has not ended" in err and len(err.strip().splitlines()) == 1
    goblin = {**json.loads(Path(knight).read_text()), "name": "Goblin", "resources": {}}
    with Store.open(f"sqlite:///{cli.db}") as store:
        assert roster.bindings(store, eid)["Brannoc"].character_id == cid
        for kind, given in (
            ("add", {"id": "Goblin", "sheet": goblin, "side": "monsters", "position": [30, 0, 0]}),
            ("start", {}),
            ("host_set", {"id": "Brannoc", "field": "hp", "value": 20}),
            ("host_set", {"id": "Goblin", "field": "hp", "value": 0}),
        ):
            run_command(store, eid, Command(kind, given))
    code, out, _ = cli.run("table", "carry-over", str(eid))
    assert code == 0 and "HP 32 → 20" in out and "--apply" in out
    assert cli.json("table", "characters", "show", str(cid))["sheet"]["hp"] == 32  # not yet
    applied = cli.json("table", "carry-over", str(eid), "--apply")["applied"]
    assert [a["name"] for a in applied] == ["Brannoc"]
    assert cli.json("table", "characters", "show", str(cid))["sheet"]["hp"] == 20
    assert cli.json("table", "carry-over", str(eid))["proposed"] == []  # carried once
    cases = [
        (("table", "characters", "join", str(eid), str(cid)), "already has a combatant"),
        (("table", "characters", "join", str(eid), "99"), "no roster character with id 99"),
        (("table", "characters", "join", str(eid), str(cid), "--id", "Bran", "--at", "1,x"),
         "--at must be"),
        (("table", "carry-over", "99"), "99"),
    ]  # fmt: skip
    refused_in_one_sentence(cli, cases)
    with Store.open(f"sqlite:///{cli.db}") as store:
        elsewhere = tables.create_table_encounter(store, other, "Far", "strife-combat", 1)
        assert list(roster.bindings(store, eid)) == ["Brannoc"]
    code, _, err = cli.run("table", "characters", "join", str(elsewhere), str(cid))
    assert code == 2 and "another table" in err
