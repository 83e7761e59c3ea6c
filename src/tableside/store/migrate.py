"""Alembic, driven from code: the migrations ship inside the package, no ``alembic.ini``.

A Store upgrades its database to the newest migration when it opens. Developers make a new
migration after changing ``models.py`` with::

    .venv/bin/python -m tableside.store revision "add a column"

which compares the models with a scratch SQLite database upgraded to head, writes the new file
into ``src/tableside/store/migrations/versions`` and tidies it with ruff when ruff is installed
(review it before committing).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DBAPIError

from tableside.store.engine import create_store_engine, writer
from tableside.store.schema import SCRIPT_LOCATION, shipped_head

if TYPE_CHECKING:  # Alembic is imported only when a migration has to run (start-up time)
    from alembic.config import Config

PG_MIGRATION_LOCK = 7_305_112_019  # pg_advisory_xact_lock key: one migrator at a time


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration built in code, optionally bound to an open connection.

    Args:
        connection: The connection that ``migrations/env.py`` runs the migrations on.

    Returns:
        The configuration.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest migration's id."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the store ships at least one migration"
    return head


def current_revision(engine: Engine) -> str | None:
    """The migration the database is at (None before the first)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, target: str = "head") -> None:
    """Migrate the database to ``target`` in one transaction, one migrator at a time.

    Args:
        engine: The store's engine.
        target: An Alembic revision (``head`` by default).

    A database already at the shipped head is left alone without loading Alembic (one read of
    ``alembic_version``), which keeps every command's start-up short.
    """
    if target == "head" and _at_head(engine):
        return
    from alembic import command

    with migrating(engine) as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_MIGRATION_LOCK}
            )
        command.upgrade(alembic_config(connection), target)


@contextmanager
def migrating(engine: Engine) -> Iterator[Connection]:
    """One transaction to migrate in; on SQLite with foreign keys off, checked before commit."""
    with writer(engine).connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:  # tables rebuilt (batch mode) must not cascade into their children
            foreign_keys(connection, on=False)
        try:
            with connection.begin():
                yield connection
                if sqlite:
                    require_foreign_keys(connection)
        finally:
            if sqlite:
                foreign_keys(connection, on=True)


def foreign_keys(connection: Connection, on: bool) -> None:
    """Turn SQLite's foreign keys on or off on ``connection`` (outside any transaction).

    A migration that rebuilds a table (Alembic's batch mode: copy, drop, rename) would
    otherwise delete, through ``ON DELETE CASCADE``, every row that refers to it.
    """
    connection.connection.driver_connection.execute(  # type: ignore[union-attr]
        f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}"
    )


def require_foreign_keys(connection: Connection) -> None:
    """Refuse to commit a migration that left a row referring to no row (SQLite).

    Raises:
        RuntimeError: Naming the first table with such a row.
    """
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
    if broken is not None:
        raise RuntimeError(f"The migration left a row of {broken[0]} referring to no row.")


def _at_head(engine: Engine) -> bool:
    """True when the database records exactly the shipped head (any doubt: False)."""
    head = shipped_head()
    if head is None:
        return False
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except DBAPIError:
        return False  # no table yet, or unreachable: the full upgrade says why
    return [row[0] for row in rows] == [head]


def downgrade(engine: Engine, target: str) -> None:
    """Migrate the database down to ``target`` (``base`` drops every table) in one transaction.

    Args:
        engine: The store's engine.
        target: An Alembic revision, or ``base``.
    """
    from alembic import command

    with migrating(engine) as connection:
        command.downgrade(alembic_config(connection), target)


def make_revision(message: str) -> None:
    """Write a new migration autogenerated from the models (see the module docstring).

    Args:
        message: What the migration does; it becomes the file's docstring and slug.
    """
    from alembic import command

    with tempfile.TemporaryDirectory() as folder:
        engine = create_store_engine(URL.create("sqlite+pysqlite", database=f"{folder}/head.db"))
        upgrade(engine)
        with writer(engine).begin() as connection:
            config = alembic_config(connection)
            _tidy_with_ruff(config)
            command.revision(config, message=message, autogenerate=True)
        engine.dispose()


def _tidy_with_ruff(config: Config) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        return
    config.set_section_option("post_write_hooks", "hooks", "fix, format")
    for name, arguments in (
        ("fix", "check --fix-only --quiet REVISION_SCRIPT_FILENAME"),
        ("format", "format --quiet REVISION_SCRIPT_FILENAME"),
    ):
        config.set_section_option("post_write_hooks", f"{name}.type", "exec")
        config.set_section_option("post_write_hooks", f"{name}.executable", ruff)
        config.set_section_option("post_write_hooks", f"{name}.options", arguments)
