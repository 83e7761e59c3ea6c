"""Rulesets are values: every house-rule switch of the readings (docs/rules.md) is a field."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FullStanceRule(StrEnum):
    """How Full Defensive Stance helps the Defender (M-17, option)."""

    GUARD_PLUS_5 = "guard_plus_5"
    DEFENSIVE_ADJUSTMENT = "defensive_adjustment"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The Allies of Majesty options a Host may switch; a result names the ruleset it used."""

    name: str = "standard"
    full_defensive_stance: FullStanceRule = FullStanceRule.GUARD_PLUS_5


STANDARD = Ruleset()
NEWER_FULL_STANCE = Ruleset(
    name="newer-full-stance", full_defensive_stance=FullStanceRule.DEFENSIVE_ADJUSTMENT
)
RULESETS = {ruleset.name: ruleset for ruleset in (STANDARD, NEWER_FULL_STANCE)}
