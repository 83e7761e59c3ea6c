"""The web table's operations, free of HTTP: tables, seats, commands, reads, role filtering.

Commands on one encounter are serialised by a lock per encounter in this process; across
processes the store's revision check refuses the later of two writers (``StaleRevisionError``)
with nothing written: the refused process drops its copy and decides a command that is not
exact again on the encounter read anew (an exact one answers 409). Every read a player makes
leaves out the records of hidden commands (and their undo and redo); the Host sees them marked
``"hidden": true``. Every state, record and answer a player gets has the values of combatants
secret to it concealed (:mod:`tableside.web.redact`).

A command's ``revision`` is the revision its sender saw: the command is decided against the
current state and refused only by the rules, unless ``exact`` asks for the old check (409 when
any record came after it); undo and redo with a revision are always exact (W-14). The limits of
W-13 (:class:`~tableside.web.guards.Limits`) are checked here, before anything is decided or
written. A write the database refuses drops the copy in memory, so nothing half-applied stays.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tableside.campaign.carry import Options
from tableside.campaign.play import ends_fight, proposal
from tableside.encounter.decisions import (
    APPROVE,
    Ask,
    Choice,
    PendingCommand,
    Policy,
    Request,
    at_deadline,
    check_answer,
)
from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.encounter.npc_turn import npc_command
from tableside.encounter.views import fight_json, state_json
from tableside.errors import DataError, StaleRevisionError, TablesideError
from tableside.service import game_for, open_encounter
from tableside.store import Store, tables
from tableside.store.db import EncounterInfo
from tableside.store.errors import StaleRevisionError as AppendRefusedError
from tableside.web.auth import (
    PLAYER_ACTORS,
    Credential,
    ForbiddenError,
    Principal,
    UnauthorisedError,
    authorise_command,
    commander,
    new_token,
    require_host,
    token_hash,
)
from tableside.web.decisions import (
    FightWaitingError,
    NoSuchDecisionError,
    TablePolicy,
    may_answer,
    owner_seat,
    owner_words,
    refusal,
    waiting_for,
)
from tableside.web.guards import Limits, Rates, StreamSlots, TooLargeError, holder_key
from tableside.web.hub import Notifier
from tableside.web.redact import (
    IsSecret,
    command_sides,
    public_refusal,
    redact_command,
    redact_record,
    redact_request,
    redact_state,
    secret_to,
)
from tableside.web.strict import check_args
from tableside.web.unseen import conceal, labels, names_any, unseen, without_unseen

SEED_BITS = 62
NPC_STEPS_MAX = 12  # commands one press of "Play the NPC's Turn" sends at most (SA-98)
RETRIES = 3  # a non-exact command refused by another process's append is decided again
Presented = Credential | str | None  # a credential, a bare token, or nothing


def presented(given: Presented) -> Credential | None:
    """A credential from what a request presented (a bare string is a token)."""
    if isinstance(given, str):
        return Credential(given) if given else None
    return given if given is not None and given.secret else None


STATE_JSON: dict[str, Callable[[Any, int], dict[str, Any]]] = {
    "majesty-war": state_json,
    "strife-combat": fight_json,
}


def state_view(encounter: Encounter[Any]) -> dict[str, Any]:
    """An encounter's state as the command line's JSON (``war show`` / ``fight show``)."""
    return STATE_JSON[encounter.game.name](encounter.state, encounter.revision)


def current_actor(encounter: Encounter[Any]) -> str | None:
    """The combatant whose Turn it is, if any."""
    current = encounter.state.current
    if current is None or isinstance(current, str):
        return current
    return str(current.combatant)


def record_view(record: LogRecord, hidden: frozenset[int]) -> dict[str, Any]:
    """A record as JSON, marked hidden when its command is."""
    return {**record.to_json(), "hidden": record.seq in hidden}


class WebTable:
    """Tables, seats and encounters on one store, with live fan-out in this process."""

    def __init__(self, store: Store, limits: Limits | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.rates = Rates(self.limits)
        self.streams = StreamSlots(
            self.limits.streams_per_token,
            self.limits.max_streams,
            self.limits.streams_per_address,
            self.limits.streams_per_table,
        )
        self.notifier = Notifier()
        self._guard = threading.Lock()
        self._locks: dict[int, threading.Lock] = {}
        self._live: dict[int, Encounter[Any]] = {}
        self._seen = threading.local()  # this request's read: (encounter id, stored revision)
        self._secrecy = threading.local()  # this request's read: (who, encounter id, Secrecy)
        self._audience = threading.local()  # its seats and settings: (who, encounter id, Audience)
        self.clock: Callable[[], float] = time.time  # deadlines' clock (D-5); tests move it
        self._stuck: set[tuple[int, int]] = set()  # (encounter, revision): a refused suggestion

    def live(self, encounter_id: int) -> Encounter[Any]:
        """The encounter kept in memory, re-read only when the store has moved past it.

        Call with the encounter's lock held. The stored revision is the one :meth:`at_encounter`
        read moments ago in the same request (thread), else it is read now. Another process's
        appends show as a newer stored revision: the records after the copy's are read and
        applied to it. A record this process appended since that read leaves the copy ahead of
        it, which is current. The store's revision check still refuses an append made against
        a stale copy.
        """
        seen: tuple[int, int] | None = getattr(self._seen, "revision", None)
        self._seen.revision = None
        if seen is not None and seen[0] == encounter_id:
            stored = seen[1]
        else:
            stored = self.store.encounter(encounter_id).revision
        cached = self._live.get(encounter_id)
        if cached is None:
            cached = open_encounter(self.store, encounter_id)
            self._live[encounter_id] = cached
        elif cached.revision < stored:
            self._catch_up(encounter_id, cached)
        if overdue(cached, self.clock()) and (encounter_id, cached.revision) not in self._stuck:
            self._expire(encounter_id, cached)
        return cached

    # -- decisions (D-1 … D-5, docs/decisions.md) ---------------------------------------

    def policy(
        self,
        who: Principal | None,
        encounter_id: int,
        table_id: int,
        vetted: frozenset[str] = frozenset(),
        answering: bool = False,
        audience: tables.Audience | None = None,
    ) -> TablePolicy:
        """The decision policy of ``who`` (None: the table itself) in this encounter, now.

        The seats and settings a player's authorising read fetched for this very ``who`` and
        encounter are used (once, issue 21, item 8), else ``audience``'s, else they are read.
        """
        found = self._take_audience(who, encounter_id) if audience is None else audience
        if found is None:
            seats, settings = tables.seats_and_settings(self.store, table_id, encounter_id)
        else:
            seats, settings = found.seats, found.settings
        return TablePolicy(who, tuple(seats), settings, self.clock(), vetted,
                           answering=answering)  # fmt: skip

    def _take_audience(self, who: Principal | None, encounter_id: int) -> tables.Audience | None:
        """The audience read with ``who``'s authorising read in this request (used once)."""
        read: tuple[Principal, int, tables.Audience] | None = getattr(self._audience, "read", None)
        self._audience.read = None
        if read is not None and read[0] is who and read[1] == encounter_id:
            return read[2]
        return None

    def _expire(self, encounter_id: int, encounter: Encounter[Any]) -> None:
        """Take the suggestion of every overdue decision (D-5), stored and announced.

        Call with the encounter's lock held. A suggestion the rules refuse is left open (the
        Host answers it, or undoes the command), so a read never fails on it.
        """
        table_id = tables.table_of(self.store, encounter_id)
        if table_id is None:
            return
        asker = self.policy(None, encounter_id, table_id)
        written, refused = self._answer_each(
            encounter_id,
            encounter,
            lambda r: is_due(r, self.clock()),
            lambda r: fallbacks(r.choice, at_deadline(r.choice)),
            "timeout",
            asker,
        )
        if refused:
            self._stuck.add((encounter_id, encounter.revision))
        if written:
            self.notifier.publish(encounter_id)

    def _answer_each(
        self,
        encounter_id: int,
        encounter: Encounter[Any],
        takes: Callable[[Request], bool],
        answers: Callable[[Request], list[Any]],
        by: str,
        asker: TablePolicy,
    ) -> tuple[bool, bool]:
        """Answer, stored one by one, every open question ``takes`` picks.

        Each question gets the first of ``answers`` the rules accept (the engine's own
        validation, SA-98: a suggestion refused is passed over for the next option). Call with
        the encounter's lock held. Returns whether any answer was stored and whether the rules
        refused them all (that question is left open: the Host answers it or undoes the
        command). A store failure forgets the live copy (it is read again) and propagates.
        """
        written = False
        while encounter.pending is not None:
            picked = [r for r in encounter.pending.open if takes(r)]
            if not picked:
                break
            record = first_accepted(encounter, picked[0], answers(picked[0]), by, asker)
            if record is None:
                return written, True
            try:
                tables.append(self.store, encounter_id, record)
            except BaseException:
                self.forget(encounter_id)
                if written:
                    self.notifier.publish(encounter_id)  # what was stored is announced
                raise
            written = True
        return written, False

    def sweep(self) -> int:
        """Expire the overdue decisions of this process's live encounters (D-5).

        The application's lifespan calls it about every half second. Returns how many records
        it wrote.
        """
        now = self.clock()
        done = 0
        for encounter_id, cached in list(self._live.items()):
            if not overdue(cached, now) or (encounter_id, cached.revision) in self._stuck:
                continue
            with self.lock(encounter_id):
                before = self._live.get(encounter_id)
                encounter = self.live(encounter_id)
                done += encounter.revision - (before.revision if before else 0)
        return done

    def adopt_waiting(self) -> list[int]:
        """Load the encounters that wait for a decision (after a restart), for the sweeper."""
        found: list[int] = []
        for encounter_id in tables.maybe_waiting(self.store):
            with self.lock(encounter_id):
                encounter = self.live(encounter_id)
                if encounter.pending is not None:
                    found.append(encounter_id)
        return found

    def require_not_waiting(self, who: Principal, encounter_id: int, what: str) -> None:
        """Refuse a command (or redo) while the fight waits for a decision (409, D-3)."""
        encounter = self._live.get(encounter_id)
        pending = None if encounter is None else encounter.pending
        if pending is None:
            return
        names = self.waiting_names(who, encounter_id, pending)
        raise FightWaitingError(
            f"The fight is waiting for {names}; {what} waits until it is answered "
            "(or the Host undoes the waiting command)."
        )

    def waiting_names(self, who: Principal, encounter_id: int, pending: PendingCommand) -> str:
        """Who the fight waits for, in words (a hidden command's: the Host, to players)."""
        hidden = self.hidden(encounter_id, pending)
        if not who.is_host and hidden:
            return "the Host"
        seats = self.deciders(
            encounter_id, tables.seats(self.store, who.table_id, encounter_id), hidden
        )
        names = "; ".join(waiting_for(r, seats) for r in pending.open) or "an answer"
        return str(conceal(names, self.unseen_said(who, encounter_id)))  # W-66

    def hidden(self, encounter_id: int, pending: PendingCommand) -> bool:
        """Whether the waiting command is a hidden Host command (players never see it)."""
        return pending.seq in tables.hidden_seqs(self.store, encounter_id)

    def deciders(
        self,
        encounter_id: int,
        seats: list[tables.Seat],
        hidden: bool,
        settings: tables.DecisionSettings | None = None,
    ) -> list[tables.Seat]:
        """The seats whose characters' choices their players decide in the waiting command.

        All of them, except for a hidden Host command when the encounter's ``hidden_asks`` is
        ``host``: then none, so every choice of it is the Host's to decide, and every screen
        reads "the Host" (issue 21, D-4).
        """
        if settings is not None:
            return [] if hidden and settings.hidden_asks == "host" else seats
        return [] if self.host_decides(encounter_id, hidden) else seats

    def host_decides(self, encounter_id: int, hidden: bool) -> bool:
        """Whether the Host decides a command's player choices (hidden, ``hidden_asks: host``)."""
        return hidden and tables.decision_settings(self.store, encounter_id).hidden_asks == "host"

    def vetted(self, encounter: Encounter[Any], pending: PendingCommand) -> frozenset[str]:
        """The choices the waiting command made as it was sent (they stood then)."""
        chooser = getattr(encounter.game, "choices", None)
        if chooser is None:
            return frozenset()
        rng = command_rng(encounter.seed, pending.seq, pending.command)
        listed = chooser(encounter.state, pending.command, rng)
        return frozenset(c.name for c in listed if c.given)

    def answer_decision(
        self, who: Principal, encounter_id: int, request_id: str, value: Any
    ) -> dict[str, Any]:
        """Answer one open decision as ``who`` (its owner, or the Host); stored and announced.

        Refused with nothing written: a decision that is not open (404), someone else's
        (403), a value that is not one of its options or that the rules refuse (400). A hidden
        Host command's decisions are the Host's to answer, except its player's own (issue 21):
        to any other player they do not exist (404).
        """
        return self.answer_decisions(who, encounter_id, {request_id: value})

    def answer_decisions(
        self, who: Principal, encounter_id: int, answers: dict[str, Any]
    ) -> dict[str, Any]:
        """Answer several open decisions of the waiting command at once (one card, one Apply).

        They are taken in the order given; all or nothing: a refusal of any (as for one answer)
        leaves the encounter as it was and writes nothing (issue 21).
        """
        if not answers:
            raise DataError('Send at least one answer: {"<decision id>": <choice>}.')
        hidden = False
        with self.lock(encounter_id):
            encounter = self.live(encounter_id)
            audience, seqs = tables.audience(self.store, encounter_id)  # one read for all
            saved = encounter.snapshot()
            records: list[LogRecord] = []
            try:
                for request_id, value in answers.items():
                    record, hidden = self._answer_one(
                        who, encounter_id, encounter, request_id, value, (audience, seqs)
                    )
                    records.append(record)
            except BaseException:
                encounter.restore(saved)
                raise
            try:  # one transaction for the submission (issue 21, item 8)
                self.store.append_all(encounter_id, records)
            except BaseException:
                self.forget(encounter_id)
                raise
        self.notifier.publish(encounter_id)
        last = records[-1]  # answers share their command's seq: the hidden ones are as read
        found = self.answer(who, encounter_id, record_view(last, seqs), state_view(encounter),
                            encounter, audience.seats)  # fmt: skip
        if hidden and not who.is_host:  # its own answer taken; the hidden record stays hidden
            found["record"] = {"kind": last.kind.value, "hidden": True}
        self._with_carry_over(who, encounter_id, records, encounter, found)
        return found

    def _answer_one(
        self,
        who: Principal,
        encounter_id: int,
        encounter: Encounter[Any],
        request_id: str,
        value: Any,
        read: tuple[tables.Audience, frozenset[int]],
    ) -> tuple[LogRecord, bool]:
        """One answer applied to the live encounter (the caller stores it), and hidden or not.

        ``read``: the encounter's audience and hidden commands, read once for the submission.
        """
        pending = encounter.pending
        request = find_open(pending, request_id)
        assert pending is not None
        audience, seqs = read
        hidden = pending.seq in seqs
        host_decides = hidden and audience.settings.hidden_asks == "host"
        seats = [] if host_decides else audience.seats
        if not who.is_host and hidden and not may_answer(who, request.choice, seats):
            raise NoSuchDecisionError(f"There is no open decision {request_id!r}.")
        if not may_answer(who, request.choice, seats):
            raise ForbiddenError(refusal(request.choice, seats))
        check_answer(request, value)
        vetted = frozenset() if who.is_host else self.vetted(encounter, pending)
        asker = self.policy(who, encounter_id, who.table_id, vetted, answering=True,
                            audience=audience)  # fmt: skip
        by = "host" if who.seat is None else f"seat:{who.seat.id}"
        game = encounter.game.name
        with self.refusals(who, encounter_id, game, encounter.state, pending.command):
            return encounter.answer(request_id, value, by, asker), hidden

    def settings(self, who: Principal, encounter_id: int) -> dict[str, Any]:
        """The encounter's decision settings (the Host's, D-4 and D-5)."""
        require_host(who, "see the decision settings")
        return tables.decision_settings(self.store, encounter_id).to_json()

    def set_settings(
        self, who: Principal, encounter_id: int, changes: dict[str, Any]
    ) -> dict[str, Any]:
        """Change some of the encounter's decision settings (the Host's); the new settings.

        A question already asked keeps its deadline; the new timeout counts for the next.
        """
        require_host(who, "change the decision settings")
        self._audience.read = None  # this thread's next command reads the new settings
        current = tables.decision_settings(self.store, encounter_id).to_json()
        settings = tables.DecisionSettings(**{**current, **changes})
        tables.set_decision_settings(self.store, encounter_id, settings)
        if settings.npcs_decide == "auto":
            self.answer_npcs(encounter_id)
        return settings.to_json()

    def answer_npcs(self, encounter_id: int) -> None:
        """Take the suggestion of every open NPC question now (NPCs decide automatically, D-5).

        Recorded as answered ``by: "auto"``; a suggestion the rules refuse is left open for the
        Host (as at a deadline). Questions its answers open follow the same setting.
        """
        table_id = tables.table_of(self.store, encounter_id)
        if table_id is None:
            return
        written = False
        with self.lock(encounter_id):
            encounter = self.live(encounter_id)
            seats = tables.seats(self.store, table_id, encounter_id)
            asker = self.policy(None, encounter_id, table_id)
            written, _ = self._answer_each(
                encounter_id,
                encounter,
                lambda r: is_npcs(r.choice, seats),
                lambda r: fallbacks(r.choice, r.choice.suggested),
                "auto",
                asker,
            )
        if written:
            self.notifier.publish(encounter_id)

    def decisions(self, who: Principal, encounter_id: int) -> dict[str, Any]:
        """The open decisions ``who`` may answer, and who the fight waits for (everyone sees).

        Each option of a question ``who`` may answer carries its ``effect`` (and ``outcome``),
        computed now, when it is read, not when the command was sent (issue 21). ``cards``
        gathers the questions of the waiting command (one card: one *Apply*).
        """
        with self.lock(encounter_id):
            encounter = self.live(encounter_id)
            audience, seqs = tables.audience(self.store, encounter_id)  # one read (item 8)
            settings = audience.settings.to_json()
            pending = encounter.pending
            if pending is None:
                return {"decisions": [], "waiting": [], "cards": [], "settings": settings}
            secret = secret_to(who, audience.secrecy)
            seen = Seen(audience.seats, pending.seq in seqs, secret, audience.settings)
            mine = self.pending_view(who, encounter_id, pending, only_mine=True,
                                     effects=encounter.effects, seen=seen)  # fmt: skip
        found = {
            "decisions": mine,
            "waiting": self.waiting_view(who, encounter_id, pending, seen),
            "cards": card(pending, mine),
        }
        said = self.unseen_said(who, encounter_id, pending.command.to_json())
        return {**conceal(found, said), "settings": settings}  # W-66

    def pending_view(
        self,
        who: Principal,
        encounter_id: int,
        pending: PendingCommand,
        only_mine: bool,
        effects: Callable[[str], list[Any]] | None = None,
        seen: Seen | None = None,
    ) -> list[dict[str, Any]]:
        """The open requests as ``who`` may see them (``only_mine``: those it may answer).

        A hidden Host command's questions are shown to a player only when they are its own
        (its character's choice): with the command's kind alone, nothing else of it (issue 21).
        ``seen``: the seats, hiddenness and secrecy the caller already read (else read now).
        """
        seen = seen or self.seen(who, encounter_id, pending)
        hidden, secret = seen.hidden, seen.secret
        seats = self.deciders(encounter_id, seen.seats, hidden, seen.settings)
        command = pending.command.to_json()
        shown: list[dict[str, Any]] = []
        for request in pending.open:
            mine = may_answer(who, request.choice, seats)
            if (only_mine or (hidden and not who.is_host)) and not mine:
                continue
            shown_command = redact_command(command, secret)
            if hidden and not who.is_host:
                shown_command = {"kind": command["kind"], "args": {}, "dice": None}
            view = {**request.to_json(), "waiting_for": waiting_for(request, seats),
                    "decided_by": owner_words(request.choice, seats),
                    "mine": mine, "seq": pending.seq, "command": shown_command}  # fmt: skip
            sides = [*command_sides(command), request.choice.combatant]
            if (
                mine
                and effects is not None
                and not any(isinstance(c, str) and secret(c) for c in sides)
            ):  # an effect that follows secret values would only be concealed (W-16)
                view["options"] = with_effects(view["options"], effects(request.id))
            shown.append(redact_request(view, command, secret))
        return shown

    def seen(
        self,
        who: Principal,
        encounter_id: int,
        pending: PendingCommand,
        secret: IsSecret | None = None,
        seats: list[tables.Seat] | None = None,
        hidden: bool | None = None,
    ) -> Seen:
        """What the views of a waiting command need, each read once (issue 21, item 8).

        ``hidden``: whether the waiting command is hidden, if known (the command just stored:
        not read again).
        """
        if hidden is None:
            hidden = pending.seq in tables.hidden_seqs(self.store, encounter_id)
        return Seen(
            tables.seats(self.store, who.table_id, encounter_id) if seats is None else seats,
            hidden,
            self.secret_to(who, encounter_id, fresh=True) if secret is None else secret,
        )

    def waiting_view(
        self, who: Principal, encounter_id: int, pending: PendingCommand, seen: Seen | None = None
    ) -> list[dict[str, Any]]:
        """Who the fight waits for, without secrets.

        To a player, a hidden command waits for the Host, except for its own questions (issue
        21: a hidden command against its character asks it). With ``hidden_asks: host`` its
        character's questions are listed as the Host's (``decided_by: "the Host"``): the player
        reads that the Host decides them. ``decided_by`` says who decides each question.
        """
        seen = seen or self.seen(who, encounter_id, pending)
        seats, hidden = seen.seats, seen.hidden
        deciders = self.deciders(encounter_id, seats, hidden, seen.settings)

        def entry(r: Request) -> dict[str, Any]:
            return {"id": r.id, "kind": r.choice.kind, "combatant": r.choice.combatant,
                    "waiting_for": waiting_for(r, deciders),
                    "decided_by": owner_words(r.choice, deciders),
                    "deadline": r.deadline}  # fmt: skip

        if not who.is_host and hidden:
            own = [entry(r) for r in pending.open if may_answer(who, r.choice, seats)]
            return own or [{"id": None, "kind": None, "combatant": None,
                            "waiting_for": "the Host", "decided_by": "the Host",
                            "deadline": None}]  # fmt: skip
        return [entry(r) for r in pending.open]

    def _catch_up(self, encounter_id: int, cached: Encounter[Any]) -> None:
        """Apply the records other processes appended since ``cached`` (not the whole log)."""
        try:
            records, _hidden = tables.records_after(self.store, encounter_id, cached.revision)
            for record in records:
                cached.load(record)
        except BaseException:
            self.forget(encounter_id)  # never keep a half-applied copy
            raise

    def forget(self, encounter_id: int) -> None:
        """Drop the in-memory encounter (after a failed append it may be ahead of the store)."""
        self._live.pop(encounter_id, None)

    def lock(self, encounter_id: int) -> threading.Lock:
        """The lock that serialises commands on one encounter in this process."""
        with self._guard:
            return self._locks.setdefault(encounter_id, threading.Lock())

    # -- who is asking ------------------------------------------------------------------

    def principal(self, token: Presented) -> Principal:
        """The holder of ``token`` (a token or a session), or UnauthorisedError."""
        self._seen.revision = None
        self._secrecy.read = None
        given = presented(token)
        if given is None:
            raise UnauthorisedError(
                "This needs a token: send 'Authorization: Bearer <token>', or open your join "
                "link in this browser first."
            )
        found = tables.holder(self.store, given.hash, given.session)
        if found is None:
            what = "session" if given.session else "token"
            raise UnauthorisedError(
                f"This {what} belongs to no table or seat (it may have been revoked)."
            )
        return Principal(found.table_id, found.seat)

    def holds(self, token: Presented, who: Principal) -> bool | None:
        """Whether ``token`` still belongs to ``who`` (W-12: a live stream asks on every wake).

        None: it does, but the Host changed the seat (W-28): its name or characters.
        """
        given = presented(token)
        if given is None:
            return False
        found = tables.holder(self.store, given.hash, given.session)
        if found is None or found.table_id != who.table_id:
            return False
        if found.seat is None and who.seat is None:
            return True
        if found.seat is not None and who.seat is not None and found.seat.same_as(who.seat):
            return True  # read for an encounter, its characters are that encounter's (CH-2)
        changed = found.seat is not None and who.seat is not None and found.seat.id == who.seat.id
        return None if changed else False

    def at_table(self, token: Presented, table_id: int) -> Principal:
        """The holder of ``token``, who must sit at table ``table_id``."""
        who = self.principal(token)
        if who.table_id != table_id:
            raise ForbiddenError(f"This token is not for table {table_id}.")
        return who

    def at_encounter(self, token: Presented, encounter_id: int) -> tuple[Principal, EncounterInfo]:
        """The holder of ``token``, who must sit at the table of encounter ``encounter_id``.

        One read finds the encounter, its table and the token's holder there (and, for a
        player, the encounter's secrecy); the revision it read is kept for :meth:`live` and the
        secrecy for the first :meth:`secret_to` in the same request. Only a refusal reads again,
        step by step, to name the first thing wrong: no token (401), an unknown token (401), no
        such encounter (404), or another table's token (403).
        """
        self._secrecy.read = None
        self._audience.read = None
        given = presented(token)
        if given is not None:
            found = tables.access(self.store, given.hash, encounter_id, given.session)
            if found is not None and found.holder is not None:
                who = Principal(found.holder.table_id, found.holder.seat)
                self._seen.revision = (encounter_id, found.info.revision)
                if found.secrecy is not None:
                    self._secrecy.read = (who, encounter_id, found.secrecy)
                self._audience.read = (
                    None if found.audience is None else (who, encounter_id, found.audience)
                )
                return who, found.info
        return self._refuse_at_encounter(token, encounter_id)

    def _refuse_at_encounter(
        self, token: Presented, encounter_id: int
    ) -> tuple[Principal, EncounterInfo]:
        """:meth:`at_encounter` step by step: the first refusal (or the answer, if it changed)."""
        who = self.principal(token)
        info = self.store.encounter(encounter_id)
        if tables.table_of(self.store, encounter_id) != who.table_id:
            raise ForbiddenError(f"This token is not for the table of encounter {encounter_id}.")
        return who, info

    # -- the Host's set-up --------------------------------------------------------------

    def create_table(self, name: str, client: str | None = None) -> tuple[int, str]:
        """A new table and its Host's token (shown once, stored hashed).

        Args:
            name: The table's name.
            client: The address asking, counted against ``tables_per_minute`` (None: a caller
                in this process, e.g. the demo, not counted).
        """
        if client is not None:
            self.rates.table_created(client)
        token = new_token()
        return tables.create_table(self.store, name, token_hash(token)), token

    def create_encounter(
        self, who: Principal, table_id: int, game: str, name: str, seed: int | None
    ) -> EncounterInfo:
        """A new encounter at the Host's table."""
        require_host(who, "create encounters")
        game_for(game)
        held = len(tables.table(self.store, table_id).encounters)
        if held >= self.limits.max_encounters:
            raise TooLargeError(
                f"Table {table_id} already has {held} encounters, the most allowed "
                f"({self.limits.max_encounters})."
            )
        seed = secrets.randbits(SEED_BITS) if seed is None else seed
        encounter_id = tables.create_table_encounter(self.store, table_id, name, game, seed)
        return self.store.encounter(encounter_id)

    def add_player(
        self,
        who: Principal,
        table_id: int,
        name: str,
        characters: tuple[str, ...],
        client: str | None = None,
    ) -> tuple[tables.Seat, str]:
        """A new player's seat and its join token (shown once, stored hashed).

        ``client``: the address asking, counted against ``seats_per_minute`` (None: not counted).
        """
        require_host(who, "add players")
        self._audience.read = None
        held = len(tables.seats(self.store, table_id))
        if held >= self.limits.max_seats:
            raise TooLargeError(
                f"Table {table_id} already has {held} player seats, the most allowed "
                f"({self.limits.max_seats})."
            )
        if client is not None:
            self.rates.seats.take(client, "player seats added")
        token = new_token()
        return tables.add_seat(self.store, table_id, name, characters, token_hash(token)), token

    # -- sessions, revocation and rotation (W-11, W-12) ----------------------------------

    def start_session(self, token: str) -> tuple[Principal, str]:
        """Exchange a token for a new browser session (W-11): its holder and the session's id.

        The id is as unguessable as a token; the store keeps only its hash, tied to the token's
        hash, so the session ends with the token.
        """
        who = self.principal(token)
        session_id = new_token()
        tables.create_session(self.store, token_hash(session_id), token_hash(token))
        return who, session_id

    def remove_player(self, who: Principal, table_id: int, seat_id: int) -> tables.Seat:
        """The Host removes a seat (W-12): its token and sessions are refused at once."""
        require_host(who, "remove players")
        self._audience.read = None
        seat = tables.remove_seat(self.store, table_id, seat_id)
        self.wake_table(table_id)
        return seat

    def edit_player(
        self, who: Principal, table_id: int, seat_id: int, name: str, characters: tuple[str, ...]
    ) -> tables.Seat:
        """The Host renames a seat or changes its characters (W-28); its link stays.

        The seat's open streams end (without ``revoked``) and their pages reconnect, so that
        what each reads is decided by the seat as it is now.
        """
        require_host(who, "change players' seats")
        self._audience.read = None
        seat = tables.edit_seat(self.store, table_id, seat_id, name, characters)
        self.wake_table(table_id)
        return seat

    def connected(self, table_id: int, seat: tables.Seat | None) -> int:
        """How many live streams (open pages) a seat (None: the Host) has in this process."""
        return self.streams.open(holder_key(Principal(table_id, seat)))

    def rotate_player(self, who: Principal, table_id: int, seat_id: int) -> tuple[tables.Seat, str]:
        """The Host gives a seat a new join token (W-12); the old one is refused at once."""
        require_host(who, "give players new join links")
        token = new_token()
        seat = tables.rotate_seat_token(self.store, table_id, seat_id, token_hash(token))
        self.wake_table(table_id)
        return seat, token

    def rotate_host(self, who: Principal, table_id: int) -> str:
        """The Host takes a new Host token (W-12); the old one is refused at once."""
        require_host(who, "give the Host a new link")
        token = new_token()
        tables.rotate_host_token(self.store, table_id, token_hash(token))
        self.wake_table(table_id)
        return token

    def wake_table(self, table_id: int) -> None:
        """Wake this process's streams of the table's encounters (they check their holder)."""
        for encounter_id in tables.table_encounters(self.store, table_id):
            self.notifier.publish(encounter_id)

    def table_view(self, who: Principal) -> dict[str, Any]:
        """The table, its encounters and (for the Host) its seats."""
        info = tables.table(self.store, who.table_id)
        encounters = [self.store.encounter(i) for i in info.encounters]
        view: dict[str, Any] = {
            "id": info.id,
            "name": info.name,
            "role": who.role,
            "encounters": [
                {"id": e.id, "name": e.name, "game": e.game, "revision": e.revision}
                for e in encounters
            ],
        }
        if who.seat is not None:
            view["seat"] = seat_view(who.seat)
        else:
            view["seats"] = [seat_view(s) for s in tables.seats(self.store, info.id)]
        return view

    # -- commands -----------------------------------------------------------------------

    def execute(
        self,
        who: Principal,
        encounter_id: int,
        command: Command,
        revision: int | None,
        hidden: bool = False,
        exact: bool = False,
    ) -> dict[str, Any]:
        """Authorise, decide, store and announce one command; on refusal nothing is written.

        Args:
            who: The sender.
            encounter_id: The encounter.
            command: The command.
            revision: The revision the sender saw (None: not given).
            hidden: The Host hides the command from players.
            exact: Refuse (409) if any record came after ``revision``; otherwise the command
                is decided against the current state, and one that another process's append
                beat is decided again, up to :data:`RETRIES` times (W-14).
        """
        if hidden:
            require_host(who, "send hidden commands")
        for attempt in range(RETRIES + 1):
            try:
                with self.lock(encounter_id):
                    encounter, record, asker = self._decide_and_append(
                        who, encounter_id, command, revision, hidden, exact
                    )
                break
            except AppendRefusedError:  # another process appended first
                if exact or attempt == RETRIES:
                    raise
        self.notifier.publish(encounter_id)
        seqs = frozenset({record.seq}) if hidden and record.seq is not None else frozenset()
        seats = None if asker is None or asker.policy is None else list(asker.policy.seats)
        held = hidden if record.kind is RecordKind.REQUEST else None  # the 202's own command
        answer = self.answer(who, encounter_id, record_view(record, seqs), state_view(encounter),
                             encounter, seats, held)  # fmt: skip
        self._with_carry_over(who, encounter_id, [record], encounter, answer)
        return answer

    def _with_carry_over(
        self,
        who: Principal,
        encounter_id: int,
        records: list[LogRecord],
        encounter: Encounter[Any],
        answer: dict[str, Any],
    ) -> None:
        """Put the proposed carry-over in the Host's answer to what ended the fight (CH-9).

        What ended it may be a command or an answer to a decision; the proposal is read from
        the live encounter, not replayed from the log.
        """
        if who.is_host and any(ends_fight(record) for record in records):
            answer["carry_over"] = proposal(self.store, encounter_id, Options(), encounter)

    def _decide_and_append(
        self,
        who: Principal,
        encounter_id: int,
        command: Command,
        revision: int | None,
        hidden: bool,
        exact: bool,
    ) -> tuple[Encounter[Any], LogRecord, LazyAsker | None]:
        """One try of :meth:`execute`, with the encounter's lock held (and the policy asked)."""
        encounter = self.live(encounter_id)
        authorise_command(
            who, encounter.game.name, command.kind, command.args, current_actor(encounter),
            encounter.state,
        )  # fmt: skip
        check_args(encounter.game.name, command.kind, command.args)  # the same whatever waits
        self.require_not_waiting(who, encounter_id, f"the {command.kind}")
        if command.kind == "add":
            self._require_room(encounter)
        strife = encounter.game.name == "strife-combat"
        physical = strife and bool(command.args.get("physical"))
        if physical and who.is_host and not self.host_decides(encounter_id, hidden):
            command = players_roll(command, tables.secrecy(self.store, encounter_id).played)
        if strife and not who.is_host and command.dice is not None:
            self.refuse_typed_dice(who, encounter_id, encounter.state, command)
        asker = None
        if getattr(encounter.game, "choices", None) is not None:
            asker = LazyAsker(lambda: self.policy(who, encounter_id, who.table_id), who.is_host)
        with self.refusals(who, encounter_id, encounter.game.name, encounter.state, command):
            record = encounter.execute(
                command, revision, exact, asker=asker, clamp_steps=not who.is_host
            )
        try:
            tables.append(self.store, encounter_id, record, hidden)
        except BaseException:
            self.forget(encounter_id)  # ahead of the store: never keep a half-applied copy
            raise
        return encounter, record, asker

    def npc_turn(self, who: Principal, encounter_id: int) -> dict[str, Any]:
        """The Host plays the current NPC's Turn by the policy that knows the rules (SA-98).

        Command by command, each the policy's first choice the engine accepts (for NPCs only:
        models no seat commands), sent as the Host's, until the Turn passes, a decision waits,
        or :data:`NPC_STEPS_MAX` commands. Returns the last command's answer.
        """
        require_host(who, "play an NPC's Turn")
        answer: dict[str, Any] | None = None
        current = None
        for _ in range(NPC_STEPS_MAX):
            with self.lock(encounter_id):
                encounter = self.live(encounter_id)
                played = tables.secrecy(self.store, encounter_id).played
                current = self.npc_to_play(encounter, played, current, answer is None)
                if current is None:
                    break
                command = npc_command(encounter.game, encounter.state,
                                      npcs_of(encounter.state, played))  # fmt: skip
            answer = self.execute(who, encounter_id, command, None)
            if command.kind == "next" or "pending" in answer:
                break
        assert answer is not None
        return answer

    def npc_to_play(
        self, encounter: Encounter[Any], played: frozenset[str], before: str | None, first: bool
    ) -> str | None:
        """The NPC whose Turn it is, still the one played (None: stop); refused on the first."""
        current = current_actor(encounter)
        if encounter.pending is not None or current is None:
            if first:
                raise DataError("There is no NPC's Turn to play: " + (
                    "a decision waits." if encounter.pending is not None
                    else "the fight has not started or has ended."))  # fmt: skip
            return None
        if commander(encounter.state)(current) in played:
            if first:
                raise DataError(
                    f"It is the Turn of {current}, which a player commands: the Host plays "
                    "only the Turns of NPCs (SA-98)."
                )
            return None
        return current if first or current == before else None

    def refuse_typed_dice(
        self, who: Principal, encounter_id: int, state: Any, command: Command
    ) -> None:
        """Refuse a player's Strife dice typed all at once when a model secret to it is involved.

        How many of them the command reads (a damage roll only after a hit, a Block's d20 …)
        follows that model's values, so accepting or refusing them would tell the player a
        secret (W-52). The refusal is decided before any die is read, from the arguments and the
        secrecy alone: the same whatever the dice and whatever the secret values.
        """
        secret = self.secret_to(who, encounter_id)
        hidden = [c for c in involved(state, command.args) if secret(c)]
        if hidden:
            raise ForbiddenError(
                f"Dice typed all at once are not taken for a {command.kind} involving "
                f"{' and '.join(hidden)}: which of them are read follows values that are secret "
                "to you (W-52). Roll at the table stage by stage (each die asked when it comes), "
                "or let the server roll."
            )

    def _require_room(self, encounter: Encounter[Any]) -> None:
        """Refuse an ``add`` to a roster already at ``max_combatants`` (W-13)."""
        state = encounter.state
        roster = getattr(state, "combatants", None)
        if roster is None:
            roster = getattr(state, "models", {})
        if len(roster) >= self.limits.max_combatants:
            raise TooLargeError(
                f"This encounter already has {len(roster)} combatants, the most allowed "
                f"({self.limits.max_combatants})."
            )

    def step_back(
        self, who: Principal, encounter_id: int, revision: int | None, redo: bool
    ) -> dict[str, Any]:
        """The Host's undo (or redo), stored and announced."""
        require_host(who, "redo" if redo else "undo")
        with self.lock(encounter_id):
            encounter = self.live(encounter_id)
            if redo:
                self.require_not_waiting(who, encounter_id, "redo")
            record = encounter.redo(revision) if redo else encounter.undo(revision)
            try:
                tables.append(self.store, encounter_id, record)
            except BaseException:
                self.forget(encounter_id)
                raise
        self.notifier.publish(encounter_id)
        seqs = tables.hidden_seqs(self.store, encounter_id)
        return self.answer(who, encounter_id, record_view(record, seqs), state_view(encounter),
                           encounter)  # fmt: skip

    def answer(
        self,
        who: Principal,
        encounter_id: int,
        record: dict[str, Any],
        state: dict[str, Any],
        encounter: Encounter[Any] | None = None,
        seats: list[tables.Seat] | None = None,
        hidden: bool | None = None,
    ) -> dict[str, Any]:
        """A command's (or undo's) answer: its record and the new state, as ``who`` may see them.

        While the encounter waits for decisions, ``pending`` lists its open requests (the
        answer is then a 202, D-1). ``seats``: the table's seats if the command already read
        them (its policy did), else they are read when needed. ``hidden``: whether the waiting
        command is hidden, when the caller knows it (it just stored it), else read.
        """
        secret = self.secret_to(who, encounter_id)
        found: dict[str, Any] = {
            "record": redact_record(record, secret),
            "state": redact_state(state, secret),
        }
        pending = None if encounter is None else encounter.pending
        if pending is not None and record.get("kind") in (RecordKind.REQUEST, RecordKind.ANSWER):
            seen = self.seen(who, encounter_id, pending, secret, seats, hidden)
            found["pending"] = self.pending_view(who, encounter_id, pending, False, seen=seen)
            found["waiting"] = self.waiting_view(who, encounter_id, pending, seen)
        if who.is_host:
            return found
        ids = unseen(self.store, found["state"], who, encounter_id)  # W-66
        found["state"] = without_unseen(found["state"], ids)
        return dict(conceal(found, labels(ids, record.get("command"))))

    @contextmanager
    def concealing(self, who: Principal, encounter_id: int) -> Iterator[None]:
        """Give a player a refusal that names a combatant it does not see as unseen (W-66).

        ("Only the Host or the player of an unseen combatant may end the Turn.")
        """
        try:
            yield
        except Exception as error:
            said = (
                {} if who.is_host or len(error.args) != 1 else self.unseen_said(who, encounter_id)
            )
            sentence = error.args[0] if said else None
            if not isinstance(sentence, str) or conceal(sentence, said) == sentence:
                raise
            raise type(error)(conceal(sentence, said)) from None

    def unseen_said(self, who: Principal, encounter_id: int, command: Any = None) -> dict[str, str]:
        """How each combatant ``who`` does not see now is said to it (W-66); the Host: none.

        Read from the live encounter's state as it stands (its states are immutable: no lock).
        """
        encounter = self._live.get(encounter_id)
        if who.is_host or encounter is None:
            return {}
        return labels(unseen(self.store, state_view(encounter), who, encounter_id), command)

    # -- secret values ------------------------------------------------------------------

    def secret_to(self, who: Principal, encounter_id: int, fresh: bool = False) -> IsSecret:
        """Which combatants' values are secret to ``who`` in this encounter (none to the Host).

        The secrecy :meth:`at_encounter` read for this very ``who`` (the same object) in this
        request (thread) is used once, then dropped; any other call, or ``fresh``, reads it now.
        So a request sees the secrecy stored when it was authorised, and a change made by any
        process before that applies to it.
        """
        if who.is_host:
            return secret_to(who, tables.Secrecy(False, {}, frozenset()))
        return secret_to(who, self._take_secrecy(who, encounter_id, fresh))

    def _take_secrecy(self, who: Principal, encounter_id: int, fresh: bool) -> tables.Secrecy:
        """The secrecy read with ``who``'s authorising read (used once), else a new read."""
        read: tuple[Principal, int, tables.Secrecy] | None = getattr(self._secrecy, "read", None)
        self._secrecy.read = None
        if not fresh and read is not None and read[0] is who and read[1] == encounter_id:
            return read[2]
        return tables.secrecy(self.store, encounter_id)

    def refuse_secret_odds(self, who: Principal, encounter_id: int, args: dict[str, Any]) -> None:
        """Refuse a player odds that involve a combatant secret to it (they follow its values)."""
        secret = self.secret_to(who, encounter_id)
        for named in odds_combatants(args):
            if secret(named):
                raise ForbiddenError(
                    f"Odds involving {named} are not shown to players: its values are secret."
                )

    @contextmanager
    def refusals(
        self,
        who: Principal,
        encounter_id: int,
        game: str,
        state: Any,
        command: Command,
        secret: IsSecret | None = None,
    ) -> Iterator[None]:
        """Give a player the engine's refusal of ``command`` only as public values (W-9).

        A refusal of a command that involves a combatant secret to the player (named in its
        arguments, or Grappling one that is) is said without that combatant's numbers
        (:func:`~tableside.web.redact.public_refusal`). The arguments' own refusals
        (``DataError``: the caller's typing) and stale revisions stand as they are. ``secret``
        is the request's secrecy if already taken, else it is taken now (:meth:`secret_to`).
        """
        try:
            yield
        except (DataError, StaleRevisionError):
            raise
        except TablesideError as error:
            if who.is_host:
                raise
            if secret is None:
                secret = self.secret_to(who, encounter_id)
            hidden = [c for c in involved(state, command.args) if secret(c)]
            actor = command.args.get(PLAYER_ACTORS.get(game, {}).get(command.kind, "id"))
            sentence = public_refusal(str(error), command.kind, actor, hidden)
            sentence = str(conceal(sentence, self.unseen_said(who, encounter_id)))  # W-66
            if sentence == str(error):
                raise
            raise type(error)(sentence) from None

    # -- reading ------------------------------------------------------------------------

    def state(self, encounter_id: int, who: Principal) -> dict[str, Any]:
        """The encounter's current state as ``who`` may see it."""
        secret = self.secret_to(who, encounter_id)
        with self.lock(encounter_id):
            view = redact_state(state_view(self.live(encounter_id)), secret)
        if who.is_host:
            return view
        return without_unseen(view, unseen(self.store, view, who, encounter_id))  # W-66

    def visible_after(
        self, who: Principal, encounter_id: int, after: int
    ) -> tuple[list[dict[str, Any]], int]:
        """The records after revision ``after`` that ``who`` may see, and the revision reached.

        The secrecy is read afresh: a stream calls this with the ``who`` it was opened with, long
        after its authorising read.
        """
        records, hidden = tables.records_after(self.store, encounter_id, after)
        reached = records[-1].revision if records else after
        shown = [r for r in records if who.is_host or r.seq not in hidden]
        secret = self.secret_to(who, encounter_id, fresh=True)
        views = [redact_record(record_view(r, hidden), secret) for r in shown]
        if not who.is_host and views:  # a record naming a combatant unseen now is not sent (W-66)
            with self.lock(encounter_id):
                now = redact_state(state_view(self.live(encounter_id)), secret)
            ids = unseen(self.store, now, who, encounter_id)
            views = [v for v in views if not names_any(v, ids)] if ids else views
        return views, reached

    def log(self, who: Principal, encounter_id: int) -> list[dict[str, Any]]:
        """The whole log as ``who`` may see it (overdue decisions expired first, D-5)."""
        with self.lock(encounter_id):
            self.live(encounter_id)
        return self.visible_after(who, encounter_id, 0)[0]


