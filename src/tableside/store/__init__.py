"""Persistence adapter: encounters (append-only logs of records) and characters, by URL.

SQLite by default (``$TABLESIDE_DB_PATH``, else ``./tableside.db``), PostgreSQL when
``$TABLESIDE_DATABASE_URL`` (or an explicit URL) says so. The schema is created and migrated
by Alembic when a :class:`Store` opens. The store is system-agnostic: it imports
``tableside.encounter.log`` and nothing of any game.
"""

from tableside.store.db import EncounterInfo, Store, StoredCharacter
from tableside.store.errors import (
    StaleRevisionError,
    StoreError,
    UnknownCharacterError,
    UnknownEncounterError,
)
from tableside.store.formats import CHARACTER_FORMAT, ENCOUNTER_FORMAT, FORMAT_VERSION
from tableside.store.url import DATABASE_URL_ENV, DB_PATH_ENV, resolve_url

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
