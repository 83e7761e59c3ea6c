"""A route's endpoint called directly when its request is plain (issue 26, SV-10).

FastAPI solves every request's parameters through a general machine (sub-dependencies, query,
cookie and header groups, parameter models, forms, embedded bodies, a sub-response): on the
hot routes (a command, an answer, a state read) that cost about a sixth of the event loop's
work, for a route that takes only its path ids, the ``Authorization`` header, a JSON body and
the request. :func:`direct_handler` builds, for such a route, a handler that takes each
parameter the way FastAPI does (the same fields' own validation, the same header and path
values, the same strict JSON body) and calls the endpoint on the threadpool as FastAPI does.

Whatever is not plain goes to FastAPI's own handler, untouched: a body that is not exactly
``application/json``, an empty one, a body that cannot be read or parsed, any parameter its
field refuses (so every refusal, its status, its text and the order of its errors stay
FastAPI's), and FastAPI's telemetry when it is on. A route is taken directly only if it has
no dependency left, no query, cookie, form or embedded body parameter, no parameter model, no
background tasks, sub-response or security scopes, a sync endpoint that returns a Response.

A route whose endpoint is marked :func:`on_loop` (the play's hot routes: a state read, a
command, the decisions and their answers) is called on the event loop itself, not the
threadpool, when the application allows it (``app.state.on_loop``, SV-15): its work is a few
milliseconds of Python that holds the GIL anyway, and its store I/O is a SQLite file's or a
few round trips to PostgreSQL (SV-20 … SV-22), so the threadpool's hand-off and the GIL's
passing between threads cost more than they overlap (measured on both backends).
Taken by FastAPI's own handler (a request that is not plain), the endpoint runs on the
threadpool as before.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from copy import deepcopy
from typing import Any, get_args

from fastapi import params
from fastapi._compat.shared import field_annotation_is_sequence, lenient_issubclass
from fastapi.dependencies.models import (
    Dependant,
    _is_async_gen_callable,
    _is_coroutine_callable,
    _is_gen_callable,
)
from fastapi.dependencies.utils import (
    _get_param_aliases,
    _get_param_model,
    get_typed_return_annotation,
)
from fastapi.encoders import jsonable_encoder
from fastapi.telemetry import get_telemetry_data
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from tableside.web.answer_json import JSONResponse

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
JSON_TYPE = "application/json"
"""The one content type read here; any other (with a charset too) goes to FastAPI's handler."""


Endpoint = Callable[..., Any]
ON_LOOP = "tableside_on_loop"
"""The attribute :func:`on_loop` sets on an endpoint."""


def on_loop(endpoint: Endpoint) -> Endpoint:
    """Mark a sync endpoint as one to call on the event loop where the app allows it (SV-15).

    Only for endpoints whose work is bounded (milliseconds): while one runs, no other request
    of the process moves.
    """
    setattr(endpoint, ON_LOOP, True)
    return endpoint


class _Fallback(Exception):  # noqa: N818 - a signal, not an error
    """The request is not plain: FastAPI's own handler takes it from here."""


def _simple_param(field: Any) -> str | None:
    """The request key of a path or header parameter taken as is, or None if it is not one."""
    if _get_param_model(field) is not None:
        return None
    if field_annotation_is_sequence(field.field_info.annotation):
        return None
    aliases = _get_param_aliases(field)
    if len(aliases) != 1 or aliases[0][0] != aliases[0][1]:
        return None
    return str(aliases[0][1])


def _plain(dependant: Dependant, embed_body: bool) -> bool:
    """Whether the route's parameters are of the kinds :class:`Direct` takes."""
    call = dependant.call
    if call is None or _is_coroutine_callable(call):
        return False
    if _is_gen_callable(call) or _is_async_gen_callable(call):
        return False
    if dependant.dependencies or dependant.query_params or dependant.cookie_params:
        return False
    others = (
        dependant.websocket_param_name,
        dependant.http_connection_param_name,
        dependant.response_param_name,
        dependant.background_tasks_param_name,
        dependant.security_scopes_param_name,
    )
    if any(name is not None for name in others):
        return False
    fields = [*dependant.path_params, *dependant.header_params]
    if any(_simple_param(field) is None for field in fields):
        return False
    if dependant.body_params:
        if embed_body or len(dependant.body_params) != 1:
            return False
        body = dependant.body_params[0]
        if isinstance(body.field_info, params.Form):
            return False
        models = [body.field_info.annotation, *get_args(body.field_info.annotation)]
        if not any(lenient_issubclass(model, BaseModel) for model in models):
            return False
    returned = get_typed_return_annotation(call)
    return inspect.isclass(returned) and issubclass(returned, Response)


