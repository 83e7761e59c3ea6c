"""Issue 11, Allies of Majesty: each choice of a War's Strike is made by its owner (D-8 … D-13).

The War lists the choices a Strike involves (``MajestyWar.choices``); an Encounter with an asker
makes a Strike wait for the ones its policy asks, and the answers resolve it exactly as the
one-shot command with the same arguments would (D-1, D-2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from builders import defender_adjusts, striker_adjusts
from builders import strike_setup as builder_setup
from war_builders import add, do, until_turn_of, war, who

from tableside.dice import SeededRng
from tableside.encounter.decisions import Ask, Choice, Policy
from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import Command, Event, RecordKind
from tableside.encounter.war.state import WarState
from tableside.encounter.war.strike import strike_breakdown
from tableside.errors import TablesideError
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.odds import strike_odds
from tableside.majesty.report import strike_dict
from tableside.majesty.strike import roll_strike

Asker = Callable[[Choice], Ask]


def surplus_war(defender_guard: int = 20, striker_precision: int = 1) -> Encounter[WarState]:
    """Herald Strikes Watcher; with these values Watcher (the Defender) has the surplus."""
    encounter = war()
    add(encounter, "Herald", swiftness=40, precision=striker_precision)
    add(encounter, "Watcher", (2.0, 0.0, 0.0), side="fallen", guard=defender_guard)
    until_turn_of(encounter, "Herald")
    return encounter


def strike(**extra: Any) -> Command:
    return Command("strike", {"striker": "Herald", "defender": "Watcher", **extra})


def listed(encounter: Encounter[WarState], command: Command) -> dict[str, Choice]:
    """The command's choices by kind, each option with its outcome (read as a question is).

    The outcomes are not part of the listing (issue 21: computed only when a question is
    read, ``MajestyWar.effects``); here they are added for the tests to compare.
    """
    rng = command_rng(encounter.seed, encounter.next_seq, command)
    found = {}
    for c in encounter.game.choices(encounter.state, command, rng):  # type: ignore[attr-defined]
        effects = encounter.game.effects(  # type: ignore[attr-defined]
            encounter.state, command, command_rng(encounter.seed, encounter.next_seq, command), c
        )
        options = tuple(
            {**o, **({k: e[k] for k in ("outcome", "effect") if k in e} if e else {})}
            for o, e in zip(c.options, effects, strict=True)
        )
        found[c.kind] = replace(c, options=options)
    return found


def ask_kinds(*kinds: str) -> Asker:
    """A policy that asks the owners of ``kinds`` and lets the arguments stand for the rest."""

    def asker(choice: Choice) -> Ask:
        return Ask(Policy.ASK if choice.kind in kinds else Policy.KEEP)

    return asker


def resolved(events: tuple[Event, ...]) -> dict[str, Any]:
    return next(e for e in events if e.kind == "strike_resolved").data["result"]  # type: ignore[no-any-return]


def wear_of(events: tuple[Event, ...]) -> dict[str, dict[str, int]]:
    wear: dict[str, dict[str, int]] = {}
    for e in events:
        if e.kind == "wear_taken":
            kinds = wear.setdefault(e.data["id"], {})
            kinds[e.data["kind"]] = kinds.get(e.data["kind"], 0) + e.data["amount"]
    return wear


# --- D-8: the Defender's Adjustments ---------------------------------------------------------


def test_d8_m13_adjustments_are_listed_for_the_defender_only_when_it_has_the_surplus() -> None:
    encounter = surplus_war()
    choice = listed(encounter, strike())["adjustments"]
    assert choice.combatant == "Watcher"
    assert choice.path == ()
    assert choice.free and not choice.given
    assert choice.suggested == {"mode": "best"}
    assert [o["value"] for o in choice.options] == [
        {"mode": "best"},
        {"mode": "none"},
        {"mode": "explicit", "steps": []},
    ]
    assert listed(encounter, strike(mode="none"))["adjustments"].given
    assert listed(encounter, strike(steps=[]))["adjustments"].given
    striker_surplus = surplus_war(defender_guard=1, striker_precision=20)
    assert "adjustments" not in listed(striker_surplus, strike())  # the Striker's own args


@pytest.mark.parametrize("mode", ["best", "none"])
def test_d8_m10_each_options_outcome_is_what_the_resolved_strike_then_does(mode: str) -> None:
    choice = listed(surplus_war(), strike())["adjustments"]
    option = next(o for o in choice.options if o["value"] == {"mode": mode})
    record = surplus_war().execute(strike(mode=mode))
    result = resolved(record.events)
    outcome = option["outcome"]
    assert outcome["final"] == result["final"]
    assert outcome["natural"] == result["natural"]
    assert outcome["uncanceled_hits"] == result["uncanceled_hits"]
    assert outcome["uncanceled_stops"] == result["uncanceled_stops"]
    assert outcome["twelve_effects"] == result["twelve_effects_fired"]
    assert outcome["wear"] == wear_of(record.events)


def test_d8_the_two_options_differ_on_these_dice() -> None:
    """The fixture's dice are ones where the Defender's choice matters (not a vacuous check)."""
    choice = listed(surplus_war(), strike())["adjustments"]
    best, none, _ = (o["outcome"] for o in choice.options)
    assert best["final"] != none["final"]
    assert best["wear"] != none["wear"]


def test_d8_d1_a_players_strike_waits_and_none_resolves_it_as_the_one_shot_command() -> None:
    encounter = surplus_war()
    seq = encounter.next_seq
    waiting = encounter.execute(strike(), asker=ask_kinds("adjustments"))
    assert waiting.kind == RecordKind.REQUEST
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    assert request.choice.kind == "adjustments" and request.choice.combatant == "Watcher"
    with pytest.raises(TablesideError, match="waiting"):
        encounter.execute(Command("next", {}))
    answered = encounter.answer(request.id, {"mode": "none"}, "seat:2")
    assert answered.data is not None and answered.data["outcome"] == "resolved"
    one_shot = surplus_war()
    assert one_shot.next_seq == seq
    assert answered.events == one_shot.execute(strike(mode="none")).events
    assert encounter.state == one_shot.state


def test_d8_explicit_steps_are_validated_by_the_war_and_a_refused_answer_changes_nothing() -> None:
    encounter = surplus_war()
    encounter.execute(strike(), asker=ask_kinds("adjustments"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    revision = encounter.revision
    for bad in (
        {"mode": "explicit", "steps": [{"die": 9, "delta": 1}]},
        {"mode": "explicit", "steps": [{"die": 0, "delta": 2}]},
        {"mode": "sideways"},
        {"mode": "explicit", "steps": [{"die": 0, "delta": -1, "side": "striker"}]},
    ):
        with pytest.raises(TablesideError):
            encounter.answer(request.id, bad, "seat:2")
    assert encounter.revision == revision and encounter.pending is not None
    step = {"die": 0, "delta": -1, "side": "defender"}
    done = encounter.answer(request.id, {"mode": "explicit", "steps": [step]}, "seat:2")
    assert resolved(done.events)["adjustments"][0]["by"] == "defender"


def test_d8_w16_too_many_steps_are_clamped_not_refused_and_the_host_is_told() -> None:
    """Issue 21 item 7: a refusal on the step count would tell a player a secret count."""
    encounter = surplus_war()
    encounter.execute(strike(), asker=ask_kinds("adjustments"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    available = request.choice.info["limit"]
    natural = request.choice.info["dice"]["natural"]
    die = next(i for i, f in enumerate(natural) if 3 <= f <= 10)
    steps = [{"die": die, "delta": d} for d in (-1, 1) * 20]
    done = encounter.answer(request.id, {"mode": "explicit", "steps": steps}, "seat:2")
    assert done.data is not None and done.data["outcome"] == "resolved"
    assert f"only the first {available}" in done.data["note"]
    assert len(resolved(done.events)["adjustments"]) <= available


def test_d2_undo_redo_from_records_and_replay_while_the_defender_is_asked() -> None:
    encounter = surplus_war()
    encounter.execute(strike(), asker=ask_kinds("adjustments"))
    again = Encounter.from_records(encounter.game, encounter.seed, encounter.records)
    assert again.pending == encounter.pending
    encounter.undo()
    assert encounter.pending is None
    encounter.redo()
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    encounter.answer(request.id, {"mode": "best"}, "timeout")
    replay = encounter.verify_replay()
    assert replay.state == encounter.state
    rebuilt = Encounter.from_records(encounter.game, encounter.seed, encounter.records)
    assert rebuilt.state == encounter.state and rebuilt.pending is None


def test_d5_d8_the_suggestion_taken_at_the_deadline_is_best() -> None:
    encounter = surplus_war()
    encounter.execute(
        strike(),
        asker=lambda c: Ask(Policy.ASK if c.kind == "adjustments" else Policy.KEEP, deadline=100.0),
    )
    (done,) = encounter.expire(100.0)
    one_shot = surplus_war()
    assert done.events == one_shot.execute(strike(mode="best")).events


# --- D-9: the mode is the adjusting side's; the other side's tokens are used to its best -----


def adjusted_by(events: tuple[Event, ...]) -> set[str]:
    return {a["by"] for a in resolved(events)["adjustments"]}


def test_d9_the_strikers_mode_none_no_longer_strips_the_defenders_obstruction() -> None:
    encounter = surplus_war(defender_guard=1, striker_precision=20)
    record = encounter.execute(strike(mode="none", obstruction=2))
    assert adjusted_by(record.events) == {"defender"}


def test_d9_the_defenders_none_keeps_the_strikers_inspiration() -> None:
    record = surplus_war().execute(strike(mode="none", inspiration=2))
    assert adjusted_by(record.events) == {"striker"}


def test_d9_explicit_steps_name_only_the_side_whose_choice_the_mode_is() -> None:
    encounter = surplus_war()
    step = {"die": 0, "delta": 1, "side": "striker"}
    with pytest.raises(TablesideError, match="D-9"):
        encounter.execute(strike(mode="explicit", steps=[step], inspiration=1))


# --- D-10: the Defender's Obstruction tokens -------------------------------------------------


def test_d10_m11_obstruction_is_the_defenders_choice_with_each_counts_outcome() -> None:
    encounter = surplus_war(defender_guard=1, striker_precision=20)
    choice = listed(encounter, strike())["obstruction"]
    assert choice.combatant == "Watcher" and choice.path == ("obstruction",)
    assert choice.suggested == 0 and not choice.given and choice.free
    assert [o["value"] for o in choice.options] == list(range(8))
    assert listed(encounter, strike(obstruction=0))["obstruction"].given
    for option in choice.options[:3]:
        record = surplus_war(defender_guard=1, striker_precision=20).execute(
            strike(obstruction=option["value"])
        )
        assert option["outcome"]["final"] == resolved(record.events)["final"]


def test_d10_the_defenders_player_answers_its_obstruction() -> None:
    encounter = surplus_war(defender_guard=1, striker_precision=20)
    encounter.execute(strike(), asker=ask_kinds("obstruction"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    done = encounter.answer(request.id, 2, "seat:2")
    assert resolved(done.events)["tokens"]["defender"] == 2


# --- D-11: the Host's modifiers need the Host's approval -------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("boon", 1),
        ("bane", 1),
        ("wear_flat", 100),
        ("wear_percent", 50),
        ("ignore_stops", 2),
        ("striker_adjustments", 5),
        ("defender_adjustments", 5),
        ("superiority", 7),
    ],
)
def test_d11_d4_each_host_modifier_asks_the_hosts_approval(name: str, value: int) -> None:
    choice = listed(surplus_war(), strike(**{name: value}))["approve"]
    assert choice.combatant is None and choice.given
    assert name in choice.prompt


def test_d11_no_approval_without_modifiers_and_none_for_the_strikers_own_choices() -> None:
    own = strike(inspiration=1, weapon="Sword", mode="best", boon=0)
    assert "approve" not in listed(surplus_war(), own)


def test_d11_d4_an_approved_boon_applies_and_a_rejected_one_withdraws_the_strike() -> None:
    encounter = surplus_war()
    ap = who(encounter, "Herald").ap
    encounter.execute(strike(boon=1, mode="best"), asker=ask_kinds("approve"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    withdrawn = encounter.answer(request.id, "reject", "host")
    assert withdrawn.data is not None and withdrawn.data["outcome"] == "withdrawn"
    assert encounter.pending is None and who(encounter, "Herald").ap == ap
    encounter.execute(strike(boon=1, mode="best"), asker=ask_kinds("approve"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    done = encounter.answer(request.id, "approve", "host")
    assert resolved(done.events)["boon_net"] == 1
    assert who(encounter, "Herald").ap < ap


# --- D-12: Full Defensive Stance is the Defender's kept state --------------------------------


def test_d12_a17_the_striker_cannot_put_the_defender_in_full_defensive_stance() -> None:
    encounter = surplus_war()
    do(encounter, "stance", id="Watcher")
    with pytest.raises(TablesideError, match="Full Defensive Stance"):
        do(encounter, "strike", striker="Herald", defender="Watcher", full_defensive_stance=True)
    encounter = surplus_war()
    do(encounter, "stance", id="Watcher", full=True)
    record = do(
        encounter, "strike", striker="Herald", defender="Watcher", full_defensive_stance=True
    )
    labels = [p["label"] for p in resolved(record.events)["guard"]["parts"]]
    assert "Full Defensive Stance" in labels


# --- D-13: interposing as the interposer's decision (M-16) -----------------------------------


def guarded_war(**guardian: Any) -> Encounter[WarState]:
    """Herald (holy) Strikes Watcher (fallen); Shield, Watcher's ally, stands in stance by both."""
    encounter = war()
    add(encounter, "Herald", swiftness=40, control=30)
    add(encounter, "Watcher", (2.0, 0.0, 0.0), side="fallen")
    add(encounter, "Shield", (1.0, 1.0, 0.0), side="fallen", **{"control": 60, **guardian})
    do(encounter, "stance", id="Shield")
    until_turn_of(encounter, "Herald")
    return encounter


