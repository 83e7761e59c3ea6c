"""W-7 on the command line: every numeric option is bounded by its name (``CLI_BOUNDS``).

The bounds are put on the options' own declarations when the command tree is assembled: each
numeric option's callback refuses a value out of range in one sentence (``error: --bane must be
0 to 6, got 1000.``, exit code 2) before the command runs, and ``--help`` shows the range.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Union, get_args, get_origin

import typer
from typer.models import ParameterInfo

from tableside.errors import TablesideError
from tableside.limits import CLI_BOUNDS, CLI_OWN_CHECKS, shown

NUMBERS = (int, float)


class BoundError(TablesideError):
    """A numeric option outside what the rules can use (W-7)."""


def numeric(annotation: Any) -> bool:
    """Whether an option's type is a number, an optional number or a list of numbers."""
    if annotation in NUMBERS:
        return True
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType, list):
        return any(numeric(arg) for arg in get_args(annotation) if arg is not type(None))
    return False


def callbacks(app: typer.Typer) -> Iterator[Callable[..., Any]]:
    """Every command function of ``app`` and of its sub-applications."""
    for command in app.registered_commands:
        if command.callback is not None:
            yield command.callback
    for group in app.registered_groups:
        if group.typer_instance is not None:
            yield from callbacks(group.typer_instance)


def numeric_options(app: typer.Typer) -> Iterator[tuple[str, ParameterInfo]]:
    """Each numeric option or argument of every command, with its Typer declaration.

    Each command's signature is evaluated once and kept as its ``__signature__`` (which Typer
    reads), so that a change to a declaration found here is the one Typer uses: evaluating the
    (postponed) annotations again would make new declarations. A plain ``boon: int = 0`` gets
    a declaration of its own (``typer.Option()``).
    """
    for callback in callbacks(app):
        signature = inspect.signature(callback, eval_str=True)
        parameters = [declared(p) for p in signature.parameters.values()]
        setattr(callback, "__signature__", signature.replace(parameters=parameters))  # noqa: B010
        for parameter in parameters:
            base, *extras = get_args(parameter.annotation) or (parameter.annotation,)
            if numeric(base):
                yield from ((parameter.name, i) for i in extras if isinstance(i, ParameterInfo))


def declared(parameter: inspect.Parameter) -> inspect.Parameter:
    """The parameter, annotated with a Typer declaration when it is a number without one."""
    annotation = parameter.annotation
    if get_origin(annotation) is Annotated or not numeric(annotation):
        return parameter
    return parameter.replace(annotation=Annotated[annotation, typer.Option()])


def plain(number: float) -> str:
    """A bound as people write it: 10000000, -40, 0.5."""
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def bounded(name: str, low: float, high: float) -> Callable[[Any], Any]:
    """The option callback refusing a value outside ``low`` … ``high`` in one sentence (W-7)."""
    option = "--" + name.replace("_", "-")

    def check(value: Any) -> Any:
        values = value if isinstance(value, list | tuple) else [value]
        for one in values:
            if one is not None and not low <= one <= high:
                raise BoundError(
                    f"{option} must be {plain(low)} to {plain(high)}, got {shown(one)}."
                )
        return value

    return check


def bound_options(app: typer.Typer) -> None:
    """Put the bound of ``CLI_BOUNDS`` on every numeric option of every command (W-7).

    The bound is checked by the option's callback, before the command runs; a refusal is a
    :class:`BoundError`, which the entry point prints as one sentence with exit code 2. The
    option's help shows the range.

    Raises:
        KeyError: A numeric option has no bound in ``CLI_BOUNDS`` (a test keeps the table whole).
        ValueError: An option already has a callback of its own.
    """
    for name, info in numeric_options(app):
        low, high = CLI_BOUNDS[name]
        if getattr(info.callback, "bound", None) == (low, high):
            continue  # a declaration shared by several commands
        if info.callback is not None:
            raise ValueError(f"The option --{name} already has a callback.")
        if name not in CLI_OWN_CHECKS:
            check = bounded(name, low, high)
            setattr(check, "bound", (low, high))  # noqa: B010
            info.callback = check
        info.help = f"{info.help or ''} [{plain(low)} to {plain(high)}]".strip()
