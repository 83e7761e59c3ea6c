"""The fast War simulator (issue 15) gives the full engine's answers.

Three kinds of checks:

* **Exact transitions** (the guard against drift): full-engine runs are replayed command by
  command; before each one, a fast batch of one run is built from the engine's state, the fast
  policy must choose the engine policy's command, and after it (a Strike given the consequences
  the engine's own dice gave) every number the fast engine keeps must equal the engine's state:
  Wear, Status lowerings and their End Points, Epic Defeat, Exertion and its window, Falter,
  Poison, AP, 12 Effects this Turn, Weary, positions, the Cycle, its War Scroll, whose Turn, the
  end and the winner, and the Wear of the command's ``wear_taken`` events. Starts include Poison,
  Falter, a timed Status lowering and a Weakened combatant. A rule changed in the engine and not
  in the fast engine fails here.
* **Exact laws**: every Strike table equals the odds engine's law (``strike_odds``) in every
  quantity both give (Wear per kind, Wear to the Striker, Striker Falter, 12 Effects, Defeat),
  and Strikes whose characters share a signature get the same table.
* **Statistical agreement** of whole reports, fast against full, on the same encounters: each
  side's win probability, each combatant's falls and mean Wear, and the mean Cycle of the end,
  within 4.5 standard errors of the difference (run counts below; a deterministic test, since
  every seed is fixed).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from replays import wear_taken

from tableside.encounter.engine import Encounter, copy_with
from tableside.encounter.log import Command, Event
from tableside.encounter.policy import WarPolicy
from tableside.encounter.war.args import StrikeArgs
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import EndPoint, Timed, WarState
from tableside.encounter.war.strike import strike_setup
from tableside.majesty.character import Character, Status, WearKind
from tableside.majesty.odds import strike_odds
from tableside.majesty.strike import StrikeSetup, roll_strike, strike_with_dice
from tableside.simulate import fast, simulate
from tableside.simulate import fast_laws as fl
from tableside.simulate.fast_war import (
    MOVE,
    NEXT,
    REST,
    STRIKE,
    TURN_BASE,
    Batch,
    unsupported,
)
from tableside.simulate.fast_war_start import strike_signature
from tableside.simulate.runs import StreamRng, load_start, run_seed
from tableside.store.formats import encounter_document, parse_encounter

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
WAR_FILE = EXAMPLES / "war_4v4.json"
FIGHT_FILE = EXAMPLES / "strife_ambush.json"
GAME = MajestyWar()
KINDS = {NEXT: "next", STRIKE: "strike", MOVE: "move", REST: "rest"}


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def war_start() -> WarState:
    state = load_start(load(WAR_FILE)).state
    assert isinstance(state, WarState)
    return state


def effects_start() -> WarState:
    """war_4v4 after its first Cycle began, with Poison, Falter, a lowering and a Weakened one."""
    state = war_start()
    state = GAME.play(state, Command("next"), StreamRng(1, 0))[1]
    c = state.combatants
    herald = copy_with(c["Herald"], poison=5)
    brute = copy_with(c["Brute"], falter=3)
    ends = EndPoint(state.cycle + 1, 2)
    jackal = copy_with(
        c["Jackal"],
        character=c["Jackal"].character.lower_status(),
        timed=(Timed("status_lowered", "test", ends),),
    )
    weak = c["Watcher"].character.take_wear(WearKind.E, 30).take_wear(WearKind.R, 27)
    watcher = copy_with(c["Watcher"], character=weak.with_exertion(12))
    assert weak.status == Status.WEAKENED
    combatants = {**c, "Herald": herald, "Brute": brute, "Jackal": jackal, "Watcher": watcher}
    return copy_with(state, combatants=combatants)


# --- exact transitions ------------------------------------------------------------------------


def fast_view(batch: Batch) -> dict[str, Any]:
    """Everything the fast engine keeps about run 0, in the engine's terms."""
    ids = batch.roster.ids
    ends = {who: sorted(int(e) for e in batch.ends[0, i] if e > 0) for i, who in enumerate(ids)}
    n = int(batch.order_n[0])
    return {
        "combatants": {
            who: {
                "wear": tuple(int(v) for v in batch.wear[0, i]),
                "lowered": int(batch.lowered[0, i]), "epic": bool(batch.epic[0, i]),
                "exertion": int(batch.exertion[0, i]), "window": int(batch.window[0, i]),
                "falter": int(batch.falter[0, i]), "poison": int(batch.poison[0, i]),
                "ap": int(batch.ap[0, i]), "twelves": int(batch.twelves[0, i]),
                "weary": bool(batch.weary[0, i]), "ends": ends[who],
                "status": int(batch.forms.status[batch.form[0, i]]),
            }
            for i, who in enumerate(ids)
        },
        "cycle": int(batch.cycle[0]), "turn": int(batch.turn[0]),
        "order": [(ids[int(batch.order_c[0, k])], int(batch.order_ap[0, k])) for k in range(n)],
        "ended": bool(batch.ended[0]),
        "winner": None if batch.winner[0] < 0 else ("holy", "fallen")[int(batch.winner[0])],
    }  # fmt: skip