def test_d13_m16_an_eligible_elohim_is_asked_first_and_the_targets_choices_wait() -> None:
    encounter = guarded_war()
    choices = listed(encounter, strike())
    assert set(choices) == {"interpose"}
    offer = choices["interpose"]
    assert offer.combatant == "Shield" and offer.path == ("interpose", "Shield")
    assert offer.suggested is False and not offer.given
    chance = offer.options[0]["odds"]["pass"]["p"]
    stronger = listed(guarded_war(control=200), strike())["interpose"]
    assert 0 < chance < stronger.options[0]["odds"]["pass"]["p"] < 1
    after = listed(encounter, strike(interpose={"Shield": False}))
    assert after["interpose"].given and after["obstruction"].combatant == "Watcher"


def test_d13_m16_surprised_by_the_striker_or_out_of_range_is_not_asked() -> None:
    encounter = guarded_war()
    do(encounter, "apply_effect", id="Shield", effect="surprised", by="Herald")
    assert "interpose" not in listed(encounter, strike())
    with pytest.raises(TablesideError, match="M-16"):
        do(encounter, "strike", striker="Herald", defender="Watcher", interpose={"Shield": True})
    far = war()
    add(far, "Herald", swiftness=40)
    add(far, "Watcher", (2.0, 0.0, 0.0), side="fallen")
    add(far, "Shield", (4.5, 0.0, 0.0), side="fallen")  # 2.5" from Watcher, 4.5" from Herald
    do(far, "stance", id="Shield")
    until_turn_of(far, "Herald")
    assert "interpose" not in listed(far, strike())


