"""The pages' scripts and style sheets as files with content-hashed names (issue 26, W-73).

At start every file of ``static/`` and the two bundles of the fight page (``fight.js``: its
scripts in order, core.js first and play.js last; ``page.css``: every page's style sheet) are read
once, minified (rjsmin and rcssmin: comments and spaces out, names kept), named by the first hex
digits of their SHA-256 (``/static/fight.3f9a1c2b4d.js``) and gzipped once at zlib's level 9.
``GET /static/{name}`` answers them with ``Cache-Control: public, max-age=31536000, immutable``: a
browser keeps a file for a year and never asks again, and a changed file is a new name. Pages
reference them through the template functions ``stylesheet`` and ``script_tag`` (with a
Subresource Integrity hash), so the Content-Security-Policy allows scripts from the server itself
only (``script-src 'self'``), never an inline one.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import rcssmin  # type: ignore[import-untyped]
import rjsmin  # type: ignore[import-untyped]
from fastapi import FastAPI, Request
from fastapi.responses import Response

from tableside.web.answer_json import JSONResponse

STATIC = resources.files("tableside.web").joinpath("static")
# The fight page's scripts, one file in this order: core.js first (shared names, the state and
# its listeners), play.js last (it starts the page).
FIGHT_SCRIPTS = ("core.js", "log.js", "cards.js", "decisions.js", "map.js", "chat.js", "play.js")
# Every page's style sheet: base.css, then one file per part of the fight page.
PAGE_STYLES = ("base.css", "cards.css", "play.css", "map.css", "log.css", "chat.css")
BUNDLES = {"fight.js": FIGHT_SCRIPTS, "page.css": PAGE_STYLES}
HASH_DIGITS = 10  # hex digits of the SHA-256 in a file's name: 40 bits, no clash among a few
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass(frozen=True, slots=True)
class Asset:
    """One served file: its hashed name, media type, bytes plain and gzipped, and SRI hash."""

    name: str
    media_type: str
    body: bytes
    gzipped: bytes
    integrity: str

    @property
    def url(self) -> str:
        """The path a page references it by."""
        return f"/static/{self.name}"


def minified(logical: str, source: bytes) -> bytes:
    """A script or style sheet without its comments and needless spaces (names kept)."""
    shrink = rjsmin.jsmin if logical.endswith(".js") else rcssmin.cssmin
    return str(shrink(source.decode("utf-8"))).encode("utf-8")


def made(logical: str, source: bytes) -> Asset:
    """An asset named ``stem.<hash>.ext`` after ``logical`` (``fight.js``) and its source."""
    body = minified(logical, source)
    stem, dot, ext = logical.rpartition(".")
    digest = hashlib.sha256(body).hexdigest()[:HASH_DIGITS]
    sri = "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode("ascii")
    return Asset(f"{stem}.{digest}.{ext}", MEDIA[dot + ext], body,
                 gzip.compress(body, compresslevel=9, mtime=0), sri)  # fmt: skip


@cache
def assets() -> dict[str, Asset]:
    """Every asset by its logical name (``fight.js``, ``setup.js``, ``page.css`` …)."""
    found = {}
    for entry in STATIC.iterdir():
        if entry.name.endswith((".js", ".css")):
            found[entry.name] = made(entry.name, entry.read_bytes())
    for logical, parts in BUNDLES.items():
        body = b"\n".join(STATIC.joinpath(p).read_bytes() for p in parts)
        found[logical] = made(logical, body)
    return found


@cache
def by_name() -> dict[str, Asset]:
    """Every asset by its hashed name (the one in its URL)."""
    return {a.name: a for a in assets().values()}


def url(logical: str) -> str:
    """The hashed path of an asset (``url("fight.js")`` → ``/static/fight.3f9a1c2b4d.js``)."""
    return assets()[logical].url


def integrity(logical: str) -> str:
    """The asset's Subresource Integrity hash (``sha384-…``)."""
    return assets()[logical].integrity


def accepts_gzip(request: Request) -> bool:
    """Whether the client says it takes gzip."""
    return "gzip" in request.headers.get("accept-encoding", "").lower()


def add_static(app: FastAPI) -> None:
    """``GET /static/{name}``: an asset by its hashed name, cached for a year (W-73)."""

    @app.get("/static/{name}", include_in_schema=False)
    def static_file(request: Request, name: str) -> Response:
        found = by_name().get(name)
        if found is None:
            return JSONResponse({"error": "There is no such file."}, status_code=404)
        headers = {"Cache-Control": IMMUTABLE, "ETag": f'"{name}"', "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == headers["ETag"]:
            return Response(status_code=304, headers=headers)
        if accepts_gzip(request):
            headers["Content-Encoding"] = "gzip"
            return Response(found.gzipped, media_type=found.media_type, headers=headers)
        return Response(found.body, media_type=found.media_type, headers=headers)
