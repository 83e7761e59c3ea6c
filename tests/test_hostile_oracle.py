"""A hostile player probes for a secret with commands and answers: 0 differences (W-52, W-16).

Each probe is played twice, against two tables alike but for one value secret to the player,
and the player's responses are compared: the status, the refusal's sentence, the kind of record
written and the keys of its data, and the questions it opens. What the rules make public is left
out of the comparison and checked apart: how many Adjustments a side made (W-4) is on the table.

- **Command side.** Ann's Herald strikes Boss with her own dice and 0 … 11 explicit steps of her
  own surplus, whose count follows Boss's secret Guard (1 or 5 Adjustments): every probe is
  taken (200), the steps past the count dropped, and the Host alone reads the ``note``
  (its log, its stream); Ann's state, log, stream and decision card carry no note.
- **Answer side.** Boss strikes Herald, Herald has the surplus, whose count follows Boss's secret
  Precision: Ann answers 0 … 11 steps, each taken the same way.
- **Realm of Strife.** Al's Aldric attacks a secret sheet (AC 20 or 95) with dice typed all at
  once: refused before any die is read, with the same sentence, whatever the dice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from test_store_support import BACKENDS, database_url
from test_web_secrets import auth, strife_ambush

from tableside.encounter.roster import character_doc
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.hub import record_stream
from tableside.web.table import WebTable

DICE = [6, 6, 6, 6, 6, 6, 6]
STEPS = range(12)


@dataclass
class Side:
    """One table of the pair: Ann plays Herald, Boss is an NPC secret to her."""

    client: TestClient
    eid: int
    host: dict[str, str]
    ann: dict[str, str]
    ann_seat: Principal
    received: list[str] = field(default_factory=list)  # every byte Ann got

    def api(self, path: str = "") -> str:
        return f"/api/encounters/{self.eid}{path}"

    def post(self, who: dict[str, str], path: str, body: dict[str, Any]) -> Any:
        r = self.client.post(self.api(path), headers=who, json=body)
        if who is self.ann:
            self.received.append(r.text)
        return r

    def undo(self) -> None:
        assert self.client.post(self.api("/undo"), headers=self.host).status_code == 200

    def turn_of(self, combatant: str) -> None:
        for _ in range(12):
            state = self.client.get(self.api(), headers=self.host).json()["state"]
            if state["current"] == combatant:
                return
            assert self.post(self.host, "/commands", {"kind": "next"}).status_code == 200
        raise AssertionError(f"{combatant} never got the Turn")

    def reads(self) -> str:
        """Ann's state, log, decision card and stream, as she receives them."""
        parts = [self.client.get(self.api(p), headers=self.ann).text
                 for p in ("", "/log", "/decisions")]  # fmt: skip
        table: WebTable = self.client.app.state.table  # type: ignore[attr-defined]
        return "\n".join([*parts, stream_text(table, self.ann_seat, self.eid)])


def stream_text(table: WebTable, who: Principal, eid: int) -> str:
    """What the live stream sends ``who`` from revision 0 until it reaches the stored one."""

    async def read() -> list[str]:
        def reader(rev: int) -> tuple[list[dict[str, Any]], int]:
            return table.visible_after(who, eid, rev)

        stream = record_stream(table.notifier, eid, reader, 0, poll=30.0)
        got = [await anext(stream)]
        total = table.store.encounter(eid).revision
        while reached(got[-1]) < total:  # a record, or ``moved`` past records not shown
            got.append(await asyncio.wait_for(anext(stream), EVENT_WAIT))
        await stream.aclose()
        return got

    return "".join(asyncio.run(read()))


def reached(chunk: str) -> int:
    """The revision an event of the stream carries (0: none)."""
    head = chunk.split("\n", 1)[0]
    return int(head.removeprefix("id: ")) if head.startswith("id: ") else 0


def verdict(r: Any) -> tuple[Any, ...]:
    """What a probe's response says besides the public dice: status, refusal, record, questions."""
    body = r.json()
    record = body.get("record") or {}
    pending = tuple((q.get("kind"), q.get("combatant")) for q in body.get("pending") or [])
    return (r.status_code, body.get("error"), record.get("kind"),
            tuple(sorted(record.get("data") or {})), pending)  # fmt: skip


@pytest.fixture(params=BACKENDS)
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Side]]:
    """Two tables: Boss's Guard and Precision (secret to Ann) 19 or 5 against Herald's 20."""
    with ExitStack() as stack:
        yield [war(client, value) for client, value in clients(stack, request, tmp_path, (19, 5))]


def clients(
    stack: ExitStack, request: pytest.FixtureRequest, tmp_path: Path, values: tuple[int, int]
) -> list[tuple[TestClient, int]]:
    """One application per secret value, each on its own new store of the backend."""
    found = []
    for n, value in enumerate(values):
        folder = tmp_path / str(n)
        folder.mkdir()
        url = stack.enter_context(database_url(request.param, folder))
        found.append((stack.enter_context(TestClient(create_app(url))), value))
    return found


