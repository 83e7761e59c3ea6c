"""Pure pieces of turn structure: Turn Order (S-4), Turns (S-5), AoOs (S-18), S-19.

Attacks of Opportunity (S-18) and Rolling with the Blow (S-19) included.

The trackers are immutable: every operation returns a new tracker or raises a RulesError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction

from tableside.errors import RulesError, require_non_negative
from tableside.strife.conditions import KNOCKED_DOWN, Condition, condition
from tableside.strife.movement import roll_with_the_blow_limit

ROLL_WITH_THE_BLOW_INITIATIVE = 10


# --- S-4 Turn Order ---------------------------------------------------------------------------


def with_bottom_of_queue(
    order: Sequence[str], sides: Mapping[str, str], bottom: Sequence[str]
) -> tuple[str, ...]:
    """Turn Order with the models going to the bottom of the queue moved last (S-4).

    At most one model per side may go to the bottom each round; those who do keep their
    relative order at the end (SA-25).
    """
    seen: dict[str, str] = {}
    for name in bottom:
        if name not in order:
            raise RulesError(f"{name} is not in this round's Turn Order.")
        side = _side_of(sides, name)
        if side in seen:
            raise RulesError(
                f"Only one model per side may go to the bottom of the queue each round; "
                f"{seen[side]} of side {side} already has, so {name} cannot (S-4)."
            )
        seen[side] = name
    return (*(n for n in order if n not in bottom), *(n for n in order if n in bottom))


def ambush_round(order: Sequence[str], sides: Mapping[str, str], ambushers: str) -> tuple[str, ...]:
    """The free round before round 1: only the ambushing side, in Turn Order (S-4)."""
    return tuple(name for name in order if _side_of(sides, name) == ambushers)


def _side_of(sides: Mapping[str, str], name: str) -> str:
    side = sides.get(name)
    if side is None:
        raise RulesError(f"No side is given for {name}.")
    return side


@dataclass(frozen=True, slots=True)
class RoundTracker:
    """Per-round bookkeeping: one Reaction per model (S-4), out-of-turn instants (S-4)."""

    round: int = 1
    reactions_spent: frozenset[str] = frozenset()
    failed_parry: frozenset[str] = frozenset()  # spent the round's reaction on a failed Parry
    owes_instant: frozenset[str] = frozenset()  # used an out-of-turn instant

    def can_react(self, name: str) -> bool:
        """Whether the model still has this round's Reaction."""
        return name not in self.reactions_spent

    def spend_reaction(self, name: str, failed_parry: bool = False) -> RoundTracker:
        """Use the model's one Reaction this round (S-4)."""
        if not self.can_react(name):
            raise RulesError(f"{name} has already used its Reaction this round (S-4).")
        failed = self.failed_parry | {name} if failed_parry else self.failed_parry
        return replace(self, reactions_spent=self.reactions_spent | {name}, failed_parry=failed)

    def use_out_of_turn_instant(self, name: str) -> RoundTracker:
        """An out-of-turn instant uses up the model's next Turn's instant (S-4)."""
        if name in self.owes_instant:
            raise RulesError(f"{name} has already used the instant of its next Turn (S-4).")
        return replace(self, owes_instant=self.owes_instant | {name})

    def start_turn(self, name: str) -> tuple[RoundTracker, bool]:
        """Start the model's Turn; returns the tracker and whether it has its instant."""
        has_instant = name not in self.owes_instant
        return replace(self, owes_instant=self.owes_instant - {name}), has_instant

    def next_round(self) -> RoundTracker:
        """A new round: Reactions come back; owed instants stay owed."""
        return RoundTracker(self.round + 1, frozenset(), frozenset(), self.owes_instant)


# --- S-5 a Turn -------------------------------------------------------------------------------


class TurnElement(StrEnum):
    """Parts of a Turn (S-5)."""

    MOVE = "move"
    INSTANT = "instant"
    ACTION = "action"
    WHOLE_TURN = "whole_turn"  # Recover, a whole-turn skill, Sprint


def check_turn(elements: Sequence[TurnElement]) -> None:
    """A Whole Turn alone, or at most one Move, Instant and Action, the Action last (S-5)."""
    if TurnElement.WHOLE_TURN in elements and len(elements) > 1:
        raise RulesError("A Whole Turn is the only thing a model may do that Turn (S-5).")
    for element in (TurnElement.MOVE, TurnElement.INSTANT, TurnElement.ACTION):
        if elements.count(element) > 1:
            raise RulesError(
                f"A Turn allows one {element.value}, not {elements.count(element)} (S-5)."
            )
    if TurnElement.ACTION in elements and elements[-1] != TurnElement.ACTION:
        raise RulesError("An Action ends the Turn; nothing may follow it (S-5).")


