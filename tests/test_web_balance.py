"""The set-up page's Balance (issue 15, F-7): GET /api/encounters/{eid}/balance, the Host only,
seeded from the encounter's seed and revision, the same figures as ``--balance`` (F-6)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_setup import Host, client

from tableside.cli.balance import balance_lines as cli_lines
from tableside.simulate.balance import balance_lines, balance_seed
from tableside.web import create_app

__all__ = ["client"]  # the fixture (test_web_setup's), on both backends

EXAMPLES = Path(__file__).parent.parent / "examples"
WAR_4V4 = json.loads((EXAMPLES / "war_4v4.json").read_text())
AMBUSH = json.loads((EXAMPLES / "strife_ambush.json").read_text())


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def loaded(host: Host, game: str, document: dict[str, Any]) -> int:
    eid = host.encounter(game)
    r = host.post(f"/tables/{host.tid}/encounters/{eid}/roster", {"document": json.dumps(document)})
    assert r.status_code == 303, r.text
    return eid


def balance(client: TestClient, host: Host, eid: int, runs: str = "300") -> Any:
    return client.get(f"/api/encounters/{eid}/balance?runs={runs}", headers=auth(host.token))


def test_f7_host_gets_each_sides_chance_with_its_interval(client: TestClient) -> None:
    host = Host(client)
    eid = loaded(host, "majesty-war", WAR_4V4)
    r = balance(client, host, eid)
    assert r.status_code == 200, r.text
    found = r.json()
    assert found["runs"] == 300 and found["engine"] == "fast" and found["seconds"] >= 0
    assert found["seed"] == balance_seed(7, found["revision"]) and found["revision"] > 0
    total = sum(s["count"] for s in found["sides"]) + found["draws"]["count"]
    assert total + found["unfinished"]["count"] == 300
    assert {s["side"] for s in found["sides"]} == {"holy", "fallen"}
    for side in found["sides"]:
        low, high = side["ci95"]
        assert 0 <= low <= side["p"] <= high <= 1
    assert balance(client, host, eid).json()["sides"] == found["sides"]  # deterministic


def test_f7_a_change_to_the_roster_draws_new_dice(client: TestClient) -> None:
    host = Host(client)
    eid = loaded(host, "majesty-war", WAR_4V4)
    before = balance(client, host, eid).json()
    removed = host.post(f"/tables/{host.tid}/encounters/{eid}/remove", {"combatant": "Herald"})
    assert removed.status_code == 303, removed.text
    after = balance(client, host, eid).json()
    assert after["revision"] == before["revision"] + 1 and after["seed"] == before["seed"] + 1


def test_f7_the_figures_are_the_clis_for_the_same_encounter(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with TestClient(create_app(f"sqlite:///{db}")) as client:
        host = Host(client)
        eid = loaded(host, "majesty-war", WAR_4V4)
        found = balance(client, host, eid, "500").json()
    assert balance_lines(found) == cli_lines(str(db), eid, 500)


def test_f7_f10_a_realm_of_strife_fight_uses_the_fast_engine(client: TestClient) -> None:
    host = Host(client)
    eid = loaded(host, "strife-combat", AMBUSH)
    found = balance(client, host, eid, "20").json()
    assert found["engine"] == "fast" and found["policy"] == "strife" and found["runs"] == 20
    assert abs(sum(s["p"] for s in found["sides"]) + found["draws"]["p"]
               + found["unfinished"]["p"] - 1) < 1e-9  # fmt: skip


def test_f7_a_player_is_refused_the_balance_it_reads_secret_values(client: TestClient) -> None:
    host = Host(client)
    eid = loaded(host, "majesty-war", WAR_4V4)
    body = {"name": "Ann", "characters": ["Herald"]}
    seat = client.post(f"/api/tables/{host.tid}/players", headers=auth(host.token), json=body)
    r = client.get(f"/api/encounters/{eid}/balance", headers=auth(seat.json()["token"]))
    assert r.status_code == 403 and r.json()["error"].startswith("Only the Host may see the bal")


@pytest.mark.parametrize("runs", ["0", "abc", "10001", "-5", "2.5", "99999999999"])
def test_f7_bad_runs_are_refused_in_one_sentence(client: TestClient, runs: str) -> None:
    host = Host(client)
    eid = loaded(host, "majesty-war", WAR_4V4)
    r = balance(client, host, eid, runs)
    assert r.status_code == 400
    assert r.json() == {"error": "The number of runs must be a whole number from 1 to 10,000, "
                        f"got {runs!r}."}  # fmt: skip


def test_f7_one_side_only_answers_a_sentence(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war")
    r = balance(client, host, eid)
    assert r.status_code == 422
    assert "needs combatants on two sides" in r.json()["error"]


def test_f7_the_setup_page_has_the_balance_panel_and_its_script(client: TestClient) -> None:
    host = Host(client)
    war, fight = host.encounter("majesty-war"), host.encounter("strife-combat", "Ambush")
    page = host.get(f"/tables/{host.tid}/encounters/{war}/setup").text
    assert f'data-balance="/api/encounters/{war}/balance?runs=10000"' in page
    assert re.search(r'<script src="/static/balance\.[0-9a-f]+\.js"', page)  # its script (W-73)
    page = host.get(f"/tables/{host.tid}/encounters/{fight}/setup").text
    assert f'data-balance="/api/encounters/{fight}/balance?runs=10000"' in page  # F-24


def test_f24_the_page_asks_the_full_engine_for_200_runs_and_says_why(client: TestClient) -> None:
    """F-24: a War the fast engine does not cover (a removed combatant still in the War
    Scroll; a Dominion until F-65) is balanced on 200 full runs."""
    host = Host(client)
    eid = loaded(host, "majesty-war", WAR_4V4)
    for command in ({"kind": "next", "args": {}}, {"kind": "remove", "args": {"id": "Jackal"}}):
        r = client.post(f"/api/encounters/{eid}/commands", headers=auth(host.token), json=command)
        assert r.status_code == 200, r.text
    found = balance(client, host, eid, "2000").json()
    assert found["runs"] == 200 and found["engine"] == "full", found
    assert "a removed combatant still in the War Scroll" in found["fallback"]
    total = sum(s["count"] for s in found["sides"]) + found["draws"]["count"]
    assert total + found["unfinished"]["count"] == 200
    fast = balance(client, host, loaded(host, "majesty-war", WAR_4V4), "2000").json()
    assert fast["runs"] == 2000 and fast["engine"] == "fast" and "fallback" not in fast


def settled(balances: Any) -> None:
    """Wait until the balance thread has done everything queued so far (it runs jobs in order)."""
    for _ in range(1000):  # an early start queues its first slice behind itself (F-23, F-53)
        balances.pool.submit(lambda: None).result(timeout=300)
        if not balances.tables:
            return


def test_f23_a_watched_encounters_balance_starts_when_the_roster_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'early.db'}")) as client:
        balances = client.app.state.balances  # type: ignore[attr-defined]
        host = Host(client)
        eid = loaded(host, "majesty-war", WAR_4V4)
        settled(balances)
        assert balances.started == 0  # nobody asked this encounter's balance yet
        first = balance(client, host, eid).json()
        removed = host.post(f"/tables/{host.tid}/encounters/{eid}/remove", {"combatant": "Herald"})
        assert removed.status_code == 303, removed.text
        settled(balances)
        key = (eid, first["revision"] + 1, 300)
        assert balances.started == 1 and key in balances.kept  # simulated before it was asked
        early = balances.kept[key]

        def refused(*_: Any) -> Any:
            raise AssertionError("the balance was simulated again")

        with monkeypatch.context() as patched:
            patched.setattr("tableside.web.balance.Sliced", refused)
            assert balance(client, host, eid).json() == early  # the page's request reads it
        assert early["revision"] == first["revision"] + 1 and early["seed"] == first["seed"] + 1
        # a command that does not change who fights starts nothing
        headers = auth(host.token)
        r = client.post(f"/api/encounters/{eid}/commands", headers=headers,
                        json={"kind": "next", "args": {}})  # fmt: skip
        assert r.status_code == 200, r.text
        settled(balances)
        assert balances.started == 1
