"""Human-readable breakdowns of Realm of Strife rolls, made with Rich.

Every line is a :class:`rich.text.Text` (never markup), so names from a user's catalogue are
printed as they are. The breakdowns follow the order the rules decide in: Ward-off, the hit roll
(natural, modified, then each S-7 check until one decides), the reaction, damage, % effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text

from tableside.strife.attack import (
    AttackResult,
    EffectRoll,
    Inflicted,
    ReactionRoll,
    check_attack,
    hit_rule,
)
from tableside.strife.casting import CastResult, CombinedResult, spirit_rule
from tableside.strife.checks import TEST_TARGET, RollOff, RollOffSide, StatTest, Winner
from tableside.strife.damage import Damage, DamageBasis
from tableside.strife.hit import CastOutcome, CastRule, HitOutcome, HitRule, crit_threshold
from tableside.strife.reactions import Family, Verdict
from tableside.strife.records import Part, total

HIT_NAMES = {
    HitOutcome.CRITICAL_MISS: "Critical Miss",
    HitOutcome.AUTO_MISS: "miss (modified roll 0 or less)",
    HitOutcome.CRITICAL_HIT: "Critical Hit",
    HitOutcome.HIT: "Hit",
    HitOutcome.DODGE: "Dodge",
    HitOutcome.ARMOR_SAVE: "Armor Save",
}
CAST_NAMES = {
    CastOutcome.MISCAST: "Miscast",
    CastOutcome.AUTO_MISS: "miss (modified roll 0 or less)",
    CastOutcome.CRITICAL_CAST: "Critical Cast",
    CastOutcome.SUCCESS: "success",
    CastOutcome.DODGED: "dodged",
    CastOutcome.RESISTED: "Resisted",
}
GOOD = "bold green"
BAD = "bold red"
HIT_STYLES = {HitOutcome.CRITICAL_HIT: "bold magenta", HitOutcome.HIT: GOOD}
CAST_STYLES = {CastOutcome.CRITICAL_CAST: "bold magenta", CastOutcome.SUCCESS: GOOD}
BASIS_TEXT = {
    DamageBasis.FULL: "full damage",
    DamageBasis.MINIMUM: "minimum damage + Crushing Blow (blocked melee hit, S-10)",
    DamageBasis.CRUSHING_ONLY: "Crushing Blow only (blocked ranged hit, S-10)",
    DamageBasis.NONE: "no damage",
}


def signed(value: int) -> str:
    """+3, −2, +0."""
    return f"−{-value}" if value < 0 else f"+{value}"


def sum_text(first: str, parts: Sequence[Part]) -> str:
    """``d20 14 + STR 16 − disadvantage 2``: a first term then labelled parts with signs."""
    text = first
    for part in parts:
        text += f" {'−' if part.amount < 0 else '+'} {part.label} {abs(part.amount)}"
    return text


def _line(text: str, style: str = "") -> Text:
    return Text(text, style=style)


def _head(text: str) -> Text:
    return Text(text, style="bold")


def _yes_no(fired: bool) -> str:
    return "yes" if fired else "no"


# --- stat tests and roll-offs -----------------------------------------------------------------


def test_line(test: StatTest, success: str = "success") -> str:
    """``d20 14 + STR 16 = 30 > 20 → success`` with natural 1 / 20 noted."""
    terms = sum_text(f"d20 {test.natural}", (test.stat, *test.parts))
    compare = ">" if test.total > TEST_TARGET else "≤"
    verdict = success if test.success else "failure"
    if test.automatic == "natural_1":
        return f"{terms} = {test.total}; natural 1 always fails → {verdict}"
    if test.automatic == "natural_20":
        return f"{terms} = {test.total}; natural 20 always succeeds → {verdict}"
    return f"{terms} = {test.total} {compare} {TEST_TARGET} → {verdict}"


def stat_test_text(test: StatTest) -> RenderableType:
    """A stat test (S-1)."""
    style = GOOD if test.success else BAD
    return Group(
        _head("Stat test (S-1): 1d20 + stat + advantage − disadvantage, success above 20"),
        _line(test_line(test), style),
        _line("Rulings: S-1"),
    )


def _side_line(side: RollOffSide) -> str:
    return (
        f"{side.label}: "
        + sum_text(f"d20 {side.natural}", (side.stat, *side.parts))
        + (f" = {side.total}")
    )


def roll_off_lines(roll: RollOff, acting: str = "acting", opposing: str = "opposing") -> list[Text]:
    """Both sides' totals and who won (ties go to the acting side, S-2)."""
    winner = roll.acting.label if roll.winner == Winner.ACTING else roll.opposing.label
    role = acting if roll.winner == Winner.ACTING else opposing
    tie = " (a tie goes to the acting side)" if roll.tie else ""
    width = max(len(acting), len(opposing))
    return [
        _line(f"  {acting:<{width}}  " + _side_line(roll.acting)),
        _line(f"  {opposing:<{width}}  " + _side_line(roll.opposing)),
        _line(f"  → {winner} ({role}) wins{tie}", "bold"),
    ]


