"""The balance within about a second (issue 15, F-25): what a balance needs is computed once.

Strike tables are kept by what they depend on (``fast_war.table_key``), in the process and on
disk, so a changed roster's batch reuses every table of a Strike met before; a combatant's forms
are shared by every batch; a table computes one row per distinct Outcome; and a served app
warms the simulator on its balance thread when it starts (``TABLESIDE_WARM=off`` turns that off).
Computations are counted, not timed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.character import Attributes, Character, Side, WearKind
from tableside.majesty.strike import StrikeSetup
from tableside.service import game_for
from tableside.simulate import balance as simulated
from tableside.simulate import fast
from tableside.simulate import fast_laws as fl
from tableside.simulate.fast_war import Batch
from tableside.simulate.fast_war_start import form_character, strike_signature, table_key
from tableside.simulate.runs import load_start
from tableside.store.formats import encounter_document, parse_encounter
from tableside.web import create_app

EXAMPLES = Path(__file__).parent.parent / "examples"
WAR_4V4 = json.loads((EXAMPLES / "war_4v4.json").read_text())


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty disk cache, the process's tables forgotten (as in a fresh process)."""
    monkeypatch.setenv("TABLESIDE_CACHE", str(tmp_path))
    fl.strike_table.cache_clear()
    fast._KNOWN.clear()
    yield tmp_path
    fl.strike_table.cache_clear()
    fast._KNOWN.clear()


def without(document: dict[str, Any], who: str) -> dict[str, Any]:
    """The War after ``who`` is removed (a ``remove`` command appended, as the page does)."""
    doc, records = parse_encounter(document)
    encounter = Encounter.from_records(game_for(doc.game), doc.seed, records)
    encounter.execute(Command("remove", {"id": who}))
    return encounter_document(doc.name, doc.game, doc.seed, encounter.records)


def sword_against_axe() -> tuple[StrikeSetup, StrikeSetup]:
    """Two Strikes whose Defenders differ only in Wear that changes no Strike signature."""
    catalog = builtin_catalog()
    striker = Character("A", Attributes(42, 31, 30, 60, 40, 40), weapon="Sword")
    defender = Character("D", Attributes(56, 22, 40, 60, 40, 40), weapon="Axe", side=Side.FALLEN)
    worn = defender.take_wear(WearKind.E, 2)
    assert worn != defender and strike_signature(worn) == strike_signature(defender)
    weapons = catalog.weapon("Sword"), catalog.weapon("Axe")
    return StrikeSetup(striker, defender, *weapons), StrikeSetup(striker, worn, *weapons)


def test_f25_a_strike_with_the_same_signatures_is_computed_once(disk: Path) -> None:
    """F-25: setups that differ only in what the table does not read share one computation."""
    plain, worn = sword_against_axe()
    assert table_key(plain) == table_key(worn)
    before = fl.strike_table.computed
    first = fl.strike_table(plain, table_key(plain))
    second = fl.strike_table(worn, table_key(worn))
    assert fl.strike_table.computed == before + 1
    assert second.setup is worn and first.setup is plain  # each caller gets its own setup
    assert (first.rows == second.rows).all() and (first.weights == second.weights).all()
    fl.strike_table.cache_clear()  # a new process: the disk answers, nothing is computed
    loaded = fl.strike_table.loaded
    again = fl.strike_table(worn, table_key(worn))
    assert fl.strike_table.computed == before + 1 and fl.strike_table.loaded == loaded + 1
    assert (again.rows == first.rows).all() and (again.weights == first.weights).all()


def test_f25_a_changed_rosters_tables_come_from_the_disk_cache(disk: Path) -> None:
    """F-25: after a balance, the roster without Herald (a new process) computes few tables."""
    simulated.balance(WAR_4V4, 500, 1)
    fl.strike_table.cache_clear()
    fast._KNOWN.clear()
    computed, loaded = fl.strike_table.computed, fl.strike_table.loaded
    simulated.balance(without(WAR_4V4, "Herald"), 500, 2)
    new = fl.strike_table.computed - computed
    read = fl.strike_table.loaded - loaded
    # Before F-25 a table was named by the whole setup, its characters' Wear and all: the
    # changed roster computed about 9 in 10 of its tables again.
    assert read > 0 and new * 4 < new + read, (new, read)


