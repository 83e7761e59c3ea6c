"""Whole-fight simulation (``tableside simulate``): seeds, equivalence with the engine, statistics.

Every run continues an exported encounter with its own seed (run_seed(S, i)); a simulated run
must equal the same run through the plain engine, and the report must not depend on the number of
workers. The War policy's Rest rule follows M-4 (Rest removes 1 Exertion per AP; Weary is
Exertion above Stamina).
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from clirun import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from war_builders import add, do, until_turn_of, war

from tableside.dice import SeededRng
from tableside.encounter.engine import Encounter, copy_with
from tableside.encounter.log import Command
from tableside.encounter.policy import WarPolicy, next_command
from tableside.encounter.roster import add_commands
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import reach
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.errors import RulesError, TablesideError
from tableside.majesty.geometry import distance
from tableside.simulate import SimulationError, driver, run_seed, simulate
from tableside.simulate.driver import chunks
from tableside.simulate.games import StrifeSim, WarSim
from tableside.simulate.runs import StreamRng, load_start, play_run
from tableside.simulate.stats import Z95, Moments, mean_interval, wilson
from tableside.simulate.tally import Tally
from tableside.store.formats import encounter_document, parse_encounter
from tableside.strife.conditions import KNOCKED_DOWN, Condition

ROOT = Path(__file__).resolve().parents[1]
WAR_FILE = ROOT / "examples" / "war_4v4.json"
FIGHT_FILE = ROOT / "examples" / "strife_ambush.json"


def document(encounter: Encounter[Any], name: str = "test") -> dict[str, Any]:
    """The export document of an in-memory encounter."""
    return encounter_document(name, encounter.game.name, encounter.seed, encounter.records)


def four_against_four(seed: int = 2026) -> Encounter[WarState]:
    encounter: Encounter[WarState] = Encounter(MajestyWar(), seed)
    for command in add_commands():
        encounter.execute(command)
    return encounter


def strife(models: list[dict[str, Any]], seed: int = 3) -> Encounter[Any]:
    encounter: Encounter[Any] = Encounter(StrifeFight(), seed)
    for args in models:
        encounter.execute(Command("add", args))
    return encounter


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


# --- statistics ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
     (1, 29, 0.0061, 0.1718)],
)  # fmt: skip
def test_wilson_interval_matches_newcombes_published_values(
    k: int, n: int, low: float, high: float
) -> None:
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3.
    found = wilson(k, n)
    assert (round(found.low, 4), round(found.high, 4)) == (low, high)


@pytest.mark.parametrize("n", [1, 7, 40, 1000])
def test_wilson_interval_at_certainty_is_n_over_n_plus_z_squared(n: int) -> None:
    assert wilson(n, n).low == pytest.approx(n / (n + Z95**2))
    assert wilson(n, n).high == 1.0 and wilson(0, n).low == 0.0
    assert wilson(0, n).high == pytest.approx(1 - n / (n + Z95**2))


def test_wilson_interval_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError, match="k=5 and n=3"):
        wilson(5, 3)


def test_mean_interval_against_the_statistics_module() -> None:
    values = [3, 4, 4, 5, 7, 3, 4, 6]
    found = mean_interval(values)
    assert found is not None
    sd = statistics.stdev(values)
    half = Z95 * sd / math.sqrt(len(values))
    assert found.mean == pytest.approx(statistics.mean(values))
    assert found.sd == pytest.approx(sd)
    assert (found.low, found.high) == pytest.approx((found.mean - half, found.mean + half))
    assert mean_interval([]) is None
    single = mean_interval([5])
    assert single is not None and (single.sd, single.low, single.high) == (0.0, 5, 5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-300, 300), max_size=60))
def test_exact_moments_give_what_the_plain_definition_gives(values: list[int]) -> None:
    moments = Moments()
    for value in values:
        moments.add(value)
    fast, plain = moments.summary(), mean_interval(values)
    if plain is None:
        assert fast is None
        return
    assert fast is not None and fast.n == plain.n
    for got, want in ((fast.mean, plain.mean), (fast.sd, plain.sd), (fast.low, plain.low),
                      (fast.high, plain.high)):  # fmt: skip
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_tallies_merged_in_any_order_agree() -> None:
    sim, start = StrifeSim(), load_start(load(FIGHT_FILE))
    outcomes = [play_run(sim, start, 2, run, 100)[0] for run in range(12)]

    def tally_of(parts: list[list[Any]]) -> Tally:
        total = Tally(sim.sides(start.state), 1)
        for part in parts:
            piece = Tally(sim.sides(start.state), 1)
            for outcome in part:
                piece.add(outcome)
            total.merge(piece)
        return total

    whole = tally_of([outcomes])
    assert tally_of([outcomes[5:], outcomes[:2], outcomes[2:5]]) == whole
    assert whole.runs == 12 and sum(whole.wins.values()) + whole.draws + whole.unfinished == 12


@pytest.mark.parametrize(("runs", "workers"), [(1, 1), (10, 2), (1000, 2), (17, 3), (5, 8)])
def test_chunks_cover_every_run_once_in_order(runs: int, workers: int) -> None:
    pieces = chunks(runs, workers)
    covered = [r for first, count in pieces for r in range(first, first + count)]
    assert covered == list(range(runs))


# --- seeds and dice -----------------------------------------------------------------------------


def test_run_seeds_are_seedsequence_children_and_differ_by_run_and_base() -> None:
    seeds = {run_seed(base, run) for base in (0, 1, 2026) for run in range(50)}
    assert len(seeds) == 150 and all(0 <= s < 2**63 for s in seeds)
    assert run_seed(7, 3) == run_seed(7, 3)


def test_stream_rng_rolls_exactly_the_engines_dice() -> None:
    for seed, stream in ((1, 0), (2026, 17), (run_seed(5, 9), 123)):
        ours, engines = StreamRng(seed, stream), SeededRng.stream(seed, stream)
        for sides in (12, 12, 100, 20, 12, 6, 1_000_000):
            assert ours.roll(sides) == engines.roll(sides)


# --- a simulated run is the engine's run --------------------------------------------------------


def engine_run(doc: dict[str, Any], base: int, run: int, policy: Any, cap: int) -> Any:
    """The same run through the plain engine: replay the log, then the run's seed, full records."""
    parsed, records = parse_encounter(doc)
    game = MajestyWar() if parsed.game == "majesty-war" else StrifeFight()
    encounter: Encounter[Any] = Encounter.from_records(game, parsed.seed, records)
    encounter.seed = run_seed(base, run)
    while not encounter.state.ended and clock(encounter.state) <= cap:
        encounter.execute(policy(encounter.state))
    return encounter