def test_d13_m16_yes_redirects_the_strike_after_a_passed_control_check() -> None:
    encounter = guarded_war()
    encounter.execute(strike(), asker=ask_kinds("interpose", "adjustments"))
    assert encounter.pending is not None
    (offer,) = encounter.pending.open
    done = encounter.answer(offer.id, True, "seat:3", asker=ask_kinds("interpose", "adjustments"))
    assert not done.events  # Shield, now the Target, has the surplus: its Adjustments are asked
    assert encounter.pending is not None
    (adjust,) = encounter.pending.open
    assert adjust.choice.kind == "adjustments" and adjust.choice.combatant == "Shield"
    assert "Strike on Shield" in adjust.choice.prompt
    events = encounter.answer(adjust.id, {"mode": "best"}, "seat:3").events
    check = next(e for e in events if e.kind == "check_resolved")
    assert check.data["id"] == "Shield" and check.data["result"]["passes_short"] == 0
    struck = next(e for e in events if e.kind == "strike_resolved")
    assert struck.data["defender"] == "Shield"
    one_shot = guarded_war()
    assert one_shot.execute(strike(interpose={"Shield": True})).events == events


def test_d13_m16_a_failed_control_check_leaves_the_strike_on_the_defender() -> None:
    encounter = guarded_war()
    dice = (1, 2, 2, 3, 3, 5, 5) + (5,) * 7  # the Control Check fails, then the Strike Roll
    record = encounter.execute(Command("strike", strike(interpose={"Shield": True}).args, dice))
    note = next(e for e in record.events if e.kind == "note")
    assert note.data["becomes_target"] is False
    assert next(e for e in record.events if e.kind == "strike_resolved").data["defender"] == (
        "Watcher"
    )


