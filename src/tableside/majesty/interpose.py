"""Interposing (M-16): an elohim in Defensive Stance may take a Strike meant for another."""

from __future__ import annotations

from tableside.errors import RulesError
from tableside.majesty.character import Attribute, Character
from tableside.majesty.checks import CheckKind, CheckSetup, factor_value
from tableside.majesty.geometry import MELEE_RANGE, Point, distance


def may_interpose(
    interposer: Point, in_stance: bool, striker: Point, defender: Point, ranged: bool
) -> bool:
    """In Defensive Stance and within Melee Range of the Defender (and of the Striker in melee)."""
    if not in_stance or distance(interposer, defender) > MELEE_RANGE:
        return False
    return ranged or distance(interposer, striker) <= MELEE_RANGE


def interpose_check(interposer: Character, striker: Character) -> CheckSetup:
    """The Control Check the interposer must pass, against the Striker's Control (M-16, M-30)."""
    return CheckSetup(
        kind=CheckKind.ATTRIBUTE,
        factor=factor_value(interposer.referenced(Attribute.CONTROL)),
        opposing=factor_value(striker.referenced(Attribute.CONTROL)),
    )


def require_interpose(
    interposer: Point, in_stance: bool, striker: Point, defender: Point, ranged: bool
) -> None:
    """Refuse an interposition the rules do not allow, saying why (M-16)."""
    if not in_stance:
        raise RulesError("Only an elohim in Defensive Stance may interpose (M-16).")
    if not may_interpose(interposer, in_stance, striker, defender, ranged):
        who = "the Defender" if ranged else "both the Striker and the Defender"
        raise RulesError(f'An interposing elohim must be within Melee Range (3") of {who} (M-16).')
