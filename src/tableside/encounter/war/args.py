"""Validated arguments of every War command; errors name the field path and the value."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tableside.encounter.war.names import EffectName, HostField
from tableside.errors import DataError
from tableside.limits import (
    AP_MAX,
    DICE_MAX,
    DISTANCE_MAX,
    EFFECT_AMOUNT_MAX,
    HOST_VALUE_MAX,
    ID_MAX,
    IGNORE_STOPS_MAX,
    MANEUVERS_MAX,
    PATH_MAX,
    STEPS_MAX,
    SUPERIORITY_MAX,
    WEAR_FLAT_MAX,
    WEAR_PERCENT_MAX,
    WEAR_PERCENT_MIN,
    Adjustments,
    Boon,
    Coordinates,
    Flag,
    FreeText,
    Name,
)
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.catalog import validation_sentence

__all__ = ["ID", "Args", "Coordinates", "EffectName", "HostField", "cached_args", "parse_args"]

ID = Field(min_length=1, max_length=ID_MAX, pattern=r"^[A-Za-z0-9_.\-]+$")
InterposerId = Annotated[str, Field(min_length=1, max_length=ID_MAX, pattern=r"^[A-Za-z0-9_.\-]+$")]
INTERPOSERS_MAX = 64  # offers to interpose on one Strike (M-16): one per combatant at most


class Args(BaseModel):
    """Base of command arguments: strict about unknown keys, immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class AddArgs(Args):
    """add: put a character into the War (M-40: added mid-War too)."""

    id: str = ID
    character: dict[str, Any]
    position: Coordinates = (0.0, 0.0, 0.0)


class IdArgs(Args):
    """Commands naming one combatant (remove, break_free)."""

    id: str = ID


class NoArgs(Args):
    """Commands with no arguments (next)."""


class StepArgs(Args):
    """An explicit Adjustment: die index (0-based), +1/−1, and the side making it."""

    die: int = Field(ge=0, lt=DICE_MAX)
    delta: Literal[1, -1]
    side: Literal["striker", "defender"] | None = None


class StrikeArgs(Args):
    """strike: one Strike by ``striker`` on ``defender`` (M-14 … M-29)."""

    striker: str = ID
    defender: str = ID
    weapon: Name | None = None
    maneuvers: tuple[Name, ...] = Field(default=(), max_length=MANEUVERS_MAX)
    ranged: Flag = False
    path: tuple[Coordinates, ...] = Field(default=(), max_length=PATH_MAX)
    two_ap: Flag = False
    full_defensive_stance: Flag = False
    boon: Boon = 0
    bane: Boon = 0
    wear_flat: int = Field(default=0, ge=-WEAR_FLAT_MAX, le=WEAR_FLAT_MAX)
    wear_percent: int = Field(default=0, ge=WEAR_PERCENT_MIN, le=WEAR_PERCENT_MAX)
    ignore_stops: int = Field(default=0, ge=0, le=IGNORE_STOPS_MAX)
    striker_adjustments: Adjustments = 0
    defender_adjustments: Adjustments = 0
    inspiration: Adjustments = 0
    obstruction: Adjustments = 0
    superiority: int = Field(default=0, ge=-SUPERIORITY_MAX, le=SUPERIORITY_MAX)
    mode: AdjustMode = AdjustMode.BEST
    steps: tuple[StepArgs, ...] = Field(default=(), max_length=STEPS_MAX)
    # The Grappled elohim the Striker swings as a weapon (M-37, A-37).
    body: str | None = Field(default=None, min_length=1, max_length=ID_MAX, pattern=r"^[\w.\-]+$")
    # Each eligible elohim's own answer to "interpose?" (M-16, D-13), never the Striker's.
    interpose: dict[InterposerId, Flag] = Field(default_factory=dict, max_length=INTERPOSERS_MAX)

    @field_validator("maneuvers")
    @classmethod
    def _once_each(cls, maneuvers: tuple[str, ...]) -> tuple[str, ...]:
        """W-8: a Maneuver is named at most once on one Strike."""
        seen: set[str] = set()
        for name in maneuvers:
            if name.casefold() in seen:
                raise ValueError(f"the Maneuver {name!r} is named twice; each counts once")
            seen.add(name.casefold())
        return maneuvers