def clock(state: Any) -> int:
    return int(state.cycle) if isinstance(state, WarState) else int(state.round)


@pytest.mark.parametrize("run", [0, 1, 2])
def test_a_simulated_war_equals_the_same_war_through_the_engine(run: int) -> None:
    doc = load(WAR_FILE)
    sim = WarSim(rest=True)
    outcome, final = play_run(sim, load_start(doc), 11, run, 100)
    engine = engine_run(doc, 11, run, WarPolicy(rest=True), 100)
    assert final == engine.state
    assert outcome.winner == engine.state.winner and outcome.finished
    assert outcome.commands == len(engine.records) - len(doc["records"])
    wear = {who: [0, 0, 0] for who in engine.state.combatants}
    for record in engine.records[len(doc["records"]) :]:
        for event in record.events:
            if event.kind == "wear_taken":
                wear[event.data["id"]]["ERP".index(event.data["kind"])] += event.data["amount"]
    assert dict(outcome.losses) == {who: tuple(v) for who, v in wear.items()}


@pytest.mark.parametrize("run", [0, 5])
def test_a_simulated_fight_equals_the_same_fight_through_the_engine(run: int) -> None:
    doc = load(FIGHT_FILE)
    sim = StrifeSim()
    outcome, final = play_run(sim, load_start(doc), 3, run, 100)
    engine = engine_run(doc, 3, run, sim.next_command, 100)
    assert final == engine.state
    assert outcome.winner == engine.state.winner
    before = load_start(doc).state.models
    lost = {m.id: before[m.id].sheet.hp - m.sheet.hp for m in engine.state.models.values()}
    assert dict(outcome.losses) == {who: (hp,) for who, hp in lost.items()}
    assert set(outcome.fallen) == {m.id for m in engine.state.models.values() if m.down}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.integers(0, 2**40), run=st.integers(0, 10**6))
