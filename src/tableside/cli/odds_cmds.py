"""``tableside odds strike | check | attack``: the exact law (or a Monte Carlo estimate) of a roll.

The options are those of ``tableside majesty strike`` / ``majesty check`` / ``strife attack`` —
taken from those commands' signatures, so they stay in step — without ``--dice`` and
``--adjust`` (odds are over every roll, with the ``best`` or ``none`` policy for Allies of
Majesty), plus ``--endurance`` (or ``--hp``), ``--mc`` and ``--plot``.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Protocol

import typer
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from tableside.cli import majesty_cmds, strife_cmds
from tableside.cli.majesty_cmds import build_check_setup, build_strike_setup
from tableside.cli.output import print_json
from tableside.cli.parsing import InputError
from tableside.cli.sources import FileError
from tableside.cli.strife_setup import build_attack_setup
from tableside.dice.laws import Chances
from tableside.majesty.odds import (
    CheckOdds,
    StrikeOdds,
    check_odds,
    simulate_checks,
    simulate_strikes,
    strike_odds,
)
from tableside.majesty.odds_report import check_odds_dict, strike_odds_dict
from tableside.majesty.report import reading_name
from tableside.simulate import disk_cache
from tableside.strife.odds import attack_odds, simulate_attacks
from tableside.strife.odds_law import AttackOdds
from tableside.strife.odds_report import attack_odds_dict

disk_cache.install()  # exact laws computed once are kept on disk (issue 15)

app = typer.Typer(
    help="Exact odds (or Monte Carlo) of Allies of Majesty Strikes and Checks and of Realm of "
    "Strife attacks.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

# Options the odds commands add to those of ``majesty strike`` / ``majesty check``.
Endurance = Annotated[
    int | None,
    typer.Option(help="Defender's current Endurance for P(Defeated) (default: from the sheet)."),
]
MonteCarlo = Annotated[
    int | None,
    typer.Option("--mc", help="Estimate from N seeded rolls (Monte Carlo) instead of exactly."),
]
Plot = Annotated[Path | None, typer.Option(help="Write a PNG chart of the distribution.")]
Hp = Annotated[
    int | None,
    typer.Option(help="Defender's current HP for P(reduced to 0 HP) (default: from the sheet)."),
]
_NOT_FOR_ODDS = {"dice", "adjust"}  # odds are over every roll, under the best or none policy


def _sampling(mc: MonteCarlo = None, plot: Plot = None) -> None:
    """Signature carrier of ``--mc`` and ``--plot``."""


def _endurance(endurance: Endurance = None) -> None:
    """Signature carrier of ``--endurance``."""


def _hp(hp: Hp = None) -> None:
    """Signature carrier of ``--hp``."""


def _extras(carriers: tuple[Callable[..., None], ...]) -> list[inspect.Parameter]:
    return [
        p
        for carrier in carriers
        for p in inspect.signature(carrier, eval_str=True).parameters.values()
    ]


def _command(
    base: Callable[..., None],
    body: Callable[[dict[str, Any]], None],
    carriers: tuple[Callable[..., None], ...],
    doc: str,
) -> Callable[..., None]:
    """A command with ``base``'s options (less ``--dice``/``--adjust``) plus the odds options."""

    def command(**options: Any) -> None:
        body(options)

    inherited = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in inspect.signature(base, eval_str=True).parameters.values()
        if p.name not in _NOT_FOR_ODDS
    ]
    extra = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in _extras(carriers)]
    setattr(command, "__signature__", inspect.Signature([*inherited, *extra]))  # noqa: B010
    command.__doc__ = doc
    return command


# --- building the setups (as majesty strike / majesty check do) ---------------------------------


# --- the commands -------------------------------------------------------------------------------


