"""What every stored encounter offers on the command line, whichever the game.

``tableside war`` and ``tableside fight`` each add their own commands to a Typer app and call
:func:`add_common` for new, show, undo, redo, log, export and import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tableside.cli.options import Db, EncounterId, Json, Revision, Runner
from tableside.cli.output import print_json, write_document
from tableside.errors import DataError

if TYPE_CHECKING:  # imported when a command uses them: ``--help`` loads none (start-up time)
    from rich.console import Console, RenderableType

    from tableside.encounter.engine import Encounter
    from tableside.encounter.log import LogRecord
    from tableside.store import Store
    from tableside.store.lite import LiteLog
    from tableside.store.tables import Seat


@dataclass(frozen=True)
class EncounterKind:
    """A game as the command line shows it."""

    game: str
    noun: str  # "War", "Fight"
    view: Callable[[Any, int], RenderableType]
    to_json: Callable[[Any, int], dict[str, Any]]


def _service() -> ModuleType:
    """The service module, imported on first use (it loads the store and SQLAlchemy)."""
    from tableside import service

    return service


@contextmanager
def opened(db: str | None) -> Iterator[Store]:
    """The store named by --db, or by the environment."""
    from tableside.store import Store

    store = Store.open(None if db is None else f"sqlite:///{db}")
    try:
        yield store
    finally:
        store.close()


@contextmanager
def opened_log(db: str | None, encounter_id: int) -> Iterator[Store | LiteLog]:
    """The store named by --db, for a command that reads one encounter and appends to it.

    An existing SQLite store at the newest schema, for an encounter of no web table, is read
    and appended to without SQLAlchemy (``tableside.store.lite``, start-up time); anything
    else opens the Store.
    """
    from tableside.store.lite import LiteLog, sqlite_path

    log = LiteLog.open(sqlite_path(db), encounter_id)
    if log is None:
        with opened(db) as store:
            yield store
        return
    with log:
        yield log


def wide_console() -> Console:
    """A console wide enough for state tables when output is not a terminal."""
    from rich.console import Console

    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=160)


def report(
    kind: EncounterKind,
    encounter: Encounter[Any],
    record: LogRecord,
    as_json: bool,
    seats: tuple[Seat, ...] | None = None,
) -> None:
    """Print what a command did and the encounter after it (and what it waits for, D-1)."""
    from tableside.cli.decide_cmds import pending_json, pending_lines
    from tableside.cli.war_render import event_text, record_head

    state = kind.to_json(encounter.state, encounter.revision)
    pending = pending_json(encounter.pending, seats)
    if as_json:
        found = {"record": record.to_json(), "state": state}
        print_json({**found, "pending": pending} if pending else found)
        return
    console = wide_console()
    console.print(record_head(record), markup=False)
    for event in record.events:
        console.print(f"  {event_text(event)}  [{event.rule or '-'}]", markup=False)
    console.print(kind.view(encounter.state, encounter.revision))
    for line in pending_lines(pending):
        console.print(line, markup=False)


def run(kind: EncounterKind, db: str | None, encounter_id: int, command_kind: str,
        revision: int | None, as_json: bool, dice: str | None = None, /,
        **args: Any) -> None:  # fmt: skip
    """Run one command through the store and report it."""
    from tableside.cli.decide_cmds import asker_for, seats_of
    from tableside.cli.parsing import parse_dice

    with opened_log(db, encounter_id) as store:
        command = _service().command(
            command_kind, None if dice is None else parse_dice(dice), **args
        )
        encounter, record = _service().run_command(
            store, encounter_id, command, revision, kind.game, asker_for(store, encounter_id)
        )
        seats = seats_of(store, encounter_id) if encounter.pending is not None else None
    report(kind, encounter, record, as_json, seats)


def runner(kind: EncounterKind) -> Runner:
    """The game's ``run``: one command of ``kind`` through the store, then its report."""

    def run_kind(db: str | None, encounter_id: int, command_kind: str, revision: int | None,
                 as_json: bool, dice: str | None = None, /, **args: Any) -> None:  # fmt: skip
        run(kind, db, encounter_id, command_kind, revision, as_json, dice, **args)

    return run_kind


def checked_import(store: Store, document: Any, game: str) -> int:
    """Validate, replay from the seed, and only then store an exported encounter."""
    from tableside.encounter.engine import Encounter
    from tableside.store.formats import parse_encounter

    doc, records = parse_encounter(document)
    if doc.game != game:
        raise DataError(f"This file holds a {doc.game} encounter, not a {game} one.")
    Encounter.from_records(_service().game_for(game), doc.seed, records).verify_replay()
    return store.import_encounter(document)