def test_f25_a_kept_combatants_forms_are_shared_by_a_changed_rosters_batch(disk: Path) -> None:
    """F-25: a form's Character (and its derived values) is built once per process."""
    first = Batch(load_start(WAR_4V4).state, 2)
    second = Batch(load_start(without(WAR_4V4, "Herald")).state, 2)
    kept = [who for who in second.roster.ids if who in first.roster.ids]
    assert kept and len(kept) == len(second.roster.ids)
    for who in kept:
        a = first.forms.character[int(first.form[0, first.roster.ids.index(who)])]
        b = second.forms.character[int(second.form[0, second.roster.ids.index(who)])]
        assert a is b
    base = first.forms.characters[0]
    assert form_character(base, base.wear, 0, False) is form_character(base, base.wear, 0, False)


def test_f25_a_table_computes_one_row_per_distinct_outcome(
    disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F-25: classes of rolls with the same Outcome share one call of the engine's functions."""
    plain, _ = sword_against_axe()
    calls: list[Any] = []
    real = fl.outcome_row

    def counted(setup: StrikeSetup, force: Any, outcome: Any) -> list[int]:
        calls.append(outcome)
        return real(setup, force, outcome)

    monkeypatch.setattr(fl, "outcome_row", counted)
    table = fl._strike_table(plain)
    assert len(calls) == len(set(calls))  # never the same Outcome twice
    assert table.weights.sum() == table.total and len(np.unique(table.rows, axis=0)) == len(
        table.rows
    )


def test_f25_f52_a_served_app_warms_the_simulator_on_a_thread_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F-25, F-52: ``create_app(warm=True)`` (``tableside serve``) warms on its warm thread."""
    threads: list[str] = []
    real = simulated.warm

    def spied() -> list[dict[str, Any]]:
        threads.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(simulated, "warm", spied)
    monkeypatch.setattr(simulated, "warmed", lambda: True)  # compiled at set-up (F-52)
    monkeypatch.setattr("tableside.web.app.WARM_AFTER", 0.0)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'warm.db'}", warm=True)) as client:
        client.app.state.warming.join(timeout=300)  # type: ignore[attr-defined]
        balances = client.app.state.balances  # type: ignore[attr-defined]
        assert balances.warming is not None and balances.warming.done()
    assert threads == ["tableside-warm"]


@pytest.mark.parametrize("setting", ["off", None])
def test_f25_no_warm_up_when_turned_off_or_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str | None
) -> None:
    """F-25: ``TABLESIDE_WARM=off`` turns it off; an app not served (tests) does not warm."""
    calls: list[int] = []
    monkeypatch.setattr(simulated, "warm", lambda: calls.append(1))
    monkeypatch.setattr("tableside.web.app.WARM_AFTER", 0.0)
    if setting is not None:
        monkeypatch.setenv("TABLESIDE_WARM", setting)
    served = setting is not None
    with TestClient(create_app(f"sqlite:///{tmp_path / 'cold.db'}", warm=served)) as client:
        client.app.state.warming.join(timeout=300)  # type: ignore[attr-defined]
        assert client.app.state.balances.warming is None  # type: ignore[attr-defined]
    assert calls == []


def test_f25_the_warm_up_plays_a_war_and_a_fight_on_the_fast_engines() -> None:
    """F-25: the warm-up War and fight are simulable and played by the fast engines."""
    war, fight = simulated.warm()
    for found in (war, fight):
        assert found["engine"] == "fast" and found["runs"] == simulated.WARM_RUNS
    assert {s["side"] for s in war["sides"]} == {"holy", "fallen"}
    assert {s["side"] for s in fight["sides"]} == {"heroes", "monsters"}
