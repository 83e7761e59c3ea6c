"""The Host's set-up: tables, encounters, characters (by form or JSON import), seats, secrets.

Pages (Jinja2, auto-escaped, through :func:`tableside.web.pages.html`) post plain HTML forms
(``application/x-www-form-urlencoded``; a chosen file is read into the JSON box by the page's
script, so the server needs no multipart parser). The same operations are JSON endpoints. A
character becomes the encounter's ``add`` command through :meth:`WebTable.execute`, so it is
logged, undoable and live like any command. A refusal answers 4xx with one sentence (JSON from
the API, the form again with the message from a page) and writes nothing.

The pages carry no token: the Host's browser presents its session cookie, and every form
carries the session's CSRF proof in a hidden ``csrf`` field (W-11). The Host's table page also
removes seats and gives seats or the Host new links (W-12), each confirmed by a tick box.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import parse_qs, quote

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.encounter.log import Command
from tableside.errors import DataError, TablesideError
from tableside.limits import (
    NUMBER_DIGITS_MAX,
    POSITION_MAX,
    SEED_MAX,
    Coordinates,
    Flag,
    Name,
    SideName,
    json_document,
    shown,
)
from tableside.majesty.catalog import builtin_catalog as majesty_catalog
from tableside.majesty.character import Side
from tableside.majesty.formats import CHARACTER_FORMAT, CHARACTER_VERSION, character_from_data
from tableside.store import table_audience, tables
from tableside.strife.catalog import builtin_catalog as strife_catalog
from tableside.web import pages
from tableside.web.asking import bearer, host_at, host_at_encounter, who_at
from tableside.web.auth import Principal, require_host
from tableside.web.guards import LimitError
from tableside.web.public import public_base, reach_warning
from tableside.web.qr import qr_svg
from tableside.web.sessions import csrf_of, enter, set_session
from tableside.web.strife_sheet import sheet_choices, sheet_from_form, sides_of
from tableside.web.table import WebTable

MAJESTY = "majesty-war"
STRIFE = "strife-combat"
GAMES = {MAJESTY: "Allies of Majesty War", STRIFE: "Realm of Strife combat"}
FORM_TYPE = "application/x-www-form-urlencoded"
FORM_LIMIT = 200_000  # bytes of one posted form (a character document fits many times)
ATTRIBUTES = ("might", "swiftness", "control", "endurance", "resolve", "passion")
OVERRIDES = ("force", "guard", "precision", "stamina", "spp", "speed")
Form = dict[str, list[str]]
TokenQuery = Annotated[str | None, Query()]
Authorization = Annotated[str | None, Header()]
ID_PATTERN = r"^[A-Za-z0-9_.\-]+$"


class Body(BaseModel):
    """A request body: unknown keys are refused, numbers are JSON numbers (W-50)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NewCharacter(Body):
    """POST /api/encounters/{eid}/characters: a War character or a Realm of Strife model."""

    id: str | None = Field(default=None, min_length=1, max_length=40, pattern=ID_PATTERN)
    character: dict[str, Any] | None = None
    model: Name | None = None
    sheet: dict[str, Any] | None = None
    side: SideName | None = None
    position: Coordinates = (0.0, 0.0, 0.0)
    secret: Flag | None = None
    perched: Flag | None = None  # Realm of Strife, above the ground: stands (true) or flies (SA-93)
    revision: int | None = Field(default=None, ge=0, le=SEED_MAX)
    roster: int | None = Field(default=None, ge=1, le=2**31 - 1)  # a roster character (CH-2)


class NpcSetting(Body):
    """PUT /api/encounters/{eid}/secrets: are NPCs' values secret (W-1)?"""

    npcs_secret: Flag


class SecretChoice(Body):
    """PUT /api/encounters/{eid}/secrets/{combatant}: secret, open, or null (the setting)."""

    secret: Flag | None


# --- operations (no HTTP) ------------------------------------------------------------------------


def combatant_id(given: str | None, name: object) -> str:
    """The combatant id: the one given, else the name with spaces as underscores."""
    if given:
        return given
    return str(name or "").strip().replace(" ", "_")


