"""Parsing of command-line values: dice lists, points, explicit Adjustments."""

from __future__ import annotations

import math
import re

from tableside.dice import Side
from tableside.errors import TablesideError
from tableside.limits import (
    DICE_MAX,
    DICE_TYPED_MAX,
    DIE_FACE_MAX,
    NUMBER_DIGITS_MAX,
    PATH_MAX,
    POSITION_MAX,
    STEPS_MAX,
    shown,
)
from tableside.majesty.adjust import Step
from tableside.majesty.geometry import Dominion, Point


class InputError(TablesideError):
    """A command-line value that cannot be read."""


def parse_dice(text: str) -> tuple[int, ...]:
    """Dice typed in, in the order rolled: "12,10,9 6 6" (commas and/or spaces)."""
    tokens = [t for t in re.split(r"[,\s]+", text.strip()) if t]
    if not tokens:
        raise InputError("--dice was given but names no dice.")
    if len(tokens) > DICE_TYPED_MAX:
        raise InputError(f"--dice lists at most {DICE_TYPED_MAX} dice, got {len(tokens)}.")
    faces = []
    for token in tokens:
        if not re.fullmatch(r"-?\d+", token):
            raise InputError(f"--dice must list whole numbers; {shown(token)} is not one.")
        if len(token.lstrip("-")) > NUMBER_DIGITS_MAX:
            raise InputError(f"--dice faces are at most {DIE_FACE_MAX}, got {shown(token)}.")
        faces.append(int(token))
    return tuple(faces)


def parse_point(text: str, option: str) -> Point:
    """A 3D position "x,y,z" in inches (z may be left out for 0)."""
    numbers = _numbers(text, option)
    if len(numbers) not in (2, 3):
        raise InputError(f"{option} needs x,y or x,y,z in inches, not {shown(text)}.")
    if not all(math.isfinite(n) and abs(n) <= POSITION_MAX for n in numbers):
        raise InputError(
            f"{option} needs finite positions within ±{POSITION_MAX:g} inches, not {shown(text)}."
        )
    x, y, *rest = numbers
    return (x, y, rest[0] if rest else 0.0)


def parse_path(text: str) -> tuple[Point, ...]:
    """Waypoints "x,y,z;x,y,z" the Striker moves through during the Strike."""
    points = tuple(parse_point(p, "--path") for p in text.split(";") if p.strip())
    if len(points) > PATH_MAX:
        raise InputError(f"--path has at most {PATH_MAX} waypoints, got {len(points)}.")
    return points


def parse_dominion(text: str) -> Dominion:
    """A Spiritual Dominion "x,y,z,radius"."""
    numbers = _numbers(text, "--dominion")
    finite = all(math.isfinite(n) and abs(n) <= POSITION_MAX for n in numbers)
    if len(numbers) != 4 or numbers[3] <= 0 or not finite:
        raise InputError(
            f"--dominion needs x,y,z,radius with a positive radius, not {shown(text)}."
        )
    return Dominion((numbers[0], numbers[1], numbers[2]), numbers[3])


def _numbers(text: str, option: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise InputError(
            f"{option} needs numbers separated by commas, not {shown(text)}."
        ) from None


_STEP = re.compile(r"(?:(striker|defender|roller|opponent|s|d|r|o):)?(\d{1,3})([+-])")
_SIDES = {"s": Side.STRIKER, "d": Side.DEFENDER, "r": Side.ROLLER, "o": Side.OPPONENT}
_SIDES |= {side.value: side for side in Side}


def parse_steps(text: str) -> tuple[Step, ...]:
    """Explicit Adjustments "3+,5-,defender:2-": die number (1-based) and direction."""
    steps = []
    tokens = [t for t in re.split(r"[,\s]+", text.strip()) if t]
    if len(tokens) > STEPS_MAX:
        raise InputError(f"--adjust lists at most {STEPS_MAX} Adjustments, got {len(tokens)}.")
    for token in tokens:
        match = _STEP.fullmatch(token)
        if match is None:
            raise InputError(
                f"--adjust entries look like 3+ or 5- (optionally defender:2-), not {shown(token)}."
            )
        who, die, sign = match.groups()
        side = None if who is None else _SIDES[who]
        if not 1 <= int(die) <= DICE_MAX:
            raise InputError(f"--adjust dice are numbered from 1 to {DICE_MAX}, not {die}.")
        steps.append(Step(int(die) - 1, 1 if sign == "+" else -1, side))
    return tuple(steps)
