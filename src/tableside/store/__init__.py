"""Persistence adapter: encounters (append-only logs of records) and characters, by URL.

SQLite by default (``$TABLESIDE_DB_PATH``, else ``./tableside.db``), PostgreSQL when
``$TABLESIDE_DATABASE_URL`` (or an explicit URL) says so. The schema is created and migrated
by Alembic when a :class:`Store` opens. The store is system-agnostic: it imports
``tableside.encounter.log`` and nothing of any game.

The names below are imported on first use, so that a module of the package that needs no
SQLAlchemy (``errors``, ``records``, ``lite``) can be imported without it (start-up time).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tableside.store.db import Store, StoredCharacter
    from tableside.store.errors import (
        StaleRevisionError,
        StoreError,
        UnknownCharacterError,
        UnknownEncounterError,
    )
    from tableside.store.formats import CHARACTER_FORMAT, ENCOUNTER_FORMAT, FORMAT_VERSION
    from tableside.store.records import EncounterInfo
    from tableside.store.url import DATABASE_URL_ENV, DB_PATH_ENV, resolve_url

_HOMES = {
    "CHARACTER_FORMAT": "formats",
    "DATABASE_URL_ENV": "url",
    "DB_PATH_ENV": "url",
    "ENCOUNTER_FORMAT": "formats",
    "FORMAT_VERSION": "formats",
    "EncounterInfo": "records",
    "StaleRevisionError": "errors",
    "Store": "db",
    "StoreError": "errors",
    "StoredCharacter": "db",
    "UnknownCharacterError": "errors",
    "UnknownEncounterError": "errors",
    "resolve_url": "url",
}

__all__ = [
    "CHARACTER_FORMAT",
    "DATABASE_URL_ENV",
    "DB_PATH_ENV",
    "ENCOUNTER_FORMAT",
    "FORMAT_VERSION",
    "EncounterInfo",
    "StaleRevisionError",
    "Store",
    "StoreError",
    "StoredCharacter",
    "UnknownCharacterError",
    "UnknownEncounterError",
    "resolve_url",
]


def __getattr__(name: str) -> Any:
    """One of ``__all__``, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tableside.store' has no attribute {name!r}")
    value = getattr(import_module(f"tableside.store.{home}"), name)
    globals()[name] = value
    return value
