"""Who sees what in a web table's encounter: secret values, seats, settings, hidden commands.

A player's request reads them all in one statement with the read that authorises it (issue 21,
item 8); a hidden command's records are never shown to players (W-1 … W-4, D-4, D-5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    String,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal,
    literal_column,
    null,
    select,
    union_all,
)
from sqlalchemy.sql.selectable import CompoundSelect

from tableside.errors import DataError
from tableside.store.bindings import owners_of, played_by, read_bindings
from tableside.store.db import (
    Store,
    _require_text,
)
from tableside.store.models import (
    COMBATANT_LENGTH,
    EncounterCombatantRow,
    EncounterSecrecyRow,
    EncounterSettingsRow,
    HiddenCommandRow,
    RosterCharacterRow,
    SeatRow,
    SecretValueRow,
    TableEncounterRow,
)
from tableside.store.raw import Executes
from tableside.store.tables import _TABLE_SEATS, Seat, _require_encounter


def hidden_seqs(store: Store, encounter_id: int) -> frozenset[int]:
    """The ``seq`` of every hidden command of an encounter."""
    with store._hot_read() as connection:
        return frozenset(connection.execute(_HIDDEN, {"hidden_of": encounter_id}).scalars())


_HIDDEN = select(HiddenCommandRow.seq).where(
    HiddenCommandRow.encounter_id == bindparam("hidden_of")
)


@dataclass(frozen=True, slots=True)
class Secrecy:
    """Whose values are secret from players in one encounter (see docs/web.md, W-1 … W-4).

    Attributes:
        npcs_secret: The encounter's setting: NPCs' values are secret (the default).
        choices: The Host's choice per combatant id (True secret, False open).
        played: Every combatant id a seat of the encounter's table plays.
    """

    npcs_secret: bool
    choices: dict[str, bool]
    played: frozenset[str]

    def secret(self, combatant: str) -> bool:
        """Whether the combatant's values are secret (from players who do not play it)."""
        chosen = self.choices.get(combatant)
        if chosen is not None:
            return chosen
        return self.npcs_secret and combatant not in self.played


# Built once: the setting (part 0), the Host's choices (part 1), every seat at the encounter's
# table (part 2: its characters, id and name) and the decision settings (part 3: npcs_decide as
# ``combatant``, trust_modifiers as ``flag``, decision_timeout as ``seat_id``, hidden_asks as
# ``seat_name``), in one statement. The seats' part comes first so that the union's columns keep
# their types (``characters`` is JSON).
_SECRECY: CompoundSelect[Any] = union_all(
    select(
        literal_column("2").label("part"),
        null().label("combatant"),
        null().label("flag"),
        SeatRow.characters.label("characters"),
        SeatRow.id.label("seat_id"),
        SeatRow.name.label("seat_name"),
        SeatRow.table_id.label("table_id"),
    )
    .join(TableEncounterRow, TableEncounterRow.table_id == SeatRow.table_id)
    .where(TableEncounterRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("0"),
        null(),
        EncounterSecrecyRow.npcs_secret,
        null(),
        null(),
        null(),
        null(),
    ).where(EncounterSecrecyRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("1"),
        SecretValueRow.combatant,
        SecretValueRow.secret,
        null(),
        null(),
        null(),
        null(),
    ).where(SecretValueRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("3"),
        EncounterSettingsRow.npcs_decide,
        EncounterSettingsRow.trust_modifiers,
        null(),
        EncounterSettingsRow.decision_timeout,
        EncounterSettingsRow.hidden_asks,
        null(),
    ).where(EncounterSettingsRow.encounter_id == bindparam("secrecy_id")),
    # The bindings (CH-2): "<combatant>:<owner seat id or nothing>" (ids have no colon).
    select(
        literal_column("4"),
        EncounterCombatantRow.combatant
        + literal(":")
        + func.coalesce(cast(RosterCharacterRow.owner_seat_id, String), literal("")),
        null(),
        null(),
        null(),
        null(),
        null(),
    )
    .select_from(EncounterCombatantRow)
    .join(
        RosterCharacterRow,
        RosterCharacterRow.id == EncounterCombatantRow.character_id,
        isouter=True,
    )
    .where(EncounterCombatantRow.encounter_id == bindparam("secrecy_id")),
)


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sits at an encounter's table and how its decisions are made, read with its secrecy.

    A player's request reads it with the read that authorises it (issue 21, item 8: a command's
    policy then reads nothing more).
    """

    secrecy: Secrecy
    seats: list[Seat]
    settings: DecisionSettings


def audience(store: Store, encounter_id: int) -> tuple[Audience, frozenset[int]]:
    """The encounter's :class:`Audience` and its hidden commands' ``seq``, in one transaction."""
    with store._hot_read() as connection:
        found = _read_audience(connection, encounter_id)
        hidden = frozenset(connection.execute(_HIDDEN, {"hidden_of": encounter_id}).scalars())
    return found, hidden


def secrecy(store: Store, encounter_id: int) -> Secrecy:
    """The encounter's secrecy settings and its table's seats, in one statement."""
    with store._hot_read() as connection:
        return _read_audience(connection, encounter_id).secrecy


def _read_secrecy(connection: Executes, encounter_id: int) -> Secrecy:
    """The encounter's secrecy on an open connection (one statement)."""
    return _read_audience(connection, encounter_id).secrecy


