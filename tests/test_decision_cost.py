"""Issue 21, item 8: a Strike's server cost. What it must not do, counted (not timed).

- A Host's Strike with the Target's choices given reads no seats or settings (D-4: what the
  Host gives stands), and lists its choices once.
- A player's Strike on an automatic NPC lists its choices once: taking the Target's Obstruction
  and Adjustments suggestions opens no other choice (``MajestyWar.settles``), so the engine
  does not list them a second time.
- A waiting Strike's 202 reads the seats and the secrecy once each, and not the hidden commands
  (the command just stored says whether it is hidden); the same answer as with that read.
- One submission of answers is stored in one transaction, however many answers.

The outcomes are the same as without these savings: the existing golden and decision tests
hold (docs/decisions.md, D-5 and the performance notes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tableside.encounter.log import Command
from tableside.encounter.roster import character_doc
from tableside.encounter.war.game import MajestyWar
from tableside.store import Store, table_audience, tables
from tableside.web.auth import Principal
from tableside.web.table import WebTable

HERALD = {"might": 42, "swiftness": 45, "control": 30}
WARRIOR = {"might": 56, "swiftness": 22, "control": 40}
STRIKE = {"striker": "Herald", "defender": "Warrior"}


@pytest.fixture
def war(tmp_path: Path) -> Iterator[tuple[WebTable, Principal, Principal, int]]:
    table, host, player, eid, _token = next(scene(tmp_path))
    yield table, host, player, eid
    table.store.close()


def scene(tmp_path: Path) -> Iterator[tuple[WebTable, Principal, Principal, int, str]]:
    """The War on Herald's Turn: the table, the Host, Ann (Herald's player), the encounter, and
    Ann's token."""
    table = WebTable(Store.open(f"sqlite:///{tmp_path}/cost.db"))
    table_id, _token = table.create_table("Cost")
    host = Principal(table_id, None)
    _seat, token = table.add_player(host, table_id, "Ann", ("Herald",))
    info = table.create_encounter(host, table_id, "majesty-war", "Cost", 7)
    for name, side, weapon, at, attributes in (
        ("Herald", "holy", "Sword", [0.0, 0.0, 0.0], HERALD),
        ("Warrior", "fallen", "Axe", [2.0, 0.0, 0.0], WARRIOR),
    ):
        doc = character_doc(name, side, weapon, attributes)
        add = Command("add", {"id": name, "position": at, "character": doc})
        table.execute(host, info.id, add, None)
    table.execute(host, info.id, Command("next"), None)
    player, _info = table.at_encounter(token, info.id)
    yield table, host, player, info.id, token


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_issue21_item8_a_hosts_given_strike_reads_no_seats_and_lists_once(
    war: tuple[WebTable, Principal, Principal, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, host, _ann, eid = war
    reads = counting(monkeypatch, table_audience, "seats_and_settings")
    listed = counting(monkeypatch, MajestyWar, "choices")
    given = Command("strike", {**STRIKE, "obstruction": 0, "mode": "best"})
    done = table.execute(host, eid, given, None)
    assert done["record"]["kind"] == "command"
    assert reads == [] and len(listed) == 1


def test_issue21_item8_an_automatic_npcs_strike_lists_its_choices_once(
    war: tuple[WebTable, Principal, Principal, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, _host, ann, eid = war
    listed = counting(monkeypatch, MajestyWar, "choices")
    auto = table.execute(ann, eid, Command("strike", STRIKE), None)
    assert len(listed) == 1
    args = auto["record"]["command"]["args"]
    assert args["obstruction"] == 0 and args["mode"] == "best"  # the suggestions, both taken
    assert [e["kind"] for e in auto["record"]["events"]].count("strike_resolved") == 1


def test_issue21_item8_a_waiting_strikes_answer_reads_each_thing_once(
    war: tuple[WebTable, Principal, Principal, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, host, ann, eid = war
    table.set_settings(host, eid, {"npcs_decide": "ask"})
    seats = counting(monkeypatch, tables, "seats")
    hidden = counting(monkeypatch, table_audience, "hidden_seqs")
    secrecy = counting(monkeypatch, table_audience, "secrecy")
    sent = table.execute(ann, eid, Command("strike", STRIKE), None)
    assert {q["kind"] for q in sent["pending"]} == {"obstruction", "adjustments"}
    assert sent["waiting"] and all(w["decided_by"] == "the Host" for w in sent["waiting"])
    assert seats == [] and hidden == [] and len(secrecy) <= 1


@pytest.mark.parametrize("hide", [False, True])
def test_issue21_item8_a_202_without_the_hidden_read_is_the_202_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hide: bool
) -> None:
    """The 202 of a waiting Strike (a player's; the Host's on a player's character, hidden or
    not) is the same whether the hidden commands are read or taken from the command just
    stored."""
    answers: list[list[dict[str, Any]]] = []
    plain = WebTable.seen
    for read in (False, True):
        if read:  # the plain path: every view reads the hidden commands
            monkeypatch.setattr(WebTable, "seen", lambda self, *a: plain(self, *a[:5]))
        (tmp_path / str(read)).mkdir()
        table, host, ann, eid, _token = next(scene(tmp_path / str(read)))
        try:
            table.set_settings(host, eid, {"npcs_decide": "ask"})
            found = [table.execute(ann, eid, Command("strike", STRIKE), None)]
            table.step_back(host, eid, None, redo=False)
            table.execute(host, eid, Command("next"), None)  # the Warrior's Turn: Ann is asked
            back = Command("strike", {"striker": "Warrior", "defender": "Herald"})
            found.append(table.execute(host, eid, back, None, hidden=hide))
            found.append(table.decisions(ann, eid))
            answers.append(found)
        finally:
            table.store.close()
    assert answers[0] == answers[1]
    assert "pending" in answers[0][0] and "pending" in answers[0][1]
    assert answers[0][2]["decisions"]  # Ann is asked, hidden or not (issue 21, item 2)


def test_issue21_item8_a_players_strike_reads_seats_and_settings_with_its_first_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The authorising read of a player's request brings the seats and the decision settings
    (with the secrecy, one statement): its Strike's policy reads nothing more, automatic or
    asked."""
    table, host, _ann, eid, token = next(scene(tmp_path))
    try:
        reads = counting(monkeypatch, table_audience, "seats_and_settings")
        seats = counting(monkeypatch, tables, "seats")
        secrecy = counting(monkeypatch, table_audience, "secrecy")
        ann, _info = table.at_encounter(token, eid)
        auto = table.execute(ann, eid, Command("strike", STRIKE), None)
        assert auto["record"]["kind"] == "command"
        table.step_back(host, eid, None, redo=False)
        table.set_settings(host, eid, {"npcs_decide": "ask"})
        ann, _info = table.at_encounter(token, eid)
        asked = table.execute(ann, eid, Command("strike", STRIKE), None)
        assert {q["kind"] for q in asked["pending"]} == {"obstruction", "adjustments"}
        assert reads == [] and seats == [] and secrecy == []
    finally:
        table.store.close()


def test_issue21_item8_the_hosts_card_and_answers_read_the_table_once(
    war: tuple[WebTable, Principal, Principal, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Host's read of its card is one read of the audience (seats, settings, secrecy and
    hidden commands); its submission of two answers one more, however many answers."""
    table, host, ann, eid = war
    table.set_settings(host, eid, {"npcs_decide": "ask"})
    table.execute(ann, eid, Command("strike", STRIKE), None)
    audience = counting(monkeypatch, table_audience, "audience")
    names = ("seats", "seats_and_settings", "decision_settings", "hidden_seqs")
    others = [counting(monkeypatch, tables if n == "seats" else table_audience, n) for n in names]
    seen = table.decisions(host, eid)
    assert len(audience) == 1
    answers = {q["id"]: q["suggested"] for q in seen["decisions"]}
    assert len(answers) == 2
    appends = counting(monkeypatch, Store, "append")
    together = counting(monkeypatch, Store, "append_all")
    done = table.answer_decisions(host, eid, answers)
    assert done["record"]["data"]["outcome"] == "resolved"
    assert len(audience) == 2 and others == [[], [], [], []]
    assert appends == [] and together == [1]  # both answers in one transaction
    _info, stored = table.store.load(eid)
    assert [r.kind.value for r in stored[-2:]] == ["answer", "answer"]


def test_issue21_item8_a_reactions_exact_law_is_kept_and_is_the_law() -> None:
    """The exact law of an attack kept for a repeated attack (an automatic NPC's Reaction) is
    the very law ``attack_odds`` finds, for every Reaction; a changed defender is weighed anew."""
    from test_decisions_strife import duel

    from tableside.encounter.strife.args import AttackItem
    from tableside.encounter.strife.attack import attack_setup
    from tableside.encounter.strife.fight import StrifeFight
    from tableside.encounter.strife.laws import exact_law
    from tableside.encounter.strife.reaction_choices import REACTIONS
    from tableside.encounter.strife.turns import Pending
    from tableside.errors import TablesideError
    from tableside.strife.odds import attack_odds

    e = duel()
    game = StrifeFight()
    goblin = e.state.models["Goblin"]
    weighed = 0
    for value in (None, *REACTIONS):
        item = AttackItem(defender="Aldric", reaction=value)
        try:
            setup = attack_setup(game, Pending(e.state), goblin, item)
            law = attack_odds(setup)
        except TablesideError:
            continue
        kept = exact_law(setup)
        assert kept == law
        again = attack_setup(game, Pending(e.state), goblin, item)
        assert exact_law(again) is kept  # the same attack: reused
        hurt = again.defender.model_copy(update={"hp": max(1, again.defender.hp - 3)})
        other = exact_law(dataclasses.replace(again, defender=hurt))
        assert other == attack_odds(dataclasses.replace(again, defender=hurt))
        weighed += 1
    assert weighed >= 2
