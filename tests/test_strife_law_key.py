"""Issue 21, item 8: an attack's exact law kept by its parts, each part's bytes kept by object.

:func:`laws.law_key` keys a kept law by the setup's parts (a sheet field by field
without its HP, the weapon and ruleset kept by object). Two setups must get equal keys exactly
when the setups pickled whole, HP aside, are equal (the key before this pass), and a law found
by the key must be the one the whole key finds: checked on random setups of every pair of
catalogue models, attack forms, Reactions and HP, sheets copied as play copies them (only HP
changed) and rebuilt from scratch.
"""

from __future__ import annotations

import pickle
import random
from collections import OrderedDict
from dataclasses import fields, replace
from typing import Any

import pytest
from test_strife_reaction_fast import FORMS, MODELS, fight, ident

from tableside.encounter.strife import laws
from tableside.encounter.strife.args import AttackItem
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.reaction_choices import REACTIONS
from tableside.encounter.strife.turns import Pending
from tableside.errors import TablesideError
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import Combatant


def whole_key(setup: AttackSetup) -> bytes:
    """The key as it was: the setup pickled whole, both sheets without ``hp`` and ``hp_max``."""
    if setup.defender.absorption != 0 or setup.defender.hp < 1:
        return pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL)
    parts: list[Any] = [getattr(setup, f.name) for f in fields(AttackSetup)]
    for at, sheet in enumerate(parts):
        if isinstance(sheet, Combatant):
            parts[at] = [(k, v) for k, v in vars(sheet).items() if k not in ("hp", "hp_max")]
    return pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)


def setups(draw: random.Random) -> list[AttackSetup]:
    """Setups of random pairs, forms and Reactions, each also with HP changed and rebuilt."""
    found: list[AttackSetup] = []
    for _ in range(12):
        pair = draw.sample(MODELS, 2)
        game, state = fight(pair[0], pair[1], draw.choice((1, 4)), False)
        attacker = state.models[ident(pair[0])]
        form = draw.choice(FORMS)
        for reaction in (None, *REACTIONS):
            item = AttackItem.model_validate({**form, "defender": ident(pair[1]),
                                              "reaction": reaction})  # fmt: skip
            try:
                setup = attack_setup(game, Pending(state), attacker, item)
            except TablesideError:
                continue
            hurt = setup.defender.model_copy(update={"hp": draw.randint(0, setup.defender.hp)})
            rebuilt = Combatant.model_validate(setup.attacker.model_dump())
            found += [setup, replace(setup, defender=hurt), replace(setup, attacker=rebuilt)]
    return found


def test_keys_by_parts_are_equal_exactly_when_whole_keys_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Equal part keys ⇔ equal whole keys, on every pair of random setups (kept bytes reused)."""
    monkeypatch.setattr(laws, "_parts", OrderedDict())
    monkeypatch.setattr(laws, "PARTS_KEPT", 8)  # some kept, some made again
    found = setups(random.Random(2108))
    assert len(found) > 24
    parts = [laws.law_key(s) for s in found]
    again = [laws.law_key(s) for s in reversed(found)][::-1]
    wholes = [whole_key(s) for s in found]
    assert parts == again
    for i, (a, whole_a) in enumerate(zip(parts, wholes, strict=True)):
        for b, whole_b in zip(parts[i:], wholes[i:], strict=True):
            assert (a == b) == (whole_a == whole_b)


def test_a_law_kept_by_parts_is_the_law_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`weigh` finds the same laws with the part keys as with the whole setup pickled."""
    found = setups(random.Random(77))[:40]
    weighed = {}
    for parts in (False, True):
        monkeypatch.setattr(laws, "_laws", OrderedDict())
        monkeypatch.setattr(laws, "LAW_PARTS", parts)
        weighed[parts] = [laws.weigh(s) for s in found * 2]
    assert weighed[True] == weighed[False]
