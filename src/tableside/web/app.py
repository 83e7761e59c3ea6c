"""The HTTP face of the web table: a thin FastAPI layer over :class:`WebTable`.

The busiest answers (commands, undo, redo, state, log) are plain JSON already, so they are sent
as ``JSONResponse`` directly: FastAPI's validation and encoding of an untyped ``dict`` cost about
0.45 ms per command (measured), for nothing.

Every refusal is JSON ``{"error": "one sentence"}``: 400 bad input (naming the value), 401 no or
unknown token, 403 not allowed for this role or character (or a browser's request without its
CSRF proof), 404 no such table, seat or encounter, 409 a stale revision, 422 a request body of the
wrong shape, 413/429 a limit, 503 a database that cannot write (:mod:`tableside.web.guards`, W-13
and W-15). Nothing is written on a refusal.

Browsers present a session cookie instead of a token (W-11, :mod:`tableside.web.sessions`); the
Host revokes and rotates tokens here too (W-12).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from fastapi.telemetry import TelemetryConfig
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Receive, Scope, Send

from tableside import errors
from tableside.encounter.log import Command
from tableside.limits import DICE_TYPED_MAX, SEED_MAX, SEED_MIN, DieFace, Flag, Label
from tableside.simulate import disk_cache
from tableside.store import Store, UnknownEncounterError, tables
from tableside.store import chat as stored_chat
from tableside.store.tables import UnknownSeatError, UnknownTableError
from tableside.web import assets, collector, contract, guards, log_page, play
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization, TokenQuery, bearer, who_at
from tableside.web.auth import ForbiddenError, Principal, UnauthorisedError
from tableside.web.balance import add_balance, warm_wanted
from tableside.web.characters import add_characters
from tableside.web.chat import ChatRoom, add_chat, chat_feed
from tableside.web.decisions import FightWaitingError, NoSuchDecisionError
from tableside.web.direct import on_loop as run_on_loop
from tableside.web.even import add_even
from tableside.web.hub import end_streams_on_stop, record_stream, watch
from tableside.web.map import add_map
from tableside.web.notify import Listener
from tableside.web.pages import encounter_page
from tableside.web.sessions import SessionMiddleware, csrf_of, enter
from tableside.web.setup import add_setup
from tableside.web.setup_roster import add_roster
from tableside.web.setup_seats import add_seats
from tableside.web.stage import add_stage, with_map
from tableside.web.strict import StrictRoute, strict_args
from tableside.web.table import WebTable
from tableside.web.table_live import sweep_deadlines

CombatantId = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.\-]+$")]
Name = Label
SEED = Field(default=None, ge=SEED_MIN, le=SEED_MAX)
REVISION = Field(default=None, ge=0, le=SEED_MAX)
LISTEN_POLL = 10.0
LOG = logging.getLogger(__name__)
GZIP_MINIMUM = 1024  # bytes: a smaller answer is sent as it is (W-70)
GZIP_LEVEL = 6  # zlib's default: most of the saving at a fraction of level 9's CPU (W-70)
NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
"""FastAPI's OpenTelemetry bridge off: Tableside sets no provider, yet FastAPI asked the global
ones on every request whether one was set (issue 26)."""
WARM_AFTER = 1.0  # seconds after the start before the odds tables are built (F-22)
SWEEP = 0.5  # seconds between the deadline sweeper's looks at waiting encounters (D-5)


class Body(BaseModel):
    """A request body: unknown keys are refused, numbers are JSON numbers (W-50)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NewTable(Body):
    """POST /api/tables."""

    name: Name


class NewEncounter(Body):
    """POST /api/tables/{tid}/encounters (no seed: a random one, recorded)."""

    game: Literal["majesty-war", "strife-combat"]
    name: Name
    seed: int | None = SEED


class NewPlayer(Body):
    """POST /api/tables/{tid}/players."""

    name: Name
    characters: list[CombatantId] = Field(default_factory=list, max_length=40)


class CommandBody(Body):
    """POST /api/encounters/{eid}/commands: a command, physical dice, revision, Host-only."""

    kind: str = Field(min_length=1, max_length=40)
    args: dict[str, Any] = Field(default_factory=dict)
    dice: list[DieFace] | None = Field(default=None, max_length=DICE_TYPED_MAX)
    revision: int | None = REVISION
    exact_revision: Flag = False
    hidden: Flag = False