def test_d13_the_strikers_choices_are_not_asked_of_anyone() -> None:
    """A Strike with nothing of anyone else's to decide never waits."""
    encounter = surplus_war(defender_guard=1, striker_precision=20)
    record = encounter.execute(
        strike(obstruction=0), asker=lambda c: Ask(Policy.KEEP if c.given else Policy.ASK)
    )
    assert record.kind == RecordKind.COMMAND


def test_d8_choices_do_not_draw_from_the_commands_own_stream() -> None:
    encounter = surplus_war()
    rng = SeededRng.stream(encounter.seed, encounter.next_seq)
    encounter.game.choices(encounter.state, strike(), rng)  # type: ignore[attr-defined]
    assert rng.roll(12) == SeededRng.stream(encounter.seed, encounter.next_seq).roll(12)


# --- D-1, D-2: any interleaving replays exactly ----------------------------------------------


def ask_all(choice: Choice) -> Ask:
    """Every choice not given is asked of its owner (deadline 10: expire may take it)."""
    return Ask(Policy.KEEP if choice.given else Policy.ASK, deadline=10.0)


def interleave(encounter: Encounter[WarState], pick: SeededRng, steps: int) -> None:
    for _ in range(steps):
        action = pick.roll(10)
        revision = encounter.revision
        try:
            if encounter.pending is not None and action <= 6:
                request = encounter.pending.open[0]
                options = request.choice.options
                value = options[pick.roll(len(options)) - 1]["value"]
                encounter.answer(request.id, value, "seat:2", asker=ask_all)
            elif action <= 5:
                defender = ("Watcher", "Shield")[pick.roll(2) - 1]
                command = Command("strike", {"striker": "Herald", "defender": defender})
                encounter.execute(command, asker=ask_all)
            elif action == 6:
                encounter.execute(Command("next", {}))
            elif action == 7:
                encounter.expire(10.0, asker=ask_all)
            elif action == 8:
                encounter.undo()
            elif action == 9:
                encounter.redo()
            else:
                do(encounter, "stance", id="Shield", on=pick.roll(2) == 1)
        except TablesideError:
            assert encounter.revision == revision  # a refusal writes nothing


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_d2_d13_any_interleaving_of_strikes_answers_timeouts_undo_redo_replays(seed: int) -> None:
    encounter = guarded_war()
    interleave(encounter, SeededRng(seed), 80)
    outcomes = [(r.data or {}).get("outcome") for r in encounter.records]
    assert "resolved" in outcomes  # the interleaving did make Strikes wait and resolve
    replay = encounter.verify_replay()
    assert replay.state == encounter.state and replay.pending == encounter.pending
    rebuilt = Encounter.from_records(encounter.game, encounter.seed, encounter.records)
    assert rebuilt.state == encounter.state and rebuilt.pending == encounter.pending