def test_any_simulated_fight_equals_the_engines_fight(base: int, run: int) -> None:
    doc = load(FIGHT_FILE)
    sim = StrifeSim()
    outcome, final = play_run(sim, load_start(doc), base, run, 100)
    engine = engine_run(doc, base, run, sim.next_command, 100)
    assert final == engine.state and outcome.winner == engine.state.winner


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.integers(0, 2**40), run=st.integers(0, 10**6), rest=st.booleans())
def test_any_simulated_war_equals_the_engines_war(base: int, run: int, rest: bool) -> None:
    doc = load(WAR_FILE)
    outcome, final = play_run(WarSim(rest=rest), load_start(doc), base, run, 100)
    engine = engine_run(doc, base, run, WarPolicy(rest=rest), 100)
    assert final == engine.state and outcome.winner == engine.state.winner


def test_the_fast_path_keeps_every_state_changing_event() -> None:
    encounter = four_against_four(5)
    game, rng_seed = MajestyWar(), 99
    state = encounter.state
    for seq in range(len(encounter.records), len(encounter.records) + 60):
        if state.ended:
            break
        command = next_command(state)
        full = game.decide(state, command, SeededRng.stream(rng_seed, seq))
        lean, after = game.play(state, command, StreamRng(rng_seed, seq))
        assert [e.kind for e in lean] == [e.kind for e in full]
        folded = state
        for event in full:
            folded = game.evolve(folded, event)
        assert after == folded
        state = after


def test_copy_with_builds_what_dataclasses_replace_builds() -> None:
    war_state = load_start(load(WAR_FILE)).state
    fight_state = load_start(load(FIGHT_FILE)).state
    combatant, model = war_state.combatants["Herald"], fight_state.models["Troll"]
    cases: list[tuple[Any, dict[str, Any]]] = [
        (war_state, {"cycle": 4, "turn": 2}),
        (combatant, {"ap": 5, "position": (1.0, 2.0, 3.0)}),
        (fight_state, {"round": 3, "offers": ()}),
        (model, {"moved": 2.5, "elements": ("move",)}),
    ]
    for record, changes in cases:
        before = dataclasses.replace(record)
        copied = copy_with(record, **changes)
        assert copied == dataclasses.replace(record, **changes) and type(copied) is type(record)
        assert record == before and copied is not record


# --- reproducible whatever the workers ----------------------------------------------------------


def test_same_seed_same_report_and_one_worker_equals_two() -> None:
    doc = load(WAR_FILE)
    one = simulate(doc, 6, seed=4, workers=1)
    again = simulate(doc, 6, seed=4, workers=1)
    two = simulate(doc, 6, seed=4, workers=2)
    assert json.dumps(one) == json.dumps(again) == json.dumps(two)
    assert json.dumps(simulate(doc, 6, seed=5, workers=1)) != json.dumps(one)


def test_a_fight_report_is_the_same_whatever_the_workers_and_chunks() -> None:
    doc = load(FIGHT_FILE)
    assert chunks(30, 1) != chunks(30, 2)  # 8 chunks of 4 against 15 of 2
    one = json.dumps(simulate(doc, 30, workers=1))
    assert json.dumps(simulate(doc, 30, workers=2)) == one
    assert json.dumps(simulate(doc, 30, workers=3)) == one


def test_the_base_seed_defaults_to_the_encounters_seed() -> None:
    doc = load(FIGHT_FILE)
    assert simulate(doc, 3)["seed"] == doc["seed"]
    assert simulate(doc, 3) == simulate(doc, 3, seed=doc["seed"])


# --- outcomes whose answer is known -------------------------------------------------------------


def test_a_fight_whose_winner_is_certain_gives_p_one() -> None:
    fight = strife([
        {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0.0, 0.0, 0.0]},
        {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1.0, 0.0, 0.0]},
    ])  # fmt: skip
    fight.execute(Command("host_set", {"id": "Goblin", "field": "hp", "value": 0}))
    report = simulate(document(fight), 25, seed=1)
    heroes = report["outcome"]["wins"]["heroes"]
    assert (heroes["count"], heroes["p"]) == (25, 1.0)
    assert heroes["ci95"] == [pytest.approx(25 / (25 + Z95**2)), 1.0]
    assert report["combatants"]["Goblin"]["fallen"]["p"] == 1.0
    assert report["clock"]["distribution"] == {"1": 25}


