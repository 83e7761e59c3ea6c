"""The table's roster in the store (issue 25): migration 0011 and seats bound to characters.

CH-1: characters belong to a table, owned by a seat or the Host. CH-2: a combatant bound to a
roster character is played by its owner only; one loaded from a file is the Host's whatever
names a seat lists; an encounter made before the roster keeps its seats' names. Both backends;
an old database (at 0009) is upgraded with its encounter still working, and goes down again.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text
from test_store_ids import a_hash

from tableside.encounter.log import Command
from tableside.service import run_command
from tableside.store import Store, roster, table_log, tables
from tableside.store.errors import StoreError
from tableside.store.migrate import current_revision, downgrade, head_revision, upgrade

HERALD = {"name": "Herald", "attributes": {"might": 42, "swiftness": 31, "control": 30,
          "endurance": 60, "resolve": 48, "passion": 72}}  # fmt: skip


def add_herald(store: Store, encounter_id: int, who: str = "Herald") -> None:
    command = Command("add", {"id": who, "character": {"format": "tableside/majesty-character",
                                                        "version": 1, **HERALD}})  # fmt: skip
    run_command(store, encounter_id, command)


def test_ch1_ch2_migration_0011_upgrades_an_old_store_and_goes_down_again(url: str) -> None:
    with Store.open(url) as store:
        downgrade(store.engine, "0010")
        assert current_revision(store.engine) == "0010"
        table_id = tables.create_table(store, "Friday", a_hash(1))
        old = tables.create_table_encounter(store, table_id, "Ford", "majesty-war", 3)
        add_herald(store, old)
        with store.engine.begin() as connection:  # a seat written by the code of 0009
            connection.execute(
                text("INSERT INTO seats (table_id, name, token_hash, characters) "
                     "VALUES (:t, 'Ann', :h, :c)"),
                {"t": table_id, "h": a_hash(2), "c": json.dumps(["Herald"])},
            )  # fmt: skip
        upgrade(store.engine)
        ann = tables.seats(store, table_id)[0]
        assert current_revision(store.engine) == head_revision()
        # The old encounter still works, and Ann still plays its Herald by name (CH-2).
        add_herald(store, old, "Herald2")
        assert store.encounter(old).revision == 2
        held = table_log.access(store, a_hash(2), old)
        assert held is not None and held.holder is not None and held.holder.seat is not None
        assert held.holder.seat.characters == ("Herald",)
        assert roster.trusts_players(store, table_id) is False
        cid = roster.add_character(store, table_id, "majesty-war", HERALD, ann.id)
        assert roster.character(store, cid).owner == ann.id
        downgrade(store.engine, "0010")
        assert store.encounter(old).revision == 2
        upgrade(store.engine)
        assert roster.characters(store, table_id) == []  # the roster went down with 0011


def test_ch2_a_files_herald_is_the_hosts_and_a_roster_one_its_owners(url: str) -> None:
    with Store.open(url) as store:
        table_id = tables.create_table(store, "Friday", a_hash(1))
        tables.add_seat(store, table_id, "Ann", ("Herald",), a_hash(2))
        bo = tables.add_seat(store, table_id, "Bo", (), a_hash(3))
        war = tables.create_table_encounter(store, table_id, "Ford", "majesty-war", 3)
        roster.bind_to_host(store, war, ["Herald"])  # loaded from a file
        add_herald(store, war)
        cid = roster.add_character(store, table_id, "majesty-war", HERALD, bo.id)
        roster.bind(store, war, "Bo_Herald", cid)
        add_herald(store, war, "Bo_Herald")
        played = {s.name: s.characters for s in tables.seats(store, table_id, war)}
        assert played == {"Ann": (), "Bo": ("Bo_Herald",)}
        held = table_log.access(store, a_hash(2), war)
        assert held is not None and held.holder is not None and held.holder.seat is not None
        assert held.holder.seat.characters == ()  # Ann's "Herald" is not the file's
        assert held.secrecy is not None
        assert held.secrecy.played == frozenset({"Bo_Herald"})
        assert held.secrecy.secret("Herald") and not held.secrecy.secret("Bo_Herald")
        # Ann's name still binds elsewhere (a table's list is not lost).
        assert tables.seats(store, table_id)[0].characters == ("Herald",)
        tables.remove_seat(store, table_id, bo.id)
        assert roster.character(store, cid).owner is None  # the Host's now


def test_ch1_an_owner_must_be_a_seat_of_the_table(url: str) -> None:
    with Store.open(url) as store:
        one = tables.create_table(store, "Friday", a_hash(1))
        two = tables.create_table(store, "Inn", a_hash(2))
        other = tables.add_seat(store, two, "Cy", (), a_hash(3))
        with pytest.raises(tables.UnknownSeatError):
            roster.add_character(store, one, "majesty-war", HERALD, other.id)
        with pytest.raises(StoreError, match="no roster character with id 99"):
            roster.character(store, 99)
        assert roster.characters(store, one) == []