def test_d13_m15_a_ranged_strike_offers_no_interposing_to_one_beside_the_striker() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, weapon="Bow")
    add(encounter, "Watcher", (5.0, 0.0, 0.0), side="fallen")
    add(encounter, "Near", (2.9, 0.0, 0.0), side="fallen")  # 2.1" from Watcher, 2.9" from Herald
    add(encounter, "Far", (7.0, 0.0, 0.0), side="fallen")  # 2" from Watcher, 7" from Herald
    do(encounter, "stance", id="Near")
    do(encounter, "stance", id="Far")
    until_turn_of(encounter, "Herald")
    command = strike(ranged=True)
    rng = command_rng(encounter.seed, encounter.next_seq, command)
    choices = encounter.game.choices(encounter.state, command, rng)  # type: ignore[attr-defined]
    assert [c.combatant for c in choices if c.kind == "interpose"] == ["Far"]


def test_d13_m16_the_interpose_command_refuses_an_interposer_surprised_by_the_striker() -> None:
    encounter = guarded_war()
    do(encounter, "interpose", (5,) * 7, id="Shield", striker="Herald", defender="Watcher")
    do(encounter, "apply_effect", id="Shield", effect="surprised", by="Herald")
    with pytest.raises(TablesideError, match="Surprised"):
        do(encounter, "interpose", (5,) * 7, id="Shield", striker="Herald", defender="Watcher")


