"""The web table's hot statements on the database driver itself (issue 26, SV-1 … SV-4).

Under a web table's load SQLAlchemy's own Python (its statement cache, parameter building,
``Connection`` and transaction events) cost about nine times what the driver's execute did. So
the hot reads and appends (``table_log.access`` and ``append``, ``Store.append`` and
``encounter``, ``table_audience``'s reads, ``records_after``) run through a :class:`Link`:
each thread's own DBAPI connection (``sqlite3`` or ``psycopg``), opened as the engine opens its
own (``create_connect_args``, ``sqlite_pragmas``), and each statement compiled once for the
dialect (:class:`Prebuilt`: the same SQLAlchemy statements, so no SQL is written twice) with
SQLAlchemy's own bind and result processors (JSON as the engine writes and reads it).

The rules (docs/web.md, SV-1 … SV-4):

- SV-1: one transaction per operation, as through the engine: SQLite ``BEGIN`` to read and
  ``BEGIN IMMEDIATE`` to write, writers queued on the Store's ``_write_turn``; PostgreSQL's own
  transaction, its ``pg_notify`` delivered only at commit.
- SV-2: a driver's failure reaches the caller as SQLAlchemy's :class:`~sqlalchemy.exc.DBAPIError`
  (the web answers 503), the transaction rolled back and its connection closed, never reused.
- SV-3: a SQLite connection that found the database read-only retires every connection of that
  time, the engine's included (issue 23); a PostgreSQL connection found broken on a
  transaction's first statement is replaced and the statement sent again (nothing was done).
- SV-4: :meth:`Link.close` (``Store.close``) closes every thread's connection; a finished
  thread's connection is closed when the next one opens.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any, Protocol, cast

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, MultipleResultsFound, NoResultFound
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.selectable import TextualSelect

from tableside.store.errors import StoreError
from tableside.store.sqlite import BUSY_TIMEOUT_MS, sqlite_pragmas

READ_ONLY = "readonly database"
"""What SQLite says when a connection cannot write (issue 23)."""

Listener = Callable[[Any, str], None]
"""Called with the DBAPI connection and the SQL before each statement (tests, tracing)."""


class Executes(Protocol):
    """What the store's reads need of a connection: SQLAlchemy's, or a :class:`Tx`."""

    def execute(self, statement: Any, parameters: Any = None, /) -> Any:
        """Run one statement with its parameters; the result's rows."""


class Result:
    """A statement's rows (as SQLAlchemy's result gives them, for what the store uses)."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def all(self) -> list[Any]:
        """Every row."""
        return self.rows

    def one_or_none(self) -> Any:
        """The one row, or None when there is none."""
        if len(self.rows) > 1:
            raise MultipleResultsFound("Multiple rows were found when one or none was required")
        return self.rows[0] if self.rows else None

    def scalars(self) -> list[Any]:
        """Every row's first column."""
        return [row[0] for row in self.rows]

    def scalar_one_or_none(self) -> Any:
        """The one row's first column, or None."""
        row = self.one_or_none()
        return None if row is None else row[0]

    def scalar_one(self) -> Any:
        """The one row's first column."""
        if not self.rows:
            raise NoResultFound("No row was found when one was required")
        return self.scalar_one_or_none()


