"""Issue 27 at the web table, in real chromium on a laptop and a phone: the Attack form offers
the main hand then the off hand with their Clumsy penalties (SA-92)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from test_strife_issue27 import duelist
from test_web_e2e import LiveServer, Seat, chromiums, live_server
from test_web_e2e_play import Person, lines, options

from tableside.encounter.log import Command
from tableside.web.auth import Principal

SIZES = {"laptop": (1366, 768), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with live_server("issue27") as live:
        yield live


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[WebDriver]:
    with chromiums("host") as drivers:
        yield drivers[0]


def duel_table(server: LiveServer) -> str:
    """The Duelist (Long Sword, Dagger, no Dual Wield) next to a troll; the Host's page."""
    web = server.table
    table_id, token = web.create_table("The duel")
    host = Principal(table_id, None)
    info = web.create_encounter(host, table_id, "strife-combat", "At the bridge", 5)
    duel: dict[str, Any] = {"id": "duel", "sheet": duelist(), "side": "heroes"}
    troll: dict[str, Any] = {"id": "troll", "model": "Goblin", "side": "monsters"}
    troll["position"] = [1, 0, 0]
    for kind, args in [("add", duel), ("add", troll), ("start", {"ambush": "heroes"})]:
        web.execute(host, info.id, Command(kind, args), None)
    return f"{server.base}/tables/{table_id}/encounters/{info.id}?token={token}"


@pytest.mark.parametrize("size", sorted(SIZES))
def test_sa92_the_attack_form_offers_main_hand_then_off_hand(
    server: LiveServer, browser: WebDriver, size: str
) -> None:
    """SA-92: the hands in order with Clumsy and no criticals; the second attack takes the off
    hand without naming it, and the Action strikes with both."""
    browser.set_window_size(*SIZES[size])
    browser.get(duel_table(server))
    host = Person("Host", browser)
    host.wait("the pickers", lambda _s: "duel" in options(host, "p-actor"))
    Select(host.find("p-actor")).select_by_value("duel")
    weapon = Select(host.find("p-weapon"))
    host.wait("the hands", lambda _s: options(host, "p-weapon") == ["Long Sword", "Dagger"])
    assert [o.text for o in weapon.options] == [
        "Long Sword (main hand, Clumsy −20, no criticals)",
        "Dagger (off hand, Clumsy −10, no criticals)",
    ]
    assert weapon.first_selected_option.get_attribute("value") == "Long Sword"
    host.find("p-more").click()  # the first attack queued: the next is the off hand's
    host.wait("the off hand", lambda _s: weapon.first_selected_option.text.startswith("Dagger"))
    host.type("my-dice", "60, 3, 98, 2")
    host.find("use-dice").click()
    host.wait("the preview", lambda _s: host.find("suggestion").is_displayed())
    assert not any("critical" in line.lower() for line in lines(host, "#suggestion-lines div"))
    host.find("accept").click()
    # the combatants by their names in this encounter, not their sheets' (W-62)
    done = "attack_resolved duel → troll with Dagger  [S-7]"
    host.wait("the Action", lambda _s: done in host.log())
    log = host.log()
    assert "attack_resolved duel → troll with Long Sword  [S-7]" in log
    assert "d100 98 (Clumsy (dual wielding) −10 × size S -10) → 88 vs AC 8, Dodge 10: hit" in log


def shown(name: str) -> Callable[[Seat], bool]:
    """Whether the set-up page lists ``name`` among its combatants."""
    return lambda seat: name in seat.text("setup-combatants")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_sa93_the_host_places_a_model_above_the_ground_perched_or_flying(
    server: LiveServer, browser: WebDriver, size: str
) -> None:
    """SA-93: the set-up form's "Above the ground" choice; unsaid, a sheet that cannot fly is
    perched; the cards say Flying or Perched."""
    browser.set_window_size(*SIZES[size])
    web = server.table
    table_id, token = web.create_table(f"The roofs {size}")
    info = web.create_encounter(Principal(table_id, None), table_id, "strife-combat", "Roofs", 5)
    base = f"{server.base}/tables/{table_id}/encounters/{info.id}"
    browser.get(f"{base}?token={token}")
    browser.get(f"{base}/setup")
    host = Person("Host", browser)
    for who, above, side in (("Sera", "flying", None), ("Goblin", None, "heroes")):
        form = "#character-form"
        Select(browser.find_element(By.CSS_SELECTOR, f"{form} [name='model']")
               ).select_by_value(who)  # fmt: skip
        if side is None:
            browser.find_element(By.CSS_SELECTOR, f"{form} [name='side_new']").send_keys("heroes")
        else:
            Select(browser.find_element(By.CSS_SELECTOR, f"{form} [name='side']")
                   ).select_by_value(side)  # fmt: skip
        summary = browser.find_element(By.CSS_SELECTOR, f"{form} details.placing summary")
        if not browser.find_element(By.CSS_SELECTOR, f"{form} [name='z']").is_displayed():
            summary.click()
        z = browser.find_element(By.CSS_SELECTOR, f"{form} [name='z']")
        z.clear()
        z.send_keys("3")
        choice = Select(browser.find_element(By.CSS_SELECTOR, f"{form} [name='above']"))
        assert choice.first_selected_option.get_attribute("value") == "sheet"
        if above is not None:
            choice.select_by_value(above)
        browser.find_element(By.CSS_SELECTOR, f"{form} button").click()
        host.wait(f"{who} added", shown(who))
    models = web.live(info.id).state.models
    assert (models["Sera"].perched, models["Goblin"].perched) == (False, True)
    browser.get(base)
    host.wait("the cards", lambda s: "Flying" in s.text("cards"))
    assert "Perched" in host.text("cards")


