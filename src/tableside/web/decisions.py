"""The web table's policy for decisions: who owns each choice, and who is asked (D-4, D-5).

A command's choices (:class:`~tableside.encounter.decisions.Choice`) each belong to the
controller of their combatant: the seat that plays it, else the Host (an NPC's choice); a
proposal's approval (kind ``approve``) always belongs to the Host. For each choice of a command
the :class:`TablePolicy` of its sender says:

- given by its owner, or by the Host (who may decide anything at the table, D-4), or already
  vetted (given in the waiting command as it was sent, when an answer lists the choices
  again): KEEP;
- given by a player who does not own it: refused (403), nothing written -- except a player's
  proposal of modifiers (``approve``), which asks the Host (D-4), or stands when the table trusts
  players with modifiers (``trust_modifiers``);
- not given, and the sender owns it: KEEP (the arguments the owner sent stand), except a stage
  of physical dice, which its roller enters when it comes (D-6): it is asked;
- not given, owned by the Host, with the encounter's NPCs deciding automatically: TAKE (D-5),
  except a stage of physical dice (the Host rolls them at the table, issue 21);
- otherwise: ASK its owner, with the deadline ``now + decision_timeout`` (None: wait, D-5).

The same policy answers for the deadline's sweeper (sender None: the table itself), whose
answers may open new choices (the next stage of dice): it owns none, so they are asked; the
choices its suggestions make are the game's own, so they stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tableside.encounter.decisions import APPROVE, Ask, Choice, Policy, Request
from tableside.store.table_audience import DecisionSettings
from tableside.store.tables import Seat
from tableside.web.auth import ForbiddenError, Principal

DICE = "dice"  # a stage of physical dice: asked of its roller even when it sent the command (D-6)

# How a choice reads in a refusal, by kind: "How Aldric reacts is Aldric's player's choice."
CHOICE_WORDS: dict[str, str] = {
    "reaction": "How {c} reacts",
    "skill_reaction": "Whether {c} takes a Reaction",
    "adjustments": "How {c} uses its Adjustments",
    "obstruction": "How many Obstruction tokens {c} spends",
    "interpose": "Whether {c} interposes",
    "aoo": "Whether {c} takes an Attack of Opportunity",
    "dice": "{c}'s dice",
    "stand_ready": "{c}'s Stand Ready",
}


def owner_seat(choice: Choice, seats: Sequence[Seat]) -> Seat | None:
    """The seat that owns ``choice`` (None: the Host's, D-4).

    The seat whose characters include the choice's combatant; a proposal's approval and an NPC's
    choice are the Host's.
    """
    if choice.kind == APPROVE or choice.combatant is None:
        return None
    for seat in seats:
        if choice.combatant in seat.characters:
            return seat
    return None


def may_answer(who: Principal, choice: Choice, seats: Sequence[Seat]) -> bool:
    """Whether ``who`` may answer ``choice``: its owner, or the Host (who may answer any, D-5)."""
    if who.is_host:
        return True
    owner = owner_seat(choice, seats)
    return owner is not None and who.seat is not None and owner.id == who.seat.id


def choice_words(choice: Choice) -> str:
    """The choice in words: ``How Aldric reacts``."""
    who = choice.combatant or "the NPC"
    pattern = CHOICE_WORDS.get(choice.kind, "{c}'s " + choice.kind.replace("_", " "))
    return pattern.format(c=who)


def owner_words(choice: Choice, seats: Sequence[Seat]) -> str:
    """Whose choice it is, in words: ``Aldric's player (Bea)`` or ``the Host``."""
    seat = owner_seat(choice, seats)
    if seat is None:
        return "the Host"
    return f"{choice.combatant}'s player ({seat.name})"


def refusal(choice: Choice, seats: Sequence[Seat]) -> str:
    """The one sentence refusing a player's command that makes another's choice."""
    seat = owner_seat(choice, seats)
    whose = "the Host's" if seat is None else f"{choice.combatant}'s player's"
    return f"{choice_words(choice)} is {whose} choice."


def waiting_for(request: Request, seats: Sequence[Seat]) -> str:
    """Who a request waits for, in words: ``Aldric's player (Bea): how Aldric reacts``."""
    words = choice_words(request.choice)
    if request.choice.kind == APPROVE:
        words = "approving a proposal"
    elif words.startswith(("How ", "Whether ")):
        words = words[0].lower() + words[1:]
    return f"{owner_words(request.choice, seats)}: {words}"


@dataclass(frozen=True, slots=True)
class TablePolicy:
    """The policy (an :data:`~tableside.encounter.decisions.Asker`) of one sender at a table.

    Attributes:
        sender: Who sent the command or answer; None for the table itself (the deadline's
            sweeper, D-5), who owns no choice.
        seats: The table's seats (who plays which character).
        settings: The encounter's decision settings.
        now: The time of the command (unix seconds), from which deadlines count.
        vetted: The names of the choices the waiting command already made as it was sent
            (they stood then), when an answer lists its choices again.
        taken: The choices whose suggestion this policy took (listed again, given, they stand).
        answering: The sender answers a decision (not a command): an NPC's choice the answer
            opens (after a proposal's approval, issue 21) is the Host's to be asked or taken
            by the setting, not silently kept.
    """

    sender: Principal | None
    seats: tuple[Seat, ...]
    settings: DecisionSettings
    now: float
    vetted: frozenset[str] = frozenset()
    taken: set[str] = field(default_factory=set)
    answering: bool = False

    def owns(self, choice: Choice) -> bool:
        """Whether the sender owns ``choice`` (the Host owns NPCs' choices and approvals)."""
        if self.sender is None:
            return False
        owner = owner_seat(choice, self.seats)
        if owner is None:
            return self.sender.is_host
        return self.sender.seat is not None and self.sender.seat.id == owner.id

    def deadline(self) -> float | None:
        """When an unanswered question takes its suggestion (None: it waits, D-5)."""
        timeout = self.settings.decision_timeout
        return None if timeout is None else self.now + timeout

    def __call__(self, choice: Choice) -> Ask:
        """The verdict on one choice (see the module's docstring); raises to refuse."""
        host = self.sender is not None and self.sender.is_host
        if choice.given:
            if host or self.sender is None or self.owns(choice):
                return Ask(Policy.KEEP)
            if choice.name in self.vetted or choice.name in self.taken:
                return Ask(Policy.KEEP)
            if choice.kind == APPROVE:
                if self.settings.trust_modifiers:
                    return Ask(Policy.KEEP)
                return Ask(Policy.ASK, self.deadline())
            raise ForbiddenError(refusal(choice, self.seats))
        npc = owner_seat(choice, self.seats) is None
        if self.owns(choice) and choice.kind != DICE and not (self.answering and npc):
            return Ask(Policy.KEEP)
        if npc and self.settings.npcs_decide == "auto" and choice.kind != DICE:
            # a stage of physical dice is rolled at the table: never taken for its roller
            self.taken.add(choice.name)
            return Ask(Policy.TAKE)
        return Ask(Policy.ASK, self.deadline())


class FightWaitingError(Exception):
    """A command (or redo) sent while the fight waits for a decision (HTTP 409, D-3)."""


class NoSuchDecisionError(Exception):
    """An answer to a decision that is not open (HTTP 404)."""