def roll_off_text(roll: RollOff) -> RenderableType:
    """A stat roll-off (S-2, S-20)."""
    sized = any(p.label == "size difference" for p in (*roll.acting.parts, *roll.opposing.parts))
    rulings = "S-2, S-20" if sized else "S-2"
    return Group(
        _head(f"Stat roll-off (S-2) [ruleset {roll.ruleset}]: higher total wins, ties → acting"),
        *roll_off_lines(roll),
        _line(f"Rulings: {rulings}"),
    )


# --- hit and cast checks ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    """One question of the S-7 / S-8 order and its answer."""

    question: str
    test: str
    fired: bool


def hit_checks(natural: int, modified: int, rule: HitRule) -> list[Check]:
    """The S-7 order, question by question, as :func:`~tableside.strife.hit.classify_hit` asks."""
    dodged = not rule.ignore_dodge and natural <= rule.dodge
    saved = modified <= rule.ac
    threshold = crit_threshold(rule.crit_chance)
    in_crit = rule.can_crit and natural >= threshold
    blocked_crit = in_crit and rule.crit_requires_hit and (dodged or saved)
    if not rule.can_crit:
        crit_test = "no Critical Hits (dual wielding without the skill, S-16)"
    elif blocked_crit:
        crit_test = (
            f"natural {natural} ≥ {threshold} (crit {rule.crit_chance} %), but with "
            "crit-requires-hit it must also beat Dodge and AC"
        )
    else:
        crit_test = f"natural {natural} ≥ {threshold} (crit {rule.crit_chance} %)"
    dodge_test = (
        "Dodge is ignored after a failed Parry (S-11)"
        if rule.ignore_dodge
        else f"natural {natural} ≤ Dodge {rule.dodge}"
    )
    return [
        Check(
            "Critical Miss?",
            f"natural {natural} ≤ {rule.critical_miss_range} (critical-miss range)",
            natural <= rule.critical_miss_range,
        ),
        Check("miss?", f"modified {modified} ≤ 0", modified <= 0),
        Check("Critical Hit?", crit_test, in_crit and not blocked_crit),
        Check("Dodge?", dodge_test, dodged),
        Check("Armor Save?", f"modified {modified} ≤ AC {rule.ac}", saved),
    ]


def cast_checks(natural: int, modified: int, rule: CastRule) -> list[Check]:
    """The S-8 order, as :func:`~tableside.strife.hit.classify_cast` asks."""
    threshold = crit_threshold(rule.crit_chance)
    in_crit = natural >= threshold
    dodged = rule.dodge_allowed and natural <= rule.dodge
    defence = rule.resistance + (rule.dodge if rule.dodge_allowed else 0)
    resisted = modified <= defence
    checks = [
        Check(
            "Miscast?",
            f"natural {natural} ≤ {rule.miscast_range} (miscast range)",
            natural <= rule.miscast_range,
        )
    ]
    crit_text = f"natural {natural} ≥ {threshold} (crit {rule.crit_chance} %)"
    if not rule.resists:
        return [
            *checks,
            Check("Critical Cast?", f"{crit_text}; the target does not resist (SA-4)", in_crit),
        ]
    blocked = in_crit and rule.crit_requires_hit and (dodged or resisted)
    if blocked:
        crit_text += ", but with crit-requires-hit it must also beat the Resistance"
    dodge_text = (
        f"natural {natural} ≤ Dodge {rule.dodge}"
        if rule.dodge_allowed
        else "this power does not allow a Dodge"
    )
    with_dodge = (
        f" (Resistance {rule.resistance} + Dodge {rule.dodge})" if rule.dodge_allowed else ""
    )
    return [
        *checks,
        Check("miss?", f"modified {modified} ≤ 0", modified <= 0),
        Check("Critical Cast?", crit_text, in_crit and not blocked),
        Check("dodged?", dodge_text, dodged),
        Check("Resisted?", f"modified {modified} ≤ {defence}{with_dodge}", resisted),
    ]


