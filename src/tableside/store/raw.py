"""The web table's hot statements on the database driver itself (issue 26, SV-1 … SV-4, SV-20 …).

Under a web table's load SQLAlchemy's own Python (its statement cache, parameter building,
``Connection`` and transaction events) cost about nine times what the driver's execute did. So
the hot reads and appends (``table_log.access`` and ``append``, ``Store.append`` and
``encounter``, ``table_audience``'s reads, ``records_after``) run through a :class:`Link`:
DBAPI connections (``sqlite3`` or ``psycopg``) of its own, opened as the engine opens its
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
- SV-4: :meth:`Link.close` (``Store.close``) closes every connection the link opened, of any
  thread: idle ones at once, one in use as its transaction ends; on PostgreSQL the link opens
  at most :data:`POSTGRES_CONNECTIONS`.
- SV-20: PostgreSQL's connections are in autocommit: at read committed a read sends no
  ``BEGIN`` or ``COMMIT`` (each statement takes its own snapshot either way).
- SV-21: a ``lone`` write (one statement, as PostgreSQL's append) is its own transaction; a
  write of more statements sends ``BEGIN`` first.
- SV-22: on PostgreSQL a statement's rows are told by its result's status, not its
  description, and each connection keeps one cursor.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any, Protocol, cast

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, MultipleResultsFound, NoResultFound, OperationalError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import Insert, UpdateBase
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.selectable import SelectBase, TextualSelect

from tableside.store.errors import StoreError
from tableside.store.sqlite import BUSY_TIMEOUT_MS, sqlite_pragmas

TUPLES_OK = 2
"""libpq's status of a result with rows (``psycopg.pq.ExecStatus.TUPLES_OK``)."""

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

    __slots__ = ("binds", "by_name", "defaults", "order", "results", "sql", "writes")

    def __init__(self, statement: ClauseElement, dialect: Any, keys: tuple[str, ...]) -> None:
        columns = list(keys) if isinstance(statement, Insert) else None
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=columns))
        self.sql: str = compiled.string
        ctes = getattr(compiled, "ctes", None) or {}
        self.writes = not isinstance(statement, SelectBase) or any(
            isinstance(cte.element, UpdateBase) for cte in ctes
        )
        if "__[POSTCOMPILE_" in self.sql:  # an IN list is rendered per call: not prebuilt
            raise ValueError(f"A statement with an expanding parameter is not prebuilt: {self.sql}")
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

    def decoded(self, rows: list[Any], cursor: Any) -> list[Any]:
        """The rows with their columns as SQLAlchemy would give them (JSON decoded …).

        A textual statement's columns are matched by name the first time (``cursor``'s
        description), as SQLAlchemy matches them.
        """
        if self.results is None:
            names = [column[0] for column in cursor.description]
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
    """A driver connection, with the generation it was opened in (SV-3).

    Attributes:
        read_committed: A PostgreSQL connection whose transactions are read committed: its
            reads need no transaction of their own (SV-20).
    """

    __slots__ = ("connection", "cursor", "generation", "read_committed")

    def __init__(self, connection: Any, generation: int, read_committed: bool = False) -> None:
        self.connection = connection
        self.cursor = connection.cursor()  # SV-22: one for all its statements (rows all read)
        self.generation = generation
        self.read_committed = read_committed


POSTGRES_CONNECTIONS = 15
"""The most connections a link opens to PostgreSQL (SQLAlchemy's pool's default, 5 + 10)."""
WAIT_SECONDS = 30.0
"""How long a transaction waits for a PostgreSQL connection when all are in use (as the pool)."""