def _read_audience(connection: Executes, encounter_id: int) -> Audience:
    """The encounter's secrecy, its table's seats and its decision settings (one statement).

    The seats' characters are the combatants each plays in this encounter: a combatant bound to
    the roster by its character's owner, an unbound one by the seats that list its id (CH-2).
    """
    npcs_secret = True  # the default when the encounter has no setting stored
    choices: dict[str, bool] = {}
    played: set[str] = set()
    seats: list[tuple[int, int, str, list[str]]] = []
    owners: dict[str, int | None] = {}
    settings = DecisionSettings()
    for part, combatant, flag, characters, seat_id, seat_name, table_id in connection.execute(
        _SECRECY, {"secrecy_id": encounter_id}
    ):
        if part == 0:
            npcs_secret = bool(flag)
        elif part == 1:
            choices[combatant] = bool(flag)
        elif part == 2:
            played.update(characters)
            seats.append((seat_id, table_id, seat_name, characters))
        elif part == 3:
            settings = DecisionSettings(seat_id, str(combatant), bool(flag), str(seat_name))
        else:
            name, _colon, owner = str(combatant).rpartition(":")
            owners[name] = int(owner) if owner else None
    played.difference_update(owners)
    played.update(name for name, owner in owners.items() if owner is not None)
    seated = [Seat(i, t, n, played_by(i, c, owners), tuple(c)) for i, t, n, c in seats]
    seated.sort(key=lambda seat: seat.id)
    return Audience(Secrecy(npcs_secret, choices, frozenset(played)), seated, settings)


def set_npcs_secret(store: Store, encounter_id: int, npcs_secret: bool) -> None:
    """Set whether the values of an encounter's NPCs are secret."""
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(EncounterSecrecyRow).where(EncounterSecrecyRow.encounter_id == encounter_id)
        )
        connection.execute(
            insert(EncounterSecrecyRow).values(encounter_id=encounter_id, npcs_secret=npcs_secret)
        )


def set_secret(store: Store, encounter_id: int, combatant: str, secret: bool | None) -> None:
    """The Host's choice for one combatant: secret, open, or None to follow the setting."""
    _require_text(combatant, "A combatant id", COMBATANT_LENGTH)
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(SecretValueRow).where(
                SecretValueRow.encounter_id == encounter_id, SecretValueRow.combatant == combatant
            )
        )
        if secret is not None:
            connection.execute(
                insert(SecretValueRow).values(
                    encounter_id=encounter_id, combatant=combatant, secret=secret
                )
            )


TIMEOUT_MIN = 5
TIMEOUT_MAX = 3600
NPCS_DECIDE = ("ask", "auto")
HIDDEN_ASKS = ("player", "host")


