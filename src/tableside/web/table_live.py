"""The web table's live encounters, who is asking, and what is secret to them.

Each process keeps the encounters it serves in memory, under a lock per encounter, and reads
the store again only when another process has appended past its copy. :class:`LiveTable` is
the base of :class:`~tableside.web.table.WebTable`: the authorising reads, the policy of a
decision, deadlines (D-5) and the concealment of secret values and unseen combatants (W-9,
W-66).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tableside.encounter.decisions import (
    Request,
    at_deadline,
)
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.errors import DataError, StaleRevisionError, TablesideError
from tableside.service import open_encounter
from tableside.store import Store, table_audience, table_log, tables
from tableside.store.db import EncounterInfo
from tableside.web.auth import (
    PLAYER_ACTORS,
    ForbiddenError,
    Principal,
    UnauthorisedError,
)
from tableside.web.decisions import (
    TablePolicy,
)
from tableside.web.guards import Limits, Rates, StreamSlots
from tableside.web.hub import Notifier
from tableside.web.redact import (
    IsSecret,
    secret_to,
)
from tableside.web.refusals import public_refusal
from tableside.web.table_answers import (
    fallbacks,
    first_accepted,
    is_due,
    overdue,
)
from tableside.web.table_views import (
    Presented,
    involved,
    odds_combatants,
    presented,
    state_view,
)
from tableside.web.unseen import conceal, labels, unseen


class LiveTable:
    """The live encounters of one store in this process, who is asking, and their secrets."""

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
        self._live: OrderedDict[int, Encounter[Any]] = OrderedDict()  # the least recent first
        self._kept = threading.Lock()  # guards the order of ``_live`` (SV-16)
        self.live_kept = LIVE_KEPT
        self.ended_kept = ENDED_KEPT
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
        cached = self._cached(encounter_id)
        if cached is None:
            cached = open_encounter(self.store, encounter_id)
            self._keep(encounter_id, cached)
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
        audience: table_audience.Audience | None = None,
    ) -> TablePolicy:
        """The decision policy of ``who`` (None: the table itself) in this encounter, now.

        The seats and settings a player's authorising read fetched for this very ``who`` and
        encounter are used (once, issue 21, item 8), else ``audience``'s, else they are read.
        """
        found = self._take_audience(who, encounter_id) if audience is None else audience
        if found is None:
            seats, settings = table_audience.seats_and_settings(self.store, table_id, encounter_id)
        else:
            seats, settings = found.seats, found.settings
        return TablePolicy(who, tuple(seats), settings, self.clock(), vetted,
                           answering=answering)  # fmt: skip

    def _take_audience(
        self, who: Principal | None, encounter_id: int
    ) -> table_audience.Audience | None:
        """The audience read with ``who``'s authorising read in this request (used once)."""
        read: tuple[Principal, int, table_audience.Audience] | None = getattr(
            self._audience, "read", None
        )
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
                table_log.append(self.store, encounter_id, record)
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
        with self._kept:
            kept = list(self._live.items())
        for encounter_id, cached in kept:
            if not overdue(cached, now) or (encounter_id, cached.revision) in self._stuck:
                continue
            with self.lock(encounter_id):
                before = self._live.get(encounter_id)
                encounter = self.live(encounter_id)
                done += encounter.revision - (before.revision if before else 0)
        return done

    def _cached(self, encounter_id: int) -> Encounter[Any] | None:
        """The encounter kept in memory, now the most recently used; None if not kept."""
        with self._kept:
            cached = self._live.get(encounter_id)
            if cached is not None:
                self._live.move_to_end(encounter_id)
            return cached

    def _keep(self, encounter_id: int, encounter: Encounter[Any]) -> None:
        """Keep an encounter in memory, letting go of the least recently used past the bounds.

        At most :attr:`live_kept` encounters are kept (SV-16), of which at most
        :attr:`ended_kept` ended ones, which are let go first; never one that waits for a
        decision (the sweeper expires its deadline, D-5): those are kept whatever their number.
        One let go is read from the store again when next asked for.
        """
        with self._kept:
            self._live[encounter_id] = encounter
            self._live.move_to_end(encounter_id)
            idle = [
                e for e, kept in self._live.items() if kept.pending is None and e != encounter_id
            ]
            ended = [e for e in idle if getattr(self._live[e].state, "ended", False)]
            done = set(ended)
            playing = [e for e in idle if e not in done]
            over = max(len(ended) - self.ended_kept, 0)  # the least recent ended ones
            excess = max(len(self._live) - over - self.live_kept, 0)
            for eid in ended[:over] + (ended[over:] + playing)[:excess]:
                del self._live[eid]

    def adopt_waiting(self) -> list[int]:
        """Load the encounters that wait for a decision (after a restart), for the sweeper."""
        found: list[int] = []
        for encounter_id in table_log.maybe_waiting(self.store):
            with self.lock(encounter_id):
                encounter = self.live(encounter_id)
                if encounter.pending is not None:
                    found.append(encounter_id)
        return found

    def _catch_up(self, encounter_id: int, cached: Encounter[Any]) -> None:
        """Apply the records other processes appended since ``cached`` (not the whole log)."""
        try:
            records, _hidden = table_log.records_after(self.store, encounter_id, cached.revision)
            for record in records:
                cached.load(record)
        except BaseException:
            self.forget(encounter_id)  # never keep a half-applied copy
            raise

    def forget(self, encounter_id: int) -> None:
        """Drop the in-memory encounter (after a failed append it may be ahead of the store)."""
        with self._kept:
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
            found = table_log.access(self.store, given.hash, encounter_id, given.session)
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
            return secret_to(who, table_audience.Secrecy(False, {}, frozenset()))
        return secret_to(who, self._take_secrecy(who, encounter_id, fresh))

    def _take_secrecy(
        self, who: Principal, encounter_id: int, fresh: bool
    ) -> table_audience.Secrecy:
        """The secrecy read with ``who``'s authorising read (used once), else a new read."""
        read: tuple[Principal, int, table_audience.Secrecy] | None = getattr(
            self._secrecy, "read", None
        )
        self._secrecy.read = None
        if not fresh and read is not None and read[0] is who and read[1] == encounter_id:
            return read[2]
        return table_audience.secrecy(self.store, encounter_id)

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
        (:func:`~tableside.web.refusals.public_refusal`). The arguments' own refusals
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


LIVE_KEPT = 256
"""Encounters each process keeps in memory, the least recently used let go first (SV-16)."""
ENDED_KEPT = 16
"""Of those, the ended ones kept at most (SV-16): the first let go."""
ADOPT_EVERY = 60  # sweeps between looks in the store for encounters waiting (other processes')
LOG = logging.getLogger(__name__)


async def sweep_deadlines(table: LiveTable, every: float) -> None:
    """The deadline sweeper (D-5): expire overdue decisions about every ``every`` seconds.

    It first loads the encounters that wait (so that, after a restart, a deadline that passed
    is taken on its next tick), then looks in the store again every :data:`ADOPT_EVERY` sweeps
    for encounters other processes left waiting. A failure is retried on the next tick.
    """
    ticks = 0
    while True:
        try:
            if ticks % ADOPT_EVERY == 0:
                await asyncio.to_thread(table.adopt_waiting)
            await asyncio.to_thread(table.sweep)
        except Exception:  # a store hiccup must not end the sweeper; the next tick retries
            LOG.exception("The deadline sweeper failed; it tries again.")
        ticks += 1
        await asyncio.sleep(every)
