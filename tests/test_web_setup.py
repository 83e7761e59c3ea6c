"""The Host's set-up: pages and forms, the characters API, refusals with nothing written."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_store_support import BACKENDS, database_url

from tableside.web import create_app
from tableside.web.auth import SESSION_COOKIE, csrf_token

COOKIE_DOMAIN = "testserver.local"  # where the test client keeps the cookies the app sets

HERALD = Path(__file__).parent.parent.joinpath("examples", "herald.json").read_text()
SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
WAR_FORM = {"mode": "form", "name": "Boss", "side": "fallen", "weapon": "Sword", "might": "40",
            "swiftness": "30", "control": "30", "endurance": "55", "resolve": "40",
            "passion": "40", "x": "1", "y": "0", "z": "0", "secret": "default"}  # fmt: skip


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    with database_url(request.param, tmp_path) as url, TestClient(create_app(url)) as c:
        yield c


def link_in(page: str, element: str) -> str:
    found = re.search(rf'id="{element}"[^>]*>\s*<a href="([^"]+)"', page)
    assert found, page
    return found.group(1).replace("&amp;", "&")


def error_in(page: str) -> str:
    found = re.search(r'<p id="error" role="alert">([^<]*)</p>', page)
    assert found, page
    return html.unescape(found.group(1))


class Host:
    """A table made through the pages, as a Host would: its join link gives this client the
    Host's session cookie (W-11), and its forms carry the session's CSRF proof."""

    def __init__(self, client: TestClient, name: str = "Friday") -> None:
        self.client = client
        page = client.post("/tables", data={"name": name})
        assert page.status_code == 201 and "keep it secret" in page.text
        link = link_in(page.text, "secret-link")
        self.path = link.removeprefix("http://testserver")
        self.token = self.path.split("/join/")[1]
        r = client.get(self.path, follow_redirects=False)
        assert r.status_code == 303 and self.token not in r.headers["location"]
        self.tid = int(r.headers["location"].split("/tables/")[1])
        self.session = client.cookies[SESSION_COOKIE]

    def sit(self) -> None:
        """Make this client the Host's browser again (other tests' seats share the client)."""
        self.client.cookies.set(SESSION_COOKIE, self.session, domain=COOKIE_DOMAIN)

    def post(self, path: str, data: dict[str, Any]) -> Any:
        self.sit()
        form = {**data, "csrf": csrf_token(self.session)}
        return self.client.post(path, data=form, follow_redirects=False)

    def get(self, path: str) -> Any:
        self.sit()
        return self.client.get(path)

    def encounter(self, game: str, name: str = "Ford") -> int:
        r = self.post(f"/tables/{self.tid}/encounters", {"game": game, "name": name, "seed": "7"})
        assert r.status_code == 303, r.text
        return int(r.headers["location"].split("/encounters/")[1].split("/")[0])

    def add(self, eid: int, data: dict[str, Any]) -> Any:
        return self.post(f"/tables/{self.tid}/encounters/{eid}/characters", data)

    def log(self, eid: int) -> list[dict[str, Any]]:
        headers = {"Authorization": f"Bearer {self.token}"}
        records: list[dict[str, Any]] = self.client.get(
            f"/api/encounters/{eid}/log", headers=headers
        ).json()["records"]
        return records


def test_the_home_page_creates_a_table_and_shows_the_host_link_once(client: TestClient) -> None:
    home = client.get("/")
    assert home.status_code == 200 and 'action="/tables"' in home.text
    host = Host(client)
    page = client.get(host.path)
    assert page.status_code == 200 and "You are the Host" in page.text
    assert host.token not in page.text and "token=" not in str(page.url)
    assert "keep it secret" not in page.text
    r = host.post("/tables", {"name": ""})  # a browser with a session sends its CSRF proof
    assert r.status_code == 400 and "A table's name" in error_in(r.text)


def test_an_encounter_a_character_by_form_and_a_player_make_a_war(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war")
    assert host.add(eid, WAR_FORM).status_code == 303
    assert host.add(eid, {"mode": "import", "document": HERALD}).status_code == 303
    log = host.log(eid)
    assert [r["command"]["kind"] for r in log] == ["add", "add"]
    boss = log[0]["command"]["args"]
    assert boss["id"] == "Boss" and boss["position"] == [1.0, 0.0, 0.0]
    assert boss["character"]["attributes"]["endurance"] == 55
    assert boss["character"]["side"] == "fallen" and boss["character"]["weapon"] == "Sword"
    r = host.post(f"/tables/{host.tid}/players", {"name": "Ann", "characters": ["Herald"]})
    assert r.status_code == 201 and "Share this link" in r.text
    join = link_in(r.text, "secret-link").removeprefix("http://testserver")
    page = client.get(join)
    assert page.status_code == 200 and "Herald" in page.text and "Ford" in page.text
    setup = host.get(f"/tables/{host.tid}/encounters/{eid}/setup")
    assert "an NPC (no seat plays it)" in setup.text and "secret from other players" in setup.text


def test_the_character_form_names_the_bad_field_and_writes_nothing(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war")
    cases = [
        ({"might": "x"}, "Might must be a whole number, got 'x'."),
        ({"might": "-3"}, "attributes.might"),
        ({"endurance": ""}, "Endurance is required"),
        ({"weapon": "Banana"}, "Unknown weapon 'Banana'"),
        ({"x": "far"}, "Position x must be a number"),
        ({"name": ""}, "field name"),
        ({"id": "two words"}, "Field id"),
        ({"secret": "maybe"}, "Secret values must be default, secret or open"),
    ]
    for change, sentence in cases:
        r = host.add(eid, {**WAR_FORM, **change})
        assert r.status_code == 400 and sentence in error_in(r.text), (change, r.text[-600:])
    bad_json = host.add(eid, {"mode": "import", "document": "{not json"})
    assert bad_json.status_code == 400 and "not valid JSON" in error_in(bad_json.text)
    assert host.log(eid) == []


def test_a_strife_model_by_form_and_a_sheet_by_import(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("strife-combat", "Mill")
    r = host.add(eid, {"mode": "form", "model": "Goblin", "side": "monsters", "x": "2"})
    assert r.status_code == 303, r.text
    from tableside.strife.catalog import builtin_catalog

    sheet = builtin_catalog().combatant("Aldric").model_dump(mode="json")
    doc = json.dumps({**sheet, "name": "Hero One"})
    assert host.add(eid, {"mode": "import", "document": doc, "side": "heroes"}).status_code == 303
    ids = [r["command"]["args"]["id"] for r in host.log(eid)]
    assert ids == ["Goblin", "Hero_One"]
    r = host.add(eid, {"mode": "form", "model": "Goblin", "side": ""})
    assert r.status_code == 400 and "side" in error_in(r.text)
    r = host.add(eid, {"mode": "import", "document": json.dumps({**sheet, "hp": -1}),
                       "side": "heroes", "id": "Bad"})  # fmt: skip
    assert r.status_code == 400 and "hp" in error_in(r.text)
    assert len(host.log(eid)) == 2


def test_the_characters_api_adds_and_refuses_with_one_sentence(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war")
    auth = {"Authorization": f"Bearer {host.token}"}
    url = f"/api/encounters/{eid}/characters"
    r = client.post(
        url, headers=auth, json={"character": json.loads(HERALD), "position": [0, 1, 0]}
    )
    assert r.status_code == 201 and r.json()["record"]["command"]["args"]["id"] == "Herald"
    refusals = [
        ({"character": json.loads(HERALD), "id": "Herald"}, 400, "already a combatant"),
        ({"model": "Goblin", "side": "x"}, 400, "character JSON v1"),
        ({"character": {"name": "X"}}, 400, "field format"),
        ({"character": json.loads(HERALD), "colour": "red"}, 422, "colour"),
        ({"character": json.loads(HERALD), "id": "a b"}, 422, "field id"),
    ]
    for body, status, words in refusals:
        r = client.post(url, headers=auth, json=body)
        assert r.status_code == status and words in r.json()["error"], r.text
    player = client.post(f"/api/tables/{host.tid}/players", headers=auth,
                         json={"name": "Ann", "characters": ["Herald"]}).json()  # fmt: skip
    r = client.post(url, headers={"Authorization": f"Bearer {player['token']}"},
                    json={"character": {**json.loads(HERALD), "name": "Two"}})  # fmt: skip
    assert r.status_code == 403 and "Host" in r.json()["error"]
    assert [r["command"]["kind"] for r in host.log(eid)] == ["add"]


def test_set_up_pages_are_the_hosts_only(client: TestClient) -> None:
    host = Host(client)
    eid = host.encounter("majesty-war")
    auth = {"Authorization": f"Bearer {host.token}"}
    player = client.post(f"/api/tables/{host.tid}/players", headers=auth,
                         json={"name": "Ann", "characters": []}).json()["token"]  # fmt: skip
    seated = client.get(f"/tables/{host.tid}", params={"token": player})  # the player's page
    assert seated.status_code == 200 and "You are Ann" in seated.text
    assert "You are the Host" not in seated.text and "new-player" not in seated.text
    assert client.get(f"/tables/{host.tid}/encounters/{eid}/setup").status_code == 403
    client.cookies.clear()
    for path in (f"/tables/{host.tid}", f"/tables/{host.tid}/encounters/{eid}/setup"):
        assert client.get(path).status_code == 401
    other = Host(client, "Other")
    assert client.get(f"/tables/{host.tid}").status_code == 403
    host.sit()
    r = client.post(f"/tables/{host.tid}/encounters", json={"game": "majesty-war", "name": "x"},
                    headers={"X-CSRF-Token": csrf_token(host.session)})  # fmt: skip
    assert r.status_code == 400 and "form" in r.json()["error"]
    assert other.tid != host.tid
    r = host.post(f"/tables/{host.tid}/encounters", {"game": "chess", "name": "x"})
    assert r.status_code == 400 and "Unknown game 'chess'" in error_in(r.text)
    r = host.post(f"/tables/{host.tid}/players", {"name": "Bo", "others": "a b"})
    assert r.status_code == 400 and "a character id" in error_in(r.text).lower()
    view = client.get(f"/api/tables/{host.tid}", headers=auth).json()
    assert len(view["encounters"]) == 1 and [s["name"] for s in view["seats"]] == ["Ann"]


def test_script_in_names_is_escaped_on_every_set_up_page(client: TestClient) -> None:
    page = client.post("/tables", data={"name": SCRIPT})
    assert SCRIPT not in page.text and ESCAPED in page.text
    host = Host(client, SCRIPT)
    tid = host.tid
    r = host.post(f"/tables/{tid}/encounters", {"game": "majesty-war", "name": SCRIPT})
    setup = r.headers["location"]
    eid = int(setup.split("/encounters/")[1].split("/")[0])
    doc = {**json.loads(HERALD), "name": SCRIPT}
    r = host.post(f"/tables/{tid}/encounters/{eid}/characters",
                  {"mode": "import", "document": json.dumps(doc), "id": "Evil"})  # fmt: skip
    assert r.status_code == 303
    seat = host.post(f"/tables/{tid}/players", {"name": SCRIPT, "others": "Evil"})
    assert SCRIPT not in seat.text and ESCAPED in seat.text
    bad = host.post(f"/tables/{tid}/encounters/{eid}/characters",
                    {**WAR_FORM, "name": SCRIPT, "might": SCRIPT})  # fmt: skip
    assert bad.status_code == 400
    pages = [client.get(setup), client.get(f"/tables/{tid}"), bad,
             client.get(f"/tables/{tid}/encounters/{eid}")]  # fmt: skip
    for page in pages:
        assert page.headers["content-type"].startswith("text/html")
        assert SCRIPT not in page.text and ESCAPED in page.text
        assert page.headers["referrer-policy"] == "no-referrer"
        assert "script-src" in page.headers["content-security-policy"]


def test_w62_two_of_a_kind_get_their_own_names_unless_the_host_names_them(
    client: TestClient,
) -> None:
    """W-62: a second and third Goblin added without an id are Goblin_2 and Goblin_3."""
    host = Host(client)
    eid = host.encounter("strife-combat")
    auth = {"Authorization": f"Bearer {host.token}"}
    url = f"/api/encounters/{eid}/characters"
    made = []
    for body in ({}, {}, {"id": "Boss"}, {}):
        r = client.post(url, headers=auth, json={"model": "Goblin", "side": "monsters", **body})
        assert r.status_code == 201, r.text
        made.append(r.json()["record"]["command"]["args"]["id"])
    assert made == ["Goblin", "Goblin_2", "Boss", "Goblin_3"]
