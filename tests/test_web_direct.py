"""SV-10: a plain request's endpoint is called directly; anything else goes to FastAPI's handler.

SV-11: the strict body parse walks only a body in which it met a non-finite number. SV-12:
FastAPI's OpenTelemetry bridge is off.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastapi.dependencies.utils
import fastapi.routing
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException

from tableside.encounter.roster import add_commands
from tableside.web import create_app, direct, strict
from tableside.web.guards import path_ids
from tableside.web.strict import StrictRequest


@dataclasses.dataclass
class War:
    client: TestClient
    eid: int
    host: dict[str, str]
    solved: list[str]  # the paths FastAPI's own handler solved, in order

    def command(self, body: Any, content_type: str = "application/json") -> Any:
        headers = {**self.host, "content-type": content_type}
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return self.client.post(
            f"/api/encounters/{self.eid}/commands", headers=headers, content=content
        )


@pytest.fixture
def war(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[War]:
    solved: list[str] = []
    original = fastapi.dependencies.utils.solve_dependencies

    async def counted(**kwargs: Any) -> Any:
        solved.append(kwargs["request"].url.path)
        return await original(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    app = create_app(f"sqlite:///{tmp_path / 'store.db'}")
    with TestClient(app) as client:
        made = client.post("/api/tables", json={"name": "Direct"}).json()
        host = {"Authorization": f"Bearer {made['host_token']}"}
        body = {"game": "majesty-war", "name": "Ford", "seed": 7}
        eid = client.post(f"/api/tables/{made['id']}/encounters", headers=host, json=body)
        found = War(client, eid.json()["id"], host, solved)
        for command in add_commands():
            assert found.command({"kind": command.kind, "args": command.args}).status_code == 200
        assert found.command({"kind": "next"}).status_code == 200
        solved.clear()
        yield found


def direct_routes(app: Any) -> set[str]:
    """The routes whose plain requests are taken directly."""
    taken = set()
    for route in app.routes:
        if isinstance(route, APIRoute):
            kept = [d for d in route.dependant.dependencies if d.call is not path_ids]
            dependant = dataclasses.replace(route.dependant, dependencies=kept)
            if direct._plain(dependant, route._embed_body_fields):
                taken |= {f"{method} {route.path}" for method in route.methods or ()}
    return taken


def test_the_hot_routes_are_taken_directly_and_a_route_with_a_query_is_not(
    tmp_path: Path,
) -> None:
    taken = direct_routes(create_app(f"sqlite:///{tmp_path / 'store.db'}"))
    for hot in (
        "GET /api/encounters/{encounter_id}",
        "POST /api/encounters/{encounter_id}/commands",
        "POST /api/encounters/{encounter_id}/decisions/{decision}",
        "POST /api/encounters/{encounter_id}/undo",
    ):
        assert hot in taken
    assert "GET /api/encounters/{encounter_id}/log" not in taken  # its query parameters
    assert "POST /api/encounters/{encounter_id}/odds" not in taken  # answers a dict


def test_a_plain_command_and_state_read_are_not_solved_by_fastapi(war: War) -> None:
    state = war.client.get(f"/api/encounters/{war.eid}", headers=war.host)
    assert state.status_code == 200
    current = state.json()["state"]["current"]
    answer = war.command({"kind": "stance", "args": {"id": current}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["record"]["events"][0]["kind"] == "stance_set"
    assert war.solved == []


def test_a_body_with_a_charset_goes_to_fastapis_handler_and_is_answered_alike(war: War) -> None:
    current = war.client.get(f"/api/encounters/{war.eid}", headers=war.host).json()["state"]
    body = {"kind": "stance", "args": {"id": current["current"]}, "revision": 1,
            "exact_revision": True}  # fmt: skip
    plain = war.command(body)  # a stale revision: 409, decided by the endpoint
    charset = war.command(body, "application/json; charset=utf-8")
    assert (plain.status_code, plain.json()) == (charset.status_code, charset.json())
    assert plain.status_code == 409
    assert war.solved == [f"/api/encounters/{war.eid}/commands"]  # the charset's only


@pytest.mark.parametrize(
    ("content", "status", "sentence", "solved"),
    [
        (b'{"kind": 5}', 422, "Bad request: field kind: Input should be a valid string (got 5).",
         1),
        (b'{"kind": "stance", "args": {"id": NaN}}', 400,
         "Bad request: 'stance' command: field id: NaN is not a finite JSON number; send a "
         "number.", 0),
        (b'{"kind": "stance",', 422, "The request body is not valid JSON.", 0),
        (b"", 422, "Bad request: the request body: Field required.", 1),
        (b'{"kind": "stance", "revision": "3"}', 422,
         "Bad request: field revision: Input should be a valid integer (got '3').", 1),
        (b'{"kind": "stance", "args": {"id": 3}}', 400,
         "stance command: field id: Input should be a valid string (got 3).", 0),
    ],
)  # fmt: skip
def test_a_refused_body_is_refused_as_before(
    war: War, content: bytes, status: int, sentence: str, solved: int
) -> None:
    refused = war.command(content)
    assert (refused.status_code, refused.json()) == (status, {"error": sentence})
    assert len(war.solved) == solved  # FastAPI's handler solved what the direct path did not


def test_a_body_whose_reading_failed_fails_again_with_the_same_exception() -> None:
    scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
    request = StrictRequest(scope)
    failure = RuntimeError("the client went away")
    request._body_error = failure  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError) as raised:
        asyncio.run(request.body())
    assert raised.value is failure


@pytest.mark.parametrize(
    "body",
    [
        b'{"kind": "strike", "args": {"striker": "Herald", "defender": "Warrior"}}',
        b'{"kind": "move", "args": {"id": "Herald", "to": [1.5, 2.0, 0]}, "revision": 3}',
        b'[1, 2.50, 1e3, -0.0, "1e999", {"a": [true, null]}]',
        b'\xef\xbb\xbf{"a": 1.0}',  # a byte order mark, read as json.loads reads bytes
        '{"a": 2.0}'.encode("utf-16"),
    ],
)
def test_strict_json_reads_a_finite_body_as_json_loads_with_its_hooks(body: bytes) -> None:
    # SV-11: the same values (and types) as json.loads with the hooks, without the walk
    expected = json.loads(body, parse_float=strict._number)
    assert strict.strict_json(body) == expected
    assert [type(v) for v in _leaves(strict.strict_json(body))] == [
        type(v) for v in _leaves(expected)
    ]


def _leaves(data: Any) -> list[Any]:
    if isinstance(data, dict):
        return [leaf for value in data.values() for leaf in _leaves(value)]
    if isinstance(data, list):
        return [leaf for value in data for leaf in _leaves(value)]
    return [data]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b'{"a": NaN}', "field a: NaN"),
        (b'{"kind": "x", "args": {"v": [1, -Infinity]}}', "'x' command: field v.1: -Infinity"),
        (b"1e999", "the request body: 1e999"),
        (b'{"a": 1e400, "b": 2}', "field a: 1e400"),
    ],
)
def test_strict_json_still_finds_every_non_finite_number(body: bytes, where: str) -> None:
    with pytest.raises(HTTPException) as refused:
        strict.strict_json(body)
    assert refused.value.status_code == 400
    assert refused.value.detail == (
        f"Bad request: {where} is not a finite JSON number; send a number."
    )


def test_a_non_finite_number_made_elsewhere_meanwhile_only_costs_a_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def meanwhile(text: str) -> Any:
        strict._NotFinite("NaN")  # another parse's, counted while this one runs
        return strict._number(text)

    decoder = json.JSONDecoder(parse_constant=strict._NotFinite, parse_float=meanwhile)
    monkeypatch.setattr(strict, "_DECODER", decoder)
    walked: list[Any] = []
    monkeypatch.setattr(strict, "_where_not_finite", lambda data: walked.append(data))
    assert strict.strict_json(b'{"a": [1.5, {"b": 2}]}') == {"a": [1.5, {"b": 2}]}
    assert walked == [{"a": [1.5, {"b": 2}]}]  # walked, found nothing: the same data


def test_fastapis_telemetry_bridge_is_off(tmp_path: Path) -> None:
    # SV-12: no provider is looked up for a request (FastAPI asks none when all three are off)
    app = create_app(f"sqlite:///{tmp_path / 'store.db'}")
    config = app._telemetry
    assert (config["tracing"], config["metrics"], config["logs"]) == (False, False, False)
