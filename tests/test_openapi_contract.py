"""W-51 (issue 22): the OpenAPI document is the contract, checked by schemathesis.

A real ``tableside serve --demo`` (SQLite) is started; schemathesis reads its ``/openapi.json``
and, as the demo table's Host (its bearer token), sends generated requests, valid and invalid
by the document, to every ``/api/`` route, with every check: no server error, every status and
header the document lists, every body of the declared type and schema, valid data accepted and
invalid data refused. Path ids are the demo table's and encounters' about half of the time (so
that bodies reach the rules), and generated the other half.

Two adjustments, each for a reason:
* the live stream (``…/stream``) never ends by design, so it is read by the other suites
  (tests/test_web_stream.py) rather than here; its entry in the document is still checked
  (an event-stream 200, refusals as JSON) by :func:`test_the_stream_is_documented`;
* a command valid in shape may still be refused by the rules (400 naming the rule, e.g. a
  Strike by a combatant not in the War): 400 counts as an accepted answer to valid data, which
  the document says (a command's description).

The number of examples per route is ``TABLESIDE_SCHEMATHESIS_EXAMPLES`` (default 11: about a minute
on a loaded two-core machine).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import requests
import schemathesis
from hostile import Server, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig

EXAMPLES = int(os.environ.get("TABLESIDE_SCHEMATHESIS_EXAMPLES", "11"))
HOST_TABLE = re.compile(r"Host table: \S+/tables/(\d+)\?token=(\S+)")


class Demo:
    """The served demo: its base URL, table, encounters and the Host's (current) token."""

    def __init__(self, server: Server) -> None:
        found = next(HOST_TABLE.search(line) for line in server.lines if HOST_TABLE.search(line))
        assert found is not None
        self.base = server.base
        self.table_id, self.token = int(found.group(1)), found.group(2)
        read = httpx.get(f"{self.base}/api/tables/{self.table_id}", headers=self.headers())
        self.encounters = [e["id"] for e in read.json()["encounters"]]
        self.seats = [s["id"] for s in read.json()["seats"]]

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    folder = tmp_path_factory.mktemp("contract")
    server = Server(["--demo", "--db", str(folder / "demo.db")], {}, folder / "serve.log")
    server.start()
    try:
        yield Demo(server)
    finally:
        server.stop()
        assert server.tracebacks() == 0, (folder / "serve.log").read_text()[-3000:]


CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "400", "401", "403", "404", "409", "429"]
            }
        },
        "generation": {"mode": "all"},
    }
)


@pytest.fixture(scope="module")
def api(demo: Demo) -> Any:
    schema = schemathesis.openapi.from_url(f"{demo.base}/openapi.json", config=CONFIG)
    return schema.include(path_regex="^/api/").exclude(path_regex="/stream$")


def aimed(case: Any, demo: Demo, aim: bool) -> None:
    """Point a case at the demo's real table, encounters and seats (when ``aim``)."""
    params = case.path_parameters or {}
    if not aim:
        return
    if "table_id" in params:
        params["table_id"] = demo.table_id
    if "encounter_id" in params:
        params["encounter_id"] = demo.encounters[len(repr(case.body)) % len(demo.encounters)]
    if "seat_id" in params and demo.seats:
        params["seat_id"] = demo.seats[-1]


def run_operation(operation: Any, mode: GenerationMode, demo: Demo, failures: list[str]) -> int:
    """Send ``EXAMPLES`` generated cases of one operation; return how many were sent."""
    sent = [0]

    @fuzz_settings(EXAMPLES)
    @given(case=operation.as_strategy(generation_mode=mode), aim=st.booleans())
    def check(case: Any, aim: bool) -> None:
        aimed(case, demo, aim and mode == GenerationMode.POSITIVE)  # negative cases kept so
        if case.headers and "Authorization" in case.headers:  # a token left out stays out
            case.headers["Authorization"] = demo.headers()["Authorization"]
        sent[0] += 1
        slow = case.formatted_path.endswith("/balance")  # simulates 2,000 Wars when first asked
        try:
            response = case.call(timeout=240 if slow else 30)
        except requests.RequestException as error:
            failures.append(f"{case.method} {case.formatted_path}: no answer ({error!r:.200})")
            return
        if response.status_code < 300 and "host_token" in response.text:
            answer = response.json()
            if answer.get("id") == demo.table_id:  # the Host rotated its own link: keep it
                demo.token = answer["host_token"]
        try:
            case.validate_response(response)
        except (AssertionError, BaseExceptionGroup) as failure:  # each failed check
            where = f"{case.method} {case.formatted_path} ({mode.value}) -> {response.status_code}"
            failures.append(f"{where}: {str(failure)[:600]}")

    check()
    return sent[0]


def test_w51_every_api_route_keeps_the_documented_contract(demo: Demo, api: Any) -> None:
    failures: list[str] = []
    sent = 0
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 30, [op.label for op in operations]
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            sent += run_operation(operation, mode, demo, failures)
    print(f"\nschemathesis: {len(operations)} operations, {sent} requests, "
          f"{len(failures)} failures")  # fmt: skip
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])


def test_the_stream_is_documented(demo: Demo) -> None:
    document = httpx.get(f"{demo.base}/openapi.json").json()
    stream = document["paths"]["/api/encounters/{encounter_id}/stream"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    refusal = stream["responses"]["429"]["content"]["application/json"]["schema"]
    assert refusal == {"$ref": "#/components/schemas/Refusal"}
    assert stream["security"] == [{"token": []}]
