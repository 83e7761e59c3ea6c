"""Realm of Strife choices, each made by its owner (issue 11): D-4, D-6, D-7."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strife_builders import sheet

from tableside.encounter.decisions import Ask, Choice, Policy, WaitingError, at_deadline
from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.encounter.strife.args import AttackItem
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import next_command
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.errors import TablesideError
from tableside.strife.odds import attack_odds

SEED = 3
SETUP = 4  # the duel's adds and start: the property test does not undo them


def ask_all(choice: Choice) -> Ask:
    return Ask(Policy.ASK)


def ask_open(choice: Choice) -> Ask:
    """Its owner gave it, or is asked."""
    return Ask(Policy.KEEP if choice.given else Policy.ASK)


def keep_all(choice: Choice) -> Ask:
    return Ask(Policy.KEEP)


def take_all(choice: Choice) -> Ask:
    return Ask(Policy.TAKE)


def do(e: Encounter[FightState], kind: str, dice: tuple[int, ...] | None = None, /,
       **args: Any) -> LogRecord:  # fmt: skip
    return e.execute(Command(kind, args, dice))


def duel() -> Encounter[FightState]:
    """Aldric (sword and shield) and Sera (two daggers) against a Goblin (spear); Goblin first."""
    e: Encounter[FightState] = Encounter(StrifeFight(), SEED)
    do(e, "add", (10,), id="Aldric", model="Aldric", side="heroes", position=[0, 0, 0])
    do(e, "add", (2,), id="Sera", model="Sera", side="heroes", position=[0.5, 0.5, 0])
    do(e, "add", (12,), id="Goblin", model="Goblin", side="monsters", position=[1, 0, 0])
    do(e, "start")
    assert e.state.current == "Goblin"
    return e


def choices(e: Encounter[FightState], kind: str, **args: Any) -> list[Choice]:
    command = Command(kind, args)
    game = e.game
    assert isinstance(game, StrifeFight)
    return list(game.choices(e.state, command, command_rng(SEED, e.next_seq, command)))


def values(choice: Choice) -> list[Any]:
    return [o["value"] for o in choice.options]


def goblin_attack(**item: Any) -> dict[str, Any]:
    return {"attacker": "Goblin", "attacks": [{"defender": "Aldric", **item}]}


# --- D-7: the defender's Reaction -------------------------------------------------------------


def test_d7_the_reaction_choice_lists_only_legal_reactions_for_the_defender() -> None:
    e = duel()
    (choice,) = choices(e, "attack", **goblin_attack())
    assert (choice.kind, choice.combatant, choice.path) == ("reaction", "Aldric",
                                                           ("attacks", 0, "reaction"))  # fmt: skip
    assert choice.key == "reaction.0" and not choice.given and not choice.free
    # Kite Shield and Long Sword: no off-hand weapon, no Ward-off weapon.
    assert values(choice) == [None, "block", "parry", "block_and_parry"]
    assert choice.options[0]["label"] == "No Reaction"
    assert choice.prompt == "Goblin attacks Aldric with a Spear: how does Aldric react?"


def test_d7_each_defender_is_offered_what_its_own_gear_allows() -> None:
    e = duel()
    do(e, "next")  # Aldric's Turn
    (choice,) = choices(e, "attack", attacker="Aldric", attacks=[{"defender": "Goblin"}])
    assert values(choice) == [None, "ward_off"]  # the Spear cannot Parry, no shield
    do(e, "next")  # Sera's Turn: the Goblin's Spear Wards off a Dagger too
    (choice,) = choices(e, "attack", attacker="Sera", attacks=[{"defender": "Goblin"}])
    assert values(choice) == [None, "ward_off"]


def test_d7_odds_are_the_odds_engines_and_the_suggestion_is_the_best_for_the_defender() -> None:
    e = duel()
    (choice,) = choices(e, "attack", **goblin_attack())
    goblin = e.state.models["Goblin"]
    ranks = {}
    for option in choice.options:
        item = AttackItem(defender="Aldric", reaction=option["value"])
        law = attack_odds(attack_setup(e.game, Pending(e.state), goblin, item))  # type: ignore[arg-type]
        dealt = 1 - law.damage.p(0)
        assert option["odds"]["damage"]["fraction"] == f"{dealt.numerator}/{dealt.denominator}"
        assert option["odds"]["hit"]["p"] == float(law.hits)
        assert option["odds"]["defeat"]["p"] == float(law.defeat)
        assert option["odds"]["mean_damage"] == float(law.damage.mean)
        ranks[option["value"]] = (dealt, law.damage.mean, option["value"] is not None)
    assert choice.suggested == min(ranks, key=lambda v: ranks[v])
    assert choice.suggested is not None  # a Reaction beats taking the Spear unopposed


def test_d7_no_choice_once_the_rounds_reaction_is_spent() -> None:
    e = duel()
    do(e, "attack", attacker="Goblin", attacks=[{"defender": "Aldric", "reaction": "block"}])
    do(e, "next")  # Aldric
    do(e, "next")  # Sera
    assert not e.state.rounds.can_react("Aldric")
    assert e.state.current == "Sera"  # in contact with both: a stray blow at Aldric asks nothing
    assert choices(e, "attack", attacker="Sera", attacks=[{"defender": "Aldric"}]) == []
    listed = choices(e, "attack", attacker="Sera", attacks=[{"defender": "Goblin"}])
    assert [c.combatant for c in listed] == ["Goblin"]


def test_d7_a_given_reaction_is_listed_as_given() -> None:
    e = duel()
    (choice,) = choices(e, "attack", **goblin_attack(reaction="parry"))
    # issue 21: a given Reaction is never asked, so its options (each an exact law and a dry
    # run) are not computed; the open one lists them
    assert choice.given and values(choice) == []
    (open_choice,) = choices(e, "attack", **goblin_attack())
    assert values(open_choice) == [None, "block", "parry", "block_and_parry"]
    (choice,) = choices(e, "attack", **goblin_attack(reaction=None))
    assert choice.given


def test_d7_one_reaction_per_round_is_asked_attack_by_attack() -> None:
    e = duel()
    do(e, "next")
    do(e, "next")  # Sera attacks the Goblin with both Daggers (SA-46)
    twice = {"attacker": "Sera", "attacks": [{"defender": "Goblin"}, {"defender": "Goblin"}]}
    assert [c.key for c in choices(e, "attack", **twice)] == ["reaction.0"]
    declined = {
        **twice,
        "attacks": [{"defender": "Goblin", "reaction": None}, {"defender": "Goblin"}],
    }
    listed = choices(e, "attack", **declined)
    assert [(c.key, c.given) for c in listed] == [("reaction.0", True), ("reaction.1", False)]
    assert values(listed[1]) == [None, "ward_off"]
    assert listed[1].prompt == (
        "Sera attacks Goblin with a Dagger (attack 2 of 2): how does Goblin react?"
    )
    spent = {
        **twice,
        "attacks": [{"defender": "Goblin", "reaction": "ward_off"}, {"defender": "Goblin"}],
    }
    assert [c.key for c in choices(e, "attack", **spent)] == ["reaction.0"]


def test_d7_the_defender_answers_attack_by_attack_and_cannot_spend_its_reaction_twice() -> None:
    e = duel()
    do(e, "next")
    do(e, "next")  # Sera, with both Daggers
    twice = {"attacker": "Sera", "attacks": [{"defender": "Goblin"}, {"defender": "Goblin"}]}
    record = e.execute(Command("attack", twice), asker=ask_all)
    assert record.kind == RecordKind.REQUEST and e.pending is not None
    (first,) = e.pending.open
    assert first.choice.key == "reaction.0" and first.choice.combatant == "Goblin"
    e.answer(first.id, None, "host", ask_all)
    (second,) = e.pending.open
    assert second.choice.key == "reaction.1"
    last = e.answer(second.id, "ward_off", "host", ask_all)
    assert e.pending is None and last.data is not None and last.data["outcome"] == "resolved"
    spent = [ev for ev in last.events if ev.kind == "reaction_spent"]
    assert len(spent) == 1 and spent[0].data["id"] == "Goblin"


def test_d7_an_invalid_attack_asks_nobody_and_is_refused_with_nothing_written() -> None:
    e = duel()
    before = e.revision
    with pytest.raises(TablesideError, match="It is not Aldric's Turn"):
        e.execute(Command("attack", {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}),
                  asker=ask_all)  # fmt: skip
    assert e.revision == before and e.pending is None


# --- D-7 in the engine: the attack waits for the defender ---------------------------------------


def npc_attack_waits() -> tuple[Encounter[FightState], str]:
    e = duel()
    record = e.execute(Command("attack", goblin_attack()), asker=ask_all)
    assert record.kind == RecordKind.REQUEST and record.events == ()
    assert e.pending is not None
    (request,) = e.pending.open
    assert (request.choice.kind, request.choice.combatant) == ("reaction", "Aldric")
    return e, request.id


def one_shot(command: Command) -> tuple[Event, ...]:
    """The events of ``command`` decided at once on the same history (same dice stream)."""
    e = duel()
    return e.execute(command).events


def test_d7_an_npc_attack_waits_for_the_pc_and_parry_resolves_as_the_one_shot_attack() -> None:
    e, request = npc_attack_waits()
    assert e.state.rounds.can_react("Aldric") and "action" not in e.state.models["Goblin"].elements
    with pytest.raises(WaitingError, match="Aldric's reaction"):
        do(e, "next")
    last = e.answer(request, "parry", "seat:aldric", ask_all)
    assert last.data is not None and last.data["outcome"] == "resolved"
    assert last.events == one_shot(Command("attack", goblin_attack(reaction="parry")))
    assert not e.state.rounds.can_react("Aldric")


def test_d7_an_answer_not_on_offer_is_refused_and_nothing_changes() -> None:
    e, request = npc_attack_waits()
    before = (e.revision, e.pending)
    with pytest.raises(WaitingError, match="combined_parry"):
        e.answer(request, "combined_parry", "seat:aldric", ask_all)
    assert (e.revision, e.pending) == before


def test_d7_undo_redo_and_replay_while_the_reaction_waits() -> None:
    e, request = npc_attack_waits()
    waiting = e.pending
    assert Encounter.from_records(e.game, SEED, e.records).pending == waiting
    e.verify_replay()
    e.undo()
    assert e.pending is None and e.state.rounds.can_react("Aldric")
    e.redo()
    assert e.pending == waiting
    last = e.answer(request, "block", "seat:aldric", ask_all)
    rebuilt = Encounter.from_records(e.game, SEED, e.records)
    assert rebuilt.state == e.state and rebuilt.pending is None
    assert e.verify_replay().state == e.state
    assert last.events == one_shot(Command("attack", goblin_attack(reaction="block")))


def test_d7_a_timeout_takes_the_suggested_reaction() -> None:
    e = duel()
    e.execute(Command("attack", goblin_attack()), asker=lambda c: Ask(Policy.ASK, 100.0))
    assert e.pending is not None
    suggested = e.pending.open[0].choice.suggested
    (last,) = e.expire(100.0, ask_all)
    assert last.data is not None and last.data["answer"]["by"] == "timeout"
    assert last.events == one_shot(Command("attack", goblin_attack(reaction=suggested)))


def test_d7_an_npc_set_to_decide_automatically_takes_the_suggestion_at_once() -> None:
    e = duel()
    record = e.execute(Command("attack", goblin_attack()), asker=take_all)
    assert record.kind == RecordKind.COMMAND
    assert record.command is not None
    suggested = record.command.args["attacks"][0]["reaction"]
    assert suggested == "block_and_parry"
    assert record.events == one_shot(Command("attack", goblin_attack(reaction=suggested)))


# --- D-4: Host-only modifiers -----------------------------------------------------------------


def test_d4_raw_modifiers_need_the_hosts_approval() -> None:
    e = duel()
    listed = choices(e, "attack", **goblin_attack(modifiers=[30], reaction=None))
    approve = next(c for c in listed if c.kind == "approve")
    # issue 21: Approve is the suggested answer; a deadline still rejects (D-5)
    assert approve.combatant is None and approve.given and approve.suggested == "approve"
    assert at_deadline(approve) == "reject" and approve.gate
    assert "attack 1 modifiers [30]" in approve.prompt
    assert not [c for c in choices(e, "attack", **goblin_attack()) if c.kind == "approve"]


def test_issue21_w53_the_approval_shows_the_odds_with_and_without_the_modifiers() -> None:
    """Item 3: the Host's approval of +30 to hit shows each attack's exact odds with it and
    without it (the law ``attack_odds`` finds)."""
    e = duel()
    command = Command("attack", goblin_attack(modifiers=[30], reaction=None))
    approve = next(c for c in choices(e, "attack", **command.args) if c.kind == "approve")
    effects = StrifeFight().effects(e.state, command, command_rng(SEED, 9, command), approve)
    by_value = {o["value"]: fx for o, fx in zip(approve.options, effects, strict=True)}
    with_it, without = by_value["approve"], by_value["reject"]
    assert with_it is not None and without is not None
    assert with_it["effect"].startswith("with them: attack 1: ")
    assert with_it["odds_by_attack"][0]["hit"]["p"] > without["odds_by_attack"][0]["hit"]["p"]


def test_d4_a_weapon_an_unarmed_model_names_needs_the_hosts_approval() -> None:
    e: Encounter[FightState] = Encounter(StrifeFight(), SEED)
    brawler = sheet("Brawler").model_dump(mode="json")
    do(e, "add", (20,), id="Brawler", sheet=brawler, side="heroes", position=[0, 0, 0])
    do(e, "add", (12,), id="Goblin", model="Goblin", side="monsters", position=[1, 0, 0])
    do(e, "start")
    assert e.state.current == "Brawler"  # it holds nothing: it may name a weapon (SA-45)
    named = {"attacker": "Brawler", "attacks": [{"defender": "Goblin", "weapon": "Long Sword"}]}
    listed = choices(e, "attack", **named)
    assert [c.kind for c in listed] == ["approve", "reaction"]
    assert "Long Sword (not held)" in listed[0].prompt
    assert e.execute(Command("attack", named), asker=keep_all).kind == RecordKind.COMMAND
    e2 = duel()
    listed = choices(e2, "attack", **goblin_attack(weapon="Spear", reaction=None))
    assert [c.kind for c in listed] == ["reaction"]  # the Spear it holds: nothing to approve


def test_d4_approved_modifiers_apply() -> None:
    e = duel()
    command = Command("attack", goblin_attack(modifiers=[30], reaction=None))
    e.execute(command, asker=lambda c: Ask(Policy.ASK if c.kind == "approve" else Policy.KEEP))
    assert e.pending is not None
    (approve,) = e.pending.open
    last = e.answer(approve.id, "approve", "host", keep_all)
    assert last.data is not None and last.data["outcome"] == "resolved"
    assert last.events == one_shot(command)
    (resolved,) = [ev for ev in last.events if ev.kind == "attack_resolved"]
    assert any(part.get("amount") == 30 for part in resolved.data["result"]["modifiers"])


def test_d4_rejected_modifiers_withdraw_the_command_and_apply_nothing() -> None:
    e = duel()
    before = e.state
    e.execute(Command("attack", goblin_attack(modifiers=[30])), asker=ask_all)
    assert e.pending is not None
    approve = next(r for r in e.pending.open if r.choice.kind == "approve")
    last = e.answer(approve.id, "reject", "host", ask_all)
    assert last.data is not None and last.data["outcome"] == "withdrawn"
    assert e.pending is None and e.state == before and last.events == ()
    assert e.verify_replay().state == before


def test_d4_a_casts_spell_power_damage_and_unresisted_targets_need_approval() -> None:
    e = duel()
    base = {"caster": "Goblin", "targets": ["Aldric"], "power": "Spark", "element": "fire"}
    assert choices(e, "cast", **base) == []
    for extra in ({"spell_power": 100}, {"damage": "1d4+100"}, {"resists": False}):
        (approve,) = choices(e, "cast", **base, **extra)
        assert approve.kind == "approve" and approve.combatant is None
        assert next(iter(extra)) in approve.prompt


# --- D-6: staged physical dice ----------------------------------------------------------------

PHYSICAL = ["Goblin", "Aldric"]


def staged(**extra: Any) -> dict[str, Any]:
    return {**goblin_attack(reaction="parry"), "physical": PHYSICAL, **extra}


def test_d6_the_next_stage_is_listed_for_its_roller_once_the_reaction_is_declared() -> None:
    e = duel()
    undeclared = {**goblin_attack(), "physical": PHYSICAL}
    assert [c.kind for c in choices(e, "attack", **undeclared)] == ["reaction"]
    listed = choices(e, "attack", **staged())
    dice = listed[-1]
    assert (dice.kind, dice.combatant, dice.key) == ("dice", "Goblin", "dice.0.hit")
    assert dice.path == ("rolled", "0.hit")
    assert dice.free and dice.suggested is None
    assert (dice.options[0]["count"], dice.options[0]["sides"]) == (1, 100)
    after_hit = choices(e, "attack", **staged(rolled={"0.hit": [90]}))[-1]
    assert (after_hit.combatant, after_hit.path) == ("Aldric", ("rolled", "0.reaction"))
    assert (after_hit.options[0]["count"], after_hit.options[0]["sides"]) == (1, 20)
    after_parry = choices(e, "attack", **staged(rolled={"0.hit": [90], "0.reaction": [2]}))
    assert (after_parry[-1].combatant, after_parry[-1].path) == ("Goblin", ("rolled", "0.damage"))
    assert (after_parry[-1].options[0]["count"], after_parry[-1].options[0]["sides"]) == (1, 8)
    done = staged(rolled={"0.hit": [90], "0.reaction": [2], "0.damage": [5]})
    listed = choices(e, "attack", **done)
    assert all(c.given for c in listed) and [c.kind for c in listed] == ["reaction", *["dice"] * 3]


def test_d6_dice_already_entered_are_listed_as_given_by_their_roller() -> None:
    e = duel()
    listed = choices(e, "attack", **staged(rolled={"0.hit": [90], "0.reaction": [2]}))
    given = [(c.key, c.combatant) for c in listed if c.kind == "dice" and c.given]
    assert given == [("dice.0.hit", "Goblin"), ("dice.0.reaction", "Aldric")]


def test_d6_dice_entered_ahead_of_their_stage_are_refused() -> None:
    e = duel()
    with pytest.raises(TablesideError, match=r"'0.damage' before the hit roll of attack 1"):
        choices(e, "attack", **staged(rolled={"0.damage": [5]}))
    early = {**goblin_attack(), "physical": PHYSICAL, "rolled": {"0.hit": [90]}}
    with pytest.raises(TablesideError, match="before every Reaction of the attack is declared"):
        e.execute(Command("attack", early), asker=ask_open)
    with pytest.raises(TablesideError, match="with an index below 1"):
        choices(e, "attack", **staged(rolled={"1.hit": [5]}))
    assert e.revision == SETUP and e.pending is None


def test_d6_three_stages_answered_in_order_equal_the_dice_typed_at_once() -> None:
    e = duel()
    e.execute(Command("attack", {**goblin_attack(), "physical": PHYSICAL}), asker=ask_all)
    asked = []
    for answer in ("parry", [90], [2], [5]):
        assert e.pending is not None
        (request,) = e.pending.open
        asked.append((request.choice.kind, request.choice.combatant, request.choice.path))
        last = e.answer(request.id, answer, "seat", ask_all)
    assert asked == [
        ("reaction", "Aldric", ("attacks", 0, "reaction")),
        ("dice", "Goblin", ("rolled", "0.hit")),
        ("dice", "Aldric", ("rolled", "0.reaction")),
        ("dice", "Goblin", ("rolled", "0.damage")),
    ]
    assert last.data is not None and last.data["outcome"] == "resolved"
    typed = one_shot(Command("attack", goblin_attack(reaction="parry"), (90, 2, 5)))
    assert last.events == typed
    assert any(ev.kind == "hp_set" and ev.data["damage"] for ev in typed)
    assert e.verify_replay().state == e.state


def test_d6_a_stage_left_to_the_server_is_rolled_from_the_stream() -> None:
    e = duel()
    command = Command("attack", {**goblin_attack(reaction=None), "physical": ["Goblin"]})
    e.execute(command, asker=ask_open)
    assert e.pending is not None
    (request,) = e.pending.open
    last = e.answer(request.id, None, "timeout", ask_open)
    assert last.events == one_shot(Command("attack", goblin_attack(reaction=None)))


def test_d6_bad_dice_are_refused_with_one_sentence_and_nothing_changes() -> None:
    e = duel()
    e.execute(Command("attack", {**goblin_attack(reaction="parry"), "physical": PHYSICAL}),
              asker=ask_open)  # fmt: skip
    assert e.pending is not None
    (request,) = e.pending.open
    before = (e.revision, e.pending, e.state)
    with pytest.raises(TablesideError, match=r"hit roll of attack 1 .* needs 1 die of 1 to 100, "
                       r"not \[0\]"):  # fmt: skip
        e.answer(request.id, [0], "seat", ask_open)
    with pytest.raises(TablesideError, match=r"needs 1 die of 1 to 100, not \[101\]"):
        e.answer(request.id, [101], "seat", ask_open)
    with pytest.raises(TablesideError, match=r"not \[50, 60\]"):
        e.answer(request.id, [50, 60], "seat", ask_open)
    assert (e.revision, e.pending, e.state) == before
    e.answer(request.id, [90], "seat", ask_open)
    assert e.pending is not None
    (parry,) = e.pending.open
    with pytest.raises(TablesideError, match=r"Block/Parry test of attack 1 \(Aldric's 1d20\) "
                       r"needs 1 die of 1 to 20, not \[21\]"):  # fmt: skip
        e.answer(parry.id, [21], "seat", ask_open)
    assert e.pending.open == (parry,)


def test_d6_missing_or_stray_dice_are_refused_by_the_one_shot_engine() -> None:
    e = duel()
    with pytest.raises(TablesideError, match=r"needs Goblin's physical dice: 1d100"):
        do(e, "attack", **{**goblin_attack(), "physical": ["Goblin"]})
    with pytest.raises(TablesideError, match="physical names nobody"):
        do(e, "attack", **{**goblin_attack(), "rolled": {"0.hit": [50]}})
    with pytest.raises(TablesideError, match="does not roll physically"):
        do(e, "attack", **{**goblin_attack(), "physical": ["Aldric"], "rolled": {"0.hit": [50]}})
    with pytest.raises(TablesideError, match="did not roll"):
        do(e, "attack", **{**goblin_attack(), "physical": ["Goblin"],
                           "rolled": {"0.hit": [3], "0.damage": [4]}})  # fmt: skip
    with pytest.raises(TablesideError, match="not both"):
        do(e, "attack", (50,), **{**goblin_attack(), "physical": ["Goblin"]})
    assert e.revision == 4 and e.state.rounds.can_react("Aldric")


# --- D-1 … D-3 on the fight: any interleaving replays -------------------------------------------


def ask_with_deadline(choice: Choice) -> Ask:
    return Ask(Policy.KEEP) if choice.given else Ask(Policy.ASK, 1.0)


def answer_value(data: st.DataObject, choice: Choice) -> Any:
    if not choice.free:
        return data.draw(st.sampled_from(values(choice)))
    option = choice.options[0]
    faces = st.lists(st.integers(1, option["sides"]), min_size=option["count"],
                     max_size=option["count"])  # fmt: skip
    return data.draw(st.one_of(st.none(), faces))


def policy_command(data: st.DataObject, state: FightState) -> Command:
    """The simulation policy's command, its Reactions left to the defenders, dice maybe physical."""
    command = next_command(state)
    if command.kind != "attack":
        return command
    attacks = [{k: v for k, v in a.items() if k != "reaction"} for a in command.args["attacks"]]
    args: dict[str, Any] = {**command.args, "attacks": attacks}
    rollers = [args["attacker"], *(a["defender"] for a in attacks)]
    physical = data.draw(st.lists(st.sampled_from(rollers), max_size=2, unique=True))
    return Command("attack", {**args, "physical": physical} if physical else args)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_d7_d6_any_interleaving_of_commands_answers_timeouts_undo_and_redo_replays(
    data: st.DataObject,
) -> None:
    e = duel()
    for _ in range(data.draw(st.integers(4, 30), label="steps")):
        op = data.draw(
            st.sampled_from(["command", "command", "answer", "answer", "expire", "undo", "redo"])
        )
        with contextlib.suppress(TablesideError):
            if op == "answer" and e.pending is not None:
                request = data.draw(st.sampled_from(e.pending.open))
                e.answer(request.id, answer_value(data, request.choice), "seat", ask_with_deadline)
            elif op == "expire":
                e.expire(2.0, ask_with_deadline)
            elif op == "undo" and (e.pending is not None or len(e.applied) > SETUP):
                e.undo()
            elif op == "redo":
                e.redo()
            elif op == "command" and not e.state.ended:
                e.execute(policy_command(data, e.state), asker=ask_with_deadline)
    rebuilt = Encounter.from_records(e.game, SEED, e.records)
    assert rebuilt.state == e.state and rebuilt.pending == e.pending
    assert e.verify_replay().state == e.state


