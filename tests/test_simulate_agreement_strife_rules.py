"""The fast Realm of Strife engine plays every rule the Strife policy meets (issue 26, F-72 … F-74).

Three small fights, each built so that what it is about occurs in every run:

* ``bound`` (F-72): Aldric and Sera against the Cave Troll and a Goblin, with the Host's
  conditions at the start: the Goblin Feared of Aldric and Sera Taunted by the Goblin (2
  rounds each), the Troll Controlled by Sera's Curse of Control (1 round), Aldric with two
  stacks of Exhaustion.
* ``instants`` (F-74): the Goblin has Sprinted (a Whole Turn), Aldric has used this Turn's
  instant, and Sera has used her next Turn's instant out of turn (owed).
* ``torrent`` (F-73): Ilsa casts Arcane Torrent (one casting d100 over up to six targets) at
  three Goblins beside Aldric.

Tests: the fast engine plays them (no fallback); full-engine runs replayed command by command
(the fast policy's choice is the engine policy's, the state after it the engine's); the laws
given the shared d100 mix back into the one-target law; and the statistical agreement of the
reports at the 1 % power of the other agreement tests (F-42).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from agreement import SHIFT, compared, outside, sized, strife_gaps
from scheduling import computed_once
from test_simulate_agreement_strife_effects import (
    ILSA,
    KNOCKED_UNTIL,
    fight_document,
    model,
    replay,
    started,
)
from test_simulate_strife_kernel import replay as kernel_replay

from tableside.encounter.engine import Encounter, copy_with
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import next_command
from tableside.simulate import simulate
from tableside.simulate.fast_strife import Run, _batch, choose, command_of, roster_of, why_not
from tableside.simulate.fast_strife_compiled import compiled, why_not_kernel
from tableside.simulate.fast_strife_oneroll import CASTING_D100
from tableside.simulate.runs import load_start
from tableside.store.formats import encounter_document
from tableside.strife.catalog import builtin_catalog
from tableside.strife.turns import FreeAttack


def bound() -> dict[str, Any]:
    """F-72: Feared, Taunted, Controlled and Exhaustion on models at the start."""
    return fight_document(
        [model("Aldric", "heroes", 0), model("Sera", "heroes", 0, 3),
         model("Troll", "monsters", 6, 1.5, model="Cave Troll"),
         model("Goblin", "monsters", 6, -1.5)],
        ({"id": "Goblin", "name": "Feared", "source": "Aldric", "rounds": 2},
         {"id": "Sera", "name": "Taunted", "source": "Goblin", "rounds": 2},
         {"id": "Troll", "name": "Controlled", "source": "Sera's Curse of Control", "rounds": 1},
         {"id": "Aldric", "name": "Exhaustion", "source": "prolonged climb"},
         {"id": "Aldric", "name": "Exhaustion", "source": "consecutive Sprint"}),
    )  # fmt: skip


def instants() -> dict[str, Any]:
    """F-74: a Sprint (Whole Turn), an instant used this Turn and one owed, mid-round."""
    encounter: Encounter[Any] = Encounter(StrifeFight(), 5)
    for args in ([model("Aldric", "heroes", 0), model("Sera", "heroes", 0, 3),
                  model("Troll", "monsters", 9, 1.5, model="Cave Troll"),
                  model("Goblin", "monsters", 9, -1.5),
                  model("Goblin-2", "monsters", 12, 0, model="Goblin")]):  # fmt: skip
        encounter.execute(Command("add", args))
    encounter.execute(Command("start", {}))
    state = encounter.state
    while state.current != "Goblin":
        encounter.execute(Command("next", {}))
        state = encounter.state
    encounter.execute(Command("whole_turn", {"id": "Goblin", "kind": "sprint",
                                             "to": [3.0, -1.5, 0.0]}))  # fmt: skip
    while encounter.state.current != "Aldric":
        encounter.execute(Command("next", {}))
    encounter.execute(Command("instant", {"id": "Aldric", "name": "Quick Draw"}))
    encounter.execute(Command("instant", {"id": "Sera", "name": "Shout"}))
    return encounter_document("instants", "strife-combat", encounter.seed, encounter.records)


def torrent() -> dict[str, Any]:
    """F-73: Arcane Torrent (one roll, up to six targets) at three Goblins."""
    sheet = {**ILSA, "powers": ["Arcane Torrent"]}
    return fight_document(
        [model("Ilsa", "heroes", 0, sheet=sheet), model("Aldric", "heroes", 0, 3),
         model("Goblin-1", "monsters", 8, model="Goblin"),
         model("Goblin-2", "monsters", 8, 3, model="Goblin"),
         model("Goblin-3", "monsters", 8, -3, model="Goblin")],
        ({"id": "Ilsa", "name": "Knocked Down", "until": KNOCKED_UNTIL},),
    )  # fmt: skip


FIGHTS = {"bound": bound, "instants": instants, "torrent": torrent}


def taunted_caster() -> dict[str, Any]:
    """F-72: Ilsa (Birds of Prey, up to three targets) Taunted by the farthest of three Goblins,
    and Feared of the nearest, with Aldric: her casts aim only at her taunter (SA-91)."""
    sheet = {**ILSA, "powers": ["Birds of Prey", "Arcane Missile"]}
    return fight_document(
        [model("Ilsa", "heroes", 0, sheet=sheet), model("Aldric", "heroes", 0, 3),
         model("Goblin-1", "monsters", 7, model="Goblin"),
         model("Goblin-2", "monsters", 9, 3, model="Goblin"),
         model("Goblin-3", "monsters", 11, -3, model="Goblin")],
        ({"id": "Ilsa", "name": "Taunted", "source": "Goblin-3", "rounds": 3},
         {"id": "Ilsa", "name": "Feared", "source": "Goblin-1's Dread", "rounds": 2}),
    )  # fmt: skip


def test_f72_f74_the_fast_engine_plays_them_on_the_kernel() -> None:
    """F-72 … F-74: no fallback to the full engine, and the kernel plays all three."""
    for name, fight in FIGHTS.items():
        document = fight()
        state = load_start(document).state
        assert why_not(state) is None, name
        report = simulate(document, 40, seed=2, engine="fast")
        assert report["engine"] == "fast" and "fallback" not in report, name
    begun = started(bound())
    assert why_not_kernel("strife-combat", begun) is None
    assert why_not_kernel("strife-combat", load_start(instants()).state) is None  # F-74
    assert why_not_kernel("strife-combat", load_start(torrent()).state) is None  # F-73


def test_f74_the_start_of_instants_holds_each_case() -> None:
    """F-74: the fight's start state holds a Sprint, a Whole Turn, an instant used and one owed."""
    state = load_start(instants()).state
    assert state.current == "Aldric" and state.models["Aldric"].elements == ("instant",)
    assert state.rounds.owes_instant == frozenset({"Sera"})
    goblin = state.models["Goblin"]
    assert goblin.sprints == 1 and "whole_turn" in goblin.elements


