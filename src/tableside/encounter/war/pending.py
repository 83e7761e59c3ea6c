"""A War command's working copy of the state and the effects every command shares.

Every decision works on a :class:`Pending` copy of the state that applies each event as it is
emitted, so later steps see earlier ones; if any step refuses, the engine keeps nothing. The
shared effects here (Falter, Exertion, Wear, AP spent, Checks rolled, the War's end) are the
bottom of the War's commands: every other module of the package may use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from tableside.dice import Rng
from tableside.encounter.log import Event
from tableside.encounter.war.state import Combatant, EndPoint, WarState, evolve
from tableside.encounter.working import WorkingCopy
from tableside.errors import RulesError
from tableside.majesty import scroll, special
from tableside.majesty.catalog import Catalog
from tableside.majesty.character import Side, Status
from tableside.majesty.checks import CheckResult, CheckSetup, roll_check
from tableside.majesty.condition import gain_exertion, is_weary
from tableside.majesty.report import check_dict
from tableside.majesty.ruleset import Ruleset


@dataclass
class Pending(WorkingCopy[WarState]):
    """A working copy of the War that applies each emitted event at once."""

    strikes: list[Any] = field(default_factory=list)  # each Strike's result, as rolled

    def evolved(self, event: Event) -> WarState:
        """The state with ``event`` applied."""
        return evolve(self.state, event)

    def combatant(self, combatant: str) -> Combatant:
        """A combatant that must exist."""
        found = self.state.combatants.get(combatant)
        if found is None:
            known = ", ".join(self.state.combatants) or "none yet"
            raise RulesError(f"There is no combatant {combatant!r} in this War (known: {known}).")
        return found


def inflict_falter(p: Pending, who: str, amount: int, source: str) -> None:
    """Falter: cap 7, excess and incapacitated conversions to Wear, AP wasted at once (M-34)."""
    c = p.combatant(who)
    result = special.inflict_falter(c.falter, amount, c.converts_falter)
    p.emit("falter_set", "M-34", id=who, falter=result.falter, added=amount, source=source)
    if result.converted:
        for kind, amount_wear in (("R", result.wear_r), ("P", result.wear_p)):
            p.emit(
                "wear_taken",
                "M-34",
                id=who,
                kind=kind,
                amount=amount_wear,
                source=f"{result.converted} Falter converted",
            )
    waste_available_ap(p, who)


def waste_available_ap(p: Pending, who: str) -> None:
    """Falter wastes Readied AP first, then the current Turn's AP (M-34)."""
    c = p.combatant(who)
    for pool in ("readied", "ap"):
        available = c.readied if pool == "readied" else c.ap
        if not c.falter or not available:
            continue
        kept, left = special.waste_ap(c.falter, available)
        p.emit("ap_wasted", "M-34", id=who, pool=pool, ap=available - kept)
        p.emit("falter_set", "M-34", id=who, falter=left, added=0, source="AP wasted")
        if pool == "readied":
            p.emit("readied_set", "M-34", id=who, ap=kept, uses=list(c.ready_uses))
        else:
            p.emit("ap_set", "M-34", id=who, ap=kept)
        c = p.combatant(who)


def add_exertion(p: Pending, who: str, amount: int, self_generated: bool, source: str) -> None:
    """Exertion with the free first 3 of each window (M-4)."""
    if amount <= 0:
        return
    c = p.combatant(who)
    gain = gain_exertion(c.character, amount, c.window_exertion, self_generated)
    p.emit(
        "exertion_set",
        "M-4",
        id=who,
        exertion=gain.character.exertion,
        window=gain.window_total,
        added=gain.added,
        ignored=gain.ignored,
        source=source,
    )
    update_weary(p, who)


def deal_wear(p: Pending, who: str, kind: str, amount: int, source: str, rule: str) -> None:
    """Wear to one combatant (the −40 floor is the character's, M-1)."""
    if amount > 0:
        p.emit("wear_taken", rule, id=who, kind=kind, amount=amount, source=source)
        convert_if_defeated(p, who)


def convert_if_defeated(p: Pending, who: str) -> None:
    """A Defeated elohim's F:# all converts to WearR and WearP at once (M-34)."""
    c = p.state.combatants.get(who)
    if c is not None and c.defeated and c.falter:
        inflict_falter(p, who, 0, "Defeated")


def one_cycle_later(state: WarState) -> EndPoint:
    """'For 1 Cycle': until this point of the next Cycle (M-39, A-20).

    Before the War starts (Cycle 0) it lasts all of Cycle 1: until just before Cycle 2 (A-31).
    """
    if state.cycle == 0:
        return EndPoint(2, 0)
    return EndPoint(state.cycle + 1, max(state.turn, 0))


