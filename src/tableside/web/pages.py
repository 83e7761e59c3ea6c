"""Server-rendered pages (Jinja2, every value auto-escaped) with a script for live play.

The fight page shows whose Turn it is, the character cards and the live log, and has the play
panel: its odds (``POST …/odds``), the server's dice or physical dice with ``best``'s suggestion
(``POST …/preview``), accepted or changed into explicit steps (docs/web.md, The play form). The
page's script renders the log's roll cards, from the records in the page's boot data on load and
from the stream afterwards, with one function (W-24): nothing of the log is rendered here.

The script builds every node with ``textContent`` (never ``innerHTML``) and the page's data is
passed to it as JSON through ``tojson``; a Content-Security-Policy with a per-page nonce lets no
other script run, and no page is sent on as a referrer. No page carries a token: the browser's
session cookie authenticates the script's requests, which send the page's CSRF proof back as
``X-CSRF-Token`` (W-11); a stream whose token is revoked ends with a ``revoked`` event (W-12).
"""

from __future__ import annotations

import secrets
from importlib import resources
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from tableside.store.db import EncounterInfo

# The War Strike's numeric options (StrikeArgs) under "More options", with their labels.
WAR_NUMBERS = (
    ("inspiration", "Inspiration tokens"),
    ("obstruction", "Obstruction tokens"),
    ("striker_adjustments", "Striker raw Adjustments"),
    ("defender_adjustments", "Defender raw Adjustments"),
    ("wear_flat", "Wear +flat"),
    ("wear_percent", "Wear %"),
    ("ignore_stops", "Ignore Stops"),
    ("superiority", "Superiority"),
)

# The Strike's modifiers that only the Host sets: a player's are proposals (D-4).
HOST_NUMBERS = frozenset(
    {"striker_adjustments", "defender_adjustments", "wear_flat", "wear_percent", "ignore_stops",
     "superiority"}
)  # fmt: skip

# The fight page's scripts, inlined in this order as one script under the page's CSP nonce:
# core.js first (shared names, the state and its listeners), play.js last (it starts the page).
STATIC = resources.files("tableside.web").joinpath("static")
SCRIPTS = ("core.js", "log.js", "cards.js", "decisions.js", "map.js", "chat.js", "play.js")
SCRIPT = "\n".join(STATIC.joinpath(f).read_text("utf-8") for f in SCRIPTS)
# Every page's style sheet, inlined in base.html: base.css, then one file per part of the page.
STYLES = ("base.css", "cards.css", "play.css", "map.css", "log.css", "chat.css")
STYLE = "\n".join(STATIC.joinpath(f).read_text("utf-8") for f in STYLES)

ENV = Environment(
    loader=PackageLoader("tableside.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)
# ``tojson`` keeps the keys in the order the state has them (the combatants table's columns).
ENV.policies["json.dumps_kwargs"] = {"sort_keys": False}


def html(template: str, nonce: str = "", **values: Any) -> HTMLResponse:
    """A rendered page with headers that keep the token and other scripts out."""
    body = ENV.get_template(template).render(nonce=nonce, styles=STYLE, **values)
    script = f"'nonce-{nonce}'" if nonce else "'none'"
    headers = {
        "Content-Security-Policy": f"default-src 'self'; script-src {script}; "
        "style-src 'unsafe-inline'; object-src 'none'; base-uri 'none'",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
    }
    return HTMLResponse(body, headers=headers)


def join_page(view: dict[str, Any]) -> HTMLResponse:
    """A player's table page (where a join link leads): the table's encounters."""
    return html("join.html", view=view)


# The games in words (W-23): a page never shows a game's identifier.
GAME_WORDS = {
    "majesty-war": "Allies of Majesty — War",
    "strife-combat": "Realm of Strife — Combat",
}


def game_words(game: str) -> str:
    """A game in the words a player knows ("Allies of Majesty — War", never its identifier)."""
    return GAME_WORDS.get(game, game.replace("-", " ").capitalize())


def encounter_page(
    view: dict[str, Any],
    info: EncounterInfo,
    state: dict[str, Any],
    records: list[dict[str, Any]],
    csrf: str,
) -> HTMLResponse:
    """The fight: whose Turn, the play panel, the map, the character cards and the log.

    ``state`` and ``records`` are already what the viewer may see (W-1 … W-16): the script
    renders both, the log's cards from ``records`` with the same function that renders a
    streamed record (W-24). ``csrf`` is the session's CSRF proof (W-11), which the script sends
    with every request.
    """
    war = info.game == "majesty-war"
    boot = {
        "encounter": info.id,
        "csrf": csrf,
        "revision": state["revision"],
        "game": info.game,
        "state": state,
        "log": records,
        "numbers": [name for name, _label in WAR_NUMBERS],
        "role": view["role"],
        "characters": view["seat"]["characters"] if "seat" in view else [],
    }
    return html(
        "encounter.html",
        nonce=secrets.token_urlsafe(16),
        view=view,
        info=info,
        state=state,
        war=war,
        game=game_words(info.game),
        war_numbers=WAR_NUMBERS,
        host_numbers=HOST_NUMBERS,
        boot=boot,
        script=SCRIPT,
    )
