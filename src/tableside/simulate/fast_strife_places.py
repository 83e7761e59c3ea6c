"""Where a model is, for the fast Realm of Strife engine: hidden, under water, above the ground.

What the full engine plays under the Strife policy, read here once per fight (F-68 … F-71):

* **A weapon on the ground** (``state.ground``, thrown, SA-72) is read only by ``pick_up``,
  which the policy never chooses: the fast engine plays on and never looks at it (F-68).
* **The bottom of the queue** (``state.bottom``, S-4): a model that went there this round keeps
  its place at the end; a model dropping in this round's queue after a Roll with the Blow goes
  before it (``penalise_initiative``). The run keeps the round's set, emptied when a round
  starts (F-68).
* **Hidden** (S-22, SA-41, SA-42): a hidden model sneaks, its Movement halved for a Move
  (``policy.reach``, ``check_sneak``); nothing the policy does reveals it, so it is hidden for
  the whole run (F-69).
* **Under water** (S-16, SA-76): a model under water that is not aquatic swims, 2" of Movement
  an inch (Knocked Down or not), and its ``move`` says ``mode: swim``; its attacks and casts,
  and those on it, are the engine's own laws from the start (``attack_setup``'s
  ``underwater``, ``cast_rolls``' submerged caster and target). The Host alone sets it, so it
  lasts the run. Ranges measured through water count 2 an inch (``water_gap``) where the
  engine checks a range: not for a shot of the fast engine, an Attack of Opportunity (a free
  attack, whose range the engine does not check), but for a projectile power's cast, which
  the engine refuses beyond its range so counted, and the policy passes over for its next
  casts (``fast_strife_water``, F-70).
* **Climbed and above the ground** (SA-85, SA-90, SA-93): the inches climbed in a row are read
  only by a climbing Move's Stamina test, which the policy never makes. Above the ground
  (z ≠ 0) the policy's distances, Moves, Rolls and contacts are in three dimensions, as the
  fast engine's always were; whether the model is perched or flying (``forced.flying``) is
  read only for a shooter's −5 (SA-77): the run keeps each model's perch as the engine's
  ``perched_after`` does (its own Move up or down leaves it, a forced one keeps it above the
  ground; ``Run.perched``, the kernel's ``State.perched``), and a shot's law is its shooter's,
  on the ground or flying (``Laws.flying_shots``, F-71).
"""

from __future__ import annotations

from typing import Any

from tableside.encounter.strife.policy import swims


def sneaking(models: list[Any]) -> tuple[bool, ...]:
    """Per model, whether it is hidden: its Moves have half its Movement (SA-42, F-69)."""
    return tuple(bool(m.hidden) for m in models)


def swimming(models: list[Any]) -> tuple[bool, ...]:
    """Per model, whether it swims: under water and not aquatic (SA-76, F-70)."""
    return tuple(swims(m) for m in models)


def reach(movement: int, sneaks: bool, swim: bool, knocked: bool) -> float:
    """``policy.reach``: inches its Movement pays for (S-6, S-23, SA-42, SA-76).

    Halved sneaking, then 2" an inch swimming or crawling (Knocked Down): the same divisions
    in the same order as the policy's, so the same float.
    """
    whole = movement / 2 if sneaks else movement
    return whole / 2 if swim or knocked else float(whole)
