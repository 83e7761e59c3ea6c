"""Issue 21: decisions are checked on arrival and never stuck, in both games (D-1 … D-10).

Property tests drive random commands, answers (the options, and malformed values), deadlines,
undo and redo through an :class:`Encounter` whose policy asks every open choice of its owner,
and check after every step that

- **checked on arrival**: a refused answer changes nothing (revision, waiting command, state);
- **never stuck**: every open decision offers at least one option, and answering every open
  decision with its suggestion (as its owner, or the Host) is accepted until the command is
  decided: no sequence of accepted answers leaves a command nobody can finish.

A flat test replays the War case of the issue (the Defender's tokens asked after the Adjustments
were answered) and the answer-oracle (a player counting a secret Adjustment count, W-16).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_decisions_strife import SEED as STRIFE_SEED
from test_decisions_strife import SETUP as STRIFE_SETUP
from test_decisions_strife import duel, policy_command
from war_builders import add, until_turn_of, war

from tableside.encounter.decisions import APPROVE, Ask, Choice, Policy, Request
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.policy import next_command as war_next
from tableside.encounter.war.state import WarState
from tableside.errors import TablesideError

JUNK = st.one_of(
    st.integers(-(10**30), 10**30),
    st.none(),
    st.booleans(),
    st.text(max_size=8),
    st.lists(st.integers(-5, 130), max_size=4),
    st.fixed_dictionaries(
        {
            "mode": st.sampled_from(["best", "none", "explicit", "sideways", 3]),
            "steps": st.lists(
                st.fixed_dictionaries(
                    {"die": st.integers(-3, 12), "delta": st.sampled_from([-2, -1, 1, 2, True])}
                ),
                max_size=40,
            ),
        }
    ),
)
"""Answers as a hostile page might send them: huge, negative, of the wrong type, unknown modes."""


def ask_open(choice: Choice) -> Ask:
    """A player's command at the table: every choice not in the arguments is asked of its owner
    (NPCs' of the Host), and a proposal's approval of the Host (D-4)."""
    if choice.kind == APPROVE:
        return Ask(Policy.ASK, 1.0)
    return Ask(Policy.KEEP if choice.given else Policy.ASK, 1.0)


def war_setup() -> Encounter[WarState]:
    """Herald (a player's, weak Precision) Strikes Watcher (a high Guard: the Defender adjusts)."""
    encounter = war(seed=5)
    add(encounter, "Herald", swiftness=40, precision=1)
    add(encounter, "Watcher", (2.0, 0.0, 0.0), side="fallen", guard=20)
    add(encounter, "Aide", (0.0, 2.0, 0.0), swiftness=35)
    until_turn_of(encounter, "Herald")
    return encounter


WAR_SETUP = 4  # the three adds and one 'next': the property test does not undo past them


def war_command(data: st.DataObject, state: WarState) -> Command:
    """The War policy's command, a Strike sometimes with a Boon (a proposal) or typed dice."""
    command = war_next(state)
    if command.kind != "strike":
        return command
    args = dict(command.args)
    if data.draw(st.booleans(), label="boon"):
        args["boon"] = 1
    if data.draw(st.booleans(), label="own steps"):  # the Striker's own "Change …" (its steps)
        steps = data.draw(st.lists(st.fixed_dictionaries(
            {"die": st.integers(0, 8), "delta": st.sampled_from([-1, 1]),
             "side": st.just("striker")}), max_size=4))  # fmt: skip
        args.update({"mode": "explicit", "steps": steps})
    dice = None
    if data.draw(st.booleans(), label="typed dice"):
        dice = tuple(data.draw(st.lists(st.integers(1, 12), min_size=7, max_size=7)))
    return Command("strike", args, dice)


def answer_for(data: st.DataObject, request: Request) -> Any:
    """One of the options, the suggestion, or junk."""
    choice = request.choice
    pick = data.draw(st.sampled_from(["option", "suggested", "junk"]), label="answer")
    if pick == "option" and choice.options:
        return data.draw(st.sampled_from([o.get("value") for o in choice.options]))
    if pick == "suggested":
        return choice.suggested
    return data.draw(JUNK, label="junk")


def finishable(encounter: Encounter[Any], seed: int) -> None:
    """Never stuck: every open decision has options, and suggestions answer the command out."""
    if encounter.pending is None:
        return
    copy = Encounter.from_records(encounter.game, seed, encounter.records)
    for _ in range(30):
        if copy.pending is None:
            return
        for request in copy.pending.open:
            assert request.choice.options, f"{request.id} ({request.choice.kind}) has no option"
        request = copy.pending.open[0]
        value = request.choice.suggested
        if request.choice.kind == APPROVE:
            value = "approve"
        copy.answer(request.id, value, "host", ask_open)  # raises: stuck
    raise AssertionError("the suggestions never finished the waiting command")


def step(data: st.DataObject, e: Encounter[Any], seed: int, setup: int, command: Any) -> None:
    """One random step; a refusal must change nothing."""
    ops = ["command", "command", "answer", "answer", "answer", "expire", "undo", "redo"]
    op = data.draw(st.sampled_from(ops))
    before = (e.revision, e.pending, e.state)
    try:
        if op == "answer" and e.pending is not None:
            request = data.draw(st.sampled_from(e.pending.open))
            e.answer(request.id, answer_for(data, request), "seat", ask_open)
        elif op == "expire":
            e.expire(2.0, ask_open)
        elif op == "undo" and (e.pending is not None or len(e.applied) > setup):
            e.undo()
        elif op == "redo":
            e.redo()
        elif op == "command" and not e.state.ended:
            e.execute(command(data, e.state), asker=ask_open)
    except TablesideError:
        assert (e.revision, e.pending, e.state) == before, f"a refused {op} changed something"
    finishable(e, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_issue21_war_checked_on_arrival_and_never_stuck(data: st.DataObject) -> None:
    """D-8, D-10, D-11: any interleaving in a War leaves every waiting Strike answerable."""
    e = war_setup()
    for _ in range(data.draw(st.integers(3, 14), label="steps")):
        step(data, e, 5, WAR_SETUP, war_command)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_issue21_strife_checked_on_arrival_and_never_stuck(data: st.DataObject) -> None:
    """D-6, D-7: any interleaving in a fight leaves every waiting attack answerable."""
    e = duel()
    for _ in range(data.draw(st.integers(3, 14), label="steps")):
        step(data, e, STRIFE_SEED, STRIFE_SETUP, policy_command)


# --- the issue's cases -----------------------------------------------------------------------


def herald_strikes(boon: int = 0) -> Encounter[WarState]:
    """Herald's Strike on Watcher waiting for Watcher's Obstruction and Adjustments."""
    e = war_setup()
    args: dict[str, Any] = {"striker": "Herald", "defender": "Watcher"}
    if boon:
        args["boon"] = boon
    e.execute(Command("strike", args), asker=ask_open)
    return e


def open_kinds(e: Encounter[Any]) -> list[str]:
    assert e.pending is not None
    return [r.choice.kind for r in e.pending.open]


def request_of(e: Encounter[Any], kind: str) -> Request:
    assert e.pending is not None
    return next(r for r in e.pending.open if r.choice.kind == kind)


def test_issue21_d8_a_strikers_own_steps_the_war_refuses_are_refused_at_once() -> None:
    """Item 1: the Striker's explicit steps that its dice cannot take are refused when sent,
    not after the Target's answers (when nobody could finish the Strike but by undo)."""
    e = war(seed=5)
    add(e, "Herald", swiftness=40, precision=20)
    add(e, "Watcher", (2.0, 0.0, 0.0), side="fallen", guard=1)
    until_turn_of(e, "Herald")
    revision = e.revision
    bad = {"striker": "Herald", "defender": "Watcher", "mode": "explicit",
           "steps": [{"die": 0, "delta": 1, "side": "striker"}] * 40}  # fmt: skip
    with pytest.raises(TablesideError):
        e.execute(Command("strike", bad), asker=ask_open)
    assert e.revision == revision and e.pending is None


def test_issue21_d10_the_tokens_question_keeps_its_options_after_the_adjustments() -> None:
    """Item 1: Adjustments answered first (explicit), the Host still gets 0 … 7 tokens."""
    e = herald_strikes()
    assert open_kinds(e) == ["obstruction", "adjustments"]
    adjust = request_of(e, "adjustments")
    natural = adjust.choice.info["dice"]["natural"]
    die = next(i for i, f in enumerate(natural) if f < 12)
    e.answer(adjust.id, {"mode": "explicit", "steps": [{"die": die, "delta": 1}]}, "seat:1")
    tokens = request_of(e, "obstruction")
    assert [o["value"] for o in tokens.choice.options] == list(range(8))
    done = e.answer(tokens.id, 0, "host", ask_open)
    assert done.data is not None and done.data["outcome"] == "resolved"


@pytest.mark.parametrize(
    "bad",
    [10**30, -5, 5000, "3", True, None, [1], {"mode": "best"}],
)
def test_issue21_d10_a_malformed_token_count_is_refused_on_arrival_and_writes_nothing(
    bad: Any,
) -> None:
    """Item 6: while the Adjustments are open, a bad token count is refused, nothing stored."""
    e = herald_strikes()
    before = (e.revision, e.pending)
    with pytest.raises(TablesideError, match="Watcher"):
        e.answer(request_of(e, "obstruction").id, bad, "seat:1", ask_open)
    assert (e.revision, e.pending) == before
    e.answer(request_of(e, "obstruction").id, 2, "host", ask_open)
    e.answer(request_of(e, "adjustments").id, {"mode": "best"}, "host", ask_open)
    assert e.pending is None


@pytest.mark.parametrize(
    "bad",
    [
        {"mode": "sideways"},
        {"mode": "explicit", "steps": [{"die": 10**30, "delta": 1}]},
        {"mode": "explicit", "steps": [{"die": -5, "delta": 1}]},
        {"mode": "explicit", "steps": [{"die": 0, "delta": 1}] * 5000},
        {"mode": "explicit", "steps": [{"die": 0, "delta": 1, "wear_flat": 9}]},
        {"mode": "best", "wear_flat": 3},
        {"mode": "none", "steps": [{"die": 0, "delta": 1}]},
        "best",
    ],
)
def test_issue21_d8_malformed_adjustments_are_refused_on_arrival_and_write_nothing(
    bad: Any,
) -> None:
    """Item 6: with the tokens still open, bad Adjustments are refused; the fight goes on."""
    e = herald_strikes()
    before = (e.revision, e.pending)
    with pytest.raises(TablesideError, match=r"Watcher|adjustments"):
        e.answer(request_of(e, "adjustments").id, bad, "seat:1", ask_open)
    assert (e.revision, e.pending) == before
    finishable(e, 5)


def test_issue21_w16_no_answer_oracle_for_the_secret_adjustment_count() -> None:
    """Item 7: 14, 13, … steps are all accepted (clamped), so no count is learned by refusal."""
    verdicts = []
    for count in range(14, 0, -1):
        e = herald_strikes()
        adjust = request_of(e, "adjustments")
        natural = adjust.choice.info["dice"]["natural"]
        die = next(i for i, f in enumerate(natural) if 2 <= f <= 11)
        steps = [{"die": die, "delta": (-1) ** n} for n in range(count)]
        try:
            e.answer(adjust.id, {"mode": "explicit", "steps": steps}, "seat:1", ask_open)
            verdicts.append("accepted")
        except TablesideError:
            verdicts.append("refused")
    assert set(verdicts) == {"accepted"}  # one verdict for every count: 0 bits learned


def test_issue21_d4_a_boon_is_approved_before_any_die_and_approve_is_suggested() -> None:
    """Item 4: the proposal is asked alone (the Target's questions, with dice, come after)."""
    e = herald_strikes(boon=1)
    assert open_kinds(e) == ["approve"]
    approve = request_of(e, "approve")
    assert approve.choice.suggested == "approve"
    e.answer(approve.id, "approve", "host", ask_open)
    assert open_kinds(e) == ["obstruction", "adjustments"]
    assert request_of(e, "obstruction").choice.info["dice"]["natural"]


def test_issue21_d5_a_deadline_still_rejects_a_proposal() -> None:
    """D-5: an unanswered proposal never applies its modifier, whatever is suggested."""
    e = herald_strikes(boon=1)
    (record,) = e.expire(2.0, ask_open)
    assert record.data is not None and record.data["outcome"] == "withdrawn"


def test_issue21_plain_words_no_json_and_no_ruling_ids_in_labels_and_prompts() -> None:
    """Item 3: the Target's questions read in the game's words; ids only under details."""
    e = herald_strikes()
    for kind in ("obstruction", "adjustments"):
        choice = request_of(e, kind).choice
        texts = [choice.prompt, *(str(o["label"]) for o in choice.options)]
        assert not any("{" in t or "M-1" in t or "D-" in t for t in texts), texts
        assert choice.info["details"]["rules"]
    labels = [o["label"] for o in request_of(e, "adjustments").choice.options]
    assert labels == ["Best for Watcher", "No Adjustments", "Choose dice…"]


def test_issue21_effects_are_computed_when_read_and_match_the_decided_strike() -> None:
    """Item 8: the outcome of ``best`` is computed on read, and is what the answer then does."""
    e = herald_strikes()
    e.answer(request_of(e, "obstruction").id, 0, "seat:1", ask_open)
    adjust = request_of(e, "adjustments")
    effects = e.effects(adjust.id)
    assert e.effects(adjust.id) is effects  # cached
    best = effects[0]
    assert (best is not None and "Wear" in best["effect"]) or "no Wear" in best["effect"]
    done = e.answer(adjust.id, {"mode": "best"}, "seat:1", ask_open)
    result = next(ev for ev in done.events if ev.kind == "strike_resolved").data["result"]
    assert best["outcome"]["final"] == result["final"]


def test_issue21_refused_answer_names_the_combatant() -> None:
    """Refusals name the right combatant (the Target, not the Striker)."""
    e = herald_strikes()
    with contextlib.suppress(TablesideError):
        e.answer(request_of(e, "obstruction").id, -1, "seat:1", ask_open)
    with pytest.raises(TablesideError) as refused:
        e.answer(request_of(e, "obstruction").id, -1, "seat:1", ask_open)
    assert "Watcher" in str(refused.value) and "Herald" not in str(refused.value)
