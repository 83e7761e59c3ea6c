"""The map's layers and pings over HTTP (docs/web.md W-65 … W-67).

``PUT /api/encounters/{eid}/background?width=…&x=…&y=…`` (the Host): the image as the body
(PNG, JPEG or WebP, told by its first bytes, never by its name or declared type; at most
:data:`~tableside.web.guards.IMAGE_MAX_BYTES`; at most :data:`PIXELS_MAX` pixels a side), laid
with its top left corner at (x, y) and ``width`` inches wide (its height follows its pixels).
``DELETE`` the same removes it. ``GET …/background`` serves it to the table's seats and Host only,
with its own media type, ``nosniff`` and a sandboxing policy. ``PUT …/fog`` (the Host) replaces
the hidden areas. ``GET …/map-layers`` gives the placement and the fog; ``POST …/ping`` (anyone at
the table) shows a point to everyone. Each change and ping reaches every open page through the
live stream as an ``event: map`` (:func:`map_feed`). A ping is not stored: it is kept in memory
and, on PostgreSQL, announced to every server process (LISTEN/NOTIFY, :mod:`tableside.web.notify`);
a change of the layers is stored and announced there in its own transaction.
"""

from __future__ import annotations

import io
import json
import logging
import secrets
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import FastAPI, Query, Request
from fastapi.responses import Response
from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, ConfigDict, Field

from tableside.errors import DataError
from tableside.limits import POSITION_MAX, Coordinate
from tableside.store import layers as stored
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization
from tableside.web.auth import Principal, credential, require_host
from tableside.web.guards import IMAGE_MAX_BYTES, RateWindow, TooManyError, holder_key
from tableside.web.table import WebTable
from tableside.web.unseen import FOGS

PIXELS_MAX: Final = 8192
SPAN_MAX: Final = 400.0  # inches a background may span
AREAS_MAX: Final = 400  # hidden areas at most
LOG = logging.getLogger("tableside.web")
PINGS_PER_MINUTE: Final = 30
PING_KEPT: Final = 10.0  # seconds a ping waits for the streams to send it
# The image types, by the bytes they start with (W-65).
MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png", "PNG"),
    (b"\xff\xd8\xff", "image/jpeg", "JPEG"),
)


class UnsupportedImageError(DataError):
    """The body is not a PNG, JPEG or WebP image (415)."""


def image_type(data: bytes) -> tuple[str, str]:
    """The media type and Pillow's format name of ``data``, told by its first bytes (W-65).

    Raises:
        UnsupportedImageError: Neither PNG, JPEG nor WebP.
    """
    for magic, media, name in MAGIC:
        if data.startswith(magic):
            return media, name
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp", "WEBP"
    raise UnsupportedImageError(
        f"The background must be a PNG, JPEG or WebP image; its first bytes are {data[:8]!r}."
    )


def image_size(data: bytes) -> tuple[str, int, int]:
    """The media type, width and height in pixels of an image body, checked (W-65).

    Raises:
        DataError: Empty, not one of the three types, unreadable, or too many pixels.
    """
    if not data:
        raise DataError("The background image is empty: send the image's bytes as the body.")
    media, name = image_type(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[name]) as img:
                width, height = img.size
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombWarning,
            Image.DecompressionBombError) as error:  # fmt: skip
        raise DataError(f"The background image could not be read as {name}: {error}.") from None
    if not (0 < width <= PIXELS_MAX and 0 < height <= PIXELS_MAX):
        raise DataError(
            f"The background image is {width} × {height} pixels; at most {PIXELS_MAX} a side."
        )
    return media, width, height


def set_background(
    table: WebTable, who: Principal, encounter_id: int, data: bytes, at: tuple[float, float],
    width: float,
) -> dict[str, Any]:  # fmt: skip
    """Check and store the Host's background image; wake the encounter's pages."""
    require_host(who, "set the map's background")
    media, w_px, h_px = image_size(data)
    height = round(width * h_px / w_px, 3)
    place = stored.Placement(media, at[0], at[1], width, height)
    stored.set_background(table.store, encounter_id, data, place)
    table.notifier.publish(encounter_id)
    return stored.layers(table.store, encounter_id).to_json()