def test_a_war_nobody_can_fight_is_unfinished_at_the_cap() -> None:
    encounter = war(3)
    add(encounter, "Herald")
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen")
    for name in ("Herald", "Warrior"):
        do(encounter, "apply_effect", id=name, effect="bound")  # Bound: no Strike (M-36)
    report = simulate(document(encounter), 4, seed=2, max_cycles=3)
    assert report["outcome"]["unfinished"]["count"] == 4
    assert report["outcome"]["wins"]["holy"]["count"] == 0
    assert report["clock"]["summary"] is None and report["clock"]["distribution"] == {}
    assert report["combatants"]["Herald"]["losses"]["E"]["mean"] == 0


def test_an_encounter_already_past_the_cap_is_refused() -> None:
    encounter = four_against_four(8)
    while encounter.state.cycle < 2:
        encounter.execute(next_command(encounter.state))
    with pytest.raises(SimulationError, match="already in Cycle 2, past the cap 1"):
        simulate(document(encounter), 3, max_cycles=1)


def test_a_war_continues_from_where_the_file_stopped() -> None:
    encounter = four_against_four(8)
    for _ in range(30):
        encounter.execute(next_command(encounter.state))
    assert not encounter.state.ended and encounter.state.cycle >= 1
    start = load_start(document(encounter))
    assert start.state == encounter.state and start.next_seq == encounter.next_seq
    outcome, final = play_run(WarSim(rest=False), start, 8, 0, 100)
    assert final.cycle >= encounter.state.cycle and outcome.finished


# --- the War policy's Rest rule (M-4) -----------------------------------------------------------


def weary_war(gap: float) -> Encounter[WarState]:
    encounter = war(4)
    add(encounter, "Herald", swiftness=80)
    add(encounter, "Warrior", (gap, 0.0, 0.0), side="fallen")
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="exertion", value=15)  # Stamina is 3 + 60 // 10
    do(encounter, "host_set", id="Herald", field="ap", value=6)
    return encounter


def test_m4_a_weary_combatant_out_of_melee_range_rests_off_the_excess_first() -> None:
    encounter = weary_war(10.0)
    assert WarPolicy(rest=True)(encounter.state) == Command("rest", {"id": "Herald", "ap": 6})
    assert WarPolicy(rest=False)(encounter.state).kind == "move"
    do(encounter, "host_set", id="Herald", field="exertion", value=11)
    assert WarPolicy(rest=True)(encounter.state) == Command("rest", {"id": "Herald", "ap": 2})


def test_m4_a_weary_combatant_in_melee_range_strikes_rather_than_rests() -> None:
    encounter = weary_war(2.0)
    assert WarPolicy(rest=True)(encounter.state).kind == "strike"


def test_m4_ap_left_that_cannot_strike_are_rested_not_lost() -> None:
    encounter = weary_war(2.0)
    do(encounter, "host_set", id="Herald", field="ap", value=2)
    do(encounter, "host_set", id="Herald", field="exertion", value=5)
    assert WarPolicy(rest=True)(encounter.state) == Command("rest", {"id": "Herald", "ap": 2})
    assert WarPolicy(rest=False)(encounter.state) == Command("next")
    do(encounter, "host_set", id="Herald", field="exertion", value=0)
    assert WarPolicy(rest=True)(encounter.state) == Command("next")


def test_m4_the_simulated_war_policy_rests_by_default() -> None:
    doc = load(WAR_FILE)
    start = load_start(doc)
    rested, _ = play_run(WarSim(rest=True), start, 21, 0, 100)
    assert rested.finished
    engine = engine_run(doc, 21, 0, WarPolicy(rest=True), 100)
    kinds = {r.command.kind for r in engine.records[len(doc["records"]) :] if r.command}
    assert "rest" in kinds


# --- the War policy with a ranged-only weapon (M-15, M-27) --------------------------------------


