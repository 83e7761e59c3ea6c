"""Browser sessions, CSRF and the headers every answer carries (docs/security.md, W-11).

A token reaches a browser once, in a join link (``/join/{token}``, or a page's ``?token=``): that
visit exchanges it for a session (:meth:`WebTable.start_session`), sets the session's id in an
HttpOnly, SameSite=Strict cookie and redirects (303) to the same place without the token. From
then on the browser presents the cookie, never the token.

:class:`SessionMiddleware` (plain ASGI, so streams pass through untouched) does three things:

- A request with the session cookie and no ``Authorization`` header gets ``Authorization:
  Session <id>`` in its place, so every route reads one header (``Bearer`` for other clients).
- A state-changing request (any method but GET, HEAD, OPTIONS) authenticated by the cookie must
  carry the session's CSRF proof, as header ``X-CSRF-Token`` or (HTML forms) form field
  ``csrf``, and must not come from another site (``Origin`` another host, or ``Sec-Fetch-Site``
  ``cross-site``/``same-site``): else 403 ``{"error": ...}`` before any route runs. ``Origin:
  null`` is not judged: browsers send it for the pages' own forms, which are served with
  ``Referrer-Policy: no-referrer``; the CSRF proof decides then.
- Every answer gets ``X-Frame-Options: DENY`` and a ``frame-ancestors 'none'`` policy, and
  ``Cache-Control: no-store`` unless it set its own (answers carry tokens and private state).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from tableside.web.auth import SESSION_COOKIE, Principal, csrf_token
from tableside.web.table import WebTable

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FORM_TYPE = "application/x-www-form-urlencoded"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
FORM_CHECK_LIMIT = 1_000_000  # bytes of a form read to find its CSRF field
FRAME_POLICY = "frame-ancestors 'none'"
NO_STORE = "no-store"


def session_id(request: Request) -> str | None:
    """The session id in the request's cookie, if any."""
    return request.cookies.get(SESSION_COOKIE) or None


def csrf_of(request: Request) -> str:
    """The CSRF proof the page served to this request's browser must send back ("" if none)."""
    found = session_id(request)
    return csrf_token(found) if found else ""


def set_session(response: Response, request: Request, session: str) -> None:
    """Set the session cookie: HttpOnly, SameSite=Strict, Path=/, Secure when served over TLS.

    ``request.url.scheme`` is ``https`` when the server itself speaks TLS, or when a proxy it
    trusts (uvicorn's ``--forwarded-allow-ips``, default 127.0.0.1 only) says so in
    ``X-Forwarded-Proto``; a header from anyone else is ignored.
    """
    response.set_cookie(
        SESSION_COOKIE,
        session,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def enter(table: WebTable, request: Request, token: str, path: str | None = None) -> Response:
    """A join link's visit: a new session for ``token``, its cookie, and 303 to a clean URL.

    Args:
        table: The web table.
        request: The visit (for the scheme: Secure cookie over TLS).
        token: The token in the link.
        path: Where to go (no token in it); None for the holder's table page.
    """
    who: Principal
    who, session = table.start_session(token)
    target = path if path is not None else f"/tables/{who.table_id}"
    response = RedirectResponse(target, status_code=303, headers={"Cache-Control": NO_STORE})
    set_session(response, request, session)
    return response


def refuse(status: int, error: str) -> tuple[int, bytes]:
    """A JSON refusal's status and body."""
    return status, json.dumps({"error": error}).encode("utf-8")


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's value (the first), decoded as latin-1."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def cookie_session(scope: Scope) -> str | None:
    """The session id in the request's ``Cookie`` header(s), if any."""
    for key, value in scope["headers"]:
        if key != b"cookie":
            continue
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(bytes(value).decode("latin-1"))
        except CookieError:
            continue
        morsel = jar.get(SESSION_COOKIE)
        if morsel is not None and morsel.value:
            return morsel.value
    return None


def cross_site(scope: Scope) -> str | None:
    """Why a cookie's state-changing request looks cross-site, or None when it does not."""
    fetch_site = (header(scope, b"sec-fetch-site") or "").lower()
    if fetch_site in ("cross-site", "same-site"):
        return f"A request from another site ({fetch_site}) may not use this browser's session."
    origin = header(scope, b"origin")
    if origin is None or origin == "null":  # "null": e.g. a form posted under no-referrer
        return None
    host = (header(scope, b"host") or "").lower()
    if urlsplit(origin).netloc.lower() != host:
        shown = origin if len(origin) <= 40 else origin[:40] + "…"
        return f"A request from origin {shown!r} may not use this browser's session."
    return None


class SessionMiddleware:
    """Cookie to ``Authorization: Session``, CSRF checks, and the headers of every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI call (HTTP only; others pass through)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = with_headers(send)
        session = None if header(scope, b"authorization") else cookie_session(scope)
        if session is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS:
            refused, receive = await check_csrf(scope, receive, session)
            if refused is not None:
                await send_refusal(send, *refused)
                return
        headers = [*scope["headers"], (b"authorization", f"Session {session}".encode("latin-1"))]
        await self.app({**scope, "headers": headers}, receive, send)


async def check_csrf(
    scope: Scope, receive: Receive, session: str
) -> tuple[tuple[int, bytes] | None, Receive]:
    """Refuse a cookie's state-changing request without the session's CSRF proof.

    Returns:
        The refusal (status, body) or None, and the ``receive`` to pass on (a form read here to
        find its ``csrf`` field is played back to the route).
    """
    why = cross_site(scope)
    if why is not None:
        return refuse(403, why), receive
    given = header(scope, CSRF_HEADER.encode())
    kind = (header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if given is None and kind == FORM_TYPE:
        body, receive = await read_body(receive)
        if len(body) > FORM_CHECK_LIMIT:
            return refuse(413, f"A form may have at most {FORM_CHECK_LIMIT} bytes."), receive
        fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        found = fields.get(CSRF_FIELD)
        given = found[0] if found else None
    if not given:
        return refuse(403, "This request needs the page's CSRF token (X-CSRF-Token)."), receive
    if not hmac.compare_digest(given.encode("utf-8"), csrf_token(session).encode("utf-8")):
        return refuse(403, "This request's CSRF token is not this session's."), receive
    return None, receive


async def read_body(receive: Receive) -> tuple[bytes, Receive]:
    """Read a request's body (up to just past the limit) and a ``receive`` that replays it."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more and size <= FORM_CHECK_LIMIT:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = bytes(message.get("body", b""))
        chunks.append(chunk)
        size += len(chunk)
        more = bool(message.get("more_body", False))
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return body, replay


async def send_refusal(send: Send, status: int, body: bytes) -> None:
    """Send a JSON refusal."""
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def with_headers(send: Send) -> Send:
    """``send`` adding the frame policy, X-Frame-Options and (if unset) no-store to answers."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = framed(list(message.get("headers", [])))
        await send(message)

    return sending


def framed(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The answer's headers with the frame policy, X-Frame-Options and a Cache-Control."""
    names = {bytes(key).lower() for key, _value in headers}
    out: list[tuple[bytes, bytes]] = []
    for key, value in headers:
        if bytes(key).lower() == b"content-security-policy" and b"frame-ancestors" not in value:
            value = bytes(value) + b"; " + FRAME_POLICY.encode()
        out.append((key, value))
    if b"content-security-policy" not in names:
        out.append((b"content-security-policy", FRAME_POLICY.encode()))
    out.append((b"x-frame-options", b"DENY"))
    if b"cache-control" not in names:
        out.append((b"cache-control", NO_STORE.encode()))
    return out
