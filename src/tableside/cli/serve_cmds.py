"""``tableside serve``: run the live web table (FastAPI on uvicorn)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # the web stack loads only when serving, keeping the other commands quick
    from tableside.web.table import WebTable


def demo_lines(table: WebTable, base: str) -> list[str]:
    """Create the demo table and the lines that tell the Host where to go."""
    from tableside.web.demo import create_demo

    demo = create_demo(table)
    lines = [f"Demo table {demo.table_id}, War {demo.encounter_id}.",
             f"Host:   {base}{demo.host_page}"]  # fmt: skip
    lines += [f"{name}: {base}{link}" for name, link in demo.player_links.items()]
    return lines


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[str | None, typer.Option(help="SQLite file (default: as the CLI).")] = None,
    demo: Annotated[bool, typer.Option(help="Create a demo table and print its links.")] = False,
) -> None:
    """Serve the web table: Host and players around one fight, live in the browser."""
    import uvicorn

    from tableside.web import create_app

    app = create_app(None if db is None else f"sqlite:///{db}")
    table: WebTable = app.state.table
    typer.echo(f"Tableside web table on http://{host}:{port} (store {table.store.url})")
    if demo:
        for line in demo_lines(table, f"http://{host}:{port}"):
            typer.echo(line)
    uvicorn.run(app, host=host, port=port, log_level="warning")
