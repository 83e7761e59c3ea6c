"""Condition (M-4): Exertion gained and rested off, the free first 3 per window, Weary."""

from __future__ import annotations

from dataclasses import dataclass

from tableside.errors import require_non_negative
from tableside.majesty.character import Character

FREE_EXERTION_PER_WINDOW = 3


@dataclass(frozen=True, slots=True)
class ExertionGain:
    """What one gain of Exertion did."""

    character: Character
    added: int
    ignored: int
    window_total: int  # self-generated Exertion so far in this Turn-to-Turn window


def gain_exertion(
    character: Character, amount: int, window_so_far: int, self_generated: bool = True
) -> ExertionGain:
    """Add Exertion; the first 3 a character generates itself per window are ignored (M-4)."""
    require_non_negative({"Exertion": amount, "Exertion so far this window": window_so_far})
    free = max(0, FREE_EXERTION_PER_WINDOW - window_so_far) if self_generated else 0
    ignored = min(amount, free)
    added = amount - ignored
    total = window_so_far + (amount if self_generated else 0)
    return ExertionGain(character.with_exertion(character.exertion + added), added, ignored, total)


def rest(character: Character, ap: int) -> Character:
    """Rest removes 1 Exertion per AP spent (M-4)."""
    require_non_negative({"AP of Rest": ap})
    return character.with_exertion(max(0, character.exertion - ap))


def is_weary(character: Character) -> bool:
    """Exertion above current Stamina (checked during its own Turn) → Weary (M-4)."""
    return character.exertion > character.war.stamina