def unique_id(base: str, taken: list[str]) -> str:
    """``base``, or ``base_2``, ``base_3``… the first not ``taken`` (W-62), at most 40 long."""
    if base not in taken:
        return base
    n = 2
    while f"{base[:36]}_{n}" in taken:
        n += 1
    return f"{base[:36]}_{n}"


def add_args(game: str, spec: NewCharacter) -> dict[str, Any]:
    """The ``add`` command's arguments for the encounter's game, checked first."""
    position = list(spec.position)
    if game == MAJESTY:
        if spec.character is None or spec.model is not None or spec.sheet is not None:
            raise DataError("A War character is given as 'character' (character JSON v1) only.")
        if spec.side is not None:
            raise DataError("A War character's side is the 'side' of its character document.")
        if spec.perched is not None:
            raise DataError("perched is for a Realm of Strife model above the ground (SA-93).")
        character_from_data(spec.character, "character")
        name = spec.character.get("name")
        return {"id": combatant_id(spec.id, name), "character": spec.character,
                "position": position}  # fmt: skip
    if spec.character is not None or (spec.model is None) == (spec.sheet is None):
        raise DataError(
            "A Realm of Strife model is given as 'model' (a catalogue name) or 'sheet'."
        )
    if spec.side is None:
        raise DataError("A Realm of Strife model needs a 'side' (e.g. heroes or monsters).")
    source: dict[str, Any] = {"model": spec.model} if spec.model else {"sheet": spec.sheet}
    name = spec.model if spec.model else (spec.sheet or {}).get("name")
    perch = {} if spec.perched is None else {"perched": spec.perched}  # SA-93
    return {"id": combatant_id(spec.id, name), **source, "side": spec.side, "position": position,
            **perch}  # fmt: skip


def add_character(
    table: WebTable, who: Principal, encounter_id: int, spec: NewCharacter
) -> dict[str, Any]:
    """Add a character as the encounter's ``add`` command; nothing is kept on a refusal.

    The Host's secrecy choice for it (if given) is stored first, so that no player ever reads
    the new record before it; a refused command puts the previous choice back.
    """
    require_host(who, "add characters")
    if spec.roster is not None:
        from tableside.web.roster_access import add_to_encounter

        return add_to_encounter(table, who, encounter_id, spec.roster, spec)
    game = table.store.encounter(encounter_id).game
    args = add_args(game, spec)
    if spec.id is None:  # a second Goblin is Goblin_2, shown "Goblin 2" (W-62)
        args["id"] = unique_id(args["id"], combatant_ids(table.state(encounter_id, who)))
    if spec.secret is None:
        return table.execute(who, encounter_id, Command("add", args), spec.revision)
    before = table_audience.secrecy(table.store, encounter_id).choices.get(args["id"])
    table_audience.set_secret(table.store, encounter_id, args["id"], spec.secret)
    try:
        return table.execute(who, encounter_id, Command("add", args), spec.revision)
    except Exception:
        table_audience.set_secret(table.store, encounter_id, args["id"], before)
        raise


def secrets_view(table: WebTable, who: Principal, encounter_id: int) -> dict[str, Any]:
    """The encounter's secrecy: the NPC setting and, per combatant, whether it is secret."""
    require_host(who, "see the secrecy settings")
    secrecy = table_audience.secrecy(table.store, encounter_id)
    return {
        "npcs_secret": secrecy.npcs_secret,
        "combatants": [
            {"id": c, "npc": c not in secrecy.played, "choice": secrecy.choices.get(c),
             "secret": secrecy.secret(c)}
            for c in combatant_ids(table.state(encounter_id, who))
        ],
    }  # fmt: skip


def combatant_ids(state: dict[str, Any]) -> list[str]:
    """The ids of an encounter's combatants (War) or models (fight)."""
    rows = state.get("combatants", state.get("models", []))
    return [str(row["id"]) for row in rows]


# --- the JSON API ---------------------------------------------------------------------------------


