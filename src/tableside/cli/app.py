"""Entry point: ``tableside``. Refusals print one sentence and exit with code 2.

Start-up is lazy: only the command group named on the command line is imported (``tableside war
…`` never loads the Realm of Strife, the odds or the simulator); the other groups are listed by
name and help alone. ``bench/cli_startup.py`` measures it.
"""

from __future__ import annotations

import copy
import inspect
import sys
from importlib import import_module
from typing import Any

import typer
from typer.main import get_command_name
from typer.models import CommandInfo

from tableside.errors import TablesideError

HELP = "Tableside: rules engine and live table for Allies of Majesty and Realm of Strife."

# Command groups: name → (module holding its ``app``, its one-line help for the listing).
GROUPS: dict[str, tuple[str, str]] = {
    "majesty": (
        "tableside.cli.majesty_cmds",
        "Allies of Majesty: Strikes, Checks and plain rolls.",
    ),
    "war": (
        "tableside.cli.war_cmds",
        "A stored War: add combatants, Strike, Move, next Turn, undo/redo, log, export.",
    ),
    "character": (
        "tableside.cli.character_cmds",
        "Characters in the store: save from a JSON file, list, show, export, import.",
    ),
    "fight": (
        "tableside.cli.fight_cmds",
        "A stored Realm of Strife combat: add models, start (ambush), move, attack, react, undo.",
    ),
    "strife": (
        "tableside.cli.strife_cmds",
        "Realm of Strife: one-shot attacks, casts, stat tests and roll-offs.",
    ),
    "odds": (
        "tableside.cli.odds_cmds",
        "Exact odds (or Monte Carlo) of Allies of Majesty Strikes and Checks and of Realm of "
        "Strife attacks.",
    ),
    "table": (
        "tableside.cli.table_cmds",
        "A web table's roster of characters, and the whole table as one file.",
    ),
    "daemon": (
        "tableside.cli.daemon_cmds",
        "The command daemon: start it once and every War command answers in a fraction of the "
        "time.",
    ),
}
# Single commands: name → (module, function name, one-line help for the listing).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "serve": (
        "tableside.cli.serve_cmds",
        "serve",
        "Serve the web table: Host and players around one fight, live in the browser.",
    ),
    "simulate": (
        "tableside.cli.simulate_cmds",
        "simulate",
        "Play an exported War or fight to its end many times: win odds, length, Wear or HP lost.",
    ),
    "warm": (
        "tableside.cli.warm_cmds",
        "warm",
        "Compile the fast simulators now (make setup runs it), not at the server's first start.",
    ),
}

USAGE_ERROR = 2


def build_app(load: str | None = "*", command: str | None = None) -> typer.Typer:
    """The ``tableside`` app with the group or command ``load`` imported in full.

    Args:
        load: the name to import (``"*"``: all of them; None or an unknown name: none, every
            group listed by its help only, which is all ``tableside --help`` needs).
        command: the word after a group's name on the command line: when it names one of the
            group's commands, only that command is built (Typer reads every built command's
            signature, which costs more than running one); otherwise (``--help``, no command,
            an unknown one) every command is listed by its name and help only.
    """
    app = typer.Typer(
        help=HELP,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
        rich_markup_mode=None,
        # An unset --help reads False, not None, which Typer would coerce through pydantic:
        # ``tableside war --help`` then loads no pydantic (start-up time).
        context_settings={"default_map": {"help": False}},
    )
    runs = load == "*"  # a command will run (its options get their bounds); not a listing
    for name, (module, summary) in GROUPS.items():
        if load in ("*", name):
            group = import_module(module).app
            if load != "*":
                group = only(group, command)
                runs = any(info.callback is not _listed_only for info in group.registered_commands)
            app.add_typer(group, name=name)
        else:
            app.add_typer(typer.Typer(help=summary, rich_markup_mode=None), name=name)
    for name, (module, function, summary) in COMMANDS.items():
        if load in ("*", name):
            app.command(name)(getattr(import_module(module), function))
        else:
            app.command(name, help=summary)(_listed_only)
    if runs or load in COMMANDS:
        from tableside.cli.bounds import bound_options  # pydantic: only when a command is loaded

        bound_options(app)  # W-7: every numeric option of the loaded commands within its bound
    return app


def _listed_only() -> None:
    """Stands in for a command that was not loaded (never run: its name loads it)."""


def only(group: typer.Typer, command: str | None) -> typer.Typer:
    """``group`` with ``command`` alone, or with every command listed by name and help only.

    The listing (``tableside war --help``, an unknown command's refusal) is the same as the full
    group's: each command keeps its name, help and flags, without its options.
    """
    chosen = [info for info in group.registered_commands if _name(info) == command]
    trimmed = copy.copy(group)
    trimmed.registered_commands = chosen or [_listed(info) for info in group.registered_commands]
    return trimmed


def _name(info: CommandInfo) -> str:
    """A registered command's name on the command line."""
    assert info.callback is not None, "every command has a function"
    return info.name or get_command_name(info.callback.__name__)


def _listed(info: CommandInfo) -> CommandInfo:
    """The command as a group's listing shows it: its name and help, no options."""
    assert info.callback is not None, "every command has a function"
    listed = copy.copy(info)
    listed.name = _name(info)
    listed.help = info.help if info.help is not None else inspect.getdoc(info.callback)
    listed.callback = _listed_only
    return listed


def __getattr__(name: str) -> Any:
    """``app``: the whole command line, every group loaded (for tests and tools)."""
    if name == "app":
        return build_app("*")
    raise AttributeError(name)


def main() -> None:
    """Run the command line; our own errors become one sentence on stderr and exit code 2.

    Option-parsing errors (an unknown option, a value of the wrong type) are reported by Typer
    with its usage line and also exit with code 2.
    """
    chosen = sys.argv[1] if len(sys.argv) > 1 else None
    command = sys.argv[2] if len(sys.argv) > 2 else None
    try:
        build_app(chosen, command)()
    except TablesideError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