def test_f74_a_whole_turn_ends_the_turn() -> None:
    """F-74: after its Whole Turn (a Sprint closes with the Action mark) the policy's next is
    ``next``; with the Whole Turn alone every other element is refused (S-5), so ``next`` too."""
    state = load_start(instants()).state
    goblin = state.order.index("Goblin")
    state = copy_with(state, turn=goblin)
    roster = roster_of(state, builtin_catalog())
    assert command_of(choose(Run(state, roster), roster), roster) == next_command(state)
    alone = state.with_model(copy_with(state.models["Goblin"], elements=("whole_turn",)))
    assert next_command(alone) == Command("next")
    assert command_of(choose(Run(alone, roster), roster), roster) == Command("next")


def test_f72_a_taunted_model_takes_no_attack_of_opportunity_on_another() -> None:
    """F-72: an offer to a Taunted model on a model other than its taunter is refused (SA-91):
    the policy passes over it, as the fast engine does."""
    state = started(bound())
    roster = roster_of(state, builtin_catalog())
    weapon = roster.weapons[roster.ids.index("Sera")][0]
    troll = state.order.index("Troll")
    offered = copy_with(state, turn=troll, offers=(FreeAttack("Sera", weapon, "Troll"),))
    expected = next_command(offered)
    assert expected.kind != "aoo"
    assert command_of(choose(Run(offered, roster), roster), roster) == expected
    allowed = copy_with(offered, offers=(FreeAttack("Sera", weapon, "Goblin"),))
    assert next_command(allowed).kind == "aoo"
    assert command_of(choose(Run(allowed, roster), roster), roster) == next_command(allowed)


@pytest.mark.parametrize(("name", "runs"), [("bound", 30), ("instants", 20), ("torrent", 20)])
def test_f72_f74_exact_transitions(name: str, runs: int) -> None:
    """F-72 … F-74: every command of full runs: the same choice, the same state after it."""
    state = load_start(FIGHTS[name]()).state
    if state.round < 0:
        state = started(FIGHTS[name]())
    kinds: Counter[str] = Counter()
    for run in range(runs):
        replay(state, 31, run, kinds)
    assert {"attack", "move", "next"} <= set(kinds), kinds
    if name == "bound":
        assert kinds["refused, then move"] + kinds["refused, then attack"] > 0, kinds
    if name == "torrent":
        assert kinds["cast on several"] > 0, kinds


