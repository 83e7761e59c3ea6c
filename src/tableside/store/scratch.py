"""Throw-away PostgreSQL schemas, so tests and benchmarks never touch real data.

``scratch_schema(base_url)`` creates a uniquely named schema in the database of ``base_url``
and yields a URL whose connections use it (``search_path``); the schema and everything in it
are dropped afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine
from sqlalchemy.engine import URL

from tableside.store.errors import StoreError
from tableside.store.url import resolve_url


@contextmanager
def scratch_schema(base_url: str, prefix: str = "tableside_scratch") -> Iterator[str]:
    """A URL on a new, empty PostgreSQL schema that is dropped on exit.

    Args:
        base_url: A PostgreSQL URL whose user may create schemas in its database.
        prefix: The start of the schema's name (a random suffix follows).

    Yields:
        The URL to open a Store with.

    Raises:
        StoreError: ``base_url`` is not a PostgreSQL URL.
    """
    base = resolve_url(base_url)
    if base.get_backend_name() != "postgresql":
        raise StoreError(f"A scratch schema needs a PostgreSQL URL, got {base_url!r}.")
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        try:
            yield with_search_path(base, schema).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        admin.dispose()


def with_search_path(url: URL, schema: str) -> URL:
    """``url`` with connections that find (and create) tables in ``schema``."""
    return url.update_query_dict({"options": f"-csearch_path={schema}"})