def test_d6_a_ward_off_roll_off_asks_each_roller_for_its_own_d20() -> None:
    e = duel()
    do(e, "next")  # Aldric's Turn
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    e.execute(Command("attack", {**attack, "physical": ["Aldric", "Goblin"]}), asker=ask_open)
    asked = []
    for answer in ("ward_off", [90], [20], [1], [4]):
        assert e.pending is not None
        (request,) = e.pending.open
        asked.append((request.choice.combatant, request.choice.path[-1]))
        last = e.answer(request.id, answer, "seat", ask_open)
    # table order (issue 21, item 5): the attacker's d100, then the Ward-off contest, then damage
    assert asked == [("Goblin", "reaction"), ("Aldric", "0.hit"),
                     ("Aldric", "0.ward_off_attacker"), ("Goblin", "0.ward_off_defender"),
                     ("Aldric", "0.damage")]  # fmt: skip
    typed = {**attack, "attacks": [{"defender": "Goblin", "reaction": "ward_off"}]}
    again = duel()
    do(again, "next")
    assert last.events == again.execute(Command("attack", typed, (20, 1, 90, 4))).events


def test_d6_a_precision_attack_asks_for_two_d100() -> None:
    e = duel()
    precise = goblin_attack(precision=True, reaction=None)
    (dice,) = [c for c in choices(e, "attack", **precise, physical=["Goblin"]) if c.kind == "dice"]
    assert (dice.options[0]["count"], dice.options[0]["sides"]) == (2, 100)


