"""The fast Realm of Strife engine where models are: ground, queue, hidden, under water, above.

Five small fights (Aldric and Sera against two Goblins), each starting from what it is about
(F-68 … F-71):

* ``ground``: Sera has thrown one of her Daggers, which lies on the ground (SA-72, F-68).
* ``bottom``: the first Goblin went to the bottom of the queue (S-4): a model that Rolls with
  the Blow this round drops in the queue, but not after it (F-68).
* ``hidden``: Sera declared hiding before the fight (S-22): she sneaks at half Movement (SA-42,
  F-69).
* ``water``: Aldric is under water (S-16, SA-76): he swims, 2" an inch, and attacks on him are
  the underwater ones (F-70).
* ``above``: Goblin-1 perched 1.5" up, Goblin-2 flying 0.8" up (SA-90, SA-93): Moves, Rolls
  and contacts in three dimensions (F-71).

Tests: the fast engine plays them (no fallback); exact transitions of full-engine runs (the fast
policy chooses the engine policy's command, the state after it is the engine's); the kernel
plays the Python fast path's transitions on the same draws; the reports agree with the full
engine's (F-42's test, at the same 1 % power); and what the fast engine leaves to the full
engine is named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from agreement import compared, outside, pooled_mean_gap, sized, strife_gaps
from scheduling import computed_once
from test_simulate_agreement_strife_effects import replay
from test_simulate_strife_kernel import replay as kernel_replay

from tableside.dice import ScriptedRng
from tableside.encounter.engine import Encounter, copy_with
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import next_command
from tableside.encounter.strife.state import FightState
from tableside.simulate import fast_strife_compiled as compiled
from tableside.simulate.fast_strife import (
    Rules,
    Run,
    choose,
    command_of,
    engine_view,
    roster_of,
    view,
    why_not,
)
from tableside.simulate.fast_strife_laws import Laws
from tableside.simulate.runs import load_start
from tableside.store.formats import encounter_document
from tableside.strife.catalog import builtin_catalog

Args = dict[str, Any]


def model(who: str, side: str, x: float, y: float = 0.0, **kind: Any) -> Args:
    return {"id": who, "side": side, "position": [x, y, 0.0], **(kind or {"model": who})}


ROSTER = [model("Aldric", "heroes", 0), model("Sera", "heroes", 0, 3),
          model("Goblin-1", "monsters", 4, model="Goblin"),
          model("Goblin-2", "monsters", 4, 3, model="Goblin")]  # fmt: skip


def fight(models: list[Args], before: tuple[tuple[str, Args], ...] = (),
          after: tuple[tuple[str, Args], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """A fight of ``models`` started (seed 5: Goblin-2, Goblin-1, Aldric, Sera), with the
    commands ``before`` and ``after`` the start."""
    encounter: Encounter[Any] = Encounter(StrifeFight(), 5)
    for args in models:
        encounter.execute(Command("add", args))
    for kind, args in before:
        encounter.execute(Command(kind, args))
    encounter.execute(Command("start", {}))
    for kind, args in after:
        encounter.execute(Command(kind, args))
    return encounter_document("places", "strife-combat", encounter.seed, encounter.records)


def ground() -> dict[str, Any]:
    """F-68: on her Turn, Sera throws her off-hand Dagger at Goblin-2; it lies on the ground."""
    throw = {"attacker": "Sera",
             "attacks": [{"defender": "Goblin-2", "weapon": "Dagger", "thrown": True}]}  # fmt: skip
    return fight(ROSTER, after=(("next", {}), ("next", {}), ("next", {}), ("attack", throw)))


def bottom() -> dict[str, Any]:
    """F-68: Goblin-2, first in Turn Order, goes to the bottom of the queue (S-4)."""
    return fight(ROSTER, after=(("bottom", {"id": "Goblin-2"}),))


def hidden() -> dict[str, Any]:
    """F-69: Sera declared hiding before the fight (S-22, SA-88)."""
    return fight([ROSTER[0], {**ROSTER[1], "hiding": True}, *ROSTER[2:]])


def water() -> dict[str, Any]:
    """F-70: the Host put Aldric under water (S-16, SA-76)."""
    return fight(ROSTER, before=(("water", {"id": "Aldric", "submerged": True}),))


def above() -> dict[str, Any]:
    """F-71: Goblin-1 perched 1.5" up where it climbed (SA-93), Goblin-2 flying 0.8" up."""
    return fight([*ROSTER[:2], {**ROSTER[2], "position": [4, 0, 1.5]},
                  {**ROSTER[3], "position": [4, 3, 0.8], "perched": False}])  # fmt: skip


FIGHTS: dict[str, Callable[[], dict[str, Any]]] = {
    "ground": ground, "bottom": bottom, "hidden": hidden, "water": water, "above": above,
}  # fmt: skip


def start(name: str) -> FightState:
    state: FightState = load_start(FIGHTS[name]()).state
    return state


def test_f68_f70_each_start_is_what_it_is_about_and_the_fast_engine_plays_it() -> None:
    """F-68 … F-71: the ground, the queue, hidden, under water, above: no reason to fall back."""
    states = {name: start(name) for name in FIGHTS}
    assert states["ground"].ground and states["bottom"].bottom == ("Goblin-2",)
    goblins = states["above"].models["Goblin-1"], states["above"].models["Goblin-2"]
    assert [(m.position[2], m.perched) for m in goblins] == [(1.5, True), (0.8, False)]
    assert states["hidden"].models["Sera"].hidden and states["water"].models["Aldric"].submerged
    assert {name: why_not(state) for name, state in states.items()} == dict.fromkeys(FIGHTS)
    assert {name: compiled.compiled(state)[1] for name, state in states.items()} == dict.fromkeys(
        FIGHTS
    )
    roster = roster_of(states["water"], builtin_catalog())
    assert roster.swims == (True, False, False, False) and not any(roster.sneaks)
    assert roster_of(states["hidden"], builtin_catalog()).sneaks == (False, True, False, False)


@pytest.mark.parametrize("name", list(FIGHTS))
def test_f68_f70_exact_transitions_of_full_engine_runs(name: str) -> None:
    """F-68 … F-70: 25 full runs, every command: same choice, same state after it."""
    state = start(name)
    kinds: Counter[str] = Counter()
    for run in range(25):
        replay(state, 17, run, kinds)
    assert {"attack", "move", "next"} <= set(kinds), kinds


def test_f68_a_roll_with_the_blow_drops_in_the_queue_before_the_bottom_of_it() -> None:
    """F-68 (S-4, S-19, SA-44): Sera, hurt by Goblin-1 on Aldric's Turn, Rolls with the Blow;
    still to come, she drops in the queue, but not after Goblin-2 at its bottom (without it she
    would: Goblin-2's Initiative Score is above hers less 10). Fast and full engine alike."""
    state = start("bottom")
    assert state.order == ("Goblin-1", "Aldric", "Sera", "Goblin-2")
    sera, goblin = state.models["Sera"], state.models["Goblin-1"]
    state = state.with_model(copy_with(sera, sheet=sera.sheet.model_copy(update={"hp": 5})))
    state = state.with_model(copy_with(goblin, position=(1.0, 3.0, 0.0)))
    state = copy_with(state, turn=1, last_damaged="Sera", last_damaged_by="Goblin-1")
    game = StrifeFight()
    roster = roster_of(state, game.catalog)
    rules = Rules(roster, Laws(state, game, roster))
    run = Run(state, roster)
    choice = choose(run, roster)
    assert choice[0] == "roll" and command_of(choice, roster) == next_command(state, game=game)
    after = game.play(state, command_of(choice, roster), ScriptedRng(()))[1]
    rules.apply(run, choice, lambda law: law.outcomes[0])
    assert view(run, roster) == engine_view(after, roster)
    assert after.order == ("Goblin-1", "Aldric", "Sera", "Goblin-2")
    work, why = compiled.compiled(state)  # the kernel's Roll, one command of a run (F-50)
    assert work is not None, why
    work.play(1, 0, 1, 100, limit=1)
    assert work.view() == compiled.comparable(view(run, roster))
    assert state.models["Goblin-2"].score > state.models["Sera"].score - 10
    unbottomed = game.play(copy_with(state, bottom=()), command_of(choice, roster),
                           ScriptedRng(()))[1]  # fmt: skip
    assert unbottomed.order == ("Goblin-1", "Aldric", "Goblin-2", "Sera")


@pytest.mark.parametrize("name", list(FIGHTS))
def test_f68_f70_the_kernel_plays_the_python_transitions(name: str) -> None:
    """F-50 with F-68 … F-70: the kernel, state for state with the Python fast path."""
    kinds: dict[str, int] = {}
    for run in range(8):
        for kind, n in kernel_replay(start(name), 4242, run).items():
            kinds[kind] = kinds.get(kind, 0) + n
    assert {"attack", "move", "next"} <= set(kinds), kinds


def test_f70_f71_what_is_left_to_the_full_engine_is_named() -> None:
    """F-70, F-71: under water or above the ground, with a ranged weapon in the fight."""
    state = start("water")
    goblin = state.models["Goblin-1"]
    bow = goblin.sheet.model_copy(update={"main_hand": "Short Bow"})
    shooting = state.with_model(copy_with(goblin, sheet=bow))
    assert why_not(shooting) == "Aldric is under water and Goblin-1 holds a ranged weapon"
    up = start("above")
    assert why_not(up) is None
    archer = up.models["Aldric"]
    up = up.with_model(
        copy_with(archer, sheet=archer.sheet.model_copy(update={"main_hand": "Short Bow"}))
    )
    assert why_not(up) == "Goblin-1 is above the ground and Aldric holds a ranged weapon"
    climbed = state.with_model(copy_with(goblin, climbed=3.0))
    assert why_not(climbed) is None  # read only by a climbing Move's Stamina test (F-71)


# --- the reports agree (F-42's test) ----------------------------------------------------------

# Each fight's design win probability (the monsters', measured on 20,000 fast runs: ground
# 0.0015, bottom 0.0023, hidden 0.0061, water 0.0028, above 0.0037 (40,000), taken at about
# twice that so that 2,000 full runs hold the power even where the full engine's runs see a few
# more wins, Laplace's (k + 1) / (n + 2) included) and the CPU of a full run over a fast one
# (about 900 on the kernel): agreement.sized gives 2,000 full runs and 40,000 to 54,000 fast
# ones, catching a shift of 1 % with 90 % power.
DESIGN = {"ground": (0.007, 900), "bottom": (0.007, 900), "hidden": (0.0095, 900),
          "water": (0.007, 900), "above": (0.007, 900)}  # fmt: skip
SHIFT = 0.01


@pytest.fixture(scope="module", params=list(FIGHTS))
def reports(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    name: str = request.param
    computed_once(tmp_path_factory, f"f68-reports-{name}")
    full, quick = compared(FIGHTS[name](), sized(*DESIGN[name], SHIFT), seed=43)
    return name, full, quick


@pytest.mark.slow
def test_f68_f71_wins_end_losses_and_falls_agree(
    reports: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    """F-68 … F-71: win probabilities, the round of the end, HP lost and falls within 3 standard
    errors of the full engine's, the power to catch a 1 % shift checked on the figures.

    The means' standard errors are pooled (``agreement.pooled_mean_gap``): a Goblin survives so
    rarely that the full engine's 1,000 runs may never see it, and its HP lost then has no spread
    in them.
    """
    name, full, quick = reports
    assert outside(strife_gaps(full, quick, SHIFT, pooled_mean_gap)) == [], name