class Link:
    """The driver connections of a store's hot path (see the module's rules).

    Connections wait between transactions in a last-in, first-out list, so a thread mostly gets
    back the connection it just used, as with one connection a thread, while the number open
    is the number of transactions at once (at most :data:`POSTGRES_CONNECTIONS` on PostgreSQL,
    whose server admits 100 by default, against the threadpool's 40 threads a process).
    """

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
        self._cap = None if self._sqlite else POSTGRES_CONNECTIONS
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        self._idle: list[_Held] = []
        self._open: set[_Held] = set()
        self._opening = 0
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
    def transaction(self, write: bool, lone: bool = False) -> Iterator[Tx]:
        """One transaction on a connection of the link (SV-1): committed, or rolled back.

        On PostgreSQL a read at read committed, or a ``lone`` write (one statement, then reads
        only), sends no ``BEGIN`` and no ``COMMIT``: each statement is its own transaction,
        which under read committed reads what a transaction's statements read (SV-20, SV-21).
        """
        with self._write_turn if write else nullcontext():
            tx = Tx(self, self.take(), lone=write and lone and not self._sqlite)
            try:
                if self._sqlite:
                    tx.send("BEGIN IMMEDIATE" if write else "BEGIN")
                elif (write and not lone) or not (write or tx.held.read_committed):
                    tx.send("BEGIN")
                yield tx
                tx.commit()
            except BaseException as error:
                self._end_failed(tx.held, error)
                raise
            self._give_back(tx.held)

    def _end_failed(self, held: _Held, error: BaseException) -> None:
        """Roll back; a connection whose driver failed is closed, never reused (SV-2)."""
        if isinstance(error, DBAPIError | self._dbapi.Error):
            self.discard(held)
            return
        try:
            held.connection.rollback()
        except self._dbapi.Error:
            self.discard(held)
            return
        self._give_back(held)

    def failed(self, error: Exception, sql: str, params: Any) -> DBAPIError:
        """The driver's failure as SQLAlchemy's, read-only noted (SV-2, SV-3)."""
        if self._sqlite and READ_ONLY in str(error):
            self.retire()
            self._engine.dispose()
        return cast(DBAPIError, DBAPIError.instance(sql, params, error, self._dbapi.Error))

    def retire(self) -> None:
        """No connection opened until now serves again: idle ones close now, the rest when done."""
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
            self._open.difference_update(idle)
            self._returned.notify_all()
        self._close(idle)

    # -- connections ----------------------------------------------------------------------

    def take(self) -> _Held:
        """An idle connection of this generation, else a new one (on PostgreSQL, in the cap)."""
        with self._lock:
            while True:
                if self._closed:
                    raise StoreError("The store is closed.")
                if self._idle:
                    return self._idle.pop()
                if self._cap is None or len(self._open) + self._opening < self._cap:
                    self._opening += 1
                    break
                if not self._returned.wait(WAIT_SECONDS):
                    busy = TimeoutError(f"all {self._cap} connections stayed in use")
                    raise OperationalError("connect", None, busy)
        return self._connect()

    def _connect(self) -> _Held:
        args, kwargs = self._args
        read_committed = False
        try:
            connection = self._dbapi.connect(*args, **kwargs)
            if self._sqlite:
                sqlite_pragmas(connection)
            else:
                read_committed = _autocommit(connection)
        except self._dbapi.Error as error:
            with self._lock:
                self._opening -= 1
                self._returned.notify()
            raise self.failed(error, "connect", None) from error
        with self._lock:
            self._opening -= 1
            held = _Held(connection, self._generation, read_committed)
            if not self._closed:
                self._open.add(held)
                return held
        self._close([held])
        raise StoreError("The store is closed.")

    def reopen(self, broken: _Held) -> _Held:
        """A new connection in place of ``broken`` (closed)."""
        self.discard(broken)
        return self.take()

    def _give_back(self, held: _Held) -> None:
        with self._lock:
            if not self._closed and held.generation == self._generation:
                self._idle.append(held)
                self._returned.notify()
                return
        self.discard(held)

    def discard(self, held: _Held) -> None:
        """Close a connection; it serves no more."""
        with self._lock:
            self._open.discard(held)
            self._returned.notify()
        self._close([held])

    def _close(self, held: list[_Held]) -> None:
        for one in held:
            with suppress(self._dbapi.Error):
                one.connection.close()

    def open_count(self) -> int:
        """How many connections are open (tests: none after :meth:`close`)."""
        with self._lock:
            return len(self._open)

    def close(self) -> None:
        """Close every connection (SV-4): idle ones now, one in use when its transaction ends.

        The link opens no more (as SQLAlchemy's ``dispose``, a transaction under way ends first).
        """
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._open.difference_update(idle)
            self._returned.notify_all()
        self._close(idle)

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


def _autocommit(connection: Any) -> bool:
    """Put a PostgreSQL connection in autocommit; whether its isolation is read committed.

    The link begins its transactions itself (SV-20, SV-21): a write that is more than one
    statement with ``BEGIN``, a read at a stricter isolation too.
    """
    connection.autocommit = True
    row = connection.execute("SHOW transaction_isolation").fetchone()
    return row is not None and row[0] == "read committed"


class Tx:
    """One transaction on a link's connection: ``execute`` as SQLAlchemy's connection does.

    A ``lone`` transaction (SV-21) is one write statement, its own transaction on PostgreSQL:
    after it, only reads (a refusal's explanation).
    """

    __slots__ = ("first", "held", "link", "lone", "wrote")

    def __init__(self, link: Link, held: _Held, lone: bool = False) -> None:
        self.link = link
        self.held = held
        self.first = True
        self.lone = lone
        self.wrote = False

    def execute(self, statement: ClauseElement, parameters: Any = None, /) -> Result:
        """Run one of the store's statements (a list of parameter sets: one each)."""
        if isinstance(parameters, list):
            total = 0
            for one in parameters:
                total += self.execute(statement, one).rowcount
            return Result([], total)
        params: dict[str, Any] = parameters or {}
        built = self.link.prebuilt(statement, tuple(params))
        if self.lone and built.writes:
            if self.wrote:  # SV-21: each statement is its own transaction
                raise StoreError("A lone write's transaction runs one write, then reads only.")
            self.wrote = True
        values = built.values(params)
        cursor = self.send(built.sql, values)
        if self.link._sqlite:
            if cursor.description is None:
                return Result([], cursor.rowcount)
        else:  # SV-22: psycopg builds its description's columns anew each time it is asked
            answered = cursor.pgresult
            if answered is None or answered.status != TUPLES_OK:
                return Result([], cursor.rowcount)
        return Result(built.decoded(cursor.fetchall(), cursor), cursor.rowcount)

    def send(self, sql: str, values: Any = ()) -> Any:
        """Send SQL to the driver; a PostgreSQL connection broken before the first is replaced."""
        link = self.link
        try:
            for listener in link.listeners:
                listener(self.held.connection, sql)
            cursor = self.held.cursor.execute(sql, values)
        except link._dbapi.Error as error:
            connection = self.held.connection
            if not (self.first and not link._sqlite and (connection.broken or connection.closed)):
                raise link.failed(error, sql, values) from error
        else:
            self.first = False
            return cursor
        self.held = link.reopen(self.held)  # SV-3: nothing was done on the broken one
        try:
            return self.held.cursor.execute(sql, values)
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