def test_d6_d7_an_automatic_npc_reacts_at_once_and_only_the_pcs_dice_are_asked() -> None:
    e = duel()
    do(e, "next")  # Aldric's Turn; the Host's Goblin decides automatically (D-5)

    def table(choice: Choice) -> Ask:
        return Ask(Policy.TAKE if choice.combatant == "Goblin" else Policy.ASK)

    attack = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    e.execute(Command("attack", {**attack, "physical": ["Aldric"]}), asker=table)
    asked = []
    while e.pending is not None:
        (request,) = e.pending.open
        asked.append((request.choice.combatant, request.choice.path[-1]))
        last = e.answer(request.id, {"0.ward_off_attacker": [15], "0.hit": [80]}.get(
            str(request.choice.path[-1]), [3]), "seat:aldric", table)  # fmt: skip
    assert asked[:2] == [("Aldric", "0.hit"), ("Aldric", "0.ward_off_attacker")]  # table order
    assert all(who == "Aldric" for who, _ in asked)
    assert last.command is not None
    assert last.command.args["attacks"][0]["reaction"] == "ward_off"
    assert e.verify_replay().state == e.state


# --- D-14: whether to take an Attack of Opportunity -------------------------------------------


def test_d14_leaving_contact_asks_the_goblins_owner_whether_to_take_its_attack() -> None:
    """S-18, D-14: the offer is a choice of the Goblin's owner with its chance to hit."""
    e = duel()
    do(e, "next")  # Aldric's Turn, in contact with the Goblin
    (offer,) = choices(e, "move", id="Aldric", to=[-4.0, 0.0, 0.0])
    assert (offer.kind, offer.combatant, offer.path) == ("aoo", "Goblin", ("aoo", "Goblin/Spear"))
    assert values(offer) == [True, False] and offer.suggested is True and not offer.given
    assert 0 < offer.options[0]["odds"]["hit"]["p"] < 1
    assert choices(e, "move", id="Aldric", to=[1.0, 0.9, 0.0]) == []  # still in contact


