"""Human-readable breakdowns of Strikes and Checks, made with Rich."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tableside.dice import Adjustment
from tableside.majesty.checks import CheckResult
from tableside.majesty.rolls import Category, NaturalRoll, Reading
from tableside.majesty.strike import Rated, StrikeResult
from tableside.majesty.wear import Part, WearLine

STRIKE_NAMES = {
    Category.TWELVE: "Hit (12)",
    Category.POSITIVE: "Hit",
    Category.NEUTRAL: "Miss",
    Category.NEGATIVE: "Stop",
    Category.ONE: "Stop (1)",
}
CHECK_NAMES = {
    Category.TWELVE: "Pass (12)",
    Category.POSITIVE: "Pass",
    Category.NEUTRAL: "Neutral",
    Category.NEGATIVE: "Fail",
    Category.ONE: "Fail (1)",
}
STYLES = {
    Category.TWELVE: "bold green",
    Category.POSITIVE: "green",
    Category.NEUTRAL: "white",
    Category.NEGATIVE: "red",
    Category.ONE: "bold red",
}


def signed(value: int) -> str:
    """+3, −2, 0."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


def parts_text(parts: tuple[Part, ...]) -> str:
    """'Guard 4 + Defensive Stance 3'."""
    return " ".join(
        f"{'' if i == 0 else ('+ ' if p.amount >= 0 else '− ')}{p.label} "
        f"{p.amount if i == 0 else abs(p.amount)}"
        for i, p in enumerate(parts)
    )


def rated_text(name: str, rated: Rated) -> str:
    """'Guard 7 (Guard 4 + Defensive Stance 3)'."""
    return f"{name} {rated.value} ({parts_text(rated.parts)})"


def rolled_text(roll: NaturalRoll) -> Text:
    """Every die rolled, discarded ones struck through (M-7)."""
    text = Text("Dice rolled: ")
    for i, face in enumerate(roll.rolled):
        style = "strike dim" if i in roll.discarded else "bold"
        text.append(str(face), style=style)
        text.append(" ")
    if roll.discarded:
        word = "Boon" if roll.boon_net > 0 else "Bane"
        dropped = ", ".join(str(face) for face in roll.discarded_faces)
        text.append(f"({word}:{abs(roll.boon_net)} discards {dropped})", style="dim")
    return text


def dice_table(
    natural: tuple[int, ...],
    final: tuple[int, ...],
    adjustments: tuple[Adjustment, ...],
    reading: Reading,
    names: dict[Category, str],
) -> Table:
    """Per die: natural face and class, Adjustments, final face and class."""
    table = Table(title="Dice", show_lines=False)
    for column in ("die", "natural", "class", "adjusted", "final", "class "):
        table.add_column(column)
    for i, (start, end) in enumerate(zip(natural, final, strict=True)):
        moves = [a for a in adjustments if a.die == i]
        moved = ", ".join(f"{a.from_}→{a.to} ({a.by})" for a in moves) or "–"
        table.add_row(
            str(i + 1),
            str(start),
            Text(names[reading.category(start)], style=STYLES[reading.category(start)]),
            moved,
            str(end),
            Text(names[reading.category(end)], style=STYLES[reading.category(end)]),
        )
    return table


def adjustments_text(adjustments: tuple[Adjustment, ...]) -> list[str]:
    """Every Adjustment as from → to with who made it and why (M-12, M-13)."""
    if not adjustments:
        return ["Adjustments: none made."]
    lines = ["Adjustments:"]
    lines += [f"  die {a.die + 1}: {a.from_} → {a.to} by the {a.by} — {a.why}" for a in adjustments]
    return lines


def wear_text(line: WearLine, target: str) -> list[str]:
    """The Wear arithmetic step by step (M-26)."""
    head = f"Wear{line.kind.value} to {target}:"
    if line.hits < 1:
        return [f"{head} none (no uncanceled Hit, M-26)."]
    steps = [f"{head} {line.hits} Hits × Force {line.force} = {line.hits * line.force}"]
    if line.base != line.hits * line.force:
        steps[0] = f"{head} base {line.base}"
    steps += [f"  {signed(p.amount)} {p.label} (flat)" for p in line.flats]
    if line.flats:
        steps.append(f"  = {line.before_percent}")
    if line.percents:
        listed = ", ".join(f"{signed(p.amount)} % {p.label}" for p in line.percents)
        steps.append(
            f"  % total {signed(line.percent)} ({listed}): floor({line.before_percent} × "
            f"{abs(line.percent)}/100) → {signed(line.delta)} (at least 1) = "
            f"{line.before_percent + line.delta}"
        )
    steps.append(
        f"  minimum max(1, floor({line.hits} × {line.force} / 10)) = {line.minimum} → "
        f"{line.amount} Wear{line.kind.value}"
    )
    return steps


def _adjusting_line(result: StrikeResult) -> str:
    adjusting = result.adjusting
    advantage = adjusting.advantage
    who = "Striker" if advantage > 0 else "Defender"
    head = (
        f"{rated_text('Precision', result.precision)} vs {rated_text('Guard', result.guard)}: "
        f"advantage {signed(advantage)}"
    )
    if adjusting.translated:
        head += f" → {who} {adjusting.translated} Adjustment(s) (M-10, M-18)"
    raw = [f"Striker raw {p.label} {p.amount}" for p in adjusting.striker_raw]
    raw += [f"Defender raw {p.label} {p.amount}" for p in adjusting.defender_raw]
    if raw:
        head += "; " + ", ".join(raw) + " (M-11)"
    passes = ", ".join(f"{p.side} {p.count} ({p.why.split(' (')[0]})" for p in adjusting.passes)
    return head + f"\nAdjusting: {passes or 'nobody'}"


