"""Damage dice expressions such as ``1d8+1`` (S-14)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tableside.dice import Rng
from tableside.errors import RulesError
from tableside.limits import shown

_EXPR = re.compile(r"^\s*(\d{1,4})\s*[dD]\s*(\d{1,4})\s*(?:([+-])\s*(\d{1,4}))?\s*$")
MAX_DICE = 20
ALLOWED_SIDES = (2, 3, 4, 6, 8, 10, 12, 20, 100)


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """``count`` dice of ``sides`` faces plus a flat ``flat`` (may be negative)."""

    count: int
    sides: int
    flat: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_DICE:
            raise RulesError(f"A damage roll uses 1 to {MAX_DICE} dice, not {self.count}.")
        if self.sides not in ALLOWED_SIDES:
            raise RulesError(f"A d{self.sides} is not a die Realm of Strife uses.")

    @property
    def dice_text(self) -> str:
        """The dice without the flat part, e.g. ``1d8``."""
        return f"{self.count}d{self.sides}"

    @property
    def text(self) -> str:
        """The whole expression, e.g. ``1d8+1``."""
        if not self.flat:
            return self.dice_text
        return f"{self.dice_text}{'+' if self.flat > 0 else '-'}{abs(self.flat)}"

    @property
    def lowest_dice(self) -> int:
        """The lowest the dice can show: one per die (S-14 minimum damage)."""
        return self.count

    def roll(self, rng: Rng) -> tuple[int, ...]:
        """Roll the dice (not the flat part), in order."""
        return tuple(rng.roll(self.sides) for _ in range(self.count))

    def check_faces(self, faces: tuple[int, ...]) -> None:
        """Refuse typed-in faces that do not fit this expression."""
        if len(faces) != self.count:
            raise RulesError(f"{self.text} needs {self.count} dice, but {len(faces)} were given.")
        for face in faces:
            if not 1 <= face <= self.sides:
                raise RulesError(f"A d{self.sides} cannot show {face} (damage {self.text}).")


def parse_dice(text: str) -> DiceExpr:
    """Parse ``NdS``, ``NdS+F`` or ``NdS-F``.

    Raises:
        RulesError: The text is not such an expression or names an unusual die.
    """
    match = _EXPR.match(text)
    if match is None:
        raise RulesError(f"Damage dice must look like 1d8 or 2d6+1, not {shown(text)}.")
    count, sides, sign, flat = match.groups()
    amount = int(flat or 0) * (-1 if sign == "-" else 1)
    return DiceExpr(int(count), int(sides), amount)