class Direct:
    """One route's parameters, taken as FastAPI takes them, and its endpoint called."""

    def __init__(self, dependant: Dependant) -> None:
        self.call: Callable[..., Any] = dependant.call  # type: ignore[assignment]
        self.paths = [(f, _simple_param(f) or "") for f in dependant.path_params]
        self.headers = [(f, _simple_param(f) or "") for f in dependant.header_params]
        self.body = dependant.body_params[0] if dependant.body_params else None
        self.request_name = dependant.request_param_name
        self.on_loop = bool(getattr(self.call, ON_LOOP, False))

    async def values(self, request: Request) -> dict[str, Any]:
        """The endpoint's arguments, or :class:`_Fallback` where FastAPI must decide."""
        if get_telemetry_data() is not None or "fastapi.telemetry" in request.scope:
            raise _Fallback
        values: dict[str, Any] = {}
        path = request.path_params
        for field, key in self.paths:
            if key not in path:
                raise _Fallback
            value, errors = field.validate(path[key], {}, loc=("path", key))
            if errors:
                raise _Fallback
            values[field.name] = value
        headers = request.headers
        for field, key in self.headers:
            raw = headers.get(key)
            if raw is None:
                if field.field_info.is_required() or field.field_info.validate_default:
                    raise _Fallback
                values[field.name] = deepcopy(field.default)  # as FastAPI gives a default
                continue
            value, errors = field.validate(raw, {}, loc=("header", key))
            if errors:
                raise _Fallback
            values[field.name] = value
        if self.body is not None:
            values[self.body.name] = await self._body(request)
        if self.request_name is not None:
            values[self.request_name] = request
        return values

    async def _body(self, request: Request) -> Any:
        """The JSON body validated by its model, as FastAPI validates a single body."""
        if request.headers.get("content-type") != JSON_TYPE:
            raise _Fallback
        assert self.body is not None
        try:
            raw = await request.body()
        except Exception as error:
            request._body_error = error  # type: ignore[attr-defined]  # raised again there
            raise _Fallback from None
        if not raw:
            raise _Fallback
        try:
            data = await request.json()
        except Exception:
            raise _Fallback from None  # parsed again (the same refusal) by FastAPI's handler
        value, errors = self.body.validate(data, {}, loc=("body",))
        if errors:
            raise _Fallback
        return value

    async def respond(self, values: dict[str, Any], request: Request) -> Response:
        """The endpoint's answer, on the threadpool as FastAPI runs a sync endpoint.

        An :func:`on_loop` endpoint of an app that allows it runs on the event loop (SV-15).
        """
        if self.on_loop and getattr(request.app.state, "on_loop", False):
            answer = self.call(**values)
        else:
            answer = await run_in_threadpool(self.call, **values)
        if isinstance(answer, Response):
            return answer
        return JSONResponse(jsonable_encoder(answer))  # never: the endpoint says it answers one


def direct_handler(dependant: Dependant, embed_body: bool, full: Handler) -> Handler:
    """``full`` (FastAPI's handler), called only for a request :class:`Direct` cannot take.

    The handler is given a :class:`~tableside.web.strict.StrictRequest` (its route's): a body
    whose reading failed here fails again, with the same exception, when ``full`` reads it.
    """
    if not _plain(dependant, embed_body):
        return full
    direct = Direct(dependant)

    async def handler(request: Request) -> Response:
        try:
            values = await direct.values(request)
        except _Fallback:
            return await full(request)
        return await direct.respond(values, request)

    return handler
