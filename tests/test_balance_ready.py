"""Ready at once (issue 26, F-52): the kernels compile at set-up, never hold a balance.

``make setup`` runs ``tableside warm``, which compiles the fast engines' kernels into the user's
cache and leaves a marker; a served app whose machine has no marker compiles them in a process
of its own, and meanwhile answers the Balance panel at once on the full engine (at most
``QUICK_RUNS`` runs, not kept, ``fallback`` saying why). Compilation is stood in for by an event
the test releases: what is counted is which path answered, not how long it took.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_setup import Host

from tableside.simulate import balance as simulated
from tableside.web import create_app

EXAMPLES = Path(__file__).parent.parent / "examples"
WAR_4V4 = json.loads((EXAMPLES / "war_4v4.json").read_text())


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache folder of its own: no marker in it yet."""
    folder = tmp_path / "cache"
    monkeypatch.setattr("tableside.simulate.disk_cache.user_folder", lambda: folder)
    return folder


def test_f52_the_marker_is_left_by_the_warm_up_and_named_by_the_sources(cache: Path) -> None:
    """F-52: no marker in a new folder; ``mark_warmed`` (the end of ``warm``) leaves it there."""
    assert not simulated.warmed()
    simulated.mark_warmed()
    assert simulated.warmed() and simulated.warm_marker().parent == cache / "numba"
    assert simulated.warm_marker().name.startswith("warm-")


class Compiler:
    """Stands for the compiling process: it runs until released, and counts its starts."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0

    def __call__(self) -> None:
        self.started += 1
        assert self.release.wait(60)


@pytest.fixture
def compiling(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, Compiler, list[int]]]:
    """A served app (``warm=True``) on a machine whose kernels are not compiled yet."""
    compiler, warmed = stand_ins(monkeypatch)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'ready.db'}", warm=True)) as client:
        yield client, compiler, warmed
        compiler.release.set()


def stand_ins(monkeypatch: pytest.MonkeyPatch) -> tuple[Compiler, list[int]]:
    """The compiler and the warm-up stood in for (counted), the warm-up at once."""
    compiler = Compiler()
    warmed: list[int] = []
    monkeypatch.setattr("tableside.web.balance.compile_apart", compiler)
    monkeypatch.setattr(simulated, "warm", lambda: warmed.append(1))
    monkeypatch.setattr("tableside.web.app.WARM_AFTER", 0.0)
    monkeypatch.delenv("TABLESIDE_WARM", raising=False)
    return compiler, warmed


def war(client: TestClient) -> tuple[Host, int]:
    host = Host(client)
    eid = host.encounter("majesty-war")
    r = host.post(f"/tables/{host.tid}/encounters/{eid}/roster", {"document": json.dumps(WAR_4V4)})
    assert r.status_code == 303, r.text
    return host, eid


def balance(client: TestClient, host: Host, eid: int) -> Any:
    r = client.get(f"/api/encounters/{eid}/balance?runs=2000",
                   headers={"Authorization": f"Bearer {host.token}"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_f52_a_fresh_servers_balance_answers_on_the_full_engine_while_it_compiles(
    compiling: tuple[TestClient, Compiler, list[int]],
) -> None:
    """F-52: while the kernels compile, the Balance panel is answered at once without them."""
    client, compiler, warmed = compiling
    host, eid = war(client)
    balances: Any = client.app.state.balances  # type: ignore[attr-defined]
    began = time.process_time()  # CPU: steadier than the clock on a shared machine
    found = balance(client, host, eid)
    took = time.process_time() - began
    assert compiler.started == 1 and not compiler.release.is_set() and warmed == []
    assert found["engine"] == "full" and found["runs"] == simulated.QUICK_RUNS
    assert found["fallback"] == simulated.COMPILING and balances.quick == 1
    total = sum(s["count"] for s in found["sides"]) + found["draws"]["count"]
    assert total + found["unfinished"]["count"] == simulated.QUICK_RUNS
    assert took < 2.0, took  # the bound: 50 runs of this War take a fraction of it
    assert balances.kept == {}  # a first estimate is not kept: the fast answer replaces it
    compiler.release.set()
    assert balances.warming.result(timeout=60) is None
    assert warmed == [1] and balances.ready.is_set()  # then the warm-up loads what was compiled


def test_f52_a_machine_set_up_compiles_nothing_at_the_start(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F-52: with the marker (``make setup`` ran ``tableside warm``), no compiling process, and
    balances go to the fast engines from the start (they wait for numba's loading, if any)."""
    simulated.mark_warmed()
    compiler, _warmed = stand_ins(monkeypatch)
    loading = threading.Event()
    monkeypatch.setattr(simulated, "warm", lambda: loading.wait(60))
    with TestClient(create_app(f"sqlite:///{tmp_path / 'set.db'}", warm=True)) as client:
        balances: Any = client.app.state.balances  # type: ignore[attr-defined]
        assert balances.ready.is_set()  # while the warm-up still loads: no first estimates
        loading.set()
        client.app.state.warming.join(timeout=60)  # type: ignore[attr-defined]
    assert compiler.started == 0


