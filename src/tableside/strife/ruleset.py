"""Rulesets are values: the Realm of Strife options of the readings (docs/rules.md) as fields."""

from __future__ import annotations

from dataclasses import dataclass

from tableside.errors import RulesError


@dataclass(frozen=True, slots=True)
class StrifeRuleset:
    """The options a Host may switch; every result names the ruleset that produced it.

    Attributes:
        name: How results name this ruleset.
        crit_requires_hit: S-7/S-8 option: a Critical Hit (Cast) must also beat Dodge and AC
            (Resistance); by default a natural in the crit range is a Critical Hit whatever they
            are.
        size_cap: S-20 option: the creature-size difference entering a roll-off or a block or
            parry test is capped at ± this many; ``None`` leaves it uncapped.
    """

    name: str = "standard"
    crit_requires_hit: bool = False
    size_cap: int | None = 10

    def __post_init__(self) -> None:
        if self.size_cap is not None and self.size_cap < 0:
            raise RulesError(f"A size-difference cap cannot be negative, got {self.size_cap}.")


STANDARD = StrifeRuleset()
CRIT_REQUIRES_HIT = StrifeRuleset(name="crit-requires-hit", crit_requires_hit=True)
UNCAPPED_SIZE = StrifeRuleset(name="uncapped-size", size_cap=None)
RULESETS = {r.name: r for r in (STANDARD, CRIT_REQUIRES_HIT, UNCAPPED_SIZE)}
