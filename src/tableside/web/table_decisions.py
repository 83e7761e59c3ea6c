"""The web table's decisions (D-1 … D-5, docs/decisions.md) and its reads, as each may see them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tableside.campaign.carry import Options
from tableside.campaign.play import ends_fight, proposal
from tableside.encounter.decisions import (
    PendingCommand,
    Request,
    check_answer,
)
from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import LogRecord, RecordKind
from tableside.errors import DataError
from tableside.store import table_audience, table_log, tables
from tableside.web.auth import (
    ForbiddenError,
    Principal,
    require_host,
)
from tableside.web.decisions import (
    FightWaitingError,
    NoSuchDecisionError,
    may_answer,
    owner_words,
    refusal,
    waiting_for,
)
from tableside.web.redact import (
    IsSecret,
    command_sides,
    redact_command,
    redact_record,
    redact_request,
    redact_state,
    secret_to,
)
from tableside.web.table_answers import (
    fallbacks,
    find_open,
    is_npcs,
)
from tableside.web.table_live import LiveTable
from tableside.web.table_views import (
    Seen,
    card,
    record_view,
    state_view,
    with_effects,
)
from tableside.web.unseen import conceal, labels, names_any, unseen, without_unseen


class DecidingTable(LiveTable):
    """Open decisions, their answers, and every read, as ``who`` may see them."""

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
        return pending.seq in table_audience.hidden_seqs(self.store, encounter_id)

    def deciders(
        self,
        encounter_id: int,
        seats: list[tables.Seat],
        hidden: bool,
        settings: table_audience.DecisionSettings | None = None,
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
        return (
            hidden
            and table_audience.decision_settings(self.store, encounter_id).hidden_asks == "host"
        )

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
            audience, seqs = table_audience.audience(self.store, encounter_id)  # one read for all
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
        read: tuple[table_audience.Audience, frozenset[int]],
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
        return table_audience.decision_settings(self.store, encounter_id).to_json()

    def set_settings(
        self, who: Principal, encounter_id: int, changes: dict[str, Any]
    ) -> dict[str, Any]:
        """Change some of the encounter's decision settings (the Host's); the new settings.

        A question already asked keeps its deadline; the new timeout counts for the next.
        """
        require_host(who, "change the decision settings")
        self._audience.read = None  # this thread's next command reads the new settings
        current = table_audience.decision_settings(self.store, encounter_id).to_json()
        settings = table_audience.DecisionSettings(**{**current, **changes})
        table_audience.set_decision_settings(self.store, encounter_id, settings)
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
            audience, seqs = table_audience.audience(self.store, encounter_id)  # one read (item 8)
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
            hidden = pending.seq in table_audience.hidden_seqs(self.store, encounter_id)
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
        records, hidden = table_log.records_after(self.store, encounter_id, after)
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
