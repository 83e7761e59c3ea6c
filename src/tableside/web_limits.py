"""The web table's limits (W-13 in docs/security.md): defaults and environment variables.

Kept apart from :mod:`tableside.web` so that ``tableside serve --help`` can name them without
loading the web stack.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields

from tableside.errors import TablesideError
from tableside.limits import SERVE_LIMIT_MAX


@dataclass(frozen=True, slots=True)
class Limits:
    """The web table's limits (W-13), each with its environment variable in ``ENV``.

    Attributes:
        tables_per_minute: Tables one client address may create in any 60 seconds.
        max_combatants: Combatants (War) or models (fight) one encounter may hold.
        max_seats: Player seats one table may have.
        max_encounters: Encounters one table may have.
        max_body_bytes: Bytes of one request body (counted as they arrive, not only declared).
        streams_per_token: Live streams one token may hold open at once.
        max_streams: Live streams one server process holds open at once (a table's Host is
            never refused by it: a Host's own table always gets its streams).
        tables_per_hour: Tables one client address may create in any hour.
        seats_per_minute: Player seats one client address may add in any 60 seconds.
        streams_per_address: Live streams one client address may hold open at once.
        streams_per_table: Live streams the players of one table may hold open at once (its
            Host's do not count).
        commands_per_minute: Commands (commands, undo, redo, answers) one token may send in any
            60 seconds.
        table_commands_per_minute: Commands one table's tokens may send in all, in any 60 s.
        address_commands_per_minute: Commands one client address may send in any 60 seconds.
        chat_per_minute: Chat messages and free rolls one token may post in any 60 seconds.
        table_chat_per_minute: Chat messages and free rolls one table may get in any 60 s.
    """

    tables_per_minute: int = 20
    max_combatants: int = 100
    max_seats: int = 50
    max_encounters: int = 100
    max_body_bytes: int = 256 * 1024
    streams_per_token: int = 8
    max_streams: int = 500
    tables_per_hour: int = 60
    seats_per_minute: int = 120
    streams_per_address: int = 48
    streams_per_table: int = 100
    commands_per_minute: int = 600
    table_commands_per_minute: int = 1200
    address_commands_per_minute: int = 2400
    chat_per_minute: int = 30
    table_chat_per_minute: int = 240

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, each replaced by its environment variable when set.

        Raises:
            TablesideError: A variable that is not a whole number of at least 1.
        """
        source = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for name, variable in ENV.items():
            raw = source.get(variable, "").strip()
            if raw:
                values[name] = whole_limit(variable, raw)
        return cls(**values)


ENV = {f.name: f"TABLESIDE_{f.name.upper()}" for f in fields(Limits)}
"""Each limit's environment variable, e.g. ``TABLESIDE_MAX_BODY_BYTES``."""


def whole_limit(label: str, raw: str) -> int:
    """A limit's value: a whole number from 1 to ``SERVE_LIMIT_MAX``, else one sentence."""
    if not re.fullmatch(r"[0-9]{1,10}", raw) or not 1 <= int(raw) <= SERVE_LIMIT_MAX:
        raise TablesideError(
            f"{label} must be a whole number from 1 to {SERVE_LIMIT_MAX}, got {raw[:40]!r}."
        )
    return int(raw)