def test_d14_taking_it_resolves_the_free_attack_in_the_move_as_the_aoo_command_would() -> None:
    """D-14: the answer True gives the move's events plus exactly the aoo command's events."""
    e = duel()
    do(e, "next")
    record = e.execute(Command("move", {"id": "Aldric", "to": [-4.0, 0.0, 0.0]}), asker=ask_open)
    assert record.kind == RecordKind.REQUEST
    assert e.pending is not None
    (request,) = e.pending.open
    done = e.answer(request.id, True, "host")
    kinds = [ev.kind for ev in done.events]
    assert kinds.index("aoo_offered") < kinds.index("aoo_used")
    assert "attack_resolved" in kinds and e.state.offers == ()
    assert not e.state.rounds.can_react("Goblin")
    e.verify_replay()


def test_d14_letting_it_go_removes_the_offer_and_a_wrong_offer_is_refused() -> None:
    """D-14: False removes the offer (no later aoo); naming an offer the move lacks is refused."""
    e = duel()
    do(e, "next")
    with pytest.raises(TablesideError, match="offers no Attack of Opportunity 'Sera/Dagger'"):
        do(e, "move", id="Aldric", to=[-4.0, 0.0, 0.0], aoo={"Sera/Dagger": True})
    record = do(e, "move", id="Aldric", to=[-4.0, 0.0, 0.0], aoo={"Goblin/Spear": False})
    assert "aoo_declined" in [ev.kind for ev in record.events] and e.state.offers == ()
    assert e.state.rounds.can_react("Goblin")
    with pytest.raises(TablesideError, match="no Attack of Opportunity"):
        do(e, "aoo", attacker="Goblin", target="Aldric", weapon="Spear")


