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
        max_streams: Live streams one server process holds open at once.
    """

    tables_per_minute: int = 20
    max_combatants: int = 100
    max_seats: int = 50
    max_encounters: int = 100
    max_body_bytes: int = 256 * 1024
    streams_per_token: int = 8
    max_streams: int = 500

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