# -- Fair balance (issue 26, F-53) ------------------------------------------------------------


def test_f53_a_balance_stops_once_each_sides_chance_is_within_1_5_points() -> None:
    """F-53: slices of 1,000 runs (8 combatants) until every side is known within ± 1.5."""
    assert simulated.slice_runs(8, "fast") == 1000
    found = simulated.encounter_balance(WAR_4V4, 10_000)
    assert found["runs"] < 10_000 and found["runs"] % 1000 == 0 and found["asked"] == 10_000
    assert found["slices"] == found["runs"] // 1000
    for side in found["sides"]:
        low, high = side["ci95"]
        assert (high - low) / 2 <= simulated.NARROW
    # one slice fewer was not enough: it stopped at the first slice that was
    fewer = simulated.encounter_balance(WAR_4V4, found["runs"] - 1000)
    assert any((s["ci95"][1] - s["ci95"][0]) / 2 > simulated.NARROW for s in fewer["sides"])
    again = simulated.encounter_balance(WAR_4V4, 10_000)
    assert {**again, "seconds": 0} == {**found, "seconds": 0}  # the same figures every time
    assert simulated.encounter_balance(WAR_4V4, 300)["runs"] == 300  # a cap is a cap


def test_f53_a_slice_is_the_same_work_whatever_the_roster() -> None:
    """F-53: a 100-combatant roster's slices are shorter, in proportion."""
    assert simulated.slice_runs(100, "fast") == 80 and simulated.slice_runs(8, "full") == 50
    assert simulated.slice_runs(100_000, "fast") == 1


class Slices:
    """Stands for :class:`Sliced`: a balance of ``document["slices"]`` slices, counted."""

    def __init__(self, document: dict[str, Any], *_: Any) -> None:
        self.left = int(document["slices"])

    @property
    def finished(self) -> bool:
        return self.left == 0

    def step(self) -> None:
        self.left -= 1

    def result(self) -> dict[str, Any]:
        return {"runs": 1}


def test_f53_tables_take_turns_so_a_huge_roster_holds_no_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """F-53: each table with balances under way runs a slice in turn (counts, not time)."""
    from tableside.web.balance import Balances

    monkeypatch.setattr("tableside.web.balance.Sliced", Slices)
    balances = Balances(Any)  # type: ignore[arg-type]  # its store is not read here
    gate = threading.Event()
    balances.pool.submit(gate.wait)  # everything below is queued before any slice runs
    huge = balances.submit(1, 10_000, {"records": [], "slices": 100}, table_id=1)
    other = balances.submit(2, 10_000, {"records": [], "slices": 100}, table_id=1)
    small = balances.submit(3, 2_000, {"records": [], "slices": 3}, table_id=2)
    gate.set()
    assert small.result(timeout=60) == {"encounter": 3, "runs": 1}
    trace = list(balances.trace)
    last = max(i for i, (table, _eid) in enumerate(trace) if table == 2)
    before = [eid for table, eid in trace[: last + 1] if table == 1]
    assert len(before) == 3 and before == [1, 2, 1]  # one slice of table 1 per slice of table 2
    assert huge.result(timeout=60) and other.result(timeout=60)
    assert [eid for _t, eid in balances.trace].count(1) == 100