def test_d14_without_an_answer_the_offer_stays_as_before() -> None:
    """S-18: a move sent without ``aoo`` (the one-shot engine) keeps the offer for ``aoo``."""
    e = duel()
    do(e, "next")
    do(e, "move", id="Aldric", to=[-4.0, 0.0, 0.0])
    assert [(o.attacker, o.weapon) for o in e.state.offers] == [("Goblin", "Spear")]


def test_d6_issue21_a_warded_off_attack_asks_the_d100_first_and_keeps_the_seeded_order() -> None:
    """Item 5: typed dice come in table order (the attacker's d100, then the Ward-off contest);
    when the defender wins the contest the typed d100 is not read (kept in ``rolled``), and
    every die typed is in the command's record. The seeded draws keep ``attack.py``'s order."""
    e = duel()
    do(e, "next")  # Aldric's Turn
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    e.execute(Command("attack", {**attack, "physical": ["Aldric", "Goblin"]}), asker=ask_open)
    asked = []
    for answer in ("ward_off", [55], [2], [19]):
        assert e.pending is not None
        (request,) = e.pending.open
        asked.append(request.choice.path[-1])
        last = e.answer(request.id, answer, "seat", ask_open)
    assert asked == ["reaction", "0.hit", "0.ward_off_attacker", "0.ward_off_defender"]
    assert e.pending is None and last.command is not None
    assert last.command.args["rolled"] == {"0.hit": [55], "0.ward_off_attacker": [2],
                                           "0.ward_off_defender": [19]}  # fmt: skip
    (resolved,) = [ev.data["result"] for ev in last.events if ev.kind == "attack_resolved"]
    ward = resolved["ward_off"]  # the breakdown shows both typed d20s; the Goblin keeps it off
    assert (ward["acting"]["natural"], ward["opposing"]["natural"], ward["winner"]) == (
        2, 19, "opposing")  # fmt: skip
    seeded = duel()
    do(seeded, "next")
    typed = {**attack, "attacks": [{"defender": "Goblin", "reaction": "ward_off"}]}
    assert seeded.execute(Command("attack", typed, (2, 19))).events == last.events


def test_d6_issue21_a_bad_d100_typed_first_is_refused_naming_the_stage() -> None:
    e = duel()
    do(e, "next")
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
    e.execute(Command("attack", {**attack, "physical": ["Aldric", "Goblin"]}), asker=ask_open)
    assert e.pending is not None
    e.answer(e.pending.open[0].id, "ward_off", "seat", ask_open)
    (request,) = e.pending.open
    assert request.choice.path[-1] == "0.hit"
    with pytest.raises(TablesideError, match="hit roll of attack 1"):
        e.answer(request.id, [101], "seat", ask_open)
