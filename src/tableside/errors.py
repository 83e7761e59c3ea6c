"""The project's own error types: every refusal is one of these, with one clear sentence."""


class TablesideError(ValueError):
    """Base of every error Tableside raises on bad input or an impossible request."""


class RulesError(TablesideError):
    """A request the rules forbid (a melee Strike at 9", a face of 13, ...)."""


class TooManyAdjustmentsError(RulesError):
    """Explicit Adjustment steps past what a side has (M-11, M-12).

    The count may follow values secret to whoever named the steps (a secret Defender's Guard),
    so the web table clamps a player's steps instead of refusing them (issue 21, W-52):
    ``drop`` are the positions, in the steps as named, of those past the count; ``side`` (None:
    nobody may adjust), ``named`` and ``allowed`` say whose and how many.
    """

    def __init__(
        self,
        message: str,
        side: str | None = None,
        named: int = 0,
        allowed: int = 0,
        drop: tuple[int, ...] = (),
    ) -> None:
        super().__init__(message)
        self.side = side
        self.named = named
        self.allowed = allowed
        self.drop = drop


class DataError(TablesideError):
    """A data file (character, weapon, maneuver) that does not validate; names the field path."""


class StaleRevisionError(TablesideError):
    """A command made against an encounter revision that is no longer current."""


def require_non_negative(values: dict[str, int]) -> None:
    """Refuse the first negative count, naming it and its value."""
    for label, value in values.items():
        if value < 0:
            raise RulesError(f"{label} cannot be negative, got {value}.")