STATUS_CODES = {Status.NORMAL: 0, Status.WEAKENED: 1, Status.DEFEATED: 2}


def engine_view(state: WarState) -> dict[str, Any]:
    """The same numbers read from the engine's state."""
    return {
        "combatants": {
            c.id: {
                "wear": (c.character.wear.E, c.character.wear.R, c.character.wear.P),
                "lowered": c.character.status_lowered, "epic": c.character.defeated_by_epic,
                "exertion": c.character.exertion, "window": c.window_exertion,
                "falter": c.falter, "poison": c.poison, "ap": c.ap,
                "twelves": c.twelves_this_turn, "weary": c.weary,
                "ends": sorted(t.ends.cycle * TURN_BASE + t.ends.turn for t in c.timed
                               if t.ends is not None),
                "status": STATUS_CODES[c.character.status],
            }
            for c in state.combatants.values()
        },
        "cycle": state.cycle, "turn": state.turn,
        "order": [(t.combatant, t.ap) for t in state.order],
        "ended": state.ended, "winner": state.winner,
    }  # fmt: skip


def positions_agree(batch: Batch, state: WarState) -> bool:
    return all(
        np.allclose(batch.pos[0, i], state.combatants[who].position, rtol=0, atol=1e-9)
        for i, who in enumerate(batch.roster.ids)
    )


def same_command(batch: Batch, command: Command, rest: bool) -> None:
    """The fast policy's choice is the engine policy's command."""
    kind, me, target, _, amount = batch.choose(np.array([0]), rest)
    ids = batch.roster.ids
    assert KINDS[int(kind[0])] == command.kind, command
    args = command.args
    if command.kind == "strike":
        assert (ids[int(me[0])], ids[int(target[0])]) == (args["striker"], args["defender"])
    elif command.kind == "rest":
        assert (ids[int(me[0])], int(amount[0])) == (args["id"], args["ap"])
    elif command.kind == "move":
        assert ids[int(me[0])] == args["id"]


def forced_row(state: WarState, command: Command, rng: StreamRng) -> np.ndarray:
    """The consequences of the engine's own Strike on these dice (the first dice it rolls)."""
    args = StrikeArgs(**command.args)
    striker, defender = state.combatants[args.striker], state.combatants[args.defender]
    result = roll_strike(strike_setup(GAME, args, striker, defender, state), rng)
    return np.array([fl.result_row(result)], dtype=np.int64)


def replay(state: WarState, seed: int, rest: bool) -> Iterator[tuple[WarState, Command, int]]:
    """Every (state, command, command number) of one full-engine run."""
    policy = WarPolicy(rest=rest)
    seq = 0
    while not state.ended and state.cycle <= 100:
        command = policy(state)
        yield state, command, seq
        state = GAME.play(state, command, StreamRng(seed, seq))[1]
        seq += 1


def step_both(
    batch: Batch, before: WarState, command: Command, rest: bool, seed: int, seq: int
) -> tuple[list[Event], WarState]:
    """Play ``command`` on the engine from ``StreamRng(seed, seq)`` and the batch's same command
    on the fast engine (its Strike forced to the engine's dice); the engine's events and state."""
    same_command(batch, command, rest)
    forced = None
    if command.kind == "strike":
        forced = forced_row(before, command, StreamRng(seed, seq))
    events, after = GAME.play(before, command, StreamRng(seed, seq))
    batch.step(np.array([0]), rest, np.random.default_rng(0), forced)
    return events, after


@pytest.mark.parametrize(
    ("start", "base", "rest"),
    [("war_4v4", 1, True), ("war_4v4", 2, False), ("effects", 3, True), ("effects", 4, True)],
)
def test_fast_transitions_equal_the_engines_command_by_command(
    start: str, base: int, rest: bool
) -> None:
    """F-4 (M-4, M-21 … M-26, M-34, M-38 … M-40): each fast command leaves the engine's state."""
    state = war_start() if start == "war_4v4" else effects_start()
    known: Batch | None = None
    for run in range(2):
        seed = run_seed(base, run)
        for before, command, seq in replay(state, seed, rest):
            batch = Batch(before, 1, known)
            known = batch
            events, after = step_both(batch, before, command, rest, seed, seq)
            assert fast_view(batch) == engine_view(after), (run, seq, command)
            assert positions_agree(batch, after), (run, seq, command)
            taken = wear_taken(events, batch.roster.ids)
            assert (batch.taken[0] == taken).all(), (run, seq, command)


