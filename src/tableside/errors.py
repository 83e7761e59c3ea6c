"""The project's own error types: every refusal is one of these, with one clear sentence."""


class TablesideError(ValueError):
    """Base of every error Tableside raises on bad input or an impossible request."""


class RulesError(TablesideError):
    """A request the rules forbid (a melee Strike at 9", a face of 13, ...)."""


class DataError(TablesideError):
    """A data file (character, weapon, maneuver) that does not validate; names the field path."""


class StaleRevisionError(TablesideError):
    """A command made against an encounter revision that is no longer current."""


def require_non_negative(values: dict[str, int]) -> None:
    """Refuse the first negative count, naming it and its value."""
    for label, value in values.items():
        if value < 0:
            raise RulesError(f"{label} cannot be negative, got {value}.")
