"""Writing results: JSON or Rich text on standard output."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Rich is imported when text is printed (``--json`` never loads it)
    from pathlib import Path

    from rich.console import RenderableType


def print_json(data: dict[str, Any]) -> None:
    """Print JSON on standard output."""
    print(json.dumps(data, indent=2, ensure_ascii=False))


def write_document(document: Any, out: Path | None) -> None:
    """An exported document as indented JSON: on standard output, or into ``out``."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    if out is None:
        print(text)
    else:
        out.write_text(text + "\n", "utf-8")


def emit(data: dict[str, Any], text: RenderableType, as_json: bool, seed: int | None) -> None:
    """Print ``data`` as JSON (with the seed recorded) or the rendered text."""
    if as_json:
        print_json({**data, "seed": seed})
        return
    from rich.console import Console

    console = Console(highlight=False)
    console.print(text)
    if seed is not None:
        console.print(f"[dim]seed {seed}[/dim]")
