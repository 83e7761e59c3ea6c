"""Ready at once, in a process of its own (issue 26, W-76): a served app's balances.

``tableside serve`` builds its app with ``apart=True``: every fast slice of a balance is played
in one balance process (``simulate/apart.py``), so the server never loads numba nor the kernels;
until that process has loaded them, the Balance panel is answered at once in the server on the
full engine (a first estimate, ``provisional``), and the balance is refined when it is ready.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from test_balance_ready import WAR_4V4 as WAR
from test_balance_ready import balance, war

from tableside.simulate import balance as simulated
from tableside.simulate.apart import Apart
from tableside.simulate.runs import SimulationError
from tableside.web import create_app


class Loading:
    """Stands for the balance process: it loads until released; fast slices are counted."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.slices: list[str] = []

    def warm(self) -> None:
        assert self.release.wait(60)

    def covered(self, document: dict[str, Any]) -> str | None:
        return None

    def play(self, document: dict[str, Any], count: int, seed: int, engine: str) -> dict[str, Any]:
        self.slices.append(engine)
        wins = {"holy": {"count": count}, "fallen": {"count": 0}}
        none = {"count": 0}
        return {"outcome": {"wins": wins, "draws": none, "unfinished": none},
                "engine": engine, "policy": "stand-in"}  # fmt: skip

    def close(self) -> None:
        self.release.set()


def apart_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in: Any) -> FastAPI:
    """A served app (``warm=True, apart=True``) whose balance process is ``stand_in``."""
    monkeypatch.setattr("tableside.web.balance.Apart", lambda: stand_in)
    monkeypatch.setattr("tableside.web.app.WARM_AFTER", 0.0)
    monkeypatch.setattr(simulated, "warmed", lambda: True)  # compiled at set-up
    monkeypatch.delenv("TABLESIDE_WARM", raising=False)
    monkeypatch.delenv("TABLESIDE_CLUSTER", raising=False)
    return create_app(f"sqlite:///{tmp_path / 'apart.db'}", warm=True, apart=True)


@pytest.fixture
def loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, Loading]]:
    """A served app whose balance process is still loading."""
    stand_in = Loading()
    with TestClient(apart_app(tmp_path, monkeypatch, stand_in)) as client:
        yield client, stand_in
        stand_in.release.set()


def test_w76_the_first_balance_is_answered_in_the_server_then_refined(
    loading: tuple[TestClient, Loading],
) -> None:
    """W-76: while the balance process loads, a first estimate on the full engine, asked again
    without a second simulation; once it is ready, the balance is played there and kept."""
    client, stand_in = loading
    host, eid = war(client)
    balances: Any = client.app.state.balances  # type: ignore[attr-defined]
    assert not balances.ready.is_set()  # set up, but the balance process has not loaded yet
    first = balance(client, host, eid)
    assert first["engine"] == "full" and first["runs"] == simulated.QUICK_RUNS
    assert first["provisional"] and first["fallback"] == simulated.LOADING
    assert "compiling" not in first and stand_in.slices == []  # nothing asked of the process
    assert balance(client, host, eid) == first and balances.quick == 1  # the page asks again
    stand_in.release.set()
    assert balances.warming.result(timeout=60) is None and balances.ready.is_set()
    refined = balance(client, host, eid)  # started when ready (refine), joined or read here
    assert refined["engine"] == "fast" and refined["policy"] == "stand-in"
    assert "provisional" not in refined and set(stand_in.slices) == {"fast"}
    assert balances.kept and balances.estimates == {}


SERVED = """
import json, os, sys
sys.path.insert(0, {tests!r})
from fastapi.testclient import TestClient
import tableside.web.app as served
from tableside.web import create_app
from {helper} import {name} as asked
from test_balance_ready import war
served.WARM_AFTER = 0.0
with TestClient(create_app({url!r}, warm=True, apart=True)) as client:
    host, eid = war(client)
    balances = client.app.state.balances
    assert balances.warming.result(timeout=240) is None
    found = asked(client, host, eid)
    document = client.app.state.table.store.export_encounter(eid)
    print(json.dumps({{"found": found, "document": document, "numba": "numba" in sys.modules,
                      "apart": balances.apart.pid not in (None, os.getpid())}}))
"""


def served(tmp_path: Path, helper: str, name: str) -> Any:
    """What a served app, in a process of its own, answered ``helper.name(client, host, eid)``
    on the War of ``war_4v4.json`` once warm; the document; whether numba was imported there."""
    tests = str(Path(__file__).parent)
    url = f"sqlite:///{tmp_path / 'served.db'}"
    code = SERVED.format(tests=tests, url=url, helper=helper, name=name)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_w76_a_served_apps_balance_process_gives_the_same_figures_and_holds_numba(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-76: the server (a process of its own here) never imports numba; its balance process
    plays the fast engines, with the figures this process gives for the same document."""
    monkeypatch.delenv("TABLESIDE_WARM", raising=False)
    told = served(tmp_path, "test_balance_ready", "balance")
    assert told["numba"] is False and told["apart"] is True
    here = simulated.encounter_balance(told["document"], simulated.BALANCE_RUNS)
    found = told["found"]
    assert found["engine"] == "fast" and "provisional" not in found
    assert {**found, "seconds": 0} == {"encounter": found["encounter"], **here, "seconds": 0}


class Broken:
    """Stands for the executor of a balance process that died (killed, out of memory)."""

    def submit(self, *_: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        return future


def test_w76_a_balance_process_that_died_answers_one_sentence_and_is_replaced() -> None:
    """W-76: the balance gets one sentence (a 422 on the web); the next call starts another."""
    apart = Apart()
    apart.pool = Broken()  # type: ignore[assignment]
    with pytest.raises(SimulationError, match=r"^The balance process stopped before it answered"):
        apart.play(WAR, 10, 0, "fast")
    assert apart.pool is None and apart.pid is None
    apart.close()  # nothing to end
