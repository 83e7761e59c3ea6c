"""The exact law of an attack's outcomes, weighed once and kept (issue 11).

Each Reaction's option shows its exact odds (``strife.odds.attack_odds``); a law depends only
on the setup, so the last :data:`LAWS_KEPT` are kept, keyed by the setup less its hit points.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass, fields, replace
from fractions import Fraction

from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import Combatant
from tableside.strife.odds import attack_odds
from tableside.strife.odds_law import AttackOdds

LAWS_KEPT = 256
"""Exact attack laws kept (:func:`exact_law`): a few Actions' worth of Reactions."""


_laws: OrderedDict[bytes, Weighed] = OrderedDict()


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


def law_key(setup: AttackSetup) -> bytes:
    """The bytes that fix an attack's law but for P(defeat): HP set aside unless absorbed."""
    if setup.defender.absorption != 0 or setup.defender.hp < 1:
        return pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL)
    parts = [getattr(setup, name) for name in SETUP_FIELDS]
    for at, sheet in enumerate(parts):
        if isinstance(sheet, Combatant):
            parts[at] = [(k, v) for k, v in vars(sheet).items() if k not in HP_FIELDS]
    return pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)


def at_hp(kept: Weighed, setup: AttackSetup) -> Weighed:
    """A kept law of the same attack, for ``setup`` (its sheets, its defender's HP now)."""
    if kept.law.setup == setup:  # the very attack again: the kept law itself
        return kept
    hp = setup.defender.hp
    law = replace(kept.law, setup=setup, hp=hp, defeat=kept.law.damage.at_least(hp))
    return Weighed(law, kept.dealt, kept.mean)
