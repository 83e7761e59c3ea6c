"""``tableside simulate``: run an exported encounter to its end many times and report the odds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from tableside.cli.output import print_json
from tableside.cli.sources import read_json
from tableside.simulate import SimulationError, default_workers, even
from tableside.simulate import simulate as run_simulation
from tableside.simulate import sweep as sweeps

File = Annotated[
    Path, typer.Argument(help="An encounter exported by 'war export' or 'fight export'.")
]
Runs = Annotated[int, typer.Option(help="How many runs to play.")]
Seed = Annotated[int | None, typer.Option(help="Base seed of the runs (default: the encounter's).")]
Workers = Annotated[int | None, typer.Option(help="Worker processes (default: one per CPU).")]
MaxCycles = Annotated[
    int | None, typer.Option(help="War: a run not over after this many Cycles is unfinished [100].")
]
MaxRounds = Annotated[
    int | None,
    typer.Option(help="Fight: a run not over after this many rounds is unfinished [100]."),
]
Rest = Annotated[
    bool | None, typer.Option("--rest/--no-rest", help="War policy: the Rest rule (default on).")
]
Engine = Annotated[
    str,
    typer.Option(help="fast (exact Strike laws, many runs at once) or full (the rules engine)."),
]
SweepText = Annotated[
    str | None,
    typer.Option("--sweep", help='War: one number over a range, e.g. "Brute.guard=2..8".'),
]
PlotPath = Annotated[
    Path | None, typer.Option("--plot", help="With --sweep: draw the win chance into this PNG.")
]
TargetText = Annotated[
    str | None,
    typer.Option("--target", help='Make it even: the chance a side should have, e.g. "holy=60%"; '
                 "with --sweep (one number) or --count (how many of a combatant)."),
]  # fmt: skip
CountText = Annotated[
    str | None,
    typer.Option("--count", help='With --target: how many of a combatant fight, e.g. '
                 '"Goblin-1=1..6" (it and copies of it), or of a catalogue NPC on a side, e.g. '
                 '"catalog:Goblin@monsters=0..4" (a Realm of Strife fight).'),
]  # fmt: skip
ClusterAddress = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="With --sweep: run the values on this Dask scheduler (tcp://host:8786); "
        "needs the cluster extra.",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON (schema in docs/simulate.md).")]


def load_document(file: Path) -> Any:
    """The exported encounter as decoded JSON."""
    return read_json(file, "encounter")


@contextmanager
def progress_bar(runs: int, show: bool) -> Iterator[Callable[[int], None] | None]:
    """A Rich progress bar on stderr (only when stderr is a terminal and ``show``)."""
    console = Console(stderr=True)
    if not show or not console.is_terminal:
        yield None
        return
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("simulating", total=runs)
        yield lambda done: bar.advance(task, done)


def simulate(
    file: File,
    runs: Runs = 1000,
    seed: Seed = None,
    workers: Workers = None,
    max_cycles: MaxCycles = None,
    max_rounds: MaxRounds = None,
    rest: Rest = None,
    engine: Engine = "fast",
    sweep: SweepText = None,
    plot: PlotPath = None,
    cluster: ClusterAddress = None,
    target: TargetText = None,
    count: CountText = None,
    json_out: Json = False,
) -> None:
    """Play an exported War or fight to its end many times: win odds, length, Wear or HP lost."""
    document = load_document(file)
    workers = default_workers() if workers is None else workers
    if target is not None or count is not None:
        options = SweepOptions(runs, seed, workers, engine, rest, cluster)
        run_even_command(document, target, sweep or count, options, json_out)
        return
    if sweep is not None or plot is not None or cluster is not None:
        options = SweepOptions(runs, seed, workers, engine, rest, cluster)
        run_sweep_command(document, sweep, plot, options, json_out)
        return
    with progress_bar(runs, not json_out) as progress:
        report = run_simulation(
            document, runs, file=str(file), seed=seed, workers=workers,
            max_cycles=max_cycles, max_rounds=max_rounds, rest=rest, progress=progress,
            engine=engine,
        )  # fmt: skip
    if json_out:
        print_json(report)
    else:
        render(report)


@dataclass(frozen=True)
class SweepOptions:
    """How a sweep's values are simulated (``--runs`` … ``--cluster``)."""

    runs: int
    seed: int | None
    workers: int
    engine: str
    rest: bool | None
    cluster: str | None


def run_sweep_command(document: Any, text: str | None, plot: Path | None, options: SweepOptions,
                      json_out: bool) -> None:  # fmt: skip
    """``--sweep``: the win chance at each value, the value closest to even, an optional plot."""
    if text is None:
        given = "--plot draws" if plot is not None else "--cluster runs"
        raise SimulationError(f"{given} a sweep; give --sweep too.")
    result = sweeps.run_sweep(document, sweeps.parse_sweep(text), options.runs,
                              seed=options.seed, workers=options.workers, engine=options.engine,
                              rest=options.rest, cluster=options.cluster)  # fmt: skip
    if plot is not None:
        sweeps.plot(result, str(plot))
    if json_out:
        print_json(result)
        return
    console = points_table(f"{result['combatant']}.{result['field']}: side {result['side']} "
                           f"wins, {result['runs']} runs per value", result["points"])  # fmt: skip
    console.print(f"closest to an even fight: {result['combatant']}.{result['field']} = "
                  f"{result['closest_to_even']}")  # fmt: skip


