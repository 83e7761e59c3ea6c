"""The play panel's last gaps (issue 12): act, react, pick up, forced move, water, own powers.

W-34 (the Cast picker: the sheet's own powers first), W-35 (a player picks up its own weapons),
SA-70, SA-72, SA-76, SA-80 … SA-83 from the panel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tableside.strife.catalog import builtin_catalog
from tableside.web import create_app

CATALOG = builtin_catalog()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Fight:
    """A Realm of Strife table: Sera (a player's) at (-3, 0, 0), a Goblin at (1, 0, 0)."""

    def __init__(self, client: TestClient, sera: dict[str, Any]) -> None:
        self.client = client
        r = client.post("/api/tables", json={"name": "Friday"})
        tid, self.host = r.json()["id"], auth(r.json()["host_token"])
        body = {"game": "strife-combat", "name": "Ford", "seed": 3}
        self.eid = client.post(
            f"/api/tables/{tid}/encounters", headers=self.host, json=body
        ).json()["id"]
        seat = {"name": "Ann", "characters": ["Sera"]}
        r = client.post(f"/api/tables/{tid}/players", headers=self.host, json=seat)
        self.ann = auth(r.json()["token"])
        self.command("add", {"id": "Sera", "sheet": sera, "side": "heroes",
                             "position": [-3, 0, 0]}, [20])  # fmt: skip
        self.command("add", {"id": "Goblin", "model": "Goblin", "side": "monsters",
                             "position": [1, 0, 0]}, [1])  # fmt: skip

    def send(self, who: dict[str, str], kind: str, args: dict[str, Any], dice: Any = None) -> Any:
        body: dict[str, Any] = {"kind": kind, "args": args}
        if dice is not None:
            body["dice"] = dice
        return self.client.post(f"/api/encounters/{self.eid}/commands", headers=who, json=body)

    def command(self, kind: str, args: dict[str, Any], dice: Any = None) -> Any:
        r = self.send(self.host, kind, args, dice)
        assert r.status_code == 200, r.text
        return r.json()

    def state(self) -> Any:
        return self.client.get(f"/api/encounters/{self.eid}", headers=self.host).json()["state"]

    def options(self, who: dict[str, str]) -> Any:
        return self.client.get(f"/api/encounters/{self.eid}/options", headers=who).json()


def sera_sheet(**update: Any) -> dict[str, Any]:
    sheet: dict[str, Any] = (
        CATALOG.combatant("Sera").model_copy(update=update).model_dump(mode="json")
    )
    return sheet


def page(client: TestClient, who: dict[str, str]) -> str:
    """The fight page as ``who`` sees it, entered by its join link."""
    token = who["Authorization"].removeprefix("Bearer ")
    table_page = client.get(f"/join/{token}")
    link = next(p for p in re.findall(r'href="([^"]+)"', table_page.text) if "/encounters/" in p)
    r = client.get(link)
    assert r.status_code == 200, r.text
    return r.text


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'gaps.db'}")) as test_client:
        yield test_client


def test_w34_the_cast_picker_offers_the_sheets_own_powers_first(client: TestClient) -> None:
    f = Fight(client, sera_sheet(powers=("Curse Torment", "Arcane Missile", "Flame Strike")))
    sera = next(a for a in f.options(f.ann)["actors"] if a["id"] == "Sera")
    names = [p["name"] for p in sera["powers"]]
    # its own first, in the sheet's order (a combined power is cast with an attack)
    assert names[:2] == ["Curse Torment", "Arcane Missile"]
    assert [p["own"] for p in sera["powers"][:3]] == [True, True, False]
    # then the catalogue's other powers its Spirit pays for, each once
    assert sorted(names[2:]) == ["Arcane Torrent", "Birds of Prey", "Curse of Control"]


def test_w34_without_own_powers_the_picker_is_the_payable_catalogue(client: TestClient) -> None:
    f = Fight(client, sera_sheet())
    sera = next(a for a in f.options(f.ann)["actors"] if a["id"] == "Sera")
    assert sera["powers"][0]["name"] == "Arcane Torrent"
    assert not any(p["own"] for p in sera["powers"])


def test_sa80_the_options_list_the_stats_of_an_acts_test(client: TestClient) -> None:
    f = Fight(client, sera_sheet())
    assert f.options(f.ann)["stats"] == ["STR", "AGIL", "INT", "WIS", "STAM", "INIT"]


def test_w35_a_player_picks_up_its_models_thrown_dagger_sa72(client: TestClient) -> None:
    f = Fight(client, sera_sheet())
    f.command("start", {})
    attack = {"attacker": "Sera", "attacks": [{"defender": "Goblin", "thrown": True}]}
    f.command("attack", attack, [3])  # a critical miss: the Dagger lies at the Goblin
    assert f.state()["ground"] == [{"weapon": "Dagger", "at": [1.0, 0.0, 0.0]}]
    f.command("next", {})
    while f.state()["current"] != "Sera":
        f.command("next", {})
    r = f.send(f.ann, "move", {"id": "Sera", "to": [0.5, 0.5, 0.0]})
    assert r.status_code == 200, r.text
    # another's model: refused
    r = f.send(f.ann, "pick_up", {"id": "Goblin", "weapon": "Dagger"})
    assert r.status_code == 403 and "Goblin" in r.json()["error"]
    r = f.send(f.ann, "pick_up", {"id": "Sera", "weapon": "Dagger"})
    assert r.status_code == 200, r.text
    assert f.state()["ground"] == []
    kinds = [e["kind"] for e in r.json()["record"]["events"]]
    assert "picked_up" in kinds


def test_the_page_has_the_act_react_pick_up_buttons_and_the_hosts_tools(
    client: TestClient,
) -> None:
    f = Fight(client, sera_sheet())
    player = page(client, f.ann)
    for part in ('id="act-act"', 'id="act-react"', 'id="act-pick_up"', 'id="q-do-act"',
                 'id="q-do-react"', 'id="q-pick-up"'):  # fmt: skip
        assert part in player, part
    assert 'id="h-forced"' not in player and 'id="h-water"' not in player
    host = page(client, f.host)
    for part in ('id="h-forced"', 'id="h-f-kind"', 'id="h-water"', 'id="h-remove"'):
        assert part in host, part


def test_w36_the_options_give_the_callers_seat_as_it_is_now(client: TestClient) -> None:
    f = Fight(client, sera_sheet())
    assert f.options(f.host)["seat"] is None
    assert f.options(f.ann)["seat"]["characters"] == ["Sera"]
    tid = client.get(f"/api/encounters/{f.eid}", headers=f.host).json()["table"]
    seat_id = f.options(f.ann)["seat"]["id"]
    body = {"characters": ["Sera", "Goblin"]}
    r = client.patch(f"/api/tables/{tid}/players/{seat_id}", headers=f.host, json=body)
    assert r.status_code == 200, r.text
    seat = f.options(f.ann)["seat"]
    assert seat["name"] == "Ann" and seat["characters"] == ["Sera", "Goblin"]
    assert [a["id"] for a in f.options(f.ann)["actors"]] == ["Sera", "Goblin"]
