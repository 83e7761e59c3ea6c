"""Issue 27, Realm of Strife rules loose ends: the off hand without naming it (SA-92) …"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli_fight import Cli

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.strife_fight import StrifeFight
from tableside.encounter.strife_state import FightState
from tableside.errors import TablesideError
from tableside.strife.catalog import builtin_catalog

CATALOG = builtin_catalog()


def do(
    e: Encounter[FightState], kind: str, dice: tuple[int, ...] | None = None, /, **args: Any
) -> LogRecord:
    return e.execute(Command(kind, args, dice))


def duelist() -> dict[str, Any]:
    """A Duelist: a Long Sword in the main hand, a Dagger in the off hand, no Dual Wield."""
    kit = {"name": "Duelist", "shield": None, "off_hand": "Dagger"}
    sheet = CATALOG.combatant("Aldric").model_copy(
        update={**kit, "proficiencies": ("Swords", "Daggers")}
    )
    document: dict[str, Any] = sheet.model_dump(mode="json")
    return document


def duel() -> Encounter[FightState]:
    """The Duelist (first to act) in base contact with a troll (a Goblin's sheet)."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (10,), id="duel", sheet=duelist(), side="heroes", position=[0.0, 0.0, 0.0])
    do(e, "add", (2,), id="troll", model="Goblin", side="monsters", position=[1.0, 0.0, 0.0])
    do(e, "start")
    return e


def weapons_used(record: LogRecord) -> list[tuple[str, list[str]]]:
    """Each attack's weapon and the labels of its modifiers."""
    return [
        (ev.data["result"]["weapon"], [m["label"] for m in ev.data["result"]["modifiers"]])
        for ev in record.events
        if ev.kind == "attack_resolved"
    ]


# --- item 1: the off hand without naming it (SA-92) ----------------------------------------------


def test_sa92_the_second_attack_takes_the_off_hand_without_naming_it() -> None:
    """SA-92: main hand, then off hand, each Clumsy for dual wielding (no criticals, S-16)."""
    e = duel()
    record = do(e, "attack", (60, 3, 98, 2), attacker="duel", attacks=[{"defender": "troll"}] * 2)
    used = weapons_used(record)
    assert [w for w, _ in used] == ["Long Sword", "Dagger"]
    assert used[0][1] == ["Clumsy (dual wielding) −10 × size M"]
    assert used[1][1] == ["Clumsy (dual wielding) −10 × size S"]
    outcomes = [ev.data["result"]["outcome"] for ev in record.events
                if ev.kind == "attack_resolved"]  # fmt: skip
    assert outcomes == ["hit", "hit"]  # 98 is no critical when dual wielding is Clumsy


def test_sa92_a_named_weapon_leaves_the_other_hand_to_the_attack_that_names_none() -> None:
    """SA-92: naming the Dagger first, the unnamed attack takes the Long Sword."""
    e = duel()
    attacks = [{"defender": "troll", "weapon": "Dagger"}, {"defender": "troll"}]
    record = do(e, "attack", (60, 3, 20), attacker="duel", attacks=attacks)
    assert [w for w, _ in weapons_used(record)] == ["Dagger", "Long Sword"]


def test_sa92_a_third_attack_is_still_refused_sa46() -> None:
    """SA-92 keeps SA-46: two weapons held, two attacks; a third is refused, nothing applied."""
    e = duel()
    before = e.revision
    with pytest.raises(TablesideError, match=r"may make 2 attack\(s\).*not 3 \(SA-46\)"):
        do(e, "attack", attacker="duel", attacks=[{"defender": "troll"}] * 3)
    assert e.revision == before


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def cli_duel(cli: Cli, tmp_path: Path) -> str:
    """``tableside fight`` with the Duelist and a troll, the Duelist's Turn."""
    sheet = tmp_path / "duelist.json"
    sheet.write_text(json.dumps(duelist()), encoding="utf-8")
    fight = str(cli.json("fight", "new", "The duel", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "duel", "--sheet", str(sheet), "--side", "heroes",
             "--dice", "20")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "troll", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", fight)
    return fight


def test_sa92_cli_attack_twice_without_weapon_and_weapon_per_attack(
    cli: Cli, tmp_path: Path
) -> None:
    """SA-92: the issue's command is accepted; ``--weapon`` is one per attack, in order."""
    fight = cli_duel(cli, tmp_path)
    done = cli.json("fight", "attack", fight, "duel", "--target", "troll", "--target", "troll",
                    "--dice", "60 3 98 2")  # fmt: skip
    weapons = [ev["data"]["result"]["weapon"] for ev in done["record"]["events"]
               if ev["kind"] == "attack_resolved"]  # fmt: skip
    assert weapons == ["Long Sword", "Dagger"]
    code, _out, err = cli.run("fight", "attack", fight, "troll", "--target", "duel",
                              "--weapon", "Spear", "--weapon", "Spear")  # fmt: skip
    assert code == 2 and "--weapon is given 2 times for 1 --target(s)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