# --- exact laws -------------------------------------------------------------------------------


def law_of(table: fl.StrikeTable, values: np.ndarray) -> dict[int, Fraction]:
    law: dict[int, Fraction] = {}
    for value, weight in zip(values.tolist(), table.weights.tolist(), strict=True):
        law[value] = law.get(value, Fraction(0)) + Fraction(weight, table.total)
    return {k: v for k, v in law.items() if v}


def odds_law_of(distribution: Any) -> dict[int, Fraction]:
    return {
        int(v): p for v, p in zip(distribution.values, distribution.probabilities, strict=True) if p
    }


def defeat_chance(table: fl.StrikeTable, defender: Character) -> Fraction:
    """P(the Defender is Defeated after the Strike), from the table's rows (M-1, M-3, M-24)."""
    total = Fraction(0)
    for row, weight in zip(table.rows.tolist(), table.weights.tolist(), strict=True):
        after = defender
        for kind, column in ((WearKind.E, fl.D_E), (WearKind.R, fl.D_R), (WearKind.P, fl.D_P)):
            if row[column]:
                after = after.take_wear(kind, row[column])
        if row[fl.D_EPIC] == fl.EPIC_LOWERED:
            after = after.lower_status()
        if row[fl.D_EPIC] == fl.EPIC_DEFEAT:
            after = after.defeat_by_epic()
        if after.status == Status.DEFEATED:
            total += Fraction(weight, table.total)
    return total


def setups() -> list[StrikeSetup]:
    """Strikes of every weapon pair of war_4v4, some Weakened, Worn or past a 12 Effect."""
    state = war_start()
    ids = list(state.combatants)
    found = []
    for a, d, twelves in [(0, 4, 0), (0, 4, 1), (0, 4, 2), (3, 7, 0), (2, 5, 0), (1, 6, 0),
                          (4, 0, 0), (5, 2, 0), (7, 3, 0), (6, 1, 0)]:  # fmt: skip
        striker, defender = state.combatants[ids[a]], state.combatants[ids[d]]
        if a == 2:  # Hammer on a worn Resolve: the Passion Effect fires (M-25)
            defender = copy_with(defender, character=defender.character.take_wear(WearKind.R, 12))
        if a == 7:  # a Weakened Defender
            worn = defender.character.take_wear(WearKind.E, 41).take_wear(WearKind.R, 14)
            defender = copy_with(defender, character=worn)
        args = StrikeArgs(striker=striker.id, defender=defender.id)
        setup = strike_setup(GAME, args, striker, defender, state)
        options = dataclasses.replace(setup.options, twelve_effects_this_turn=twelves)
        found.append(dataclasses.replace(setup, placement=None, options=options))
    return found


@pytest.mark.parametrize("index", range(10))
def test_every_strike_table_is_the_odds_engines_exact_law(index: int) -> None:
    """F-1 (M-7 … M-28): Wear, Wear to the Striker, Falter, 12 Effects, Defeat as strike_odds."""
    setup = setups()[index]
    table, odds = fl.strike_table(setup), strike_odds(setup)
    assert table.weights.sum() == table.total
    for kind, column in ((WearKind.E, fl.D_E), (WearKind.R, fl.D_R), (WearKind.P, fl.D_P)):
        assert law_of(table, table.rows[:, column]) == odds_law_of(odds.wear_of(kind)), kind
    assert law_of(table, table.rows[:, fl.S_WEAR]) == odds_law_of(odds.wear_to_striker)
    assert law_of(table, table.rows[:, fl.S_FALTER]) == odds_law_of(odds.striker_falter)
    assert law_of(table, table.rows[:, fl.FIRED]) == odds_law_of(odds.twelve_effects)
    assert defeat_chance(table, setup.defender) == odds.defeat
    # Only the Hammer's Passion Effect, fired by a worn Resolve, reads all Hits (M-25).
    assert table.ambiguous == (index in (4, 8)) == fl.reads_all_hits(setup)


