"""Alembic environment: runs the migrations on the connection ``tableside.store.migrate`` binds.

The caller owns the transaction (and, on PostgreSQL, the advisory lock that keeps two
migrators apart); this file only configures the context and runs the scripts.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from tableside.store.models import Base


def run_migrations(connection: Connection) -> None:
    """Run the pending migrations on ``connection`` (batch mode, so SQLite can alter tables)."""
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


bound = context.config.attributes.get("connection")
if not isinstance(bound, Connection):
    raise RuntimeError("Run the store's migrations through tableside.store.migrate.")
run_migrations(bound)
