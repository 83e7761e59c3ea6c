"""The fast Realm of Strife simulator (issue 15) gives the full engine's answers (F-8 … F-11).

* **Exact transitions** (F-8, the guard against drift): full-engine runs of the ambush are
  replayed command by command; before each one a fast run is built from the engine's state,
  the fast policy must choose the engine policy's command, and after it (an attack given the
  consequences the engine's own dice gave, which must be possible under its law) every number
  the fast engine keeps must equal the engine's state.
* **Exact laws** (F-9): every attack law's marginals equal ``odds.attack_odds`` as exact
  fractions (damage, each condition, failed Parries), and it sums to 1.
* **Statistical agreement** (F-11) of whole reports, fast against full.
* **Fallback** (F-10): what the fast engine does not model is played by the full engine.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from replays import outcome_of

from tableside.encounter.engine import copy_with
from tableside.encounter.log import Command, Event
from tableside.encounter.strife.args import AttackItem
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.errors import RulesError
from tableside.simulate import fast, simulate
from tableside.simulate.fast_strife import (
    Rules,
    Run,
    choose,
    command_of,
    engine_view,
    roster_of,
    unsupported,
    view,
)
from tableside.simulate.fast_strife_law import Law, Outcome, joint_law
from tableside.simulate.fast_strife_laws import Laws
from tableside.simulate.games import StrifeSim
from tableside.simulate.runs import StreamRng, load_start, run_seed
from tableside.strife.attack import AttackSetup
from tableside.strife.conditions import condition
from tableside.strife.odds import attack_odds
from tableside.strife.reactions import Family
from tableside.strife.turns import RoundTracker

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AMBUSH = EXAMPLES / "strife_ambush.json"


def ambush() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(AMBUSH.read_text())
    return document


def start_state() -> FightState:
    state: FightState = load_start(ambush()).state
    return state


def replay_run(state: FightState, base: int, run: int, next_seq: int, kinds: dict[str, int]) -> int:
    """One full-engine run, checked command by command against the fast engine (F-8)."""
    sim, game = StrifeSim(), StrifeFight()
    roster = roster_of(state, game.catalog)
    rules = Rules(roster, Laws(state, game, roster))
    seed, seq, steps = run_seed(base, run), next_seq, 0
    while not state.ended and state.round <= 100:
        command = sim.next_command(state)
        fast_run = Run(state, roster)
        assert view(fast_run, roster) == engine_view(state, roster)
        choice = choose(fast_run, roster)
        assert command_of(choice, roster) == command, (run, steps)
        events, after = sim.play(state, command, StreamRng(seed, seq))

        def given(
            law: Law, events: list[Event] = events, choice: Any = choice, at: int = steps
        ) -> Outcome:
            attacker, defender = roster.ids[choice[1]], roster.ids[choice[2]]
            outcome = outcome_of(events, attacker, defender)
            assert law.chance(outcome) > 0, (outcome, run, at)
            return outcome

        rules.apply(fast_run, choice, given)
        assert view(fast_run, roster) == engine_view(after, roster), (run, steps, command)
        kinds[command.kind] += 1
        state, seq, steps = after, seq + 1, steps + 1
    return steps


def test_f8_exact_transitions_of_the_ambush() -> None:
    """F-8: every command of 40 full runs: same choice, same state after it."""
    start = load_start(ambush())
    kinds: dict[str, int] = defaultdict(int)
    for run in range(40):
        replay_run(start.state, 5, run, start.next_seq, kinds)
    # the runs meet every command the policy gives: AoOs and Rolls with the Blow included
    assert set(kinds) == {"next", "move", "attack", "aoo", "roll_with_the_blow"}, kinds


def test_f8_exact_transitions_from_a_hurt_knocked_down_start() -> None:
    """F-8: a start with Knocked Down, Vulnerable, a spent Reaction and an Initiative penalty."""
    start = load_start(ambush())
    state: FightState = start.state
    aldric, troll = state.models["Aldric"], state.models["Troll"]
    knocked = condition("Knocked Down", "Cave Troll's Troll Club")
    vulnerable = condition("Vulnerable", "Cave Troll's critical miss")
    state = state.with_model(copy_with(aldric, sheet=aldric.sheet.model_copy(update={"hp": 12}),
                                       conditions=(knocked,)))  # fmt: skip
    state = state.with_model(copy_with(troll, conditions=(vulnerable,), initiative_penalty=10,
                                       position=(3.0, 1.0, 0.0)))  # fmt: skip
    state = copy_with(state, rounds=state.rounds.spend_reaction("Goblin-1"))
    assert unsupported(state, StrifeFight().catalog) is None
    kinds: dict[str, int] = defaultdict(int)
    for run in range(25):
        replay_run(state, 11, run, start.next_seq, kinds)
    assert {"move", "attack", "next"} <= set(kinds)


def test_f8_a_rule_changed_in_the_engine_only_fails_the_transition_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """F-8: no silent drift: an engine whose Roll with the Blow costs −5 Initiative, not −10."""
    monkeypatch.setattr("tableside.encounter.strife.commands.ROLL_WITH_THE_BLOW_INITIATIVE", 5)
    start = load_start(ambush())
    kinds: dict[str, int] = defaultdict(int)
    with pytest.raises(AssertionError) as caught:
        for run in range(40):
            replay_run(start.state, 5, run, start.next_seq, kinds)
    assert "roll_with_the_blow" in str(caught.value)  # the state after the Roll differs


def test_f8_crawling_costs_two_inches_of_movement_per_inch() -> None:
    """F-8: a Knocked Down model's Move costs twice its length (S-23), as the engine's."""
    start = load_start(ambush())
    game = StrifeFight()
    roster = roster_of(start.state, game.catalog)
    rules = Rules(roster, Laws(start.state, game, roster))
    run = Run(start.state, roster)
    rules.put_on(run, 0, condition("Knocked Down", "test"))
    before = list(run.spent)
    rules.move(run, 0, (2.0, 0.0, 0.0))
    assert run.spent[0] - before[0] == 4.0


def setups(state: FightState) -> list[AttackSetup]:
    game = StrifeFight()
    pending = Pending(copy_with(state, rounds=RoundTracker()), describe=False)
    found = []
    for attacker in state.models.values():
        for defender in state.models.values():
            if attacker.side == defender.side:
                continue
            for reaction in ("block", "parry", None):
                item = AttackItem(defender=defender.id, reaction=reaction)
                try:
                    found.append(attack_setup(game, pending, attacker, item, free_attack=True))
                except RulesError:  # the defender has nothing to react with
                    continue
    return found


def test_f9_every_attack_law_equals_attack_odds() -> None:
    """F-9: the joint law's marginals equal ``attack_odds`` exactly, for every pairing."""
    checked = 0
    for setup in setups(start_state()):
        law = joint_law(setup)
        odds = attack_odds(setup)
        assert sum(law.chances) == 1
        damage: dict[int, Fraction] = defaultdict(Fraction)
        labels: dict[str, Fraction] = defaultdict(Fraction)
        failed = Fraction(0)
        for outcome, p in zip(law.outcomes, law.chances, strict=True):
            damage[outcome.damage] += p
            for label in {f"{target}: {c.name}" for target, c in outcome.inflicted}:
                labels[label] += p
            failed += p if outcome.failed_parry else 0
        assert {v: p for v, p in damage.items() if p} == dict(odds.damage.items())
        assert {k: p for k, p in labels.items() if p} == {
            k: p for k, p in odds.conditions.items() if p
        }
        parry = setup.reaction is not None and setup.reaction.family == Family.PARRY
        assert failed == (odds.reaction["failure"] if parry else 0)
        assert law.cumulative[-1] == pytest.approx(1.0, abs=1e-12)
        checked += 1
    assert checked >= 18