def archer_war(gap: float, ap: int = 6) -> Encounter[WarState]:
    encounter = war(6)
    add(encounter, "Herald", weapon="Bow", swiftness=80)
    add(encounter, "Warrior", (gap, 0.0, 0.0), side="fallen")
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="ap", value=ap)
    return encounter


def test_m27_a_bow_strikes_at_range_beyond_melee_range() -> None:
    encounter = archer_war(6.0)
    command = WarPolicy()(encounter.state)
    assert command == Command(
        "strike", {"striker": "Herald", "defender": "Warrior", "ranged": True}
    )
    do(encounter, "strike", **command.args)  # the engine accepts it (M-15: beyond 3", within 12")


def test_m15_a_bow_steps_back_out_of_melee_range_and_then_strikes() -> None:
    encounter = archer_war(2.0)
    command = WarPolicy()(encounter.state)
    assert command.kind == "move"
    assert distance(tuple(command.args["to"]), (2.0, 0.0, 0.0)) == pytest.approx(3.5)
    do(encounter, "move", **command.args)
    assert WarPolicy()(encounter.state).args.get("ranged") is True


def test_m15_a_bow_closes_to_one_inch_inside_its_range_as_far_as_its_ap_allow() -> None:
    far = archer_war(16.0)
    command = WarPolicy()(far.state)
    assert distance(tuple(command.args["to"]), (16.0, 0.0, 0.0)) == pytest.approx(11.0)
    farther = archer_war(30.0, ap=5)
    command = WarPolicy()(farther.state)
    assert distance(tuple(command.args["to"]), (30.0, 0.0, 0.0)) == pytest.approx(25.0)


def test_m4_a_weary_archer_in_its_band_strikes_rather_than_rests() -> None:
    encounter = archer_war(6.0)
    do(encounter, "host_set", id="Herald", field="exertion", value=20)
    assert WarPolicy(rest=True)(encounter.state).kind == "strike"
    far = archer_war(20.0)
    do(far, "host_set", id="Herald", field="exertion", value=20)
    assert WarPolicy(rest=True)(far.state).kind == "rest"


# --- the War policy and Grappling (M-37) -------------------------------------------------------


def grapple_war(might: int) -> Encounter[WarState]:
    encounter = war(8)
    add(encounter, "Herald", might=might, swiftness=80)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", might=40)
    add(encounter, "Jackal", (1.0, 0.0, 0.0), side="fallen", might=40)
    add(encounter, "Watcher", (0.0, 1.0, 0.0), might=40)
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="ap", value=6)
    return encounter


def test_m37_a_grappler_without_a_40_might_margin_strikes_the_one_it_holds() -> None:
    encounter = grapple_war(60)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    assert WarPolicy()(encounter.state).args["defender"] == "Warrior"  # not the nearer Jackal
    do(encounter, "strike", **WarPolicy()(encounter.state).args)  # the engine accepts it


def test_m37_a_grappler_with_40_more_might_strikes_the_nearest_enemy() -> None:
    encounter = grapple_war(80)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    assert WarPolicy()(encounter.state).args["defender"] == "Jackal"


def test_m37_a_grappler_holding_only_an_ally_ends_its_turn() -> None:
    encounter = grapple_war(60)
    do(encounter, "apply_effect", id="Watcher", effect="grappled", by="Herald")
    assert WarPolicy()(encounter.state) == Command("next")


# --- any roster: models without weapon or Movement (S-19), random rosters of both games --------


