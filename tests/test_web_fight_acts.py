"""A player declares its own character's acts and Reactions at a web table (SA-80, SA-82)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_play import Table, new_table, seat

from tableside.web import create_app


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """Aldric (Ann's) and a Goblin in base contact; Aldric's ambush round."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'acts.db'}")) as client:
        tid, host, eid = new_table(client, "strife-combat", 5)
        ann = seat(client, tid, host, ["Aldric"])
        t = Table(client, client.app.state.table, eid, host, ann, host)  # type: ignore[attr-defined]
        t.command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes"})
        goblin = {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}
        t.command("add", goblin)
        assert t.command("start", {"ambush": "heroes"})["state"]["current"] == "Aldric"
        yield t


def send(t: Table, kind: str, args: dict[str, Any]) -> Any:
    return t.post("/commands", t.ann, {"kind": kind, "args": args})


def test_sa82_a_player_reacts_for_its_own_character_not_for_another(table: Table) -> None:
    mine = send(table, "act", {"id": "Aldric", "kind": "full", "name": "unlock the chest"})
    assert mine.status_code == 200, mine.text
    theirs = send(table, "react", {"id": "Goblin", "kind": "skill", "name": "Swift Kick"})
    assert theirs.status_code == 403
    table.command("next", {})
    while table.command("next", {})["state"]["current"] != "Goblin":
        pass
    reacted = send(table, "react", {"id": "Aldric", "kind": "roleplay", "name": "duck"})
    assert reacted.status_code == 200, reacted.text
    assert "Aldric" in reacted.json()["state"]["reactions_spent"]
    again = send(table, "react", {"id": "Aldric", "kind": "roleplay", "name": "duck"})
    assert again.status_code in (400, 409, 422) and "already used its Reaction" in again.text