def check_lines(checks: Sequence[Check], outcome: str, style: str) -> list[Text]:
    """The checks in order up to the one that decided, then the outcome."""
    lines = []
    for number, check in enumerate(checks, start=1):
        lines.append(
            _line(f"  {number}. {check.question:<15} {check.test}: {_yes_no(check.fired)}")
        )
        if check.fired:
            break
    lines.append(_line(f"  → {outcome}", style or "bold"))
    return lines


def natural_line(naturals: tuple[int, ...], precision: bool) -> str:
    """``natural d100 37`` or the two Precision Attack dice and the one kept."""
    if precision and len(naturals) == 2:
        return (
            f"Hit roll d100: {naturals[0]} and {naturals[1]} (Precision Attack keeps the "
            f"lower: {min(naturals)})"
        )
    return f"Hit roll d100: natural {min(naturals)}"


def modified_line(natural: int, modifiers: Sequence[Part], title: str = "Modified") -> str:
    """``Modified: natural 37 + modifier 5 = 42``."""
    arithmetic = sum_text(f"natural {natural}", modifiers)
    return f"{title}: {arithmetic} = {natural + total(modifiers)}"


# --- reactions, damage, effects ---------------------------------------------------------------


def _reaction_effect(roll: ReactionRoll, applies: bool = True) -> str:
    effect = roll.effect
    if not applies:
        return "the attack missed, so there was nothing to stop"
    if roll.reaction.family == Family.PARRY:
        if effect.stopped:
            return "parried: no damage (S-11)"
        return "the hit stands; it ignored Dodge (S-11)"
    if effect.stopped:
        return f"blocked: {BASIS_TEXT[effect.basis].split(' (')[0]}"
    return "the hit stands: full damage"


def reaction_lines(roll: ReactionRoll | None, hit: bool = True) -> list[Text]:
    """The Block or Parry test and what it did (S-10 … S-12)."""
    if roll is None:
        return []
    reaction = roll.reaction
    items = " and ".join(reaction.items)
    parry = reaction.family == Family.PARRY
    family = "Parry" if parry else "Block"
    ruling = ("S-11" if parry else "S-10") + (", S-12" if reaction.improvised else "")
    success = f"Critical {family}" if roll.verdict == Verdict.CRITICAL else "success"
    lines = [
        _head(f"Reaction: {reaction.kind.phrase} with {items}, tested as a {family} ({ruling})"),
        _line(f"  {test_line(roll.test, success)}", GOOD if roll.test.success else BAD),
        _line(f"  → {_reaction_effect(roll, hit)}", GOOD if roll.effect.stopped else ""),
    ]
    if roll.effect.item_damaged or roll.item_damaged:
        lines.append(_line(f"  {reaction.items[0]} is damaged", BAD))
    if roll.effect.disarm:
        lines.append(_line("  the parried Critical Hit knocks the parrying weapon away", BAD))
    if roll.knocked_away:
        lines.append(
            _line(f"  natural {roll.test.natural} ≤ 10: the improvised item is knocked away")
        )
    return lines


def damage_lines(damage: Damage | None, title: str = "Damage") -> list[Text]:
    """The damage arithmetic: dice rolled, each part, the total (S-14, S-21)."""
    if damage is None:
        return [_line(f"{title}: none")]
    rolled = ", ".join(str(r) for r in damage.rolls)
    head = f"{title} {damage.dice}, {BASIS_TEXT[damage.basis]}"
    if rolled:
        head += f": rolled {rolled}"
    if not damage.parts:
        return [_head(head), _line(f"  nothing stands = {damage.total}", "bold")]
    first, *rest = damage.parts
    arithmetic = sum_text(f"{first.label} {first.amount}", rest)
    return [_head(head), _line(f"  {arithmetic} = {damage.total}", "bold")]


