"""The chat's dice roller: free rolls and Checks as roll cards (docs/web.md, W-30 … W-33).

Allies of Majesty: a free 7d12 roll with Boon/Bane (M-7: the extra dice discarded by the
engine's own :func:`~tableside.majesty.rolls.discard_indices`), its Hits, Misses and Stops with
the 12s' extras and the 1s (M-8) and its Epic result (M-9); or a Check (M-30 … M-33) read as
rolled and with the best Adjustments each side may make suggested, not applied (W-32).

Realm of Strife: a d100 with a modifier against a target number (a percentage chance, ``at
most``; or a value to beat such as an AC, ``above``), or a d20 stat test (S-1: 1d20 + stat +
advantage, success above 20, natural 1 and 20 decide alone).

The dice come from a :class:`~tableside.dice.SeededRng` of a seed stored with the card (the
same seed rolls the same dice again, :func:`reroll`), or are typed in (physical dice, marked
``typed``). Every card is plain JSON: ``summary`` (one sentence), ``chips`` (each die: face,
what it counts as, discarded) and the numbers the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.errors import DataError
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.checks import CheckKind, CheckResult, CheckSetup, resolve_check
from tableside.majesty.rolls import (
    PLAIN,
    Category,
    EpicState,
    NaturalRoll,
    Tally,
    face_categories,
    natural_roll_from,
    net_boon,
    roll_natural,
)
from tableside.strife.checks import D20, TEST_TARGET, stat_test_with_natural
from tableside.strife.hit import D100, check_d100
from tableside.strife.records import Part

WAR = "majesty-war"
STRIFE = "strife-combat"
KINDS = {WAR: ("d12", "check"), STRIFE: ("d100", "d20")}
GAME_WORDS = {WAR: "Allies of Majesty", STRIFE: "Realm of Strife"}
AGAINST = ("at_most", "above")

# What a kept d12 counts as, by its category (M-6, M-8): the chip's class and its text cue.
COUNTS = {
    Category.TWELVE: "twelve",
    Category.POSITIVE: "hit",
    Category.NEUTRAL: "miss",
    Category.NEGATIVE: "stop",
    Category.ONE: "one",
}
OUTCOME_WORDS = {"success": "success", "partial": "partial success", "failure": "failure"}


@dataclass(frozen=True, slots=True)
class RollSpec:
    """What to roll (validated by the request's model; the game decides which kinds apply).

    Attributes:
        kind: ``d12`` or ``check`` (Allies of Majesty), ``d100`` or ``d20`` (Realm of Strife).
        label: What the roll is for, free text (may be empty).
        boon: Boon (War).
        bane: Bane (War).
        check: The Check's kind: attribute, resist, perception or social (M-30, M-32).
        factor: The roller's Factor Value (or Adjustments for, in an interaction).
        opposing: The opposing Factor Value (or Adjustments against); None unopposed.
        difficulty: An unopposed Check's Difficulty (Adjustments against, M-30).
        modifier: Added to a d100.
        target: The d100's target number; None rolls without one.
        against: ``at_most`` (succeeds on a total at most the target, a % chance) or ``above``.
        stat: The d20 test's stat (S-1).
        advantage: The d20 test's advantage minus disadvantage (S-1).
    """

    kind: str
    label: str = ""
    boon: int = 0
    bane: int = 0
    check: str = "attribute"
    factor: int = 0
    opposing: int | None = None
    difficulty: int = 0
    modifier: int = 0
    target: int | None = None
    against: str = "at_most"
    stat: int = 0
    advantage: int = 0


def require_kind(game: str, kind: str) -> None:
    """Refuse a roll the encounter's game does not have (W-31), naming both.

    Raises:
        DataError: ``kind`` is not one of the game's rolls.
    """
    kinds = KINDS.get(game, ())
    if kind not in kinds:
        raise DataError(
            f"A {kind!r} roll is not one of {GAME_WORDS.get(game, game)}'s: roll "
            f"{' or '.join(repr(k) for k in kinds)}."
        )


def roll_card(game: str, spec: RollSpec, seed: int, typed: Sequence[int] | None) -> dict[str, Any]:
    """The roll card of ``spec``: server dice from ``seed``, or the dice ``typed`` in.

    Args:
        game: The encounter's game.
        spec: What to roll.
        seed: The roll's own seed (stored with the card; unused for typed dice).
        typed: Physical dice typed in, in the order rolled; None rolls the server's dice.

    Raises:
        DataError: A roll the game does not have.
        RulesError: Typed dice that do not fit the roll (a face a die cannot show, too few or
            too many dice).
    """
    require_kind(game, spec.kind)
    if typed is not None and game == WAR:
        natural_roll_from(tuple(typed), net_boon(spec.boon, spec.bane))  # names a wrong count
    rng: Rng = SeededRng(seed) if typed is None else ScriptedRng(typed, "dice typed in")
    card = ROLLERS[spec.kind](spec, rng)
    if isinstance(rng, ScriptedRng):
        rng.expect_all_used()
    card |= {"kind": spec.kind, "label": spec.label, "typed": typed is not None}
    card["seed"] = None if typed is not None else seed
    return card


def reroll(game: str, spec: RollSpec, card: dict[str, Any]) -> dict[str, Any]:
    """The card a stored card's seed (or typed dice) makes again: the same dice (W-32)."""
    typed = card["rolled"] if card["typed"] else None
    return roll_card(game, spec, int(card["seed"] or 0), typed)


# --- Allies of Majesty --------------------------------------------------------------------------


def plural(count: int, word: str) -> str:
    """``1 Hit``, ``2 Hits``, ``0 Misses``."""
    if count == 1:
        return f"1 {word}"
    return f"{count} {word}es" if word.endswith("s") else f"{count} {word}s"


def boon_words(boon: int, bane: int) -> str:
    """``, Boon 2`` or ``, Boon 1 and Bane 1`` (empty without either)."""
    said = [f"{name} {n}" for name, n in (("Boon", boon), ("Bane", bane)) if n]
    return ", " + " and ".join(said) if said else ""


def chips(roll: NaturalRoll) -> list[dict[str, Any]]:
    """Each die rolled: its face, what it counts as, and whether Boon/Bane discarded it (M-7)."""
    table = face_categories(PLAIN)
    out: list[dict[str, Any]] = []
    dropped = set(roll.discarded)
    for index, face in enumerate(roll.rolled):
        out.append({"face": face, "as": COUNTS[table[face]], "discarded": index in dropped})
    return out


def counts(tally: Tally, dice: int) -> dict[str, int]:
    """Hits (12s' extras counted), Misses and Stops (1s counted) of a tally, and the net (M-8)."""
    misses = dice - tally.positives - tally.twelves - tally.ones - tally.negatives
    return {
        "hits": tally.total_positive,
        "misses": misses,
        "stops": tally.total_negative,
        "twelves": tally.twelves,
        "ones": tally.ones,
        "net": tally.net,
    }


def epic_words(epic: EpicState) -> str | None:
    """An Epic result in words (M-9), or None."""
    if epic.positive:
        return f"Epic: {epic.unpaired_twelves} unpaired 12s (natural 12s cannot be adjusted down)"
    if epic.negative:
        return f"Epic: {epic.unpaired_ones} unpaired 1s (natural 1s cannot be adjusted up)"
    return None


def free_d12(spec: RollSpec, rng: Rng) -> dict[str, Any]:
    """A free 7d12 roll with Boon/Bane (M-6 … M-9)."""
    roll = roll_natural(rng, net_boon(spec.boon, spec.bane))
    tally = Tally.of(roll.natural, PLAIN)
    numbers = counts(tally, len(roll.natural))
    epic = epic_words(EpicState.of(roll.natural, PLAIN))
    summary = (
        f"7d12{boon_words(spec.boon, spec.bane)}: {plural(numbers['hits'], 'Hit')}, "
        f"{plural(numbers['misses'], 'Miss')}, {plural(numbers['stops'], 'Stop')} "
        f"(net {numbers['net']:+d})" + (f"; {epic}" if epic else "") + "."
    )
    return {
        "summary": summary,
        "boon": spec.boon,
        "bane": spec.bane,
        "rolled": list(roll.rolled),
        "chips": chips(roll),
        "epic": epic,
        **numbers,
    }


def check_outcome(result: CheckResult) -> dict[str, Any]:
    """A Check's reading (M-31, M-33): net Passes, outcome, automatic or not."""
    return {
        "net": result.net,
        "passes": result.tally.total_positive,
        "fails": result.tally.total_negative,
        "outcome": str(result.outcome),
        "automatic": result.automatic is not None,
        "final": list(result.final),
    }


def adjustment_list(result: CheckResult) -> list[dict[str, Any]]:
    """The suggested Adjustments, one die's move each: from, to, side, and which die.

    ``die`` counts the dice as rolled, from 1 (as the card's chips show them, discarded dice
    included), not the natural roll's index the engine uses.
    """
    dropped = set(result.roll.discarded)
    kept = [i for i in range(len(result.roll.rolled)) if i not in dropped]
    moves: dict[tuple[int, str], dict[str, Any]] = {}
    for step in result.adjustments:
        key = (step.die, str(step.by))
        if key in moves:
            moves[key]["to"] = step.to
        else:
            moves[key] = {"die": kept[step.die] + 1, "from": step.from_, "to": step.to,
                          "side": str(step.by)}  # fmt: skip
    return list(moves.values())


def check_roll(spec: RollSpec, rng: Rng) -> dict[str, Any]:
    """A Check (M-30 … M-33): read as rolled, with the best Adjustments suggested (W-32)."""
    try:
        kind = CheckKind(spec.check)
    except ValueError:
        names = ", ".join(k.value for k in CheckKind)
        raise DataError(f"A Check's kind is one of {names}, not {spec.check!r}.") from None
    setup = CheckSetup(
        kind, spec.factor, spec.opposing, spec.difficulty, boon=spec.boon, bane=spec.bane,
        mode=AdjustMode.NONE,
    )  # fmt: skip
    roll = roll_natural(rng, net_boon(spec.boon, spec.bane))
    rolled = resolve_check(setup, roll)
    best = resolve_check(replace(setup, mode=AdjustMode.BEST), roll)
    moves = adjustment_list(best)
    plain = check_outcome(rolled)
    suggested = check_outcome(best) | {"adjustments": moves} if moves else None
    adjusters = [{"side": str(p.side), "count": p.count} for p in best.passes]
    epic = epic_words(best.epic)
    name = f"{kind.value.capitalize()} Check"
    words = (
        f"{name}{boon_words(spec.boon, spec.bane)}: {plural(plain['net'], 'net Pass')} as "
        f"rolled, {OUTCOME_WORDS[plain['outcome']]}"
    )
    if suggested is not None:
        words += (
            f"; with the best Adjustments {plural(suggested['net'], 'net Pass')}, "
            f"{OUTCOME_WORDS[suggested['outcome']]}"
        )
    numbers = counts(rolled.tally, len(roll.natural))
    return {
        "summary": words + (f"; {epic}" if epic else "") + ".",
        "check": kind.value,
        "factor": spec.factor,
        "opposing": spec.opposing,
        "difficulty": spec.difficulty,
        "boon": spec.boon,
        "bane": spec.bane,
        "rolled": list(roll.rolled),
        "chips": chips(roll),
        "epic": epic,
        "as_rolled": plain,
        "adjusters": adjusters,
        "suggested": suggested,
        **numbers,
    }


# --- Realm of Strife ----------------------------------------------------------------------------


def d100_roll(spec: RollSpec, rng: Rng) -> dict[str, Any]:
    """A d100 with a modifier, against a target number or not (W-31)."""
    natural = rng.roll(D100)
    check_d100(natural)
    total = natural + spec.modifier
    success: bool | None = None
    needs = ""
    if spec.target is not None:
        if spec.against == "above":
            success, needs = total > spec.target, f"more than {spec.target}"
        else:
            success, needs = total <= spec.target, f"at most {spec.target}"
    shown = f"d100 {natural}" + (f" {spec.modifier:+d} = {total}" if spec.modifier else "")
    verdict = ""
    if success is not None:
        verdict = f" (needs {needs}): " + ("success" if success else "failure")
    return {
        "summary": shown + verdict + ".",
        "rolled": [natural],
        "chips": [{"face": natural, "as": "d100", "discarded": False}],
        "modifier": spec.modifier,
        "total": total,
        "target": spec.target,
        "against": spec.against,
        "success": success,
    }


def d20_test(spec: RollSpec, rng: Rng) -> dict[str, Any]:
    """A stat test (S-1): 1d20 + stat + advantage, success above 20."""
    natural = rng.roll(D20)
    parts_in = [Part("advantage", spec.advantage)]
    test = stat_test_with_natural(natural, Part("stat", spec.stat), parts_in)
    counted = {"natural_1": "one", "natural_20": "twenty"}.get(test.automatic or "", "d20")
    parts = f" {spec.stat:+d}" + (f" {spec.advantage:+d}" if spec.advantage else "")
    why = {"natural_1": " (a natural 1 always fails)",
           "natural_20": " (a natural 20 always succeeds)"}  # fmt: skip
    summary = (
        f"d20 {natural}{parts} = {test.total} (needs more than {TEST_TARGET}): "
        f"{'success' if test.success else 'failure'}{why.get(test.automatic or '', '')}."
    )
    return {
        "summary": summary,
        "rolled": [natural],
        "chips": [{"face": natural, "as": counted, "discarded": False}],
        "stat": spec.stat,
        "advantage": spec.advantage,
        "total": test.total,
        "target": TEST_TARGET,
        "success": test.success,
        "automatic": test.automatic,
    }


ROLLERS = {"d12": free_d12, "check": check_roll, "d100": d100_roll, "d20": d20_test}
