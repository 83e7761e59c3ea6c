"""``tableside table …``: a web table's roster and its whole file, on the same store (issue 25).

``tableside table characters list|add|show|edit|rest|export|import`` work on a table's roster as
its Host would (CH-1, CH-11, CH-12, CH-17); ``tableside table export|import`` write and read
the whole table's file (no token in it; an import is all or nothing and prints the new links).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tableside.cli.encounter_cmds import opened
from tableside.cli.options import Db, Json
from tableside.cli.output import print_json, write_document
from tableside.cli.sources import read_json

app = typer.Typer(
    help="A web table's roster of characters, and the whole table as one file.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
characters_app = typer.Typer(
    help="The table's roster: list, add, show, edit, rest, export, import.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(characters_app, name="characters")

TableId = Annotated[int, typer.Option("--table", help="The web table's id.")]
CharacterId = Annotated[int, typer.Argument(help="The roster character's id.")]
Owner = Annotated[int | None, typer.Option(help="The seat id that owns it (default: the Host's).")]
Out = Annotated[Path | None, typer.Option(help="Write to this file instead of stdout.")]


def _show(rows: list[dict[str, Any]]) -> str:
    return "\n".join(f"{r['id']:>4}  {r['name']}  ({r['game']}, {_owner(r['owner'])})"
                     for r in rows) or "none"  # fmt: skip


def _owner(owner: int | None) -> str:
    return "the Host's" if owner is None else f"seat {owner}"


def _row(character: Any) -> dict[str, Any]:
    from tableside.campaign.sheets import numbers

    return {"id": character.id, "name": character.name, "game": character.game,
            "owner": character.owner, "sheet": character.sheet,
            "numbers": numbers(character.game, character.sheet),
            "pending": character.pending, "carried": character.carried}  # fmt: skip


@characters_app.command("list")
def list_(table: TableId, db: Db = None, json_out: Json = False) -> None:
    """Every character of the table's roster."""
    from tableside.store import roster

    with opened(db) as store:
        rows = [_row(c) for c in roster.characters(store, table)]
    if json_out:
        print_json({"characters": rows})
    else:
        print(_show(rows))


