"""Randomness is injected: a tiny Rng protocol with a seeded and a scripted implementation.

The rules packages never touch the global ``random``; a :class:`SeededRng` records its seed so a
roll can be replayed, and a :class:`ScriptedRng` plays back dice typed in by players (or tests).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from tableside.errors import RulesError


class DiceExhaustedError(RulesError):
    """A scripted Rng was asked for more dice than it was given."""


class Rng(Protocol):
    """Source of die rolls."""

    def roll(self, sides: int) -> int:
        """Return one roll of a die with ``sides`` faces, 1..sides."""
        ...


class SeededRng:
    """A reproducible Rng (PCG64 from numpy) that records its seed.

    numpy is imported and the generator made on the first roll: a command that rolls nothing
    (a move, the next Turn) starts faster, and its dice are the same either way.
    """

    def __init__(self, seed: int) -> None:
        if seed < 0:
            raise RulesError(f"A seed must be zero or positive, not {seed}.")
        self.seed = seed
        self._stream: int | None = None  # None: PCG64(seed); else PCG64(SeedSequence([seed, n]))
        self._generator: Any = None

    @classmethod
    def stream(cls, seed: int, stream: int) -> SeededRng:
        """An independent, reproducible stream for one command of an encounter seeded ``seed``."""
        if stream < 0:
            raise RulesError(f"A dice stream number must be zero or positive, not {stream}.")
        rng = cls(seed)
        rng._stream = stream
        return rng

    def roll(self, sides: int) -> int:
        """Return one roll of a die with ``sides`` faces."""
        if self._generator is None:
            self._generator = self._new_generator()
        return int(self._generator.integers(1, sides + 1))

    def _new_generator(self) -> Any:
        import numpy as np

        if self._stream is None:
            return np.random.Generator(np.random.PCG64(self.seed))
        return np.random.Generator(
            np.random.PCG64(np.random.SeedSequence([self.seed, self._stream]))
        )


class ScriptedRng:
    """Plays back a fixed list of die faces, in order; fails clearly when it runs out."""

    def __init__(self, faces: Iterable[int], label: str = "scripted dice") -> None:
        self.faces = tuple(faces)
        self.label = label
        self.used = 0

    def roll(self, sides: int) -> int:
        """Return the next scripted face, checking it fits a die of ``sides`` faces."""
        if self.used >= len(self.faces):
            raise DiceExhaustedError(
                f"The {self.label} ran out: {len(self.faces)} dice were given but die number "
                f"{self.used + 1} was needed."
            )
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise RulesError(
                f"Die number {self.used + 1} of the {self.label} shows {face}, "
                f"which a d{sides} cannot show."
            )
        self.used += 1
        return face

    @property
    def remaining(self) -> int:
        """How many scripted dice are left unused."""
        return len(self.faces) - self.used

    def expect_all_used(self) -> None:
        """Refuse leftover dice: physical dice typed in must match the roll exactly."""
        if self.remaining:
            raise RulesError(
                f"The {self.label} had {len(self.faces)} dice but the roll used only "
                f"{self.used}; {self.remaining} left over."
            )
