"""``tableside character …``: characters kept in the store, validated before they are saved."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tableside.cli.encounter_cmds import opened
from tableside.cli.options import Db, Json
from tableside.cli.output import print_json, write_document
from tableside.cli.sources import read_json
from tableside.majesty.formats import character_from_data

app = typer.Typer(
    help="Characters in the store: save from a JSON file, list, show, export, import.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
GAME = "majesty"


def _load_json(file: Path, what: str) -> Any:
    return read_json(file, what)


@app.command()
def save(
    file: Annotated[
        Path, typer.Argument(help="A character file (tableside/majesty-character v1).")
    ],
    replace_id: Annotated[int | None, typer.Option("--replace", help="Overwrite this id.")] = None,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Validate a character file and save it; a bad file names the field and saves nothing."""
    document = _load_json(file, "character")
    character = character_from_data(document, str(file))
    with opened(db) as store:
        character_id = store.save_character(character.name, GAME, document, replace_id)
    if json_out:
        print_json({"id": character_id, "name": character.name})
    else:
        print(f"Character {character_id} saved: {character.name}")


@app.command("list")
def list_(db: Db = None, json_out: Json = False) -> None:
    """Every stored character."""
    with opened(db) as store:
        characters = store.list_characters()
    rows = [{"id": c.id, "name": c.name, "game": c.game} for c in characters]
    if json_out:
        print_json({"characters": rows})
    else:
        print("\n".join(f"{r['id']:>4}  {r['name']}  ({r['game']})" for r in rows) or "none")


@app.command()
def export(
    character_id: Annotated[int, typer.Argument(help="Character id.")],
    out: Annotated[Path | None, typer.Option(help="Write to this file instead of stdout.")] = None,
    db: Db = None,
) -> None:
    """Export a stored character as versioned JSON (tableside/character-record v1)."""
    with opened(db) as store:
        document = store.export_character(character_id)
    write_document(document, out)


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="An exported character record.")],
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Import an exported character record; a bad file is refused and nothing written."""
    document = _load_json(file, "character record")
    if isinstance(document, dict) and document.get("game") == GAME:
        character_from_data(document.get("document"), f"{file}: document")
    with opened(db) as store:
        character_id = store.import_character(document)
    if json_out:
        print_json({"id": character_id})
    else:
        print(f"Character {character_id} imported")
