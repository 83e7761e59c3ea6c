"""Ctrl+C stops ``tableside serve`` cleanly while pages hold live streams open (W-27).

A real server subprocess serves the demo; a client opens a live stream (as an open fight page
does) and reads its first event; SIGINT then stops the server within a few seconds, with exit
code 0, no traceback on its error output, and the stream ended by the server.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

from ports import free_port
from test_serve import STARTUP, TABLESIDE, get, links

RETRY = b"retry: 2000\n\n"
STOPPED_WITHIN = 20.0  # seconds from SIGINT to exit (about 0.5 s measured idle; a starved machine
# takes longer, a stream left hanging would take the 30 s poll or forever)


def test_w27_ctrl_c_with_a_live_stream_open_exits_at_once_with_code_0(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [TABLESIDE, "serve", "--demo", "--port", str(port), "--db", str(tmp_path / "d.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        lines: list[str] = []
        deadline = time.monotonic() + STARTUP
        while not lines or lines[-1] != "Press Ctrl+C to stop.":
            line = proc.stdout.readline()
            assert line and time.monotonic() < deadline, lines
            lines.append(line.rstrip("\n"))
        host_page = dict(links(lines))["Host"]
        get(f"http://127.0.0.1:{port}/")  # the port is bound
        parts = urlsplit(host_page)
        token = parts.query.removeprefix("token=")
        encounter = parts.path.rsplit("/", 1)[1]
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        stream.request("GET", f"/api/encounters/{encounter}/stream",
                       headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        answer = stream.getresponse()
        assert answer.status == 200
        assert answer.read(len(RETRY)) == RETRY  # the stream is open and sending
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
        assert proc.returncode == 0, err
        assert took < STOPPED_WITHIN, (took, err)
        assert "Traceback" not in err and "CancelledError" not in err, err
        assert "timeout graceful shutdown exceeded" not in err, err
        rest = answer.read()  # the server ended the stream: no hang, no reset
        assert isinstance(rest, bytes)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
