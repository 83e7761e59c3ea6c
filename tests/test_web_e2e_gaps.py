"""The play panel's last gaps end to end (issue 12): a Host and a player in their own chromium.

At the phone size (390 × 844): the player's Full Action and Skill Reaction from the buttons
(SA-80, SA-82), a thrown Dagger picked up from the ground (SA-72, W-35), the Host's under water
and forced move from its tools (SA-76, SA-70), each said in one plain sentence in the log; the
header's characters follow a seat the Host edits, without a reload (W-36); axe-core clean.
"""

from __future__ import annotations

from a11y import assert_accessible
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_web_e2e import LiveServer, e2e_fixtures
from test_web_e2e_decisions import PHONE
from test_web_e2e_panel import Player, text_starts

from tableside.encounter.log import Command
from tableside.web.auth import Principal

server, browsers = e2e_fixtures("gaps", "host", "ann", axe=True)


def said(seat: Player, words: str) -> bool:
    return any(words in card["say"] for card in seat.cards())


def test_act_react_pick_up_forced_move_and_water_from_the_buttons(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    """SA-70, SA-72, SA-76, SA-80, SA-82, W-35, W-36 at 390 × 844."""
    web = server.table
    table_id, host_token = web.create_table("Ford")
    boss = Principal(table_id, None)
    eid = web.create_encounter(boss, table_id, "strife-combat", "The ford", 3).id
    sera = {"id": "Sera", "model": "Sera", "side": "heroes", "position": [-3, 0, 0]}
    goblin = {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}
    web.execute(boss, eid, Command("add", sera, (20,)), None)
    web.execute(boss, eid, Command("add", goblin, (1,)), None)
    seat, token = web.add_player(boss, table_id, "Ann", ("Sera",))
    host, ann = Player("Host", browsers[0]), Player("Ann", browsers[1])
    page = f"{server.base}/tables/{table_id}/encounters/{eid}"
    host.driver.get(f"{page}?token={host_token}")
    ann.driver.get(f"{page}?token={token}")
    for person in (host, ann):
        person.size(PHONE)
        person.wait("the panel", lambda s: s.choices("p-actor") != [])
    ann.mark()
    host.driver.find_element(By.CSS_SELECTOR, "#host-tools summary").click()
    host.click("h-start")
    # Sera's Turn: a Full Action with a STR test, from the buttons (SA-80)
    ann.wait("Sera's Turn", text_starts("title", "Your Turn — Sera"))
    ann.click("act-act")
    ann.wait("the Action's cost", lambda s: s.text("act-cost") == "(Action, ends the Turn)")
    ann.pick("q-act-kind", "quick")
    ann.wait("the Instant's cost", lambda s: s.text("act-cost") == "(Instant)")
    ann.pick("q-act-kind", "full")
    ann.type("q-act-name", "Bar the door")
    ann.pick("q-act-test", "STR")
    ann.click("q-do-act")
    for person in (host, ann):
        person.wait("the act said", lambda s: said(s, "Sera takes a Full Action: Bar the door"))
    assert any(" the test" in c["say"] for c in ann.cards() if "Bar the door" in c["say"])
    ann.click("q-next")
    # the Goblin's Turn: Sera's Skill Reaction, from the buttons (SA-82)
    host.wait("the Goblin's Turn", text_starts("title", "Your Turn — Goblin"))
    ann.click("act-react")
    ann.type("q-react-name", "Counterspell")
    ann.type("q-react-trigger", "the Goblin's curse")
    ann.click("q-do-react")
    want = "Sera reacts with a Skill Reaction: Counterspell (to the Goblin's curse)"
    for person in (host, ann):
        person.wait("the reaction said", lambda s: said(s, want))
    # the Host puts the Goblin under water from its tools (SA-76)
    host.pick("h-w-who", "Goblin")
    host.click("h-water")
    host.wait("the water said", lambda s: said(s, "Goblin is now under water"))
    # the secret NPC's water is not said to the player as a value (W-25)
    secret_water = "Goblin is put under water or taken out (hidden)"
    ann.wait("the water said as hidden", lambda s: said(s, secret_water))
    host.pick("h-w-who", "Goblin")
    host.find("h-w-out").click()
    host.click("h-water")
    host.wait("out of the water said", lambda s: said(s, "Goblin is out of the water"))
    ann.wait("both said", lambda s: sum(c["say"] == secret_water for c in s.cards()) == 2)
    host.click("q-next")
    # Sera's next Turn: the Dagger thrown (a critical miss), then picked up from the panel
    ann.wait("Sera's Turn again", text_starts("title", "Your Turn — Sera"))
    throw = {"attacker": "Sera", "attacks": [{"defender": "Goblin", "thrown": True}]}
    web.execute(boss, eid, Command("attack", throw, (3,)), None)
    ann.wait("the throw said", lambda s: said(s, "Sera throws the Dagger: it lies at (1, 0, 0)"))
    ann.click("q-next")  # the throw was the Action: the Turn is over (S-5)
    host.wait("the Goblin's Turn again", text_starts("title", "Your Turn — Goblin"))
    host.click("q-next")
    ann.wait("Sera's third Turn", text_starts("title", "Your Turn — Sera"))
    ann.move_to((0.5, 0.5, 0))
    ann.wait("the Move", lambda s: s.text("cost-move").startswith("(Move (used)"))
    ann.click("act-pick_up")
    ann.wait("the Dagger on the ground", lambda s: "Dagger" in s.text("q-ground"))
    assert ann.text("pick-cost") == "(Instant)"
    ann.click("q-pick-up")
    for person in (host, ann):
        person.wait("the pick-up said", lambda s: said(s, "Sera picks up the Dagger in the main"))
    assert server.table.state(eid, boss)["ground"] == []
    # the Host knocks the Goblin back, by Sera, from its tools (SA-70)
    host.pick("h-f-who", "Goblin")
    host.pick("h-f-kind", "knock_back")
    host.pick("h-f-by", "Sera")  # straight away from Sera at (0.5, 0.5, 0)
    for axis, value in zip("xyz", ("2", "-1", "0"), strict=True):
        host.type(f"h-f-{axis}", value)
    host.click("h-forced")
    host.wait("the forced move said", lambda s: said(s, "Goblin is moved to (2, -1, 0) by Sera's"))
    ann.wait("the forced move said", lambda s: said(s, "Goblin is moved to (2, -1, 0)"))
    # no card says raw JSON
    for card in ann.cards():
        assert "{" not in card["say"], card["say"]
    for person in (host, ann):
        assert person.text("error") == ""
        person.check_the_panel()
    # the Host gives Ann the Goblin too: her page shows it without a reload (W-36)
    web.edit_player(boss, table_id, seat.id, "Ann", ("Sera", "Goblin"))
    ann.wait("the seat anew", lambda s: s.text("me") == "you are Ann (Sera, Goblin)")
    ann.wait("the Goblin to act for", lambda s: "Goblin" in s.choices("p-actor"))
    assert ann.same_page()
    assert_accessible(ann.driver, ["#log"])
