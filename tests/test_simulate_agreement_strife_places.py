"""The fast Realm of Strife engine where models are: ground, queue, hidden, under water, above.

Eight small fights (Aldric and Sera against two Goblins, or an Archer, a Goblin and a Troll), each
starting from what it is about (F-68 … F-71):

* ``ground``: Sera has thrown one of her Daggers, which lies on the ground (SA-72, F-68).
* ``bottom``: the first Goblin went to the bottom of the queue (S-4): a model that Rolls with
  the Blow this round drops in the queue, but not after it (F-68).
* ``hidden``: Sera declared hiding before the fight (S-22): she sneaks at half Movement (SA-42,
  F-69).
* ``water``: Aldric is under water (S-16, SA-76): he swims, 2" an inch, and attacks on him are
  the underwater ones (F-70).
* ``above``: Goblin-1 perched 1.5" up, Goblin-2 flying 0.8" up (SA-90, SA-93): Moves, Rolls
  and contacts in three dimensions (F-71).
* ``sky``: an Archer flying beside hurt heroes, who disengage: its shots are a flying
  shooter's (SA-77, F-71).
* ``wet``: an Archer under water beside hurt, fast heroes: its shots at them as they
  disengage, beyond its range through water, are free attacks the engine takes (F-70).
* ``missile``: Ilsa under water against far Goblins: her Arcane Missile, beyond its range
  through water, is refused, and Birds of Prey cast instead (SA-76, SA-94, F-70).

Tests: the fast engine plays them (no fallback); exact transitions of full-engine runs (the fast
policy chooses the engine policy's command, the state after it is the engine's); the kernel
plays the Python fast path's transitions on the same draws; the reports agree with the full
engine's (F-42's test, at the same 1 % power); and what the fast engine leaves to the full
engine is named.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from agreement import compared, outside, pooled_mean_gap, sized, strife_gaps
from scheduling import computed_once
from test_simulate_agreement_strife_effects import ILSA, replay
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
    _batch,
    choose,
    command_of,
    engine_view,
    generator,
    roster_of,
    view,
    why_not,
)
from tableside.simulate.fast_strife_laws import Laws
from tableside.simulate.fast_strife_water import accepted
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


def sky() -> dict[str, Any]:
    """F-71: an Archer (a Goblin with a Short Bow) flying 0.5" up beside hurt Aldric and Sera,
    with Goblin-1 and a Cave Troll: its shots as they disengage are a flying shooter's (SA-77)."""
    goblin = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    goblin.update(main_hand="Short Bow", off_hand=None, shield=None,
                  proficiencies=[*goblin["proficiencies"], "Bows"])  # fmt: skip
    archer = {"id": "Archer", "side": "monsters", "position": [0.5, 1.5, 0.5], "sheet": goblin,
              "perched": False}  # fmt: skip
    hurt = (("host_set", {"id": "Aldric", "field": "hp", "value": 12}),
            ("host_set", {"id": "Sera", "field": "hp", "value": 9}))  # fmt: skip
    return fight([*ROSTER[:3], archer, model("Troll", "monsters", 2, 1.5, model="Cave Troll")],
                 after=hurt)  # fmt: skip


def sheet(name: str, **changes: Any) -> dict[str, Any]:
    """A catalogue model's sheet, changed."""
    found: dict[str, Any] = builtin_catalog().combatant(name).model_dump(mode="json")
    return {**found, **changes}


def wet() -> dict[str, Any]:
    """F-70: an Archer under water in contact with hurt, fast (Movement 14) Aldric and Sera,
    with Goblin-1 and a Cave Troll: a hero disengaging 14" is beyond the Short Bow's 24" through
    water (2 an inch), and the Archer's Attack of Opportunity, a free attack, is taken all the
    same (the engine checks no free attack's range)."""
    goblin = sheet("Goblin", main_hand="Short Bow", off_hand=None, shield=None)
    goblin["proficiencies"] = [*goblin["proficiencies"], "Bows"]
    models = [model("Aldric", "heroes", 0, sheet=sheet("Aldric", movement=14)),
              model("Sera", "heroes", 0, 3, sheet=sheet("Sera", movement=14)), ROSTER[2],
              model("Archer", "monsters", 0.5, 2.2, sheet=goblin),
              model("Troll", "monsters", 10, 1.5, model="Cave Troll")]  # fmt: skip
    hurt = (("host_set", {"id": "Aldric", "field": "hp", "value": 8}),
            ("host_set", {"id": "Sera", "field": "hp", "value": 6}))  # fmt: skip
    return fight(models, before=(("water", {"id": "Archer", "submerged": True}),), after=hurt)


def missile() -> dict[str, Any]:
    """F-70: Ilsa under water (Arcane Missile, 24", then Flame Strike and Birds of Prey, 18")
    and Aldric against two Goblins 21" away: her Arcane Missile beyond 12" counts over 24"
    through water and is refused; the policy casts Birds of Prey instead once a Goblin is
    within its 18", and Arcane Missile again within 12"."""
    models = [model("Ilsa", "heroes", 0, sheet=ILSA), ROSTER[0] | {"position": [0, 3, 0.0]},
              model("Goblin-1", "monsters", 21, model="Goblin"),
              model("Goblin-2", "monsters", 21, 3, model="Goblin")]  # fmt: skip
    return fight(models, before=(("water", {"id": "Ilsa", "submerged": True}),))


