"""System-agnostic dice: the Rng protocol, seeded and scripted Rngs, immutable dice records."""

from tableside.dice.records import Adjustment, Side
from tableside.dice.rng import DiceExhaustedError, Rng, ScriptedRng, SeededRng

__all__ = ["Adjustment", "DiceExhaustedError", "Rng", "ScriptedRng", "SeededRng", "Side"]