def _strike(o: dict[str, Any]) -> None:
    setup = build_strike_setup(o)
    if o["mc"] is not None:
        result = simulate_strikes(setup, o["mc"], o["seed"], o["endurance"])
    else:
        result = strike_odds(setup, o["endurance"])
    if o["plot"] is not None:
        _save(o["plot"], lambda: plot_strike(result, o["plot"]))
    data = strike_odds_dict(result)
    _emit(data, strike_text(result, o["seed"]), o, result.samples)


def _check(o: dict[str, Any]) -> None:
    setup = build_check_setup(o)
    if o["mc"] is not None:
        result = simulate_checks(setup, o["mc"], o["seed"])
    else:
        result = check_odds(setup)
    if o["plot"] is not None:
        _save(o["plot"], lambda: plot_check(result, o["plot"]))
    _emit(check_odds_dict(result), check_text(result, o["seed"]), o, result.samples)


def _attack(o: dict[str, Any]) -> None:
    setup = build_attack_setup(o)
    if o["mc"] is not None:
        result = simulate_attacks(setup, o["mc"], o["seed"], o["hp"])
    else:
        result = attack_odds(setup, o["hp"])
    if o["plot"] is not None:
        _save(o["plot"], lambda: plot_attack(result, o["plot"]))
    _emit(attack_odds_dict(result), attack_text(result, o["seed"]), o, result.samples)


def _emit(
    data: dict[str, Any], text: RenderableType, o: dict[str, Any], samples: int | None
) -> None:
    if o["json_out"]:
        extra = {"seed": o["seed"] if samples is not None else None}
        if o["plot"] is not None:
            extra["plot"] = str(o["plot"])
        print_json({**data, **extra})
        return
    console = Console(highlight=False)
    console.print(text)
    if o["plot"] is not None:
        console.print(f"[dim]chart written to {o['plot']}[/dim]")


strike = app.command("strike")(
    _command(
        majesty_cmds.strike, _strike, (_sampling, _endurance),
        "Exact odds of a Strike (every roll, best or none policy); --mc N estimates instead.",
    )
)  # fmt: skip
check = app.command("check")(
    _command(
        majesty_cmds.check, _check, (_sampling,),
        "Exact odds of a Check (M-30 … M-33); --mc N estimates instead.",
    )
)  # fmt: skip
attack = app.command("attack")(
    _command(
        strife_cmds.attack, _attack, (_sampling, _hp),
        "Exact odds of a Realm of Strife physical attack (S-7, S-10 … S-14): outcome, reaction, "
        "damage dealt and P(defender reduced to 0 HP); --mc N estimates instead.",
    )
)  # fmt: skip


# --- text ---------------------------------------------------------------------------------------


def percent(p: Fraction) -> str:
    """12.34%, with the smallest nonzero chances shown as <0.01% (never rounded to 0 or 100)."""
    if p == 0:
        return "0"
    if p == 1:
        return "100%"
    value = float(p) * 100
    if value < 0.01:
        return "<0.01%"
    if value > 99.99:
        return ">99.99%"
    return f"{value:.2f}%"


class Law(Protocol):
    """An integer law as either game's odds give it (``majesty.odds``, ``strife.odds_law``)."""

    @property
    def values(self) -> tuple[int, ...]:
        """The values, increasing."""

    @property
    def probabilities(self) -> tuple[Fraction, ...]:
        """P(value), in the same order."""

    @property
    def mean(self) -> Fraction:
        """Expected value."""

    @property
    def sd(self) -> float:
        """Standard deviation."""

    def items(self) -> Iterable[tuple[int, Fraction]]:
        """(value, probability) pairs."""


def law_table(title: str, law: Law) -> Table:
    """Per value: P(=), P(≥), P(≤); mean and standard deviation in the title."""
    table = Table(title=f"{title} — mean {float(law.mean):.3f}, sd {law.sd:.3f}", min_width=46)
    for column in ("value", "=", "≥", "≤"):
        table.add_column(column, justify="right")
    below = Fraction(0)
    for value, p in law.items():
        table.add_row(str(value), percent(p), percent(1 - below), percent(below + p))
        below += p
    return table


