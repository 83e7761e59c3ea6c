"""How long a test waits for what a passing run sees at once (issue 23: deterministic under load).

A test waits on the event itself (a record on a stream, a page element, a process's answer), and
these are only its ceilings: a passing run never waits them out, however long they are. They are
generous because the suite runs on both cores of a two-core machine, often beside other work, and
a starved thread, browser renderer or child process can stall for many seconds; a ceiling near the
idle time made three tests fail at load 9–11 (a 5 s stream wait, a 15 s page load). Checks that
measure promptness itself (a pushed record well within a second) keep their own bounds.
"""

from __future__ import annotations

EVENT_WAIT = 60.0
"""Seconds to wait for a stream event, a queued arrival or an HTTP answer a passing run gets in
milliseconds."""

PAGE_WAIT = 60.0
"""Seconds a browser test waits for a page to load or an element to show what it should."""

PROCESS_WAIT = 60.0
"""Seconds to wait for a child process (a CLI command) that answers within a second or two idle."""
