"""Derived values cached on characters equal those of a freshly built character (M-1 … M-4).

``Character.take_wear``, ``lower_status``, ``defeat_by_epic``, ``with_status_lowered`` and
``with_exertion`` copy a character without re-running its checks, and ``with_exertion`` carries the
cached current values, Status and War Attributes over. Each is compared with the character
built from scratch by ``dataclasses.replace`` (which re-runs ``__post_init__`` and caches nothing).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from tableside.majesty.character import (
    Attribute,
    Attributes,
    Character,
    Status,
    WarOverrides,
    Wear,
    WearKind,
)
from tableside.majesty.condition import gain_exertion, rest

attributes = st.builds(Attributes, *(st.integers(0, 120) for _ in range(6)))
wears = st.builds(Wear, *(st.integers(0, 160) for _ in range(3)))
kinds = st.sampled_from(list(WearKind))


def characters() -> st.SearchStrategy[Character]:
    """Characters with any Wear, timed lowerings, Exertion and some overrides."""
    return st.builds(
        Character,
        name=st.just("Herald"),
        natural=attributes,
        wear=wears,
        overrides=st.builds(WarOverrides, guard=st.none() | st.integers(0, 9)),
        exertion=st.integers(0, 30),
        status_lowered=st.integers(0, 2),
        defeated_by_epic=st.booleans(),
    )


def fresh(character: Character) -> Character:
    """The same character built through ``__init__`` with nothing cached."""
    return replace(character)


def derived(character: Character) -> tuple[object, ...]:
    """Everything derived from a character's fields."""
    return (
        tuple(character.current(a) for a in Attribute),
        tuple(character.referenced(a) for a in Attribute),
        character.threshold_weakened,
        character.status,
        character.war,
    )


def warm(character: Character) -> Character:
    """Fill every cache of ``character`` (so a copy could wrongly carry them)."""
    derived(character)
    return character


@given(characters(), kinds, st.integers(0, 200))
def test_m01_take_wear_matches_a_fresh_character(
    character: Character, kind: WearKind, amount: int
) -> None:
    """M-1/M-3: Wear taken changes current values and Status exactly as a rebuilt character."""
    after = warm(character).take_wear(kind, amount)
    expected = fresh(character).take_wear(kind, amount)
    assert after == expected
    assert derived(after) == derived(fresh(after))
    assert after.wear.of(kind) == character.wear.of(kind) + amount


@given(characters(), st.integers(0, 3))
def test_m03_status_lowerings_match_a_fresh_character(character: Character, lowered: int) -> None:
    """M-3 (b), M-24: timed lowerings and Epic Defeat copy a warmed character correctly."""
    base = warm(character)
    for after in (base.lower_status(), base.with_status_lowered(lowered), base.defeat_by_epic()):
        assert derived(after) == derived(fresh(after))
    assert base.defeat_by_epic().status is Status.DEFEATED
    assert base.with_status_lowered(lowered).status_lowered == lowered


@given(characters(), st.integers(0, 40), st.integers(0, 6), st.booleans())
def test_m04_exertion_keeps_status_and_war_attributes(
    character: Character, amount: int, window: int, self_generated: bool
) -> None:
    """M-4: Exertion gained or rested off changes no derived value; the carried cache is right."""
    gained = gain_exertion(warm(character), amount, window, self_generated).character
    assert gained == fresh(gained)
    assert derived(gained) == derived(fresh(gained))
    rested = rest(warm(gained), amount)
    assert rested.exertion == max(0, gained.exertion - amount)
    assert derived(rested) == derived(fresh(rested))


def test_m04_with_exertion_copies_every_other_field() -> None:
    """M-4: only Exertion changes; a cached War Attribute is the same object, not recomputed."""
    character = Character(
        "Warrior", Attributes(56, 22, 40, 70, 30, 40), wear=Wear(E=30), status_lowered=1
    )
    war = character.war
    after = character.with_exertion(9)
    assert after.exertion == 9
    assert replace(after, exertion=0) == character
    assert after.war is war
    assert after.status is Status.WEAKENED  # one timed lowering, no threshold (M-3)
