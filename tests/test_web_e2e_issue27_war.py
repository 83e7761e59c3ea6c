"""Issue 27, item 6, at the War's web table in real chromium on a laptop and a phone: the
Interpose pickers and the Stand Ready uses start where a Host expects (M-16, M-41)."""

from __future__ import annotations

import math

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from test_web_e2e import FALLEN, WAR, LiveServer, e2e_fixtures
from test_web_e2e_play import Person, Play, options

from tableside.encounter.war.state import Combatant
from tableside.web.demo import create_demo

SIZES = {"laptop": (1366, 768), "phone": (390, 844)}


server, browsers = e2e_fixtures("issue27war", "host", "fallen")


@pytest.fixture
def play(server: LiveServer, browsers: tuple[WebDriver, WebDriver]) -> Play:
    """A new demo table; the fallen player opens the War's page (as ``test_web_e2e_play``)."""
    demo = create_demo(server.table)
    host, player = Person("Host", browsers[0]), Person(FALLEN, browsers[1])
    player.driver.get(server.base + demo.player_links[FALLEN])
    player.driver.find_element(By.LINK_TEXT, WAR).click()
    player.wait("the War", lambda s: s.text("revision") == "9")
    return Play(server, demo, host, player)


def picked(table: Play, select_id: str) -> str:
    return str(Select(table.player.find(select_id)).first_selected_option.get_attribute("value"))


@pytest.mark.parametrize("size", sorted(SIZES))
def test_m16_m41_interpose_and_stand_ready_start_where_a_host_expects(
    play: Play, size: str
) -> None:
    """M-16: the Defender is the acting elohim's nearest ally, the Striker the enemy nearest that
    ally; M-41: Stand Ready is for a Strike (Interpose in Defensive Stance) and nothing else."""
    player = play.player
    player.driver.set_window_size(*SIZES[size])
    player.wait("the pickers", lambda _s: "Jackal" in options(player, "p-actor"))
    Select(player.find("p-actor")).select_by_value("Jackal")
    rows: dict[str, Combatant] = play.server.table.live(play.demo.encounter_id).state.combatants
    me = rows["Jackal"]

    def nearest(origin: Combatant, side_is: bool) -> str:
        found = [c for c in rows.values() if (c.character.side == origin.character.side) == side_is
                 and c.id not in (me.id, origin.id)]  # fmt: skip
        closest: Combatant = min(
            found, key=lambda c: (math.dist(origin.position, c.position), c.id)
        )
        return closest.id

    ally = nearest(me, True)
    foe = nearest(rows[ally], False)
    player.wait("the defaults", lambda _s: picked(play, "q-i-defender") == ally)
    assert picked(play, "q-i-striker") == foe
    assert (picked(play, "q-use1"), picked(play, "q-use2")) == ("Strike", "")