def war(client: TestClient, boss_value: int) -> Side:
    made = client.post("/api/tables", json={"name": "Oracle"}).json()
    tid, host = made["id"], auth(made["host_token"])
    new = {"game": "majesty-war", "name": "Oracle", "seed": 3}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
    seat = {"name": "Ann", "characters": ["Herald"]}
    token = client.post(f"/api/tables/{tid}/players", headers=host, json=seat).json()["token"]
    herald = character_doc("Herald", "holy", overrides={"guard": 20, "precision": 20})
    boss = character_doc("Boss", "fallen",
                         overrides={"guard": boss_value, "precision": boss_value})  # fmt: skip
    for character, at in ((herald, [0, 0, 0]), (boss, [1, 0, 0])):
        r = client.post(f"/api/encounters/{eid}/characters", headers=host,
                        json={"character": character, "position": at})  # fmt: skip
        assert r.status_code == 201, r.text
    table: WebTable = client.app.state.table  # type: ignore[attr-defined]
    who, _info = table.at_encounter(token, eid)
    return Side(client, eid, host, auth(token), who)


def steps(count: int) -> list[dict[str, Any]]:
    return [{"die": 0, "delta": (-1) ** n} for n in range(count)]


def made(record: dict[str, Any]) -> int:
    """How many Adjustments the record's Strike made (public, W-4)."""
    for event in record.get("events") or []:
        if event["kind"] == "strike_resolved":
            return len(event["data"]["result"]["adjustments"])
    raise AssertionError("no Strike resolved")


def test_w52_a_players_own_steps_are_clamped_not_refused_whatever_the_secret(
    pair: list[Side],
) -> None:
    """Ann's Strike names 0 … 11 steps of her surplus: the same verdict for every count against
    either secret Guard (0 differences); the Host is told of each clamp in a note she never
    reads."""
    seen: list[list[tuple[Any, ...]]] = []
    for side in pair:
        side.turn_of("Herald")
        verdicts = []
        for count in STEPS:
            args = {"striker": "Herald", "defender": "Boss", "mode": "explicit",
                    "steps": steps(count)}  # fmt: skip
            r = side.post(side.ann, "/commands", {"kind": "strike", "args": args, "dice": DICE})
            verdicts.append(verdict(r))
            assert r.status_code == 200, r.text
            assert made(r.json()["record"]) <= count  # the public part: what was made (W-4)
            side.undo()
        seen.append(verdicts)
        host_log = side.client.get(side.api("/log"), headers=side.host).text
        assert "only the first" in host_log  # the Host reads the clamp
        reads = side.reads()
        assert '"note"' not in reads and "only the first" not in reads
        assert not any('"note"' in text for text in side.received)
    differences = sum(a != b for a, b in zip(*seen, strict=True))
    assert differences == 0, seen


def test_w52_w16_a_defenders_answers_are_clamped_whatever_the_secret(pair: list[Side]) -> None:
    """Boss strikes Herald, whose surplus follows Boss's secret Precision: Ann answers 0 … 11
    explicit steps, every answer gets the same verdict on both tables (0 differences)."""
    seen: list[list[tuple[Any, ...]]] = []
    for side in pair:
        side.turn_of("Boss")
        verdicts = []
        for count in STEPS:
            r = side.post(side.host, "/commands", {"kind": "strike", "args": {
                "striker": "Boss", "defender": "Herald"}, "dice": DICE})  # fmt: skip
            assert r.status_code == 202, r.text
            mine = side.client.get(side.api("/decisions"), headers=side.ann).json()["decisions"]
            answers = {q["id"]: 0 if q["kind"] == "obstruction"
                       else {"mode": "explicit", "steps": steps(count)} for q in mine}  # fmt: skip
            r = side.post(side.ann, "/decisions", {"answers": answers})
            verdicts.append(verdict(r))
            assert r.status_code == 200, r.text
            side.undo()
        seen.append(verdicts)
        assert "only the first" not in side.reads()
    differences = sum(a != b for a, b in zip(*seen, strict=True))
    assert differences == 0, seen


@pytest.fixture(params=BACKENDS)
def fights(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Any]]:
    """Two Realm of Strife fights: Brute's AC (secret to Al) 20 or 95."""
    with ExitStack() as stack:
        pairs = clients(stack, request, tmp_path, (20, 95))
        yield [(client, *strife_ambush(client, ac=ac)) for client, ac in pairs]


def test_w52_strife_dice_typed_at_once_against_a_secret_sheet_tell_nothing(
    fights: list[Any],
) -> None:
    """Al types all the dice of an attack on Brute at once: refused before any die is read, in
    the same sentence whatever the dice and whatever Brute's secret AC; nothing is written."""
    seen: list[list[tuple[Any, ...]]] = []
    for client, eid, host, player, _state in fights:
        url = f"/api/encounters/{eid}/commands"
        before = client.get(f"/api/encounters/{eid}", headers=host).json()["state"]["revision"]
        verdicts = []
        for dice in ([5], [99], [5, 3, 4], [50, 1, 1, 1, 1], [1] * 9):
            body = {"kind": "attack", "dice": dice,
                    "args": {"attacker": "Aldric", "attacks": [{"defender": "Brute"}]}}  # fmt: skip
            r = client.post(url, headers=player, json=body)
            verdicts.append(verdict(r))
            assert r.status_code == 403, r.text
            assert "stage by stage" in r.json()["error"]
        after = client.get(f"/api/encounters/{eid}", headers=host).json()["state"]["revision"]
        assert after == before
        seen.append(verdicts)
    differences = sum(a != b for a, b in zip(*seen, strict=True))
    assert differences == 0 and len(set(seen[0])) == 1, seen