def _how(samples: int | None, boon_net: int, seed: int) -> str:
    if samples is None:
        return f"Exact over all 12^{7 + abs(boon_net)} = {12 ** (7 + abs(boon_net)):,} rolls."
    return (
        f"Monte Carlo estimate from {samples:,} rolls (seed {seed}); one standard error is at "
        f"most {50 / samples**0.5:.2f} percentage points."
    )


def _passes_text(passes: tuple[Any, ...]) -> str:
    if not passes:
        return "Adjustments: none."
    return (
        "Adjustments (best): "
        + "; then ".join(f"{p.side.value} {p.count} ({p.why})" for p in passes)
        + "."
    )


def strike_text(odds: StrikeOdds, seed: int) -> RenderableType:
    """The odds of a Strike for a human."""
    setup = odds.setup
    boon_net = setup.options.boon - setup.options.bane
    kind = "ranged" if setup.options.ranged else "melee"
    main_kind, main_wear = odds.wear[0]
    lines: list[RenderableType] = [
        Text(
            f"{setup.striker.name} strikes {setup.defender.name} with {setup.weapon.name} "
            f"({kind}, {reading_name(odds.reading)} reading, net Boon/Bane {boon_net:+d}).",
            style="bold",
        ),
        Text(_passes_text(odds.passes)),
        Text(_how(odds.samples, boon_net, seed), style="dim"),
        Text(
            f"P(Defender Defeated) at current Endurance {odds.endurance}: {percent(odds.defeat)}",
            style="bold",
        ),
        Text(
            f"Epic Strike {percent(odds.epic['strike'])}, Epic Defense "
            f"{percent(odds.epic['defense'])}; Defender lowered "
            f"{percent(odds.defender_status['lowered_1_cycle'])}, Defeated by this Strike "
            f"{percent(odds.defender_status['defeated'])}; Striker lowered "
            f"{percent(odds.striker_status['lowered_1_cycle'])}, Defeated "
            f"{percent(odds.striker_status['defeated'])}."
        ),
        law_table(f"Wear{main_kind.value} dealt", main_wear),
        *(law_table(f"Wear{kind.value} dealt", law) for kind, law in odds.wear[1:]),
        law_table("net (Hits − Stops)", odds.net),
        law_table("uncanceled Hits", odds.uncanceled_hits),
        law_table("12 Effects fired", odds.twelve_effects),
        law_table("Striker Falter", odds.striker_falter),
        law_table(f"Wear{odds.wear_to_striker_kind.value} to the Striker", odds.wear_to_striker),
    ]
    return Group(*lines)


def check_text(odds: CheckOdds, seed: int) -> RenderableType:
    """The odds of a Check for a human."""
    setup = odds.setup
    boon_net = setup.boon - setup.bane
    outcome = ", ".join(f"{label} {percent(p)}" for label, p in odds.outcome.items())
    lines: list[RenderableType] = [
        Text(f"{setup.kind.value.capitalize()} Check (net Boon/Bane {boon_net:+d}).", style="bold"),
        Text(_passes_text(odds.passes)),
        Text(_how(odds.samples, boon_net, seed), style="dim"),
        Text(outcome, style="bold"),
        Text(
            f"Epic Check: automatic success {percent(odds.automatic['success'])}, automatic "
            f"failure {percent(odds.automatic['failure'])} (M-33)."
        ),
        law_table("net Passes", odds.net),
        law_table("Passes short", odds.passes_short),
    ]
    if setup.kind.interaction:
        lines.append(law_table("degrees of success (3, 7, 12)", odds.degree))
    return Group(*lines)


_OUTCOME_NAMES = {
    "warded_off": "warded off", "critical_miss": "critical miss", "auto_miss": "auto-miss",
    "critical_hit": "critical hit", "hit": "hit", "dodge": "Dodge", "armor_save": "Armor Save",
}  # fmt: skip