def run_even_command(document: Any, target: str | None, change: str | None,
                     options: SweepOptions, json_out: bool) -> None:  # fmt: skip
    """``--target``: the value of one change whose chance is closest to the target (F-54)."""
    if target is None or change is None:
        raise SimulationError("Make it even needs --target and one of --sweep or --count.")
    result = even.make_even(document, even.parse_target(target), even.parse_change(change),
                            options.runs, seed=options.seed, workers=options.workers,
                            cluster=options.cluster)  # fmt: skip
    if json_out:
        print_json(result)
        return
    named = change_name(result["change"])
    console = points_table(f"{named}: side {result['side']} wins (target "
                           f"{result['target']:.0%}), {result['runs']} runs per value",
                           result["points"])  # fmt: skip
    reached = "within its interval" if result["reached"] else "the closest, not within reach"
    console.print(f"proposal: {named} = {result['proposal']} ({result['side']} wins "
                  f"{result['p']:.1%}; the target {reached})")  # fmt: skip


def change_name(what: dict[str, Any]) -> str:
    """How a proposal's change reads: a number, how many of a combatant or of a catalogue NPC."""
    if what["kind"] == "number":
        return f"{what['combatant']}.{what['field']}"
    if what["kind"] == "catalog":
        return f"how many {what['catalog']} (catalogue) on {what['side']}"
    return f"how many {what['combatant']}"


def points_table(title: str, points: list[dict[str, Any]]) -> Console:
    """Print each value's win chance with its interval; the console, to print more."""
    table = Table(title=title)
    for column in ("value", "probability", "95% CI (Wilson)"):
        table.add_column(column, justify="right")
    for point in points:
        centre, spread = interval(point["wins"], 3)
        table.add_row(str(point["value"]), centre, spread)
    console = Console(highlight=False)
    console.print(table)
    return console


def interval(block: dict[str, Any] | None, digits: int = 2) -> tuple[str, str]:
    """A mean (or proportion) and its 95% interval as text."""
    if block is None:
        return "-", "-"
    centre = block["mean"] if "mean" in block else block["p"]
    low, high = block["ci95"]
    return f"{centre:.{digits}f}", f"{low:.{digits}f} – {high:.{digits}f}"


def outcome_table(report: dict[str, Any]) -> Table:
    """Wins per side, draws, unfinished runs."""
    outcome = report["outcome"]
    table = Table(title=f"{report['encounter']}: {report['runs']} runs, seed {report['seed']}")
    for column in ("result", "runs", "probability", "95% CI (Wilson)"):
        table.add_column(column, justify="left" if column == "result" else "right")
    rows = [(f"side {side} wins", block) for side, block in outcome["wins"].items()]
    rows += [("draw", outcome["draws"]), ("unfinished", outcome["unfinished"])]
    for label, block in rows:
        table.add_row(label, str(block["count"]), *interval(block, 3))
    return table


def clock_table(report: dict[str, Any]) -> Table:
    """The Cycle or round finished runs ended in."""
    clock, unit = report["clock"], report["clock"]["unit"]
    table = Table(title=f"{unit[:1].upper()}{unit[1:]} the encounter ended in (finished runs)")
    for column in ("mean", "sd", "95% CI", "distribution"):
        table.add_column(column, justify="right")
    summary = clock["summary"]
    spread = ", ".join(f"{k}: {v}" for k, v in clock["distribution"].items())
    sd = "-" if summary is None else f"{summary['sd']:.2f}"
    table.add_row(interval(summary)[0], sd, interval(summary)[1], spread or "-")
    return table


def loss_table(report: dict[str, Any]) -> Table:
    """Mean losses per side and per combatant, and how often each fell."""
    measures = report["losses"]["measures"]
    noun = "Wear" if report["game"] == "majesty-war" else "lost"
    table = Table(title="Mean loss per run (95% CI) and how often each fell")
    table.add_column("who")
    for measure in measures:
        table.add_column(f"{measure} {noun}", justify="right")
    table.add_column("fell", justify="right")
    for side, block in report["losses"]["per_side"].items():
        table.add_row(f"side {side}", *(" ".join(interval(block[m])) for m in measures), "")
    for who, block in report["combatants"].items():
        cells = (" ".join(interval(block["losses"][m])) for m in measures)
        table.add_row(f"{who} ({block['side']})", *cells, f"{block['fallen']['p']:.3f}")
    return table


def render(report: dict[str, Any]) -> None:
    """The report as Rich tables on stdout."""
    console = Console(highlight=False)
    console = console if console.is_terminal else Console(highlight=False, width=140)
    for table in (outcome_table(report), clock_table(report), loss_table(report)):
        console.print(table)
    console.print(f"policy {report['policy']}; cap {report['cap']['max']} {report['cap']['unit']}s")
    if "engine" in report:
        why = f" (the fast engine cannot: {report['fallback']})" if "fallback" in report else ""
        if "kernel_fallback" in report:
            why = f" (its Python path, not the compiled kernel: {report['kernel_fallback']})"
        console.print(f"engine {report['engine']}{why}")