class MoveArgs(Args):
    """move: 1 AP per inch, in 3D."""

    id: str = ID
    to: Coordinates


class StanceArgs(Args):
    """stance: enter or leave Defensive Stance."""

    id: str = ID
    on: Flag = True
    full: Flag = False  # Full Defensive Stance, kept until the stance ends (M-17, A-39)


class RestArgs(Args):
    """rest: spend AP to remove Exertion (M-4)."""

    id: str = ID
    ap: int = Field(ge=1, le=AP_MAX)


class ReadyArgs(Args):
    """stand_ready: hold AP for up to two declared uses (M-41)."""

    id: str = ID
    ap: int = Field(ge=1, le=AP_MAX)
    uses: tuple[Name, ...] = Field(min_length=1, max_length=2)


class CarryArgs(Args):
    """carry_over: move AP into the character's next Turn (M-41)."""

    id: str = ID
    ap: int = Field(ge=1, le=AP_MAX)


class InterposeArgs(Args):
    """interpose: an elohim in Defensive Stance offers to take a Strike (M-16)."""

    id: str = ID
    striker: str = ID
    defender: str = ID
    ranged: Flag = False


class DominionArgs(Args):
    """dominion: a Spiritual Dominion (a sphere) Strikes cannot pass through (M-15, A-9, A-40)."""

    id: str = ID
    center: Coordinates = (0.0, 0.0, 0.0)
    radius: float = Field(default=1.0, gt=0, le=DISTANCE_MAX)
    on: Flag = True  # False: the Dominion ends


class BarrierArgs(Args):
    """barrier: a spiritual Barrier (a sphere) a Knocked Back elohim collides with (M-35, A-42)."""

    id: str = ID
    center: Coordinates = (0.0, 0.0, 0.0)
    radius: float = Field(default=1.0, gt=0, le=DISTANCE_MAX)
    resolve: int = Field(default=0, ge=0, le=HOST_VALUE_MAX)  # its strength, used as Endurance
    on: Flag = True  # False: the Barrier ends


class RulesetArgs(Args):
    """ruleset: the Host's choice of options for this War (M-17 option, A-41)."""

    name: Literal["standard", "newer-full-stance"]


class EffectArgs(Args):
    """apply_effect: put a special effect on a combatant (M-34 … M-39)."""

    id: str = ID
    effect: EffectName
    amount: float = Field(default=1, ge=0, le=EFFECT_AMOUNT_MAX, allow_inf_nan=False)
    by: Name | None = None
    source: FreeText = "host"
    origin: Coordinates | None = None


class HostArgs(Args):
    """host_set: the Host's manual adjustment of any value (logged like everything else)."""

    id: str = ID
    field: HostField
    value: Annotated[int, Field(ge=-HOST_VALUE_MAX, le=HOST_VALUE_MAX)] | Flag | Coordinates


A = TypeVar("A", bound=Args)


def parse_args(model: type[A], data: dict[str, Any], command: str) -> A:
    """Validate a command's arguments with one clear sentence on error."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, f"{command} command")) from None


_PLAIN = frozenset({str, int, float, bool, type(None)})


def cached_args(model: type[A], raw: dict[str, Any], command: str) -> A:
    """``parse_args``, validated once per distinct arguments when they are plain scalars.

    The argument models are frozen and hold only immutable values, so one validated instance
    serves every command with the same arguments (a simulated War strikes with the same few
    again and again). The key keeps each value's type, so arguments that merely compare equal
    (1, 1.0, True) are validated apart; a refusal is raised again each time, never kept.
    """
    if isinstance(raw, dict) and all(type(value) in _PLAIN for value in raw.values()):
        items = tuple((key, type(value), value) for key, value in raw.items())
        return cast(A, _validated(model, items, command))
    return parse_args(model, raw, command)


@lru_cache(maxsize=4096)
def _validated(model: type[Args], items: tuple[tuple[str, type, Any], ...], command: str) -> Args:
    return parse_args(model, {key: value for key, _, value in items}, command)
