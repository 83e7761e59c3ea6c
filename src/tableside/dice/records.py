"""Immutable records shared by every game's roll results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Side(StrEnum):
    """Who makes an Adjustment: the one rolling/Striking or the one opposing/Defending."""

    STRIKER = "striker"
    DEFENDER = "defender"


@dataclass(frozen=True, slots=True)
class Adjustment:
    """One Adjustment: die ``die`` (index into the natural roll) moved from ``from_`` to ``to``."""

    die: int
    from_: int
    to: int
    by: Side
    why: str