def test_f73_the_laws_given_the_shared_d100_mix_back_into_the_one_target_law() -> None:
    """F-73: Σ over faces of P(face) · law given the face = the target's own law, exactly."""
    batch = _batch(started(torrent()))
    laws = batch.laws
    assert laws.given and set(laws.given) <= set(laws.casts)
    for key, given in laws.given.items():
        mixed: dict[Any, Fraction] = {}
        for natural in range(1, 101):
            law = given.law(natural)
            assert law.reacts == laws.casts[key].reacts
            for outcome, p in zip(law.outcomes, law.chances, strict=True):
                mixed[outcome] = mixed.get(outcome, Fraction(0)) + p / 100
        own = laws.casts[key]
        assert {o: p for o, p in mixed.items() if p} == dict(
            zip(own.outcomes, own.chances, strict=True)
        )
    assert [o.damage for o in CASTING_D100.outcomes] == list(range(1, 101))
    assert CASTING_D100.draw(0.0).damage == 1 and CASTING_D100.draw(0.999).damage == 100


def test_f72_same_draws_same_states_on_the_kernel() -> None:
    """F-72: *bound* on the kernel, state for state with the Python path on the same draws:
    refused moves and attacks passed over, no AoO from a compelled move."""
    kinds: Counter[str] = Counter()
    for run in range(12):
        kinds.update(kernel_replay(started(bound()), 4242, run))
    assert {"attack", "move", "next", "aoo"} <= set(kinds), kinds


def test_f72_a_taunted_caster_against_the_engine_and_on_the_kernel() -> None:
    """F-72: *taunted_caster*: her first cast refused, the same powers at her taunter alone are
    the engine's accepted choice, command by command; the kernel's runs are the Python path's."""
    state = started(taunted_caster())
    kinds: Counter[str] = Counter()
    for run in range(12):
        replay(state, 31, run, kinds)
    assert kinds["refused, then cast"] > 0, kinds
    for run in range(8):
        kernel_replay(state, 4242, run)


def test_f74_same_draws_same_states_on_the_kernel() -> None:
    """F-74: *instants* on the kernel, state for state with the Python path on the same draws:
    the owed instant used and barred when Sera's Turn begins, the Whole Turn kept until the
    Goblin's next."""
    for run in range(8):
        kernel_replay(load_start(instants()).state, 4242, run)


def test_f73_same_draws_same_states_on_the_kernel() -> None:
    """F-73: *torrent* on the kernel, state for state with the Python path on the same draws:
    the shared d100 drawn first, then each target's law given its face."""
    kinds: Counter[str] = Counter()
    for run in range(8):
        kinds.update(kernel_replay(load_start(torrent()).state, 4242, run))
    assert kinds["cast"] > 0, kinds
    work, _ = compiled(load_start(torrent()).state)
    assert work is not None
    k, roster = work.static, work.batch.roster
    firsts = np.cumsum([0, *map(len, roster.powers)])
    for (i, p, j, block), given in work.batch.laws.given.items():
        for face in range(1, 101):
            index = int(k.cast_given[firsts[i] + p, j, int(block), face - 1])
            start, end = int(k.law_start[index]), int(k.law_start[index + 1])
            assert k.cumulative[start:end].tolist() == list(given.law(face).cumulative)
    start, end = int(k.law_start[k.d100]), int(k.law_start[k.d100 + 1])
    assert k.damage[start:end].tolist() == list(range(1, 101))


def test_f73_targets_share_the_miscast() -> None:
    """F-73: given a face that miscasts, every target's law deals no damage (SA-49)."""
    laws = _batch(started(torrent())).laws
    miscast = 1  # Ilsa's miscast chance is 5: a natural 1 miscasts whatever the target
    for given in laws.given.values():
        assert {o.damage for o in given.law(miscast).outcomes} == {0}


# Each fight's design win probability (the side nearest 1/2, moved towards 1/2 by about two
# standard errors: heroes 0.0022 in bound and in instants, monsters 0.0077 in torrent, each on
# 40,000 fast runs) and the CPU of a full run over a fast one on the kernel (700, 800 and 600,
# measured): agreement.sized gives 1,000 full runs and 16,000 fast, 1,000 and 17,000, 2,000 and
# 42,000 (3 to 6 s of CPU each).
DESIGN = {"bound": (0.003, 700), "instants": (0.003, 800), "torrent": (0.009, 600)}


@pytest.fixture(scope="module", params=list(FIGHTS))
def reports(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    name: str = request.param
    computed_once(tmp_path_factory, f"f72-reports-{name}")
    full, quick = compared(FIGHTS[name](), sized(*DESIGN[name]), seed=41)
    return name, full, quick


def test_f72_f74_wins_end_losses_and_falls_agree(
    reports: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    """F-72 … F-74: win probabilities, the round of the end, HP lost and falls within 3 standard
    errors, at the 1 % power (a 1-point shift in a win probability is caught 90 % of the time)."""
    name, full, quick = reports
    assert outside(strife_gaps(full, quick, SHIFT)) == [], name
