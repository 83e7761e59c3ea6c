"""Immutable records shared by every game's roll results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Side(StrEnum):
    """Who makes an Adjustment: Striker or Defender on a Strike, roller or opponent on a Check."""

    STRIKER = "striker"
    DEFENDER = "defender"
    ROLLER = "roller"
    OPPONENT = "opponent"


@dataclass(frozen=True, slots=True)
class Adjustment:
    """One Adjustment: die ``die`` (index into the natural roll) moved from ``from_`` to ``to``."""

    die: int
    from_: int
    to: int
    by: Side
    why: str