@dataclass(frozen=True, slots=True)
class Seen:
    """The table's seats, whether the waiting command is hidden, and the viewer's secrecy."""

    seats: list[tables.Seat]
    hidden: bool
    secret: IsSecret
    settings: tables.DecisionSettings | None = None  # None: read when needed


class LazyAsker:
    """A policy read from the store only when a command has a choice to judge.

    A command without choices (``next``, ``move`` …) then costs no read of the seats or the
    decision settings: it stays one read and one write (docs/web.md, Performance).
    """

    def __init__(self, build: Callable[[], TablePolicy], host: bool = False) -> None:
        self.build = build
        self.host = host
        self.policy: TablePolicy | None = None

    def __call__(self, choice: Choice) -> Ask:
        """The verdict of the policy, read on the first call.

        A choice the Host gives stands (D-4) without reading anything: a Host's Strike with
        the Target's choices in its arguments reads no seats (issue 21, item 8).
        """
        if choice.given and self.host:
            return Ask(Policy.KEEP)
        if self.policy is None:
            self.policy = self.build()
        return self.policy(choice)


def fallbacks(choice: Choice, first: Any) -> list[Any]:
    """The answers to try, in order: ``first``, then the other options (SA-98).

    A proposal at its deadline is only rejected, and a free choice takes only ``first`` (D-5).
    """
    if choice.kind == APPROVE or choice.free:
        return [first]
    others = [o.get("value") for o in choice.options if o.get("value") != first]
    return [first, *others]


