"""The command daemon (issue 13, start-up): CLI-1 … CLI-4.

Every test starts a real daemon (``tableside daemon start``, a detached process) in a private
folder of its own and runs the real ``tableside`` entry point in fresh interpreters, next to the
same commands run without the daemon (``TABLESIDE_DAEMON=off``) on a copy of the same store.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tableside.cli import launch
from tableside.cli.daemon import parse_request, sources_fingerprint

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")
ENTRY = "from tableside.cli.launch import main; main()"


def run(
    folder: Path, *args: str, daemon: bool = True, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``tableside *args`` in a fresh interpreter, through the daemon of ``folder`` or not."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TABLESIDE_DAEMON_DIR": str(folder)}
    env.pop("TABLESIDE_DATABASE_URL", None)
    env["TABLESIDE_DAEMON"] = "on" if daemon else "off"
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        env=env, cwd=cwd or folder, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip


def served(folder: Path) -> int:
    """How many commands the daemon of ``folder`` has run (its answer to a ping)."""
    answer = control(folder, {"ping": True})
    assert answer is not None, "the daemon answers"
    count = answer["served"]
    assert isinstance(count, int)
    return count


def control(folder: Path, message: Mapping[str, object]) -> dict[str, object] | None:
    """Send ``message`` to the daemon's socket; its JSON answer, or None when nothing answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(str(folder / launch.SOCKET_NAME))
            conn.sendall(json.dumps(message).encode())
            conn.shutdown(socket.SHUT_WR)
            answer = json.loads(launch.read_all(conn))
    except OSError:
        return None
    assert isinstance(answer, dict)
    return answer


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A private folder for the daemon's socket; any daemon left there is stopped at the end."""
    place = tmp_path / "daemon"
    place.mkdir(mode=0o700)
    yield place
    run(place, "daemon", "stop", daemon=False)


def start(folder: Path, *options: str) -> None:
    """Start the daemon of ``folder``."""
    done = run(folder, "daemon", "start", *options, daemon=False)
    assert done.returncode == 0, done.stderr
    assert "is running" in done.stdout


def stored_war(folder: Path) -> Path:
    """A stored War with two combatants, the first Turn begun (made without the daemon)."""
    db = folder / "war.db"
    for args in (
        ("war", "new", "Daemon", "--seed", "5"),
        ("war", "add", "1", "--character", HERALD, "--id", "Herald"),
        ("war", "add", "1", "--character", WARRIOR, "--id", "Warrior", "--at", "2,0,0"),
        ("war", "next", "1"),
    ):
        done = run(folder, *args, "--db", str(db), daemon=False)
        assert done.returncode == 0, done.stderr
    return db


COMMANDS: list[tuple[str, ...]] = [
    ("war", "show", "1"),
    ("war", "strike", "1", "Herald", "Warrior"),
    ("war", "next", "1"),
    ("war", "log", "1"),
    ("war", "show", "99"),  # our refusal: one sentence, exit 2
    ("war", "show", "x"),  # Typer's refusal, with its usage line
    ("war", "strike", "1", "Herald", "Nobody"),
    ("war", "undo", "1"),
    ("war", "show", "1"),
    ("war", "--help"),
]


def test_cli1_the_daemon_answers_as_the_command_does_in_its_own_process(folder: Path) -> None:
    """CLI-1: the same output, errors and exit codes, byte for byte, in the client's folder."""
    db = stored_war(folder)
    shutil.copyfile(db, folder / "copy.db")
    start(folder)
    before = served(folder)
    for command in COMMANDS:
        here = run(folder, *command, "--db", "copy.db", daemon=False)
        there = run(folder, *command, "--db", "war.db")  # a relative path: the client's folder
        assert (there.returncode, there.stdout, there.stderr) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), command
    assert served(folder) == before + len(COMMANDS)
    codes = {run(folder, *c, "--db", "war.db").returncode for c in COMMANDS[4:6]}
    assert codes == {2}


def test_cli1_the_client_environment_is_the_command_environment(folder: Path) -> None:
    """CLI-1: the store named by the client's environment is the one used (not the daemon's)."""
    db = stored_war(folder)
    start(folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TABLESIDE_DAEMON_DIR": str(folder)}
    env["TABLESIDE_DATABASE_URL"] = f"sqlite:///{db}"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "war", "show", "1"],
        env=env, cwd=folder, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Herald" in done.stdout
    assert served(folder) == 1


def test_cli2_only_the_routed_groups_go_to_the_daemon(folder: Path) -> None:
    """CLI-2: ``serve``, ``simulate`` and ``daemon`` always run in their own process."""
    assert {"serve", "simulate", "daemon"}.isdisjoint(launch.ROUTED)
    assert {"war", "fight", "majesty", "odds"} <= launch.ROUTED
    start(folder)
    assert run(folder, "simulate", "--help").returncode == 0
    assert run(folder, "--help").returncode == 0
    assert served(folder) == 0
    assert run(folder, "majesty", "--help").returncode == 0
    assert served(folder) == 1


