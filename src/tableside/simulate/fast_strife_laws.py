"""The fast Realm of Strife engine's laws, computed once per fight (F-9, F-41, F-62 … F-64, F-73).

Every attack law a fight can use (per attacker, weapon, defender and reaction), each ranged
weapon's shots per whole inch its shooter moved (F-62), and every cast law of the policy's
casts (F-41), with a one-roll power's laws given its shared casting d100 (F-73): from the
engine's own ``attack_setup`` and ``cast_rolls``, with no Absorption (the fast engine absorbs in
play, F-64).
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from tableside.dice import ScriptedRng
from tableside.encounter.engine import copy_with
from tableside.encounter.strife.args import AttackItem, CastArgs
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.cast import cast_plan, cast_rolls
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.simulate.fast_strife_law import Law, cast_law, joint_law
from tableside.simulate.fast_strife_oneroll import (
    CastKey,
    GivenRoll,
    cached_given_roll,
    shares_roll,
)
from tableside.strife.catalog import PowerEntry
from tableside.strife.turns import RoundTracker

if TYPE_CHECKING:
    from tableside.simulate.fast_strife_run import Roster

SHOT_SPARE = 2  # inches moved past Movement a shot's laws are kept for (Rolls with the Blow)
SHOT_AWAY = 100.0  # inches a shooter is set from its target to ask for a shot's law (F-62)


class Laws:
    """Every attack law a fight can use, computed once from the engine's ``attack_setup``."""

    def __init__(self, state: FightState, game: StrifeFight, roster: Roster) -> None:
        self.roster = roster
        self.table: dict[tuple[int, str, int, str | None], Law] = {}
        bare = _unabsorbed(copy_with(state, rounds=RoundTracker()))  # absorbed in play (F-64)
        pending = Pending(bare, describe=False)
        models = list(bare.models.values())
        self.shots: dict[tuple[int, str, int, int], Law] = {}
        self.flying_shots: dict[tuple[int, str, int, int], Law] = {}  # a flying shooter's (F-71)
        self.game, self.pending, self.models = game, pending, models
        aloft = (False, True) if any(m.position[2] != 0 for m in models) else (False,)
        for i, attacker in enumerate(models):
            for j, defender in enumerate(models):
                if roster.side[i] == roster.side[j]:
                    continue
                for weapon in dict.fromkeys(roster.weapons[i]):
                    if weapon in roster.shooting[i]:  # AoOs only, by inches moved (F-62)
                        for inches in range(roster.movement[i] + SHOT_SPARE + 1):
                            for flying in aloft:
                                self.shot(i, weapon, j, inches, flying)
                        continue
                    for reaction in dict.fromkeys((roster.reaction[j], None)):
                        item = AttackItem(defender=defender.id, weapon=weapon, reaction=reaction)
                        setup = attack_setup(game, pending, attacker, item, free_attack=True)
                        self.table[i, weapon, j, reaction] = cached_law(setup)
        self.given: dict[CastKey, GivenRoll] = {}  # one-roll powers' laws given the d100 (F-73)
        self.casts = cast_laws(state, game, roster, self.given)

    def shot(self, i: int, weapon: str, j: int, inches: int, flying: bool = False) -> Law:
        """The law of an AoO with a ranged weapon, its shooter having moved ``inches`` (F-62).

        Moving and shooting costs −5 a whole inch moved this Turn (S-16), and a flying shooter
        a further −5 (SA-77, SA-90; F-71), so a shot's law depends on both; asked of the engine
        with the shooter set that far, out of base contact (a shot on a model in contact is
        refused, SA-48; an AoO is taken once the mover has left contact), on the ground or
        flying 1" up, computed once.
        """
        key = (i, weapon, j, inches)
        shots = self.flying_shots if flying else self.shots
        law = shots.get(key)
        if law is None:
            shooter, target = self.models[i], self.models[j]
            away = (target.position[0] + SHOT_AWAY, target.position[1], float(flying))
            shooter = copy_with(shooter, moved=float(inches), position=away, perched=False)
            item = AttackItem(defender=target.id, weapon=weapon)
            setup = attack_setup(self.game, self.pending, shooter, item, free_attack=True)
            law = shots[key] = cached_law(setup)
        return law

    def unsupported(self) -> str | None:
        """A law the fast engine cannot play (None: it plays them all).

        Since F-72 and F-73 none is left: a condition the engine reads is played (F-72), and a
        one-roll power's targets are drawn given their shared casting d100 (F-73).
        """
        return None


def _unabsorbed(state: FightState) -> FightState:
    """The fight with no Absorption: the laws give the damage before it (F-64)."""
    for m in state.models.values():
        if m.sheet.absorption:
            sheet = m.sheet.model_copy(update={"absorption": 0})
            state = state.with_model(copy_with(m, sheet=sheet))
    return state


def absorbed(damage: int, percent: int, hp: int) -> int:
    """``damage.absorb``'s HP lost: floor(percent × current HP / 100) of a hit absorbed (S-21)."""
    return max(0, damage - percent * hp // 100)


_LAWS: dict[bytes, Law] = {}


def cached_law(setup: Any) -> Law:
    """The joint law of an attack setup, kept for the process (keyed by its pickle)."""
    key = pickle.dumps(setup)
    law = _LAWS.get(key)
    if law is None:
        law = _LAWS[key] = joint_law(setup)
    return law


def cast_laws(
    state: FightState,
    game: StrifeFight,
    roster: Roster,
    given: dict[CastKey, GivenRoll] | None = None,
) -> dict[CastKey, Law]:
    """Every cast law the policy can use (F-41), from the setup the engine's ``cast_rolls`` builds.

    ``given`` gets, for a one-roll power that may have several targets, each target's laws given
    the shared casting d100 (F-73).

    The engine is asked to resolve each cast once on scripted dice (all ones, a face every die
    has) on a throwaway copy of the start with every Reaction back; its result holds the
    ``CastSetup`` it built, whose law is computed exactly.
    """
    found: dict[CastKey, Law] = {}
    models = list(state.models.values())
    fresh = copy_with(state, rounds=RoundTracker())
    for i, caster in enumerate(models):
        for k, entry in enumerate(roster.powers[i]):
            for j in roster.foes[roster.side[i]]:
                target = models[j]
                blocks = (
                    (False, True) if entry.blockable and roster.reaction[j] == "block" else (False,)
                )
                for block in blocks:
                    args = CastArgs(caster=caster.id, targets=(target.id,), power=entry.name,
                                    blocks={target.id: "block"} if block else {})  # fmt: skip
                    plan = cast_plan(game.catalog, args)
                    pending = Pending(fresh, describe=False)
                    dice = ScriptedRng((1,) * 64)
                    setup = cast_rolls(game, pending, caster, args, plan, dice)[0].setup
                    source = f"{caster.id}'s {entry.name}"
                    found[i, k, j, block] = cached_cast_law(setup, entry, source)
                    if given is not None and shares_roll(entry):
                        given[i, k, j, block] = cached_given_roll(setup, entry, source)
    return found


_CAST_LAWS: dict[bytes, Law] = {}


def cached_cast_law(setup: Any, entry: PowerEntry, source: str) -> Law:
    """A cast's law, kept for the process (keyed by the pickle of its inputs)."""
    key = pickle.dumps((setup, entry.effects, source))
    law = _CAST_LAWS.get(key)
    if law is None:
        law = _CAST_LAWS[key] = cast_law(setup, entry.effects, source)
    return law