def first_accepted(
    encounter: Encounter[Any], request: Request, answers: list[Any], by: str, asker: Any
) -> LogRecord | None:
    """The record of the first of ``answers`` the rules accept (None: every one refused)."""
    for value in answers:
        try:
            return encounter.answer(request.id, value, by, asker)
        except TablesideError:
            continue
    return None


def npcs_of(state: Any, played: frozenset[str]) -> Callable[[str], bool]:
    """Whether a model is an NPC's to command: no seat plays its commander (SA-97, SA-98)."""
    command_of = commander(state)
    return lambda model: command_of(model) not in played


def is_due(request: Request, now: float) -> bool:
    """Whether a request's deadline has passed (D-5)."""
    return request.deadline is not None and request.deadline <= now


def overdue(encounter: Encounter[Any], now: float) -> bool:
    """Whether the encounter waits for a decision whose deadline has passed (D-5)."""
    pending = encounter.pending
    return pending is not None and any(is_due(r, now) for r in pending.open)


def players_roll(command: Command, played: frozenset[str]) -> Command:
    """An attack rolled at the table: a defending player's own dice are typed by that player.

    When the Host rolls physical dice for an attack (``physical``), each defender a seat plays is
    a physical roller too, so its Block/Parry test and Ward-off d20 are asked of its player,
    never rolled by the server (issue 21, D-6).
    """
    physical = command.args.get("physical")
    attacks = command.args.get("attacks")
    if command.kind != "attack" or not isinstance(physical, list) or not physical:
        return command
    if not isinstance(attacks, list):
        return command
    defenders = [a.get("defender") for a in attacks if isinstance(a, dict)]
    added = [d for d in dict.fromkeys(defenders)
             if isinstance(d, str) and d in played and d not in physical]  # fmt: skip
    if not added:
        return command
    return Command(command.kind, {**command.args, "physical": [*physical, *added]}, command.dice)


