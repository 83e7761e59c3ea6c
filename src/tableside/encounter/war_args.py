"""Validated arguments of every War command; errors name the field path and the value."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.errors import DataError
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.catalog import validation_sentence

Coordinates = tuple[float, float, float]
ID = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.\-]+$")


class Args(BaseModel):
    """Base of command arguments: strict about unknown keys, immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid")


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

    die: int = Field(ge=0)
    delta: Literal[1, -1]
    side: Literal["striker", "defender"] | None = None


class StrikeArgs(Args):
    """strike: one Strike by ``striker`` on ``defender`` (M-14 … M-29)."""

    striker: str = ID
    defender: str = ID
    weapon: str | None = None
    maneuvers: tuple[str, ...] = ()
    ranged: bool = False
    path: tuple[Coordinates, ...] = ()
    two_ap: bool = False
    full_defensive_stance: bool = False
    boon: int = Field(default=0, ge=0)
    bane: int = Field(default=0, ge=0)
    wear_flat: int = 0
    wear_percent: int = 0
    ignore_stops: int = Field(default=0, ge=0)
    striker_adjustments: int = Field(default=0, ge=0)
    defender_adjustments: int = Field(default=0, ge=0)
    inspiration: int = Field(default=0, ge=0)
    obstruction: int = Field(default=0, ge=0)
    superiority: int = 0
    mode: AdjustMode = AdjustMode.BEST
    steps: tuple[StepArgs, ...] = ()
    # The Grappled elohim the Striker swings as a weapon (M-37, A-37).
    body: str | None = Field(default=None, min_length=1, max_length=40, pattern=r"^[\w.\-]+$")


class MoveArgs(Args):
    """move: 1 AP per inch, in 3D."""

    id: str = ID
    to: Coordinates


class StanceArgs(Args):
    """stance: enter or leave Defensive Stance."""

    id: str = ID
    on: bool = True


class RestArgs(Args):
    """rest: spend AP to remove Exertion (M-4)."""

    id: str = ID
    ap: int = Field(ge=1, le=7)


class ReadyArgs(Args):
    """stand_ready: hold AP for up to two declared uses (M-41)."""

    id: str = ID
    ap: int = Field(ge=1, le=7)
    uses: tuple[str, ...] = Field(min_length=1, max_length=2)


class CarryArgs(Args):
    """carry_over: move AP into the character's next Turn (M-41)."""

    id: str = ID
    ap: int = Field(ge=1, le=7)


class InterposeArgs(Args):
    """interpose: an elohim in Defensive Stance offers to take a Strike (M-16)."""

    id: str = ID
    striker: str = ID
    defender: str = ID
    ranged: bool = False


EffectName = Literal[
    "falter", "falter_cycle", "release_falter_cycle", "poison", "bound", "unbound", "grappled",
    "released", "entangled", "exposed", "unexposed", "surprised", "asleep", "awake", "knock_back",
    "lower_status", "wear_e", "wear_r", "wear_p", "exertion",
]  # fmt: skip


class EffectArgs(Args):
    """apply_effect: put a special effect on a combatant (M-34 … M-39)."""

    id: str = ID
    effect: EffectName
    amount: float = Field(default=1, ge=0)
    by: str | None = None
    source: str = "host"
    origin: Coordinates | None = None


HostField = Literal[
    "ap", "readied", "falter", "poison", "exertion", "position", "wear_e", "wear_r", "wear_p",
    "stance", "status_lowered",
]  # fmt: skip


class HostArgs(Args):
    """host_set: the Host's manual adjustment of any value (logged like everything else)."""

    id: str = ID
    field: HostField
    value: int | bool | Coordinates


A = TypeVar("A", bound=Args)


def parse_args(model: type[A], data: dict[str, Any], command: str) -> A:
    """Validate a command's arguments with one clear sentence on error."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, f"{command} command")) from None