def run_check(
    p: Pending, who: str, setup: CheckSetup, rng: Rng, purpose: str, rule: str
) -> CheckResult:
    """Roll a Check for ``who`` and record it (M-30, M-31)."""
    result = roll_check(setup, rng)
    report = check_dict(result) if p.describe else None
    p.emit("check_resolved", rule, id=who, purpose=purpose, result=report)
    return result


def check_war_end(p: Pending) -> None:
    """The War ends when one side has no combatant left standing."""
    sides: set[Side] = set()
    standing: set[Side] = set()
    for c in p.state.combatants.values():
        character = c.character
        sides.add(character.side)
        if character.status is not Status.DEFEATED:
            standing.add(character.side)
    if len(sides) == 2 and len(standing) < 2 and not p.state.ended:
        winner = next(iter(standing)).value if standing else None
        p.emit("war_ended", None, winner=winner)


def update_weary(p: Pending, who: str) -> None:
    """Weary as soon as Exertion is above current Stamina during its own Turn (M-4, A-32)."""
    current = p.state.current
    c = p.state.combatants.get(who)
    if c is None or current is None or current.combatant != who:
        return
    weary = is_weary(c.character)
    if weary != c.weary:
        p.emit("weary_set", "M-4", id=who, weary=weary)


def spend_ap(p: Pending, who: str, cost: int, action: str) -> None:
    """Spend AP from the current Turn, or Readied AP when Standing Ready (M-40, M-41)."""
    c = p.combatant(who)
    if p.state.ended:
        raise RulesError("The War has ended; no more actions can be taken.")
    timed = c.falter_cycle
    if timed is not None:
        until = (
            ""
            if timed.ends is None
            else f" until just before Cycle {timed.ends.cycle}, Turn {timed.ends.turn + 1}"
        )
        raise RulesError(f"{who} is under F:1 Cycle{until}: every AP is wasted (M-34).")
    current = p.state.current
    if current is not None and current.combatant == who and c.ap >= cost:
        p.emit("ap_set", "M-40", id=who, ap=c.ap - cost, spent=cost, action=action)
        return
    use = scroll.use_for(c.ready_uses, action)
    if c.readied >= cost and use is not None:
        uses = [u for i, u in enumerate(c.ready_uses) if i != use]
        p.emit(
            "readied_set", "M-41", id=who, ap=c.readied - cost, uses=uses, spent=cost, action=action
        )
        return
    if c.readied >= cost and c.ready_uses:
        declared = " and ".join(repr(clip(u)) for u in c.ready_uses)
        raise RulesError(
            f"{who}'s {c.readied} Readied AP are declared for {declared}, "
            f"not for {action} (M-41, A-34)."
        )
    whose = "nobody's" if current is None else f"{current.combatant}'s"
    wasted = f" ({c.wasted} wasted by Falter this Turn, M-34)" if c.wasted else ""
    raise RulesError(
        f"{who} cannot {action} for {cost} AP: it is {whose} Turn and {who} has {c.ap} AP"
        f"{wasted} and {c.readied} Readied AP."
    )


def clip(text: str, limit: int = 40) -> str:
    """A value cut to ``limit`` characters for an error message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def require_free(c: Combatant, action: str) -> None:
    """Bound, Grappled, Asleep and Defeated elohim cannot act this way (M-36, M-37, A-43)."""
    if c.defeated:
        raise RulesError(f"{c.id} is Defeated and cannot {action}.")
    if c.bound:
        raise RulesError(f"{c.id} is Bound and cannot {action} (M-36).")
    require_awake(c, action)
    if c.grappled_by is not None:
        held = "Entangled" if c.entangled_strength is not None else "Grappled"
        raise RulesError(f"{c.id} is {held} by {c.grappled_by} and cannot {action} (M-37).")


def require_awake(c: Combatant, action: str) -> None:
    """An Asleep elohim is incapacitated (M-34): it only Rests until it is woken (A-43)."""
    if c.asleep:
        raise RulesError(
            f"{c.id} is Asleep and cannot {action}: it may only Rest until the Host wakes it "
            "(A-43)."
        )


class Rules(Protocol):
    """What a command needs of the game: its catalog and its default ruleset (a MajestyWar)."""

    @property
    def catalog(self) -> Catalog:
        """The weapons and Maneuvers the War knows."""

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset when the Host chose none (A-41)."""
