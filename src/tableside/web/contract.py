"""The OpenAPI document as the contract of the JSON API (W-51).

FastAPI's generated document is completed here, once, when it is first asked for:

* a command's body (``…/commands``, ``…/odds``, ``…/preview``) is a union on ``kind``: for each
  game a discriminated union of its kinds, each with its own arguments' schema (the engines' own
  models, :data:`tableside.web.strict.COMMAND_MODELS`), so a client written from the document
  knows what each command takes;
* every route lists every status it answers, refusals with the one error body
  (``{"error": "one sentence"}``, :data:`REFUSAL`), a 429 with its ``Retry-After`` header;
* the token is a bearer credential (``Authorization: Bearer <token>``), not a free header;
* path ids are whole numbers from 1 to 2^31-1 (others: 404), and bodies carry examples.

``tests/test_openapi_contract.py`` runs schemathesis from this document against a served app.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from tableside.limits import SEED_MAX, SEED_MIN
from tableside.web.guards import ID_MAX
from tableside.web.strict import COMMAND_MODELS

REFUSAL = "Refusal"
REFUSAL_SCHEMA: dict[str, Any] = {
    "title": REFUSAL,
    "type": "object",
    "description": "Every refusal and failure: one sentence naming the problem and the value.",
    "properties": {"error": {"type": "string", "maxLength": 400}},
    "required": ["error"],
    "additionalProperties": False,
    "examples": [{"error": "There is no encounter with id 7."}],
}
REASONS = {
    400: "Bad input, or a command the rules refuse (the sentence names the value or the rule)",
    401: "No token, or one that no table gave out (or revoked)",
    403: "Not allowed for this role or character, or a browser request without its CSRF proof",
    404: "No such table, seat, encounter, decision or route (or an id no row can have)",
    405: "This method is not allowed here",
    409: "A stale revision, or the fight waits for a decision",
    413: "A body, roster, table's seats or encounters beyond their limit",
    422: "A body of the wrong shape (the field named), or an encounter that cannot be simulated",
    429: "A rate or count of open streams beyond its limit; try again after Retry-After seconds",
    503: "The database cannot write now; nothing was changed",
}
ALWAYS = (400, 401, 403, 404, 405, 413, 422, 429, 503)
WRITES = (409,)
GAMES = {"majesty-war": "War", "strife-combat": "Fight"}
COMMAND_BODIES = {"CommandBody": ("kind", "args"), "PlayBody": ("kind", "args")}
EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "CommandBody": [
        {"kind": "next", "args": {}},
        {"kind": "strike", "args": {"striker": "Herald", "defender": "Boss", "boon": 1}},
        {"kind": "attack", "args": {"attacker": "Aldric", "attacks": [{"defender": "Brute"}]}},
    ],
    "PlayBody": [{"kind": "strike", "args": {"striker": "Herald", "defender": "Boss"}}],
    "NewTable": [{"name": "Friday night"}],
    "NewEncounter": [{"game": "majesty-war", "name": "The ford", "seed": 7}],
    "NewPlayer": [{"name": "Ann", "characters": ["Herald"]}],
    "SettingsBody": [{"decision_timeout": 60, "npcs_decide": "auto"}],
    "StepBody": [{"revision": 3}],
    "ChatBody": [{"text": "Ready when you are."}],
    "RollBody": [{"kind": "d12", "label": "Perception", "boon": 1}],
    "MoveCostBody": [{"id": "Herald", "to": [2, 0, 0]}],
}


def install(app: FastAPI) -> None:
    """Serve the completed document at ``/openapi.json`` (built once, on the first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=(
                    "The JSON API of the Tableside web table. Every refusal is "
                    '`{"error": "one sentence"}`; a token is sent as `Authorization: Bearer '
                    "<token>`; nothing is written on any refusal."
                ),
                routes=app.routes,
            )
            complete(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def complete(schema: dict[str, Any]) -> None:
    """Complete FastAPI's document in place (see the module's docstring)."""
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas[REFUSAL] = REFUSAL_SCHEMA
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    components["securitySchemes"] = {
        "token": {"type": "http", "scheme": "bearer", "description": "A Host's or seat's token."}
    }
    for name, body in list(schemas.items()):
        if name in COMMAND_BODIES:
            schemas[name] = command_union(name, body, schemas)
        if name in EXAMPLES:
            schemas[name]["examples"] = EXAMPLES[name]
    for path, item in schema.get("paths", {}).items():
        for method, operation in item.items():
            complete_operation(path, method, operation)
    exact_bounds(schema)


EXACT = {float(SEED_MAX): SEED_MAX, float(SEED_MIN): SEED_MIN}
"""64-bit bounds the generator wrote as floats (2^63 is not 2^63 - 1): their exact values."""


def exact_bounds(node: Any) -> None:
    """Put back, everywhere in ``node``, the exact integer of each 64-bit bound (seeds)."""
    if isinstance(node, dict):
        for key in ("minimum", "maximum"):
            if isinstance(node.get(key), float) and node[key] in EXACT:
                node[key] = EXACT[node[key]]
        for value in node.values():
            exact_bounds(value)
    elif isinstance(node, list):
        for value in node:
            exact_bounds(value)


def complete_operation(path: str, method: str, operation: dict[str, Any]) -> None:
    """One route: its bearer token, its path ids' range and every status it answers."""
    parameters = operation.get("parameters", [])
    if any(p["in"] == "header" and p["name"] == "authorization" for p in parameters):
        operation["security"] = [{"token": []}]
    parameters[:] = [p for p in parameters if p["name"] not in ("authorization",)]
    for parameter in parameters:
        if parameter["in"] == "path" and parameter["name"].endswith("_id"):
            parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": ID_MAX}
    if not parameters:
        operation.pop("parameters", None)
    responses = operation.setdefault("responses", {})
    statuses = ALWAYS + (WRITES if method in ("post", "put", "patch", "delete") else ())
    for status in statuses:
        responses[str(status)] = refusal_response(status)
    if path.endswith("/commands") or "/decisions/" in path:
        ok = responses.get("200", {"description": "Done"})
        responses["202"] = {**copy.deepcopy(ok), "description": "Accepted: a decision waits"}
    if path.endswith("/stream"):
        responses["200"] = {
            "description": "Server-Sent Events: the records, chat and moves, live",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }


def refusal_response(status: int) -> dict[str, Any]:
    """A refusal's response object (a 429's says when to try again)."""
    response: dict[str, Any] = {
        "description": REASONS[status],
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{REFUSAL}"}}},
    }
    if status == 429:
        response["headers"] = {
            "Retry-After": {
                "description": "Seconds after which the request may be accepted",
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }
        }
    return response


def command_union(name: str, body: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """``body`` (kind, args and the rest) as a union on ``kind`` over both games' commands."""
    rest = {k: v for k, v in body.get("properties", {}).items() if k not in ("kind", "args")}
    per_game = []
    for game, label in GAMES.items():
        mapping = {}
        for kind, model in COMMAND_MODELS[game].items():
            args_ref = args_schema(label, model, schemas)
            variant_name = f"{name}_{label}_{kind}"
            required = ["kind"] + (["args"] if args_required(schemas, args_ref) else [])
            schemas[variant_name] = {
                "title": f"{label} command {kind}",
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "const": kind},
                    "args": {"$ref": args_ref},
                    **rest,
                },
                "required": required,
                "additionalProperties": False,
            }
            mapping[kind] = f"#/components/schemas/{variant_name}"
        union_name = f"{name}_{label}"
        schemas[union_name] = {
            "title": f"{label} ({game}) command",
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "kind", "mapping": mapping},
        }
    for label in GAMES.values():
        per_game.append({"$ref": f"#/components/schemas/{name}_{label}"})
    return {
        "title": name,
        "description": (
            "A command of the encounter's game: `kind` picks its arguments' schema (a War's "
            "or a fight's); the rules may still refuse it (400, naming the rule)."
        ),
        "anyOf": per_game,
    }


def args_schema(label: str, model: type[Any], schemas: dict[str, Any]) -> str:
    """Put ``model``'s JSON schema (and its definitions) among ``schemas``; return its ref."""
    name = f"{label}_{model.__name__}"
    ref = f"#/components/schemas/{name}"
    if name in schemas:
        return ref
    found = model.model_json_schema(ref_template=f"#/components/schemas/{label}_{{model}}")
    for def_name, definition in found.pop("$defs", {}).items():
        schemas.setdefault(f"{label}_{def_name}", definition)
    schemas[name] = found
    return ref


def args_required(schemas: dict[str, Any], ref: str) -> bool:
    """Whether the arguments schema at ``ref`` has a required field (``args`` may be left out)."""
    return bool(schemas[ref.rsplit("/", 1)[1]].get("required"))