def _chances_text(chances: Chances, names: dict[str, str] | None = None) -> str:
    shown = [(label, p) for label, p in chances.items() if p]
    if not shown:
        return "none"
    return ", ".join(f"{(names or {}).get(label, label.replace('_', ' '))} {percent(p)}"
                     for label, p in shown)  # fmt: skip


def _attack_how(odds: AttackOdds, seed: int) -> str:
    if odds.samples is None:
        return "Exact: every die of the attack (Ward-off, hit, reaction, damage, % effects)."
    return (
        f"Monte Carlo estimate from {odds.samples:,} attacks (seed {seed}); one standard error "
        f"is at most {50 / odds.samples**0.5:.2f} percentage points."
    )


def _attack_title(odds: AttackOdds) -> str:
    setup = odds.setup
    kind = "ranged" if setup.ranged else "melee"
    extra = ", Precision Attack" if setup.precision else ""
    reaction = "no reaction" if setup.reaction is None else setup.reaction.kind.phrase
    return (
        f"{setup.attacker.name} attacks {setup.defender.name} with {setup.weapon.name} "
        f"({kind}{extra}; {reaction}; AC {setup.ac}, Dodge {setup.defender.dodge}, crit "
        f"{setup.attacker.crit_chance} %, {setup.ruleset.name} ruleset)."
    )


def attack_text(odds: AttackOdds, seed: int) -> RenderableType:
    """The odds of a Realm of Strife attack for a human."""
    lines: list[RenderableType] = [
        Text(_attack_title(odds), style="bold"),
        Text(_attack_how(odds, seed), style="dim"),
        Text(
            f"P({odds.setup.defender.name} reduced to 0 HP) from {odds.hp} HP: "
            f"{percent(odds.defeat)}",
            style="bold",
        ),
        Text(
            f"Hit or critical hit {percent(odds.hits)}; outcome: "
            f"{_chances_text(odds.outcome, _OUTCOME_NAMES)}."
        ),
    ]
    if odds.reaction["not_rolled"] != 1:
        lines.append(
            Text(
                f"Reaction test: {_chances_text(odds.reaction)}; it changed the damage "
                f"{percent(odds.stopped)}."
            )
        )
    lines += [
        Text(f"Damage stands: {_chances_text(odds.damage_basis)}."),
        Text(
            f"Conditions: {_chances_text(odds.conditions)}; items damaged: "
            f"{_chances_text(odds.damaged_items)}."
        ),
        law_table("damage dealt", odds.damage),
    ]
    return Group(*lines)


# --- charts -------------------------------------------------------------------------------------


def _save(path: Path, draw: Callable[[], None]) -> None:
    if path.suffix.lower() != ".png":
        raise InputError(
            f"--plot writes a PNG file; give a name ending in .png, not {path.name!r}."
        )
    try:
        draw()
    except OSError as error:
        raise FileError(
            f"The chart cannot be written to {str(path)!r}: {error.strerror}."
        ) from None


def _bars(axis: Any, law: Law, colour: Callable[[int], str]) -> None:
    values = list(law.values)
    heights = [float(p) * 100 for p in law.probabilities]
    gap = min((b - a for a, b in itertools.pairwise(values)), default=1)
    axis.bar(values, heights, color=[colour(v) for v in values], width=0.8 * gap)
    axis.set_ylabel("probability (%)")
    axis.grid(axis="y", alpha=0.3)


def _figure() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _at_least(axis: Any, law: Law, label: str, mark: int, mark_label: str) -> None:
    """The P(≥ x) step line over the bars, and a dashed line just below ``mark``."""
    below = Fraction(0)
    at_least = []
    for _, p in law.items():
        at_least.append(float(1 - below) * 100)
        below += p
    axis.step(list(law.values), at_least, where="mid", color="#dd8452", label=label)
    axis.axvline(mark - 0.5, color="#c44e52", linestyle="--", label=mark_label)


