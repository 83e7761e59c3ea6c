"""The web table's limits and last lines of defence (docs/security.md, W-13 and W-15).

Limits (W-13): tables created per client address per minute, combatants per encounter, seats
and encounters per table, request body bytes, open live streams per token and in all. Each has
a default, an environment variable and a ``tableside serve`` option (:class:`Limits`). A size
beyond its limit answers 413, a rate or a count of open streams 429, always as JSON
``{"error": "one sentence"}``, and nothing is written.

Failures (W-15): every refusal and failure is JSON ``{"error": "one sentence"}`` with
``application/json``: unknown routes (404), a path id that no row can have (404), a wrong
method (405), a body that cannot be parsed (400/422), a body too large (413), a limit (429), a
database that refuses a write (503, nothing kept), and anything unforeseen (500, its traceback
logged on the server and never sent). No sentence echoes a value longer than
:data:`SHOWN_CHARS` characters.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from fastapi import Request
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tableside.errors import TablesideError
from tableside.web.answer_json import JSONResponse
from tableside.web.auth import Principal
from tableside.web_limits import ENV, Limits, whole_limit

__all__ = ["ENV", "Limits", "whole_limit"]  # re-exported from tableside.web_limits

LOG = logging.getLogger("tableside.web")
SHOWN_CHARS = 40
"""Values longer than this are cut in refusals (with an ellipsis)."""
ID_MAX = 2**31 - 1
"""The largest id any row can have: PostgreSQL's ``integer`` (SQLite's is larger)."""
WINDOW = 60.0
"""Seconds of the sliding window of the table-creation rate."""


class LimitError(TablesideError):
    """A request beyond one of the limits (W-13); one sentence naming the limit."""

    status = 429


class TooLargeError(LimitError):
    """A body, a roster, a table's seats or encounters beyond their limit (HTTP 413)."""

    status = 413


class TooManyError(LimitError):
    """Too many tables created, commands sent, or streams open (HTTP 429).

    Attributes:
        retry_after: Whole seconds after which the same request may be accepted (the
            ``Retry-After`` header).
    """

    status = 429

    def __init__(self, message: str, retry_after: int = 60) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


def shown(value: object) -> str:
    """``repr(value)``, cut to :data:`SHOWN_CHARS` characters with an ellipsis."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


_QUOTED = re.compile(rf"'[^']{{{SHOWN_CHARS},}}'|\"[^\"]{{{SHOWN_CHARS},}}\"")


def shorten(sentence: str, limit: int = 400) -> str:
    """A refusal's sentence with every quoted value longer than ~40 characters cut, and capped."""
    cut = _QUOTED.sub(lambda m: m.group(0)[: SHOWN_CHARS - 1] + "…" + m.group(0)[0], sentence)
    return cut if len(cut) <= limit else cut[: limit - 1] + "…"


# --- rates and counts --------------------------------------------------------------------------


class RateWindow:
    """At most ``limit`` events per key in any ``window`` seconds (a sliding window).

    ``whose`` names the key in the refusal ("one address", "this seat (or Host)", "this table").
    """

    def __init__(
        self,
        limit: int,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
        whose: str = "one address",
    ) -> None:
        self.limit = limit
        self.window = window
        self.whose = whose
        self._clock = clock
        self._lock = threading.Lock()
        self._times: dict[str, deque[float]] = {}

    def take(self, key: str, what: str) -> None:
        """Count one event for ``key``, or raise TooManyError (nothing counted) past the limit."""
        now = self._clock()
        with self._lock:
            if len(self._times) > 10_000:
                self._forget_idle(now)
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.limit:
                wait = max(1, math.ceil(times[0] + self.window - now))
                per = "a minute" if self.window == WINDOW else f"in {self.window:g} s"
                raise TooManyError(
                    f"Too many {what}: at most {self.limit} {per} from {self.whose}; "
                    f"try again in {wait} s.",
                    wait,
                )
            times.append(now)

    def _forget_idle(self, now: float) -> None:
        """Drop the keys with no event in the window (bounds the memory of many addresses)."""
        for key in [k for k, t in self._times.items() if not t or t[-1] <= now - self.window]:
            del self._times[key]


class Rates:
    """The rates of W-13 and W-50 a request is counted against, each per its own key.

    The chat's rates are the chat room's own (:class:`tableside.web.chat.ChatRoom`).
    """

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        hour = 3600.0
        self.tables = RateWindow(limits.tables_per_minute, clock=clock)
        self.tables_hourly = RateWindow(limits.tables_per_hour, hour, clock, "one address")
        self.seats = RateWindow(limits.seats_per_minute, clock=clock)
        self.commands = {
            "token": RateWindow(limits.commands_per_minute, clock=clock, whose=HOLDER),
            "table": RateWindow(limits.table_commands_per_minute, clock=clock, whose="a table"),
            "address": RateWindow(limits.address_commands_per_minute, clock=clock),
        }

    def table_created(self, address: str) -> None:
        """Count a table created from ``address`` (per minute and per hour)."""
        self.tables.take(address, "tables created")
        self.tables_hourly.take(address, "tables created")

    def command(self, who: Principal, address: str | None) -> None:
        """Count a command (or undo, redo, answer) of ``who`` from ``address``."""
        self.commands["token"].take(holder_key(who), "commands")
        self.commands["table"].take(str(who.table_id), "commands")
        if address is not None:
            self.commands["address"].take(address, "commands")


