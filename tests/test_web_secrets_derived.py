"""Derived texts, refusals and previews carry no secret number (docs/security.md W-9, W-10).

A secret NPC with distinctive values fights a player's characters with ``best`` Strikes, opposed
Checks (breaking free from it, interposing against it), a refused over-Adjusted Strike and
previews; no byte the player receives (answers, refusals, previews, options, state, log, page,
stream) carries its numbers, and every text the player reads is built from public values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url
from test_web_secrets import auth, seat, stream_bytes, strife_ambush

from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.redact import (
    SECRET,
    UNNAMED,
    public_text,
    redact_event,
    redact_record,
)
from tableside.web.refusals import public_refusal
from tableside.web.table import WebTable

HERALD = json.loads(Path(__file__).parent.parent.joinpath("examples", "herald.json").read_text())
SQUIRE = {**HERALD, "name": "Squire"}
BRUTE = {
    "format": "tableside/majesty-character",
    "version": 1,
    "name": "Brute",
    "side": "fallen",
    "weapon": "Sword",
    "attributes": {"might": 4730, "swiftness": 37, "control": 3310, "endurance": 4321,
                   "resolve": 3142, "passion": 1732},
    "overrides": {"guard": 977, "precision": 661, "force": 3},
}  # fmt: skip
# Brute's numbers: attributes, Guard, Precision, the Factor Values its Checks oppose (M-30).
BRUTE_NUMBERS = {"4730", "3310", "4321", "3142", "1732", "977", "661", "473", "331"}
RULING = re.compile(r"\b[A-Z]{1,2}-\d+\b")
TEXT_KEYS = ("why", "source", "reason", "text")
DICE = [12, 9, 3, 8, 1, 10, 11]


@dataclass
class Table:
    client: TestClient
    table: WebTable
    tid: int
    eid: int
    host: dict[str, str]
    host_token: str
    ann: dict[str, str]  # plays Herald and Squire
    ann_token: str
    received: list[str] = field(default_factory=list)  # every byte Ann got

    def api(self, path: str = "") -> str:
        return f"/api/encounters/{self.eid}{path}"

    def send(self, who: dict[str, str], kind: str, **args: Any) -> Any:
        r = self.client.post(self.api("/commands"), headers=who, json={"kind": kind, "args": args})
        if who is self.ann:
            self.received.append(r.text)
        return r

    def host_does(self, kind: str, **args: Any) -> None:
        r = self.send(self.host, kind, **args)
        assert r.status_code == 200, r.text

    def ann_does(self, kind: str, **args: Any) -> Any:
        r = self.send(self.ann, kind, **args)
        assert r.status_code == 200, r.text
        return r.json()

    def ann_posts(self, path: str, body: dict[str, Any]) -> Any:
        r = self.client.post(self.api(path), headers=self.ann, json=body)
        self.received.append(r.text)
        return r

    def current(self) -> str | None:
        state = self.client.get(self.api(), headers=self.host).json()["state"]
        current: str | None = state["current"]
        return current

    def turn_of(self, combatant: str) -> None:
        for _ in range(12):
            if self.current() == combatant:
                return
            self.host_does("next")
        raise AssertionError(f"no Turn for {combatant}")


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    with database_url(request.param, tmp_path) as url, TestClient(create_app(url)) as c:
        yield c


@pytest.fixture
def war(client: TestClient) -> Table:
    r = client.post("/api/tables", json={"name": "Friday"}).json()
    tid, host_token = r["id"], r["host_token"]
    host = auth(host_token)
    new = {"game": "majesty-war", "name": "Ford", "seed": 3}
    eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
    settings = {"npcs_decide": "auto"}  # Brute's choices take their suggestions (D-5)
    assert client.put(f"/api/encounters/{eid}/settings", headers=host, json=settings).is_success
    for body in ({"character": BRUTE, "position": [1, 0, 0]}, {"character": HERALD},
                 {"character": SQUIRE, "position": [0, 1, 0]}):  # fmt: skip
        r = client.post(f"/api/encounters/{eid}/characters", headers=host, json=body)
        assert r.status_code == 201, r.text
    ann = seat(client, tid, host, "Ann", ["Herald", "Squire"])
    table: WebTable = client.app.state.table  # type: ignore[attr-defined]
    return Table(client, table, tid, eid, host, host_token, auth(ann), ann)


def texts(value: Any) -> Iterator[str]:
    """Every text field (why, source, reason, text) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in TEXT_KEYS and isinstance(item, str):
                yield item
            else:
                yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)


