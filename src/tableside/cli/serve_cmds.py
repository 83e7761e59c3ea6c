"""``tableside serve``: run the live web table (FastAPI on uvicorn).

One server process serves SQLite: SQLite lets one writer at a time into the file, so a second
process adds waiting, not throughput, and its live streams would see the other's records only
by their 1-second poll. On PostgreSQL ``--workers N`` starts N processes on one port (uvicorn's
workers, each building the app with :func:`tableside.web.create_app` from
``TABLESIDE_DATABASE_URL``); every committed record reaches the streams of all of them by
LISTEN/NOTIFY.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tableside.errors import TablesideError

if TYPE_CHECKING:  # the web stack loads only when serving, keeping the other commands quick
    from tableside.web.demo import DemoLinks
    from tableside.web.table import WebTable

GRACE = 2  # seconds open streams get to end when the server stops (they never end by themselves)
APP_FACTORY = "tableside.web.app:served_app"  # warms the simulator (F-25)
# uvicorn's access lines are logged at INFO, below the "warning" level the server runs at, so
# they were never shown: not building them spares every request the logger's call (issue 26).
QUIET_ACCESS = False


class ServeError(TablesideError):
    """Options under which the web table cannot be served."""


def demo_lines(table: WebTable, base: str) -> list[str]:
    """Create the demo table; the lines that tell the Host where the War is and who joins."""
    from tableside.web.demo import open_demo

    return war_lines(open_demo(table), base)


def war_lines(demo: DemoLinks, base: str) -> list[str]:
    """The demo War's lines: its ids, the Host's page and each seat's join link."""
    lines = [f"Demo table {demo.table_id}, War {demo.encounter_id}.",
             f"Host:   {base}{demo.host_page}"]  # fmt: skip
    return lines + [f"{name}: {base}{link}" for name, link in demo.player_links.items()]


def fight_lines(demo: DemoLinks, base: str) -> list[str]:
    """The demo fight's lines: its id, the Host's page and each seat's join link."""
    lines = [f"Realm of Strife fight {demo.fight_id} at the same table.",
             f"Host:   {base}{demo.fight_page}"]  # fmt: skip
    return lines + [f"{name}: {base}{link}" for name, link in demo.fight_links.items()]


def link_base(host: str, port: int) -> str:
    """The base of the printed links (a wildcard address is shown as loopback)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host
    return f"http://{shown}:{port}"


def shared_base(host: str, port: int, public_url: str | None) -> str:
    """The base of shared links (W-80), which the web table's pages use too.

    ``--public-url``, else the LAN address when listening on every address (W-82), else the
    printed base (the pages then use the address the Host's browser used).
    """
    from tableside.web.public import PUBLIC_URL_ENV, checked_public_url, lan_address

    if public_url is not None:
        base = checked_public_url(public_url)
    elif host in ("0.0.0.0", "::", "") and (found := lan_address()) is not None:
        base = f"http://{found}:{port}"
    else:
        return link_base(host, port)
    os.environ[PUBLIC_URL_ENV] = base
    return base


def require_free(host: str, port: int) -> None:
    """Refuse an address the server could not listen on, before anything is created."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise ServeError(f"Cannot listen on host {host!r}: no such address.") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            why = "it is in use" if error.errno == errno.EADDRINUSE else error.strerror
            raise ServeError(f"Cannot listen on {host}:{port}: {why}.") from None


def require_postgresql(url: str | None, workers: int) -> None:
    """Refuse several processes on SQLite (see the module's docstring), opening nothing."""
    from tableside.store.url import resolve_url, shown

    target = resolve_url(url)
    if target.get_backend_name() != "postgresql":
        raise ServeError(
            f"--workers {workers} needs PostgreSQL (set TABLESIDE_DATABASE_URL, no --db): on "
            f"SQLite ({shown(target)}) one process serves, since its writers take turns in one "
            "file and other processes' records would reach live pages only by polling."
        )


LIMIT_HELP = {
    "tables_per_minute": "Tables one address may create per minute",
    "max_combatants": "Combatants per encounter",
    "max_seats": "Player seats per table",
    "max_encounters": "Encounters per table",
    "max_body_bytes": "Bytes of one request body",
    "streams_per_token": "Live streams one token may hold open",
    "max_streams": "Live streams open in one server process",
    "tables_per_hour": "Tables one address may create per hour",
    "seats_per_minute": "Player seats one address may add per minute",
    "streams_per_address": "Live streams one address may hold open",
    "streams_per_table": "Live streams one table's players may hold open",
    "commands_per_minute": "Commands one token may send per minute",
    "table_commands_per_minute": "Commands one table may get per minute",
    "address_commands_per_minute": "Commands one address may send per minute",
    "chat_per_minute": "Chat messages and rolls one token may post per minute",
    "table_chat_per_minute": "Chat messages and rolls one table may get per minute",
}


def limit_option(name: str) -> Any:
    """A ``--max-...`` option of ``serve`` that sets its limit's environment variable (W-13)."""
    from tableside.web_limits import ENV, Limits

    default = getattr(Limits(), name)
    words = f"{LIMIT_HELP[name]} (default {default}, or ${ENV[name]})."
    return typer.Option(f"--{name.replace('_', '-')}", help=words)


def apply_limits(values: dict[str, int | None]) -> None:
    """Put the limits given as options into the environment, where every worker reads them."""
    from tableside.web_limits import ENV

    for name, value in values.items():
        if value is not None:
            os.environ[ENV[name]] = str(value)


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    db: Annotated[str | None, typer.Option(help="SQLite file (default: as the CLI).")] = None,
    demo: Annotated[bool, typer.Option(help="Create a demo table and print its links.")] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes on the port (PostgreSQL only: TABLESIDE_DATABASE_URL).",
        ),
    ] = 1,
    tables_per_minute: Annotated[int | None, limit_option("tables_per_minute")] = None,
    max_combatants: Annotated[int | None, limit_option("max_combatants")] = None,
    max_seats: Annotated[int | None, limit_option("max_seats")] = None,
    max_encounters: Annotated[int | None, limit_option("max_encounters")] = None,
    max_body_bytes: Annotated[int | None, limit_option("max_body_bytes")] = None,
    streams_per_token: Annotated[int | None, limit_option("streams_per_token")] = None,
    max_streams: Annotated[int | None, limit_option("max_streams")] = None,
    tables_per_hour: Annotated[int | None, limit_option("tables_per_hour")] = None,
    seats_per_minute: Annotated[int | None, limit_option("seats_per_minute")] = None,
    streams_per_address: Annotated[int | None, limit_option("streams_per_address")] = None,
    streams_per_table: Annotated[int | None, limit_option("streams_per_table")] = None,
    commands_per_minute: Annotated[int | None, limit_option("commands_per_minute")] = None,
    table_commands_per_minute: Annotated[
        int | None, limit_option("table_commands_per_minute")
    ] = None,
    address_commands_per_minute: Annotated[
        int | None, limit_option("address_commands_per_minute")
    ] = None,
    chat_per_minute: Annotated[int | None, limit_option("chat_per_minute")] = None,
    table_chat_per_minute: Annotated[int | None, limit_option("table_chat_per_minute")] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="The address the group's phones reach this server at, for join links and QR "
            "codes (default: the LAN address when --host is 0.0.0.0)."
        ),
    ] = None,
) -> None:
    """Serve the web table: Host and players around one fight, live in the browser.

    The limits (docs/security.md, W-13) default to their environment variables, else to the
    built-in defaults; an option given here overrides both, for every worker.
    """
    apply_limits({"tables_per_minute": tables_per_minute, "max_combatants": max_combatants,
                  "max_seats": max_seats, "max_encounters": max_encounters,
                  "max_body_bytes": max_body_bytes, "streams_per_token": streams_per_token,
                  "max_streams": max_streams, "tables_per_hour": tables_per_hour,
                  "seats_per_minute": seats_per_minute,
                  "streams_per_address": streams_per_address,
                  "streams_per_table": streams_per_table,
                  "commands_per_minute": commands_per_minute,
                  "table_commands_per_minute": table_commands_per_minute,
                  "address_commands_per_minute": address_commands_per_minute,
                  "chat_per_minute": chat_per_minute,
                  "table_chat_per_minute": table_chat_per_minute})  # fmt: skip
    url = None if db is None else f"sqlite:///{db}"
    if workers > 1:
        require_postgresql(url, workers)
    require_free(host, port)
    base = shared_base(host, port, public_url)
    if workers == 1:
        serve_one(url, host, port, base, demo)
    else:
        serve_workers(url, host, port, base, demo, workers)