def effect_lines(
    rolls: Sequence[EffectRoll],
    inflicted: Sequence[Inflicted],
    damaged: Sequence[str],
    names: dict[str, str],
) -> list[Text]:
    """% effect rolls, the conditions they and the rest inflicted, damaged items (S-23)."""
    lines = []
    for roll in rolls:
        verdict = "applied" if roll.applied else "not applied"
        lines.append(_line(f"% effect {roll.name} {roll.chance} %: d100 {roll.roll} → {verdict}"))
    for item in inflicted:
        cond = item.condition
        lasts = (
            f"{cond.rounds_left} round{'s' if cond.rounds_left != 1 else ''}"
            if cond.rounds_left is not None
            else f"until {cond.until}"
        )
        who = names.get(item.target, item.target)
        lines.append(_line(f"Condition on {who}: {cond.name}, {lasts} (source: {cond.source})"))
    lines += [_line(f"Item damaged: {name}") for name in damaged]
    return lines


# --- whole results ----------------------------------------------------------------------------


def _ward_lines(result_ward: RollOff | None, warded: bool) -> list[Text]:
    if result_ward is None:
        return []
    lines = [_head("Ward-off (S-13): Initiative roll-off; the defender must win, ties → attacker")]
    lines += roll_off_lines(result_ward, "attacker", "defender")
    if warded:
        lines.append(_line("  the attack is warded off: it fails, its cost is spent", BAD))
    return lines


def attack_text(result: AttackResult) -> RenderableType:
    """The full breakdown of a physical attack (S-7 …)."""
    setup = result.setup
    kind = "Thrown" if setup.context.thrown else "Ranged" if setup.ranged else "Melee"
    precision = ", Precision Attack" if setup.precision else ""
    lines: list[RenderableType] = [
        _head(
            f"{kind} attack{precision}: {setup.attacker.name} ({setup.weapon.name}) → "
            f"{setup.defender.name} [ruleset {setup.ruleset.name}]"
        ),
        _line(
            f"Target: AC {setup.ac}, Dodge {setup.defender.dodge}; attacker crit "
            f"{setup.attacker.crit_chance} %, critical miss 1–{setup.attacker.critical_miss_chance}"
        ),
    ]
    lines += _ward_lines(result.ward_off, result.warded_off)
    if result.outcome is not None and result.natural is not None and result.modified is not None:
        lines.append(_line(natural_line(result.hit_naturals, setup.precision)))
        lines.append(_line(modified_line(result.natural, result.modifiers)))
        reaction = result.reaction
        ignore = (
            reaction is not None
            and reaction.reaction.family == Family.PARRY
            and reaction.verdict == Verdict.FAILURE
        )
        rule = hit_rule(setup, result.use, ignore)
        lines.append(_head("Checks (S-7):"))
        lines += check_lines(
            hit_checks(result.natural, result.modified, rule),
            HIT_NAMES[result.outcome],
            HIT_STYLES.get(result.outcome, BAD),
        )
        lines += reaction_lines(reaction, result.outcome.hits)
        lines += damage_lines(result.damage)
    names = {"attacker": setup.attacker.name, "defender": setup.defender.name}
    lines += effect_lines(result.effect_rolls, result.inflicted, (), names)
    outcome = "warded off" if result.outcome is None else result.outcome.value
    lines.append(_line(f"Outcome: {outcome}; damage {result.total_damage}", "bold"))
    lines.append(_line(f"Rulings: {', '.join(result.rulings)}"))
    return Group(*lines)


def cast_text(result: CastResult) -> RenderableType:
    """The full breakdown of a cast (S-8)."""
    setup, rule = result.setup, result.rule
    power = setup.power
    flags = [power.element.value]
    flags += ["blockable"] if power.blockable else []
    flags += ["Dodge allowed"] if power.dodge_allowed else []
    resists = "resists" if rule.resists else "does not resist"
    lines: list[RenderableType] = [
        _head(
            f"Cast: {setup.caster.name} casts {power.name} ({', '.join(flags)}) → "
            f"{setup.target.name} [ruleset {setup.ruleset.name}]"
        ),
        _line(
            f"Target {resists}: {power.element.value} Resistance {rule.resistance}, Dodge "
            f"{rule.dodge}; caster crit {rule.crit_chance} %, miscast 1–{rule.miscast_range}"
        ),
        _line(f"Casting roll d100: natural {result.natural}"),
        _line(modified_line(result.natural, result.modifiers)),
        _head("Checks (S-8):"),
        *check_lines(
            cast_checks(result.natural, result.modified, rule),
            CAST_NAMES[result.outcome],
            CAST_STYLES.get(result.outcome, BAD),
        ),
    ]
    lines += reaction_lines(result.reaction, result.outcome.succeeds)
    if power.damage is None:
        lines.append(_line("Damage: the power deals no damage dice"))
    else:
        lines += damage_lines(result.damage)
    total_damage = 0 if result.damage is None else result.damage.total
    lines.append(_line(f"Outcome: {result.outcome.value}; damage {total_damage}", "bold"))
    lines.append(_line(f"Rulings: {', '.join(result.rulings)}"))
    return Group(*lines)


