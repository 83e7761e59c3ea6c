"""Issue 21 at the web table: one card per waiting command, NPCs automatic, hostile answers and
the answer-oracle (D-4, D-5, D-8, D-10, W-16).

A War with Ann (plays Herald, a high Guard: the Defender's surplus against Boss) and Boss, an
NPC whose values are secret to Ann. Everything goes through the API (TestClient); the backends
are those of ``tests/test_web_decisions.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url
from test_web_decisions import AtEncounter, auth

from tableside.encounter.roster import character_doc
from tableside.web import create_app

MALFORMED = [
    10**30,
    -5,
    5000,
    "3",
    True,
    None,
    [1, 2],
    {"mode": "best"},
    {"mode": "sideways"},
    {"mode": "explicit", "steps": [{"die": 0, "delta": 1}] * 5000},
    {"mode": "explicit", "steps": [{"die": -5, "delta": 1}]},
    {"mode": "explicit", "steps": [{"die": 10**30, "delta": 1}]},
    {"mode": "explicit", "steps": [{"die": 0, "delta": 7}]},
    {"mode": "best", "wear_flat": 9},
]
"""Answers a hostile page may send to the Obstruction or Adjustments question (issue 21, 6)."""


@dataclass
class Ford(AtEncounter):
    client: TestClient
    eid: int
    host: dict[str, str]
    ann: dict[str, str]

    def decisions(self, who: dict[str, str]) -> dict[str, Any]:
        r = self.client.get(self.api("/decisions"), headers=who)
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found

    def revision(self) -> int:
        state = self.client.get(self.api(), headers=self.host).json()["state"]
        return int(state["revision"])

    def settings(self, **changes: Any) -> None:
        r = self.client.put(self.api("/settings"), headers=self.host, json=changes)
        assert r.status_code == 200, r.text


@pytest.fixture(params=BACKENDS)
def ford(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ford]:
    with database_url(request.param, tmp_path) as url, TestClient(create_app(url)) as client:
        r = client.post("/api/tables", json={"name": "Ford"}).json()
        tid, host = r["id"], auth(r["host_token"])
        new = {"game": "majesty-war", "name": "Ford", "seed": 3}
        eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
        seat = {"name": "Ann", "characters": ["Herald"]}
        ann = auth(client.post(f"/api/tables/{tid}/players", headers=host, json=seat)
                   .json()["token"])  # fmt: skip
        herald = character_doc("Herald", "holy", attributes={"swiftness": 40},
                               overrides={"guard": 20})  # fmt: skip
        for character, at in ((herald, [0, 0, 0]), (character_doc("Boss", "fallen"), [1, 0, 0])):
            made = client.post(f"/api/encounters/{eid}/characters", headers=host,
                               json={"character": character, "position": at})  # fmt: skip
            assert made.status_code == 201, made.text
        yield Ford(client, eid, host, ann)


def boss_strikes(ford: Ford) -> dict[str, dict[str, Any]]:
    """The Host's Boss Strikes Herald: Ann's questions by kind (202)."""
    ford.turn_of("Boss")
    r = ford.command(ford.host, "strike", striker="Boss", defender="Herald")
    assert r.status_code == 202, r.text
    return {d["kind"]: d for d in ford.decisions(ford.ann)["decisions"]}


def test_issue21_d10_d8_ann_reads_her_dice_tokens_and_plain_options(ford: Ford) -> None:
    """Item 3: the dice shown, options in words, ids only under details, no JSON in labels."""
    mine = boss_strikes(ford)
    assert set(mine) == {"obstruction", "adjustments"}
    adjust = mine["adjustments"]
    assert [o["label"] for o in adjust["options"]] == ["Best for Herald", "No Adjustments",
                                                       "Choose dice…"]  # fmt: skip
    assert adjust["dice"]["natural"] and adjust["input"]["type"] == "steps"
    assert "M-1" not in adjust["prompt"] and adjust["details"]["rules"]
    assert adjust["limit"] == adjust["available"] == "secret"  # the count follows Boss's values
    assert adjust["decided_by"] == "Herald's player (Ann)"
    (card,) = ford.decisions(ford.ann)["cards"]
    assert sorted(card["questions"]) == sorted(d["id"] for d in mine.values())


@pytest.mark.parametrize("bad", MALFORMED)
def test_issue21_malformed_answers_are_refused_and_write_nothing(ford: Ford, bad: Any) -> None:
    """Item 6: while the other question is open, a malformed answer is a 4xx, nothing stored,
    and the fight is not jammed: the Host's and Ann's good answers are still taken."""
    mine = boss_strikes(ford)
    before = ford.revision()
    for kind in ("obstruction", "adjustments"):
        r = ford.client.post(ford.api(f"/decisions/{mine[kind]['id']}"), headers=ford.ann,
                             json={"choice": bad})  # fmt: skip
        if kind == "adjustments" and bad == {"mode": "best"}:
            assert r.status_code == 202, r.text  # a good answer to this one
            continue
        assert r.status_code in (400, 422), r.text
        assert r.json()["error"].endswith(".") and "Traceback" not in r.text
        assert len(r.text) < 600
    left = ford.decisions(ford.ann)["decisions"]
    if ford.revision() == before:
        assert {d["kind"] for d in left} == {"obstruction", "adjustments"}
    answers = {d["id"]: d["suggested"] for d in left}
    done = ford.client.post(ford.api("/decisions"), headers=ford.ann, json={"answers": answers})
    assert done.status_code == 200, done.text
    assert done.json()["record"]["data"]["outcome"] == "resolved"


def test_issue21_w16_the_answer_oracle_finds_nothing(ford: Ford) -> None:
    """Item 7: Ann sends 14, 13, … 1 explicit steps; every count gets the same verdict, so the
    secret Adjustment count (it follows Boss's Precision) is not learned: 0 bits found."""
    verdicts: dict[int, int] = {}
    for count in range(14, 0, -1):
        mine = boss_strikes(ford)
        adjust = mine["adjustments"]
        natural = adjust["dice"]["natural"]
        die = next(i for i, f in enumerate(natural) if 2 <= f <= 11)
        steps = [{"die": die, "delta": (-1) ** n} for n in range(count)]
        answers = {mine["obstruction"]["id"]: 0,
                   adjust["id"]: {"mode": "explicit", "steps": steps}}  # fmt: skip
        r = ford.client.post(ford.api("/decisions"), headers=ford.ann, json={"answers": answers})
        verdicts[count] = r.status_code
        assert ford.client.post(ford.api("/undo"), headers=ford.host).status_code == 200
    found = len(set(verdicts.values())) - 1
    assert found == 0, verdicts
    assert set(verdicts.values()) == {200}


def test_issue21_one_card_one_apply_all_or_nothing(ford: Ford) -> None:
    """Item 4: the Host's questions for Ann's Strike are one card; one bad answer refuses all."""
    ford.settings(npcs_decide="ask")
    ford.turn_of("Herald")
    r = ford.command(ford.ann, "strike", striker="Herald", defender="Boss", boon=1)
    assert r.status_code == 202, r.text
    seen = ford.decisions(ford.host)
    assert [d["kind"] for d in seen["decisions"]] == ["approve"]  # before any die (gate)
    assert seen["decisions"][0]["suggested"] == "approve"
    approve = seen["decisions"][0]["id"]
    assert ford.client.post(ford.api(f"/decisions/{approve}"), headers=ford.host,
                            json={"choice": "approve"}).status_code == 202  # fmt: skip
    (card,) = ford.decisions(ford.host)["cards"]
    questions = {d["id"]: d for d in ford.decisions(ford.host)["decisions"]}
    assert set(card["questions"]) == set(questions) and card["dice"]["natural"]
    before = ford.revision()
    bad = {q: (-1 if d["kind"] == "obstruction" else d["suggested"]) for q, d in questions.items()}
    if len(bad) > 1:
        bad = dict(reversed(list(bad.items())))  # the good one first: it is taken back
    r = ford.client.post(ford.api("/decisions"), headers=ford.host, json={"answers": bad})
    assert r.status_code == 400 and ford.revision() == before, r.text
    good = {q: d["suggested"] for q, d in questions.items()}
    r = ford.client.post(ford.api("/decisions"), headers=ford.host, json={"answers": good})
    assert r.status_code == 200, r.text
    assert r.json()["record"]["command"]["args"]["boon"] == 1


def test_issue21_d5_switching_to_automatic_answers_the_open_npc_decisions(ford: Ford) -> None:
    """Item 1: NPC decisions asked of the Host are answered at once when set to automatic."""
    ford.settings(npcs_decide="ask")
    ford.turn_of("Herald")
    r = ford.command(ford.ann, "strike", striker="Herald", defender="Boss")
    assert r.status_code == 202, r.text
    assert ford.decisions(ford.host)["decisions"]
    ford.settings(npcs_decide="auto")
    seen = ford.decisions(ford.host)
    assert seen["decisions"] == [] and seen["waiting"] == []
    records = ford.client.get(ford.api("/log"), headers=ford.host).json()["records"]
    assert records[-1]["data"]["answer"]["by"] == "auto"
    assert records[-1]["data"]["outcome"] == "resolved"


def test_issue21_d5_npc_decisions_are_automatic_by_default(ford: Ford) -> None:
    """Item 4: a player's Strike on an NPC resolves at once (nothing for the Host)."""
    ford.turn_of("Herald")
    r = ford.command(ford.ann, "strike", striker="Herald", defender="Boss")
    assert r.status_code == 200, r.text


def test_issue21_d4_a_hidden_strike_on_herald_asks_anns_phone(ford: Ford) -> None:
    """Item 2: the Host's hidden Strike on Herald asks Herald's player, who answers it; the Host
    reads whom it waits for; the records stay hidden from Ann."""
    ford.turn_of("Boss")
    body = {"kind": "strike", "hidden": True, "args": {"striker": "Boss", "defender": "Herald"}}
    r = ford.client.post(ford.api("/commands"), headers=ford.host, json=body)
    assert r.status_code == 202, r.text
    hosts = ford.decisions(ford.host)
    assert all(w["waiting_for"].startswith("Herald's player (Ann)") for w in hosts["waiting"])
    mine = ford.decisions(ford.ann)
    assert {d["kind"] for d in mine["decisions"]} == {"obstruction", "adjustments"}
    assert all(d["command"] == {"kind": "strike", "args": {}, "dice": None}
               for d in mine["decisions"])  # fmt: skip
    assert all(w["waiting_for"].startswith("Herald's player") for w in mine["waiting"])
    answers = {d["id"]: d["suggested"] for d in mine["decisions"]}
    done = ford.client.post(ford.api("/decisions"), headers=ford.ann, json={"answers": answers})
    assert done.status_code == 200, done.text
    assert done.json()["record"] == {"kind": "answer", "hidden": True}
    log = ford.client.get(ford.api("/log"), headers=ford.ann).json()["records"]
    assert not [x for x in log if x["kind"] in ("request", "answer")]


def test_issue21_d4_hidden_asks_host_gives_the_hidden_strike_to_the_hosts_card(ford: Ford) -> None:
    """Item 2, the setting: with ``hidden_asks: host`` the Host's card gets Herald's questions of
    the hidden Strike; both screens say the Host decides; Ann can neither see nor answer them."""
    assert ford.decisions(ford.host)["settings"]["hidden_asks"] == "player"  # the default
    ford.settings(hidden_asks="host")
    assert ford.decisions(ford.ann)["settings"]["hidden_asks"] == "host"  # visible to players
    ford.turn_of("Boss")
    body = {"kind": "strike", "hidden": True, "args": {"striker": "Boss", "defender": "Herald"}}
    r = ford.client.post(ford.api("/commands"), headers=ford.host, json=body)
    assert r.status_code == 202, r.text
    hosts = ford.decisions(ford.host)
    assert {d["kind"] for d in hosts["decisions"]} == {"obstruction", "adjustments"}
    assert {d["decided_by"] for d in hosts["decisions"]} == {"the Host"}
    assert hosts["cards"][0]["decided_by"] == ["the Host"]
    assert all(w["waiting_for"].startswith("the Host: ") for w in hosts["waiting"])
    anns = ford.decisions(ford.ann)
    assert anns["decisions"] == [] and anns["cards"] == []
    assert {w["kind"] for w in anns["waiting"]} == {"obstruction", "adjustments"}
    assert {w["decided_by"] for w in anns["waiting"]} == {"the Host"}
    assert all(w["waiting_for"].startswith("the Host: ") for w in anns["waiting"])
    first = hosts["decisions"][0]["id"]
    refused = ford.client.post(ford.api(f"/decisions/{first}"), headers=ford.ann,
                               json={"choice": hosts["decisions"][0]["suggested"]})  # fmt: skip
    assert refused.status_code == 404, refused.text
    answers = {d["id"]: d["suggested"] for d in hosts["decisions"]}
    done = ford.client.post(ford.api("/decisions"), headers=ford.host, json={"answers": answers})
    assert done.status_code == 200, done.text
    assert ford.decisions(ford.ann)["waiting"] == []


@pytest.mark.parametrize("value", ["Host", "both", "", 1, True, ["host"]])
def test_issue21_d4_hidden_asks_refuses_other_values_naming_the_field(
    ford: Ford, value: Any
) -> None:
    r = ford.client.put(ford.api("/settings"), headers=ford.host, json={"hidden_asks": value})
    assert r.status_code == 422, r.text
    assert "hidden_asks" in r.json()["error"]
    assert ford.decisions(ford.host)["settings"]["hidden_asks"] == "player"


def test_issue21_d4_hidden_asks_cannot_be_null_nor_set_by_a_player(ford: Ford) -> None:
    r = ford.client.put(ford.api("/settings"), headers=ford.host, json={"hidden_asks": None})
    assert r.status_code == 400 and "hidden_asks" in r.json()["error"], r.text
    r = ford.client.put(ford.api("/settings"), headers=ford.ann, json={"hidden_asks": "host"})
    assert r.status_code == 403, r.text
    assert ford.decisions(ford.host)["settings"]["hidden_asks"] == "player"


def test_issue21_d8_a_step_off_the_die_is_refused_when_sent_over_the_api(ford: Ford) -> None:
    """Item 1 (M-12, D-8): Ann's Herald strikes Boss with her own dice and "4+" on a 12; the
    Host asks NPC decisions. Refused at once in one sentence naming Herald, nothing written,
    nobody asked (before, the Host was asked Boss's tokens and every answer was refused)."""
    ford.settings(npcs_decide="ask")
    ford.turn_of("Herald")
    before = ford.revision()
    steps = [{"die": 3, "delta": 1, "side": "striker"}]
    args = {"striker": "Herald", "defender": "Boss", "mode": "explicit", "steps": steps}
    body = {"kind": "strike", "args": args, "dice": [3, 4, 9, 12, 1, 7, 5]}
    r = ford.client.post(ford.api("/commands"), headers=ford.ann, json=body)
    assert r.status_code == 400, r.text
    # the face is public, so it is refused before the secret count is looked at (W-52)
    assert (
        r.json()["error"].startswith("Die 4 cannot be adjusted to 13") and "Traceback" not in r.text
    )
    assert ford.revision() == before
    assert ford.decisions(ford.host)["decisions"] == []
    assert ford.decisions(ford.host)["waiting"] == []


def test_issue21_w53_the_approval_shows_the_odds_with_and_without_the_boon(ford: Ford) -> None:
    """Item 3: the Host's approval of Ann's Boon 1 shows the Strike's exact odds with it and
    without it (before any die is rolled); Ann never reads the approval."""
    ford.turn_of("Herald")
    r = ford.command(ford.ann, "strike", striker="Herald", defender="Boss", boon=1)
    assert r.status_code == 202, r.text
    (approve,) = ford.decisions(ford.host)["decisions"]
    with_it, without = (o["odds"]["uncanceled_hit"]["p"] for o in approve["options"])
    assert with_it >= without and 0 < without < 1
    assert [o["effect"].split(":")[0] for o in approve["options"]] == ["with them", "without them"]
    assert "%" in approve["options"][0]["effect"]
    assert ford.decisions(ford.ann)["decisions"] == []