@pytest.mark.parametrize("index", [0, 3, 4, 8])
def test_an_ambiguous_strike_is_resolved_from_its_dice_as_the_engine_resolves_it(
    index: int,
) -> None:
    """F-1 (M-7, M-9, M-13, M-25): a Roller's row is the engine's Strike on the same dice."""
    setup = setups()[index]
    roller = fl.Roller(setup)
    generator = np.random.default_rng(index)
    for rolled in generator.integers(1, 13, (300, roller.dice)).tolist():
        engine = fl.result_row(strike_with_dice(setup, tuple(rolled)))
        assert roller.row(tuple(rolled)) == engine == roller.row(tuple(rolled)), rolled


def test_characters_with_one_signature_give_one_strike_table() -> None:
    """F-1: forms that share strike_signature (and Passion triggers) share the engine's table."""
    for setup in setups()[:6]:
        for kind, amount in ((WearKind.E, 3), (WearKind.E, 9), (WearKind.P, 2)):
            other = setup.defender.take_wear(kind, amount)
            if strike_signature(other) != strike_signature(setup.defender):
                continue
            if other.current_resolve != setup.defender.current_resolve:
                continue
            moved = StrikeSetup(setup.striker, other, setup.weapon, setup.defender_weapon)
            plain = StrikeSetup(setup.striker, setup.defender, setup.weapon, setup.defender_weapon)
            a, b = fl.strike_table(plain), fl.strike_table(moved)
            assert (a.rows == b.rows).all() and (a.weights == b.weights).all()


# --- statistical agreement ----------------------------------------------------------------------

Z = 4.5


def close(p: float, q: float, n: int, m: int, what: str) -> None:
    pooled = (p * n + q * m) / (n + m)
    se = (pooled * (1 - pooled) * (1 / n + 1 / m)) ** 0.5
    assert abs(p - q) <= Z * se + 1e-12, (what, p, q)


