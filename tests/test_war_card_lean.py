"""Issue 21, item 8: the Host's card reads each option's outcome from the Strike's result.

:meth:`Trial.read` decides an option without the Strike's full report and reads the outcome
from its result; on many random Strikes (attributes, weapons, distances, seeds, Obstruction
tokens, Adjustments modes) it must equal :func:`seen` on the full decide.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tableside.dice import SeededRng
from tableside.encounter.log import Command
from tableside.encounter.roster import character_doc
from tableside.encounter.war import choices as war_choices
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState


def war(draw: random.Random) -> tuple[MajestyWar, WarState]:
    """Two combatants at a random distance, on the first one's Turn."""
    game, state, rng = MajestyWar(), WarState(), SeededRng(draw.randrange(1000))
    for name, side, at in (("Herald", "holy", 0.0), ("Warrior", "fallen", draw.choice([1, 2]))):
        attributes = {k: draw.randint(10, 70) for k in ("might", "swiftness", "control")}
        doc = character_doc(name, side, draw.choice(["Sword", "Axe"]), attributes)
        add = Command("add", {"id": name, "position": [at, 0.0, 0.0], "character": doc})
        state = game.play(state, add, rng)[1]
    return game, game.play(state, Command("next"), rng)[1]


@pytest.mark.parametrize("seed", range(12))
def test_lean_outcomes_equal_the_full_decide(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    draw = random.Random(seed)
    game, state = war(draw)
    striker = state.current.combatant if state.current is not None else "Herald"
    defender = "Warrior" if striker == "Herald" else "Herald"
    compared = 0
    for _ in range(6):
        args: dict[str, Any] = {"striker": striker, "defender": defender,
                                "obstruction": draw.randint(0, 3),
                                "mode": draw.choice(["best", "none"])}  # fmt: skip
        if draw.random() < 0.3:
            args["boon"] = draw.randint(1, 2)
        command = Command("strike", args)
        trial = war_choices.Trial(
            game, state, command, SeededRng.stream(draw.randrange(99), 1), lean=True
        )
        with monkeypatch.context() as patched:
            patched.setattr(war_choices, "_tried", {})
            lean = trial.run(args)
            patched.setattr(war_choices, "_tried", {})
            patched.setattr(war_choices, "LEAN", False)
            full = trial.run(args)
        assert lean == full, args
        compared += full is not None
    assert compared > 0


@pytest.mark.parametrize("seed", range(8))
def test_a_cards_options_on_one_roll_equal_each_on_its_own_stream(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every option of the Target's Obstruction and Adjustments questions, its dice shared with
    the other options (:class:`war_choices.SharedDice`), has the outcome it has on a fresh copy of
    the Strike's stream."""
    draw = random.Random(100 + seed)
    game, state = war(draw)
    striker = state.current.combatant if state.current is not None else "Herald"
    defender = "Warrior" if striker == "Herald" else "Herald"
    compared = 0
    for _ in range(3):
        args: dict[str, Any] = {"striker": striker, "defender": defender}
        if draw.random() < 0.4:
            args["boon" if draw.random() < 0.5 else "bane"] = draw.randint(1, 2)
        command = Command("strike", args)
        rng = SeededRng.stream(draw.randrange(999), draw.randrange(5))
        listed = war_choices.war_choices(game, state, command, war_choices.fresh(rng))
        for choice in listed:
            if choice.kind not in ("obstruction", "adjustments"):
                continue
            found = []
            for shared in (True, False):
                monkeypatch.setattr(war_choices, "_tried", {})
                monkeypatch.setattr(war_choices, "SHARED", shared)
                found.append(war_choices.war_effects(game, state, command, rng, choice))
            assert found[0] == found[1], (args, choice.kind)
            compared += sum(e is not None for e in found[1])
    assert compared > 0


def test_shared_dice_give_each_option_its_fresh_streams_faces_or_step_aside() -> None:
    """A replay gives the faces a fresh copy of the stream gives for the same dice, drawing
    beyond those drawn so far in place; a die of other sides at a place drawn raises."""
    rng = SeededRng.stream(41, 3)
    shared = war_choices.SharedDice.of(rng)
    assert shared is not None and war_choices.SharedDice.of(SeededRng.stream(41, 3)) is not None
    for dice in ([12, 12, 12], [12, 12, 12, 12, 12, 20], [12, 12], [12, 12, 12, 12, 12, 20, 6]):
        replay, fresh = shared.replay(), war_choices.fresh(rng)
        assert [replay.roll(s) for s in dice] == [fresh.roll(s) for s in dice]
    diverging = shared.replay()
    with pytest.raises(war_choices.DiceDivergedError):
        for sides in (12, 12, 6):
            diverging.roll(sides)
