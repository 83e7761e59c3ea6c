"""A Realm of Strife fight as an encounter Game: see ``docs/packages.md`` for what lives where."""