def test_f9_a_draw_follows_the_cumulative_chances() -> None:
    """F-9: a uniform draw picks the outcome whose cumulative interval holds it."""
    law = joint_law(setups(start_state())[0])
    assert law.draw(0.0) == law.outcomes[0]
    assert law.draw(0.999999999999) == law.outcomes[-1]
    middle = law.cumulative[0]
    assert law.draw(middle) == law.outcomes[1]


def test_f10_fallback_names_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """F-10: a fight the fast engine does not model is played by the full engine, with why.

    Every place a model can be in is played since F-68 … F-71; a model the fast engine would
    not model is stood for by ``_model_unsupported`` naming a reason for the Troll.
    """
    document = ambush()

    def odd(m: Any, catalog: Any) -> str | None:
        return "a reason of its own" if m.id == "Troll" else None

    monkeypatch.setattr("tableside.simulate.fast_strife._model_unsupported", odd)
    report = simulate(document, 4, seed=1, engine="fast")
    assert report["engine"] == "full"
    assert report["fallback"] == "Troll: a reason of its own"
    full = simulate(document, 4, seed=1, engine="full")
    assert {k: v for k, v in report.items() if k not in ("engine", "fallback")} == full


def test_f72_a_condition_binding_a_turn_is_played_fast() -> None:
    """F-72: Feared binds a Turn (SA-71): the fast engine plays it (it fell back before)."""
    state = start_state()
    goblin = state.models["Goblin-1"]
    state = state.with_model(copy_with(goblin, conditions=(condition("Feared", "Troll"),)))
    assert unsupported(state, StrifeFight().catalog) is None
    assert fast.why_not_fast("strife-combat", state) is None
    assert fast.why_not_fast("strife-combat", start_state()) is None