FIGHTS: dict[str, Callable[[], dict[str, Any]]] = {
    "ground": ground, "bottom": bottom, "hidden": hidden, "water": water, "above": above,
    "sky": sky, "wet": wet, "missile": missile,
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


Seen = Callable[[Run, Any, tuple[Any, ...]], bool]


def runs_seeing(name: str, seen: Seen, runs: int = 100) -> int:
    """In how many of ``runs`` fast runs of ``name`` some choice is ``seen(run, roster, choice)``
    (asked before the choice is played)."""
    batch = _batch(start(name))
    roster, rng, count = batch.roster, generator(3, 0), 0
    for _ in range(runs):
        run, found = Run(batch.start, roster), False
        while not run.ended and run.round <= 100:
            choice = choose(run, roster)
            found = found or seen(run, roster, choice)
            batch.rules.apply(run, choice, lambda law: law.draw(float(rng.random())))
        count += found
    return count


def test_f70_a_shot_beyond_range_through_water_is_taken_in_most_runs() -> None:
    """F-70: in most fast runs of *wet* the Archer under water shoots a hero further than its
    Short Bow's 24" counted through water (2 an inch): an Attack of Opportunity is a free
    attack, whose range the engine does not check, so the fast engine takes it as the engine
    does (the exact transitions above replay the engine taking it)."""

    def beyond(run: Run, roster: Any, choice: tuple[Any, ...]) -> bool:
        shooter = roster.ids.index("Archer")
        if choice[0] != "aoo" or choice[1] != shooter:
            return False
        return 2 * math.dist(run.pos[shooter], run.pos[choice[2]]) > 24

    assert runs_seeing("wet", beyond) > 50


def test_f70_a_cast_refused_through_water_is_passed_over_in_most_runs() -> None:
    """F-70: in most fast runs of *missile* Ilsa's Arcane Missile is refused through water and
    Birds of Prey cast in its stead (the exact transitions above replay the engine's choice)."""

    def instead(run: Run, roster: Any, choice: tuple[Any, ...]) -> bool:
        if choice[0] != "cast" or choice[3] == 0:
            return False
        caster, first = choice[1], roster.powers[choice[1]][0]
        nearest = min(choice[2], key=lambda j: (math.dist(run.pos[caster], run.pos[j]), j))
        return not accepted(roster, run.pos, caster, first, (nearest,))

    assert runs_seeing("missile", instead) > 50


def test_f70_f71_every_place_is_played() -> None:
    """F-70, F-71: nothing where models are is left: a projectile power under water, a shooter
    under water or above the ground, a climb behind are all played."""
    state = start("water")
    goblin = state.models["Goblin-1"]
    caster = goblin.sheet.model_copy(update={"powers": ("Arcane Missile",)})
    assert why_not(state.with_model(copy_with(goblin, sheet=caster))) is None
    assert why_not(start("wet")) is None
    assert why_not(start("above")) is None and why_not(start("sky")) is None
    climbed = state.with_model(copy_with(goblin, climbed=3.0))
    assert why_not(climbed) is None  # read only by a climbing Move's Stamina test (F-71)


def test_f71_the_archer_shoots_flying_in_most_runs_and_its_laws_are_the_engines() -> None:
    """F-71: in most fast runs of *sky* the Archer shoots while flying; a flying shot's law is
    the engine's for a shooter 1" up and not perched, worse than on the ground (SA-77)."""

    def flying(run: Run, roster: Any, choice: tuple[Any, ...]) -> bool:
        if choice[0] != "aoo" or choice[3] not in roster.shooting[choice[1]]:
            return False
        return bool(run.pos[choice[1]][2] > 0 and not run.perched[choice[1]])

    assert runs_seeing("sky", flying) > 50
    batch = _batch(start("sky"))
    roster = batch.roster
    laws, archer = batch.laws, roster.ids.index("Archer")
    assert set(laws.flying_shots) == set(laws.shots) and laws.shots
    key = (archer, "Short Bow", roster.ids.index("Sera"), 0)
    assert laws.flying_shots[key] != laws.shots[key]


# --- the reports agree (F-42's test) ----------------------------------------------------------

# Each fight's design win probability (the monsters', measured on 20,000 fast runs: ground
# 0.0015, bottom 0.0023, hidden 0.0061, water 0.0028, above 0.0037 (40,000), missile 0.0021;
# sky and wet, the heroes', none in 1,000 and 500), taken at about
# twice that so that 2,000 full runs hold the power even where the full engine's runs see a few
# more wins, Laplace's (k + 1) / (n + 2) included) and the CPU of a full run over a fast one
# (about 900 on the kernel): agreement.sized gives 2,000 full runs and 40,000 to 54,000 fast
# ones, catching a shift of 1 % with 90 % power.
DESIGN = {"ground": (0.007, 900), "bottom": (0.007, 900), "hidden": (0.0095, 900),
          "water": (0.007, 900), "above": (0.007, 900), "sky": (0.007, 900),
          "wet": (0.007, 900), "missile": (0.007, 900)}  # fmt: skip
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
