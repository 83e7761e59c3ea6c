"""The Host's set-up of a web table: encounters, seats, sessions and new links (W-11, W-12)."""

from __future__ import annotations

import secrets
from typing import Any

from tableside.service import game_for
from tableside.store import tables
from tableside.store.db import EncounterInfo
from tableside.web.auth import (
    Principal,
    new_token,
    require_host,
    token_hash,
)
from tableside.web.guards import TooLargeError, holder_key
from tableside.web.table_live import LiveTable
from tableside.web.table_views import (
    seat_view,
)

SEED_BITS = 62


class SeatingTable(LiveTable):
    """The Host's set-up: tables, encounters, player seats, sessions and rotation."""

    def create_table(self, name: str, client: str | None = None) -> tuple[int, str]:
        """A new table and its Host's token (shown once, stored hashed).

        Args:
            name: The table's name.
            client: The address asking, counted against ``tables_per_minute`` (None: a caller
                in this process, e.g. the demo, not counted).
        """
        if client is not None:
            self.rates.table_created(client)
        token = new_token()
        return tables.create_table(self.store, name, token_hash(token)), token

    def create_encounter(
        self, who: Principal, table_id: int, game: str, name: str, seed: int | None
    ) -> EncounterInfo:
        """A new encounter at the Host's table."""
        require_host(who, "create encounters")
        game_for(game)
        held = len(tables.table(self.store, table_id).encounters)
        if held >= self.limits.max_encounters:
            raise TooLargeError(
                f"Table {table_id} already has {held} encounters, the most allowed "
                f"({self.limits.max_encounters})."
            )
        seed = secrets.randbits(SEED_BITS) if seed is None else seed
        encounter_id = tables.create_table_encounter(self.store, table_id, name, game, seed)
        return self.store.encounter(encounter_id)

    def add_player(
        self,
        who: Principal,
        table_id: int,
        name: str,
        characters: tuple[str, ...],
        client: str | None = None,
    ) -> tuple[tables.Seat, str]:
        """A new player's seat and its join token (shown once, stored hashed).

        ``client``: the address asking, counted against ``seats_per_minute`` (None: not counted).
        """
        require_host(who, "add players")
        self._audience.read = None
        held = len(tables.seats(self.store, table_id))
        if held >= self.limits.max_seats:
            raise TooLargeError(
                f"Table {table_id} already has {held} player seats, the most allowed "
                f"({self.limits.max_seats})."
            )
        if client is not None:
            self.rates.seats.take(client, "player seats added")
        token = new_token()
        return tables.add_seat(self.store, table_id, name, characters, token_hash(token)), token

    # -- sessions, revocation and rotation (W-11, W-12) ----------------------------------

    def start_session(self, token: str) -> tuple[Principal, str]:
        """Exchange a token for a new browser session (W-11): its holder and the session's id.

        The id is as unguessable as a token; the store keeps only its hash, tied to the token's
        hash, so the session ends with the token.
        """
        who = self.principal(token)
        session_id = new_token()
        tables.create_session(self.store, token_hash(session_id), token_hash(token))
        return who, session_id

    def remove_player(self, who: Principal, table_id: int, seat_id: int) -> tables.Seat:
        """The Host removes a seat (W-12): its token and sessions are refused at once."""
        require_host(who, "remove players")
        self._audience.read = None
        seat = tables.remove_seat(self.store, table_id, seat_id)
        self.wake_table(table_id)
        return seat

    def edit_player(
        self, who: Principal, table_id: int, seat_id: int, name: str, characters: tuple[str, ...]
    ) -> tables.Seat:
        """The Host renames a seat or changes its characters (W-28); its link stays.

        The seat's open streams end (without ``revoked``) and their pages reconnect, so that
        what each reads is decided by the seat as it is now.
        """
        require_host(who, "change players' seats")
        self._audience.read = None
        seat = tables.edit_seat(self.store, table_id, seat_id, name, characters)
        self.wake_table(table_id)
        return seat

    def connected(self, table_id: int, seat: tables.Seat | None) -> int:
        """How many live streams (open pages) a seat (None: the Host) has in this process."""
        return self.streams.open(holder_key(Principal(table_id, seat)))

    def rotate_player(self, who: Principal, table_id: int, seat_id: int) -> tuple[tables.Seat, str]:
        """The Host gives a seat a new join token (W-12); the old one is refused at once."""
        require_host(who, "give players new join links")
        token = new_token()
        seat = tables.rotate_seat_token(self.store, table_id, seat_id, token_hash(token))
        self.wake_table(table_id)
        return seat, token

    def rotate_host(self, who: Principal, table_id: int) -> str:
        """The Host takes a new Host token (W-12); the old one is refused at once."""
        require_host(who, "give the Host a new link")
        token = new_token()
        tables.rotate_host_token(self.store, table_id, token_hash(token))
        self.wake_table(table_id)
        return token

    def wake_table(self, table_id: int) -> None:
        """Wake this process's streams of the table's encounters (they check their holder)."""
        for encounter_id in tables.table_encounters(self.store, table_id):
            self.notifier.publish(encounter_id)

    def table_view(self, who: Principal) -> dict[str, Any]:
        """The table, its encounters and (for the Host) its seats."""
        info = tables.table(self.store, who.table_id)
        encounters = [self.store.encounter(i) for i in info.encounters]
        view: dict[str, Any] = {
            "id": info.id,
            "name": info.name,
            "role": who.role,
            "encounters": [
                {"id": e.id, "name": e.name, "game": e.game, "revision": e.revision}
                for e in encounters
            ],
        }
        if who.seat is not None:
            view["seat"] = seat_view(who.seat)
        else:
            view["seats"] = [seat_view(s) for s in tables.seats(self.store, info.id)]
        return view