class PlayBody(Body):
    """POST …/odds and …/preview: a command to weigh or try (preview: with physical dice)."""

    kind: str = Field(min_length=1, max_length=40)
    args: dict[str, Any] = Field(default_factory=dict)
    dice: list[DieFace] | None = Field(default=None, max_length=DICE_TYPED_MAX)


ANSWERS_MAX = 16  # the questions of one waiting command answered in one submission


class DecideBody(Body):
    """POST /api/encounters/{eid}/decisions/{id}: the choice (one of the options' values)."""

    choice: Any


class DecideAllBody(Body):
    """POST /api/encounters/{eid}/decisions: several answers of the waiting command at once."""

    answers: dict[Annotated[str, Field(min_length=1, max_length=40)], Any] = Field(
        min_length=1, max_length=ANSWERS_MAX
    )


class SettingsBody(Body):
    """PUT /api/encounters/{eid}/settings: the decision settings to change (D-4, D-5)."""

    decision_timeout: int | None = Field(default=None, ge=5, le=3600)
    npcs_decide: Literal["ask", "auto"] | None = None
    trust_modifiers: Flag | None = None
    hidden_asks: Literal["player", "host"] | None = None


class StepBody(Body):
    """POST …/undo and …/redo (a revision given is always exact, W-14)."""

    revision: int | None = REVISION


def answered(
    table: WebTable, who: Principal, encounter_id: int, act: Callable[[], dict[str, Any]]
) -> JSONResponse:
    """A command's (or answer's) JSON: 202 while a decision waits, else 200.

    A refusal naming a combatant the player does not see names it as unseen (W-66).
    """
    with table.concealing(who, encounter_id):
        answer = act()
    return JSONResponse(answer, status_code=202 if "pending" in answer else 200)


