"""Entry point: ``tableside``. Refusals print one sentence and exit with code 2."""

from __future__ import annotations

import sys

import typer

from tableside.cli import character_cmds, fight_cmds, majesty_cmds, odds_cmds, strife_cmds, war_cmds
from tableside.cli.bounds import bound_options
from tableside.cli.serve_cmds import serve
from tableside.cli.simulate_cmds import simulate
from tableside.errors import TablesideError

app = typer.Typer(
    help="Tableside: rules engine and live table for Allies of Majesty and Realm of Strife.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(majesty_cmds.app, name="majesty")
app.add_typer(war_cmds.app, name="war")
app.add_typer(character_cmds.app, name="character")
app.add_typer(fight_cmds.app, name="fight")
app.add_typer(strife_cmds.app, name="strife")
app.add_typer(odds_cmds.app, name="odds")
app.command("serve")(serve)
app.command("simulate")(simulate)
bound_options(app)  # W-7: every numeric option within what the rules can use

USAGE_ERROR = 2


def main() -> None:
    """Run the command line; our own errors become one sentence on stderr and exit code 2.

    Option-parsing errors (an unknown option, a value of the wrong type) are reported by Typer
    with its usage line and also exit with code 2.
    """
    try:
        app()
    except TablesideError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
