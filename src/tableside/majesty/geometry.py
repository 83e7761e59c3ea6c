"""Range along a Strike's movement path in 3D (M-15) and Spiritual Dominions that block it.

Positions are inches, centre to centre, in three dimensions (elohim fly). Range need only hold at
some point of the Strike's movement. Without Dominions the check is exact (distance along a
segment takes every value between its least and greatest); with Dominions the path is sampled
densely (every 1/100"), plus each segment's closest approach.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

Point = tuple[float, float, float]
MELEE_RANGE = 3.0
SAMPLES_PER_INCH = 100


@dataclass(frozen=True, slots=True)
class Dominion:
    """A Spiritual Dominion: a sphere that Strikes cannot pass through (M-15)."""

    center: Point
    radius: float


@dataclass(frozen=True, slots=True)
class Barrier:
    """A spiritual Barrier: a sphere a Knocked Back elohim collides with (M-35, A-42).

    It meets the elohim with its Resolve strength in place of Endurance.
    """

    center: Point
    radius: float
    resolve: int


def _sub(a: Point, b: Point) -> Point:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a: Point, b: Point) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _lerp(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def distance(a: Point, b: Point) -> float:
    """Centre-to-centre distance in inches."""
    return math.dist(a, b)


def path_length(path: tuple[Point, ...]) -> float:
    """Length of a polyline path."""
    return sum(distance(a, b) for a, b in itertools.pairwise(path))


def _closest_t(a: Point, b: Point, p: Point) -> float:
    ab = _sub(b, a)
    length2 = _dot(ab, ab)
    return 0.0 if length2 == 0 else min(1.0, max(0.0, _dot(_sub(p, a), ab) / length2))


def segment_span(a: Point, b: Point, p: Point) -> tuple[float, float]:
    """Least and greatest distance from ``p`` to points of segment ab."""
    nearest = distance(_lerp(a, b, _closest_t(a, b, p)), p)
    return nearest, max(distance(a, p), distance(b, p))


def crosses(a: Point, b: Point, dominion: Dominion) -> bool:
    """True when segment ab meets the Dominion's surface (one inside and one out, or through)."""
    inside_a = distance(a, dominion.center) < dominion.radius
    inside_b = distance(b, dominion.center) < dominion.radius
    if inside_a != inside_b:
        return True
    if inside_a:
        return False
    nearest = _lerp(a, b, _closest_t(a, b, dominion.center))
    return distance(nearest, dominion.center) < dominion.radius


@dataclass(frozen=True, slots=True)
class Reach:
    """What the Strike's path allows: the closest and farthest the Defender ever is."""

    closest: float
    farthest: float
    in_range: bool


def _in_band(d: float, low_exclusive: float | None, high: float) -> bool:
    return d <= high and (low_exclusive is None or d > low_exclusive)


def _segments(path: tuple[Point, ...]) -> list[tuple[Point, Point]]:
    return list(itertools.pairwise(path)) or [(path[0], path[0])]


def check_reach(
    path: tuple[Point, ...],
    target: Point,
    low_exclusive: float | None,
    high: float,
    dominions: tuple[Dominion, ...] = (),
) -> Reach:
    """Is ``target`` within (low, high] of some point of ``path`` with no Dominion between?"""
    spans = [segment_span(a, b, target) for a, b in _segments(path)]
    closest = min(s[0] for s in spans)
    farthest = max(s[1] for s in spans)
    if not dominions:
        floor = -1.0 if low_exclusive is None else low_exclusive
        ok = any(lo <= high and hi > floor for lo, hi in spans)
        return Reach(closest, farthest, ok)
    ok = any(
        _in_band(distance(point, target), low_exclusive, high)
        and not any(crosses(point, target, d) for d in dominions)
        for point in _sample(path, target)
    )
    return Reach(closest, farthest, ok)


def _sample(path: tuple[Point, ...], target: Point) -> list[Point]:
    points = []
    for a, b in _segments(path):
        steps = max(1, math.ceil(distance(a, b) * SAMPLES_PER_INCH))
        points += [_lerp(a, b, i / steps) for i in range(steps + 1)]
        points.append(_lerp(a, b, _closest_t(a, b, target)))
    return points
