"""Where a sweep runs (issue 15, F-21): every local core by default, or an existing Dask
cluster given its address (the optional ``cluster`` extra), with the same report either way;
and sweeps of a Realm of Strife fight's sheet values (F-20)."""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, ClassVar

import pytest
from clirun import run_cli
from ports import free_port
from test_store_support import in_ci

from tableside.simulate import sweep as sweeps
from tableside.simulate.driver import simulate
from tableside.simulate.runs import SimulationError, load_start
from tableside.simulate.sweep import parse_sweep, run_sweep, with_value

WAR_FILE = Path(__file__).resolve().parents[1] / "examples" / "war_4v4.json"
FIGHT_FILE = WAR_FILE.parent / "strife_ambush.json"


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        *args: str) -> tuple[int, str, str]:  # fmt: skip
    return run_cli(capsys, monkeypatch, "simulate", *args)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A real local Dask cluster: a scheduler and two worker processes."""
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        if in_ci():
            pytest.fail("dask.distributed is missing, and CI must test --cluster (make setup).")
        pytest.skip("dask.distributed is not installed (pip install -e '.[cluster]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as running:  # fmt: skip
        yield running


def test_f21_a_sweep_on_a_dask_cluster_gives_the_local_report(
    cluster: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    address = cluster.scheduler_address
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "300", "--seed", "5",
                         "--sweep", "Brute.guard=3..5", "--cluster", address, "--json")  # fmt: skip
    assert code == 0, err
    remote = json.loads(out)
    # the values ran as tasks of the cluster's scheduler, on its worker processes
    assert "point" in cluster.scheduler.task_prefixes
    local = run_sweep(load(WAR_FILE), parse_sweep("Brute.guard=3..5"), 300, seed=5, workers=1)
    assert remote == local
    pooled = run_sweep(load(WAR_FILE), parse_sweep("Brute.guard=3..5"), 300, seed=5, workers=2)
    assert pooled == local


def test_f20_f21_a_realm_of_strife_sweep_on_the_cluster_equals_the_local_one(
    cluster: Any,
) -> None:
    sweep = parse_sweep("Troll.hp=10..11")
    remote = run_sweep(load(FIGHT_FILE), sweep, 12, seed=2, cluster=cluster.scheduler_address)
    assert remote == run_sweep(load(FIGHT_FILE), sweep, 12, seed=2, workers=1)
    assert remote["side"] == "monsters" and [p["value"] for p in remote["points"]] == [10, 11]


def test_f21_an_unreachable_cluster_is_refused_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{free_port()}"
    began = time.perf_counter()
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "10",
                         "--sweep", "Brute.guard=3..4", "--cluster", address)  # fmt: skip
    assert time.perf_counter() - began < 30
    assert (code, out) == (2, "")
    assert err == f"error: No Dask scheduler answered at {address!r} within 3 s.\n"
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--sweep", "Brute.guard=3..4",
                         "--cluster", "no address")  # fmt: skip
    assert (code, out) == (2, "")
    assert err.startswith("error: A cluster address is written tcp://HOST:PORT")
    assert err.count("\n") == 1


def test_f21_without_the_extra_cluster_is_refused_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    address = "tcp://127.0.0.1:8786"
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "10",
                         "--sweep", "Brute.guard=3..4", "--cluster", address)  # fmt: skip
    assert (code, out) == (2, "")
    assert err == (
        "error: --cluster needs dask.distributed: install the cluster extra "
        "(pip install 'tableside[cluster]').\n"
    )
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--cluster", "tcp://127.0.0.1:8786")
    assert (code, out, err) == (2, "", "error: --cluster runs a sweep; give --sweep too.\n")


class Recorder(Executor):
    """A stand-in for the process pool that records its size and runs in this process."""

    sizes: ClassVar[list[int]] = []

    def __init__(self, workers: int, mp_context: Any = None) -> None:
        Recorder.sizes.append(workers)

    def map(self, fn: Callable[..., Any], *iterables: Any, **_: Any) -> Iterator[Any]:
        return iter([fn(*args) for args in zip(*iterables, strict=True)])


def test_f21_by_default_a_sweep_uses_every_local_core(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    monkeypatch.setattr(sweeps, "ProcessPoolExecutor", Recorder)
    Recorder.sizes = []
    code, _out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "20",
                          "--sweep", "Brute.guard=3..5")  # fmt: skip
    assert code == 0, err
    assert Recorder.sizes == [3]  # three values at once on the three cores
    given: list[int] = []
    real = simulate

    def recorded(document: Any, runs: int, **options: Any) -> dict[str, Any]:
        given.append(options["workers"])
        return real(document, runs, **{**options, "workers": 1})

    # the sweep imports the driver when a point first runs (W-75): patched where it is looked up
    monkeypatch.setattr("tableside.simulate.driver.simulate", recorded)
    code, _out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "20",
                          "--sweep", "Brute.guard=3..4")  # fmt: skip
    assert code == 0, err
    assert Recorder.sizes == [3] and given == [3, 3]  # fewer values: each spreads on 3 cores


def test_f20_a_realm_of_strife_sheet_value_reaches_the_model() -> None:
    doc = load(FIGHT_FILE)
    state = load_start(with_value(doc, parse_sweep("Troll.ac=3..3"), 3)).state
    plain = load_start(doc).state
    assert state.models["Troll"].sheet.ac == 3 and plain.models["Troll"].sheet.ac != 3
    hp = load_start(with_value(doc, parse_sweep("Goblin-1.hp=20..20"), 20)).state
    assert hp.models["Goblin-1"].sheet.hp_max == 20 and hp.models["Goblin-1"].sheet.hp == 20
    agil = load_start(with_value(doc, parse_sweep("Sera.agil=15..15"), 15)).state
    assert agil.models["Sera"].sheet.stats.AGIL == 15
    assert state.models["Sera"] == plain.models["Sera"]
    assert doc == load(FIGHT_FILE)


def test_f20_a_strife_sweep_refuses_what_the_sheet_cannot_hold() -> None:
    doc = load(FIGHT_FILE)
    with pytest.raises(SimulationError, match="Cave Troll's ac cannot be 500: Input should be"):
        with_value(doc, parse_sweep("Troll.ac=500..500"), 500)
    with pytest.raises(SimulationError, match="of a Realm of Strife fight can set one of str"):
        with_value(doc, parse_sweep("Troll.guard=1..2"), 1)
    with pytest.raises(SimulationError, match="of a War can set one of might"):
        with_value(load(WAR_FILE), parse_sweep("Brute.ac=1..2"), 1)
