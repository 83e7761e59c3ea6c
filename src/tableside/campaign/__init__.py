"""Characters that live beyond one fight (issue 25): sheets, carry-over, rest, files, history.

Readings CH-1 … are in ``docs/characters.md``.
"""
