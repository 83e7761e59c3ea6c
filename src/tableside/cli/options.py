"""The command-line options that several commands share, declared once (issue 23).

Every command of a stored encounter (``tableside war …``, ``tableside fight …``) ends with the
same options, ``[--dice] --db --revision --json``, and hands the store one command:
:func:`step_command` registers a function that says only *which* command with *which*
arguments, and adds those options and the call to the store itself. The one-shot commands of
both games (``majesty strike``, ``strife attack`` …) share :data:`Seed`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Protocol, get_type_hints

import typer

Db = Annotated[
    str | None,
    typer.Option(help="SQLite file (default: TABLESIDE_DATABASE_URL, else ./tableside.db)."),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Revision = Annotated[
    int | None, typer.Option(help="The revision this command was made against (refused if stale).")
]
EncounterId = Annotated[int, typer.Argument(help="Encounter id.")]
Dice = Annotated[str | None, typer.Option(help="Physical dice typed in, in the order rolled.")]
Seed = Annotated[int, typer.Option(help="Seed for the server's dice (recorded in the output).")]

# What a step function returns: the command's kind and its arguments.
Step = tuple[str, dict[str, Any]]
StepFunction = Callable[..., Step]


class Runner(Protocol):
    """A game's ``run``: one command through the store, then its report."""

    def __call__(self, db: str | None, encounter_id: int, command_kind: str,
                 revision: int | None, as_json: bool, dice: str | None = None, /,
                 **args: Any) -> None:  # fmt: skip
        """Run the command ``command_kind`` with ``args`` on the encounter and report it."""


# The options every step command ends with, in the order ``--help`` lists them.
SHARED = (("db", Db, None), ("revision", Revision, None), ("json_out", Json, False))
DICE = ("dice", Dice, None)


def step_command(
    app: typer.Typer, run: Runner, name: str | None = None, *, dice: bool = False
) -> Callable[[StepFunction], StepFunction]:
    """Register a step function as a command ending with ``[--dice] --db --revision --json``.

    The function takes the encounter id and the command's own options and returns the command's
    kind and arguments; the command registered runs it through ``run``.
    """

    def register(function: StepFunction) -> StepFunction:
        signature = inspect.signature(function, eval_str=True)
        hints = get_type_hints(function, include_extras=True)
        added = ((DICE,) if dice else ()) + SHARED
        parameters = list(signature.parameters.values()) + [
            inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d, annotation=a)
            for n, a, d in added
        ]

        @functools.wraps(function)
        def command(**given: Any) -> None:
            shared = {n: given.pop(n) for n, _, _ in added}
            kind, args = function(**given)
            run(shared["db"], given["encounter_id"], kind, shared["revision"], shared["json_out"],
                shared.get("dice"), **args)  # fmt: skip

        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=parameters, return_annotation=None
        )
        command.__annotations__ = {**hints, **{n: a for n, a, _ in added}, "return": None}
        app.command(name)(command)
        return function

    return register


# One shared option: its parameter name, its Annotated type and its default.
Shared = tuple[str, Any, Any]


def with_options(*shared: Shared) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command the options ``shared`` after its own, declared once for several commands.

    The function takes them in ``**given`` (under their parameter names); its signature, and
    so ``--help`` and whatever reads it (``tableside odds``), lists them in the order given.
    """

    def register(function: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(function, eval_str=True)
        hints = get_type_hints(function, include_extras=True)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        added = [
            inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d, annotation=a)
            for n, a, d in shared
        ]

        @functools.wraps(function)
        def command(**given: Any) -> None:
            function(**given)

        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=own + added, return_annotation=None
        )
        command.__annotations__ = {
            **{n: a for n, a in hints.items() if n != "given"},
            **{n: a for n, a, _ in shared},
            "return": None,
        }
        return command

    return register
