"""Conditions with durations and sources (S-23).

Conditions whose effects the rules do not define (Vulnerable, Stun, Disarm, Dismount, Silence,
Exhaustion penalties) are only tracked; the two the Combat page defines are automated: Knocked
Down (movement counts as crawling, S-6) and the Disarm of a parried Critical Hit (S-11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tableside.errors import RulesError

VULNERABLE = "Vulnerable"
KNOCKED_DOWN = "Knocked Down"
DISARMED = "Disarmed"
EXHAUSTION = "Exhaustion"
AUTOMATED = frozenset({KNOCKED_DOWN, DISARMED})
UNTIL_HOST = "the Host removes it"


@dataclass(frozen=True, slots=True)
class Condition:
    """A named condition on a model (S-23).

    Attributes:
        name: ``Vulnerable``, ``Stun``, ``Knocked Down`` …
        source: Who or what inflicted it (``"Goblin's critical miss"``).
        rounds_left: Rounds it still lasts, or None when it lasts ``until`` something.
        until: The event that ends it, when it is not counted in rounds.
        automated: Whether Tableside applies its effects (S-23) or only tracks it.
        stacks: How many stacks (Exhaustion), 1 otherwise.
    """

    name: str
    source: str
    rounds_left: int | None = None
    until: str | None = None
    automated: bool = False
    stacks: int = 1

    def __post_init__(self) -> None:
        if not self.name:
            raise RulesError("A condition needs a name.")
        if (self.rounds_left is None) == (self.until is None):
            raise RulesError(
                f"The condition {self.name} needs either rounds left or an 'until', not both "
                "or neither."
            )
        if self.rounds_left is not None and self.rounds_left < 1:
            raise RulesError(f"{self.name} must last at least 1 round, not {self.rounds_left}.")
        if self.stacks < 1:
            raise RulesError(f"{self.name} needs at least 1 stack, not {self.stacks}.")


def condition(
    name: str, source: str, rounds: int | None = None, until: str | None = None
) -> Condition:
    """A condition, automated exactly when the seed defines its effect (S-23)."""
    if rounds is None and until is None:
        until = UNTIL_HOST
    return Condition(name, source, rounds, until, name in AUTOMATED)


def add_condition(conditions: Sequence[Condition], new: Condition) -> tuple[Condition, ...]:
    """Add a condition; Exhaustion stacks add up, others from the same source refresh (SA-12)."""
    for index, old in enumerate(conditions):
        if old.name == new.name and (old.source == new.source or new.name == EXHAUSTION):
            merged = _merge(old, new)
            return (*conditions[:index], merged, *conditions[index + 1 :])
    return (*conditions, new)


def _merge(old: Condition, new: Condition) -> Condition:
    if new.name == EXHAUSTION:
        return replace(old, stacks=old.stacks + new.stacks)
    if old.rounds_left is not None and new.rounds_left is not None:
        return replace(old, rounds_left=max(old.rounds_left, new.rounds_left))
    return new


def tick_round(conditions: Sequence[Condition]) -> tuple[Condition, ...]:
    """One round passes: round-counted conditions lose a round and end at 0."""
    kept = []
    for item in conditions:
        if item.rounds_left is None:
            kept.append(item)
        elif item.rounds_left > 1:
            kept.append(replace(item, rounds_left=item.rounds_left - 1))
    return tuple(kept)


def end_condition(conditions: Sequence[Condition], name: str) -> tuple[Condition, ...]:
    """Remove every condition called ``name`` (the event its ``until`` names happened)."""
    return tuple(c for c in conditions if c.name != name)


def has_condition(conditions: Sequence[Condition], name: str) -> bool:
    """Whether a condition of that name is on the model."""
    return any(c.name == name for c in conditions)
