"""Issue 27, NPC policies that know the rules at the table (SA-98): the chooser the web table's
NPC Turns use, over random fights in both games, and suggestions refused by the engine."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_strife_issue27 import random_fight

from tableside.encounter.decisions import Ask, Choice, Policy
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.npc_turn import END, accepted, actor_of, npc_command
from tableside.encounter.roster import character_doc
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.errors import TablesideError

WEAPONS = ("Sword", "Axe", "Hammer", "Club", "Spear", "Bow", "Sling", "Staff")
EFFECTS = ("Knocked Back", "Exposed", "Faltering", "Bound", "Grappled", None)


@st.composite
def random_war(draw: st.DrawFn) -> Encounter[WarState]:
    """Two to four elohim on two sides, any weapon, some Bound, Grappled, Exposed …"""
    e: Encounter[WarState] = Encounter(MajestyWar(), draw(st.integers(0, 2**16)))
    count = draw(st.integers(2, 4))
    names = [f"e{i}" for i in range(count)]
    for i, name in enumerate(names):
        side = (
            "holy" if i == 0 else "fallen" if i == 1 else draw(st.sampled_from(("holy", "fallen")))
        )
        attributes = {k: draw(st.integers(10, 70)) for k in ("might", "swiftness", "control")}
        at = [draw(st.integers(-12, 12)) / 2, draw(st.integers(-12, 12)) / 2, 0.0]
        doc = character_doc(name, side, draw(st.sampled_from(WEAPONS)), attributes)
        e.execute(Command("add", {"id": name, "position": at, "character": doc}))
    e.execute(Command("next"))
    for name in names:
        effect = draw(st.sampled_from(EFFECTS))
        if effect is None:
            continue
        args: dict[str, Any] = {"id": name, "effect": effect}
        if effect in ("Bound", "Grappled"):
            args["by"] = draw(st.sampled_from([n for n in names if n != name]))
        with contextlib.suppress(TablesideError):  # an effect refused here is not put on
            e.execute(Command("apply_effect", args))
    return e


def play_npcs(e: Encounter[Any], npc: Any, steps: int) -> None:
    """Play ``steps`` commands chosen by the table's NPC chooser; each must be accepted."""
    for _ in range(steps):
        if getattr(e.state, "ended", False) or e.state.current is None:
            return
        command = npc_command(e.game, e.state, npc)
        actor = actor_of(command)
        assert actor is None or npc(actor), command
        try:
            e.execute(command)
        except TablesideError as error:
            raise AssertionError(f"the engine refused the NPC's {command}: {error}") from None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_fight())
def test_sa98_every_npc_choice_at_the_table_is_accepted_in_a_fight(
    e: Encounter[FightState],
) -> None:
    """SA-98: over random Realm of Strife fights, every command chosen for an NPC is accepted,
    and none acts for a model a seat plays (here: m0)."""
    play_npcs(e, lambda model: model != "m0", 40)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_war())
def test_sa98_every_npc_choice_at_the_table_is_accepted_in_a_war(e: Encounter[WarState]) -> None:
    """SA-98: over random Wars, every command chosen for an NPC is accepted (the end of the Turn
    when the policy has nothing the engine accepts)."""
    play_npcs(e, lambda _model: True, 40)


def test_sa98_a_refused_war_choice_is_passed_over_for_the_end_of_the_turn() -> None:
    """SA-98: a War policy choice the engine refuses is never sent; the end of the Turn is."""
    e: Encounter[WarState] = Encounter(MajestyWar(), 3)
    for name, side, at in (("a", "holy", [0.0, 0.0, 0.0]), ("b", "fallen", [2.0, 0.0, 0.0])):
        e.execute(
            Command("add", {"id": name, "position": at, "character": character_doc(name, side)})
        )
    e.execute(Command("next"))
    me = e.state.current
    assert me is not None
    chosen = npc_command(e.game, e.state, lambda model: model != str(me.combatant))
    assert chosen == END  # the acting elohim is a player's: nothing chosen for it
    assert accepted(e.game, e.state, END)


def test_sa98_an_npcs_suggestion_the_engine_refuses_gives_way_to_the_next_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SA-98, D-5: a suggestion taken for an NPC that the rules refuse (here a Ward-off Aldric
    cannot make) gives way to the next option the engine accepts: the command is not refused."""
    from test_decisions_strife import duel, goblin_attack

    real = StrifeFight.choices

    def bad_suggestions(self: StrifeFight, state: Any, command: Command, rng: Any) -> list[Choice]:
        found = real(self, state, command, rng)
        return [replace(c, suggested="ward_off") if c.kind == "reaction" else c for c in found]

    e = duel()
    monkeypatch.setattr(StrifeFight, "choices", bad_suggestions)
    record = e.execute(Command("attack", goblin_attack()), asker=lambda _c: Ask(Policy.TAKE))
    assert e.pending is None and record.command is not None
    assert record.command.args["attacks"][0]["reaction"] is None  # the first option accepted
    assert e.verify_replay().state == e.state


def test_sa98_an_answer_at_a_deadline_or_for_an_automatic_npc_tries_every_option_in_order() -> None:
    """SA-98, D-5: the web table's automatic answers: the suggestion, then the other options;
    a proposal only rejected; a free choice (dice) only its suggestion."""
    from tableside.web.table_answers import fallbacks

    options = ({"value": None}, {"value": "block"}, {"value": "parry"})
    choice = Choice("reaction", "Goblin", ("attacks", 0, "reaction"), options, "parry")
    assert fallbacks(choice, "parry") == ["parry", None, "block"]
    approve = replace(choice, kind="approve", options=({"value": "approve"}, {"value": "reject"}))
    assert fallbacks(approve, "reject") == ["reject"]
    assert fallbacks(replace(choice, free=True), None) == [None]
