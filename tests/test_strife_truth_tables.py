"""Truth tables over every combination: combined-attack portions (S-9) and reactions (S-10,
S-11), each row's expectation written from the seed's tables rather than from the code."""

from __future__ import annotations

import itertools

import pytest

from tableside.strife.damage import DamageBasis
from tableside.strife.hit import CastOutcome, CombinedOutcome, HitOutcome, combine_portions
from tableside.strife.reactions import Family, Verdict, reaction_effect

P, S = HitOutcome, CastOutcome
SPIRIT_LANDS = {S.SUCCESS, S.CRITICAL_CAST}

# --- S-9: physical outcome × spirit outcome ---------------------------------------------------


def expected_portions(physical: HitOutcome, spirit: CastOutcome) -> tuple[bool, bool, str]:
    """(physical applies, spirit applies, overall) straight from the seed's S-9 table."""
    if physical == P.CRITICAL_MISS:
        return False, False, "critical_miss"  # the entire attack; spirit is a Miscast
    if physical in (P.DODGE, P.AUTO_MISS):
        return False, False, "miss"  # a Dodge (and an auto-miss, SA-5) voids everything
    if physical == P.ARMOR_SAVE:
        lands = spirit in SPIRIT_LANDS
        return False, lands, "spirit_only" if lands else "miss"
    lands = spirit in SPIRIT_LANDS
    return True, lands, "both" if lands else "physical_only"


@pytest.mark.parametrize(("physical", "spirit"), list(itertools.product(P, S)))
def test_s09_truth_table_combined_portions(physical: HitOutcome, spirit: CastOutcome) -> None:
    verdict = combine_portions(physical, spirit)
    applies = (verdict.physical_applies, verdict.spirit_applies, verdict.overall.value)
    assert applies == expected_portions(physical, spirit)
    assert verdict.physical_doubled == (physical == P.CRITICAL_HIT)
    assert verdict.spirit_doubled == (verdict.spirit_applies and spirit == S.CRITICAL_CAST)
    if physical == P.CRITICAL_MISS:
        assert verdict.spirit == S.MISCAST
        assert verdict.overall == CombinedOutcome.CRITICAL_MISS


# --- S-10 / S-11: hit outcome × family × verdict × melee/ranged --------------------------------

FULL, MIN, CRUSH, NONE = (DamageBasis.FULL, DamageBasis.MINIMUM, DamageBasis.CRUSHING_ONLY,
                          DamageBasis.NONE)  # fmt: skip
V = Verdict

# (family, verdict, crit?, ranged?) → (basis, crit stands, disarm, shield damaged), for hits.
REACTION_TABLE = {
    # Block vs a regular hit (S-10)
    (Family.BLOCK, V.FAILURE, False, False): (FULL, False, False, False),
    (Family.BLOCK, V.FAILURE, False, True): (FULL, False, False, False),
    (Family.BLOCK, V.SUCCESS, False, False): (MIN, False, False, False),
    (Family.BLOCK, V.SUCCESS, False, True): (CRUSH, False, False, False),
    (Family.BLOCK, V.CRITICAL, False, False): (MIN, False, False, False),
    (Family.BLOCK, V.CRITICAL, False, True): (CRUSH, False, False, False),
    # Block vs a Critical Hit (S-10)
    (Family.BLOCK, V.FAILURE, True, False): (FULL, True, False, False),
    (Family.BLOCK, V.FAILURE, True, True): (FULL, True, False, False),
    (Family.BLOCK, V.SUCCESS, True, False): (MIN, True, False, True),
    (Family.BLOCK, V.SUCCESS, True, True): (FULL, True, False, False),
    (Family.BLOCK, V.CRITICAL, True, False): (MIN, False, False, False),
    (Family.BLOCK, V.CRITICAL, True, True): (CRUSH, False, False, False),
    # Parry (S-11; melee only, the ranged rows never happen but are defined)
    (Family.PARRY, V.FAILURE, False, False): (FULL, False, False, False),
    (Family.PARRY, V.SUCCESS, False, False): (NONE, False, False, False),
    (Family.PARRY, V.CRITICAL, False, False): (NONE, False, False, False),
    (Family.PARRY, V.FAILURE, True, False): (FULL, True, False, False),
    (Family.PARRY, V.SUCCESS, True, False): (NONE, False, True, False),
    (Family.PARRY, V.CRITICAL, True, False): (NONE, False, False, False),
}


@pytest.mark.parametrize(
    ("outcome", "family", "verdict", "ranged"),
    list(itertools.product(P, Family, V, (False, True))),
)
def test_s10_s11_truth_table_reactions(
    outcome: HitOutcome, family: Family, verdict: Verdict, ranged: bool
) -> None:
    effect = reaction_effect(outcome, family, verdict, ranged)
    got = (effect.basis, effect.crit_stands, effect.disarm, effect.item_damaged)
    if not outcome.hits:
        assert got == (NONE, False, False, False)  # a miss stays a miss
        return
    key = (family, verdict, outcome == P.CRITICAL_HIT, ranged and family == Family.BLOCK)
    assert got == REACTION_TABLE[key]
    assert effect.stopped == (effect.basis != FULL)
