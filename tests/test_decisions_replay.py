"""D-1 … D-5 under the web table's policy: any interleaving replays exactly, on both games.

Two players (seat 1 plays the first hero, seat 2 the second) and the Host play a War and a
Realm of Strife fight with the games' own choices and :class:`TablePolicy` as the asker: the
simulation policy's commands, sent by the actor's player or the Host, with the choices that
belong to others left out (so they are asked) and sometimes a proposal of a Host-only modifier;
answers by the owner or the Host; the deadline's sweeper (sender None) at random times; the
Host's undo and redo; random settings (wait or a timeout, NPCs asked or deciding, trusted
modifiers or not). After each run the log rebuilds the very state and waiting command
(``from_records``) and re-decides to the same events (``verify_replay``).
"""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from war_builders import add, until_turn_of

from tableside.encounter.decisions import Choice
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.policy import next_command as war_command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import next_command as fight_command
from tableside.encounter.war.game import MajestyWar
from tableside.errors import TablesideError
from tableside.store.table_audience import DecisionSettings
from tableside.store.tables import Seat
from tableside.web.auth import ForbiddenError, Principal
from tableside.web.decisions import TablePolicy, may_answer

SEED = 3
TABLE = 1


def war_table() -> tuple[Encounter[Any], tuple[Seat, ...]]:
    """Herald (seat 1) and Squire (seat 2) against Boss, an NPC; Herald's Turn."""
    encounter: Encounter[Any] = Encounter(MajestyWar(), SEED)
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Squire", (0.0, 1.0, 0.0))
    add(encounter, "Boss", (1.0, 0.0, 0.0), side="fallen", guard=20)
    until_turn_of(encounter, "Herald")
    seats = (Seat(1, TABLE, "Ann", ("Herald",)), Seat(2, TABLE, "Bo", ("Squire",)))
    return encounter, seats


def fight_table() -> tuple[Encounter[Any], tuple[Seat, ...]]:
    """Aldric (seat 1) and Sera (seat 2) against a Goblin, an NPC."""
    encounter: Encounter[Any] = Encounter(StrifeFight(), SEED)
    for dice, args in (
        ((10,), {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0, 0, 0]}),
        ((2,), {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0.5, 0.5, 0]}),
        ((12,), {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}),
    ):
        encounter.execute(Command("add", args, dice))
    encounter.execute(Command("start"))
    seats = (Seat(1, TABLE, "Al", ("Aldric",)), Seat(2, TABLE, "Se", ("Sera",)))
    return encounter, seats


OTHERS_CHOICES = ("mode", "steps", "obstruction", "interpose")


def left_open(data: st.DataObject, command: Command, game: str) -> Command:
    """The policy's command with the choices that belong to others left out, maybe a proposal."""
    args = dict(command.args)
    if game == "war" and command.kind == "strike":
        args = {k: v for k, v in args.items() if k not in OTHERS_CHOICES}
        if data.draw(st.booleans(), label="propose"):
            args["boon"] = 1
    if game == "fight" and command.kind == "attack":
        attacks = [{k: v for k, v in a.items() if k != "reaction"} for a in args["attacks"]]
        if data.draw(st.booleans(), label="propose"):
            attacks[0] = {**attacks[0], "modifiers": [5]}
        args["attacks"] = attacks
    return Command(command.kind, args, command.dice)


def sender(data: st.DataObject, actor: object, seats: tuple[Seat, ...]) -> Principal:
    """The actor's player, or the Host (who may send anything)."""
    owner = next((s for s in seats if actor in s.characters), None)
    if owner is not None and data.draw(st.booleans(), label="player sends"):
        return Principal(TABLE, owner)
    return Principal(TABLE, None)


def answer_value(data: st.DataObject, choice: Choice) -> Any:
    """One of the options, or for dice the server's roll (null) or faces."""
    if choice.kind == "dice":
        option = choice.options[0]
        count, sides = option["count"], option["sides"]
        faces = st.lists(st.integers(1, sides), min_size=count, max_size=count)
        return data.draw(st.none() | faces, label="dice")
    return data.draw(st.sampled_from([o["value"] for o in choice.options]), label="answer")


def actor_of(command: Command) -> object:
    return next((command.args[k] for k in ("striker", "attacker", "id") if k in command.args), None)


def play(data: st.DataObject, game: str) -> None:
    encounter, seats = war_table() if game == "war" else fight_table()
    setup = len(encounter.applied)
    table_settings = DecisionSettings(
        decision_timeout=data.draw(st.sampled_from([None, 10, 10]), label="timeout"),
        npcs_decide=data.draw(st.sampled_from(["ask", "auto"]), label="npcs"),
        trust_modifiers=data.draw(st.booleans(), label="trust"),
    )
    now = 0.0
    for _ in range(data.draw(st.integers(6, 20), label="steps")):
        now += 1.0
        op = data.draw(st.sampled_from(["command", "command", "answer", "answer", "expire",
                                        "expire", "undo", "redo"]))  # fmt: skip
        with contextlib.suppress(TablesideError, ForbiddenError):
            if op == "command" and not encounter.state.ended:
                policy = war_command if game == "war" else fight_command
                command = left_open(data, policy(encounter.state), game)
                who = sender(data, actor_of(command), seats)
                asker = TablePolicy(who, seats, table_settings, now)
                encounter.execute(command, asker=asker)
            elif op == "answer" and encounter.pending is not None:
                request = data.draw(st.sampled_from(encounter.pending.open), label="request")
                owner = [s for s in seats if may_answer(Principal(TABLE, s), request.choice, seats)]
                who = Principal(TABLE, owner[0] if owner else None)
                asker = TablePolicy(who, seats, table_settings, now)
                encounter.answer(request.id, answer_value(data, request.choice), "seat", asker)
            elif op == "expire":
                later = now + data.draw(st.sampled_from([0.0, 20.0, 20.0]), label="later")
                encounter.expire(later, TablePolicy(None, seats, table_settings, later))
            elif op == "undo" and (encounter.pending is not None or len(encounter.applied) > setup):
                encounter.undo()
            elif op == "redo":
                encounter.redo()
    rebuilt = Encounter.from_records(encounter.game, SEED, encounter.records)
    kinds = [r.kind.value for r in encounter.records]
    for kind in sorted(set(kinds) - {"command"}):
        event(f"{game}: a {kind} record")
    if any((r.data or {}).get("answer", {}).get("by") == "timeout" for r in encounter.records):
        event(f"{game}: a suggestion taken at the deadline")
    assert rebuilt.pending == encounter.pending, (kinds, rebuilt.pending, encounter.pending)
    assert rebuilt.state == encounter.state, kinds
    assert encounter.verify_replay().state == encounter.state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_d1_d5_any_interleaving_under_the_tables_policy_replays_a_war(data: st.DataObject) -> None:
    """D-1 … D-5: a War's commands, answers, timeouts, undo and redo replay exactly."""
    play(data, "war")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_d1_d5_any_interleaving_under_the_tables_policy_replays_a_fight(
    data: st.DataObject,
) -> None:
    """D-1 … D-5: a fight's commands, answers, timeouts, undo and redo replay exactly."""
    play(data, "fight")