def _outcome_lines(result: StrikeResult) -> list[str]:
    o = result.outcome
    ignored = f" ({o.ignored_stops} ignored)" if o.ignored_stops else ""
    net = (
        f"{o.uncanceled_hits} uncanceled Hit(s)"
        if o.net > 0
        else f"{o.uncanceled_stops} uncanceled Stop(s)"
        if o.net < 0
        else "all canceled"
    )
    from tableside.majesty.rolls import Tally

    pairs = Tally.of(result.final, result.reading).pairs
    return [
        f"12/1 pairs: {pairs}; unpaired 12s: {o.twelve_effects}; Striker Falter from 1s: "
        f"{o.striker_falter}",
        f"Hits {o.hits} (regardless of Stops) − Stops {o.stops}{ignored} = {signed(o.net)}: {net}",
    ]


def _effect_lines(result: StrikeResult) -> list[str]:
    e = result.effects
    lines = []
    twelve = result.setup.weapon.twelve_effect
    if result.outcome.twelve_effects or e.twelve_fired:
        kind = "none" if twelve is None else twelve.effect.type.value
        lines.append(
            f"12 Effects: {result.outcome.twelve_effects} unpaired 12(s), {e.twelve_fired} fired "
            f"after caps ({result.setup.weapon.name}: {kind}) (M-21)"
        )
    lines.append(
        f"Passion Effect: {e.passion_triggers} trigger(s), {e.passion_applied} applied (M-25)"
    )
    if e.ap_gained:
        lines.append(f"Striker gains {e.ap_gained} AP")
    if result.defender_falter:
        lines.append(f"Defender Falter:{result.defender_falter} ({parts_text(e.defender_falter)})")
    if e.defender_exertion:
        lines.append(f"Defender Exertion +{e.defender_exertion}")
    if e.knock_back:
        lines.append(f'Knock Back rider: {e.knock_back:g}" (M-35)')
    return lines


def strike_text(result: StrikeResult) -> RenderableType:
    """The full breakdown of a Strike."""
    setup = result.setup
    kind = "Ranged" if setup.options.ranged else "Melee"
    maneuvers = f" with {', '.join(m.name for m in setup.maneuvers)}" if setup.maneuvers else ""
    lines: list[RenderableType] = [
        Text(
            f"{kind} Strike: {setup.striker.name} ({setup.weapon.name}){maneuvers} → "
            f"{setup.defender.name} [ruleset {setup.ruleset.name}]",
            style="bold",
        ),
        f'Cost: {result.cost.ap} AP, movement up to {result.cost.movement:g}", '
        f"Exertion +{result.cost.exertion} (M-14)",
        _adjusting_line(result),
        rolled_text(result.roll),
    ]
    if result.epic_kind:
        lines.append(Text(f"Epic {result.epic_kind.capitalize()}! (M-9)", style="bold magenta"))
    lines.append(
        dice_table(
            result.roll.natural, result.final, result.adjustments, result.reading, STRIKE_NAMES
        )
    )
    lines += adjustments_text(result.adjustments)
    lines += _outcome_lines(result)
    lines += _effect_lines(result)
    for line in result.wear:
        lines += wear_text(line, setup.defender.name)
    if result.wear_to_striker is not None:
        lines.append(f"Defensive Hits: {result.defensive_hits} (M-23)")
        lines += wear_text(result.wear_to_striker, setup.striker.name)
    lines += _status_lines(result)
    lines.append(f"Rulings: {', '.join(result.rulings)}")
    return Group(*lines)


def _status_lines(result: StrikeResult) -> list[str]:
    lines = []
    for label, before, after, change in (
        ("Defender", result.setup.defender, result.defender_after, result.defender_status_change),
        ("Striker", result.setup.striker, result.striker_after, result.striker_status_change),
    ):
        note = f" ({change.replace('_', ' ')})" if change else ""
        lines.append(
            f"{label} {after.name}: {before.status.value} → {after.status.value}{note}; "
            f"E {after.current_endurance} R {after.current_resolve} P {after.current_passion}"
        )
    return lines


def check_text(result: CheckResult) -> RenderableType:
    """The full breakdown of a Check or plain roll."""
    setup = result.setup
    head = f"{setup.kind.value.capitalize()} Check"
    if not setup.kind.interaction:
        opposing = "unopposed" if setup.opposing is None else f"vs {setup.opposing}"
        head += f": Factor {setup.factor} {opposing}, advantage {signed(result.advantage)}"
    lines: list[RenderableType] = [Text(head, style="bold")]
    lines.append(
        "Adjusting: "
        + (
            ", ".join(f"{p.side} {p.count} ({p.why.split(' (')[0]})" for p in result.passes)
            or "nobody"
        )
    )
    lines.append(rolled_text(result.roll))
    lines.append(
        dice_table(result.roll.natural, result.final, result.adjustments, Reading(), CHECK_NAMES)
    )
    lines += adjustments_text(result.adjustments)
    auto = f" — Epic Check: automatic {result.automatic.value} (M-33)" if result.automatic else ""
    lines.append(
        f"Passes {result.tally.total_positive} − Fails {result.tally.total_negative} = "
        f"{signed(result.net)} → {result.outcome.value}{auto}; Passes short {result.passes_short}"
    )
    if setup.kind.interaction:
        lines.append(f"Degree of success: {result.degree} (3 / 7 / 12, M-32)")
    lines.append(f"Rulings: {', '.join(result.rulings)}")
    return Group(*lines)
