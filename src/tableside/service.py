"""Running stored encounters: load the log, decide a command, append the record.

This is the one place that joins the store to the encounter engine; the command line and the web
table call it. Each call is one transaction in the store; a refused command writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tableside.encounter.decisions import Asker
from tableside.encounter.engine import Encounter, Game
from tableside.encounter.log import Command, LogRecord
from tableside.errors import TablesideError

if TYPE_CHECKING:  # the Store (SQLAlchemy) is imported by whoever opens one
    from tableside.store import Store
    from tableside.store.records import EncounterInfo


class EncounterLog(Protocol):
    """What running a command needs of a store: read a log, append a record.

    :class:`~tableside.store.Store` and the command line's quick log
    (:class:`~tableside.store.lite.LiteLog`) both offer it.
    """

    def load(self, encounter_id: int) -> tuple[EncounterInfo, list[LogRecord]]:
        """An encounter and its whole log."""
        ...

    def append(self, encounter_id: int, record: LogRecord) -> None:
        """Append one record (refused if another came first)."""
        ...


def _majesty_war() -> Game[Any]:
    from tableside.encounter.war.game import MajestyWar

    return MajestyWar()


def _strife_fight() -> Game[Any]:
    from tableside.encounter.strife.fight import StrifeFight

    return StrifeFight()


# Each game is imported only when an encounter of it is opened (a War never loads the fight).
GAMES: dict[str, Callable[[], Game[Any]]] = {
    "majesty-war": _majesty_war,
    "strife-combat": _strife_fight,
}


class UnknownGameError(TablesideError):
    """An encounter whose game Tableside does not know."""


def game_for(name: str) -> Game[Any]:
    """The Game object for a stored encounter's game name."""
    factory = GAMES.get(name)
    if factory is None:
        raise UnknownGameError(f"Unknown game {name!r}; known games: {', '.join(GAMES)}.")
    return factory()


class WrongGameError(TablesideError):
    """An encounter of another game than the command expects."""


def open_encounter(
    store: EncounterLog, encounter_id: int, game: str | None = None
) -> Encounter[Any]:
    """Rebuild the live encounter from its stored log (refusing another game's encounter)."""
    info, records = store.load(encounter_id)
    if game is not None and info.game != game:
        raise WrongGameError(
            f"Encounter {encounter_id} is a {info.game} encounter, not a {game} one."
        )
    return Encounter.from_records(game_for(info.game), info.seed, records)


def new_encounter(store: Store, name: str, seed: int, game: str = "majesty-war") -> int:
    """Create an encounter with a recorded seed."""
    game_for(game)
    return store.create_encounter(name, game, seed)


def run_command(
    store: EncounterLog,
    encounter_id: int,
    command: Command,
    expected_revision: int | None = None,
    game: str | None = None,
    asker: Asker | None = None,
) -> tuple[Encounter[Any], LogRecord]:
    """Decide and store one command; on refusal nothing is written.

    ``asker`` is the decisions' policy (D-1): None keeps the command's arguments.
    """
    return _stored(
        store, encounter_id, game, lambda e: e.execute(command, expected_revision, asker=asker)
    )


def undo(
    store: EncounterLog,
    encounter_id: int,
    expected_revision: int | None = None,
    game: str | None = None,
) -> tuple[Encounter[Any], LogRecord]:
    """Undo the last command in effect and store the undo."""
    return _stored(store, encounter_id, game, lambda e: e.undo(expected_revision))


def redo(
    store: EncounterLog,
    encounter_id: int,
    expected_revision: int | None = None,
    game: str | None = None,
) -> tuple[Encounter[Any], LogRecord]:
    """Redo the last undone command and store the redo."""
    return _stored(store, encounter_id, game, lambda e: e.redo(expected_revision))


def _stored(
    store: EncounterLog,
    encounter_id: int,
    game: str | None,
    step: Callable[[Encounter[Any]], LogRecord],
) -> tuple[Encounter[Any], LogRecord]:
    """Open the encounter, take one ``step`` on it and append its record: all or nothing."""
    encounter = open_encounter(store, encounter_id, game)
    record = step(encounter)
    store.append(encounter_id, record)
    return encounter, record


def command(kind: str, dice: tuple[int, ...] | None = None, /, **args: Any) -> Command:
    """A Command with JSON arguments (None values left out)."""
    return Command(kind, {k: v for k, v in args.items() if v is not None}, dice)


class Session:
    """A live encounter kept in memory, writing every record through to the store.

    Cheaper than :func:`run_command` for a server or a simulation: the log is read once. If
    another process appended first, the store refuses the record (stale revision); the session
    then reloads, and the caller may retry against the new revision.
    """

    def __init__(self, store: Store, encounter_id: int) -> None:
        self.store = store
        self.encounter_id = encounter_id
        self.encounter = open_encounter(store, encounter_id)

    def reload(self) -> None:
        """Read the log again (after another writer appended)."""
        self.encounter = open_encounter(self.store, self.encounter_id)

    def _commit(self, step: Callable[[], LogRecord]) -> LogRecord:
        record = step()
        try:
            self.store.append(self.encounter_id, record)
        except Exception:
            self.reload()  # the in-memory encounter must never run ahead of the store
            raise
        return record

    def execute(self, command: Command, expected_revision: int | None = None) -> LogRecord:
        """Decide, apply and store one command."""
        return self._commit(lambda: self.encounter.execute(command, expected_revision))

    def undo(self, expected_revision: int | None = None) -> LogRecord:
        """Undo and store it."""
        return self._commit(lambda: self.encounter.undo(expected_revision))

    def redo(self, expected_revision: int | None = None) -> LogRecord:
        """Redo and store it."""
        return self._commit(lambda: self.encounter.redo(expected_revision))