HOLDER = "one seat (or Host)"


class StreamSlots:
    """Counts the open live streams per token, address, table and in all (W-13, W-50).

    A table's Host is refused only past its own token's and its address's limits: the table's
    and the process's limits count the players' streams, so that however many streams others
    hold, a Host's own table always gets its streams.
    """

    def __init__(
        self, per_token: int, in_all: int, per_address: int = 10**9, per_table: int = 10**9
    ) -> None:
        self.per_token = per_token
        self.in_all = in_all
        self.per_address = per_address
        self.per_table = per_table
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()
        self._total = 0

    def take(
        self, key: str, address: str | None = None, table: int | None = None, host: bool = False
    ) -> Callable[[], None]:
        """Hold one slot for ``key``; return the (idempotent) function that gives it back.

        Args:
            key: The holder (:func:`holder_key`).
            address: The client's address (None: not counted per address).
            table: The holder's table (None: not counted per table).
            host: The holder is the table's Host (not counted per table or in all).

        Raises:
            TooManyError: One of the limits is reached.
        """
        keys = [f"holder {key}"]
        keys += [] if address is None else [f"address {address}"]
        keys += [] if table is None or host else [f"table {table}"]
        with self._lock:
            self._refuse_past_limits(key, address, table, host)
            for counted in keys:
                self._open[counted] += 1
            if not host:
                self._total += 1
        given = threading.Event()

        def give_back() -> None:
            with self._lock:
                if given.is_set():
                    return
                given.set()
                for counted in keys:
                    self._open[counted] -= 1
                    if not self._open[counted]:
                        del self._open[counted]
                if not host:
                    self._total -= 1

        return give_back

    def _refuse_past_limits(
        self, key: str, address: str | None, table: int | None, host: bool
    ) -> None:
        if self._open[f"holder {key}"] >= self.per_token:
            raise TooManyError(
                f"This seat (or Host) already has {self.per_token} live streams open, the "
                "most allowed; close one (another tab) and try again.",
                5,
            )
        if address is not None and self._open[f"address {address}"] >= self.per_address:
            raise TooManyError(
                f"Your address already has {self.per_address} live streams open, the most "
                "allowed; close some and try again.",
                5,
            )
        if host:
            return
        if table is not None and self._open[f"table {table}"] >= self.per_table:
            raise TooManyError(
                f"Table {table} already has {self.per_table} live streams open, the most "
                "allowed; close some and try again.",
                5,
            )
        if self._total >= self.in_all:
            raise TooManyError(
                f"The server already has {self.in_all} live streams open, the most "
                "allowed; try again later.",
                30,
            )

    def open(self, key: str | None = None) -> int:
        """How many streams are open (of ``key``, a holder, when given; else the players')."""
        with self._lock:
            return self._total if key is None else self._open.get(f"holder {key}", 0)


def holder_key(who: Principal) -> str:
    """Whose streams count together: a table's Host, or one seat (its token and its sessions)."""
    return f"{who.table_id}:" + ("host" if who.seat is None else f"seat {who.seat.id}")


# --- ASGI middleware ------------------------------------------------------------------------------


