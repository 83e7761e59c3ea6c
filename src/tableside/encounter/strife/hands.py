"""The weapons a model holds, hand by hand, as the Attack form offers them (SA-92)."""

from __future__ import annotations

from typing import Any

from tableside.strife.catalog import Catalog, Combatant
from tableside.strife.loadout import loadout
from tableside.strife.penalties import PenaltyContext, clumsy_part, weapon_use


def held_hands(catalog: Catalog, sheet: Combatant) -> list[dict[str, Any]]:
    """Main hand then off hand: each weapon with its Clumsy penalty and whether it may crit.

    Holding a weapon in each hand is dual wielding whichever hand attacks (SA-47): beyond two
    Small weapons without the Dual Wield skill each is Clumsy (−10 per size step) and neither
    scores criticals (S-16). A lack of proficiency is Clumsy too; the highest rate applies (SA-9).
    """
    held = loadout(catalog, sheet).weapons
    rows = []
    for index, weapon in enumerate(held):
        other = held[1 - index] if len(held) == 2 else None
        use = weapon_use(sheet, weapon, PenaltyContext(other_hand=other))
        part = clumsy_part(use.clumsy, weapon.size)
        main = index == 0 and sheet.main_hand is not None
        rows.append({
            "name": weapon.name, "hand": "main" if main else "off",
            "clumsy": 0 if part is None else part.amount, "can_crit": use.can_crit,
        })  # fmt: skip
    return rows
