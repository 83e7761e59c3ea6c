"""Tableside: rules engine and live table for Allies of Majesty and Realm of Strife."""

__version__ = "0.1.0"