def with_number(found: Iterator[str]) -> list[str]:
    """The texts with a number (ruling ids and the rules' names of PUBLIC_WORDS aside)."""
    words = {"unpaired 1s", "F:1 Cycle"}
    return [t for t in found if t not in words and re.search(r"\d", RULING.sub("", t))]


def checks(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["data"] for r in records for e in r["events"] if e["kind"] == "check_resolved"]


def play_it_out(war: Table) -> None:
    """A best Strike each way, a refusal, an interposition, breaking free, Falter, Poison."""
    war.turn_of("Brute")
    war.host_does("strike", striker="Brute", defender="Herald", mode="best", obstruction=0)
    war.host_does("apply_effect", id="Brute", effect="poison", amount=3)
    war.turn_of("Herald")
    war.host_does("host_set", id="Herald", field="ap", value=7)
    answer = war.ann_does("strike", striker="Herald", defender="Brute")  # Brute's mode (D-8)
    strike = next(e for e in answer["record"]["events"] if e["kind"] == "strike_resolved")
    assert strike["data"]["result"]["adjustments"], "the Guard gives Brute Adjustments"
    # explicit steps from the player, though Brute has the surplus (M-11, M-12, D-8)
    host_log = war.client.get(war.api("/log"), headers=war.host).json()["records"]
    (held,) = [e["data"]["result"]["adjustments_available"] for e in host_log[-1]["events"]
               if e["kind"] == "strike_resolved"]  # fmt: skip
    assert isinstance(held, int) and held > 0
    for side, count in (("defender", held + 1), ("striker", 2)):
        war.host_does("host_set", id="Herald", field="ap", value=7)
        steps = [{"die": 0, "delta": 1, "side": side}] * count
        refused = war.send(war.ann, "strike", striker="Herald", defender="Brute",
                           mode="explicit", steps=steps)  # fmt: skip
        # Brute has the surplus, so how the Adjustments are used is the Host's (D-4, D-8)
        assert refused.status_code == 403
        assert refused.json()["error"] == "How Brute uses its Adjustments is the Host's choice."
    war.host_does("host_set", id="Herald", field="stance", value=True)
    war.ann_does("interpose", id="Herald", striker="Brute", defender="Squire")
    war.host_does("apply_effect", id="Herald", effect="grappled", by="Brute")
    for preview in ({"kind": "break_free", "args": {"id": "Herald"}, "dice": DICE},
                    {"kind": "strike", "args": {"striker": "Herald", "defender": "Brute",
                                                "mode": "best"}, "dice": DICE}):  # fmt: skip
        r = war.ann_posts("/preview", preview)
        assert r.status_code == 403 and "W-10" in r.json()["error"], r.text
    war.host_does("host_set", id="Herald", field="ap", value=7)
    war.ann_does("break_free", id="Herald")
    war.host_does("apply_effect", id="Brute", effect="falter", amount=2)
    war.host_does("apply_effect", id="Brute", effect="bound")
    war.turn_of("Brute")  # its Poison ticks (M-38)
    war.received.append(war.client.get(war.api("/options"), headers=war.ann).text)


def numbers_in(text: str) -> set[str]:
    """The brute numbers standing alone in ``text`` (not inside a random token such as a hex
    CSRF proof or a session id, which may contain any digits by chance)."""
    return {n for n in BRUTE_NUMBERS if re.search(rf"(?<![0-9A-Za-z_-]){n}(?![0-9A-Za-z_-])", text)}


