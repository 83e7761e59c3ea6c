"""The fast Realm of Strife engine's policy: ``encounter/strife/policy.py`` on a run (F-8, F-40).

:func:`choose` is the Strife policy's next command worked out on the run's state;
:func:`command_of` the engine command it stands for.
"""

from __future__ import annotations

from tableside.encounter.log import Command
from tableside.encounter.strife.args import CONTACT
from tableside.encounter.strife.policy import (
    ROUNDING,
    _away,
    _toward,
    affordable,
    most_targets,
    reaches,
)
from tableside.simulate import fast_strife_water as water
from tableside.simulate.fast_strife_compel import bound, compelled_turn, taunt_allows
from tableside.simulate.fast_strife_places import reach
from tableside.simulate.fast_strife_run import Choice, Roster, Run, dist
from tableside.strife.conditions import (
    KNOCKED_DOWN,
)


def _reach(run: Run, roster: Roster, i: int) -> float:
    """Inches its Movement pays for: half crawling (Knocked Down), swimming or sneaking.

    (S-6, S-23, SA-42, SA-76; F-69, F-70.)
    """
    conds = run.conds[i]
    knocked = bool(conds) and any(c.name == KNOCKED_DOWN for c in conds)
    return reach(roster.movement[i], roster.sneaks[i], roster.swims[i], knocked)


def choose(run: Run, roster: Roster) -> Choice:
    """The Strife policy's next command on the run's state."""
    for attacker, weapon, target in run.offers:  # a Taunted one's only at its taunter (SA-91)
        if taunt_allows(run, roster, attacker, target):
            return ("aoo", attacker, target, weapon)
    rolled = _roll_with_the_blow(run, roster)
    if rolled is not None:
        return rolled
    return _turn(run, roster)


def _roll_with_the_blow(run: Run, roster: Roster) -> Choice | None:
    hurt = run.last_damaged
    if hurt is None:
        return None
    by = run.last_by if run.last_by is not None else run.current
    if by is None or run.hp[hurt] <= 0:
        return None
    if 2 * run.hp[hurt] >= roster.hp_max[hurt] or hurt in run.reacted or hurt in run.failed:
        return None
    inches = min(1.0, roster.movement[hurt] / 2 - ROUNDING)
    if inches <= 0:
        return None
    return ("roll", hurt, _away(run.pos[hurt], run.pos[by], inches))


def _turn(run: Run, roster: Roster) -> Choice:
    turn = run.turn
    if not 0 <= turn < len(run.order):
        return ("next",)
    me = run.order[turn]
    if run.ended or "action" in run.elements[me] or "whole_turn" in run.elements[me]:
        return ("next",)  # a Whole Turn alone: every other element is refused (S-5, F-74)
    here, side, hp, pos, ids = run.pos[me], roster.side[me], run.hp, run.pos, roster.ids
    enemies = [(dist(here, pos[j]), ids[j], j) for j in roster.foes[side] if hp[j] > 0]
    if not enemies:
        return ("next",)
    gap, _, near = min(enemies)
    reach = _reach(run, roster, me) if roster.movement[me] else 0.0
    can_move = "move" not in run.elements[me] and reach > 0
    armed = bool(roster.weapons[me])
    if run.conds[me] and bound(run, roster, me):  # Feared, Taunted, Controlled (SA-71, F-72)
        return compelled_turn(run, roster, me, sorted(enemies), reach, _cast)
    if gap <= CONTACT and can_move and 2 * hp[me] < roster.hp_max[me]:
        return ("move", me, _away(here, run.pos[near], reach))
    if roster.powers[me]:
        cast = _cast(run, roster, me, enemies)
        if cast is not None:
            return cast
    shoots = armed and roster.weapons[me][0] in roster.shooting[me]
    if gap <= CONTACT and armed and not shoots:
        reaction = None if near in run.reacted else roster.reaction[near]
        return ("attack", me, near, reaction)
    if gap > CONTACT and can_move and armed:
        return ("move", me, _toward(here, run.pos[near], min(reach, gap - 0.9)))
    if shoots and can_move:  # its shot refused in contact (SA-48): toward another (SA-94, F-62)
        for other_gap, _, other in sorted(enemies)[1:]:
            if other_gap > CONTACT:
                return ("move", me, _toward(here, pos[other], min(reach, other_gap - 0.9)))
    return ("next",)


def command_of(choice: Choice, roster: Roster) -> Command:
    """The engine command a fast choice stands for (the engine policy's, argument for argument)."""
    ids = roster.ids
    kind = choice[0]
    if kind == "aoo":
        return Command("aoo", {"attacker": ids[choice[1]], "target": ids[choice[2]],
                               "weapon": choice[3]})  # fmt: skip
    if kind == "roll":
        return Command("roll_with_the_blow", {"id": ids[choice[1]], "to": list(choice[2])})
    if kind == "move":
        swim = {"mode": "swim"} if roster.swims[choice[1]] else {}  # SA-76, F-70
        return Command("move", {"id": ids[choice[1]], "to": list(choice[2]), **swim})
    if kind == "attack":
        item = {"defender": ids[choice[2]], "reaction": choice[3]}
        return Command("attack", {"attacker": ids[choice[1]],
                                  "attacks": [{k: v for k, v in item.items() if v}]})  # fmt: skip
    if kind == "cast":
        return cast_command(choice, roster)
    return Command("next")


def _cast(
    run: Run, roster: Roster, me: int, enemies: list[tuple[float, str, int]]
) -> Choice | None:
    """F-40: the first castable power it can pay for that reaches the nearest enemy.

    ``enemies`` are (distance, id, index) of the standing enemies; the targets are the nearest
    it reaches, up to the power's most, each with whether it Blocks.
    """
    pools = run.pools[me]
    nearest = min(enemies)[0]
    for k, entry in enumerate(roster.powers[me]):
        pool = pools.get(entry.resource, 0) if entry.resource is not None else 0
        if affordable(entry, pool) and reaches(entry, nearest):
            reached = [j for gap, _, j in sorted(enemies) if reaches(entry, gap)]
            targets = tuple(reached[: most_targets(entry)])
            if water.accepted(roster, run.pos, me, entry, targets):
                return water.cast_choice(run, roster, me, k, targets)
            return water.other_cast(run, roster, me, enemies)  # refused through water (F-70)
    return None


def cast_command(choice: Choice, roster: Roster) -> Command:
    """The engine's ``cast`` command a fast cast choice stands for (F-40)."""
    _, caster, targets, k, blocks = choice
    ids = roster.ids
    args: dict[str, object] = {"caster": ids[caster], "targets": [ids[j] for j in targets],
                               "power": roster.powers[caster][k].name}  # fmt: skip
    if any(blocks):
        args["blocks"] = {ids[j]: "block" for j, b in zip(targets, blocks, strict=True) if b}
    return Command("cast", args)
