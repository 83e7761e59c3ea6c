"""Server-rendered pages (Jinja2, every value auto-escaped) with a script for live play.

The fight page shows whose Turn it is, the character cards and the live log, and has the play
panel: its odds (``POST …/odds``), the server's dice or physical dice with ``best``'s suggestion
(``POST …/preview``), accepted or changed into explicit steps (docs/web.md, The play form). The
page's script renders the log's roll cards, from the records in the page's boot data on load and
from the stream afterwards, with one function (W-24): nothing of the log is rendered here.

The script builds every node with ``textContent`` (never ``innerHTML``) and the page's data is
passed to it as JSON through ``tojson`` in a ``<script type="application/json">`` element; the
scripts and style sheets are files with content-hashed names (:mod:`tableside.web.assets`,
W-73), and the Content-Security-Policy lets only the server's own files run (no inline script),
and no page is sent on as a referrer. No page carries a token: the browser's
session cookie authenticates the script's requests, which send the page's CSRF proof back as
``X-CSRF-Token`` (W-11); a stream whose token is revoked ends with a ``revoked`` event (W-12).
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from tableside.store.db import EncounterInfo
from tableside.web import assets, log_page

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

ENV = Environment(
    loader=PackageLoader("tableside.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)
# ``tojson`` keeps the keys in the order the state has them (the combatants table's columns).
ENV.policies["json.dumps_kwargs"] = {"sort_keys": False}


def stylesheet(name: str) -> Markup:
    """A ``<link>`` to a style sheet of :mod:`~tableside.web.assets` by its hashed name."""
    return Markup('<link rel="stylesheet" href="{}" integrity="{}">').format(
        assets.url(name), assets.integrity(name)
    )


def script_tag(name: str) -> Markup:
    """A ``<script src>`` of :mod:`~tableside.web.assets` by its hashed name."""
    return Markup('<script src="{}" integrity="{}"></script>').format(
        assets.url(name), assets.integrity(name)
    )


ENV.globals.update(stylesheet=stylesheet, script_tag=script_tag)


def html(template: str, scripts: tuple[str, ...] = (), **values: Any) -> HTMLResponse:
    """A rendered page with its ``scripts`` (assets) at the end.

    Its headers keep the token and other scripts out: only the server's own files run, never an
    inline script (W-73).
    """
    body = ENV.get_template(template).render(scripts=scripts, **values)
    script = "'self'" if scripts else "'none'"
    headers = {
        "Content-Security-Policy": f"default-src 'self'; script-src {script}; "
        "style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'",
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
    renders both, the log's cards from the last of ``records`` (W-74; older ones on request) with
    the same function that renders a streamed record (W-24). ``csrf`` is the session's CSRF proof
    (W-11), which the script sends with every request.
    """
    war = info.game == "majesty-war"
    shown, older = log_page.last_records(records, None, log_page.BOOT_RECORDS)
    boot = {
        "encounter": info.id,
        "csrf": csrf,
        "revision": state["revision"],
        "game": info.game,
        "state": state,
        "log": shown,
        "older": older,  # more records before these: the log's "Older records" (W-74)
        "numbers": [name for name, _label in WAR_NUMBERS],
        "role": view["role"],
        "characters": view["seat"]["characters"] if "seat" in view else [],
    }
    return html(
        "encounter.html",
        scripts=("fight.js",),
        view=view,
        info=info,
        state=state,
        war=war,
        game=game_words(info.game),
        war_numbers=WAR_NUMBERS,
        host_numbers=HOST_NUMBERS,
        boot=boot,
    )
