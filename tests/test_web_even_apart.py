"""Make it even, apart (issue 26, W-78): a served app's proposals play in its balance process.

``tableside serve`` (``apart=True``) plays every value of a "make it even" proposal (F-54) in
its balance process (W-76), one call a value taking turns with the balances' slices, so the
server never imports numba; while that process loads, a proposal is answered 503 with one
sentence and ``Retry-After``, and nothing is simulated.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_balance_apart import Loading, apart_app, served
from test_balance_ready import war
from test_web_setup import Host

from tableside.simulate import even
from tableside.simulate.sweep import _point

ASKED: dict[str, Any] = {"target": "holy=60%", "change": "Brute=1..2", "runs": 40}


class Here(Loading):
    """Stands for the balance process: it loads until released, then plays values here."""

    def __init__(self) -> None:
        super().__init__()
        self.points: list[int] = []

    def point(self, document: dict[str, Any], runs: int, seed: int | None) -> dict[str, Any]:
        self.points.append(runs)
        found: dict[str, Any] = _point(document, runs, seed, "fast", None, 1)
        return found


@pytest.fixture
def loading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Here]]:
    """A served app whose balance process is still loading."""
    stand_in = Here()
    with TestClient(apart_app(tmp_path, monkeypatch, stand_in)) as client:
        yield client, stand_in
        stand_in.release.set()


def propose(client: TestClient, host: Host, eid: int) -> Any:
    return client.post(f"/api/encounters/{eid}/even", json=ASKED,
                       headers={"Authorization": f"Bearer {host.token}"})  # fmt: skip


def proposed(client: TestClient, host: Host, eid: int) -> Any:
    """The proposal's answer, which must be 200 (the served app of the slow test asks it)."""
    r = propose(client, host, eid)
    assert r.status_code == 200, r.text
    return r.json()


def in_process(document: dict[str, Any]) -> dict[str, Any]:
    """The proposal as the CLI and the tests' apps make it, in this process."""
    target, change = even.parse_target(ASKED["target"]), even.parse_change(ASKED["change"])
    return even.make_even(document, target, change, ASKED["runs"])


def test_w78_a_proposal_waits_for_the_balance_process_then_plays_its_values_there(
    loading: tuple[TestClient, Here],
) -> None:
    """W-78: 503 with one sentence and Retry-After while it loads (nothing simulated); once it
    is ready, each value is one call there, taking turns at the balance thread (F-53)."""
    client, stand_in = loading
    host, eid = war(client)
    r = propose(client, host, eid)
    assert r.status_code == 503 and r.headers["retry-after"] == "15"
    assert r.json()["error"].startswith("The simulator's fast engines are still being loaded")
    assert stand_in.points == []
    stand_in.release.set()
    balances: Any = client.app.state.balances  # type: ignore[attr-defined]
    assert balances.warming.result(timeout=60) is None and balances.ready.is_set()
    r = propose(client, host, eid)
    assert r.status_code == 200, r.text
    assert stand_in.points == [40, 40] and [e for _, e in balances.trace] == [eid, eid]
    document = client.app.state.table.store.export_encounter(eid)  # type: ignore[attr-defined]
    found = r.json()
    assert {k: v for k, v in found.items() if k not in ("revision", "accept")} == in_process(
        document
    )
    assert balances.kept == {} and balances.running == {}  # a proposal is not a balance


@pytest.mark.slow
def test_w78_a_served_apps_proposal_leaves_numba_out_and_gives_the_same_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-78: the server (a process of its own here) never imports numba for a proposal; its
    values, played in the balance process, give the figures this process gives."""
    monkeypatch.delenv("TABLESIDE_CLUSTER", raising=False)
    monkeypatch.delenv("TABLESIDE_WARM", raising=False)
    told = served(tmp_path, "test_web_even_apart", "proposed")
    assert told["numba"] is False and told["apart"] is True
    found = told["found"]
    assert found["accept"] == {"change": ASKED["change"], "value": found["proposal"]}
    assert {k: v for k, v in found.items() if k not in ("revision", "accept")} == in_process(
        told["document"]
    )
