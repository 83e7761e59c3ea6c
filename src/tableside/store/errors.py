"""The store's refusals: each is a TablesideError with one sentence naming the value."""

from __future__ import annotations

from tableside import errors
from tableside.errors import TablesideError


class StoreError(TablesideError):
    """A database that cannot be opened or used, or a request the store cannot carry out."""


class UnknownEncounterError(StoreError):
    """No encounter has the id asked for."""

    def __init__(self, encounter_id: int) -> None:
        super().__init__(f"There is no encounter with id {encounter_id}.")
        self.encounter_id = encounter_id


class UnknownCharacterError(StoreError):
    """No character has the id asked for."""

    def __init__(self, character_id: int) -> None:
        super().__init__(f"There is no character with id {character_id}.")
        self.character_id = character_id


class StaleRevisionError(StoreError, errors.StaleRevisionError):
    """An append made against an older revision: someone else appended first.

    Also a ``tableside.errors.StaleRevisionError``, as the encounter engine raises, so one
    ``except`` catches a stale command whichever layer noticed it.
    """

    def __init__(self, encounter_id: int, expected: int, current: int) -> None:
        super().__init__(
            f"Encounter {encounter_id} is at revision {current}, not the expected revision "
            f"{expected}: another record was appended first; reload and try again."
        )
        self.encounter_id = encounter_id
        self.expected = expected
        self.current = current
