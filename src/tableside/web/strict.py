"""Strict input for every JSON body (W-50): JSON numbers only, finite, and each command's own shape.

Two checks run before any handler reads a body, whatever the encounter's state (a command that
waits for a decision changes nothing here):

* :class:`StrictRoute` parses every JSON body itself: ``NaN``, ``Infinity``, ``-Infinity`` and
  numbers too large to be finite (``1e999``) are refused with 400, naming the field, where
  Python's own parser would let them through as floats;
* :func:`strict_args` validates a command's arguments against its kind's model (see
  :data:`COMMAND_MODELS`) in strict JSON mode: a number given as a string (``"boon": "1"``), a
  boolean given for a number, or a fraction given for a whole number is refused with the field
  named, instead of being quietly converted (and the string stored in the log).

The request bodies' own models are strict too (``strict=True``): ``"seed": "7"``,
``"revision": "3"`` and ``"decision_timeout": "10"`` are refused with 422 naming the field.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from tableside.encounter.strife import acts as strife_acts
from tableside.encounter.strife import args as strife_args
from tableside.encounter.strife import forced as strife_forced
from tableside.encounter.war import args as war_args
from tableside.errors import DataError, RulesError
from tableside.majesty.catalog import validation_sentence
from tableside.web.direct import direct_handler
from tableside.web.guards import bad_path_id, path_ids

COMMAND_MODELS: dict[str, dict[str, type[war_args.Args]]] = {
    "majesty-war": {
        "add": war_args.AddArgs,
        "remove": war_args.IdArgs,
        "next": war_args.NoArgs,
        "strike": war_args.StrikeArgs,
        "move": war_args.MoveArgs,
        "stance": war_args.StanceArgs,
        "rest": war_args.RestArgs,
        "stand_ready": war_args.ReadyArgs,
        "carry_over": war_args.CarryArgs,
        "break_free": war_args.IdArgs,
        "interpose": war_args.InterposeArgs,
        "apply_effect": war_args.EffectArgs,
        "host_set": war_args.HostArgs,
        "dominion": war_args.DominionArgs,
        "barrier": war_args.BarrierArgs,
        "ruleset": war_args.RulesetArgs,
    },
    "strife-combat": {
        "add": strife_args.AddArgs,
        "remove": strife_args.IdArgs,
        "start": strife_args.StartArgs,
        "next": war_args.Args,
        "bottom": strife_args.IdArgs,
        "move": strife_args.MoveArgs,
        "disengage": strife_args.DisengageArgs,
        "attack": strife_args.AttackArgs,
        "aoo": strife_args.AooArgs,
        "cast": strife_args.CastArgs,
        "impale": strife_args.ImpaleArgs,
        "instant": strife_args.InstantArgs,
        "whole_turn": strife_args.WholeTurnArgs,
        "roll_with_the_blow": strife_args.RollArgs,
        "hide": strife_args.IdArgs,
        "condition": strife_args.ConditionArgs,
        "end_condition": strife_args.EndConditionArgs,
        "end_combat": strife_args.EndCombatArgs,
        "host_set": strife_args.HostArgs,
        "act": strife_acts.ActArgs,
        "react": strife_acts.ReactArgs,
        "forced_move": strife_forced.ForcedMoveArgs,
        "pick_up": strife_forced.PickUpArgs,
        "water": strife_forced.WaterArgs,
    },
}
"""Each game's command kinds and the model of their arguments (the engines' own models)."""


def strict_args(game: str, kind: str, args: dict[str, Any]) -> None:
    """Refuse arguments that only a lax conversion would accept (``"boon": "1"``).

    Arguments wrong even to a lax reading, and an unknown kind, are left to the engine, which
    refuses them in its own order (a player acting for another's character: 403 first).

    Raises:
        DataError: One sentence naming the field, the problem and the value.
    """
    model = COMMAND_MODELS.get(game, {}).get(kind)
    if model is None:
        return
    try:
        model.model_validate_json(json.dumps(args, allow_nan=False), strict=True)
    except ValidationError as error:
        try:
            model.model_validate(args)
        except ValidationError:
            return  # wrong even when lax: the engine refuses it in its own order (403 first)
        raise DataError(validation_sentence(error, f"{kind} command")) from None
    except ValueError:  # a float that is not finite: the strict parser refused it already
        sentence = f"The {kind} command's arguments hold a number JSON does not allow."
        raise DataError(sentence) from None


def check_args(game: str, kind: str, args: dict[str, Any]) -> None:
    """Validate a command's kind and arguments as its engine will, before any state is read.

    Called once the sender may send the command (403 first), so that a body is refused the
    same way (400) whether or not the fight waits for a decision (409 otherwise came first).

    Raises:
        RulesError: An unknown kind (the engine's own sentence).
        DataError: Arguments its model refuses.
    """
    models = COMMAND_MODELS.get(game)
    if models is None:
        return
    model = models.get(kind)
    if model is None:
        what = "War" if game == "majesty-war" else "fight"
        raise RulesError(f"Unknown {what} command {kind!r}; known: {', '.join(models)}.")
    try:
        model.model_validate(args)
    except ValidationError as error:
        raise DataError(validation_sentence(error, f"{kind} command")) from None


_MADE = itertools.count()
"""Counts the :class:`_NotFinite` made (``next`` is atomic): a parse that made none is not
walked for one (issue 26)."""


class _NotFinite:
    """A number JSON does not allow, kept where it was found so that its field can be named."""

    def __init__(self, text: str) -> None:
        self.text = text
        next(_MADE)


def _number(text: str) -> int | float | _NotFinite:
    """A JSON number written with a fraction or an exponent.

    A whole one (``2.0``, ``1e3``) is that integer, as JSON means it (JSON has one number
    type); a non-finite one (``1e999``) is kept aside to be refused with its field named.
    """
    value = float(text)
    if not math.isfinite(value):
        return _NotFinite(text)
    return int(value) if value.is_integer() else value


def _where_not_finite(data: Any) -> tuple[str, str] | None:
    """The path and text of the first non-finite number in ``data`` (None: there is none)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _NotFinite):
            return path, value.text
        if isinstance(value, dict):
            stack.extend((f"{path}.{key}" if path else str(key), v) for key, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}" if path else str(i), v) for i, v in enumerate(value))
    return None


_DECODER = json.JSONDecoder(parse_constant=_NotFinite, parse_float=_number)
"""The decoder ``json.loads(body, parse_constant=…, parse_float=…)`` would make for each body."""


def strict_json(body: bytes) -> Any:
    """``body`` parsed as JSON, refusing NaN, ±Infinity and numbers too large to be finite.

    Raises:
        HTTPException: 400 naming the field (``json.JSONDecodeError`` for text that is not
            JSON at all, which the route answers as before).
    """
    before = next(_MADE)
    if isinstance(body, bytes | bytearray):  # as json.loads reads bytes, with one decoder
        data = _DECODER.decode(body.decode(json.detect_encoding(body), "surrogatepass"))
    else:
        data = json.loads(body, parse_constant=_NotFinite, parse_float=_number)
    if next(_MADE) == before + 1:
        return data  # no non-finite number was made, by this parse or any other: none to find
    found = _where_not_finite(data)
    if found is not None:
        path, text = found
        where = f"field {path[:60]}" if path else "the request body"
        kind = data.get("kind") if isinstance(data, dict) else None
        if path.startswith("args.") and isinstance(kind, str) and len(kind) <= 40:
            where = f"{kind!r} command: field {path.removeprefix('args.')[:60]}"
        raise HTTPException(
            400, f"Bad request: {where}: {text[:20]} is not a finite JSON number; send a number."
        )
    return data


class StrictRequest(Request):
    """A request whose JSON body is read by :func:`strict_json`.

    A body whose reading failed on the direct path (:mod:`~tableside.web.direct`) fails again,
    with the same exception, when FastAPI's own handler reads it.
    """

    async def body(self) -> bytes:
        """The body (once), or the failure met reading it."""
        failed = self.__dict__.get("_body_error")
        if failed is not None:
            raise failed
        return await super().body()

    async def json(self) -> Any:
        """The body, parsed strictly (once)."""
        if not hasattr(self, "_json"):
            self._json = strict_json(await self.body())
        return self._json


class StrictRoute(APIRoute):
    """Every route of the app reads its JSON body strictly (``app.router.route_class``).

    The app's own dependency, :func:`~tableside.web.guards.path_ids`, refuses a path id out of
    range; it does nothing for one in range, yet FastAPI's solving of it cost a request about
    0.1 to 0.2 ms (issue 26). So each route keeps two handlers: the one with that dependency,
    run only when a path id is out of range (its refusal, and the order of the refusals
    before it, as they were), and the same handler without it for every other request; that
    one calls the endpoint directly when the request is plain (:mod:`~tableside.web.direct`).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's handler, given a :class:`StrictRequest`."""
        checked = super().get_route_handler()
        whole = self.dependant
        kept = [d for d in whole.dependencies if d.call is not path_ids]
        self.dependant = dataclasses.replace(whole, dependencies=kept)
        try:
            plain = direct_handler(
                self.dependant, self._embed_body_fields, super().get_route_handler()
            )
        finally:
            self.dependant = whole

        async def strict_handler(request: Request) -> Response:
            strict = StrictRequest(request.scope, request.receive)
            if bad_path_id(request.path_params) is None:
                return await plain(strict)
            return await checked(strict)

        return strict_handler