def refusal(status: int) -> Callable[[Request, Exception], JSONResponse]:
    """An exception handler answering ``{"error": str(error)}`` with ``status``."""

    def handle(_request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": guards.shorten(str(error))}, status_code=status)

    return handle


def body_sentence(error: RequestValidationError) -> str:
    """One sentence for a request that does not fit its model: the field, problem and value."""
    first = error.errors()[0]
    if first.get("type") == "json_invalid":
        return "The request body is not valid JSON."
    loc = [str(part) for part in first.get("loc", ()) if part != "body"]
    where = f"field {'.'.join(loc)}" if loc else "the request body"
    value = first.get("input")
    plain = isinstance(value, dict | list) or value is None
    shown = "" if plain else f" (got {guards.shown(value)})"
    return guards.shorten(f"Bad request: {where}: {first.get('msg', 'invalid')}{shown}.")


def bad_body(_request: Request, error: Exception) -> JSONResponse:
    """422 with one sentence."""
    assert isinstance(error, RequestValidationError)
    return JSONResponse({"error": body_sentence(error)}, status_code=422)


def warm_in_background(then: Callable[[], Any] | None = None) -> threading.Thread:
    """Build the exact odds' shared tables on a thread of their own (F-22), then ``then()``.

    The thread begins :data:`WARM_AFTER` seconds after the server has started, so it never
    slows the start itself. A failure is logged, never raised: the first odds request then
    builds what it needs. ``then`` (a served app's simulator warm-up, F-25) is waited for, so
    the thread ends when every warming is over.
    """

    def warm() -> None:
        try:
            disk_cache.warm_odds()
        except Exception:  # pragma: no cover - a broken cache folder, say
            LOG.exception("warming the odds tables failed")
        if then is not None:
            then()

    thread = threading.Timer(WARM_AFTER, warm)
    thread.name, thread.daemon = "tableside-warm-odds", True
    thread.start()
    return thread


def create_app(
    store_url: str | None = None,
    poll: float = 1.0,
    listen_poll: float = LISTEN_POLL,
    limits: guards.Limits | None = None,
    sweep_every: float = SWEEP,
    warm: bool = False,
    apart: bool = False,
    on_loop: bool = True,
    collect_every: float | None = None,
) -> FastAPI:
    """The web table on the store at ``store_url`` (see :meth:`Store.open` for the default).

    On PostgreSQL the application, while it runs (its lifespan), LISTENs for every process's
    appends (:class:`~tableside.web.notify.Listener`) and wakes its streams at once. On both,
    one task (:func:`~tableside.web.hub.watch`) reads the revisions of the encounters with open
    streams every ``poll`` seconds and wakes those that moved.

    Args:
        store_url: An SQLAlchemy URL; None picks it from the environment as the CLI does.
        poll: Seconds between the reads of the store for other processes' records on SQLite,
            and on PostgreSQL while the listener is not connected.
        listen_poll: The same while the PostgreSQL listener is connected (a fallback only).
        limits: The limits (W-13); None reads them from the environment
            (:meth:`~tableside.web.guards.Limits.from_env`).
        sweep_every: Seconds between the deadline sweeper's looks (D-5,
            :func:`~tableside.web.table_live.sweep_deadlines`).
        warm: Warm the simulator after the start, on the balance thread, unless
            ``TABLESIDE_WARM=off`` (F-25; ``tableside serve`` asks it, tests' apps do not).
        apart: Play balances in a process of their own, so that this one never loads numba
            nor the kernels (W-76; ``tableside serve`` asks it, tests' apps do not).
        on_loop: Call the play's hot endpoints on the event loop (SV-15).
        collect_every: Seconds between the collector's full walks (SV-14; ``serve`` asks it).
    """
    limits = guards.Limits.from_env() if limits is None else limits
    disk_cache.install()  # exact laws computed once are kept on disk (F-22, TABLESIDE_CACHE)
    table = WebTable(Store.open(store_url), limits)
    room = ChatRoom(
        table.store,
        table.notifier.publish,
        rate=guards.RateWindow(limits.chat_per_minute, whose=guards.HOLDER),
        table_rate=guards.RateWindow(limits.table_chat_per_minute, whose="a table"),
    )
    listener: list[Listener] = []

    def stream_poll() -> float:
        return listen_poll if listener and listener[0].connected else poll

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        balances = app.state.balances
        simulator = (lambda: balances.warm().result()) if warm and warm_wanted() else None
        if simulator is not None:
            balances.expect_warm()  # from the start, balances answer without compiling (F-52)
        app.state.warming = warm_in_background(simulator)
        if table.store.backend == "postgresql":
            listener.append(Listener(table.store, table.notifier))
            app.state.listener = listener[0]
            await asyncio.to_thread(listener[0].start)
        tasks = [
            watch(table.notifier, lambda ids: moved_on(table.store, ids), stream_poll),
            sweep_deadlines(table, sweep_every),
            *([] if collect_every is None else [collector.collect_periodically(collect_every)]),
        ]
        background = [asyncio.create_task(task) for task in tasks]
        restore_signals = end_streams_on_stop(table.notifier)
        try:
            yield
        finally:
            restore_signals()
            for task in background:
                task.cancel()
            for running in listener:
                await asyncio.to_thread(running.stop)
            balances.close()  # the balance process, if any (W-76)
            table.store.close()

    app = FastAPI(
        title="Tableside web table",
        lifespan=lifespan,
        dependencies=[Depends(guards.path_ids)],
        telemetry=NO_TELEMETRY,
        default_response_class=JSONResponse,  # orjson (SV-13)
    )
    app.router.route_class = StrictRoute  # every JSON body parsed strictly (W-50)
    app.state.table = table
    app.state.on_loop = on_loop
    app.state.chat = room
    handlers: list[tuple[type[Exception], int]] = [
        (errors.TablesideError, 400),
        (errors.StaleRevisionError, 409),
        (UnknownEncounterError, 404),
        (UnknownTableError, 404),
        (UnknownSeatError, 404),
        (UnauthorisedError, 401),
        (ForbiddenError, 403),
        (NoSuchDecisionError, 404),
        (FightWaitingError, 409),
    ]
    for kind, status in handlers:
        app.add_exception_handler(kind, refusal(status))
    app.add_exception_handler(RequestValidationError, bad_body)
    app.add_exception_handler(HTTPException, guards.http_refusal)
    app.add_exception_handler(guards.LimitError, guards.limit_refusal)
    for failure in guards.database_errors():
        app.add_exception_handler(failure, guards.database_failure)
    app.add_middleware(guards.BodyLimit, limit=limits.max_body_bytes)
    app.add_middleware(guards.LastResort)
    add_api(app, table)
    add_play(app, table)
    add_map(app, table)
    add_stream(app, table, stream_poll, room)
    add_chat(app, room, table.at_encounter)
    add_stage(app, table)
    add_pages(app, table)
    assets.add_static(app)  # the pages' scripts and styles (W-73)
    add_setup(app, table)
    add_roster(app, table)
    add_balance(app, table, apart)
    add_even(app, table)  # make it even (F-54)
    add_seats(app, table)
    add_characters(app, table)
    # pages and answers of 1 KB or more compressed for a client that accepts it (W-70); live
    # streams (text/event-stream) never are
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM, compresslevel=GZIP_LEVEL)
    app.add_middleware(SessionMiddleware)
    app.add_middleware(guards.PlainHeaders)
    contract.install(app)  # the OpenAPI document as the contract (W-51)
    return app