def add_setup_api(app: FastAPI, table: WebTable) -> None:
    """The set-up endpoints of the JSON API."""

    @app.post("/api/encounters/{encounter_id}/characters", status_code=201)
    def new_character(
        encounter_id: int, body: NewCharacter, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id)
        return add_character(table, who, encounter_id, body)

    @app.get("/api/encounters/{encounter_id}/secrets")
    def show_secrets(encounter_id: int, authorization: Authorization = None) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id)
        return secrets_view(table, who, encounter_id)

    @app.put("/api/encounters/{encounter_id}/secrets")
    def npc_setting(
        encounter_id: int, body: NpcSetting, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id, "change the secrecy settings")
        table_audience.set_npcs_secret(table.store, encounter_id, body.npcs_secret)
        return secrets_view(table, who, encounter_id)

    @app.put("/api/encounters/{encounter_id}/secrets/{combatant}")
    def secret_choice(
        encounter_id: int, combatant: str, body: SecretChoice, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id, "change the secrecy settings")
        table_audience.set_secret(table.store, encounter_id, combatant, body.secret)
        return secrets_view(table, who, encounter_id)


# --- forms ----------------------------------------------------------------------------------------


async def form_data(request: Request) -> Form:
    """A posted HTML form (urlencoded); anything else is refused with one sentence."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != FORM_TYPE:
        raise DataError(f"A form must be sent as {FORM_TYPE}, got {kind or 'no content type'!r}.")
    body = await request.body()
    if len(body) > FORM_LIMIT:
        raise DataError(f"A form may have at most {FORM_LIMIT} bytes, got {len(body)}.")
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise DataError("A form must be UTF-8 text.") from None


PostedForm = Annotated[Form, Depends(form_data)]


def text(form: Form, key: str, default: str = "") -> str:
    """A form field's text, trimmed (``default`` when absent)."""
    return form.get(key, [default])[0].strip()


def whole(form: Form, key: str, label: str, default: int | None = None) -> int | None:
    """A whole-number field; blank gives ``default``; anything else names the field and value."""
    raw = text(form, key)
    if raw == "":
        return default
    if not re.fullmatch(r"[-+]?\d+", raw):
        raise DataError(f"{label} must be a whole number, got {shown(raw)}.")
    if len(raw.lstrip("+-")) > NUMBER_DIGITS_MAX:
        raise DataError(f"{label} has more than {NUMBER_DIGITS_MAX} digits, got {shown(raw)}.")
    return int(raw)


def number(form: Form, key: str, label: str) -> float:
    """A number field (blank is 0)."""
    raw = text(form, key)
    if raw == "":
        return 0.0
    try:
        value = float(raw) if len(raw) <= NUMBER_DIGITS_MAX else float("nan")
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or abs(value) > POSITION_MAX:
        raise DataError(
            f"{label} must be a number of inches within ±{POSITION_MAX:g}, got {shown(raw)}."
        )
    return value


def position(form: Form) -> tuple[float, float, float]:
    """The position fields x, y, z in inches."""
    return (number(form, "x", "Position x"), number(form, "y", "Position y"),
            number(form, "z", "Position z"))  # fmt: skip


def secret_field(form: Form) -> bool | None:
    """The secrecy select: ``default`` (the encounter's setting), ``secret`` or ``open``."""
    raw = text(form, "secret", "default")
    choices = {"default": None, "secret": True, "open": False}
    if raw not in choices:
        raise DataError(f"Secret values must be default, secret or open, got {raw!r}.")
    return choices[raw]


def perched_field(form: Form) -> bool | None:
    """Above the ground: ``sheet`` (flying if it can fly), ``perched`` or ``flying`` (SA-93)."""
    raw = text(form, "above", "sheet")
    choices = {"sheet": None, "perched": True, "flying": False}
    if raw not in choices:
        raise DataError(f"Above the ground must be sheet, perched or flying, got {raw!r}.")
    return choices[raw]


def character_document(form: Form) -> dict[str, Any]:
    """A character JSON v1 document from the War character form (every field a Host sets)."""
    required = {a: whole(form, a, a.capitalize()) for a in ATTRIBUTES}
    for attribute, value in required.items():
        if value is None:
            raise DataError(f"{attribute.capitalize()} is required (a whole number, 0 or more).")
    overrides = {o: whole(form, o, o.upper() if o == "spp" else o.capitalize()) for o in OVERRIDES}
    return {
        "format": CHARACTER_FORMAT,
        "version": CHARACTER_VERSION,
        "name": text(form, "name"),
        "side": text(form, "side", Side.HOLY.value),
        "tier": whole(form, "tier", "Tier", 1),
        "magnitude": whole(form, "magnitude", "Magnitude", 1),
        "weapon": text(form, "weapon", "Staff"),
        "attributes": required,
        "wear": {k: whole(form, f"wear_{k.lower()}", f"{k} Wear", 0) for k in ("E", "R", "P")},
        "overrides": {k: v for k, v in overrides.items() if v is not None},
        "exertion": whole(form, "exertion", "Exertion", 0),
        "status_lowered": whole(form, "status_lowered", "Status lowered", 0),
        "defeated_by_epic": text(form, "defeated_by_epic") == "on",
    }


