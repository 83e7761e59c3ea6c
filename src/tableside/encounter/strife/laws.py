"""The exact law of an attack's outcomes, weighed once and kept (issue 11).

Each Reaction's option shows its exact odds (``strife.odds.attack_odds``); a law depends only
on the setup, so the last :data:`LAWS_KEPT` are kept, keyed by the setup less its hit points.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields, replace
from enum import Enum
from fractions import Fraction

from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import Combatant
from tableside.strife.odds import attack_odds
from tableside.strife.odds_law import AttackOdds

LAWS_KEPT = 256
"""Exact attack laws kept (:func:`exact_law`): a few Actions' worth of Reactions."""


_laws: OrderedDict[tuple[Hashable, ...], Weighed] = OrderedDict()


_laws_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Weighed:
    """An attack's exact law and the figures a Reaction's option shows (exact fractions)."""

    law: AttackOdds
    dealt: Fraction  # P(damage > 0)
    mean: Fraction  # damage on average


def exact_law(setup: AttackSetup) -> AttackOdds:
    """``attack_odds(setup)``, kept (:func:`weigh`)."""
    return weigh(setup).law


def weigh(setup: AttackSetup) -> Weighed:
    """``attack_odds(setup)``, kept for the next attack whose law is the same.

    The law follows the setup (both sheets, the weapon, the circumstances, the Reaction and the
    ruleset). Current HP feeds it only through P(defeat) and, for a defender that absorbs
    damage (an object, S-21), the HP its Absorption is taken from: so the key is the setup's
    pickled bytes with both models' HP set aside (:func:`law_key`), and a kept law is fitted to
    the defender's HP now (:func:`at_hp`). An automatic NPC's Reaction weighs every legal
    Reaction of each attack, about 1 ms each (issue 21, item 8); the next attack on the same
    foe, its HP lowered, reuses them (checked equal to ``attack_odds`` in
    ``tests/test_strife_reaction_fast.py``).
    """
    key = law_key(setup)
    with _laws_lock:
        found = _laws.get(key)
        if found is not None:
            _laws.move_to_end(key)
    if found is not None:
        return at_hp(found, setup)
    law = attack_odds(setup)
    weighed = Weighed(law, 1 - law.damage.p(0), law.damage.mean)
    with _laws_lock:
        _laws[key] = weighed
        while len(_laws) > LAWS_KEPT:
            _laws.popitem(last=False)
    return weighed


SETUP_FIELDS = tuple(f.name for f in fields(AttackSetup))


HP_FIELDS = frozenset({"hp", "hp_max"})


def law_key(setup: AttackSetup) -> tuple[Hashable, ...]:
    """What fixes an attack's law but for P(defeat): HP set aside unless absorbed.

    Each part of the setup as its pickled bytes (a plain value as it is), a sheet field by
    field without its HP (:func:`sheet_key`). The parts are immutable and kept by object
    (:func:`kept_bytes`): the Reactions of one attack, the next attack by the same models, and
    a sheet whose HP alone changed (a copy that shares its other fields) pickle nothing again
    (issue 21, item 8; equal keys exactly when the setups pickled whole, HP aside, are equal:
    ``tests/test_strife_law_key.py``).
    """
    if not LAW_PARTS or setup.defender.absorption != 0 or setup.defender.hp < 1:
        return (pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL),)
    found: list[Hashable] = []
    for name in SETUP_FIELDS:
        part = getattr(setup, name)
        if isinstance(part, Combatant):
            found.append(sheet_key(part))
        elif name in KEPT_PARTS:
            found.append(kept_bytes(part))
        elif isinstance(part, PLAIN) or part == ():
            found.append(part)
        else:
            found.append(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    return tuple(found)


KEPT_PARTS = frozenset({"weapon", "ruleset"})
"""The parts of a setup whose bytes are kept by object (the others are small and made anew)."""
LAW_PARTS = True
"""Whether :func:`law_key` keys a law by its parts (tests turn it off to compare with the setup
pickled whole)."""
PARTS_KEPT = 256
_parts: OrderedDict[int, tuple[object, Hashable]] = OrderedDict()
PLAIN = (str, int, bool, type(None), Enum)
"""Field values that stand in a key as they are: hashable, and a validated field holds one
type (so `True` and `1`, or an enum member and its value, never meet in one field)."""


def sheet_key(sheet: Combatant) -> Hashable:
    """A sheet's fields but ``hp`` and ``hp_max``: plain values as they are, others pickled."""
    return kept(sheet, lambda: tuple(
        (k, v if isinstance(v, PLAIN) else kept_bytes(v))
        for k, v in vars(sheet).items() if k not in HP_FIELDS
    ))  # fmt: skip


def kept_bytes(part: object) -> Hashable:
    """``part`` pickled, kept by the object itself."""
    return kept(part, lambda: pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))


def kept(part: object, make: Callable[[], Hashable]) -> Hashable:
    """``make()``, kept by the object ``part`` (immutable) while it is among the last used.

    The object is held with what was made, so its ``id`` names no other object while kept.
    """
    key = id(part)
    with _laws_lock:
        found = _parts.get(key)
        if found is not None and found[0] is part:
            _parts.move_to_end(key)
            return found[1]
    made = make()
    with _laws_lock:
        _parts[key] = (part, made)
        while len(_parts) > PARTS_KEPT:
            _parts.popitem(last=False)
    return made


def at_hp(kept: Weighed, setup: AttackSetup) -> Weighed:
    """A kept law of the same attack, for ``setup`` (its sheets, its defender's HP now)."""
    if kept.law.setup == setup:  # the very attack again: the kept law itself
        return kept
    hp = setup.defender.hp
    law = replace(kept.law, setup=setup, hp=hp, defeat=kept.law.damage.at_least(hp))
    return Weighed(law, kept.dealt, kept.mean)
