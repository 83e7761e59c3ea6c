"""The 4-3-2 rule (S-17): attacks per Action for player characters; NPCs are exempt."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tableside.errors import RulesError

MAX_PER_ACTION = 4
MAX_PER_TARGET = 3
MAX_PER_WEAPON_TARGET = 2


@dataclass(frozen=True, slots=True)
class PlannedAttack:
    """One attack planned in an Action: its target, its weapon, and whether it is exempt.

    ``direct_damage_instant`` marks a direct-damage instant skill, which does not count (S-17).
    """

    target: str
    weapon: str
    direct_damage_instant: bool = False


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken limit of the 4-3-2 rule."""

    rule: int  # 4, 3 or 2
    count: int
    target: str | None
    weapon: str | None

    @property
    def sentence(self) -> str:
        """One sentence a Host can act on."""
        if self.rule == MAX_PER_ACTION:
            return f"An Action allows at most 4 attacks, but {self.count} are planned (S-17)."
        if self.rule == MAX_PER_TARGET:
            return (
                f"At most 3 attacks per Action may go to one target, but {self.count} go to "
                f"{self.target} (S-17)."
            )
        return (
            f"At most 2 attacks per Action with one weapon may go to one target, but "
            f"{self.count} with {self.weapon} go to {self.target} (S-17)."
        )


def violations_4_3_2(attacks: Sequence[PlannedAttack], npc: bool = False) -> tuple[Violation, ...]:
    """Every limit of the 4-3-2 rule the plan breaks, none for an NPC (S-17)."""
    if npc:
        return ()
    counted = [a for a in attacks if not a.direct_damage_instant]
    found: list[Violation] = []
    if len(counted) > MAX_PER_ACTION:
        found.append(Violation(MAX_PER_ACTION, len(counted), None, None))
    per_target = Counter(a.target for a in counted)
    found += [Violation(3, n, t, None) for t, n in per_target.items() if n > MAX_PER_TARGET]
    per_pair = Counter((a.target, a.weapon) for a in counted)
    found += [Violation(2, n, t, w) for (t, w), n in per_pair.items() if n > MAX_PER_WEAPON_TARGET]
    return tuple(found)


def check_4_3_2(attacks: Sequence[PlannedAttack], npc: bool = False) -> None:
    """Refuse a plan that breaks the 4-3-2 rule, naming the first broken limit (S-17)."""
    found = violations_4_3_2(attacks, npc)
    if found:
        raise RulesError(found[0].sentence)
