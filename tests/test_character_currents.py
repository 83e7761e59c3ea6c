"""Issue 21, item 8: a character's current values and Status, worked out field by field, are the
rule read attribute by attribute (M-1, M-3, M-24), on random characters.
"""

from __future__ import annotations

import random

from tableside.majesty.character import (
    ATTRIBUTE_WEAR,
    WEAR_ATTRIBUTE,
    WEAR_FLOOR,
    Attribute,
    Attributes,
    Character,
    Status,
    Wear,
)


def plain_currents(c: Character) -> dict[Attribute, int]:
    """M-1 read attribute by attribute: natural less the Wear of its kind, floored at −40."""
    values = {}
    for attribute in Attribute:
        value = c.natural.get(attribute)
        kind = ATTRIBUTE_WEAR.get(attribute)
        if kind is not None:
            value -= c.wear.of(kind)
        values[attribute] = max(WEAR_FLOOR, value)
    return values


def plain_status(c: Character) -> Status:
    """M-3 and M-24 read as written: Defeated at a vital ≤ 0, by an Epic, or by two sources."""
    currents = plain_currents(c)
    if c.defeated_by_epic or any(currents[a] <= 0 for a in WEAR_ATTRIBUTE.values()):
        return Status.DEFEATED
    vitals = [(currents[a], c.natural.get(a)) for a in WEAR_ATTRIBUTE.values()]
    weakened = any(
        i != j and 3 * cur_a <= nat_a and 2 * cur_b <= nat_b
        for i, (cur_a, nat_a) in enumerate(vitals)
        for j, (cur_b, nat_b) in enumerate(vitals)
    )
    sources = int(weakened) + c.status_lowered
    if sources >= 2:
        return Status.DEFEATED
    return Status.WEAKENED if sources == 1 else Status.NORMAL


def test_currents_and_status_are_the_rule_on_random_characters() -> None:
    draw = random.Random(2121)
    for _ in range(3000):
        natural = Attributes(*(draw.randint(0, 90) for _ in range(6)))
        wear = Wear(*(draw.choice((0, draw.randint(0, 140))) for _ in range(3)))
        c = Character("x", natural, wear, status_lowered=draw.choice((0, 0, 1, 2)),
                      defeated_by_epic=draw.random() < 0.05)  # fmt: skip
        assert c.currents == plain_currents(c)
        assert c.status is plain_status(c), (natural, wear)