@characters_app.command()
def add(
    file: Annotated[Path, typer.Argument(help="A sheet (JSON) or a roster-character file.")],
    table: TableId,
    game: Annotated[
        str | None, typer.Option(help="majesty-war or strife-combat (a sheet's game).")
    ] = None,
    owner: Owner = None,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Add a character to the roster; a bad sheet names the field and adds nothing."""
    from tableside.campaign.files import CHARACTER_FILE, parse_character_file
    from tableside.campaign.sheets import game_named, validated
    from tableside.store import roster

    document = read_json(file, "character")
    if isinstance(document, dict) and document.get("format") == CHARACTER_FILE:
        kind, sheet = parse_character_file(document)
    else:
        kind = game_named(game)
        if isinstance(document, dict) and kind == "majesty-war":
            document = {k: v for k, v in document.items() if k not in ("format", "version")}
        sheet = validated(kind, document)
    with opened(db) as store:
        character_id = roster.add_character(store, table, kind, sheet, owner)
    if json_out:
        print_json({"id": character_id})
    else:
        print(f"Character {character_id} added to table {table}: {sheet['name']}")


@characters_app.command()
def show(character: CharacterId, db: Db = None, json_out: Json = False) -> None:
    """One character: every number current against maximum, what carried over, its fights."""
    from tableside.campaign.play import history
    from tableside.store import roster

    with opened(db) as store:
        row = {**_row(roster.character(store, character)), "history": history(store, character)}
    if json_out:
        print_json(row)
        return
    print(f"{row['name']} ({row['game']}, {_owner(row['owner'])})")
    for n in row["numbers"]:
        top = "" if n["maximum"] is None else f" / {n['maximum']}"
        print(f"  {n['name']:<10} {n['current']}{top}")
    if row["carried"]:
        changed = ", ".join(f"{c['name']} {c['before']} → {c['after']}"
                            for c in row["carried"]["changes"]) or "nothing"  # fmt: skip
        print(f"  carried over from encounter {row['carried']['encounter']}: {changed}")
    for fight in row["history"]:
        end = (
            f"won by {fight['winner']}"
            if fight["winner"]
            else "ended"
            if fight["ended"]
            else "going"
        )
        print(f"  fought in encounter {fight['encounter']} ({fight['name']}) as "
              f"{fight['combatant']}: {fight['commands']} commands, {end}")  # fmt: skip


@characters_app.command()
def edit(
    character: CharacterId,
    file: Annotated[Path | None, typer.Option(help="The new sheet (JSON).")] = None,
    owner: Owner = None,
    host: Annotated[bool, typer.Option("--host", help="Make it the Host's.")] = False,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Change a character's sheet or owner, as the Host (validated; nothing half written)."""
    from tableside.campaign.sheets import validated
    from tableside.errors import DataError
    from tableside.store import roster

    if owner is not None and host:
        raise DataError("Give --owner or --host, not both.")
    with opened(db) as store:
        found = roster.character(store, character)
        changes: dict[str, Any] = {}
        if file is not None:
            changes["sheet"] = validated(found.game, read_json(file, "sheet"))
        if owner is not None or host:
            changes["owner"] = owner
        if not changes:
            raise DataError("Nothing to change: give --file, --owner or --host.")
        edited = roster.edit_character(store, character, **changes)
    if json_out:
        print_json(_row(edited))
    else:
        print(f"Character {character} changed: {edited.name} ({_owner(edited.owner)})")


@characters_app.command()
def rest(
    character: CharacterId,
    amount: Annotated[
        int | None, typer.Option(help="HP (and Spirit) regained; default: a full rest.")
    ] = None,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """A rest: what resting restores (CH-11, CH-12)."""
    from tableside.campaign.carry import rest as rested
    from tableside.store import roster

    with opened(db) as store:
        found = roster.character(store, character)
        sheet = rested(found.game, found.sheet, amount)
        edited = roster.edit_character(store, character, sheet=sheet)
    if json_out:
        print_json(_row(edited))
    else:
        print(f"{edited.name} rested.")


@characters_app.command()
def join(
    encounter: Annotated[int, typer.Argument(help="The encounter (of the character's table).")],
    character: CharacterId,
    combatant: Annotated[
        str | None, typer.Option("--id", help="The combatant's id (default: from its name).")
    ] = None,
    side: Annotated[str, typer.Option(help="Realm of Strife: its side.")] = "players",
    at: Annotated[
        str, typer.Option(help="Where it stands, x,y,z in metres (default 0,0,0).")
    ] = "0,0,0",
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Add a roster character to an encounter with its current state, bound to it (CH-2)."""
    from tableside import service
    from tableside.campaign.play import join as joined
    from tableside.encounter.log import Command

    position = _position(at)
    with opened(db) as store:

        def run(command: Command) -> Any:
            return service.run_command(store, encounter, command)

        made, _ran = joined(store, encounter, character, run, combatant, position, side)
    if json_out:
        print_json({"combatant": made, "encounter": encounter, "character": character})
    else:
        print(f"Character {character} joined encounter {encounter} as {made}.")


def _position(text: str) -> tuple[float, float, float]:
    """``x,y,z`` (or ``x,y``) as a position; one sentence if it is not three numbers."""
    from tableside.errors import DataError

    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) == 2:
        values.append(0.0)
    if len(values) != 3 or not all(abs(v) <= 1e6 for v in values):
        raise DataError(f"--at must be x,y,z in metres (three numbers), got {text!r}.")
    return values[0], values[1], values[2]


@characters_app.command()
def export(character: CharacterId, out: Out = None, db: Db = None) -> None:
    """One character's file (tableside/roster-character v1)."""
    from tableside.campaign.files import character_file
    from tableside.store import roster

    with opened(db) as store:
        write_document(character_file(roster.character(store, character)), out)


@characters_app.command("import")
def import_character(
    file: Annotated[Path, typer.Argument(help="A roster-character file.")],
    table: TableId,
    owner: Owner = None,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Import one character's file into a table's roster; a bad file adds nothing."""
    from tableside.campaign.files import parse_character_file
    from tableside.store import roster

    game, sheet = parse_character_file(read_json(file, "character file"))
    with opened(db) as store:
        character_id = roster.add_character(store, table, game, sheet, owner)
    if json_out:
        print_json({"id": character_id})
    else:
        print(f"Character {character_id} imported into table {table}: {sheet['name']}")


@app.command("export")
def export_table(
    table: Annotated[int, typer.Argument(help="The web table's id.")],
    out: Out = None,
    db: Db = None,
) -> None:
    """The whole table as one file: roster, encounters with their logs, seats without tokens."""
    from tableside.campaign.files import table_file

    with opened(db) as store:
        write_document(table_file(store, table), out)


@app.command("import")
def import_table(
    file: Annotated[Path, typer.Argument(help="A table file (tableside/table v1).")],
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Import a table file as a new table, all or nothing; prints the new Host and seat links."""
    from tableside.campaign.files import parse_table_file
    from tableside.web.characters import import_table_file

    part = parse_table_file(read_json(file, "table file"))
    with opened(db) as store:
        table_id, host, seats = import_table_file(store, part)
    if json_out:
        print_json({"id": table_id, "host_token": host,
                    "seats": [{"id": i, "name": n, "token": t} for i, n, t in seats]})  # fmt: skip
        return
    print(f"Table {table_id} imported: {part.name}")
    print(f"Host: /tables/{table_id}?token={host}")
    for _seat_id, name, token in seats:
        print(f"{name}: /join/{token}")


@app.command("carry-over")
def carry_over(
    encounter: Annotated[int, typer.Argument(help="The ended encounter.")],
    apply: Annotated[
        bool, typer.Option("--apply", help="Apply the proposal (the Host's confirmation).")
    ] = False,
    wave: Annotated[
        bool, typer.Option(help="Realm of Strife: only a brief respite follows (CH-4).")
    ] = False,
    battle_soon: Annotated[
        bool, typer.Option(help="Realm of Strife: another battle within 2 minutes (CH-5).")
    ] = False,
    keep_exertion: Annotated[
        bool, typer.Option(help="Allies of Majesty: Exertion carries over (CH-8).")
    ] = False,
    db: Db = None,
    json_out: Json = False,
) -> None:
    """Show the carry-over proposed at a fight's end; apply it only with --apply (CH-9)."""
    from tableside.campaign import play
    from tableside.campaign.carry import Options
    from tableside.errors import DataError

    options = Options(wave, battle_soon, keep_exertion)
    with opened(db) as store:
        try:
            found = (play.apply if apply else play.proposal)(store, encounter, options)
        except play.NotEndedError as error:
            raise DataError(str(error)) from None
    if json_out:
        print_json({"applied" if apply else "proposed": found})
        return
    for character in found:
        changed = ", ".join(f"{c['name']} {c['before']} → {c['after']}"
                            for c in character["changes"]) or "nothing changes"  # fmt: skip
        print(f"{character['name']} (character {character['character']}): {changed}")
        for note in character["notes"]:
            print(f"  {note}")
    if not found:
        print("Nothing to carry over: no roster character of the fight is left to carry.")
    elif not apply:
        print("Nothing is changed yet: run again with --apply to apply it.")