def clear_background(table: WebTable, who: Principal, encounter_id: int) -> dict[str, Any]:
    """Remove the background image; wake the encounter's pages."""
    require_host(who, "remove the map's background")
    stored.set_background(table.store, encounter_id, None, None)
    table.notifier.publish(encounter_id)
    return stored.layers(table.store, encounter_id).to_json()


class AreaBody(BaseModel):
    """One hidden rectangle (inches)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    x: Coordinate
    y: Coordinate
    w: float = Field(gt=0, le=2 * POSITION_MAX, allow_inf_nan=False)
    h: float = Field(gt=0, le=2 * POSITION_MAX, allow_inf_nan=False)


class FogBody(BaseModel):
    """PUT …/fog: the hidden areas, replacing the ones there were."""

    model_config = ConfigDict(extra="forbid", strict=True)

    areas: list[AreaBody] = Field(max_length=AREAS_MAX)


class PingBody(BaseModel):
    """POST …/ping: the point to show everyone (inches)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    x: Coordinate
    y: Coordinate


class Pings:
    """The pings of the last :data:`PING_KEPT` seconds, per encounter, numbered (W-67).

    Those of this process and, on PostgreSQL, of every other: a ping taken here is announced
    with this process's ``origin`` (:func:`announce`), and one another process announced is kept
    here when the listener hears it (:meth:`heard`).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self.origin = secrets.token_hex(8)  # names this process in its announcements
        self._seq = 0
        self._kept: dict[int, deque[tuple[int, float, dict[str, Any]]]] = {}
        self.clock = clock
        self.rate = RateWindow(PINGS_PER_MINUTE, whose="this seat (or Host)")

    def add(self, encounter_id: int, ping: dict[str, Any]) -> None:
        """Keep a ping for the streams."""
        with self._lock:
            self._seq += 1
            kept = self._kept.setdefault(encounter_id, deque())
            kept.append((self._seq, self.clock(), ping))
            while kept and self.clock() - kept[0][1] > PING_KEPT:
                kept.popleft()

    def heard(self, encounter_id: int, what: str) -> None:
        """Keep a ping another process announced (``ping:<origin>:<JSON>``); ignore the rest."""
        kind, _, rest = what.partition(":")
        origin, _, data = rest.partition(":")
        if kind != "ping" or origin == self.origin:
            return  # not a ping, or this process's own (kept when it was taken)
        found = json.loads(data)
        ping = PingBody.model_validate({"x": found["x"], "y": found["y"]})
        by = found["by"]
        if isinstance(by, str) and 0 < len(by) <= 100:
            self.add(encounter_id, {"kind": "ping", "x": ping.x, "y": ping.y, "by": by})

    def last(self) -> int:
        """The newest ping's number."""
        with self._lock:
            return self._seq

    def after(self, encounter_id: int, seq: int) -> list[tuple[int, dict[str, Any]]]:
        """The pings numbered after ``seq``."""
        with self._lock:
            kept = self._kept.get(encounter_id, deque())
            return [(n, p) for n, _t, p in kept if n > seq]


PINGS = Pings()


def ping(table: WebTable, who: Principal, encounter_id: int, body: PingBody) -> dict[str, Any]:
    """Show a point of the map to everyone at the table (W-67), at most 30 a minute each."""
    try:
        PINGS.rate.take(holder_key(who), "pings")
    except TooManyError as error:
        raise TooManyError(
            f"Too many pings: at most {PINGS_PER_MINUTE} a minute from one seat.",
            error.retry_after,
        ) from None
    by = "Host" if who.seat is None else who.seat.name
    found = {"kind": "ping", "x": body.x, "y": body.y, "by": by}
    PINGS.add(encounter_id, found)
    table.notifier.publish(encounter_id)
    data = json.dumps(found, separators=(",", ":"))
    try:  # the pages other server processes stream (PostgreSQL): the ping is not stored
        stored.announce(table.store, encounter_id, f"ping:{PINGS.origin}:{data}")
    except Exception as error:  # this process's pages have it; the others miss one ping
        LOG.warning("A ping could not be announced to the other processes: %s", error)
    return found


