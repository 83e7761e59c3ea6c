"""Hypothesis properties of the Realm of Strife core: any input resolves or raises a
TablesideError, the same seed gives the same result, damage parts add up, rounding is
symmetric half up, and results always render to JSON."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strife_builders import TRAINED, custom_weapon, sheet, weapon

from tableside.dice import ScriptedRng, SeededRng
from tableside.errors import TablesideError
from tableside.strife.attack import AttackResult, AttackSetup, roll_attack
from tableside.strife.casting import (
    CastSetup,
    CombinedSetup,
    Power,
    SpiritPortion,
    roll_cast,
    roll_combined,
    spell_power_share,
)
from tableside.strife.catalog import Combatant, Element, builtin_catalog, parse_catalog
from tableside.strife.penalties import PenaltyContext
from tableside.strife.reactions import (
    Family,
    Reaction,
    block,
    block_and_parry,
    combined_parry,
    improvised_block,
    improvised_parry,
    parry,
    ward_off,
)
from tableside.strife.records import Part
from tableside.strife.report import attack_dict, cast_dict, combined_dict
from tableside.strife.rounding import round_half_up
from tableside.strife.ruleset import RULESETS
from tableside.strife.size import CreatureSize, WeaponSize

T = TypeVar("T")
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WEAPONS = sorted(builtin_catalog().weapons.values(), key=lambda w: w.name)
SHIELDS = sorted(builtin_catalog().shields.values(), key=lambda s: s.name)


@st.composite
def sheets(draw: Callable[[st.SearchStrategy[Any]], Any], name: str = "Model") -> Combatant:
    return sheet(
        name,
        strength=draw(st.integers(0, 40)),
        agility=draw(st.integers(0, 40)),
        initiative=draw(st.integers(-20, 60)),
        ac=draw(st.integers(0, 100)),
        dodge=draw(st.integers(0, 100)),
        crit=draw(st.integers(0, 100)),
        cast_crit=draw(st.integers(0, 100)),
        critical_miss=draw(st.integers(0, 100)),
        miscast=draw(st.integers(0, 100)),
        hp=draw(st.integers(0, 200)),
        absorption=draw(st.integers(0, 100)),
        size=draw(st.sampled_from(CreatureSize)),
        proficiencies=draw(st.sampled_from([TRAINED, (), ("Swords", "Shields")])),
        skills=draw(st.sampled_from([(), ("Dual Wield",)])),
        resistances={Element.ARCANE: draw(st.integers(-20, 120))},
        aquatic=draw(st.booleans()),
    )


def _try(make: Callable[[], T]) -> T | None:
    """A reaction constructor may refuse (untrained, no attribute): that is a valid outcome."""
    with contextlib.suppress(TablesideError):
        return make()
    return None


@st.composite
def reactions(
    draw: Callable[[st.SearchStrategy[Any]], Any], defender: Combatant
) -> Reaction | None:
    main, off = draw(st.sampled_from(WEAPONS)), draw(st.sampled_from(WEAPONS))
    shield = draw(st.sampled_from(SHIELDS))
    makers: list[Callable[[], Reaction]] = [
        lambda: block(defender, shield),
        lambda: parry(defender, main),
        lambda: combined_parry(defender, main, off),
        lambda: block_and_parry(defender, shield, main, draw(st.sampled_from(Family))),
        lambda: improvised_block("tray", draw(st.sampled_from(WeaponSize))),
        lambda: improvised_parry(main),
        lambda: ward_off(defender, main),
    ]
    return None if draw(st.booleans()) else _try(draw(st.sampled_from(makers)))


@st.composite
def attack_setups(draw: Callable[[st.SearchStrategy[Any]], Any]) -> AttackSetup:
    defender = draw(sheets("Defender"))
    context = PenaltyContext(
        inches_moved=draw(st.integers(0, 12)),
        flying=draw(st.booleans()),
        other_hand=draw(st.one_of(st.none(), st.sampled_from(WEAPONS))),
        thrown=draw(st.booleans()),
        underwater=draw(st.booleans()),
    )
    return AttackSetup(
        attacker=draw(sheets("Attacker")),
        defender=defender,
        weapon=draw(st.sampled_from(WEAPONS)),
        context=context,
        precision=draw(st.booleans()),
        hit_modifiers=(Part("modifier", draw(st.integers(-150, 150))),),
        damage_bonuses=(Part("bonus", draw(st.integers(-10, 10))),),
        defender_ac=draw(st.one_of(st.none(), st.integers(-10, 150))),
        reaction=draw(reactions(defender)),
        ruleset=draw(st.sampled_from(list(RULESETS.values()))),
    )


def check_damage(result: AttackResult) -> None:
    if result.damage is not None:
        assert result.damage.total == sum(p.amount for p in result.damage.parts)
        assert result.damage.total >= 0


@PROPERTY
@given(attack_setups(), st.lists(st.integers(-5, 130), max_size=12))
def test_properties_any_attack_resolves_or_raises_a_tableside_error(
    setup: AttackSetup, faces: list[int]
) -> None:
    try:
        result = roll_attack(setup, ScriptedRng(faces))
    except TablesideError:
        return
    check_damage(result)
    json.dumps(attack_dict(result))


@PROPERTY
@given(attack_setups(), st.integers(0, 2**32))
def test_properties_same_seed_same_attack(setup: AttackSetup, seed: int) -> None:
    try:
        first = roll_attack(setup, SeededRng(seed))
    except TablesideError:
        return
    assert roll_attack(setup, SeededRng(seed)) == first
    assert attack_dict(roll_attack(setup, SeededRng(seed))) == attack_dict(first)
    check_damage(first)
    if first.outcome is not None and not first.outcome.hits:
        assert first.damage is None


POWERS = [
    Power("Bolt", Element.ARCANE, "1d6"),
    Power("Missile", Element.FIRE, "2d4", True, True),
    Power("Hex", Element.SHADOW),
]


@PROPERTY
@given(
    sheets("Caster"),
    sheets("Target"),
    st.sampled_from(POWERS),
    st.integers(0, 2**32),
    st.booleans(),
    st.integers(-100, 100),
    st.booleans(),
)
def test_properties_casts_resolve_reproducibly(
    caster: Combatant,
    target: Combatant,
    power: Power,
    seed: int,
    resists: bool,
    mod: int,
    blocked: bool,
) -> None:
    reaction = _try(lambda: block(target, SHIELDS[0])) if blocked else None
    setup = CastSetup(caster, target, power, (Part("m", mod),), resists=resists, reaction=reaction)
    try:
        first = roll_cast(setup, SeededRng(seed))
    except TablesideError:
        return
    assert roll_cast(setup, SeededRng(seed)) == first
    json.dumps(cast_dict(first))


@PROPERTY
@given(attack_setups(), st.sampled_from(POWERS), st.integers(0, 2**32))
def test_properties_combined_attacks_resolve_reproducibly(
    attack: AttackSetup, power: Power, seed: int
) -> None:
    setup = CombinedSetup(attack, SpiritPortion(power, (Part("m", 5),), spell_power=2))
    try:
        first = roll_combined(setup, SeededRng(seed))
    except TablesideError:
        return
    assert roll_combined(setup, SeededRng(seed)) == first
    json.dumps(combined_dict(first))


@given(st.fractions(max_denominator=1000).filter(lambda f: abs(f) < 10**6))
def test_properties_round_half_up_is_symmetric_and_nearest(value: Fraction) -> None:
    rounded = round_half_up(value)
    assert round_half_up(-value) == -rounded
    assert abs(rounded - value) <= Fraction(1, 2)


@given(st.integers(1, 500), st.integers(1, 50))
def test_properties_spell_power_share_at_least_1_and_near_even(power: int, targets: int) -> None:
    share = spell_power_share(power, targets)
    assert share >= 1
    assert share == 1 or abs(share - Fraction(power, targets)) <= Fraction(1, 2)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@PROPERTY
@given(
    st.dictionaries(
        st.sampled_from(
            ["format", "version", "weapons", "shields", "armour", "characters", "monsters", "extra"]
        ),
        JSONISH,
    )
)
def test_properties_any_catalogue_document_loads_or_raises_a_data_error(
    data: dict[str, Any],
) -> None:
    with contextlib.suppress(TablesideError):
        parse_catalog({"format": "tableside/strife-catalog", "version": 1, **data})


def test_properties_builders_are_consistent() -> None:
    assert weapon("Long Sword").name == "Long Sword"
    assert custom_weapon().dice.text == "1d8"