def test_d8_m37_the_grappled_elohim_chooses_its_adjustments_on_the_grapplers_strike() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=30)
    add(encounter, "Watcher", (2.0, 0.0, 0.0), side="fallen", might=90)
    do(encounter, "apply_effect", id="Watcher", effect="grappled", by="Herald")
    until_turn_of(encounter, "Herald")
    choices = listed(encounter, strike(two_ap=True))
    assert "interpose" not in choices
    choice = choices["adjustments"]
    assert choice.combatant == "Watcher"
    for option in choice.options:
        twin = war()
        add(twin, "Herald", swiftness=40, might=30)
        add(twin, "Watcher", (2.0, 0.0, 0.0), side="fallen", might=90)
        do(twin, "apply_effect", id="Watcher", effect="grappled", by="Herald")
        until_turn_of(twin, "Herald")
        record = twin.execute(strike(two_ap=True, **option["value"]))
        check = next(e for e in record.events if e.kind == "check_resolved")
        assert option["outcome"]["final"] == check.data["result"]["final"]
        assert option["outcome"]["net_passes"] == check.data["result"]["net"]
        assert option["outcome"]["wear"] == wear_of(record.events)


@pytest.mark.parametrize(
    ("mode", "adjusts"), [("none", striker_adjusts(2)), ("none", defender_adjusts(2))]
)
def test_d9_a_war_strikes_odds_follow_the_engine_under_none_with_tokens(
    mode: str, adjusts: dict[str, Any]
) -> None:
    """The exact odds agree with the engine's own Strikes (seeded) when tokens outlive none."""
    setup = builder_setup(
        mode=AdjustMode(mode), inspiration=1, obstruction=2, mode_by_surplus=True, **adjusts
    )
    exact = strike_odds(setup).uncanceled_hits
    rng, n = SeededRng(11), 4000
    seen = [roll_strike(setup, rng).outcome.uncanceled_hits for _ in range(n)]
    mean, sd = float(exact.mean), exact.sd
    assert abs(sum(seen) / n - mean) <= 5 * sd / n**0.5
    legacy = strike_odds(replace(setup, options=replace(setup.options, mode_by_surplus=False)))
    assert abs(float(legacy.uncanceled_hits.mean) - mean) > 10 * sd / n**0.5  # D-9 matters here


def test_d11_a_strike_the_war_refuses_is_refused_at_once_not_asked() -> None:
    encounter = surplus_war()
    far = strike(boon=1, ranged=True)  # Herald's Sword has no range
    assert listed(encounter, far) == {}
    revision = encounter.revision
    with pytest.raises(TablesideError, match="Ranged Strike"):
        encounter.execute(far, asker=ask_kinds("approve", "adjustments", "obstruction"))
    assert encounter.revision == revision and encounter.pending is None


def test_d8_the_defenders_answer_cannot_carry_a_hosts_modifier_along() -> None:
    encounter = surplus_war()
    encounter.execute(strike(), asker=ask_kinds("adjustments"))
    assert encounter.pending is not None
    (request,) = encounter.pending.open
    revision = encounter.revision
    for value in ({"mode": "best", "wear_flat": 1000}, {"boon": 6}, "best"):
        with pytest.raises(TablesideError, match=request.id):
            encounter.answer(request.id, value, "seat:2")
    assert encounter.revision == revision and encounter.pending is not None


def test_d13_the_breakdown_of_an_interposed_strike_is_the_one_on_the_interposer() -> None:
    encounter = guarded_war()
    before = encounter.state
    dice = (10,) * 7 + (5, 9, 10, 2, 6, 11, 12)  # the Control Check passes, then the Strike Roll
    record = encounter.execute(Command("strike", strike(interpose={"Shield": True}).args, dice))
    struck = next(e for e in record.events if e.kind == "strike_resolved")
    assert struck.data["defender"] == "Shield"
    rolled = tuple(struck.data["result"]["rolled"])
    args = strike(interpose={"Shield": True}).args
    again = strike_breakdown(encounter.game, before, args, rolled, "Shield")  # type: ignore[arg-type]
    assert strike_dict(again) == struck.data["result"]  # type: ignore[arg-type]
