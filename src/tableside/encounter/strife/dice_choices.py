"""Staged physical dice as choices (D-6).

The next stage of dice whose faces are still missing, for its roller to enter (see
:mod:`tableside.encounter.strife.dice`).
"""

from __future__ import annotations

from tableside.dice import Rng, SeededRng
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command
from tableside.encounter.strife.args import AttackArgs
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.dice import (
    AttackStages,
    DiceNeededError,
    Entered,
    StageDice,
    stage_key,
)
from tableside.encounter.strife.rehearsal import throwaway
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import FightRules, Pending
from tableside.errors import RulesError


def next_dice(game: FightRules, state: FightState, command: Command, rng: Rng) -> StageDice | None:
    """The next stage of physical dice still to enter (D-6); None: all in.

    The Action is decided on a copy of its own dice stream, every stage entered so far played
    back, until a physical roller's stage has no faces yet: that stage is the one asked. Faces
    already entered for a later stage are refused (the dice come stage by stage, in order).
    """
    try:
        game.pending(state, command, throwaway(rng), describe=False)
    except DiceNeededError as need:
        rolled = command.args.get("rolled") or {}
        ahead = [k for k, faces in rolled.items() if faces is not None and k not in need.used]
        if ahead:
            raise RulesError(
                f"rolled gives dice for {ahead[0]!r} before {need.stage.what} "
                f"({need.stage.key!r}) is rolled: physical dice are entered stage by stage, "
                "in order (D-6)."
            ) from None
        return need.stage
    return None


STAGE_PURPOSE = {
    "ward_off_attacker": "the Ward-off contest: the attacker's d20 against the defender's; if "
    "the defender wins, the attack is kept at bay",
    "ward_off_defender": "the Ward-off contest: the defender's d20 against the attacker's; if "
    "the defender wins, the attack is kept at bay",
    "hit": "the attack's hit roll, read against the defender's AC and Dodge",
    "reaction": "the defender's Block/Parry test against this attack",
    "damage": "the damage of the attack that hit",
    "effects": "one d100 for each % effect of the attack",
}
"""What each stage's dice are for, in the table's words (issue 21: each prompt says it)."""


def purpose(stage: StageDice) -> str:
    """What the stage's dice decide."""
    return STAGE_PURPOSE.get(stage.key.partition(".")[2], stage.what)


def dice_choice(stage: StageDice, given: bool) -> Choice:
    """The roller's entry of one stage's faces (free: checked by the game when rolled)."""
    return Choice(
        kind="dice",
        combatant=stage.roller,
        path=("rolled", stage.key),
        options=(
            {
                "value": None,
                "label": f"{stage.count}d{stage.sides}: the server rolls them",
                "count": stage.count,
                "sides": stage.sides,
            },
        ),
        suggested=None,
        given=given,
        prompt=f"{stage.roller}: roll {stage.count}d{stage.sides} for {stage.what} "
        f"({purpose(stage)}) and enter the faces.",
        free=True,
        key=f"dice.{stage.key}",
        info={
            "title": f"{stage.roller}'s dice: {stage.what}",
            "input": {"type": "dice", "count": stage.count, "sides": stage.sides,
                      "for": purpose(stage), "what": stage.what},
            "details": {"rules": ["D-6"]},
        },
    )  # fmt: skip


def given_dice(game: FightRules, state: FightState, args: AttackArgs) -> list[Choice]:
    """The stages whose faces (or null) the arguments already carry, for the asker to judge.

    A roller's dice are its own: listed as given, the policy sees who entered them.
    """
    attacker = state.models[args.attacker]
    found = []
    for key in args.rolled:
        index, stage = stage_key(key, len(args.attacks))
        item = args.attacks[index]
        setup = attack_setup(game, Pending(state), attacker, item)
        stages = AttackStages(
            Entered(frozenset(), {}), SeededRng(0), index, setup, attacker.id, item.defender,
            item.precision,
        )  # fmt: skip
        found.append(dice_choice(stages.describe(stage), given=True))
    return found
