"""Which database a Store opens: an explicit URL, else $TABLESIDE_DATABASE_URL, else SQLite."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from tableside.store.errors import StoreError

DATABASE_URL_ENV = "TABLESIDE_DATABASE_URL"
DB_PATH_ENV = "TABLESIDE_DB_PATH"
DEFAULT_DB_PATH = "tableside.db"

BACKENDS = ("sqlite", "postgresql")
_DRIVER_ALIASES = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "sqlite": "sqlite+pysqlite",
}


def resolve_url(url: str | None = None, environ: Mapping[str, str] | None = None) -> URL:
    """The database URL to open.

    Args:
        url: An SQLAlchemy URL; when given it wins over the environment.
        environ: The environment to read (``os.environ`` when None).

    Returns:
        ``url``, else ``$TABLESIDE_DATABASE_URL``, else SQLite at ``$TABLESIDE_DB_PATH``
        (default ``./tableside.db``). PostgreSQL URLs without a driver get ``psycopg``.

    Raises:
        StoreError: The URL does not parse or names a database other than SQLite or PostgreSQL.
    """
    env = os.environ if environ is None else environ
    text = url or env.get(DATABASE_URL_ENV) or None
    if text is None:
        path = Path(env.get(DB_PATH_ENV) or DEFAULT_DB_PATH).expanduser()
        return URL.create("sqlite+pysqlite", database=str(path))
    return _with_driver(_parse(text))


def _parse(text: str) -> URL:
    try:
        return make_url(text)
    except ArgumentError:
        raise StoreError(
            f"Cannot read the database URL {text!r}: expected e.g. 'sqlite:///tableside.db' or "
            "'postgresql+psycopg://user:password@host/db'."
        ) from None


def _with_driver(url: URL) -> URL:
    url = url.set(drivername=_DRIVER_ALIASES.get(url.drivername, url.drivername))
    if url.get_backend_name() not in BACKENDS:
        raise StoreError(
            f"Unsupported database {shown(url)!r}: Tableside stores data in SQLite or PostgreSQL."
        )
    return url


def shown(url: URL) -> str:
    """The URL as text with any password hidden, for messages."""
    return url.render_as_string(hide_password=True)