def plot_strike(odds: StrikeOdds, path: Path) -> None:
    """Wear dealt (P(=) bars, P(≥) line, the Defender's Endurance marked) and net Hits − Stops."""
    plt = _figure()
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    kind, wear = odds.wear[0]
    _bars(left, wear, lambda _: "#4c72b0")
    _at_least(left, wear, "P(Wear ≥ x)", odds.endurance, f"Endurance {odds.endurance}")
    left.set_xlabel(f"Wear{kind.value} dealt")
    left.set_title(f"Wear{kind.value} to {odds.setup.defender.name}: mean {float(wear.mean):.1f}")
    left.legend()
    _bars(right, odds.net, lambda v: "#55a868" if v > 0 else "#8c8c8c" if v == 0 else "#c44e52")
    right.set_xlabel("net (Hits − Stops)")
    right.set_title(f"net: mean {float(odds.net.mean):.2f}, sd {odds.net.sd:.2f}")
    how = "exact" if odds.exact else f"Monte Carlo, {odds.samples:,} rolls"
    figure.suptitle(
        f"{odds.setup.striker.name} strikes {odds.setup.defender.name} with "
        f"{odds.setup.weapon.name}: P(Defeated) {percent(odds.defeat)} ({how})"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot_check(odds: CheckOdds, path: Path) -> None:
    """Net Passes, coloured by success (≥ 3), partial (1–2) and failure (M-31)."""
    plt = _figure()
    figure, axis = plt.subplots(figsize=(8, 4.8))
    _bars(axis, odds.net, lambda v: "#55a868" if v >= 3 else "#dd8452" if v >= 1 else "#c44e52")
    axis.set_xlabel("net Passes")
    outcome = ", ".join(f"{label} {percent(p)}" for label, p in odds.outcome.items())
    how = "exact" if odds.exact else f"Monte Carlo, {odds.samples:,} rolls"
    axis.set_title(f"{odds.setup.kind.value.capitalize()} Check: {outcome} ({how})")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


_OUTCOME_COLOURS = {
    "warded_off": "#8172b3", "critical_miss": "#c44e52", "auto_miss": "#8c8c8c",
    "dodge": "#937860", "armor_save": "#8c8c8c", "hit": "#55a868", "critical_hit": "#2d6a3e",
}  # fmt: skip


def plot_attack(odds: AttackOdds, path: Path) -> None:
    """Damage dealt (P(=) bars, P(≥) step line, the defender's HP marked) and the outcomes."""
    plt = _figure()
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    name = odds.setup.defender.name
    _bars(left, odds.damage, lambda v: "#4c72b0" if v else "#8c8c8c")
    _at_least(left, odds.damage, "P(damage ≥ x)", odds.hp, f"{name}'s HP {odds.hp}")
    left.set_xlabel("damage dealt (0: no damage)")
    left.set_title(f"damage: mean {float(odds.damage.mean):.2f}, sd {odds.damage.sd:.2f}")
    left.legend()
    shown = [(label, p) for label, p in odds.outcome.items() if p]
    labels = [_OUTCOME_NAMES[label] for label, _ in shown]
    bars = right.barh(labels, [float(p) * 100 for _, p in shown],
                      color=[_OUTCOME_COLOURS[label] for label, _ in shown])  # fmt: skip
    right.bar_label(bars, labels=[percent(p) for _, p in shown], padding=3)
    right.set_xlim(0, max(float(p) for _, p in shown) * 118)
    right.invert_yaxis()
    right.set_xlabel("probability (%)")
    right.set_title("outcome of the attack")
    right.grid(axis="x", alpha=0.3)
    how = "exact" if odds.exact else f"Monte Carlo, {odds.samples:,} attacks"
    figure.suptitle(
        f"{odds.setup.attacker.name} attacks {name} with {odds.setup.weapon.name}: "
        f"P({name} to 0 HP) {percent(odds.defeat)} ({how})"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
