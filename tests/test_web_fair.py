"""W-50 (issue 22): fair limits, strict numbers, plain headers. See docs/security.md.

In-process (TestClient) tests of each reading, on both backends where the store takes part;
the hostile suite (tests/test_hostile_web.py) checks the same against a real server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_web_limits import War, auth, refused, serving

from tableside.cli.serve_cmds import server_options
from tableside.web.auth import Principal
from tableside.web.guards import Rates, RateWindow, StreamSlots, TooManyError
from tableside.web.strict import COMMAND_MODELS, strict_json
from tableside.web_limits import ENV, Limits


def raw(client: TestClient, path: str, body: str, who: dict[str, str]) -> object:
    headers = {**who, "Content-Type": "application/json"}
    return client.post(path, content=body.encode(), headers=headers)


# --- strict numbers -----------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_w50_non_finite_numbers_are_refused_naming_the_field(literal: str) -> None:
    with pytest.raises(Exception) as caught:
        strict_json(f'{{"id": "a", "to": [0, {literal}, 0]}}'.encode())
    assert caught.value.status_code == 400  # type: ignore[attr-defined]
    assert "field to.1" in str(caught.value.detail)  # type: ignore[attr-defined]
    assert literal[:6] in str(caught.value.detail)  # type: ignore[attr-defined]


def test_w50_whole_numbers_written_with_a_fraction_are_integers() -> None:
    assert strict_json(b'{"a": 2.0, "b": 1e3, "c": 1.5, "d": [-0.0]}') == {
        "a": 2, "b": 1000, "c": 1.5, "d": [0]}  # fmt: skip


def test_w50_numbers_as_strings_are_refused_with_the_field_named(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        before = war.revision()
        for path, body, field, status in (
            (f"/api/tables/{war.tid}/encounters",
             {"game": "majesty-war", "name": "X", "seed": "7"}, "seed", 422),
            (f"/api/encounters/{war.eid}/commands", {"kind": "next", "revision": "3"},
             "revision", 422),
            (f"/api/encounters/{war.eid}/undo", {"revision": "3"}, "revision", 422),
            (f"/api/encounters/{war.eid}/commands",
             {"kind": "strike", "args": {"striker": "Herald", "defender": "Jackal", "boon": "1"}},
             "boon", 400),
            (f"/api/encounters/{war.eid}/commands",
             {"kind": "rest", "args": {"id": "Herald", "ap": 1.5}}, "ap", 400),
            (f"/api/encounters/{war.eid}/rolls", {"kind": "d12", "boon": True}, "boon", 422),
        ):  # fmt: skip
            refused(client.post(path, headers=war.host, json=body), status, field)
        r = client.put(f"/api/encounters/{war.eid}/settings", headers=war.host,
                       json={"decision_timeout": "10"})  # fmt: skip
        refused(r, 422, "decision_timeout")
        assert war.revision() == before
        assert client.put(f"/api/encounters/{war.eid}/settings", headers=war.host,
                          json={"decision_timeout": 10.0}).status_code == 200  # fmt: skip


def test_w50_move_cost_refuses_nan_alike_whatever_waits(url: str) -> None:
    with serving(url) as client:
        war = War(client)
        path = f"/api/encounters/{war.eid}/move-cost"
        for literal in ("NaN", "Infinity", "1e999"):
            r = raw(client, path, f'{{"id": "Herald", "to": [{literal}, 0, 0]}}', war.host)
            refused(r, 400, "field to.0")  # type: ignore[arg-type]
        refused(client.post(path, headers=war.host, json={"id": "Herald", "to": [1e6, 0, 0]}),
                422, "to.0")  # fmt: skip


def test_w50_the_contract_lists_every_engine_command() -> None:
    from tableside.encounter.strife.commands import HANDLERS
    from tableside.encounter.war.commands import HANDLERS as WAR_HANDLERS

    assert set(COMMAND_MODELS["majesty-war"]) == set(WAR_HANDLERS)
    assert set(COMMAND_MODELS["strife-combat"]) == set(HANDLERS)


# --- headers ------------------------------------------------------------------------------------


def test_w50_every_answer_says_nosniff(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 's.db'}", Limits(max_body_bytes=100)) as client:
        for r in (
            client.get("/"),
            client.get("/nowhere"),
            client.get("/api/tables/1"),
            client.post(
                "/api/tables", content=b"x" * 200, headers={"Content-Type": "application/json"}
            ),
            client.post("/api/tables", json={"name": "A"}),
        ):
            assert r.headers["x-content-type-options"] == "nosniff", (r.status_code, r.headers)
            assert "server" not in r.headers


def test_w50_serve_sends_no_banner_and_trusts_forwarded_for_only_from_its_proxies() -> None:
    assert server_options({}) == {"server_header": False, "proxy_headers": False}
    trusted = server_options({"TABLESIDE_TRUSTED_PROXIES": "10.0.0.1"})
    assert trusted == {"server_header": False, "proxy_headers": True,
                       "forwarded_allow_ips": "10.0.0.1"}  # fmt: skip


# --- fair limits --------------------------------------------------------------------------------


def test_w50_every_limit_has_its_variable_and_a_default_generous_for_play() -> None:
    limits = Limits()
    assert ENV["streams_per_address"] == "TABLESIDE_STREAMS_PER_ADDRESS"
    assert limits.commands_per_minute >= 300  # a fast group: a few commands a second
    assert Limits.from_env({"TABLESIDE_TABLE_CHAT_PER_MINUTE": "7"}).table_chat_per_minute == 7


def test_w50_streams_count_per_address_and_table_and_a_host_is_never_starved() -> None:
    slots = StreamSlots(per_token=8, in_all=3, per_address=4, per_table=2)
    taken = [slots.take("1:seat 1", "10.0.0.1", 1), slots.take("1:seat 2", "10.0.0.1", 1)]
    with pytest.raises(TooManyError, match="Table 1 already has 2"):
        slots.take("1:seat 3", "10.0.0.2", 1)
    taken.append(slots.take("2:seat 9", "10.0.0.2", 2))
    with pytest.raises(TooManyError, match="server already has 3"):
        slots.take("3:seat 7", "10.0.0.3", 3)
    taken += [slots.take("3:host", "10.0.0.3", 3, host=True) for _ in range(4)]  # its own
    with pytest.raises(TooManyError, match="address already has 4"):
        slots.take("3:host", "10.0.0.3", 3, host=True)
    for give_back in taken:
        give_back()
    assert slots.open() == 0


def test_w50_a_rate_refusal_says_when_to_try_again() -> None:
    clock = [100.0]
    rate = RateWindow(2, clock=lambda: clock[0], whose="a table")
    rate.take("1", "commands")
    clock[0] = 130.0
    rate.take("1", "commands")
    with pytest.raises(TooManyError, match="from a table; try again in 30 s") as caught:
        rate.take("1", "commands")
    assert caught.value.retry_after == 30


def test_w50_commands_are_limited_per_token_and_per_table_with_retry_after(url: str) -> None:
    limits = Limits(commands_per_minute=3, table_commands_per_minute=5)
    with serving(url) as client:
        war = War(client)  # its set-up (8 add commands) under the defaults; then the small ones
        war.table.rates = Rates(limits)
        answers = [war.command(war.host, "next").status_code for _ in range(4)]
        assert answers[:3] == [200, 200, 200] and answers[3] == 429
        r = war.command(war.host, "next")
        refused(r, 429, "at most 3 a minute from one seat (or Host)")
        assert r.headers["retry-after"].isdigit() and 1 <= int(r.headers["retry-after"]) <= 60
        assert war.command(war.holy, "stance", args={"id": "Herald"}).status_code in (200, 403)
        assert war.command(war.fallen, "next").status_code in (200, 403)
        r = war.command(war.fallen, "next")
        refused(r, 429, "from a table")
        r = client.post(f"/api/encounters/{war.eid}/undo", headers=war.holy, json={})
        assert r.status_code == 429  # undo counts too


def test_w50_chat_is_limited_per_table_however_many_seats_post(url: str) -> None:
    with serving(url, Limits(table_chat_per_minute=4)) as client:
        war = War(client)
        path = f"/api/encounters/{war.eid}/chat"
        posted = [client.post(path, headers=who, json={"text": "hi"}).status_code
                  for who in (war.host, war.holy, war.fallen, war.host)]  # fmt: skip
        assert posted == [201] * 4
        r = client.post(path, headers=war.holy, json={"text": "more"})
        refused(r, 429, "from a table")
        assert r.headers["retry-after"].isdigit()
        assert len(client.get(path, headers=war.host).json()["messages"]) == 4


def test_w50_seats_and_tables_are_limited_per_address(url: str) -> None:
    with serving(url, Limits(seats_per_minute=2, tables_per_hour=2)) as client:
        made = [client.post("/api/tables", json={"name": f"T{n}"}) for n in range(3)]
        assert [r.status_code for r in made] == [201, 201, 429]
        refused(made[2], 429, "at most 2 in 3600 s from one address")
        tid, host = made[0].json()["id"], auth(made[0].json()["host_token"])
        seats = [client.post(f"/api/tables/{tid}/players", headers=host, json={"name": f"S{n}"})
                 for n in range(3)]  # fmt: skip
        assert [r.status_code for r in seats] == [201, 201, 429]
        assert len(client.get(f"/api/tables/{tid}", headers=host).json()["seats"]) == 2


def test_w50_stream_slots_are_counted_by_holder_address_and_table(url: str) -> None:
    with serving(url, Limits(streams_per_address=1)) as client:
        war = War(client)
        who = war.table.principal(war.holy["Authorization"].split()[1])
        assert isinstance(who, Principal)
        give_back = war.table.streams.take("x", "testclient", war.tid)
        r = client.get(f"/api/encounters/{war.eid}/stream", headers=war.holy)
        refused(r, 429, "Your address already has 1 live streams")
        give_back()
        assert json.loads(r.text)["error"]