class Prebuilt:
    """One statement compiled once for a dialect: its SQL, parameter order and processors."""

    __slots__ = ("binds", "by_name", "defaults", "order", "results", "sql")

    def __init__(self, statement: ClauseElement, dialect: Any, keys: tuple[str, ...]) -> None:
        columns = list(keys) if isinstance(statement, Insert) else None
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=columns))
        self.sql: str = compiled.string
        self.order: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positiontup is not None else None
        )
        required = [name for name, bind in compiled.binds.items() if bind.required]
        self.defaults = {
            name: value
            for name, value in (compiled.construct_params(_check=False) or {}).items()
            if name not in required
        }
        self.binds = [
            (compiled.bind_names[bind], processor)
            for bind in compiled.binds.values()
            if (processor := bind.type.bind_processor(dialect)) is not None
        ]
        selected = getattr(statement, "selected_columns", ())
        processors = [(c.name, c.type.result_processor(dialect, None)) for c in selected]
        # a textual statement's typed columns are matched by name, as SQLAlchemy does
        self.by_name = {n: p for n, p in processors if p is not None}
        self.results: list[tuple[int, Any]] | None = None
        if not isinstance(statement, TextualSelect):
            self.by_name = {}
            self.results = [(i, p) for i, (_n, p) in enumerate(processors) if p is not None]

    def values(self, params: dict[str, Any]) -> Any:
        """The driver's parameters: positional for SQLite, named for PostgreSQL."""
        merged = {**self.defaults, **params}
        for name, processor in self.binds:
            merged[name] = processor(merged.get(name))
        if self.order is None:
            return merged
        return [merged[name] for name in self.order]

    def decoded(self, rows: list[Any], description: Any) -> list[Any]:
        """The rows with their columns as SQLAlchemy would give them (JSON decoded …)."""
        if self.results is None:
            names = [column[0] for column in description]
            self.results = [(i, self.by_name[n]) for i, n in enumerate(names) if n in self.by_name]
        if not self.results:
            return rows
        decoded = []
        for row in rows:
            values = list(row)
            for i, processor in self.results:
                values[i] = processor(values[i])
            decoded.append(tuple(values))
        return decoded


class _Held:
    """A thread's connection, with the generation it was opened in (SV-3)."""

    __slots__ = ("busy", "connection", "generation", "thread")

    def __init__(self, connection: Any, generation: int) -> None:
        self.connection = connection
        self.generation = generation
        self.thread = threading.current_thread()
        self.busy = False