def add_decide(app: typer.Typer, kind: EncounterKind) -> None:
    """Register ``decide`` for one game (its decisions' helpers: ``decide_cmds``)."""

    @app.command()
    def decide(
        encounter_id: EncounterId,
        decision: Annotated[str, typer.Argument(help="The decision's id (see show), e.g. 4.0.")],
        choice: Annotated[
            str,
            typer.Argument(help='The choice: JSON (null, "parry", {"mode": "best"}) or a word.'),
        ],
        db: Db = None,
        json_out: Json = False,
    ) -> None:
        """Answer a pending decision as the Host (D-4); the last answer resolves the command."""
        from tableside.cli.decide_cmds import answer, parse_choice, seats_of

        with opened(db) as store:
            encounter = _service().open_encounter(store, encounter_id, kind.game)
            record = answer(store, encounter, encounter_id, decision, parse_choice(choice))
            seats = seats_of(store, encounter_id)
        report(kind, encounter, record, json_out, seats)


def add_common(app: typer.Typer, kind: EncounterKind) -> None:
    """Register new, show, undo, redo, log, export, import and decide for one game."""
    noun = kind.noun
    add_decide(app, kind)

    @app.command()
    def new(
        name: Annotated[str, typer.Argument(help="A name for the encounter.")],
        seed: Annotated[int, typer.Option(help="Seed of the server's dice (recorded).")] = 1,
        db: Db = None,
        json_out: Json = False,
    ) -> None:
        """Create a new encounter and print its id."""
        with opened(db) as store:
            encounter_id = _service().new_encounter(store, name, seed, kind.game)
        if json_out:
            print_json({"id": encounter_id, "name": name, "seed": seed})
        else:
            print(f"{noun} {encounter_id} created: {name} (seed {seed})")

    @app.command()
    def show(encounter_id: EncounterId, db: Db = None, json_out: Json = False) -> None:
        """The order of play, every participant's state, and the decisions it waits for."""
        from tableside.cli.decide_cmds import pending_json, pending_lines, seats_of

        with opened_log(db, encounter_id) as store:
            encounter = _service().open_encounter(store, encounter_id, kind.game)
            seats = seats_of(store, encounter_id) if encounter.pending is not None else None
        pending = pending_json(encounter.pending, seats)
        state = kind.to_json(encounter.state, encounter.revision)
        if json_out:
            print_json({**state, "pending": pending} if pending else state)
        else:
            wide_console().print(kind.view(encounter.state, encounter.revision))
            for line in pending_lines(pending):
                print(line)

    @app.command()
    def undo(encounter_id: EncounterId, db: Db = None, revision: Revision = None,
             json_out: Json = False) -> None:  # fmt: skip
        """Undo the last command in effect."""
        with opened_log(db, encounter_id) as store:
            encounter, record = _service().undo(store, encounter_id, revision, kind.game)
        report(kind, encounter, record, json_out)  # undo withdraws a waiting command (D-3)

    @app.command()
    def redo(encounter_id: EncounterId, db: Db = None, revision: Revision = None,
             json_out: Json = False) -> None:  # fmt: skip
        """Redo the last undone command, exactly as it was."""
        with opened_log(db, encounter_id) as store:
            encounter, record = _service().redo(store, encounter_id, revision, kind.game)
        report(kind, encounter, record, json_out)

    @app.command()
    def log(encounter_id: EncounterId, db: Db = None, json_out: Json = False) -> None:
        """The whole log: commands, undos, redos, and every event with its ruling."""
        from tableside.cli.war_render import log_lines

        with opened_log(db, encounter_id) as store:
            encounter = _service().open_encounter(store, encounter_id, kind.game)
        if json_out:
            print_json({"records": [r.to_json() for r in encounter.records]})
        else:
            print("\n".join(log_lines(encounter)))

    @app.command()
    def export(
        encounter_id: EncounterId,
        out: Annotated[Path | None, typer.Option(help="Write to this file, not stdout.")] = None,
        db: Db = None,
    ) -> None:
        """Export as versioned JSON (tableside/encounter v1)."""
        with opened(db) as store:
            _service().open_encounter(store, encounter_id, kind.game)
            document = store.export_encounter(encounter_id)
        write_document(document, out)

    @app.command("import")
    def import_(
        file: Annotated[Path, typer.Argument(help="An exported encounter (JSON).")],
        db: Db = None,
        json_out: Json = False,
    ) -> None:
        """Import an export: validated and replayed first; a bad file writes nothing."""
        from tableside.cli.sources import read_json

        document: Any = read_json(file, noun)
        with opened(db) as store:
            encounter_id = checked_import(store, document, kind.game)
        revision = len(document["records"])
        if json_out:
            print_json({"id": encounter_id, "revision": revision})
        else:
            print(f"{noun} {encounter_id} imported at revision {revision}")