def serve_one(url: str | None, host: str, port: int, base: str, demo: bool) -> None:
    """One server process: the app built here, its store open until the server stops."""
    import uvicorn

    from tableside.web import collector, create_app

    # the simulator warmed after the start (F-25), in a balance process of its own (W-76)
    app = create_app(url, warm=True, apart=True, collect_every=collector.COLLECT_EVERY)
    announce(app.state.table, base, demo, 1)
    collector.tune()  # start-up frozen (W-27), the oldest generation walked on a timer (SV-14)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=QUIET_ACCESS,
                timeout_graceful_shutdown=GRACE, **server_options())  # fmt: skip


def serve_workers(
    url: str | None, host: str, port: int, base: str, demo: bool, workers: int
) -> None:
    """Several worker processes on one port, each building the app from the environment."""
    import uvicorn

    from tableside.store import Store
    from tableside.web.table import WebTable

    with Store.open(url) as store:  # migrated once here, before the workers race to
        announce(WebTable(store), base, demo, workers)
    uvicorn.run(APP_FACTORY, factory=True, workers=workers, host=host, port=port,
                log_level="warning", access_log=QUIET_ACCESS, timeout_graceful_shutdown=GRACE,
                **server_options())  # fmt: skip


def server_options(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Uvicorn's options of W-50: no ``server`` header, and whose ``X-Forwarded-For`` counts.

    The header is trusted only from the proxies ``TABLESIDE_TRUSTED_PROXIES`` names
    (comma-separated addresses), else never, so that a client cannot pick the address its
    limits count against.
    """
    source = os.environ if environ is None else environ
    proxies = source.get("TABLESIDE_TRUSTED_PROXIES", "").strip()
    if not proxies:
        return {"server_header": False, "proxy_headers": False}
    return {"server_header": False, "proxy_headers": True, "forwarded_allow_ips": proxies}


def setup_lines(demo: DemoLinks, base: str) -> list[str]:
    """The Host's table page, where encounters, seats and characters are added."""
    token = demo.host_page.partition("?token=")[2]
    return ["Add encounters, players and characters on the table's page (the Host's only):",
            f"Host table: {base}/tables/{demo.table_id}?token={token}"]  # fmt: skip


def announce(table: WebTable, base: str, demo: bool, workers: int) -> None:
    """Print where the table is served and, with ``demo``, create it and print its links."""
    from tableside.web.demo import open_demo

    processes = f", {workers} processes" if workers > 1 else ""
    typer.echo(f"Tableside web table on {base} (store {table.store.url}{processes})")
    if demo:
        made = open_demo(table)
        lines = [
            "",
            *war_lines(made, base),
            "",
            *fight_lines(made, base),
            "",
            *setup_lines(made, base),
        ]
        for line in [*lines, ""]:
            typer.echo(line)
    typer.echo("Press Ctrl+C to stop.")