def is_npcs(choice: Choice, seats: list[tables.Seat]) -> bool:
    """Whether a choice is an NPC's (no seat plays its combatant; not a proposal's approval)."""
    return (
        choice.kind != "approve"
        and choice.combatant is not None
        and (owner_seat(choice, seats) is None)
    )


def with_effects(options: list[dict[str, Any]], effects: list[Any]) -> list[dict[str, Any]]:
    """The options, each with its ``effect`` and ``outcome`` where the game computed them."""
    shown = []
    for option, effect in zip(options, effects, strict=False):
        shown.append({**option, **effect} if isinstance(effect, dict) else option)
    return shown + options[len(shown) :]


def card(pending: PendingCommand, mine: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One card for the waiting command: its questions ``who`` may answer (one *Apply*)."""
    if not mine:
        return []
    first = mine[0]
    command = first.get("command") or {}
    args = command.get("args") or {}
    actor = next((args[k] for k in ("striker", "attacker", "caster", "id", "actor")
                  if isinstance(args.get(k), str)), None)  # fmt: skip
    kind = str(command.get("kind") or pending.command.kind)
    title = f"{actor}'s {kind}" if actor else f"The waiting {kind}"
    return [{
        "seq": pending.seq, "title": title, "command": command,
        "questions": [q["id"] for q in mine],
        "decided_by": sorted({str(q.get("decided_by")) for q in mine}),
        "dice": next((q["dice"] for q in mine if isinstance(q.get("dice"), dict)), None),
    }]  # fmt: skip


def find_open(pending: PendingCommand | None, request_id: str) -> Request:
    """The open decision ``request_id``, or a refusal naming it (404)."""
    if pending is None:
        raise NoSuchDecisionError(
            f"There is no open decision {request_id!r}: the fight waits for nothing."
        )
    for request in pending.open:
        if request.id == request_id:
            return request
    raise NoSuchDecisionError(f"There is no open decision {request_id!r}.")


def involved(state: Any, args: Any) -> list[str]:
    """The combatants a command involves: those its arguments name, and whoever Grapples one.

    Every string in the arguments (at any depth) that is a combatant's id counts; a War
    combatant's Grappler is added, since breaking free is a Check against its Might (M-37).
    """
    roster = getattr(state, "combatants", None)
    if roster is None:
        roster = getattr(state, "models", {})
    found: list[str] = []
    for text in strings(args):
        if text in roster and text not in found:
            found.append(text)
    for name in list(found):
        holder = getattr(roster[name], "grappled_by", None)
        if isinstance(holder, str) and holder in roster and holder not in found:
            found.append(holder)
    return found


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys aside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def odds_combatants(args: dict[str, Any]) -> list[object]:
    """Every combatant a Strike's or an attack's arguments name."""
    named = [args.get(key) for key in ("striker", "defender", "attacker")]
    attacks = args.get("attacks")
    if isinstance(attacks, list):
        named += [item.get("defender") for item in attacks if isinstance(item, dict)]
    return named


def seat_view(seat: tables.Seat) -> dict[str, Any]:
    """A seat as JSON (never its token)."""
    return {"id": seat.id, "name": seat.name, "characters": list(seat.characters)}
