"""Who is asking, for the routes: a request's credential, its holder, and the Host's right.

What every route on a table or an encounter does first, in one place (issue 23): read the
``Authorization`` header (``Bearer <token>``, or ``Session <id>`` for a browser, W-11), find its
holder at the table (401, 403 or 404: :meth:`~tableside.web.table_live.LiveTable.at_encounter`)
and, for what only the Host may do, refuse a player (403).
"""

from __future__ import annotations

from tableside.web.auth import Credential, Principal, credential, require_host
from tableside.web.table import WebTable
from tableside.web.table_views import Presented


def bearer(authorization: str | None) -> Credential | None:
    """The credential of the ``Authorization`` header: ``Bearer <token>`` or ``Session <id>``.

    ``Session`` carries a browser's cookie, put there by the session middleware after its CSRF
    check (W-11).
    """
    return credential(authorization)


def who_at(
    table: WebTable, authorization: str | None, encounter_id: int, host_for: str | None = None
) -> Principal:
    """The holder of the request's credential at the table of encounter ``encounter_id``.

    ``host_for``: what the request does that only the Host may do (a player is refused, 403).
    """
    who, _info = table.at_encounter(bearer(authorization), encounter_id)
    if host_for is not None:
        require_host(who, host_for)
    return who


def host_at(table: WebTable, token: Presented, table_id: int) -> Principal:
    """The Host of table ``table_id`` (players are refused)."""
    who: Principal = table.at_table(token, table_id)
    require_host(who, "open the set-up pages")
    return who


def host_at_encounter(
    table: WebTable, token: Presented, table_id: int, encounter_id: int
) -> Principal:
    """The Host of the table of ``encounter_id``, which must be table ``table_id``."""
    who = host_at(table, token, table_id)
    table.at_encounter(token, encounter_id)
    return who