def test_cli3_a_folder_others_can_enter_is_not_used(folder: Path) -> None:
    """CLI-3: with the socket's folder open to others, the client runs the command itself."""
    db = stored_war(folder)
    start(folder)
    folder.chmod(0o755)
    try:
        done = run(folder, "war", "show", "1", "--db", str(db))
        assert done.returncode == 0, done.stderr
        assert not launch.private(folder)
    finally:
        folder.chmod(0o700)
    assert served(folder) == 0
    other = folder.parent / "open"
    other.mkdir(mode=0o777)
    other.chmod(0o777)
    opened = run(other, "daemon", "start", daemon=False)
    assert opened.returncode == 2
    assert opened.stderr.startswith("error: The daemon's folder")
    assert opened.stderr[-1] == "\n" and opened.stderr.count("\n") == 1


def test_cli4_changed_sources_make_the_daemon_stale(folder: Path, tmp_path: Path) -> None:
    """CLI-4: a changed source file: the command runs in the client and the daemon stops."""
    db = stored_war(folder)
    watched = tmp_path / "watched"
    watched.mkdir()
    (watched / "rules.py").write_text("X = 1\n")
    start(folder, "--watch", str(watched))
    assert run(folder, "war", "show", "1", "--db", str(db)).returncode == 0
    assert served(folder) == 1
    (watched / "rules.py").write_text("X = 22\n")
    done = run(folder, "war", "show", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "Herald" in done.stdout
    assert control(folder, {"ping": True}) is None  # it stopped
    assert run(folder, "daemon", "status", daemon=False).returncode == 1


def test_cli4_a_client_of_other_sources_is_not_answered(folder: Path) -> None:
    """CLI-4: a request from another interpreter or checkout gets no command run."""
    start(folder)
    request = {"argv": ["war", "--help"], "cwd": str(folder), "env": {}, "runs": ["x", "y"]}
    assert control(folder, request) == {"other": True}
    assert served(folder) == 0
    request["runs"] = launch.running_code()
    answer = control(folder, request)
    assert answer is not None and answer["code"] == 0 and "strike" in str(answer["stdout"])


def test_cli1_a_malformed_request_is_refused_and_the_daemon_goes_on(folder: Path) -> None:
    """A request that is not a command line gets one sentence, exit code 2, nothing run."""
    start(folder)
    for bad, says in (
        ({"argv": "war show 1", "cwd": "/", "env": {}}, "argv must be a list of strings"),
        ({"argv": [], "cwd": "/nowhere/at/all", "env": {}}, "does not exist"),
        ({"argv": [], "cwd": "/", "env": {"A": 1}}, "env must map strings to strings"),
    ):
        answer = control(folder, bad)
        assert answer is not None and answer["code"] == 2
        assert says in str(answer["stderr"])
    assert served(folder) == 0
    with pytest.raises(ValueError, match="a request must be a JSON object"):
        parse_request(b"[1, 2]")


def test_cli4_the_daemon_stops_when_idle(folder: Path) -> None:
    """CLI-4: after ``--idle`` seconds without a command the daemon exits and removes its socket."""
    start(folder, "--idle", "1")
    deadline = time.monotonic() + 30
    while control(folder, {"ping": True}) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert control(folder, {"ping": True}) is None
    assert not (folder / launch.SOCKET_NAME).exists()


def test_daemon_start_stop_status(folder: Path) -> None:
    """``daemon start`` twice starts one; ``status`` says so; ``stop`` ends it."""
    assert run(folder, "daemon", "status", daemon=False).returncode == 1
    start(folder)
    again = run(folder, "daemon", "start", daemon=False)
    assert again.returncode == 0 and "already running" in again.stdout
    status = run(folder, "daemon", "status", daemon=False)
    assert status.returncode == 0 and "is running" in status.stdout
    stopped = run(folder, "daemon", "stop", daemon=False)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert run(folder, "daemon", "stop", daemon=False).stdout.startswith("No command daemon")
    bad = run(folder, "daemon", "start", "--idle", "0", daemon=False)
    assert bad.returncode == 2 and bad.stdout == ""


def test_the_entry_point_loads_only_the_standard_library() -> None:
    """The client half imports no Typer, pydantic, Rich nor rules (that is its point)."""
    code = "import sys, tableside.cli.launch; print(sorted(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stdout.replace("'", '"'))
    heavy = [m for m in modules if m.split(".")[0] in {"typer", "pydantic", "rich", "click"}]
    assert heavy == []
    assert [m for m in modules if m.startswith("tableside")] == [
        "tableside",
        "tableside.cli",
        "tableside.cli.launch",
    ]


def test_cli4_fingerprint_follows_every_source_file(tmp_path: Path) -> None:
    """CLI-4: adding, changing or removing a ``.py`` file changes the fingerprint."""
    (tmp_path / "a.py").write_text("A = 1\n")
    first = sources_fingerprint([tmp_path])
    (tmp_path / "b.py").write_text("B = 1\n")
    second = sources_fingerprint([tmp_path])
    (tmp_path / "a.py").write_text("A = 10\n")
    third = sources_fingerprint([tmp_path])
    (tmp_path / "b.py").unlink()
    assert len({first, second, third, sources_fingerprint([tmp_path])}) == 4