def imported(form: Form) -> dict[str, Any]:
    """The pasted (or file-read) JSON document of the import form."""
    raw = text(form, "document")
    if not raw:
        raise DataError("Paste a JSON document or choose a file to import.")
    data = json_document(raw, "The imported document")
    if not isinstance(data, dict):
        raise DataError(f"The imported document must be a JSON object, got {type(data).__name__}.")
    return data


def side_choice(form: Form) -> str | None:
    """The side chosen: a side present, or (the empty choice) the new side typed (W-26)."""
    side = text(form, "side")
    return side or text(form, "side_new") or None


def spec_from_form(game: str, form: Form) -> NewCharacter:
    """The character to add, from the form (``mode`` ``form``, ``sheet`` or ``import``)."""
    mode = text(form, "mode", "form")
    if mode not in ("form", "import", "sheet") or (mode == "sheet" and game == MAJESTY):
        raise DataError(f"The form's mode must be form or import, got {mode!r}.")
    common: dict[str, Any] = {"id": text(form, "id") or None, "position": position(form),
                              "secret": secret_field(form)}  # fmt: skip
    if game == MAJESTY:
        doc = imported(form) if mode == "import" else character_document(form)
        return build_spec(character=doc, **common)
    common["perched"] = perched_field(form)  # SA-93
    side = side_choice(form)
    if mode == "import":
        return build_spec(sheet=imported(form), side=side, **common)
    if mode == "sheet":
        return build_spec(sheet=sheet_from_form(form), side=side, **common)
    return build_spec(model=text(form, "model") or None, side=side, **common)


def build_spec(**values: Any) -> NewCharacter:
    """A :class:`NewCharacter`, with a bad id or side named in one sentence."""
    try:
        return NewCharacter(**values)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise DataError(f"Field {where}: {message} (got {shown(first.get('input'))}).") from None


# --- pages (templates/setup_*.html, which extend the pages' base.html) ---------------------------


def register_templates() -> None:
    """Give the set-up templates their CSRF field (W-11); they live beside the fight page's."""
    pages.ENV.globals["csrf_input"] = csrf_input
    pages.ENV.globals["game_names"] = GAMES


def csrf_input(csrf: str) -> Markup:
    """A form's hidden CSRF field (W-11); nothing when the page was not opened with a session."""
    if not csrf:
        return Markup("")
    return Markup('<input type="hidden" name="csrf" value="{}">').format(csrf)


register_templates()


@dataclass
class Rendered:
    """A page to render again with the values posted and the error (status 400)."""

    values: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    code: int = 400  # 413 or 429 for a limit (W-13)
    lists: dict[str, list[str]] = field(default_factory=dict)  # ticked boxes, as posted
    form: str = ""  # the id of the form the error is about (shown beside it)


def again_from(form: Form, error: TablesideError, which: str = "") -> Rendered:
    """The form posted, to show again with the error (400, or 413/429 for a limit)."""
    return Rendered(flat(form), str(error), refusal_code(error), dict(form), which)


def flat(form: Form) -> dict[str, str]:
    """The posted values to put back into the form (first of each)."""
    return {key: values[0] for key, values in form.items() if values}


def page_link(request: Request, path: str) -> str:
    """An absolute link on this server (what a Host copies and shares) at its public address."""
    return public_base(request) + path


