"""Realm of Strife: the pure rules core (S-1 … S-23 of the readings, docs/rules.md).

Modules: ``rounding`` (half up), ``checks`` (stat tests, roll-offs, Initiative), ``hit``
(classifying d100 rolls), ``attack`` (physical attacks, Ward-off, Impale), ``reactions``
(Block, Parry and friends), ``casting`` (casts, spell power, combined attacks), ``damage``,
``penalties``, ``limits`` (4-3-2), ``movement``, ``turns``, ``conditions``, ``resources``,
``odds``, ``catalog`` (data files) and ``report`` (JSON-ready views). Nothing here does I/O
or uses the global ``random``: every die comes from an injected :class:`tableside.dice.Rng`.
"""
