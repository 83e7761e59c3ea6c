"""Conditions that bind a model's own Turn, on the fast Realm of Strife engine (F-72).

Feared, Taunted, Mind Controlled and Controlled bind their victim while the model their source
names stands (SA-71; ``forced.compellers``: the source is that model's id, or begins with it and
"'s"; the longest such id is the one named, and a source naming the victim itself or a fallen
model binds nothing). The engine reads them in four places, and so does the fast engine:

- a bound model's own move is made under compulsion: it offers no Attack of Opportunity (S-18,
  ``movement.do_move``), and the engine refuses one that does not end farther from each model
  it fears, or that ends farther from a taunter and out of base contact with it
  (``forced.check_forced_direction``);
- a Taunted model's attacks and offensive powers aim only at its standing taunters (SA-71,
  SA-91), and it is offered no Attack of Opportunity on any other model (SA-91);
- Mind Controlled and Controlled change who gives the model's commands (SA-95), not which the
  policy gives: only the first point applies.

The policy puts each of its choices to the engine and takes the first it accepts (SA-94), so a
bound model's Turn is :func:`compelled_turn`: the policy's choices in its order (``policy._turn``
and ``_other_casts``, ``_other_choices``), the first the checks above accept. Exhaustion is read
only by ``add_condition`` (its stacks add up, SA-12), which the fast engine's runs call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tableside.encounter.strife.args import CONTACT
from tableside.encounter.strife.forced import CONTROLLED, FEARED, MIND_CONTROLLED, TAUNTED
from tableside.encounter.strife.policy import _away, _toward
from tableside.simulate import fast_strife_water as water

if TYPE_CHECKING:
    from tableside.simulate.fast_strife_run import Roster, Run

BINDING = frozenset({FEARED, TAUNTED, MIND_CONTROLLED, CONTROLLED})
dist = math.dist
Choice = tuple[Any, ...]
Enemies = list[tuple[float, str, int]]  # (distance, id, index) of the standing enemies, sorted


@lru_cache(maxsize=4096)
def owner_of(ids: tuple[str, ...], source: str) -> int | None:
    """The model a condition's source names: the longest id it is or begins with and "'s"."""
    for i in sorted(range(len(ids)), key=lambda i: -len(ids[i])):
        if source == ids[i] or source.startswith(f"{ids[i]}'s "):
            return i
    return None


def compellers(run: Run, roster: Roster, who: int, name: str) -> list[int]:
    """The standing models behind each ``name`` condition on ``who`` (``forced.compellers``)."""
    found = []
    for item in run.conds[who]:
        if item.name == name:
            owner = owner_of(roster.ids, item.source)
            if owner is not None and owner != who and run.hp[owner] > 0:
                found.append(owner)
    return found


def bound(run: Run, roster: Roster, who: int) -> bool:
    """Whether a binding condition holds ``who`` now: its moves are made under compulsion."""
    for item in run.conds[who]:
        if item.name in BINDING:
            owner = owner_of(roster.ids, item.source)
            if owner is not None and owner != who and run.hp[owner] > 0:
                return True
    return False


def may_move(run: Run, roster: Roster, who: int, to: Any) -> bool:
    """Whether the engine accepts ``who``'s own move to ``to``: fear and taunt (SA-70, SA-71)."""
    here, pos = run.pos[who], run.pos
    for owner in compellers(run, roster, who, FEARED):
        if dist(to, pos[owner]) <= dist(here, pos[owner]):
            return False
    for owner in compellers(run, roster, who, TAUNTED):
        after = dist(to, pos[owner])
        if after > dist(here, pos[owner]) and after > CONTACT:
            return False
    return True


def taunt_allows(run: Run, roster: Roster, attacker: int, target: int) -> bool:
    """Whether a Taunted model may aim at ``target``: only at a standing taunter (SA-91)."""
    if not run.conds[attacker]:
        return True
    taunters = compellers(run, roster, attacker, TAUNTED)
    return not taunters or target in taunters


FirstCast = Callable[["Run", "Roster", int, Enemies], "Choice | None"]


def compelled_turn(
    run: Run, roster: Roster, me: int, enemies: Enemies, reach: float, first_cast: FirstCast
) -> Choice:
    """A bound model's Turn: the first of the policy's choices the engine accepts (SA-94).

    ``first_cast`` is the policy's cast (F-40: ``fast_strife_choose._cast``).
    """
    for choice in _choices(run, roster, me, enemies, reach, first_cast):
        if _accepted(run, roster, me, choice):
            return choice
    return ("next",)


def _accepted(run: Run, roster: Roster, me: int, choice: Choice) -> bool:
    kind = choice[0]
    if kind == "move":
        return may_move(run, roster, me, choice[2])
    if kind == "cast":  # at a taunter, and in range through water (SA-91, F-70)
        entry = roster.powers[me][choice[3]]
        return all(taunt_allows(run, roster, me, j) for j in choice[2]) and water.accepted(
            roster, run.pos, me, entry, choice[2]
        )
    weapons = roster.weapons[me]
    if weapons[0] in roster.shooting[me]:  # a shot in base contact is refused (SA-48)
        return False
    return taunt_allows(run, roster, me, choice[2])


def _choices(
    run: Run, roster: Roster, me: int, enemies: Enemies, reach: float, first_cast: FirstCast
) -> Iterator[Choice]:
    """``policy._turn``'s choices in its order, in the fast engine's terms."""
    here, pos = run.pos[me], run.pos
    gap, _, near = enemies[0]
    can_move = "move" not in run.elements[me] and reach > 0
    armed = bool(roster.weapons[me])
    if gap <= CONTACT and can_move and 2 * run.hp[me] < roster.hp_max[me]:
        yield ("move", me, _away(here, pos[near], reach))
    first = first_cast(run, roster, me, enemies) if roster.powers[me] else None
    if first is not None:
        yield first
        yield from water.other_casts(run, roster, me, enemies)
    if gap <= CONTACT and armed:
        yield ("attack", me, near, _reaction(run, roster, near))
    if gap > CONTACT and can_move and armed:
        yield ("move", me, _toward(here, pos[near], min(reach, gap - 0.9)))
    for other_gap, _, other in enemies[1:]:
        if other_gap <= CONTACT and armed:
            yield ("attack", me, other, _reaction(run, roster, other))
        elif can_move and armed:
            yield ("move", me, _toward(here, pos[other], min(reach, other_gap - 0.9)))


def _reaction(run: Run, roster: Roster, j: int) -> str | None:
    return None if j in run.reacted else roster.reaction[j]
