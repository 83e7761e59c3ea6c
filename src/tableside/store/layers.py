"""The map's layers in the store (docs/web.md W-65, W-66): a background image and the fog.

One ``map_layers`` row per encounter (migration 0010), written only by the Host's requests: the
image's bytes and media type, where it lies and what it spans (inches), the hidden areas, and a
version that grows with each change. Nothing here touches the encounter's log: the layers are
not commands, so undo, redo and replay never see them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from tableside.store.db import _NOTIFY, Store
from tableside.store.models import MapLayersRow
from tableside.store.tables import _require_encounter


@dataclass(frozen=True, slots=True)
class Area:
    """A hidden rectangle: its top left corner (x, y) and its width and height, in inches."""

    x: float
    y: float
    w: float
    h: float

    def to_json(self) -> dict[str, float]:
        """Plain JSON."""
        return {"x": self.x, "y": self.y, "w": self.w, "h": self.h}

    def covers(self, x: float, y: float) -> bool:
        """Whether the point (x, y) lies in the area (its edges included)."""
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the background lies: its top left corner and its size, in inches."""

    media_type: str
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class Layers:
    """An encounter's map layers: their version, the background's placement, the fog."""

    version: int = 0
    background: Placement | None = None
    fog: tuple[Area, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the background's placement without its bytes)."""
        b = self.background
        place = None
        if b is not None:
            place = {"type": b.media_type, "x": b.x, "y": b.y, "width": b.width,
                     "height": b.height, "version": self.version}  # fmt: skip
        return {"version": self.version, "background": place,
                "fog": [a.to_json() for a in self.fog]}  # fmt: skip


_COLUMNS = (
    MapLayersRow.version, MapLayersRow.image_type, MapLayersRow.image_x, MapLayersRow.image_y,
    MapLayersRow.image_width, MapLayersRow.image_height, MapLayersRow.fog,
)  # fmt: skip


# Built once: every answer reads the fog (the hot path on the driver, issue 26: SV-1)
_LAYERS = select(*_COLUMNS).where(MapLayersRow.encounter_id == bindparam("layers_of"))


def layers(store: Store, encounter_id: int) -> Layers:
    """The encounter's layers (no row: none, version 0)."""
    with store._hot_read() as connection:
        row = connection.execute(_LAYERS, {"layers_of": encounter_id}).one_or_none()
    if row is None:
        return Layers()
    version, kind, x, y, width, height, fog = row
    place = None
    if kind is not None:
        place = Placement(str(kind), float(x), float(y), float(width), float(height))
    areas = tuple(
        Area(float(a["x"]), float(a["y"]), float(a["w"]), float(a["h"])) for a in fog or []
    )
    return Layers(int(version), place, areas)


def image(store: Store, encounter_id: int) -> tuple[bytes, str] | None:
    """The background image's bytes and media type, or None."""
    with store._read() as connection:
        row = connection.execute(
            select(MapLayersRow.image, MapLayersRow.image_type).where(
                MapLayersRow.encounter_id == encounter_id
            )
        ).one_or_none()
    if row is None or row[0] is None:
        return None
    return bytes(row[0]), str(row[1])


def set_background(
    store: Store, encounter_id: int, data: bytes | None, place: Placement | None
) -> int:
    """Store (or, with None, remove) the background image; the new version.

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    values: dict[str, Any] = {
        "image": data, "image_type": None if place is None else place.media_type,
        "image_x": None if place is None else place.x,
        "image_y": None if place is None else place.y,
        "image_width": None if place is None else place.width,
        "image_height": None if place is None else place.height,
    }  # fmt: skip
    return _change(store, encounter_id, values)


def set_fog(store: Store, encounter_id: int, areas: tuple[Area, ...]) -> int:
    """Store the hidden areas (replacing them); the new version.

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    return _change(store, encounter_id, {"fog": [a.to_json() for a in areas] or None})


def _change(store: Store, encounter_id: int, values: dict[str, Any]) -> int:
    """Write the layers' new values and version; on PostgreSQL announce them at commit (W-67)."""
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        version = _version(connection, encounter_id)
        if version is None:
            connection.execute(
                insert(MapLayersRow).values(encounter_id=encounter_id, version=1, **values)
            )
        else:
            connection.execute(
                update(MapLayersRow)
                .where(MapLayersRow.encounter_id == encounter_id)
                .values(version=version + 1, **values)
            )
        if store.backend == "postgresql":  # every process's streams of it read the layers again
            connection.execute(_NOTIFY, {"payload": f"{encounter_id}:map"})
        return 1 if version is None else version + 1


def announce(store: Store, encounter_id: int, payload: str) -> bool:
    """Announce ``<encounter_id>:<payload>`` to every server process (PostgreSQL; else False).

    A ping is not stored (W-67): it travels in the announcement itself, at most
    :data:`ANNOUNCE_MAX` bytes.
    """
    if store.backend != "postgresql":
        return False
    text = f"{encounter_id}:{payload}"
    if len(text.encode()) > ANNOUNCE_MAX:
        raise ValueError(f"An announcement has at most {ANNOUNCE_MAX} bytes, not {len(text)}.")
    with store._write() as connection:
        connection.execute(_NOTIFY, {"payload": text})
    return True


ANNOUNCE_MAX = 7999  # PostgreSQL's NOTIFY payload is shorter than 8000 bytes


def _version(connection: Connection, encounter_id: int) -> int | None:
    found = connection.execute(
        select(MapLayersRow.version).where(MapLayersRow.encounter_id == encounter_id)
    ).scalar_one_or_none()
    return None if found is None else int(found)
