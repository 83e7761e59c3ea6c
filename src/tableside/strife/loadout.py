"""A sheet's equipment looked up in a catalogue, and the AC its armour gives (S-16)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from tableside.strife.catalog import ArmourPiece, Catalog, Combatant, Shield, Weapon
from tableside.strife.penalties import ArmourClass, armour_class


@dataclass(frozen=True, slots=True)
class Loadout:
    """What a model has equipped."""

    main_hand: Weapon | None
    off_hand: Weapon | None
    shield: Shield | None
    armour: tuple[ArmourPiece, ...]

    @property
    def weapons(self) -> tuple[Weapon, ...]:
        """Equipped weapons, main hand first (the AoO weapons of S-18)."""
        return tuple(w for w in (self.main_hand, self.off_hand) if w is not None)


LoadoutKey = tuple[str | None, str | None, str | None, tuple[str, ...]]
_kept: weakref.WeakKeyDictionary[Catalog, dict[LoadoutKey, Loadout]] = weakref.WeakKeyDictionary()


def loadout(catalog: Catalog, sheet: Combatant) -> Loadout:
    """Look up the sheet's equipment (RulesError naming an unknown item).

    Kept per catalogue by the four names it reads (a catalogue's tables never change once
    built): an attack looks its models' equipment up dozens of times (issue 21, item 8).
    """
    key = (sheet.main_hand, sheet.off_hand, sheet.shield, tuple(sheet.armour))
    kept = _kept.get(catalog)
    if kept is None:
        kept = _kept.setdefault(catalog, {})
    found = kept.get(key)
    if found is None:
        found = kept.setdefault(key, looked_up(catalog, sheet))
    return found


def looked_up(catalog: Catalog, sheet: Combatant) -> Loadout:
    """The sheet's equipment, each item looked up in ``catalog`` (:func:`loadout` keeps it)."""
    return Loadout(
        None if sheet.main_hand is None else catalog.weapon(sheet.main_hand),
        None if sheet.off_hand is None else catalog.weapon(sheet.off_hand),
        None if sheet.shield is None else catalog.shield(sheet.shield),
        tuple(catalog.armour_piece(name) for name in sheet.armour),
    )


def effective_ac(catalog: Catalog, sheet: Combatant) -> ArmourClass:
    """The sheet's AC plus its armour (untrained pieces −1, Noisy, Stiff) (S-16)."""
    return armour_class(sheet, loadout(catalog, sheet).armour)