def combined_text(result: CombinedResult) -> RenderableType:
    """The full breakdown of a combined attack (S-9): one natural, two portions."""
    setup = result.setup
    attack, spirit = setup.attack, setup.spirit
    lines: list[RenderableType] = [
        _head(
            f"Combined attack: {attack.attacker.name} ({attack.weapon.name} + {spirit.power.name}, "
            f"{spirit.power.element.value}) → {attack.defender.name} "
            f"[ruleset {attack.ruleset.name}]"
        ),
        _line(
            f"Target: AC {attack.ac}, Dodge {attack.defender.dodge}, "
            f"{spirit.power.element.value} Resistance "
            f"{attack.defender.resistance(spirit.power.element)}"
        ),
    ]
    warded = result.verdict is None
    lines += _ward_lines(result.ward_off, warded)
    verdict, natural = result.verdict, result.natural
    if verdict is not None and natural is not None:
        reaction = result.reaction
        ignore = (
            reaction is not None
            and reaction.reaction.family == Family.PARRY
            and reaction.verdict == Verdict.FAILURE
        )
        lines.append(_line(natural_line(result.hit_naturals, attack.precision)))
        physical_modified = natural + total(result.physical_modifiers)
        spirit_modified = natural + total(result.spirit_modifiers)
        lines.append(_line(modified_line(natural, result.physical_modifiers, "Physical modified")))
        lines.append(_head("Physical portion checks (S-7):"))
        rule = _physical_rule(result, ignore)
        lines += check_lines(
            hit_checks(natural, physical_modified, rule),
            HIT_NAMES[verdict.physical],
            HIT_STYLES.get(verdict.physical, BAD),
        )
        lines.append(_line(modified_line(natural, result.spirit_modifiers, "Spirit modified")))
        lines.append(_head("Spirit portion checks (S-8, vs Resistance only):"))
        raw_spirit = cast_checks(natural, spirit_modified, spirit_rule(setup))
        lines += check_lines(
            raw_spirit, CAST_NAMES[verdict.spirit], CAST_STYLES.get(verdict.spirit, BAD)
        )
        applies = [
            f"{name} (doubled)" if doubled else name
            for name, on, doubled in (
                ("physical", verdict.physical_applies, verdict.physical_doubled),
                ("spirit", verdict.spirit_applies, verdict.spirit_doubled),
            )
            if on
        ]
        lines.append(
            _line(
                f"Combined (S-9): {verdict.overall.value}; portions that apply: "
                f"{', '.join(applies) or 'none'}",
                "bold",
            )
        )
        lines += reaction_lines(reaction, verdict.physical_applies or verdict.spirit_applies)
        if result.physical_stopped or result.spirit_stopped:
            stopped = [n for n, on in (("physical", result.physical_stopped),
                                       ("spirit", result.spirit_stopped)) if on]  # fmt: skip
            lines.append(_line(f"  stopped portions have no effect (SA-18): {', '.join(stopped)}"))
        lines += damage_lines(result.physical_damage, "Physical damage")
        lines += damage_lines(result.spirit_damage, "Spirit damage")
    names = {"attacker": attack.attacker.name, "defender": attack.defender.name}
    lines += effect_lines(result.effect_rolls, result.inflicted, (), names)
    physical = 0 if result.physical_damage is None else result.physical_damage.total
    spirit_total = 0 if result.spirit_damage is None else result.spirit_damage.total
    outcome = "warded off" if verdict is None else verdict.overall.value
    lines.append(
        _line(f"Outcome: {outcome}; damage {physical} physical + {spirit_total} spirit", "bold")
    )
    lines.append(_line(f"Rulings: {', '.join(result.rulings)}"))
    return Group(*lines)


def _physical_rule(result: CombinedResult, ignore_dodge: bool) -> HitRule:
    """The physical portion's rule, as the combined resolver judged it."""
    attack = result.setup.attack
    return hit_rule(attack, check_attack(attack), ignore_dodge)