def everything(war: Table, headers: dict[str, str], token: str) -> str:
    parts = [war.client.get(war.api(), headers=headers).text,
             war.client.get(war.api("/log"), headers=headers).text,
             war.client.get(f"/tables/{war.tid}/encounters/{war.eid}",
                            params={"token": token}).text]  # fmt: skip
    seat = None if headers is war.host else war.table.principal(token).seat
    return "\n".join([*parts, stream_bytes(war, Principal(war.tid, seat))])  # type: ignore[arg-type]


def test_w9_no_byte_a_player_receives_carries_a_secret_number(war: Table) -> None:
    """Best Strikes, Checks, a refusal, previews, Falter and Poison: W-9 and W-10 together."""
    play_it_out(war)
    host = everything(war, war.host, war.host_token)
    host_log = war.client.get(war.api("/log"), headers=war.host).json()["records"]
    # the Host sees every number, so the fight really produced them
    assert {"977", "661", "473", "331", "4321"} <= numbers_in(host)
    assert {c["result"]["opposing"] for c in checks(host_log)} >= {473, 331}
    assert {"Poison:3", "2 Falter converted"} <= set(texts(host_log))
    assert any(re.search(r"Guard 977", t) for t in texts(host_log))
    received = "\n".join([*war.received, everything(war, war.ann, war.ann_token)])
    assert numbers_in(received) == set()
    assert not re.search(
        r"vs Guard -?\d|Precision -?\d+ vs|Poison:\d|\d Falter converted", received
    )
    log = war.client.get(war.api("/log"), headers=war.ann).json()["records"]
    assert with_number(texts(log)) == []
    assert with_number(texts([json.loads(t) for t in war.received])) == []
    assert len(list(texts(log))) > 10  # the texts are there, as public words
    why = [a["why"] for r in log for e in r["events"] if e["kind"] == "strike_resolved"
           for a in e["data"]["result"]["adjustments"]]  # fmt: skip
    assert "best: Precision vs Guard (secret), raw sources (M-10, M-11, M-18)" in why
    assert {"Poison", "Falter converted"} <= set(texts(log))


def test_w9_a_checks_opposing_value_is_hidden_when_its_opponent_is_secret(war: Table) -> None:
    """Breaking free from a secret Grappler (M-37) and interposing against a secret Striker
    (M-16): the opposing Factor, the advantage and the Adjustments available are secret."""
    play_it_out(war)
    for who in (war.ann, war.host):
        log = war.client.get(war.api("/log"), headers=who).json()["records"]
        by_purpose = {c["purpose"]: c["result"] for c in checks(log)}
        interpose, free = by_purpose["interpose"], by_purpose["break free Might Check"]
        for result in (interpose, free):
            hidden = [result[k] for k in ("opposing", "advantage", "adjustments_available")]
            if who is war.ann:
                assert hidden == [SECRET] * 3
                assert result["natural"] != SECRET and result["outcome"] != SECRET
            else:
                assert SECRET not in hidden
    war.client.put(war.api("/secrets/Brute"), headers=war.host, json={"secret": False})
    log = war.client.get(war.api("/log"), headers=war.ann).json()["records"]
    by_purpose = {c["purpose"]: c["result"] for c in checks(log)}
    assert by_purpose["interpose"]["opposing"] == 331  # the Striker is open now
    # breaking free does not name the Grappler: it stays hidden from players (W-9)
    assert by_purpose["break free Might Check"]["opposing"] == SECRET


