"""``tableside daemon start|stop|status``: the command daemon (CLI-1 … CLI-4)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from tableside.cli.launch import exchange, private, socket_folder
from tableside.errors import TablesideError

app = typer.Typer(
    help="The command daemon: start it once and every War command answers in a fraction of the "
    "time.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

START_WAIT = 30.0  # seconds for a new daemon to answer before ``start`` gives up


class DaemonError(TablesideError):
    """The daemon could not be started or reached."""


def talk(message: dict[str, object], timeout: float = 2.0) -> dict[str, object] | None:
    """Send a control message to the running daemon; None when none answers."""
    return exchange(message, timeout)


def running_pid() -> int | None:
    """The process id of the daemon answering on this user's socket, or None."""
    answer = talk({"ping": True})
    pid = answer.get("pid") if answer else None
    return pid if isinstance(pid, int) else None


@app.command()
def start(
    idle: Annotated[
        float,
        typer.Option(min=1.0, max=604800.0, help="Seconds without a command before it stops."),
    ] = 3600.0,
    watch: Annotated[
        list[Path] | None,
        typer.Option(help="Another folder of sources whose change makes the daemon stale."),
    ] = None,
) -> None:
    """Start the daemon in the background (nothing to do when one is already running)."""
    pid = running_pid()
    if pid is not None:
        print(f"The command daemon is already running (process {pid}).")
        return
    folder = socket_folder()
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    if not private(folder):
        raise DaemonError(
            f"The daemon's folder {folder} must be owned by you and closed to others (mode 700)."
        )
    extra = [str(p.resolve()) for p in watch or []]
    serve = "from tableside.cli.daemon import main; main()"  # -c, not -m: see client_context
    args = [sys.executable, "-c", serve, str(folder), str(idle), *extra]
    process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl+C in this terminal does not stop it
        cwd=folder,
        env={**os.environ, "TABLESIDE_DAEMON": "off"},
    )
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise DaemonError(f"The daemon exited at start with code {process.returncode}.")
        if running_pid() == process.pid:
            print(f"The command daemon is running (process {process.pid}, socket {folder}).")
            return
        time.sleep(0.05)
    process.kill()
    raise DaemonError(f"The daemon did not answer within {START_WAIT:.0f} seconds.")


@app.command()
def stop() -> None:
    """Stop the running daemon (nothing to do when none runs)."""
    pid = running_pid()
    if pid is None:
        print("No command daemon is running.")
        return
    talk({"stop": True})
    print(f"The command daemon (process {pid}) stopped.")


@app.command()
def status() -> None:
    """Say whether a daemon is running; exit code 1 when none is."""
    pid = running_pid()
    if pid is None:
        print("No command daemon is running: each command starts its own process.")
        raise typer.Exit(1)
    print(f"The command daemon is running (process {pid}, socket {socket_folder()}).")
