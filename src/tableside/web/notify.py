"""PostgreSQL fan-out between server processes: LISTEN for the store's append announcements.

Every append committed on PostgreSQL sends ``NOTIFY tableside_encounter, '<id>:<revision>'``
(in the append's own transaction, see :mod:`tableside.store.db`), whichever process, or the
command line, wrote it. :class:`Listener` keeps one connection of its own on ``LISTEN
tableside_encounter`` in a background thread and wakes the open streams of each announced
encounter in this process through the :class:`~tableside.web.hub.Notifier`.

If the connection drops, the listener reconnects (waiting up to ``RETRY_MAX`` seconds between
tries) and then wakes every stream, since announcements made while it was away are lost; while
it is away the streams' poll still delivers every record. An announcement for an encounter of
another schema on the same database (same id, other tables) only causes one spare read.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import psycopg

from tableside.store import Store
from tableside.store.db import CHANNEL_QUERY, NOTIFY_CHANNEL
from tableside.web.hub import Notifier

log = logging.getLogger(__name__)

RETRY_MIN = 0.2
RETRY_MAX = 5.0
WAIT = 0.5  # seconds a wait for announcements lasts before the thread checks for stop()


def parse_payload(payload: str) -> int | None:
    """The encounter id of an announcement ``'<id>:<revision>'`` (None if malformed)."""
    head, _, _revision = payload.partition(":")
    try:
        return int(head)
    except ValueError:
        return None


def listen(connection: psycopg.Connection[Any]) -> str:
    """LISTEN on the channel of the connection's schema (SV-5); returns the channel's name."""
    row = connection.execute(CHANNEL_QUERY).fetchone()
    channel = str(row[0]) if row is not None else NOTIFY_CHANNEL
    connection.execute(f'LISTEN "{channel}"')  # letters, digits and _ only: no quoting issue
    return channel


class Listener:
    """LISTEN on the store's PostgreSQL database and wake this process's streams.

    Args:
        store: An open PostgreSQL store (its URL, search path included, is reused).
        notifier: The in-process fan-out to wake.
    """

    def __init__(self, store: Store, notifier: Notifier) -> None:
        if store.backend != "postgresql":
            raise ValueError(f"LISTEN/NOTIFY needs PostgreSQL, not {store.backend}.")
        engine = store.engine
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        self._args: list[Any] = list(args)
        self._kwargs: dict[str, Any] = dict(kwargs)
        self._notifier = notifier
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._connection: psycopg.Connection[Any] | None = None
        self._thread = threading.Thread(target=self._run, name="tableside-listen", daemon=True)
        self.announcements = 0
        self.connects = 0
        self.channel = NOTIFY_CHANNEL  # its schema's, once connected (SV-5)

    @property
    def connected(self) -> bool:
        """True while the LISTEN connection is up."""
        return self._connected.is_set()

    def start(self, wait: float = 5.0) -> bool:
        """Start listening; wait up to ``wait`` seconds for LISTEN to be in place.

        Returns:
            Whether it is listening (if not, it keeps trying in the background).
        """
        self._thread.start()
        return self._connected.wait(wait)

    def stop(self) -> None:
        """Stop listening and close the connection (returns within about ``WAIT`` seconds)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(WAIT * 4 + 1)

    def backend_pid(self) -> int | None:
        """The PostgreSQL backend process of the LISTEN connection (for tests)."""
        connection = self._connection
        return None if connection is None else int(connection.info.backend_pid)

    def _run(self) -> None:
        retry = RETRY_MIN
        while not self._stop.is_set():
            try:
                self._listen()
                retry = RETRY_MIN
            except psycopg.Error as error:
                if self._stop.is_set():
                    break
                log.warning("LISTEN %s lost (%s); retrying in %.1f s", self.channel, error, retry)
            finally:
                self._connected.clear()
            self._stop.wait(retry)
            retry = min(RETRY_MAX, retry * 2)

    def _listen(self) -> None:
        with psycopg.connect(*self._args, **self._kwargs, autocommit=True) as connection:
            self.channel = listen(connection)
            self._connection = connection
            self.connects += 1
            self._connected.set()
            self._notifier.publish_all()  # anything announced while not listening was missed
            try:
                while not self._stop.is_set():
                    # notifications that arrive between two calls wait in psycopg's backlog
                    for notify in connection.notifies(timeout=WAIT):
                        self._announced(notify)
            finally:
                self._connection = None

    def _announced(self, notify: psycopg.Notify) -> None:
        encounter_id = parse_payload(notify.payload)
        if encounter_id is not None:
            self.announcements += 1
            what = notify.payload.partition(":")[2]
            for hook in self._notifier.heard:  # e.g. a ping taken by another process (W-67)
                try:
                    hook(encounter_id, what)
                except Exception:  # a malformed announcement must not end the listener
                    log.warning("An announcement could not be read: %.80r", notify.payload)
            self._notifier.publish(encounter_id)
