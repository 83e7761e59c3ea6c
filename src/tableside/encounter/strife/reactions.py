"""The defender's Reaction declared with the attack it answers (S-4, S-10 … S-13).

A Reaction is refused when the round's one Reaction is spent; an improvised weapon may parry.
"""

from __future__ import annotations

from tableside.encounter.strife.args import AttackItem
from tableside.encounter.strife.state import Model
from tableside.encounter.strife.turns import FightRules, Pending
from tableside.errors import RulesError
from tableside.strife import reactions as react
from tableside.strife.loadout import loadout


def declare_reaction(
    game: FightRules,
    p: Pending,
    defender: Model,
    kind: str | None,
    item: AttackItem | None = None,
) -> react.Reaction | None:
    """A declared reaction, refused when the round's Reaction is spent (S-4, S-10 … S-13)."""
    if (
        item is not None
        and kind not in ("improvised_block", "improvised_parry")
        and (item.reaction_item is not None or item.reaction_item_size is not None)
    ):
        raise RulesError(
            "reaction_item and reaction_item_size are for an improvised Block or Parry (S-12), "
            f"not {'no reaction' if kind is None else kind.replace('_', ' ')}."
        )
    if kind is None:
        return None
    if not p.state.rounds.can_react(defender.id):
        raise RulesError(f"{defender.id} has already used its Reaction this round (S-4).")
    gear = loadout(game.catalog, defender.sheet)
    main = gear.main_hand
    if kind in ("improvised_block", "improvised_parry"):
        return improvised(game, defender, kind, item)
    if kind == "block" and gear.shield is not None:
        return react.block(defender.sheet, gear.shield)
    if kind == "parry" and main is not None:
        return react.parry(defender.sheet, main)
    if kind == "combined_parry" and main is not None and gear.off_hand is not None:
        return react.combined_parry(defender.sheet, main, gear.off_hand)
    if kind == "block_and_parry" and gear.shield is not None and main is not None:
        return react.block_and_parry(defender.sheet, gear.shield, main, react.Family.PARRY)
    if kind == "ward_off" and main is not None:
        return react.ward_off(defender.sheet, main)
    raise RulesError(f"{defender.id} has nothing equipped to {kind.replace('_', ' ')} with.")


def improvised(
    game: FightRules, defender: Model, kind: str, item: AttackItem | None
) -> react.Reaction:
    """An improvised Block or Parry (S-12, SA-28, SA-65).

    A Parry uses a weapon held (the main hand's unless ``reaction_item`` names the other); a
    Block uses a weapon held, or any item given with its size (a serving tray, a broken door).
    """
    held = loadout(game.catalog, defender.sheet).weapons
    named = None if item is None else item.reaction_item
    size = None if item is None else item.reaction_item_size
    weapon = next((w for w in held if named is None or w.name.lower() == named.lower()), None)
    if kind == "improvised_block" and named is not None and size is not None:
        if weapon is not None and weapon.size != size:
            raise RulesError(
                f"{defender.id}'s {weapon.name} is size {weapon.size.value}, not {size.value}."
            )
        return react.improvised_block(named, size)
    if weapon is None:
        what = f"a {named}" if named else "a weapon"
        hint = " (or name an item and its size)" if kind == "improvised_block" else ""
        raise RulesError(
            f"{defender.id} holds no {what.removeprefix('a ')} to use for "
            f"{react.ReactionKind(kind).phrase}{hint} (S-12)."
        )
    if kind == "improvised_block":
        return react.improvised_block(weapon.name, weapon.size)
    return react.improvised_parry(weapon)
