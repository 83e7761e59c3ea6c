"""The War Scroll (M-40, M-41) and points on it for timed effects (M-39).

A Cycle gives each combatant AP equal to its Speed, cut into Turns of at most 7 AP. The chunks go
to Segments 1, A, 2, B, 3, C, … and the Cycle plays the numbered Segments in order, then the
lettered ones. Within a Segment, higher current Swiftness acts first; ties go to the holy side,
then to a seeded tie-break the caller supplies (M-40). A Turn is an Activation.

Readings this module had to choose (proposed addenda to ``docs/rulings-addenda.md``):

- **Labels past Z** (M-40): lettered Segments continue A … Z, AA, AB, … (bijective base 26), so
  any Speed has a label for every chunk.
- **Full ties** (M-40): combatants equal in Swiftness, side and tie-break fall back to id order,
  so the Scroll is always deterministic.
- **Points on the Scroll** (M-39): a :class:`ScrollPoint` names Cycle, Segment, the Turn's
  1-based place in that Segment and a :class:`Moment` (just before, during, just after that
  Turn). Points order by Cycle, then Segment play order, then place, then moment. "For 1 Cycle"
  ends at the same point one Cycle later (:func:`one_cycle_later`); if that Segment or place does
  not exist next Cycle the point still orders correctly among the ones that do. An effect is
  active while ``now < ends``.
- **Carry Over** (M-41): refused when the next Turn already holds 7 AP, when the result would
  exceed 7, or when more AP are moved than this Turn holds. :func:`apply_carry_over` only finds
  the next Turn inside the same Cycle's Scroll; across Cycles the caller uses :func:`carry_over`.
- **Stand Ready** (M-41): at least 1 AP and one to two declared uses (each a non-empty name);
  readied AP not used before the next Turn count as Rest (M-4: 1 Exertion off per AP).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from functools import total_ordering

from tableside.errors import RulesError, require_non_negative

TURN_AP = 7  # M-40: a Turn holds at most 7 AP
MAX_READY_USES = 2  # M-41
_LETTERS = 26


# --- M-40 Turns and Segments ------------------------------------------------------------------


def turn_chunks(speed: int) -> list[int]:
    """AP of each Turn in a Cycle: Speed cut into chunks of 7, the last one the remainder (M-40).

    Args:
        speed: the combatant's current Speed (AP per Cycle), at least 1.

    Returns:
        The chunks in the order they are assigned to Segments, e.g. 17 → [7, 7, 3].

    Raises:
        RulesError: if ``speed`` is below 1.
    """
    if speed < 1:
        raise RulesError(f"Speed must be at least 1, got {speed}.")
    full, rest = divmod(speed, TURN_AP)
    return [TURN_AP] * full + ([rest] if rest else [])


def segment_label(index: int) -> str:
    """The Segment of chunk ``index``: 0, 1, 2, 3, 4 … → "1", "A", "2", "B", "3" … (M-40).

    Raises:
        RulesError: if ``index`` is negative.
    """
    if index < 0:
        raise RulesError(f"A chunk index cannot be negative, got {index}.")
    number, lettered = divmod(index, 2)
    return _letters(number + 1) if lettered else str(number + 1)


def _letters(n: int) -> str:
    """1 → A, 26 → Z, 27 → AA (bijective base 26)."""
    out = ""
    while n:
        n, digit = divmod(n - 1, _LETTERS)
        out = chr(ord("A") + digit) + out
    return out


def _letter_number(label: str) -> int:
    n = 0
    for char in label:
        n = n * _LETTERS + (ord(char) - ord("A") + 1)
    return n


def play_key(label: str) -> tuple[int, int]:
    """Sort key for Segment labels: numbered Segments in order, then lettered ones (M-40).

    Raises:
        RulesError: if ``label`` is not a canonical Segment label ("1", "2", …, "A", "B", …).
    """
    if label.isascii() and label.isdigit() and not label.startswith("0"):
        return (0, int(label))
    if label and label.isascii() and label.isalpha() and label.isupper():
        return (1, _letter_number(label))
    raise RulesError(f"{label!r} is not a Segment label; use 1, 2, 3, … or A, B, C, ….")


def chunk_index(label: str) -> int:
    """Inverse of :func:`segment_label`: "1" → 0, "A" → 1, "2" → 2 (M-40)."""
    kind, n = play_key(label)
    return 2 * (n - 1) + kind


@dataclass(frozen=True, slots=True)
class Entrant:
    """A combatant entering a Cycle's War Scroll (M-40).

    Attributes:
        id: unique name of the combatant.
        speed: current Speed (AP this Cycle), at least 1.
        swiftness: current Swiftness; higher acts first within a Segment.
        holy: True for the holy side, which wins Swiftness ties.
        tiebreak: a seeded number from the caller; lower goes first among full ties.
    """

    id: str
    speed: int
    swiftness: int
    holy: bool
    tiebreak: int

    def __post_init__(self) -> None:
        if not self.id:
            raise RulesError("An entrant of the War Scroll needs a non-empty id.")
        if self.speed < 1:
            raise RulesError(f"{self.id}'s Speed must be at least 1, got {self.speed}.")
        if self.swiftness < 0:
            raise RulesError(f"{self.id}'s Swiftness cannot be negative, got {self.swiftness}.")


@dataclass(frozen=True, slots=True)
class Turn:
    """One Activation: a combatant acting in a Segment with some AP (M-40)."""

    combatant: str
    segment: str
    ap: int


@dataclass(frozen=True, slots=True)
class Segment:
    """A Segment of the War Scroll and its Turns in acting order (M-40)."""

    label: str
    turns: tuple[Turn, ...]


def _acting_order(entrant: Entrant) -> tuple[int, int, int, str]:
    """Higher Swiftness first; ties: holy side, lower tie-break, then id (M-40)."""
    return (-entrant.swiftness, 0 if entrant.holy else 1, entrant.tiebreak, entrant.id)


def war_scroll(entrants: Sequence[Entrant]) -> tuple[Segment, ...]:
    """The Segments of one Cycle in play order (M-40).

    Example: Speeds 17, 16, 12, 11 → Segment 1: 7, 7, 7, 7; Segment 2: 3, 2;
    Segment A: 7, 7, 5, 4 (played 1, 2, A).

    Raises:
        RulesError: if two entrants share an id.
    """
    ids = [e.id for e in entrants]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise RulesError(f"War Scroll ids must be unique, got {duplicates[0]!r} twice.")
    by_label: defaultdict[str, list[Turn]] = defaultdict(list)
    for entrant in sorted(entrants, key=_acting_order):
        for index, ap in enumerate(turn_chunks(entrant.speed)):
            label = segment_label(index)
            by_label[label].append(Turn(entrant.id, label, ap))
    return tuple(Segment(label, tuple(by_label[label])) for label in sorted(by_label, key=play_key))


def turns_in_order(scroll: Sequence[Segment]) -> list[tuple[int, Turn]]:
    """Every Turn of the Scroll in play order, with its 1-based place in its Segment."""
    return [(place, turn) for seg in scroll for place, turn in enumerate(seg.turns, start=1)]


# --- M-39 points on the Scroll ----------------------------------------------------------------


class Moment(IntEnum):
    """Where within a Turn a point falls (M-39)."""

    BEFORE = 0  # just before the Turn
    DURING = 1  # while the Turn is played
    AFTER = 2  # just after the Turn


@total_ordering
@dataclass(frozen=True, slots=True)
class ScrollPoint:
    """A precise point of the War Scroll, e.g. where a timed effect ends (M-39).

    Attributes:
        cycle: Cycle number, from 1.
        segment: Segment label ("1", "A", …).
        turn: 1-based place of the Turn within its Segment.
        moment: just before, during or just after that Turn.
    """

    cycle: int
    segment: str
    turn: int
    moment: Moment = Moment.BEFORE

    def __post_init__(self) -> None:
        play_key(self.segment)
        if self.cycle < 1:
            raise RulesError(f"A Cycle number must be at least 1, got {self.cycle}.")
        if self.turn < 1:
            raise RulesError(f"A Turn's place in its Segment starts at 1, got {self.turn}.")

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        """Order: Cycle, Segment play order (M-40), place, moment."""
        kind, n = play_key(self.segment)
        return (self.cycle, kind, n, self.turn, int(self.moment))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ScrollPoint):
            return NotImplemented
        return self.key < other.key

    def describe(self) -> str:
        """Human words, e.g. "just before Cycle 2, Segment A, Turn 1"."""
        words = {Moment.BEFORE: "just before", Moment.DURING: "during", Moment.AFTER: "just after"}
        return f"{words[self.moment]} Cycle {self.cycle}, Segment {self.segment}, Turn {self.turn}"


def one_cycle_later(at: ScrollPoint) -> ScrollPoint:
    """The end of a "for 1 Cycle" effect begun at ``at``: the same point next Cycle (M-39)."""
    return replace(at, cycle=at.cycle + 1)


def point_of(
    scroll: Sequence[Segment], cycle: int, combatant: str, segment: str, moment: Moment
) -> ScrollPoint:
    """The point of ``combatant``'s Turn in ``segment`` of this Cycle's Scroll (M-39).

    Raises:
        RulesError: if the combatant has no Turn in that Segment.
    """
    for place, turn in turns_in_order(scroll):
        if turn.combatant == combatant and turn.segment == segment:
            return ScrollPoint(cycle, segment, place, moment)
    raise RulesError(f"{combatant} has no Turn in Segment {segment} of Cycle {cycle}.")


def next_activation(
    scroll: Sequence[Segment], cycle: int, combatant: str, after: ScrollPoint | None = None
) -> ScrollPoint | None:
    """Just before ``combatant``'s first Turn of this Cycle later than ``after`` (M-39).

    Args:
        scroll: the War Scroll of Cycle ``cycle``.
        cycle: the Cycle number of ``scroll``.
        combatant: whose Activation to find.
        after: only Turns strictly after this point count; None: from the Cycle's start.

    Returns:
        The point just before that Turn, or None when it has no such Turn this Cycle (look in
        the next Cycle's Scroll with ``after=None``).
    """
    for place, turn in turns_in_order(scroll):
        point = ScrollPoint(cycle, turn.segment, place, Moment.BEFORE)
        if turn.combatant == combatant and (after is None or point > after):
            return point
    return None


@dataclass(frozen=True, slots=True)
class TimedEffect:
    """A timed effect shown with its end point (M-39)."""

    name: str
    holder: str
    ends: ScrollPoint

    def active_at(self, now: ScrollPoint) -> bool:
        """True until the Scroll reaches the end point."""
        return now < self.ends

    @property
    def label(self) -> str:
        """E.g. "Surprised on Jackal, ends just before Cycle 1, Segment A, Turn 2"."""
        return f"{self.name} on {self.holder}, ends {self.ends.describe()}"


# --- M-41 Carry Over and Stand Ready ----------------------------------------------------------


def carry_over(current_turn_ap: int, next_turn_ap: int, amount: int) -> tuple[int, int]:
    """Move ``amount`` AP from this Turn to the character's next Turn (M-41).

    Returns:
        (AP left this Turn, AP of the next Turn).

    Raises:
        RulesError: on negative values, moving more AP than this Turn holds, a next Turn that
            already has 7 AP, or a next Turn that would exceed 7 AP.
    """
    require_non_negative(
        {
            "This Turn's AP": current_turn_ap,
            "The next Turn's AP": next_turn_ap,
            "Carry Over": amount,
        }
    )
    if amount > current_turn_ap:
        raise RulesError(f"Cannot carry over {amount} AP from a Turn with {current_turn_ap} AP.")
    if next_turn_ap >= TURN_AP:
        raise RulesError(
            f"Carry Over needs a next Turn with fewer than 7 AP, but it has {next_turn_ap}."
        )
    if next_turn_ap + amount > TURN_AP:
        raise RulesError(
            f"Carrying {amount} AP into a Turn with {next_turn_ap} AP would exceed 7 AP."
        )
    return current_turn_ap - amount, next_turn_ap + amount


def next_turn(scroll: Sequence[Segment], combatant: str, segment: str) -> Turn | None:
    """The combatant's Turn after its Turn in ``segment`` in this Scroll, if any (M-41)."""
    mine = [turn for _, turn in turns_in_order(scroll) if turn.combatant == combatant]
    labels = [turn.segment for turn in mine]
    if segment not in labels:
        raise RulesError(f"{combatant} has no Turn in Segment {segment}.")
    index = labels.index(segment)
    return mine[index + 1] if index + 1 < len(mine) else None


def apply_carry_over(
    scroll: Sequence[Segment], combatant: str, segment: str, amount: int
) -> tuple[Segment, ...]:
    """The Scroll after ``combatant`` carries ``amount`` AP from ``segment`` to its next Turn.

    Raises:
        RulesError: if it has no later Turn this Cycle, or :func:`carry_over` refuses.
    """
    following = next_turn(scroll, combatant, segment)
    if following is None:
        raise RulesError(f"{combatant} has no later Turn this Cycle after Segment {segment}.")
    this = next(
        t for s in scroll for t in s.turns if (t.combatant, t.segment) == (combatant, segment)
    )
    kept, moved = carry_over(this.ap, following.ap, amount)
    new_ap = {this: kept, following: moved}
    return tuple(
        replace(s, turns=tuple(replace(t, ap=new_ap.get(t, t.ap)) for t in s.turns)) for s in scroll
    )


@dataclass(frozen=True, slots=True)
class StandReady:
    """AP held for up to two declared uses before the next Turn (M-41)."""

    ap: int
    uses: tuple[str, ...]


def stand_ready(ap: int, uses: Sequence[str]) -> StandReady:
    """Declare Stand Ready with ``ap`` AP for one or two uses (M-41).

    Raises:
        RulesError: if ``ap`` is below 1, or the uses are none, more than two, or unnamed.
    """
    if ap < 1:
        raise RulesError(f"Stand Ready must hold at least 1 AP, got {ap}.")
    if not 1 <= len(uses) <= MAX_READY_USES:
        raise RulesError(f"Stand Ready declares one or two uses, got {len(uses)}.")
    if any(not use.strip() for use in uses):
        raise RulesError(f"Every declared Stand Ready use needs a name, got {list(uses)}.")
    return StandReady(ap, tuple(uses))


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", text.lower()))


def use_for(uses: Sequence[str], action: str) -> int | None:
    """Index of the first declared use that names ``action`` (M-41, A-34), or None.

    A use names an action when it contains every word of the action's name, in any case:
    "Counter Strike" names a Strike, "move" a Move.
    """
    wanted = _words(action)
    return next((i for i, use in enumerate(uses) if wanted <= _words(use)), None)


BOUND_REFUSED_USES = frozenset({"strike", "move", "stance", "interpose", "carry"})


def refused_while_bound(uses: Sequence[str]) -> str | None:
    """The first declared use a Bound elohim may not take (M-36, A-34), or None."""
    return next((use for use in uses if _words(use) & BOUND_REFUSED_USES), None)


def unused_as_rest(ready: StandReady, used_ap: int) -> int:
    """Readied AP not used before the next Turn count as Rest (M-41, M-4).

    Raises:
        RulesError: if ``used_ap`` is negative or more than the AP held.
    """
    require_non_negative({"Used readied AP": used_ap})
    if used_ap > ready.ap:
        raise RulesError(f"Cannot use {used_ap} readied AP when only {ready.ap} are held.")
    return ready.ap - used_ap