def recover(hp: int, hp_max: int) -> int:
    """Recover: surrender the whole Turn to regain 1 HP, never above maximum (S-5)."""
    require_non_negative({"HP": hp})
    return min(hp_max, hp + 1) if hp < hp_max else hp


# --- S-18 Attacks of Opportunity ---------------------------------------------------------------


class MoveCause(StrEnum):
    """Why a model left base contact (S-18)."""

    REGULAR_MOVE = "regular_move"
    SPRINT = "sprint"
    DISENGAGE_ACTION = "disengage_action"
    ROLL_WITH_THE_BLOW = "roll_with_the_blow"
    KNOCK_BACK = "knock_back"
    FEAR = "fear"
    TAUNT = "taunt"
    MIND_CONTROL = "mind_control"


def provokes(cause: MoveCause, own_turn: bool = True) -> bool:
    """Only a willing move out of contact on one's own Turn provokes an AoO (S-18, SA-14)."""
    return own_turn and cause in (MoveCause.REGULAR_MOVE, MoveCause.SPRINT)


@dataclass(frozen=True, slots=True)
class FreeAttack:
    """One Attack of Opportunity: a weapon against a disengaging model."""

    attacker: str
    weapon: str
    target: str


@dataclass(frozen=True, slots=True)
class AooTracker:
    """Which equipped weapons each model has used for AoOs this Turn (S-18)."""

    used: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def offer(
        self, attacker: str, weapons: Sequence[str], target: str, rounds: RoundTracker
    ) -> tuple[AooTracker, RoundTracker, tuple[FreeAttack, ...]]:
        """The free attacks ``attacker`` may make on ``target``; each weapon once per Turn.

        The first AoO of the Turn spends the model's Reaction (S-4); later disengagers in the
        same Turn only get the weapons not used yet (SA-15).
        """
        spent = self.used.get(attacker, frozenset())
        free = tuple(
            FreeAttack(attacker, w, target) for w in dict.fromkeys(weapons) if w not in spent
        )
        if not free:
            return self, rounds, ()
        if not spent:
            rounds = rounds.spend_reaction(attacker)
        used = {**self.used, attacker: spent | {a.weapon for a in free}}
        return AooTracker(used), rounds, free

    def next_turn(self) -> AooTracker:
        """A new Turn: weapons are available again."""
        return AooTracker()


def disengage(
    tracker: AooTracker,
    rounds: RoundTracker,
    mover: str,
    cause: MoveCause,
    in_contact: Mapping[str, Sequence[str]],
) -> tuple[AooTracker, RoundTracker, tuple[FreeAttack, ...]]:
    """``mover`` leaves contact; every enemy in contact (name → equipped weapons) may strike."""
    if not provokes(cause):
        return tracker, rounds, ()
    attacks: list[FreeAttack] = []
    for enemy, weapons in in_contact.items():
        if tracker.used.get(enemy) is None and not rounds.can_react(enemy):
            continue
        tracker, rounds, free = tracker.offer(enemy, weapons, mover, rounds)
        attacks += free
    return tracker, rounds, tuple(attacks)


# --- S-19 Roll with the Blow -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollWithTheBlow:
    """What Rolling with the Blow does (S-19)."""

    max_distance: Fraction
    initiative_penalty: int
    condition: Condition
    rounds: RoundTracker


def roll_with_the_blow(name: str, movement: int, rounds: RoundTracker) -> RollWithTheBlow:
    """Reaction right after damage: ≤ half Movement back, −10 Initiative, Knocked Down (S-19).

    Raises:
        RulesError: The round's Reaction is spent (a failed Parry included).
    """
    if name in rounds.failed_parry:
        raise RulesError(f"{name} failed a Parry this round and cannot Roll with the Blow (S-19).")
    spent = rounds.spend_reaction(name)
    knocked = condition(KNOCKED_DOWN, "Roll with the Blow", until="the end of its next Turn")
    return RollWithTheBlow(
        roll_with_the_blow_limit(movement), ROLL_WITH_THE_BLOW_INITIATIVE, knocked, spent
    )