def test_f10_the_fast_report_says_fast_and_is_deterministic() -> None:
    """F-10: the ambush runs on the fast engine; the same seed gives the same report."""
    one = simulate(ambush(), 300, seed=3, engine="fast")
    two = simulate(ambush(), 300, seed=3, engine="fast", workers=2)
    assert one["engine"] == "fast" and "fallback" not in one
    assert one == two


def agree(fast_p: float, n_fast: int, full_p: float, n_full: int) -> bool:
    # Laplace's (k + 1) / (n + 2) in the variance: a certain outcome in few runs is no proof
    a, b = (fast_p * n_fast + 1) / (n_fast + 2), (full_p * n_full + 1) / (n_full + 2)
    var = a * (1 - a) / n_fast + b * (1 - b) / n_full
    return abs(fast_p - full_p) <= 4.5 * math.sqrt(var) + 1e-9


def mean_agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # under agreement both samples share one spread: the larger sd stands for both, so that a
    # rare loss absent from the few full runs (sd 0) proves nothing (Sera survives 0.45 %)
    sd = max(a["sd"] or 0, b["sd"] or 0)
    se = math.sqrt(sd**2 / a["n"] + sd**2 / b["n"])
    return bool(abs(a["mean"] - b["mean"]) <= 4.5 * se + 1e-9)


def test_f11_statistics_agree_with_the_full_engine() -> None:
    """F-11: wins, the round of the end, HP lost and falls: 6,000 fast against 300 full runs."""
    n_fast, n_full = 6000, 300
    quick = simulate(ambush(), n_fast, seed=2026, engine="fast")
    full = simulate(ambush(), n_full, seed=77, engine="full")
    assert quick["engine"] == "fast"
    for side, p in full["outcome"]["wins"].items():
        assert agree(quick["outcome"]["wins"][side]["p"], n_fast, p["p"], n_full), side
    assert mean_agree(quick["clock"]["summary"], full["clock"]["summary"])
    for who, entry in full["combatants"].items():
        mine = quick["combatants"][who]
        assert agree(mine["fallen"]["p"], n_fast, entry["fallen"]["p"], n_full), who
        assert mean_agree(mine["losses"]["HP"], entry["losses"]["HP"]), who


def test_f8_command_of_matches_the_engine_policy_shape() -> None:
    """F-8: the fast policy's first command from the ambush is the engine policy's."""
    state = start_state()
    roster = roster_of(state, StrifeFight().catalog)
    expected = StrifeSim().next_command(state)
    assert command_of(choose(Run(state, roster), roster), roster) == expected
    assert isinstance(expected, Command)


def test_f10_a_fight_not_yet_started_is_started_then_played_fast() -> None:
    """F-10: the simulation's ``start`` (no ambush) rolls no die here, so the fast engine plays."""
    document = ambush()
    document["records"] = [r for r in document["records"] if r["command"]["kind"] != "start"]
    quick = simulate(document, 400, seed=4, engine="fast")
    full = simulate(document, 60, seed=4, engine="full")
    assert quick["engine"] == "fast"
    assert full["commands"]["mean"] > 1 and quick["commands"]["mean"] > 1
    assert "0" not in quick["clock"]["distribution"]  # no ambush round 0
    for side, p in full["outcome"]["wins"].items():
        assert agree(quick["outcome"]["wins"][side]["p"], 400, p["p"], 60), side
