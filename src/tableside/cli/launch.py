"""The ``tableside`` entry point: hand the command to a running command daemon, else run it here.

A War command run in a fresh interpreter spends most of its time importing (Typer, pydantic,
Rich and the rules): about 0.7 s on a 2-core machine before issue 13 trimmed it, and no lazier
import brings it under 0.3 s because Typer and the rules' argument models need pydantic. The
command daemon (``tableside daemon start``, ``docs/cli.md``) keeps those imports loaded: this
module, which imports only the standard library, sends it the command line, the working folder
and the environment over a private Unix socket and prints what it answers. With no daemon, a
daemon started from other sources or whose sources changed since (it answers *stale*), a
socket folder that other
users could write, or ``TABLESIDE_DAEMON=off``, the command runs in this process exactly as
before (CLI-1 … CLI-4).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import sys
from pathlib import Path

# Command groups the daemon runs (CLI-2). ``serve`` and ``simulate`` (long-running, their own
# processes and progress bars) and ``daemon`` itself always run here.
ROUTED = frozenset({"war", "fight", "majesty", "strife", "odds", "character"})
SOCKET_NAME = "cli.sock"
CONNECT_TIMEOUT = 0.5  # seconds to reach the daemon before running the command here
ANSWER_LIMIT = 64 * 1024 * 1024  # bytes of one answer (a War's whole log fits easily)


def socket_folder() -> Path:
    """The daemon's private folder: ``TABLESIDE_DAEMON_DIR``, else the user's runtime folder.

    ``$XDG_RUNTIME_DIR/tableside`` when the session has one, else ``/tmp/tableside-<uid>``.
    """
    chosen = os.environ.get("TABLESIDE_DAEMON_DIR")
    if chosen:
        return Path(chosen)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "tableside"
    return Path(f"/tmp/tableside-{os.getuid()}")


def private(folder: Path) -> bool:
    """Whether ``folder`` is a real folder owned by this user that nobody else can enter (CLI-3)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) & 0o077 == 0
    )


def request(argv: list[str]) -> dict[str, object]:
    """What the client sends: the command line, where it runs and its environment (CLI-1).

    When this process writes to a terminal, the daemon cannot see it: ``FORCE_COLOR`` and the
    terminal's ``COLUMNS`` are passed so that Rich draws as it would here.
    """
    env = dict(os.environ)
    if sys.stdout.isatty():
        env.setdefault("FORCE_COLOR", "1")
        with contextlib.suppress(OSError):
            env.setdefault("COLUMNS", str(os.get_terminal_size(sys.stdout.fileno()).columns))
    return {
        "argv": argv,
        "prog": sys.argv[0],
        "cwd": os.getcwd(),
        "env": env,
        "runs": running_code(),
    }


def running_code() -> list[str]:
    """The interpreter and the ``tableside`` package folder of this process (CLI-4).

    A daemon serves only clients of the same interpreter and sources: another checkout's
    ``tableside`` never gets answers computed by this one's rules.
    """
    return [sys.executable, str(Path(__file__).resolve().parents[1])]


def exchange(message: dict[str, object], timeout: float | None) -> dict[str, object] | None:
    """Send ``message`` to this user's daemon and read its JSON answer; None when none answers.

    Args:
        message: The request (a command) or a control message (``ping``, ``stop``).
        timeout: Seconds allowed for the answer (None: as long as the command takes); reaching
            the daemon is always allowed only ``CONNECT_TIMEOUT``.
    """
    folder = socket_folder()
    if not private(folder):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            conn.connect(str(folder / SOCKET_NAME))
            conn.settimeout(timeout)
            conn.sendall(json.dumps(message).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            reply = json.loads(read_all(conn))
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) else None


def ask_daemon(argv: list[str]) -> int | None:
    """Run ``argv`` on the daemon and print its answer; None when it cannot (run it here)."""
    reply = exchange(request(argv), None)  # a command may take as long as it takes
    code = reply.get("code") if reply is not None else None
    if reply is None or not isinstance(code, int):  # none answers, stale, or other sources
        return None
    sys.stdout.write(str(reply.get("stdout", "")))
    sys.stdout.flush()
    sys.stderr.write(str(reply.get("stderr", "")))
    sys.stderr.flush()
    return code


def read_all(conn: socket.socket) -> bytes:
    """Every byte the peer sends until it closes (at most ``ANSWER_LIMIT``)."""
    chunks: list[bytes] = []
    size = 0
    while chunk := conn.recv(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > ANSWER_LIMIT:
            raise OSError(f"the daemon's answer is over {ANSWER_LIMIT} bytes")
    return b"".join(chunks)


def main() -> None:
    """``tableside …``: through the daemon when one runs for these sources, else in process."""
    argv = sys.argv[1:]
    if argv and argv[0] in ROUTED and os.environ.get("TABLESIDE_DAEMON", "").lower() != "off":
        code = ask_daemon(argv)
        if code is not None:
            sys.exit(code)
    from tableside.cli.app import main as run_here

    run_here()