def served_app() -> FastAPI:
    """The app ``tableside serve --workers N`` builds in each process (F-25, SV-14)."""
    app = create_app(warm=True, apart=True, collect_every=collector.COLLECT_EVERY)
    collector.tune()
    return app


def add_api(app: FastAPI, table: WebTable) -> None:
    """The JSON API."""

    @app.post("/api/tables", status_code=201)
    def create_table(request: Request, body: NewTable) -> dict[str, Any]:
        table_id, token = table.create_table(body.name, client_address(request))
        link = f"/join/{token}"
        return {"id": table_id, "name": body.name, "host_token": token, "join_link": link}

    @app.post("/api/tables/{table_id}/host-token")
    def rotate_host(table_id: int, authorization: Authorization = None) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        token = table.rotate_host(who, table_id)
        return {"id": table_id, "host_token": token, "join_link": f"/join/{token}"}

    @app.delete("/api/tables/{table_id}/players/{seat_id}")
    def remove_player(
        table_id: int, seat_id: int, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        seat = table.remove_player(who, table_id, seat_id)
        return {"id": seat.id, "name": seat.name, "characters": list(seat.characters),
                "removed": True}  # fmt: skip

    @app.post("/api/tables/{table_id}/players/{seat_id}/token")
    def rotate_player(
        table_id: int, seat_id: int, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        seat, token = table.rotate_player(who, table_id, seat_id)
        return {"id": seat.id, "name": seat.name, "characters": list(seat.characters),
                "token": token, "join_link": f"/join/{token}"}  # fmt: skip

    @app.get("/api/tables/{table_id}")
    def show_table(table_id: int, authorization: Authorization = None) -> dict[str, Any]:
        return table.table_view(table.at_table(bearer(authorization), table_id))

    @app.post("/api/tables/{table_id}/encounters", status_code=201)
    def create_encounter(
        table_id: int, body: NewEncounter, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        info = table.create_encounter(who, table_id, body.game, body.name, body.seed)
        page = f"/tables/{table_id}/encounters/{info.id}"
        return {"id": info.id, "name": info.name, "game": info.game, "seed": info.seed,
                "revision": info.revision, "page": page}  # fmt: skip

    @app.post("/api/tables/{table_id}/players", status_code=201)
    def add_player(
        request: Request, table_id: int, body: NewPlayer, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        seat, token = table.add_player(
            who, table_id, body.name, tuple(body.characters), client_address(request)
        )
        return {"id": seat.id, "name": seat.name, "characters": list(seat.characters),
                "token": token, "join_link": f"/join/{token}"}  # fmt: skip

    @app.get("/api/encounters/{encounter_id}")
    @run_on_loop
    def show_encounter(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        who, info = table.at_encounter(bearer(authorization), encounter_id)
        return JSONResponse({"id": info.id, "name": info.name, "game": info.game,
                             "table": who.table_id, "role": who.role,
                             "state": table.state(encounter_id, who)})  # fmt: skip

    @app.get("/api/encounters/{encounter_id}/log")
    def show_log(
        encounter_id: int,
        before: Annotated[int | None, Query(ge=1, le=guards.ID_MAX)] = None,
        limit: Annotated[int | None, Query(ge=1, le=log_page.PAGE_MOST)] = None,
        authorization: Authorization = None,
    ) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        records = table.log(who, encounter_id)
        if before is None and limit is None:
            return JSONResponse({"records": records, "more": False})
        # a page of the same redacted log (W-74): the last ``limit`` records before ``before``
        found, more = log_page.last_records(records, before, limit or log_page.BOOT_RECORDS)
        return JSONResponse({"records": found, "more": more})

    @app.post("/api/encounters/{encounter_id}/commands")
    @run_on_loop
    def run_command(
        request: Request, encounter_id: int, body: CommandBody, authorization: Authorization = None
    ) -> JSONResponse:
        who, info = table.at_encounter(bearer(authorization), encounter_id)
        table.rates.command(who, client_address(request))
        strict_args(info.game, body.kind, body.args)
        dice = None if body.dice is None else tuple(body.dice)
        command = Command(body.kind, body.args, dice)
        hidden, exact = body.hidden, body.exact_revision
        return answered(table, who, encounter_id,
                        lambda: table.execute(who, encounter_id, command, body.revision, hidden,
                                              exact))  # fmt: skip

    @app.post("/api/encounters/{encounter_id}/npc_turn")
    @run_on_loop
    def npc_turn(
        request: Request, encounter_id: int, authorization: Authorization = None
    ) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        table.rates.command(who, client_address(request))
        return answered(table, who, encounter_id, lambda: table.npc_turn(who, encounter_id))

    @app.get("/api/encounters/{encounter_id}/decisions")
    @run_on_loop
    def decisions(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        return JSONResponse(table.decisions(who, encounter_id))

    @app.post("/api/encounters/{encounter_id}/decisions")
    @run_on_loop
    def decide_all(
        encounter_id: int, body: DecideAllBody, authorization: Authorization = None
    ) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        answers = dict(body.answers)
        return answered(table, who, encounter_id,
                        lambda: table.answer_decisions(who, encounter_id, answers))  # fmt: skip

    @app.post("/api/encounters/{encounter_id}/decisions/{decision}")
    @run_on_loop
    def decide(
        request: Request,
        encounter_id: int,
        decision: Annotated[str, Path(min_length=1, max_length=40)],
        body: DecideBody,
        authorization: Authorization = None,
    ) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        table.rates.command(who, client_address(request))
        choice = body.choice
        answer = lambda: table.answer_decision(who, encounter_id, decision, choice)  # noqa: E731
        return answered(table, who, encounter_id, answer)

    @app.get("/api/encounters/{encounter_id}/settings")
    def show_settings(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        return JSONResponse(table.settings(who, encounter_id))

    @app.put("/api/encounters/{encounter_id}/settings")
    def change_settings(
        encounter_id: int, body: SettingsBody, authorization: Authorization = None
    ) -> JSONResponse:
        who = who_at(table, authorization, encounter_id)
        changes = body.model_dump(exclude_unset=True)
        for name in ("npcs_decide", "trust_modifiers", "hidden_asks"):
            if name in changes and changes[name] is None:
                raise errors.DataError(f"{name} cannot be null.")
        return JSONResponse(table.set_settings(who, encounter_id, changes))

    def step_back(
        request: Request, encounter_id: int, body: StepBody | None, authorization: str | None,
        redo: bool,
    ) -> JSONResponse:  # fmt: skip
        who = who_at(table, authorization, encounter_id)
        table.rates.command(who, client_address(request))
        revision = body.revision if body else None
        return JSONResponse(table.step_back(who, encounter_id, revision, redo=redo))

    @app.post("/api/encounters/{encounter_id}/undo")
    def undo(
        request: Request,
        encounter_id: int,
        body: StepBody | None = None,
        authorization: Authorization = None,
    ) -> JSONResponse:
        return step_back(request, encounter_id, body, authorization, redo=False)

    @app.post("/api/encounters/{encounter_id}/redo")
    def redo(
        request: Request,
        encounter_id: int,
        body: StepBody | None = None,
        authorization: Authorization = None,
    ) -> JSONResponse:
        return step_back(request, encounter_id, body, authorization, redo=True)


def moved_on(store: Store, ids: Collection[int]) -> dict[int, tuple[int, int]]:
    """Each encounter's revision and newest chat message (what wakes its streams, W-30)."""
    revisions = tables.revisions(store, ids)
    chats = stored_chat.last_ids(store, ids) if revisions else {}
    return {e: (r, chats.get(e, 0)) for e, r in revisions.items()}


def add_stream(app: FastAPI, table: WebTable, poll: Callable[[], float], room: ChatRoom) -> None:
    """The live log and chat: Server-Sent Events (a browser's EventSource sends its cookie)."""

    @app.get("/api/encounters/{encounter_id}/stream")
    def stream(
        request: Request,
        encounter_id: int,
        after: Annotated[int, Query(ge=0, le=guards.ID_MAX)] = 0,
        last_event_id: Annotated[int | None, Header(ge=0, le=guards.ID_MAX)] = None,
        authorization: Authorization = None,
    ) -> StreamingResponse:
        given = bearer(authorization)
        who, _info = table.at_encounter(given, encounter_id)
        start = after if last_event_id is None else last_event_id
        give_back = table.streams.take(
            guards.holder_key(who), client_address(request), who.table_id, who.is_host
        )
        events = record_stream(
            table.notifier,
            encounter_id,
            lambda rev: table.visible_after(who, encounter_id, rev),
            start,
            poll,
            alive=lambda: table.holds(given, who),
            extra=with_map(table, encounter_id, chat_feed(room, who, encounter_id)),
        )
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return CountedStream(give_back, events, media_type="text/event-stream", headers=headers)


class CountedStream(StreamingResponse):
    """A live stream that gives its slot back (W-13) however it ends."""

    def __init__(self, give_back: Callable[[], None], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.give_back = give_back

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream until the client leaves or the server stops; then free the slot."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.give_back()


def client_address(request: Request) -> str:
    """The address a request came from (the proxy's, behind one), for the rates of W-13."""
    return request.client.host if request.client else "unknown"


def add_pages(app: FastAPI, table: WebTable) -> None:
    """The server-rendered pages."""

    @app.get("/join/{token}")
    def join(request: Request, token: str) -> Response:
        return enter(table, request, token)

    @app.get("/tables/{table_id}/encounters/{encounter_id}", response_class=HTMLResponse)
    def page(
        request: Request,
        table_id: int,
        encounter_id: int,
        token: TokenQuery = None,
        authorization: Authorization = None,
    ) -> Response:
        if token:
            table.at_table(token, table_id)  # another table's token starts no session here
            return enter(table, request, token, f"/tables/{table_id}/encounters/{encounter_id}")
        who, info = table.at_encounter(bearer(authorization), encounter_id)
        if who.table_id != table_id:
            raise ForbiddenError(f"This token is not for table {table_id}.")
        view = table.table_view(who)
        records = table.log(who, encounter_id)
        state = table.state(encounter_id, who)
        return encounter_page(view, info, state, records, csrf_of(request))


def add_play(app: FastAPI, table: WebTable) -> None:
    """The play form's endpoints: odds, previews on a copy, the pickers' options (web/play.py)."""

    @app.post("/api/encounters/{encounter_id}/odds")
    def odds(
        encounter_id: int, body: PlayBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        who, info = table.at_encounter(bearer(authorization), encounter_id)
        strict_args(info.game, body.kind, body.args)
        with table.concealing(who, encounter_id):  # W-66
            table.refuse_secret_odds(who, encounter_id, body.args)
            return play.odds(table, who, encounter_id, body.kind, body.args)

    @app.post("/api/encounters/{encounter_id}/preview")
    def preview(
        encounter_id: int, body: PlayBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        who, info = table.at_encounter(bearer(authorization), encounter_id)
        strict_args(info.game, body.kind, body.args)
        dice = None if body.dice is None else tuple(body.dice)
        with table.concealing(who, encounter_id):  # W-66
            return play.preview(table, who, encounter_id, Command(body.kind, body.args, dice))

    @app.get("/api/encounters/{encounter_id}/options")
    def options(encounter_id: int, authorization: Authorization = None) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id)
        return play.options(table, who, encounter_id)