class Link:
    """Each thread's own driver connection to a store's database (see the module's rules)."""

    def __init__(self, engine: Engine, write_turn: AbstractContextManager[Any]) -> None:
        self._engine = engine
        self._dialect = engine.dialect
        self._sqlite = engine.dialect.name == "sqlite"
        self._dbapi: Any = engine.dialect.loaded_dbapi
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        if self._sqlite:
            kwargs = {**kwargs, "timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
        self._args: tuple[list[Any], dict[str, Any]] = (list(args), dict(kwargs))
        self._write_turn = write_turn if self._sqlite else nullcontext()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._held: set[_Held] = set()
        self._generation = 0
        self._closed = False
        self._built: dict[tuple[int, tuple[str, ...]], tuple[ClauseElement, Prebuilt]] = {}
        self.listeners: list[Listener] = []

    @staticmethod
    def serves(engine: Engine) -> bool:
        """Whether a link can serve this engine's database (a SQLite file, or psycopg)."""
        url = engine.url
        if engine.dialect.name == "sqlite":
            database = url.database or ""
            return database not in ("", ":memory:") and not url.query
        return engine.dialect.driver == "psycopg"

    # -- transactions ---------------------------------------------------------------------

    @contextmanager
    def transaction(self, write: bool) -> Iterator[Tx]:
        """One transaction on this thread's connection (SV-1): committed, or rolled back."""
        with self._write_turn if write else nullcontext():
            held, own = self._take()
            tx = Tx(self, held)
            try:
                if self._sqlite:
                    tx.send("BEGIN IMMEDIATE" if write else "BEGIN")
                yield tx
                tx.commit()
            except BaseException as error:
                self._end_failed(tx.held, error)
                raise
            finally:
                tx.held.busy = False
                if not own:
                    self._discard(tx.held)

    def _end_failed(self, held: _Held, error: BaseException) -> None:
        """Roll back; a connection whose driver failed is closed, never reused (SV-2)."""
        if isinstance(error, DBAPIError | self._dbapi.Error):
            self._discard(held)
            return
        try:
            held.connection.rollback()
        except self._dbapi.Error:
            self._discard(held)

    def failed(self, error: Exception, sql: str, params: Any) -> DBAPIError:
        """The driver's failure as SQLAlchemy's, read-only noted (SV-2, SV-3)."""
        if self._sqlite and READ_ONLY in str(error):
            self.retire()
            self._engine.dispose()
        return cast(DBAPIError, DBAPIError.instance(sql, params, error, self._dbapi.Error))

    def retire(self) -> None:
        """No connection opened until now serves again (each is closed when next taken)."""
        with self._lock:
            self._generation += 1

    # -- connections ----------------------------------------------------------------------

    def _take(self) -> tuple[_Held, bool]:
        """This thread's connection (True), or a connection of its own when that one is busy."""
        held: _Held | None = getattr(self._local, "held", None)
        if held is not None and held.generation != self._generation:
            self._discard(held)
            held = None
        if held is not None and held.busy:
            fresh = self.reopen(None)
            fresh.busy = True
            return fresh, False
        if held is None:
            held = self.reopen(None)
            self._local.held = held
        held.busy = True
        return held, True

    def reopen(self, broken: _Held | None) -> _Held:
        """A new connection (in place of ``broken``, discarded, as this thread's own)."""
        if self._closed:
            raise StoreError("The store is closed.")
        own = broken is not None and getattr(self._local, "held", None) is broken
        if broken is not None:
            self._discard(broken)
        args, kwargs = self._args
        try:
            connection = self._dbapi.connect(*args, **kwargs)
            if self._sqlite:
                sqlite_pragmas(connection)
        except self._dbapi.Error as error:
            raise self.failed(error, "connect", None) from error
        held = _Held(connection, self._generation)
        with self._lock:
            finished = [h for h in self._held if not h.thread.is_alive()]
            self._held.add(held)
        for old in finished:
            self._discard(old)
        if own:
            self._local.held = held
        return held

    def _discard(self, held: _Held) -> None:
        with self._lock:
            self._held.discard(held)
        if getattr(self._local, "held", None) is held:
            self._local.held = None
        with suppress(self._dbapi.Error):
            held.connection.close()

    def open_count(self) -> int:
        """How many connections are open (tests: none after :meth:`close`)."""
        with self._lock:
            return len(self._held)

    def close(self) -> None:
        """Close every thread's connection (SV-4); the link opens no more."""
        self._closed = True
        with self._lock:
            held, self._held = list(self._held), set()
        for one in held:
            with suppress(self._dbapi.Error):
                one.connection.close()

    # -- statements -----------------------------------------------------------------------

    def prebuilt(self, statement: ClauseElement, keys: tuple[str, ...]) -> Prebuilt:
        """The statement compiled for this dialect (once; the store's statements are constants)."""
        key = (id(statement), keys if isinstance(statement, Insert) else ())
        found = self._built.get(key)
        if found is not None and found[0] is statement:
            return found[1]
        if len(self._built) > 512:  # a statement built per call: never let the cache grow
            self._built.clear()
        built = Prebuilt(statement, self._dialect, keys)
        self._built[key] = (statement, built)
        return built


class Tx:
    """One transaction on a thread's connection: ``execute`` as SQLAlchemy's connection does."""

    __slots__ = ("first", "held", "link")

    def __init__(self, link: Link, held: _Held) -> None:
        self.link = link
        self.held = held
        self.first = True

    def execute(self, statement: ClauseElement, parameters: Any = None, /) -> Result:
        """Run one of the store's statements (a list of parameter sets: one each)."""
        if isinstance(parameters, list):
            total = 0
            for one in parameters:
                total += self.execute(statement, one).rowcount
            return Result([], total)
        params: dict[str, Any] = parameters or {}
        built = self.link.prebuilt(statement, tuple(params))
        values = built.values(params)
        cursor = self.send(built.sql, values)
        if cursor.description is None:
            return Result([], cursor.rowcount)
        return Result(built.decoded(cursor.fetchall(), cursor.description), cursor.rowcount)

    def send(self, sql: str, values: Any = ()) -> Any:
        """Send SQL to the driver; a PostgreSQL connection broken before the first is replaced."""
        link = self.link
        try:
            for listener in link.listeners:
                listener(self.held.connection, sql)
            cursor = self.held.connection.execute(sql, values)
        except link._dbapi.Error as error:
            connection = self.held.connection
            if not (self.first and not link._sqlite and (connection.broken or connection.closed)):
                raise link.failed(error, sql, values) from error
        else:
            self.first = False
            return cursor
        self.held = link.reopen(self.held)  # SV-3: nothing was done on the broken one
        self.held.busy = True
        try:
            return self.held.connection.execute(sql, values)
        except link._dbapi.Error as error:
            raise link.failed(error, sql, values) from error
        finally:
            self.first = False

    def commit(self) -> None:
        """Commit the transaction (as SQLAlchemy does: the driver's ``commit``)."""
        try:
            self.held.connection.commit()
        except self.link._dbapi.Error as error:
            raise self.link.failed(error, "COMMIT", None) from error