def test_s19_a_model_without_movement_does_not_roll_with_the_blow_nor_attack_unarmed() -> None:
    fight = strife([
        {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0.0, 0.0, 0.0]},
        {"id": "Door", "model": "Oak Door", "side": "monsters", "position": [0.8, 0.0, 0.0]},
    ])  # fmt: skip
    report = simulate(document(fight), 6, seed=2, max_rounds=30)  # no command is refused
    heroes = report["outcome"]["wins"]["heroes"]["count"]
    assert heroes + report["outcome"]["unfinished"]["count"] == 6
    assert report["combatants"]["Door"]["fallen"]["count"] == heroes > 0
    assert report["combatants"]["Aldric"]["losses"]["HP"]["mean"] == 0  # the door never attacks


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    weapons=st.lists(st.sampled_from(["Sword", "Axe", "Hammer", "Club", "Spear", "Bow", "Sling",
                                      "Staff"]), min_size=2, max_size=4),
    places=st.lists(st.tuples(st.floats(-12, 12), st.floats(-12, 12), st.floats(0, 3)),
                    min_size=4, max_size=4),
    seed=st.integers(0, 10**6),
    rest=st.booleans(),
)  # fmt: skip
def test_the_war_policy_plays_any_roster_to_the_end_without_a_refused_command(
    weapons: list[str], places: list[tuple[float, float, float]], seed: int, rest: bool
) -> None:
    encounter = war(seed)
    for index, weapon in enumerate(weapons):
        side = "holy" if index % 2 == 0 else "fallen"
        add(encounter, f"E{index}", places[index], side=side, weapon=weapon)
    outcome, _ = play_run(WarSim(rest=rest), load_start(document(encounter)), seed, 0, 40)
    assert outcome.commands > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    models=st.lists(st.sampled_from(["Aldric", "Sera", "Goblin", "Cave Troll", "Oak Door"]),
                    min_size=2, max_size=5),
    places=st.lists(st.tuples(st.floats(-10, 10), st.floats(-10, 10)), min_size=5, max_size=5),
    seed=st.integers(0, 10**6),
    ambush=st.sampled_from([None, "heroes", "monsters"]),
)  # fmt: skip
def test_the_strife_policy_plays_any_fight_to_the_end_without_a_refused_command(
    models: list[str], places: list[tuple[float, float]], seed: int, ambush: str | None
) -> None:
    fight = strife([
        {"id": f"M{i}", "model": name, "side": "heroes" if i % 2 == 0 else "monsters",
         "position": [*places[i], 0.0]} for i, name in enumerate(models)
    ], seed)  # fmt: skip
    if ambush is not None:
        fight.execute(Command("start", {"ambush": ambush}))
    outcome, _ = play_run(StrifeSim(), load_start(document(fight)), seed, 0, 40)
    assert outcome.commands > 0


# --- the Realm of Strife policy's Moves (S-6, S-23) ---------------------------------------------


def test_s6_s23_a_knocked_down_model_plans_only_the_crawl_its_movement_pays_for() -> None:
    model = next(iter(load_start(load(FIGHT_FILE)).state.models.values()))
    down = replace(model, conditions=(Condition(KNOCKED_DOWN, "test", 1),))
    assert reach(model) == model.sheet.movement
    assert reach(down) == model.sheet.movement / 2  # crawling costs 2 per inch


@pytest.mark.parametrize("run", [103, 158, 186])
def test_s6_runs_where_a_crawling_model_once_planned_a_walk_now_play_to_the_end(run: int) -> None:
    # These runs of seed 1 used to stop: "This path costs 10 inches ... Movement is 5 (S-6)".
    outcome, _ = play_run(StrifeSim(), load_start(load(FIGHT_FILE)), 1, run, 100)
    assert outcome.finished


# --- refusals -----------------------------------------------------------------------------------


def test_an_ended_or_one_sided_encounter_is_refused_in_one_sentence() -> None:
    lonely = war(1)
    add(lonely, "Herald")
    with pytest.raises(SimulationError, match=r"needs combatants on two sides.*it has holy"):
        simulate(document(lonely), 3)
    finished = four_against_four(2026)
    while not finished.state.ended:
        finished.execute(next_command(finished.state))
    with pytest.raises(SimulationError, match="has already ended"):
        simulate(document(finished), 3)


# --- the command line ---------------------------------------------------------------------------


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        *args: str) -> tuple[int, str, str]:  # fmt: skip
    return run_cli(capsys, monkeypatch, "simulate", *args)


