"""Builders with defaults and domain asserts shared by the ruling tests.

Default characters are deliberately plain so a test only states what matters to it:
Might 14 and Control 14 give Force 4, Guard 1 and Precision 1 (M-2), so two default characters
Strike each other with advantage 0 and nobody adjusts (M-10, M-18); Passion 100 against
Resolve 100 gives no Passion Effect triggers (M-25); Endurance 100 keeps everyone far from the
Weakened thresholds (M-3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tableside.dice import Adjustment, ScriptedRng, Side
from tableside.errors import RulesError
from tableside.majesty.adjust import AdjustMode, AdjustPass, Step
from tableside.majesty.catalog import Maneuver, Weapon, builtin_catalog
from tableside.majesty.character import (
    Attribute,
    Attributes,
    Character,
    WarOverrides,
    Wear,
    WearKind,
)
from tableside.majesty.checks import CheckKind, CheckResult, CheckSetup, check_with_dice
from tableside.majesty.geometry import Point
from tableside.majesty.ruleset import STANDARD, Ruleset
from tableside.majesty.strike import (
    DefenderState,
    Placement,
    StrikeOptions,
    StrikeResult,
    StrikeSetup,
    roll_strike,
    strike_with_dice,
)
from tableside.majesty.wear import WearLine

__all__ = [
    "AdjustMode",
    "Step",
    "assert_current",
    "assert_outcome",
    "assert_passes",
    "character",
    "check",
    "defender_adjusts",
    "maneuver",
    "moved",
    "path",
    "refused",
    "roll_scripted",
    "run_check",
    "strike",
    "strike_setup",
    "striker_adjusts",
    "weapon",
    "wear_line",
    "wear_to_defender",
]

# --- characters -------------------------------------------------------------------------------


def character(
    name: str = "Herald",
    *,
    might: int = 14,
    swiftness: int = 30,
    control: int = 14,
    endurance: int = 100,
    resolve: int = 100,
    passion: int = 100,
    wear_e: int = 0,
    wear_r: int = 0,
    wear_p: int = 0,
    force: int | None = None,
    guard: int | None = None,
    precision: int | None = None,
    stamina: int | None = None,
    spp: int | None = None,
    speed: int | None = None,
    tier: int = 1,
    magnitude: int = 1,
    weapon: str = "Staff",
    exertion: int = 0,
    status_lowered: int = 0,
) -> Character:
    """A character with plain defaults (Force 4, Guard 1, Precision 1, E/R/P 100)."""
    return Character(
        name=name,
        natural=Attributes(
            might=might,
            swiftness=swiftness,
            control=control,
            endurance=endurance,
            resolve=resolve,
            passion=passion,
        ),
        wear=Wear(E=wear_e, R=wear_r, P=wear_p),
        overrides=WarOverrides(
            force=force,
            guard=guard,
            precision=precision,
            stamina=stamina,
            spp=spp,
            speed=speed,
        ),
        tier=tier,
        magnitude=magnitude,
        weapon=weapon,
        exertion=exertion,
        status_lowered=status_lowered,
    )


def weapon(name: str) -> Weapon:
    """A weapon from the built-in catalogue (M-28)."""
    return builtin_catalog().weapon(name)


def maneuver(name: str) -> Maneuver:
    """A Maneuver from the built-in catalogue (M-29)."""
    return builtin_catalog().maneuver(name)


# --- Strikes ----------------------------------------------------------------------------------


def path(*points: Point, target: Point) -> Placement:
    """A Placement whose Striker moves along ``points`` with the Defender at ``target``."""
    return Placement(tuple(points), target)


def strike_setup(
    *,
    striker: Character | None = None,
    defender: Character | None = None,
    weapon: str | Weapon = "Staff",
    defender_weapon: str | Weapon = "Staff",
    maneuvers: Sequence[str | Maneuver] = (),
    state: DefenderState | None = None,
    placement: Placement | None = None,
    ruleset: Ruleset = STANDARD,
    **options: Any,
) -> StrikeSetup:
    """A Strike between two default characters; keyword ``options`` go to StrikeOptions."""
    return StrikeSetup(
        striker=striker if striker is not None else character("Herald"),
        defender=defender if defender is not None else character("Warrior"),
        weapon=_weapon(weapon),
        defender_weapon=_weapon(defender_weapon),
        maneuvers=tuple(maneuver(m) if isinstance(m, str) else m for m in maneuvers),
        defender_state=state if state is not None else DefenderState(),
        options=StrikeOptions(**options),
        placement=placement,
        ruleset=ruleset,
    )


def _weapon(given: str | Weapon) -> Weapon:
    return weapon(given) if isinstance(given, str) else given


def strike(rolled: Sequence[int], **setup: Any) -> StrikeResult:
    """Build a Strike with :func:`strike_setup` and resolve it on the given dice."""
    return strike_with_dice(strike_setup(**setup), tuple(rolled))


def roll_scripted(setup: StrikeSetup, faces: Sequence[int]) -> StrikeResult:
    """Roll a Strike through the Rng path with scripted dice, refusing leftover dice."""
    rng = ScriptedRng(faces)
    result = roll_strike(setup, rng)
    rng.expect_all_used()
    return result


def striker_adjusts(count: int) -> dict[str, Any]:
    """Characters for a Strike where the Striker has exactly ``count`` Adjustments (M-10)."""
    return {"striker": character("Herald", precision=1 + _advantage_for(count))}


def defender_adjusts(count: int) -> dict[str, Any]:
    """Characters for a Strike where the Defender has exactly ``count`` Adjustments (M-10)."""
    return {"defender": character("Warrior", guard=1 + _advantage_for(count))}


def _advantage_for(count: int) -> int:
    """The least advantage that translates into ``count`` Adjustments (M-10)."""
    table = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10}
    return table[count] if count in table else 10 + 5 * (count - 4)


# --- Checks -----------------------------------------------------------------------------------


def check(kind: CheckKind = CheckKind.ATTRIBUTE, factor: int = 0, **fields: Any) -> CheckSetup:
    """A Check setup with defaults (an unopposed Attribute Check, FV 0, Difficulty 0)."""
    return CheckSetup(kind=kind, factor=factor, **fields)


def run_check(
    rolled: Sequence[int], kind: CheckKind = CheckKind.ATTRIBUTE, **fields: Any
) -> CheckResult:
    """Build a Check with :func:`check` and resolve it on the given dice."""
    return check_with_dice(check(kind, **fields), tuple(rolled))


# --- domain asserts ---------------------------------------------------------------------------


def refused(match: str | None = None) -> pytest.RaisesExc[RulesError]:
    """Expect a RulesError (optionally matching ``match``)."""
    return pytest.raises(RulesError, match=match)


def assert_outcome(
    result: StrikeResult,
    *,
    hits: int | None = None,
    stops: int | None = None,
    uncanceled_hits: int | None = None,
    uncanceled_stops: int | None = None,
    twelve_effects: int | None = None,
    striker_falter: int | None = None,
) -> None:
    """Compare the named parts of a Strike's outcome (M-20 … M-22)."""
    outcome = result.outcome
    actual = {
        "hits": outcome.hits,
        "stops": outcome.stops,
        "uncanceled_hits": outcome.uncanceled_hits,
        "uncanceled_stops": outcome.uncanceled_stops,
        "twelve_effects": outcome.twelve_effects,
        "striker_falter": result.striker_falter,
    }
    wanted = {
        "hits": hits,
        "stops": stops,
        "uncanceled_hits": uncanceled_hits,
        "uncanceled_stops": uncanceled_stops,
        "twelve_effects": twelve_effects,
        "striker_falter": striker_falter,
    }
    expected = {k: v for k, v in wanted.items() if v is not None}
    assert {k: actual[k] for k in expected} == expected


def assert_passes(passes: Sequence[AdjustPass], expected: Sequence[tuple[Side, int]]) -> None:
    """The Adjustment passes, as (side, count) in order (M-10, M-11)."""
    assert [(p.side, p.count) for p in passes] == list(expected)


def assert_current(who: Character, **values: int) -> None:
    """Compare current Basic Attributes by name, e.g. ``endurance=88`` (M-1)."""
    actual = {name: who.current(Attribute(name)) for name in values}
    assert actual == values


def wear_line(result: StrikeResult, kind: WearKind) -> WearLine:
    """The Strike's Wear line of one kind (M-26)."""
    lines = [line for line in result.wear if line.kind == kind]
    assert len(lines) == 1, f"expected one {kind} Wear line, got {result.wear}"
    return lines[0]


def wear_to_defender(result: StrikeResult) -> dict[WearKind, int]:
    """Wear of every kind the Strike dealt, zeros left out."""
    return {line.kind: line.amount for line in result.wear if line.amount}


def moved(adjustments: Sequence[Adjustment]) -> list[tuple[int, int, int, Side]]:
    """Adjustments as (die, from, to, side)."""
    return [(a.die, a.from_, a.to, a.by) for a in adjustments]
