"""The player's sheet on a phone (390 × 844), as a player and the Host meet it (issue 25).

A Realm of Strife character of the roster fought one fight; the Host confirms its carry-over
from the roster page (W-86). Its player joins from the link, finds "Your characters", opens its
sheet and sees HP 20 of 32 and what carried over (W-83); it proposes HP 25, which waits; the
Host, in another browser, opens the same sheet, approves, and the player's sheet then says 25
(W-84).
"""

from __future__ import annotations

from typing import Any

from a11y import assert_accessible
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_web_e2e import LiveServer, Seat, e2e_fixtures

from tableside.campaign import play
from tableside.campaign.sheets import validated
from tableside.encounter.log import Command
from tableside.service import run_command
from tableside.store import roster, tables
from tableside.web.auth import new_token, token_hash

PHONE = (390, 844)
BRANNOC: dict[str, Any] = {
    "name": "Brannoc", "stats": {"STR": 17, "AGIL": 9, "INT": 8, "WIS": 11, "STAM": 15},
    "initiative": 4, "movement": 5, "ac": 10, "dodge": 5, "hp": 32, "hp_max": 32,
    "resources": {"Vigor": {"current": 10, "maximum": 10}}, "main_hand": "Long Sword",
}  # fmt: skip
NOW = "return document.querySelector('#numbers tr[data-name=\"' + arguments[0] + '\"] .now')" \
      ".textContent.trim();"  # fmt: skip
PAGE_FITS = "return document.documentElement.scrollWidth <= document.documentElement.clientWidth;"


server, browsers = e2e_fixtures("sheet", "host", "player", axe=True, size=PHONE)


def one_fight(server: LiveServer) -> tuple[int, int, str, str]:
    """A table, Ann's Brannoc, one fight that left it at 20 HP, its carry-over applied."""
    store = server.table.store
    host, ann = new_token(), new_token()
    tid = tables.create_table(store, "Friday", token_hash(host))
    seat = tables.add_seat(store, tid, "Ann", (), token_hash(ann))
    cid = roster.add_character(store, tid, "strife-combat",
                               validated("strife-combat", BRANNOC), seat.id)  # fmt: skip
    eid = tables.create_table_encounter(store, tid, "The mill", "strife-combat", 7)
    play.join(store, eid, cid, lambda c: run_command(store, eid, c), side="heroes")
    goblin = {**BRANNOC, "name": "Goblin"}
    for kind, args in (("add", {"id": "Goblin", "sheet": goblin, "side": "monsters",
                                "position": [30.0, 0.0, 0.0]}),
                       ("start", {}), ("host_set", {"id": "Brannoc", "field": "hp", "value": 20}),
                       ("host_set", {"id": "Goblin", "field": "hp", "value": 0})):  # fmt: skip
        run_command(store, eid, Command(kind, args))
    return tid, cid, host, ann


def test_w83_a_player_sees_hp_carried_over_and_proposes_a_change_the_host_approves(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    tid, cid, host_token, ann_token = one_fight(server)
    host, ann = Seat("Host", browsers[0]), Seat("Ann", browsers[1])
    # The Host confirms the carry-over from the roster page (W-86).
    host.driver.get(f"{server.base}/join/{host_token}")
    host.driver.get(f"{server.base}/tables/{tid}/characters")
    host.driver.find_element(By.LINK_TEXT, "The mill").click()
    host.wait("the changes", lambda s: "HP: 32 → 20" in s.text("carry"))
    assert_accessible(host.driver)
    host.driver.find_element(By.ID, "apply").click()
    host.wait("the roster again", lambda s: s.driver.find_elements(By.ID, "mine"))
    assert not host.driver.find_elements(By.ID, "waiting-carry")
    ann.driver.get(f"{server.base}/join/{ann_token}")
    ann.driver.find_element(By.ID, "roster-link").click()
    ann.driver.find_element(By.LINK_TEXT, "Brannoc").click()
    ann.wait("the sheet", lambda s: s.text("name") == "Brannoc")
    assert ann.driver.execute_script(NOW, "HP") == "20"
    carried = ann.text("carried")
    assert "HP: 32 → 20" in carried
    assert ann.driver.execute_script(PAGE_FITS), "the sheet scrolls sideways on a phone"
    assert_accessible(ann.driver)
    hp = ann.driver.find_element(By.CSS_SELECTOR, 'input[data-path="hp"]')
    hp.clear()
    hp.send_keys("25")
    ann.driver.find_element(By.ID, "send").click()
    ann.wait("the change waiting", lambda s: s.driver.find_elements(By.ID, "pending"))
    assert ann.driver.execute_script(NOW, "HP") == "20"  # not before the Host approves
    assert not ann.driver.find_elements(By.ID, "approve")
    host.driver.get(f"{server.base}/characters/{cid}")
    host.wait("the change to approve", lambda s: s.driver.find_elements(By.ID, "approve"))
    assert_accessible(host.driver)
    assert "hp: 20 →" in host.text("pending") and "25" in host.text("pending")
    host.driver.find_element(By.ID, "approve").click()
    host.wait("HP 25", lambda s: s.driver.execute_script(NOW, "HP") == "25")
    ann.driver.refresh()
    ann.wait("HP 25 on the player's sheet", lambda s: s.driver.execute_script(NOW, "HP") == "25")
    assert not ann.driver.find_elements(By.ID, "pending")
    assert [line for line in ann.console() if "favicon" not in line] == []
