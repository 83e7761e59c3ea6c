"""Issue 21, item 8: a Reaction's options without a dry run of the whole Action per Reaction.

:func:`needs_dry_run` skips the per-Reaction dry run for an Action of one plain attack; the
options listed (values, labels, odds) must be those the dry runs give, on many fights: every
pair of catalogue models at several distances, each attack form, with the defender's Reaction
still free or already spent (S-4).
"""

from __future__ import annotations

import itertools
import random
from collections import OrderedDict
from dataclasses import replace
from typing import Any

import pytest

from tableside.dice import SeededRng
from tableside.encounter.log import Command
from tableside.encounter.strife import laws, reaction_choices, rehearsal
from tableside.encounter.strife.args import AttackArgs, AttackItem
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.encounter.war.args import parse_args
from tableside.errors import TablesideError
from tableside.strife.odds import attack_odds

MODELS = ("Aldric", "Sera", "Goblin", "Cave Troll")
FORMS: tuple[dict[str, Any], ...] = (
    {},
    {"weapon": "Dagger", "thrown": True},
    {"weapon": "Short Bow"},
    {"precision": True},
    {"shield_blow": True},
    {"modifiers": [-20], "situational": {"cover": -10}},
)


def ident(name: str) -> str:
    """A model's id in the fight: its catalogue name without spaces."""
    return name.replace(" ", "_")


def fight(attacker: str, defender: str, gap: int, spent: bool) -> tuple[StrifeFight, FightState]:
    """A fight on ``attacker``'s Turn; ``spent``: the defender has used its Reaction (S-4)."""
    game, state, rng = StrifeFight(), FightState(), SeededRng(3)
    for name, side, at in ((attacker, "a", [0, 0, 0]), (defender, "b", [gap, 0, 0])):
        add = Command("add", {"id": ident(name), "model": name, "side": side, "position": at})
        state = game.play(state, add, rng)[1]
    state = game.play(state, Command("start"), rng)[1]
    for _ in range(4):
        if state.current == ident(attacker):
            break
        state = game.play(state, Command("next"), rng)[1]
    if spent:
        p = Pending(state)
        p.emit("reaction_spent", "S-4", id=ident(defender), failed_parry=False, reason="reaction")
        state = p.state
    return game, state


def options(game: StrifeFight, state: FightState, command: Command) -> list[Any]:
    """The Reaction options of the Action's first attack (a refused attack lists none)."""
    args = parse_args(AttackArgs, command.args, "attack")
    rng = SeededRng(11)
    try:
        rehearsal.dry_run(game, state, command, rng)
    except TablesideError:
        return []
    attacker = state.models[args.attacker]
    return reaction_choices.reaction_options(
        game, state, command, attacker, 0, args.attacks[0], rng
    )


CASES = list(itertools.product(itertools.permutations(MODELS, 2), (1, 2, 4), (False, True)))


@pytest.mark.parametrize(("pair", "gap", "spent"), CASES)
def test_reaction_options_equal_the_dry_runs(
    pair: tuple[str, str], gap: int, spent: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    attacker, defender = ident(pair[0]), ident(pair[1])
    try:
        game, state = fight(pair[0], pair[1], gap, spent)
    except TablesideError:
        pytest.skip("no such fight")
    for form in FORMS:
        command = Command("attack", {"attacker": attacker,
                                     "attacks": [{"defender": defender, **form}]})  # fmt: skip
        assert not reaction_choices.needs_dry_run(command)
        fast = options(game, state, command)
        with monkeypatch.context() as patched:
            patched.setattr(reaction_choices, "needs_dry_run", lambda _command: True)
            full = options(game, state, command)
        assert fast == full, (pair, gap, spent, form)


def test_actions_that_still_need_the_dry_runs() -> None:
    two = [{"defender": "Goblin"}, {"defender": "Goblin"}]
    for args in (
        {"attacker": "Aldric", "attacks": two},
        {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "power": "Flame"}]},
        {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "crushing_injury": "arm"}]},
        {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}], "reactions": {"x": 1}},
    ):
        assert reaction_choices.needs_dry_run(Command("attack", args))


@pytest.mark.parametrize(
    "pair",
    [
        ("Aldric", "Goblin"),
        ("Goblin", "Aldric"),
        ("Sera", "Cave Troll"),
        ("Cave Troll", "Sera"),
        ("Aldric", "Oak Door"),
    ],
)
def test_a_kept_law_fitted_to_hp_equals_the_exact_law(
    pair: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The law kept without HP (its defeat refitted) is ``attack_odds`` at every HP (S-21)."""
    monkeypatch.setattr(laws, "_laws", OrderedDict())
    game, state = fight(pair[0], pair[1], 1, False)
    attacker, defender = state.models[ident(pair[0])], state.models[ident(pair[1])]
    draw = random.Random(21)
    for reaction in (None, *reaction_choices.REACTIONS):
        item = AttackItem(defender=defender.id, reaction=reaction)
        try:
            setup = attack_setup(game, Pending(state), attacker, item)
            attack_odds(setup)
        except TablesideError:
            continue
        top = setup.defender.hp_max
        for hp in (top, 1, *draw.sample(range(1, top + 1), min(4, top))):
            hurt = setup.defender.model_copy(update={"hp": hp})
            tired = setup.attacker.model_copy(update={"hp": draw.randint(1, setup.attacker.hp_max)})
            moved = replace(setup, attacker=tired, defender=hurt)
            exact = attack_odds(moved)
            kept = laws.weigh(moved)
            assert kept.law == exact, (pair, reaction, hp)
            assert kept.dealt == 1 - exact.damage.p(0)
            assert kept.mean == exact.damage.mean