def close_mean(a: dict[str, Any], b: dict[str, Any], what: str) -> None:
    if a is None or b is None:
        assert a == b, what
        return
    se = (a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"]) ** 0.5
    assert abs(a["mean"] - b["mean"]) <= Z * se + 1e-9, (what, a["mean"], b["mean"])


def agree(fast_report: dict[str, Any], full_report: dict[str, Any]) -> None:
    n, m = fast_report["runs"], full_report["runs"]
    for side, block in fast_report["outcome"]["wins"].items():
        close(block["p"], full_report["outcome"]["wins"][side]["p"], n, m, f"{side} wins")
    close_mean(fast_report["clock"]["summary"], full_report["clock"]["summary"], "clock")
    for who, block in fast_report["combatants"].items():
        other = full_report["combatants"][who]
        close(block["fallen"]["p"], other["fallen"]["p"], n, m, f"{who} falls")
        for measure in ("E", "R", "P"):
            close_mean(block["losses"][measure], other["losses"][measure], f"{who} {measure}")


FULL_RUNS, FAST_RUNS = 160, 6000


def test_fast_reports_agree_with_the_full_engine_on_war_4v4() -> None:
    """F-4: 160 full-engine runs against 6,000 fast runs: wins, falls, Wear, the Cycle agree."""
    doc = load(WAR_FILE)
    full = simulate(doc, FULL_RUNS, seed=11, workers=1, engine="full")
    quick = simulate(doc, FAST_RUNS, seed=12, workers=1, engine="fast")
    assert quick["engine"] == "fast" and "engine" not in full
    agree(quick, full)


def test_fast_runs_from_an_effects_state_agree_with_the_full_engine() -> None:
    """F-4: Poison, Falter, a timed lowering, a Weakened combatant at the start (M-34, M-38)."""
    state = effects_start()
    wins_full, runs_full = 0, 120
    for run in range(runs_full):
        end = list(replay(state, run_seed(5, run), True))[-1]
        last_state, command, seq = end
        after = GAME.play(last_state, command, StreamRng(run_seed(5, run), seq))[1]
        wins_full += after.winner == "holy"
    batch = Batch(state, 6000)
    batch.play(100, True, np.random.default_rng(5))
    wins_fast = int((batch.winner == 0).sum())
    close(wins_fast / 6000, wins_full / runs_full, 6000, runs_full, "holy wins")


# --- the driver ---------------------------------------------------------------------------------


def test_a_fight_asked_for_the_fast_engine_gets_the_fast_strife_engine() -> None:
    """F-3, F-10: a Realm of Strife ambush is played by its own fast engine (fast_strife)."""
    doc = load(FIGHT_FILE)
    quick = simulate(doc, 12, seed=3, engine="fast")
    full = simulate(doc, 12, seed=3, engine="full")
    assert quick.pop("engine") == "fast" and "engine" not in full
    assert quick.keys() == full.keys() and quick["policy"] == full["policy"] == "strife"


def test_a_war_the_fast_engine_cannot_play_falls_back_and_says_why() -> None:
    """F-3: a removed combatant still in the War Scroll sends the War to the full engine, and
    the report says why (a Spiritual Dominion did, until the fast engine played them, F-65)."""
    doc = load(WAR_FILE)
    _, records = parse_encounter(doc)
    encounter = Encounter.from_records(GAME, doc["seed"], records)
    encounter.execute(Command("next"))
    encounter.execute(Command("remove", {"id": "Jackal"}))
    changed = encounter_document("Removed", "majesty-war", doc["seed"], encounter.records)
    report = simulate(changed, 5, seed=2, engine="fast")
    assert report["engine"] == "full"
    assert report["fallback"] == "a removed combatant still in the War Scroll"
    plain = simulate(changed, 5, seed=2, engine="full")
    assert {k: v for k, v in report.items() if k not in ("engine", "fallback")} == plain


def test_fast_reports_do_not_depend_on_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """F-2: batches are seeded by their number, so any number of workers gives one report."""
    monkeypatch.setattr(fast, "BATCH", 50)
    doc = load(WAR_FILE)
    one = simulate(doc, 160, seed=9, workers=1, engine="fast")
    two = simulate(doc, 160, seed=9, workers=2, engine="fast")
    assert json.dumps(one) == json.dumps(two)
    assert one["runs"] == 160 and sum(b["count"] for b in one["outcome"]["wins"].values()) > 0


def test_an_unknown_engine_is_refused_in_one_sentence() -> None:
    with pytest.raises(Exception, match=r"The engine must be one of fast, full, got 'warp'\."):
        simulate(load(WAR_FILE), 5, engine="warp")


def test_the_start_of_war_4v4_is_supported() -> None:
    assert unsupported(war_start(), GAME.catalog) is None
    assert unsupported(effects_start(), GAME.catalog) is None


# --- the disk cache -------------------------------------------------------------------------------


def test_laws_kept_on_disk_are_the_laws_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A roll law and a Strike table read back from disk equal the ones computed."""
    from tableside.majesty import odds_law
    from tableside.simulate import disk_cache

    monkeypatch.setenv("TABLESIDE_CACHE", str(tmp_path))
    setup = setups()[1]
    computed = fl._strike_table(setup)
    fl.strike_table.cache_clear()
    first = fl.strike_table(setup)  # computed and written
    fl.strike_table.cache_clear()
    again = fl.strike_table(setup)  # read back
    for table in (first, again):
        assert (table.rows == computed.rows).all() and (table.weights == computed.weights).all()
        assert (table.total, table.ambiguous) == (computed.total, computed.ambiguous)
    store = disk_cache.RollLawStore()
    law = odds_law._roll_law(*_law_inputs(setup))
    store.save("law", law)
    kept = store.load("law")
    assert kept is not None
    for name in odds_law.RollLaw.__dataclass_fields__:
        assert np.array_equal(np.asarray(getattr(kept, name)), np.asarray(getattr(law, name)))
    names = {path.name.split("-")[0] + "-" + path.name.split("-")[1] for path in tmp_path.iterdir()}
    assert {"strike-table", "roll-law"} <= names
    monkeypatch.setenv("TABLESIDE_CACHE", "off")
    assert disk_cache.path_for("law", "x") is None and store.load("law") is None


def _law_inputs(setup: StrikeSetup) -> tuple[Any, ...]:
    from tableside.majesty.odds import _strike_plan

    plan = _strike_plan(setup)
    return plan.reading, plan.specs, plan.boon_net


def test_vectorised_distances_are_math_dist_bit_for_bit() -> None:
    """F-4: the fast policy measures as the engine's policy does (math.dist), ties included."""
    from tableside.simulate.fast_kernel_base import distances_of
    from tableside.simulate.fast_war_start import EXACT_DISTANCES, distances

    generator = np.random.default_rng(2026)
    a = generator.uniform(-30, 30, (100_000, 3))
    a[::2] = np.round(a[::2] * 4) / 4
    b = a + generator.normal(0, 1, a.shape) * generator.choice([1e-9, 1e-3, 1.0, 2.5], (100_000, 1))
    b[::7] = a[::7]
    exact = [math.dist(p, q) for p, q in zip(a.tolist(), b.tolist(), strict=True)]
    assert EXACT_DISTANCES
    assert distances(a, b).tolist() == exact
    out = np.zeros(len(a))
    distances_of(a, b, out)
    assert out.tolist() == exact  # the kernel's own function
