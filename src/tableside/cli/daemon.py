"""The command daemon: one process that keeps the command line loaded and runs the commands sent.

``tableside daemon start`` runs :func:`serve` in a detached process; :mod:`tableside.cli.launch`
is its client. The readings (docs in the README, "The command daemon"):

- CLI-1: a command run by the daemon answers exactly as in its own process: same standard
  output, standard error and exit code, in the client's working folder and environment. One
  command runs at a time.
- CLI-2: only the groups in ``launch.ROUTED`` are sent to it.
- CLI-3: the socket lives in a folder only its user can enter, and the daemon answers only
  connections from its own user (``SO_PEERCRED``).
- CLI-4: the daemon watches the files of the sources it loaded; when one changes it answers
  *stale* (the client runs the command itself) and exits. It also exits after ``idle`` seconds
  without a command.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import struct
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from tableside.cli.launch import SOCKET_NAME, private, read_all, running_code

REQUEST_LIMIT = 16 * 1024 * 1024  # bytes of one request (a command line and an environment)
READ_SECONDS = 10.0  # the longest a client may take to send its request or read the answer


def sources_fingerprint(roots: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """The path, size and modification time of every Python file under ``roots`` (CLI-4)."""
    found: list[tuple[str, int, int]] = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            info = path.stat()
            found.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(found)


def package_root() -> Path:
    """The folder of the ``tableside`` package this daemon runs."""
    return Path(__file__).resolve().parents[1]


def peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (Linux ``SO_PEERCRED``)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


@contextlib.contextmanager
def client_context(cwd: str, env: dict[str, str], argv: list[str]) -> Iterator[None]:
    """Run the body in the client's folder, environment and command line, then restore ours.

    ``argv`` is the client's whole ``sys.argv``: its first item names the program in usage
    lines, as Click reads it (the daemon runs under ``-c``, so Click looks no further).
    """
    saved_cwd, saved_env, saved_argv = os.getcwd(), dict(os.environ), sys.argv
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(argv)
    try:
        yield
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)


def run_command(argv: list[str], cwd: str, env: dict[str, str]) -> dict[str, object]:
    """Run one command as ``tableside.cli.app.main`` would, capturing its output (CLI-1)."""
    from tableside.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    redirected = contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)
    with client_context(cwd, env, argv), redirected[0], redirected[1]:
        try:
            main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            if isinstance(done.code, str):
                err.write(done.code + "\n")
        except Exception:  # the same traceback and code as an uncaught error in process
            traceback.print_exc(file=err)
            code = 1
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def parse_request(raw: bytes) -> tuple[list[str], str, dict[str, str], object]:
    """The whole command line, folder, environment and code of a request (ValueError if bad)."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("a request must be a JSON object")
    argv, cwd, env = data.get("argv"), data.get("cwd"), data.get("env")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
        raise ValueError("argv must be a list of strings")
    argv = [str(data.get("prog", "tableside")), *argv]
    if not isinstance(cwd, str) or not isinstance(env, dict):
        raise ValueError("cwd must be a string and env an object")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ValueError("env must map strings to strings")
    if not os.path.isdir(cwd):
        raise ValueError(f"the working folder {cwd!r} does not exist")
    return argv, cwd, env, data.get("runs")


class Daemon:
    """The listening daemon: its socket, the sources it watches and when it was last used."""

    def __init__(self, folder: Path, watch: list[Path], idle: float) -> None:
        """Bind the socket in ``folder`` (made private if new) and note the sources' state."""
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not private(folder):
            raise PermissionError(f"{folder} is not a folder only this user can enter")
        self.path = folder / SOCKET_NAME
        self.watch = watch
        self.fingerprint = sources_fingerprint(watch)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self.sock.listen(16)
        self.idle = idle
        self.last_command = time.monotonic()  # a ping or a control message is not a command
        self.served = 0  # commands run (a ping tells it)

    def serve(self) -> None:
        """Answer commands one at a time until stopped, stale or idle; then remove the socket."""
        try:
            while self.serve_one():
                pass
        finally:
            self.sock.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def serve_one(self) -> bool:
        """Answer one connection; False when the daemon should stop."""
        left = self.last_command + self.idle - time.monotonic()
        if left <= 0:
            return False  # idle
        self.sock.settimeout(left)
        try:
            conn, _ = self.sock.accept()
        except TimeoutError:
            return False  # idle
        with conn:
            if peer_uid(conn) != os.getuid():
                return True  # CLI-3: not ours; say nothing
            try:
                conn.settimeout(READ_SECONDS)  # a client that never finishes its request
                raw = read_all(conn)[:REQUEST_LIMIT]
                answer, go_on = self.answer(raw)
                conn.settimeout(READ_SECONDS)
                conn.sendall(json.dumps(answer).encode())
            except OSError:
                return True  # the client went away or stalled: nothing was run for it
        return go_on

    def answer(self, raw: bytes) -> tuple[dict[str, object], bool]:
        """The answer to one request, and whether to go on serving after it."""
        if raw.strip() == b'{"stop": true}':
            return {"stopped": True}, False
        if raw.strip() == b'{"ping": true}':
            return {"pid": os.getpid(), "served": self.served}, True
        if sources_fingerprint(self.watch) != self.fingerprint:
            return {"stale": True}, False  # CLI-4: the client runs it itself; we stop
        try:
            argv, cwd, env, runs = parse_request(raw)
        except ValueError as error:
            return {"code": 2, "stdout": "", "stderr": f"error: {error}\n"}, True
        if runs != running_code():
            return {"other": True}, True  # CLI-4: another interpreter or checkout
        self.served += 1
        answer = run_command(argv, cwd, env)
        self.last_command = time.monotonic()
        return answer, True


def main() -> None:
    """``tableside.cli.daemon.main FOLDER IDLE [WATCH…]``: what ``daemon start`` spawns."""
    # Under ``-c`` the first path entry is the working folder, which follows each client (a
    # module there would shadow ours): imports come from the installed paths only.
    sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]
    folder, idle = Path(sys.argv[1]), float(sys.argv[2])
    watch = [package_root(), *(Path(p) for p in sys.argv[3:])]
    warm_up()
    Daemon(folder, watch, idle).serve()


def warm_up() -> None:
    """Import what the routed commands use, once, before serving (the point of the daemon)."""
    from tableside.cli.app import build_app
    from tableside.service import GAMES

    build_app("*")  # every command group and its options' bounds (Typer, pydantic, Rich)
    for make_game in GAMES.values():
        make_game()  # the rules of both games
    import tableside.store.lite  # noqa: F401  (the SQLite path of the stored commands)


if __name__ == "__main__":
    main()
