"""``--balance`` after ``war add`` / ``fight add`` (issue 15, F-6): each side's chance to win."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import run_cli

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path,
        *args: str) -> tuple[int, str, str]:  # fmt: skip
    return run_cli(capsys, monkeypatch, *args, "--db", str(db))


def test_f6_war_add_balance_prints_each_sides_chance(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    db = tmp_path / "war.db"
    assert run(monkeypatch, capsys, db, "war", "new", "Duel", "--seed", "4")[0] == 0
    code, out, _ = run(monkeypatch, capsys, db, "war", "add", "1", "--character", HERALD,
                       "--id", "Herald", "--balance")  # fmt: skip
    assert code == 0 and "balance: The encounter 'Duel' needs combatants on two sides" in out
    warrior = ("--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0")
    code, out, _ = run(monkeypatch, capsys, db, "war", "add", "1", *warrior, "--balance",
                       "--balance-runs", "300")  # fmt: skip
    assert code == 0 and "balance (300 runs, fast engine, policy war+rest):" in out
    assert "holy wins" in out and "fallen wins" in out
    code, out, err = run(monkeypatch, capsys, db, "war", "add", "1", "--character", HERALD, "--id",
                         "Herald2", "--balance", "--balance-runs", "50", "--json")  # fmt: skip
    assert code == 0 and out.startswith("{") and "balance (50 runs" in err


def test_f6_f10_fight_add_balance_uses_the_fast_strife_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    db = tmp_path / "fight.db"
    assert run(monkeypatch, capsys, db, "fight", "new", "Brawl", "--seed", "2")[0] == 0
    run(monkeypatch, capsys, db, "fight", "add", "1", "--id", "Aldric", "--model", "Aldric",
        "--side", "heroes")  # fmt: skip
    code, out, err = run(monkeypatch, capsys, db, "fight", "add", "1", "--id", "Goblin", "--model",
                         "Goblin", "--side", "monsters", "--at", "1,0,0", "--balance",
                         "--balance-runs", "40")  # fmt: skip
    assert code == 0, err
    assert "balance (40 runs, fast engine, policy strife):" in out and "heroes wins" in out
