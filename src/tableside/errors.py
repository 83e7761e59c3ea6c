"""The project's own error types: every refusal is one of these, with one clear sentence."""


class TablesideError(ValueError):
    """Base of every error Tableside raises on bad input or an impossible request."""


class RulesError(TablesideError):
    """A request the rules forbid (a melee Strike at 9", a face of 13, ...)."""


class DataError(TablesideError):
    """A data file (character, weapon, maneuver) that does not validate; names the field path."""
