"""Allies of Majesty: 7d12 rolls, Adjustments, characters, Strikes, checks and weapons as data."""