def add_setup_pages(app: FastAPI, table: WebTable) -> None:
    """The Host's set-up pages and their forms (a browser's session cookie, W-11)."""

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> HTMLResponse:
        return pages.html("setup_home.html", name="", error=None, csrf=csrf_of(request))

    @app.post("/tables", response_class=HTMLResponse)
    def new_table(request: Request, form: PostedForm) -> HTMLResponse:
        name = text(form, "name")
        address = request.client.host if request.client else "unknown"
        try:
            _table_id, token = table.create_table(name, address)
        except TablesideError as error:
            csrf = csrf_of(request)
            again = pages.html("setup_home.html", name=name, error=str(error), csrf=csrf)
            return status(again, refusal_code(error))
        link = page_link(request, f"/join/{quote(token)}")
        return status(created_page(f"Table {name} created", link, HOST_WARNING), 201)

    @app.get("/tables/{table_id}", response_class=HTMLResponse)
    def table_page(
        request: Request,
        table_id: int,
        token: TokenQuery = None,
        authorization: Authorization = None,
    ) -> Response:
        if token:
            return enter(table, request, token, f"/tables/{table_id}")
        who = table.at_table(bearer(authorization), table_id)
        if not who.is_host:
            return pages.join_page(table.table_view(who))
        return render_table(table, who, csrf_of(request), Rendered())

    @app.post("/tables/{table_id}/encounters", response_class=HTMLResponse)
    def new_encounter(
        request: Request, table_id: int, form: PostedForm, authorization: Authorization = None
    ) -> Response:
        def create(who: Principal) -> Response:
            seed = whole(form, "seed", "Seed")
            game, name = text(form, "game"), text(form, "name")
            if game not in GAMES:
                raise DataError(f"Unknown game {game!r}; known games: {', '.join(GAMES)}.")
            info = table.create_encounter(who, table_id, game, name, seed)
            return see_other(f"/tables/{table_id}/encounters/{info.id}/setup")

        return table_form(
            table, request, authorization, table_id, create,
            lambda error: Rendered(flat(form), str(error), refusal_code(error)),
        )  # fmt: skip

    @app.post("/tables/{table_id}/players", response_class=HTMLResponse)
    def new_player(
        request: Request, table_id: int, form: PostedForm, authorization: Authorization = None
    ) -> Response:
        def add(who: Principal) -> Response:
            characters = seat_characters(form)
            client = request.client.host if request.client else "unknown"
            seat, seat_token = table.add_player(
                who, table_id, text(form, "name"), characters, client
            )
            return join_link(request, table_id, f"Join link for {seat.name}", seat_token)

        def again(error: TablesideError) -> Rendered:
            values = {**flat(form), "player": text(form, "name")}
            return Rendered(values, str(error), refusal_code(error))

        return table_form(table, request, authorization, table_id, add, again)

    @app.post("/tables/{table_id}/players/{seat_id}/remove", response_class=HTMLResponse)
    def remove_player(
        request: Request,
        table_id: int,
        seat_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def remove(who: Principal) -> Response:
            table.remove_player(who, table_id, seat_id)
            return see_other(f"/tables/{table_id}")

        return table_form(table, request, authorization, table_id, remove, confirm=(
            form, "Tick the box to confirm removing this player's seat."))  # fmt: skip

    @app.post("/tables/{table_id}/players/{seat_id}/token", response_class=HTMLResponse)
    def rotate_player(
        request: Request,
        table_id: int,
        seat_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def rotate(who: Principal) -> Response:
            seat, token = table.rotate_player(who, table_id, seat_id)
            return join_link(request, table_id, f"New join link for {seat.name}", token)

        return table_form(table, request, authorization, table_id, rotate, confirm=(
            form, "Tick the box to confirm the player's new join link."))  # fmt: skip

    @app.post("/tables/{table_id}/host-token", response_class=HTMLResponse)
    def rotate_host(
        request: Request, table_id: int, form: PostedForm, authorization: Authorization = None
    ) -> Response:
        def rotate(who: Principal) -> Response:
            token = table.rotate_host(who, table_id)
            _who, session = table.start_session(token)  # this browser stays the Host
            link = page_link(request, f"/join/{quote(token)}")
            back = f"/tables/{table_id}"
            page = created_page("New Host link", link, HOST_WARNING, back, "Back to the table")
            set_session(page, request, session)
            return status(page, 201)

        return table_form(table, request, authorization, table_id, rotate, confirm=(
            form, "Tick the box to confirm the new Host link."))  # fmt: skip

    @app.get("/tables/{table_id}/encounters/{encounter_id}/setup", response_class=HTMLResponse)
    def encounter_setup(
        request: Request,
        table_id: int,
        encounter_id: int,
        token: TokenQuery = None,
        authorization: Authorization = None,
    ) -> Response:
        if token:
            path = f"/tables/{table_id}/encounters/{encounter_id}/setup"
            return enter(table, request, token, path)
        who = host_at_encounter(table, bearer(authorization), table_id, encounter_id)
        return render_encounter(table, who, encounter_id, csrf_of(request), Rendered())

    @app.post("/tables/{table_id}/encounters/{encounter_id}/characters")
    def new_character(
        request: Request,
        table_id: int,
        encounter_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def add(who: Principal) -> None:
            add_character(table, who, encounter_id, spec_from_form(
                table.store.encounter(encounter_id).game, form))  # fmt: skip

        def again(error: TablesideError) -> Rendered:
            which = {"sheet": "sheet-form", "import": "import-form"}.get(text(form, "mode"), "")
            return again_from(form, error, which or "character-form")

        return encounter_form(table, request, authorization, (table_id, encounter_id), add, again)

    @app.post("/tables/{table_id}/encounters/{encounter_id}/secrets")
    def set_secrets(
        request: Request,
        table_id: int,
        encounter_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def choose(_who: Principal) -> None:
            if text(form, "setting") == "npcs":
                on = text(form, "npcs_secret") == "on"
                table_audience.set_npcs_secret(table.store, encounter_id, on)
            else:
                choice = secret_field(form)
                table_audience.set_secret(
                    table.store, encounter_id, text(form, "combatant"), choice
                )

        return encounter_form(
            table, request, authorization, (table_id, encounter_id), choose,
            lambda error: Rendered({}, str(error)),
        )  # fmt: skip


def encounter_form(
    table: WebTable,
    request: Request,
    authorization: str | None,
    at: tuple[int, int],
    act: Callable[[Principal], object],
    again: Callable[[TablesideError], Rendered],
) -> Response:
    """A set-up form the Host posted for encounter ``at`` (table id, encounter id).

    ``act`` runs as the Host, then the answer goes back to the set-up page (303); a refusal
    shows the page again with ``again(error)`` (400).
    """
    table_id, encounter_id = at
    who = host_at_encounter(table, bearer(authorization), table_id, encounter_id)
    try:
        act(who)
    except TablesideError as error:
        return render_encounter(table, who, encounter_id, csrf_of(request), again(error))
    return see_other(f"/tables/{table_id}/encounters/{encounter_id}/setup")


def table_form(
    table: WebTable,
    request: Request,
    authorization: str | None,
    table_id: int,
    act: Callable[[Principal], Response],
    again: Callable[[TablesideError], Rendered] | None = None,
    confirm: tuple[Form, str] | None = None,
) -> Response:
    """A form the Host posted on the table page: ``act`` runs as the Host and answers.

    With ``again``, a refusal shows the table page again with ``again(error)`` (its code);
    with ``confirm`` (the form and a sentence), a form whose confirmation box is not ticked
    shows the page again with that sentence and does nothing.
    """
    who = host_at(table, bearer(authorization), table_id)
    if confirm is not None and not confirmed(confirm[0]):
        return render_table(table, who, csrf_of(request), Rendered({}, confirm[1]))
    try:
        return act(who)
    except TablesideError as error:
        if again is None:
            raise
        return render_table(table, who, csrf_of(request), again(error))


def join_link(request: Request, table_id: int, title: str, token: str) -> Response:
    """The page showing a player's join link once (201), with the way back to the table."""
    link = page_link(request, f"/join/{quote(token)}")
    back = f"/tables/{table_id}"
    return status(created_page(title, link, PLAYER_WARNING, back, "Back to the table"), 201)


def confirmed(form: Form) -> bool:
    """Whether the form's confirmation box (``confirm``) is ticked."""
    return text(form, "confirm") == "on"


HOST_WARNING = (
    "This is the Host's link, shown only this once: keep it secret, since whoever opens it is "
    "the Host of this table. Bookmark it now."
)
PLAYER_WARNING = (
    "Share this link with this player only, shown only this once: whoever opens it plays "
    "this seat's characters."
)


def refusal_code(error: TablesideError) -> int:
    """A form's refusal: 400, or 413/429 for a limit (W-13)."""
    return error.status if isinstance(error, LimitError) else 400


def status(response: HTMLResponse, code: int) -> HTMLResponse:
    """The page with another status code."""
    response.status_code = code
    return response


def see_other(path: str) -> RedirectResponse:
    """303 to a Host page after a form succeeded (no token in it: the cookie is the session)."""
    return RedirectResponse(path, status_code=303)


def created_page(
    title: str, link: str, warning: str, back: str | None = None, back_text: str = "Open it"
) -> HTMLResponse:
    """The page that shows a new secret link once, with a Copy button and its QR code (W-28)."""
    return pages.html("setup_created.html", scripts=("setup.js",), title=title,
                      link=link, warning=warning, back=back or link, back_text=back_text,
                      reach=reach_warning(link),
                      qr=qr_svg(link, f"QR code of the link: {title}"))  # fmt: skip


def seat_characters(form: Form) -> tuple[str, ...]:
    """The characters a new seat plays: the boxes ticked and the other ids typed."""
    ticked = [c.strip() for c in form.get("characters", []) if c.strip()]
    typed = [c.strip() for c in text(form, "others").split(",") if c.strip()]
    chosen = tuple(dict.fromkeys(ticked + typed))
    for c in chosen:
        if len(c) > 40 or not re.match(ID_PATTERN, c):
            raise DataError(
                f"A character id is 1 to 40 letters, digits, '_', '.' or '-', got {c!r}."
            )
    return chosen


def render_table(table: WebTable, who: Principal, csrf: str, again: Rendered) -> HTMLResponse:
    """The Host's table page (400 with the error when a form is shown again)."""
    view = table.table_view(who)
    ids = [c for e in view["encounters"] for c in combatant_ids(table.state(e["id"], who))]
    values = {"game": MAJESTY, "name": "", "seed": "", "player": "", "others": "",
              **again.values}  # fmt: skip
    online = {s.id: table.connected(who.table_id, s) for s in tables.seats(table.store, view["id"])}
    page = pages.html("setup_table.html", scripts=("setup.js",), view=view, csrf=csrf,
                      games=GAMES, values=values, combatants=list(dict.fromkeys(ids)),
                      error=again.error, error_form=again.form, online=online,
                      host_online=table.connected(who.table_id, None))  # fmt: skip
    return status(page, again.code) if again.error else page


def render_encounter(
    table: WebTable, who: Principal, encounter_id: int, csrf: str, again: Rendered
) -> HTMLResponse:
    """The encounter's set-up page (400 with the error when a form is shown again)."""
    info = table.store.encounter(encounter_id)
    view = table.table_view(who)
    state = table.state(encounter_id, who)
    page = pages.html(
        "setup_encounter.html",
        scripts=("setup.js", "balance.js"),
        view=view,
        info=info,
        started=started(state),
        sides=sides_of(state),
        sheet=sheet_choices() if info.game == STRIFE else None,
        lists=again.lists,
        error_form=again.form,
        balance_runs=PAGE_RUNS.get(info.game, 10_000),
        csrf=csrf,
        base=f"/tables/{view['id']}/encounters/{encounter_id}",
        games=GAMES,
        secrecy=secrets_view(table, who, encounter_id),
        choice=choice_name,
        values=again.values,
        error=again.error,
        attributes=ATTRIBUTES,
        overrides=OVERRIDES,
        weapons=[w.name for w in majesty_catalog().weapons.values()],
        models=[c.name for c in strife_catalog().combatants.values()],
    )
    return status(page, again.code) if again.error else page


def started(state: dict[str, Any]) -> bool:
    """Whether the fight (Realm of Strife) has started: its models can no longer be removed."""
    return int(state.get("round", -1)) >= 0 if "models" in state else False


PAGE_RUNS = {MAJESTY: 10_000, STRIFE: 10_000}  # the Balance panel's most runs (F-7), fewer once
# each side is known within 1.5 points (F-53); an encounter the fast engines do not cover gets
# 200 (F-24: the full engine plays 30 to 80 runs a second)


def choice_name(row: dict[str, Any]) -> str:
    """The Host's choice for a combatant as the select shows it."""
    return {None: "default", True: "secret", False: "open"}[row["choice"]]


def add_setup(app: FastAPI, table: WebTable) -> None:
    """Register the set-up API and pages on the application."""
    add_setup_api(app, table)
    add_setup_pages(app, table)
