"""Live updates: wake the open streams of an encounter when a record is committed.

The log in the store is the source of truth; a stream reads the records after the last one it
sent, then sleeps until its encounter is announced or ``poll`` seconds pass. Announcements come
from this process's own commits (immediate, in-process) and, on PostgreSQL, from every process's
commits through LISTEN/NOTIFY (:mod:`tableside.web.notify`). The poll is the fallback: on SQLite
it is how records committed by other processes arrive; on PostgreSQL it covers a lost listener.

A stream also asks, each time it wakes, whether its token or session still belongs to its holder
(W-12): when the Host removes the seat or rotates the link, the stream sends a ``revoked`` event
and ends. When the server stops (Ctrl+C, SIGTERM), :meth:`Notifier.stop` ends every open
stream, so that the server's graceful shutdown finishes at once instead of waiting for pages
that stay open (W-27). Revocation wakes this process's streams of the table at once, and on
PostgreSQL it announces the table's encounters to every process in the same transaction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import threading
from collections.abc import AsyncGenerator, Callable, Collection, Mapping
from types import FrameType
from typing import Any

Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]
ReadAfter = Callable[[int], tuple[list[dict[str, Any]], int]]
ReadRevisions = Callable[[Collection[int]], Mapping[int, object]]
LOG = logging.getLogger("tableside.web")
REVOKED = "event: revoked\ndata: {}\n\n"


class Notifier:
    """In-process fan-out: each open stream waits on an event, set when its encounter changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[int, set[Waiter]] = {}
        self.watched = False  # a watch task wakes the streams: they need no poll of their own
        self.stopping = False  # the server stops: every stream ends at its next wake
        self.listeners: list[Callable[[int], None]] = []  # told of each change (quick, no raise)
        # told of each announcement another process made, (encounter, what follows the id):
        # a ping travels in its announcement (W-67)
        self.heard: list[Callable[[int, str], None]] = []

    def stop(self) -> None:
        """End every open stream: the server is stopping (safe from a signal handler)."""
        self.stopping = True
        self.publish_all()

    def subscribe(self, encounter_id: int) -> asyncio.Event:
        """An event set whenever ``encounter_id`` changes (call in the stream's event loop)."""
        event = asyncio.Event()
        with self._lock:
            self._waiters.setdefault(encounter_id, set()).add((asyncio.get_running_loop(), event))
        return event

    def unsubscribe(self, encounter_id: int, event: asyncio.Event) -> None:
        """Stop waking ``event``."""
        with self._lock:
            waiters = self._waiters.get(encounter_id, set())
            for waiter in [w for w in waiters if w[1] is event]:
                waiters.discard(waiter)
            if not waiters:
                self._waiters.pop(encounter_id, None)

    def publish(self, encounter_id: int) -> None:
        """Wake every stream of ``encounter_id`` and tell the listeners (safe from any thread)."""
        with self._lock:
            waiters = list(self._waiters.get(encounter_id, ()))
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)
        for listener in self.listeners:
            listener(encounter_id)

    def publish_all(self) -> None:
        """Wake every open stream (e.g. after announcements may have been missed)."""
        with self._lock:
            encounters = list(self._waiters)
        for encounter_id in encounters:
            self.publish(encounter_id)

    def encounters(self) -> list[int]:
        """The encounters with open streams."""
        with self._lock:
            return list(self._waiters)

    def streams(self, encounter_id: int) -> int:
        """How many streams of ``encounter_id`` are open."""
        with self._lock:
            return len(self._waiters.get(encounter_id, ()))


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def end_streams_on_stop(notifier: Notifier) -> Callable[[], None]:
    """Chain :meth:`Notifier.stop` before the server's own handlers of SIGINT and SIGTERM.

    Uvicorn's graceful shutdown waits for every open response to finish, and a live stream
    never finishes by itself: without this, Ctrl+C with pages open waits for the shutdown
    timeout and then cancels the streams with a traceback (W-27). Called in the server's main
    thread after it installed its handlers (the application's start-up); elsewhere (a test
    client's thread) it does nothing. Returns the function that puts the handlers back.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def handle(sig: int, frame: FrameType | None) -> None:
        notifier.stop()
        previous = before[signal.Signals(sig)]
        if callable(previous):
            previous(sig, frame)
        elif previous == signal.SIG_DFL and sig == signal.SIGINT:
            raise KeyboardInterrupt

    for sig in STOP_SIGNALS:
        signal.signal(sig, handle)

    def restore() -> None:
        for sig, previous in before.items():
            signal.signal(sig, previous)

    return restore


def sse(record: dict[str, Any]) -> str:
    """One Server-Sent Event carrying a record (its id is the record's revision)."""
    data = json.dumps(record, separators=(",", ":"))
    return f"id: {record['revision']}\nevent: record\ndata: {data}\n\n"


def moved(revision: int) -> str:
    """The event that says the table reached ``revision`` through records not shown.

    A player's stream skips hidden records, but their effects are in the state everyone reads
    (docs/web.md, Hidden commands): the page reads the state again when it gets this.
    """
    data = json.dumps({"revision": revision}, separators=(",", ":"))
    return f"id: {revision}\nevent: moved\ndata: {data}\n\n"


async def record_stream(
    notifier: Notifier,
    encounter_id: int,
    read_after: ReadAfter,
    after: int,
    poll: float | Callable[[], float] = 1.0,
    keepalive: float = 15.0,
    alive: Callable[[], bool | None] | None = None,
    extra: Callable[[], list[str]] | None = None,
) -> AsyncGenerator[str, None]:
    """Server-Sent Events: every record after revision ``after`` that ``read_after`` shows.

    When a read reaches past the last record it shows (hidden records), a ``moved`` event
    carries the revision reached, so that the page reads the state again.

    Args:
        notifier: Wakes the stream when this process commits to the encounter.
        encounter_id: The encounter.
        read_after: Blocking read of the visible records after a revision, and the revision
            reached (hidden records advance it without being sent).
        after: The last revision the client has (from ``Last-Event-ID`` or ``after``).
        poll: Seconds between reads when nothing wakes the stream (other processes), or a
            function giving them before each wait; unused while ``notifier.watched`` (a
            :func:`watch` task wakes the stream instead).
        keepalive: Seconds of silence before a comment line keeps proxies from closing it.
        alive: Blocking check, made on every wake after the first read, that the stream's
            token or session still belongs to its holder; when it does not, the stream sends
            ``event: revoked`` and ends (W-12); None: it does, but the Host changed the seat,
            and the stream ends without ``revoked``, so that the page reconnects (W-28).
        extra: Blocking read, made after the records on every wake, of other events to send
            (the chat's, :func:`tableside.web.chat.chat_feed`).
    """
    wake = notifier.subscribe(encounter_id)
    try:
        yield "retry: 2000\n\n"
        quiet = 0.0
        first = True
        while not notifier.stopping:
            wake.clear()
            holds = True if first or alive is None else await asyncio.to_thread(alive)
            if holds is None:
                return  # the Host changed the seat: the page reconnects as it is now (W-28)
            if not holds:
                yield REVOKED
                return
            first = False
            before = after
            records, after = await asyncio.to_thread(read_after, after)
            for record in records:
                quiet = 0.0
                yield sse(record)
            if after > (records[-1]["revision"] if records else before):
                quiet = 0.0
                yield moved(after)  # hidden records only: the state moved all the same
            for event in await asyncio.to_thread(extra) if extra is not None else ():
                quiet = 0.0
                yield event
            wait = keepalive if notifier.watched else poll() if callable(poll) else poll
            try:
                await asyncio.wait_for(wake.wait(), wait)
            except TimeoutError:
                quiet += wait
            if notifier.stopping:
                return  # the server stops: end the response so that it can (W-27)
            if quiet >= keepalive:
                quiet = 0.0
                yield ": keep-alive\n\n"
    finally:
        notifier.unsubscribe(encounter_id, wake)


async def watch(
    notifier: Notifier, read_revisions: ReadRevisions, poll: Callable[[], float]
) -> None:
    """Wake the streams of every encounter whose stored revision moved (runs until cancelled).

    Every ``poll()`` seconds one read gives the revisions of all the encounters with open
    streams; an encounter seen for the first time is woken too (a record may have come between
    its stream's first read and this one). A failed read is logged and tried again next time.
    """
    known: Mapping[int, object] = {}
    notifier.watched = True
    try:
        while True:
            await asyncio.sleep(poll())
            watched = notifier.encounters()
            if not watched:
                known = {}
                continue
            try:
                revisions = await asyncio.to_thread(read_revisions, watched)
            except Exception as error:  # the database may be away for a while
                LOG.warning("Reading the live encounters' revisions failed: %s", error)
                continue
            for encounter_id, revision in revisions.items():
                if known.get(encounter_id) != revision:
                    notifier.publish(encounter_id)
            known = revisions
    finally:
        notifier.watched = False