def map_feed(table: WebTable, encounter_id: int) -> Callable[[], list[str]]:
    """The map's part of a live stream: a ``map`` event when the layers change, and each ping."""
    version = stored.layers(table.store, encounter_id).version
    seen = PINGS.last()

    def read() -> list[str]:
        nonlocal version, seen
        out = []
        now = stored.layers(table.store, encounter_id).version
        if now != version:
            version = now
            out.append(map_event({"kind": "map", "version": now}))
        for n, p in PINGS.after(encounter_id, seen):
            seen = n
            out.append(map_event(p))
        return out

    return read


def map_event(data: dict[str, Any]) -> str:
    """One Server-Sent Event of the map."""
    return f"event: map\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def with_map(
    table: WebTable, encounter_id: int, other: Callable[[], list[str]]
) -> Callable[[], list[str]]:
    """A stream's extra events: ``other``'s (the chat's), then the map's."""
    feed = map_feed(table, encounter_id)
    return lambda: [*other(), *feed()]


Span = Annotated[float, Query(gt=0, le=SPAN_MAX, allow_inf_nan=False)]
Corner = Annotated[float, Query(ge=-POSITION_MAX, le=POSITION_MAX, allow_inf_nan=False)]
IMAGE_HEADERS: Final = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Disposition": 'inline; filename="background"',
    "Cache-Control": "private, max-age=3600",
    "Referrer-Policy": "no-referrer",
}


def add_stage(app: FastAPI, table: WebTable) -> None:
    """The map's layers and pings (see the module's docstring)."""
    table.notifier.heard.append(PINGS.heard)  # pings other processes announce (W-67)

    async def unsupported(_request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=415)

    app.add_exception_handler(UnsupportedImageError, unsupported)

    @app.put("/api/encounters/{encounter_id}/background")
    async def put_background(
        request: Request, encounter_id: int, width: Span, x: Corner = 0.0, y: Corner = 0.0,
        authorization: Authorization = None,
    ) -> JSONResponse:  # fmt: skip
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        require_host(who, "set the map's background")
        data = await request.body()
        if len(data) > IMAGE_MAX_BYTES:  # the body limit counts it too; this says so first
            raise DataError(f"The background image is larger than {IMAGE_MAX_BYTES} bytes.")
        answer = set_background(table, who, encounter_id, data, (x, y), width)
        return JSONResponse(answer)

    @app.delete("/api/encounters/{encounter_id}/background")
    def delete_background(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        return JSONResponse(clear_background(table, who, encounter_id))

    @app.get("/api/encounters/{encounter_id}/background")
    def get_background(encounter_id: int, authorization: Authorization = None) -> Response:
        table.at_encounter(credential(authorization), encounter_id)
        found = stored.image(table.store, encounter_id)
        if found is None:
            return JSONResponse({"error": "This encounter has no background image."}, 404)
        return Response(found[0], media_type=found[1], headers=IMAGE_HEADERS)

    @app.get("/api/encounters/{encounter_id}/map-layers")
    def get_layers(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        table.at_encounter(credential(authorization), encounter_id)
        return JSONResponse(stored.layers(table.store, encounter_id).to_json())

    @app.put("/api/encounters/{encounter_id}/fog")
    def put_fog(
        encounter_id: int, body: FogBody, authorization: Authorization = None
    ) -> JSONResponse:
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        require_host(who, "change the fog")
        areas = tuple(stored.Area(a.x, a.y, a.w, a.h) for a in body.areas)
        stored.set_fog(table.store, encounter_id, areas)
        FOGS.kept(table.store, encounter_id, areas)
        table.notifier.publish(encounter_id)
        return JSONResponse(stored.layers(table.store, encounter_id).to_json())

    @app.post("/api/encounters/{encounter_id}/ping", status_code=201)
    def post_ping(
        encounter_id: int, body: PingBody, authorization: Authorization = None
    ) -> JSONResponse:
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        return JSONResponse(ping(table, who, encounter_id, body), status_code=201)