def test_w10_a_war_preview_against_a_secret_defender_answers_the_same_whatever_the_dice(
    war: Table,
) -> None:
    war.turn_of("Herald")
    strike = {"striker": "Herald", "defender": "Brute", "mode": "best"}
    answers = set()
    for faces in ([1] * 7, [12] * 7, DICE, [6, 6, 6, 7, 7, 7, 12]):
        r = war.ann_posts("/preview", {"kind": "strike", "args": strike, "dice": faces})
        assert r.status_code == 403
        answers.add(r.text)
    assert len(answers) == 1
    (error,) = {json.loads(a)["error"] for a in answers}
    assert "Brute" in error and "W-10" in error and not re.search(r"\d", RULING.sub("", error))
    host = war.client.post(war.api("/preview"), headers=war.host,
                           json={"kind": "strike", "args": strike, "dice": DICE})  # fmt: skip
    assert host.status_code == 200 and "977" in host.text
    war.client.put(war.api("/secrets/Brute"), headers=war.host, json={"secret": False})
    r = war.ann_posts("/preview", {"kind": "strike", "args": strike, "dice": DICE})
    assert r.status_code == 200 and r.json()["record"] == host.json()["record"]


def test_w10_a_players_preview_of_its_own_move_is_still_given(war: Table) -> None:
    war.turn_of("Herald")
    r = war.ann_posts("/preview", {"kind": "move", "args": {"id": "Herald", "to": [0, -1, 0]}})
    assert r.status_code == 200, r.text
    assert r.json()["record"]["command"]["kind"] == "move"


@pytest.fixture
def fight(client: TestClient) -> tuple[TestClient, int, dict[str, str], dict[str, str]]:
    eid, host, player, _state = strife_ambush(client, dodge=37)
    return client, eid, host, player


def test_w10_a_strife_preview_reveals_no_ac_or_dodge_of_a_secret_sheet(
    fight: tuple[TestClient, int, dict[str, str], dict[str, str]],
) -> None:
    """Typed d100 faces would find the exact AC and Dodge in a handful of free tries."""
    client, eid, host, player = fight
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Brute"}]}
    answers = set()
    for faces in ([1], [5, 6], [30, 4], [50], [90, 8], [100]):
        body = {"kind": "attack", "args": attack, "dice": faces}
        r = client.post(f"/api/encounters/{eid}/preview", headers=player, json=body)
        assert r.status_code == 403
        answers.add(r.text)
    assert len(answers) == 1
    (error,) = answers
    assert (
        "Brute" in error
        and "W-10" in error
        and not {"83", "37", "4321"} & set(re.findall(r"\d+", error))
    )
    body = {"kind": "attack", "args": attack, "dice": [90, 8]}
    host_view = client.post(f"/api/encounters/{eid}/preview", headers=host, json=body)
    assert host_view.status_code == 200, host_view.text
    (shown,) = [e["data"]["result"] for e in host_view.json()["record"]["events"]
                if e["kind"] == "attack_resolved"]  # fmt: skip
    assert (shown["ac"], shown["dodge"]) == (83, 37)  # the Host's preview is whole


# --- the rules themselves -----------------------------------------------------------------------


def test_w9_texts_are_whitelisted_words_or_rebuilt_from_public_values() -> None:
    assert public_text("best: Precision 2 vs Guard 977, raw sources (M-10, M-11, M-18)") == (
        "best: Precision vs Guard (secret), raw sources (M-10, M-11, M-18)"
    )
    assert public_text("Precision 13 vs Guard 4, raw sources (M-10, M-11, M-18)") == (
        "Precision vs Guard (secret), raw sources (M-10, M-11, M-18)"
    )
    assert public_text("best: advantage and raw sources (M-10, M-11, M-30)") == (
        "best: advantage and raw sources (M-10, M-11, M-30)"
    )
    assert public_text("Inspiration token (M-11)") == "Inspiration token (M-11)"
    assert public_text("3 Falter converted") == "Falter converted"
    assert public_text("Poison:4") == "Poison"
    assert public_text("unpaired 1s") == "unpaired 1s" and public_text("F:1 Cycle") == "F:1 Cycle"
    assert public_text("a Host's note of 12 wounds") == SECRET  # an unknown text with a number
    assert public_text(["a list"]) == []