@pytest.mark.slow
def test_sa96_sa97_sa98_a_player_on_a_phone_reacts_and_commands_a_controlled_model(
    server: LiveServer, browser: WebDriver
) -> None:
    """On a laptop the Host plays the Goblin's Turn (SA-98); on a phone Ann is offered
    Aldric's Reversal as a decision and takes it (SA-96); the Goblin, Mind Controlled by
    Aldric, is then moved by Ann's seat (SA-97)."""
    from test_issue27_reactions import sheet
    from test_web_e2e_decisions import Person as Decider

    web = server.table
    table_id, token = web.create_table("The charm")
    host = Principal(table_id, None)
    info = web.create_encounter(host, table_id, "strife-combat", "The glade", 5)
    _seat, ann_token = web.add_player(host, table_id, "Ann", ("Aldric",))
    aldric: dict[str, Any] = {
        "id": "Aldric",
        "sheet": sheet("Aldric", skills=("Reversal",)),
        "side": "heroes",
    }
    goblin: dict[str, Any] = {"id": "Goblin", "model": "Goblin", "side": "monsters"}
    goblin["position"] = [1, 0, 0]
    for kind, args in [("add", aldric), ("add", goblin), ("start", {"ambush": "monsters"})]:
        web.execute(host, info.id, Command(kind, args), None)
    page = f"/tables/{table_id}/encounters/{info.id}"
    browser.set_window_size(*SIZES["laptop"])
    browser.get(f"{server.base}{page}?token={token}")
    with chromiums("player") as drivers:
        phone = drivers[0]
        phone.set_window_size(*SIZES["phone"])
        phone.get(f"{server.base}/join/{ann_token}")
        phone.get(f"{server.base}{page}")
        ann, the_host = Decider("Ann", phone), Person("Host", browser)
        the_host.wait("the NPC's Turn", lambda s: "Goblin" in s.text("turn-head"))
        the_host.find("h-npc").click()
        ann.wait("the Reaction", lambda s: any(p["kind"] == "skill_reaction"
                                                for p in s.panels()))  # fmt: skip
        (panel,) = [p for p in ann.panels() if p["kind"] == "skill_reaction"]
        assert [b.removesuffix(" (suggested)") for b in panel["buttons"]] == [
            "Reversal (Skill Reaction, when it is attacked)", "No reaction"]  # fmt: skip
        ann.choose("skill_reaction", "Reversal")
        ann.wait("the attack", lambda s: any("Goblin → Aldric" in line for line in s.log()))
        assert not web.live(info.id).state.rounds.can_react("Aldric")
        condition = {"id": "Goblin", "name": "Mind Controlled", "source": "Aldric"}
        web.execute(host, info.id, Command("condition", condition), None)
        web.execute(host, info.id, Command("next", {}), None)  # its Action ended its Turn (S-5)
        while web.live(info.id).state.current != "Goblin":
            web.execute(host, info.id, Command("next", {}), None)
        ann.wait("the Goblin's Turn, Ann's", lambda s: "Your Turn — Goblin" in s.text("turn-head"))
        ann.wait("the Goblin to command", lambda s: "Goblin" in options(s, "p-actor"))
        Select(ann.find("p-actor")).select_by_value("Goblin")
        ann.wait("its controller", lambda s: "Controlled by" in s.text("p-values"))
        ann.move_to((1, 2, 0))
        ann.wait("the Goblin moved", lambda s: web.live(info.id).state.models["Goblin"]
                 .position == (1.0, 2.0, 0.0))  # fmt: skip