def test_cli_json_report_schema(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(monkeypatch, capsys, str(FIGHT_FILE), "--runs", "8", "--workers", "1",
                         "--seed", "3", "--json")  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["format"] == "tableside/simulation" and report["version"] == 1
    assert set(report) == {"format", "version", "file", "game", "encounter", "runs", "seed",
                           "policy", "cap", "outcome", "clock", "losses", "combatants",
                           "commands", "engine"}  # fmt: skip
    assert report["engine"] == "fast"  # the CLI's default, which this fight can use (F-10)
    assert set(report["outcome"]) == {"wins", "draws", "unfinished"}
    assert set(report["outcome"]["wins"]) == {"heroes", "monsters"}
    wins = sum(block["count"] for block in report["outcome"]["wins"].values())
    assert (
        wins + report["outcome"]["draws"]["count"] + report["outcome"]["unfinished"]["count"] == 8
    )
    assert report["clock"]["unit"] == "round" and report["losses"]["measures"] == ["HP"]
    assert set(report["combatants"]) == {"Aldric", "Sera", "Goblin-1", "Goblin-2", "Troll"}
    assert set(report["combatants"]["Troll"]) == {"side", "losses", "fallen"}
    assert report == simulate(load(FIGHT_FILE), 8, file=str(FIGHT_FILE), seed=3, engine="fast")


def test_cli_tables(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(monkeypatch, capsys, str(WAR_FILE), "--runs", "3", "--workers", "1")
    assert code == 0, err
    for text in ("holy wins", "fallen wins", "unfinished", "Cycle the encounter ended in",
                 "E Wear", "Herald (holy)", "policy war+rest"):  # fmt: skip
        assert text in out


def test_cli_progress_bar_goes_to_stderr_and_leaves_stdout_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # Rich treats stderr as a terminal: the bar is drawn
    code, out, err = cli(monkeypatch, capsys, str(FIGHT_FILE), "--runs", "20", "--workers", "1")
    assert code == 0
    assert "simulating" in err and "simulating" not in out
    assert "heroes wins" in out
    code, out, err = cli(monkeypatch, capsys, str(FIGHT_FILE), "--runs", "5", "--json")
    assert code == 0 and err == "" and json.loads(out)["runs"] == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((str(FIGHT_FILE), "--runs", "0"), "The number of runs must be 1 to 10,000,000, got 0."),
        ((str(FIGHT_FILE), "--workers", "0"), "The number of workers must be 1 to 64, got 0."),
        ((str(FIGHT_FILE), "--workers", "65"), "The number of workers must be 1 to 64, got 65."),
        ((str(FIGHT_FILE), "--seed", "-4"), "The base seed must be zero or positive, got -4."),
        ((str(FIGHT_FILE), "--max-rounds", "0"), "The cap on rounds must be at least 1, got 0."),
        ((str(FIGHT_FILE), "--max-cycles", "5"), "--max-cycles does not apply to a strife-combat"),
        ((str(WAR_FILE), "--max-rounds", "5"), "--max-rounds does not apply to a majesty-war"),
        ((str(FIGHT_FILE), "--no-rest"), "--rest/--no-rest applies to a War, not to a strife"),
        (("missing.json",), "The encounter file 'missing.json' does not exist."),
    ],
)
def test_cli_bad_input_is_one_sentence_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    code, out, err = cli(monkeypatch, capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_refuses_files_that_are_not_encounters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cases = {
        "broken.json": ("{not json", "is not valid JSON"),
        "character.json": (json.dumps({"name": "x"}), "Encounter document: field format"),
        "gap.json": (json.dumps({**load(FIGHT_FILE), "records": load(FIGHT_FILE)["records"][1:]}),
                     "records.0.revision"),
        "game.json": (json.dumps({**load(FIGHT_FILE), "game": "chess"}), "'chess' encounter"),
    }  # fmt: skip
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text, "utf-8")
        code, out, err = cli(monkeypatch, capsys, str(path))
        assert code == 2 and message in err and out == "", (name, err)


@dataclass(frozen=True)
class RefusingWar(WarSim):
    """A War whose every command is refused, as when the policy meets a state it cannot handle."""

    def play(self, state: WarState, command: Command, rng: Any) -> tuple[list[Any], WarState]:
        raise RulesError("The War has ended; no more actions can be taken.")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_refused_policy_command_names_the_run_even_from_a_worker(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(driver, "simulation_for", lambda start, rest: RefusingWar())
    with pytest.raises(SimulationError) as refused:
        simulate(load(WAR_FILE), 4, workers=workers)
    assert str(refused.value) == (
        "Run 0 stopped because the policy's next command was refused: The War has ended; no more "
        "actions can be taken."
    )


def test_simulation_errors_are_tableside_errors() -> None:
    assert issubclass(SimulationError, TablesideError)