async def send_json(send: Send, status: int, error: str, headers: Any = ()) -> None:
    """Send a whole ``{"error": ...}`` answer on a raw ASGI ``send``."""
    body = json.dumps({"error": error}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(k.encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


class _BodyTooLargeError(Exception):
    """Raised into the application when a body grows past the limit as it arrives."""


# A map's background image (W-65) may be larger than other bodies, up to its own limit.
IMAGE_PATH = re.compile(r"^/api/encounters/[0-9]{1,18}/background$")
IMAGE_MAX_BYTES = 4 * 1024 * 1024


class BodyLimit:
    """Refuse (413) a request body larger than ``limit`` bytes, declared or as it arrives.

    A declared ``Content-Length`` past the limit is refused before the application runs. A body
    without one (chunked), or longer than declared, is counted as it arrives: past the limit
    the application's read fails and, whatever it does with that failure, the answer is the
    413 (the application's own answer is dropped). Nothing is written: the application never
    gets the whole body.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    def sentence(self, limit: int | None = None) -> str:
        """The refusal."""
        most = self.limit if limit is None else limit
        return f"The request body is larger than {most} bytes, the most allowed."

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the application with the body counted (an image upload against its own limit)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        if scope.get("method") == "PUT" and IMAGE_PATH.match(str(scope.get("path", ""))):
            limit = max(limit, IMAGE_MAX_BYTES)  # a map's background image (W-65)
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and (
            not declared.strip().isdigit() or len(declared) > 18 or int(declared) > limit
        ):
            await send_json(send, 413, self.sentence(limit))
            return
        state = {"seen": 0, "over": False, "answered": False}

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                state["seen"] += len(message.get("body", b""))
                if state["seen"] > limit:
                    state["over"] = True
                    raise _BodyTooLargeError(self.sentence(limit))
            return message

        async def guarded(message: Message) -> None:
            if not state["over"]:
                await send(message)
            elif not state["answered"]:
                state["answered"] = True
                await send_json(send, 413, self.sentence(limit))

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            if not state["over"]:
                raise
        if state["over"] and not state["answered"]:
            state["answered"] = True
            await send_json(send, 413, self.sentence())


class PlainHeaders:
    """Every answer says ``X-Content-Type-Options: nosniff`` and names no server (W-50).

    A 429 that says nothing of when to try again (a set-up form's page) gets
    ``Retry-After: 60``, the rates' window.

    The outermost middleware, so that refusals made by the others (413, 500) carry it too;
    ``tableside serve`` also tells uvicorn not to send its ``server`` header.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the application with the headers set on its answer."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def plain(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", ())
                    if k.lower() not in (b"server", b"x-content-type-options")
                ]  # fmt: skip
                headers.append((b"x-content-type-options", b"nosniff"))
                if message["status"] == 429 and not any(k == b"retry-after" for k, _ in headers):
                    headers.append((b"retry-after", b"60"))  # a form's page of a rate (W-13)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, plain)


class LastResort:
    """Any exception the handlers left: 500 JSON, its traceback logged here and never sent.

    An exception after the answer started (a live stream) cannot change the answer: it is
    logged and the connection ends.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the application; answer an unforeseen failure with one sentence."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            where = f"{scope.get('method', '?')} {scope.get('path', '?')}"
            LOG.exception("Unexpected failure of %s", where[:200])
            if not started:
                await send_json(
                    send, 500, "The server failed to answer this request (logged); try again."
                )


# --- exception handlers ------------------------------------------------------------------------

REASONS = {
    400: "The request could not be read",
    401: "This needs a token",
    403: "This is not allowed",
    404: "There is no such page",
    413: "The request body is too large",
    429: "Too many requests",
}


def http_refusal(request: Request, error: Exception) -> JSONResponse:
    """Starlette's and FastAPI's own refusals (unknown route, wrong method, unreadable body)."""
    assert isinstance(error, HTTPException)
    status = error.status_code
    where = f"{request.method} {shown(request.url.path)[1:-1]}"
    headers = dict(error.headers or {})
    if status == 404 and error.detail == "Not Found":
        sentence = f"There is no such page or endpoint: {where}."
    elif status == 405:
        allowed = headers.get("Allow", headers.get("allow", ""))
        sentence = f"{request.method} is not allowed here ({where}); use {allowed or 'another'}."
    elif status == 400 and "parsing the body" in str(error.detail):
        sentence = "The request body could not be read as JSON (too deep, too long a number, …)."
    else:
        detail = str(error.detail or REASONS.get(status, "The request was refused"))
        sentence = shorten(detail.rstrip(".") + ".")
    return JSONResponse({"error": sentence}, status_code=status, headers=headers or None)


def database_failure(_request: Request, error: Exception) -> JSONResponse:
    """A database that refused or failed (read-only, full disk, gone): 503, nothing kept."""
    LOG.error("The database failed: %s", str(error).splitlines()[0][:300] if str(error) else "")
    return JSONResponse(
        {
            "error": "The database cannot carry out this request now (read-only, full or "
            "unreachable); nothing was changed: try again later."
        },
        status_code=503,
        headers={"Retry-After": "5"},
    )


def limit_refusal(_request: Request, error: Exception) -> JSONResponse:
    """A limit (W-13): 413 or 429 with one sentence (a 429 says when to try again)."""
    status = error.status if isinstance(error, LimitError) else 429
    wait = error.retry_after if isinstance(error, TooManyError) else 60
    headers = {"Retry-After": str(wait)} if status == 429 else None
    return JSONResponse({"error": str(error)}, status_code=status, headers=headers)


async def path_ids(request: Request) -> None:
    """Refuse (404) a path id that no row can have: not 1 to 2^31-1, before any read.

    Raises:
        HTTPException: 404 naming the id (cut to ~40 characters).
    """
    found = bad_path_id(request.path_params)
    if found is not None:
        name, text = found
        what = name.removesuffix("_id")
        raise HTTPException(404, f"There is no {what} with id {shown(text)}")


PATH_ID = re.compile(r"[0-9]{1,10}")


def bad_path_id(path_params: dict[str, Any]) -> tuple[str, str] | None:
    """The first path id (a ``*_id`` parameter) that no row can have, and its text; else None."""
    for name, raw in path_params.items():
        if not name.endswith("_id"):
            continue
        text = str(raw)
        if not PATH_ID.fullmatch(text) or not 1 <= int(text) <= ID_MAX:
            return name, text
    return None


def database_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean the database failed (answered 503)."""
    return (DBAPIError,)