@dataclass(frozen=True, slots=True)
class DecisionSettings:
    """An encounter's decision settings (docs/decisions.md, D-4 and D-5).

    Attributes:
        decision_timeout: Seconds after which an unanswered decision takes its suggestion
            (D-5); None waits for the answer (the default).
        npcs_decide: ``auto`` (the suggestion is taken at once, the default since issue 21) or
            ``ask`` (the Host is asked for its NPCs' choices).
        trust_modifiers: A player's proposed modifiers apply without the Host's approval (D-4;
            off by default).
        hidden_asks: Who decides a hidden Host command's choices that belong to a player's
            character: ``player`` (its player is asked, the default) or ``host`` (the Host
            decides them, and both screens say so; issue 21, D-4).
    """

    decision_timeout: int | None = None
    npcs_decide: str = "auto"
    trust_modifiers: bool = False
    hidden_asks: str = "player"

    def __post_init__(self) -> None:
        """Refuse a setting out of range, naming it and the value."""
        timeout = self.decision_timeout
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, int)
            or not TIMEOUT_MIN <= timeout <= TIMEOUT_MAX
        ):
            raise DataError(
                f"The decision timeout must be null (wait) or whole seconds from {TIMEOUT_MIN} "
                f"to {TIMEOUT_MAX}, not {timeout!r}."
            )
        if self.npcs_decide not in NPCS_DECIDE:
            raise DataError(f"npcs_decide must be 'ask' or 'auto', not {self.npcs_decide!r}.")
        if not isinstance(self.trust_modifiers, bool):
            raise DataError(f"trust_modifiers must be true or false, not {self.trust_modifiers!r}.")
        if self.hidden_asks not in HIDDEN_ASKS:
            raise DataError(f"hidden_asks must be 'player' or 'host', not {self.hidden_asks!r}.")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (what ``GET /api/encounters/{eid}/settings`` answers)."""
        return {
            "decision_timeout": self.decision_timeout,
            "npcs_decide": self.npcs_decide,
            "trust_modifiers": self.trust_modifiers,
            "hidden_asks": self.hidden_asks,
        }


def decision_settings(store: Store, encounter_id: int) -> DecisionSettings:
    """The encounter's decision settings (the defaults when none are stored)."""
    with store._read() as connection:
        return _read_settings(connection, encounter_id)


def seats_and_settings(
    store: Store, table_id: int, encounter_id: int
) -> tuple[list[Seat], DecisionSettings]:
    """A table's seats and an encounter's decision settings in one read (a command's policy)."""
    with store._hot_read() as connection:
        rows = connection.execute(_TABLE_SEATS, {"seats_of": table_id}).all()
        settings = _read_settings(connection, encounter_id)
        bound = read_bindings(connection, encounter_id)
    return [
        Seat(i, t, n, played_by(i, c, owners_of(bound)), tuple(c)) for i, t, n, c in rows
    ], settings


# Built once (a command's policy reads them: issue 21, item 8)
_SETTINGS = select(
    EncounterSettingsRow.decision_timeout,
    EncounterSettingsRow.npcs_decide,
    EncounterSettingsRow.trust_modifiers,
    EncounterSettingsRow.hidden_asks,
).where(EncounterSettingsRow.encounter_id == bindparam("settings_of"))


def _read_settings(connection: Executes, encounter_id: int) -> DecisionSettings:
    """The decision settings on an open connection."""
    row = connection.execute(_SETTINGS, {"settings_of": encounter_id}).one_or_none()
    if row is None:
        return DecisionSettings()
    return DecisionSettings(row[0], str(row[1]), bool(row[2]), str(row[3]))


def set_decision_settings(store: Store, encounter_id: int, settings: DecisionSettings) -> None:
    """Store the encounter's decision settings (replacing any).

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(EncounterSettingsRow).where(EncounterSettingsRow.encounter_id == encounter_id)
        )
        connection.execute(
            insert(EncounterSettingsRow).values(
                encounter_id=encounter_id,
                decision_timeout=settings.decision_timeout,
                npcs_decide=settings.npcs_decide,
                trust_modifiers=settings.trust_modifiers,
                hidden_asks=settings.hidden_asks,
            )
        )