def test_w9_an_unlisted_text_field_stays_secret_and_listed_ones_lose_their_numbers() -> None:
    event = {"kind": "wear_taken", "rule": "M-34",
             "data": {"id": "Brute", "kind": "R", "amount": 9, "source": "2 Falter converted",
                      "story": "told"}}  # fmt: skip
    shown = redact_event(event, lambda c: c == "Brute")["data"]
    assert shown == {"id": "Brute", "kind": "R", "amount": SECRET, "source": "Falter converted",
                     "story": SECRET}  # fmt: skip
    assert redact_event(event, lambda c: c == "Herald") == event


def test_w9_an_adjustments_why_is_rebuilt_and_its_unknown_keys_concealed() -> None:
    why = "best: Precision 2 vs Guard 5, raw sources (M-10, M-11, M-18)"
    result = {"schema": "tableside/majesty-strike", "rolled": [1],
              "adjustments": [{"die": 0, "from": 3, "to": 4, "by": "defender", "why": why,
                               "note": "x"}]}  # fmt: skip
    event = {"kind": "strike_resolved", "rule": "M-20",
             "data": {"striker": "Herald", "defender": "Brute", "result": result}}  # fmt: skip
    (adjustment,) = redact_event(event, lambda c: c == "Brute")["data"]["result"]["adjustments"]
    assert adjustment == {"die": 0, "from": 3, "to": 4, "by": "defender", "note": SECRET,
                          "why": "best: Precision vs Guard (secret), raw sources (M-10, M-11, "
                                 "M-18)"}  # fmt: skip


def test_w9_an_opposed_check_whose_opponent_is_unnamed_is_secret_to_every_player() -> None:
    result = {"schema": "tableside/majesty-check", "opposing": 47, "advantage": -43,
              "natural": [1, 2], "outcome": "failure"}  # fmt: skip
    record = {"kind": "command", "command": {"kind": "break_free", "args": {"id": "Herald"}},
              "events": [{"kind": "check_resolved", "rule": "M-37",
                          "data": {"id": "Herald", "purpose": "break free Might Check",
                                   "result": result}}]}  # fmt: skip

    def player(combatant: object) -> bool:
        return combatant is UNNAMED

    shown = redact_record(record, player)["events"][0]["data"]["result"]
    assert shown["opposing"] == SECRET and shown["advantage"] == SECRET
    assert shown["natural"] == [1, 2] and shown["outcome"] == "failure"
    assert redact_record(record, lambda _c: False) == record  # the Host's view


def test_w9_refusals_naming_a_secret_combatant_lose_its_numbers() -> None:
    over = "The defender named 9 Adjustments but may make only 4 on this roll (M-11, M-12)."
    assert public_refusal(over, "strike", "Herald", ["Brute"]) == (
        "Herald may not make 9 Adjustments against Brute: how many may be made follows values "
        "that are secret to you (M-11, M-12)."
    )
    assert public_refusal(over, "strike", "Herald", []) == over  # nothing secret involved
    nobody = "Die 3 was named for an Adjustment but nobody may adjust this roll."
    assert "those Adjustments" in public_refusal(nobody, "strike", "Herald", ["Brute"])
    own = "Herald cannot Strike for 3 AP: it is Herald's Turn and Herald has 2 AP and 0 Readied AP."
    assert public_refusal(own, "strike", "Herald", ["Brute"]) == own  # the actor's own AP
    theirs = own.replace("Herald", "Brute")
    assert "2 AP" not in public_refusal(theirs, "strike", "Herald", ["Brute"])
    plain = "Brute is Defeated and cannot Strike."
    assert public_refusal(plain, "strike", "Herald", ["Brute"]) == plain
    unknown = "Brute's Guard 977 turns the blow."
    assert public_refusal(unknown, "strike", "Herald", ["Brute"]) == (
        "The rules refuse Herald's strike here, for a reason that follows values of Brute that "
        "are secret to you."
    )
