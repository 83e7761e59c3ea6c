"""The chat and dice roller on the fight page (W-30 … W-33), in real browsers.

The Host and two players (the demo War) each have their own headless chromium against a real
server: a message and a 7d12 roll with a Boon appear live in the others' chats, at 1366 × 768
and at 390 × 844, where the chat starts folded below the play panel. A whisper reaches only the
Host. No page scrolls sideways, and the chat passes axe-core (tests/a11y.py).
"""

from __future__ import annotations

from typing import Any

import test_web_e2e
from a11y import assert_accessible
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from test_web_e2e import Seat, Table

# test_web_e2e's fixtures: a live server, three browsers, the demo table as the three see it
server = test_web_e2e.server
browsers = test_web_e2e.browsers
table = test_web_e2e.table
DESKTOP, PHONE = (1366, 768), (390, 844)
READ_CHAT = """
return [...document.querySelectorAll('#chat-list .msg')].map(m => ({
  id: Number(m.dataset.id), who: m.querySelector('.who').textContent,
  text: (m.querySelector('.text') || {}).textContent || null,
  whisper: (m.querySelector('.whispered') || {}).textContent || null,
  summary: (m.querySelector('.roll-card .summary') || {}).textContent || null,
  chips: [...m.querySelectorAll('.die')].map(d => ({face: d.firstChild.textContent,
    cls: d.className, cue: (d.querySelector('.cue') || {}).textContent || '',
    color: getComputedStyle(d).backgroundColor,
    struck: getComputedStyle(d).textDecorationLine}))}));
"""
PAGE_FITS = """
const page = document.documentElement;
return page.scrollWidth <= page.clientWidth + 0.5;
"""
TOP_OF = "return document.getElementById(arguments[0]).getBoundingClientRect().top;"
HEIGHT_OF = "return document.getElementById(arguments[0]).getBoundingClientRect().height;"


def chat(seat: Seat) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = seat.driver.execute_script(READ_CHAT)
    return found


def page_fits(seat: Seat) -> bool:
    return bool(seat.driver.execute_script(PAGE_FITS))


def open_chat(seat: Seat) -> None:
    fold = seat.driver.find_element(By.ID, "chat-fold")
    if not fold.get_attribute("open"):
        seat.driver.find_element(By.CSS_SELECTOR, "#chat-fold summary").click()
    seat.wait("the chat open", lambda s: s.driver.find_element(By.ID, "chat-text").is_displayed())


def write(seat: Seat, text: str, to: str | None = None) -> None:
    """Type a message and send it with the keyboard, as a person would."""
    open_chat(seat)
    if to is not None:
        Select(seat.driver.find_element(By.ID, "chat-to")).select_by_visible_text(to)
    box = seat.driver.find_element(By.ID, "chat-text")
    box.clear()
    box.send_keys(text, Keys.ENTER)


def roll_with_boon(seat: Seat, boon: int) -> None:
    open_chat(seat)
    Select(seat.driver.find_element(By.ID, "dice-kind")).select_by_value("d12")
    field = seat.driver.find_element(By.ID, "dice-boon")
    field.clear()
    field.send_keys(str(boon))
    seat.driver.find_element(By.ID, "dice-roll").click()


def shows(text: str) -> Any:
    return lambda s: any(m["text"] == text for m in chat(s))


def test_w30_a_message_and_a_7d12_roll_with_a_boon_appear_live_at_desktop_size(
    table: Table,
) -> None:
    for seat in table.everyone:
        seat.driver.set_window_size(*DESKTOP)
    write(table.host, "<script>alert(1)</script> Welcome to the ford")
    for seat in table.everyone:
        seat.wait("the Host's message", shows("<script>alert(1)</script> Welcome to the ford"))
        assert chat(seat)[-1]["who"] == "Host"
    roll_with_boon(table.holy, 1)
    for seat in table.everyone:
        seat.wait("the roll card", lambda s: any(m["summary"] for m in chat(s)))
        card = [m for m in chat(seat) if m["summary"]][-1]
        assert card["who"] == table.holy.name
        assert card["summary"].startswith("7d12, Boon 1: ")
        assert len(card["chips"]) == 8
        struck = [c for c in card["chips"] if "discarded" in c["cls"]]
        assert len(struck) == 1 and struck[0]["struck"] == "line-through"  # M-7: one discarded
        kept = [c for c in card["chips"] if "discarded" not in c["cls"]]
        assert all(c["cue"] in {"H", "M", "S", "H+", "S!"} for c in kept)  # a text cue each
        colours = {c["cue"]: c["color"] for c in kept}
        assert len(set(colours.values())) == len(colours)  # each count its own colour
        assert seat.same_page() and page_fits(seat)
    assert_accessible(table.holy.driver, ["#chat"])


def test_w30_at_phone_size_the_chat_folds_below_play_and_a_whisper_reaches_only_the_host(
    table: Table,
) -> None:
    for seat in table.everyone:
        seat.driver.set_window_size(*PHONE)
        seat.driver.refresh()
        seat.wait("the page", lambda s: s.driver.find_element(By.ID, "chat-fold") is not None)
    for seat in table.everyone:
        assert seat.driver.find_element(By.ID, "chat-fold").get_attribute("open") is None
        assert page_fits(seat)
    # the folded chat comes after the play panel and takes one line: it pushes nothing down
    driver = table.holy.driver
    assert driver.execute_script(TOP_OF, "chat") > driver.execute_script(TOP_OF, "play")
    assert driver.execute_script(HEIGHT_OF, "chat") < 80
    write(table.fallen, "only for the Host", to="Only the Host (whisper)")
    table.host.wait("the whisper", lambda s: s.text("chat-unread") == "1 new")
    open_chat(table.host)
    table.host.wait("the whisper", shows("only for the Host"))
    assert chat(table.host)[-1]["whisper"] == "whisper to the Host"
    write(table.host, "Everyone: roll initiative")
    table.holy.wait("the public message", lambda s: s.text("chat-unread") == "1 new")
    open_chat(table.holy)
    table.holy.wait("the public message", shows("Everyone: roll initiative"))
    assert not shows("only for the Host")(table.holy)
    roll_with_boon(table.holy, 1)
    for seat in table.everyone:
        open_chat(seat)
        seat.wait("the roll card", lambda s: any(m["summary"] for m in chat(s)))
        assert page_fits(seat), f"{seat.name}'s page scrolls sideways"
    assert_accessible(table.host.driver, ["#chat"])
    assert_accessible(table.holy.driver, ["#chat"])


def test_w31_a_realm_of_strife_d20_test_is_rolled_and_seen_live(table: Table) -> None:
    demo = table.demo
    fight = f"{table.server.base}/tables/{demo.table_id}/encounters/{demo.fight_id}"
    for seat in (table.host, table.holy):
        seat.driver.set_window_size(*DESKTOP)
        seat.driver.get(fight)
        seat.wait("the fight", lambda s: s.driver.find_element(By.ID, "dice-kind") is not None)
    kinds = Select(table.host.driver.find_element(By.ID, "dice-kind")).options
    assert [o.get_attribute("value") for o in kinds] == ["d20", "d100"]
    open_chat(table.host)
    for field, value in (("dice-stat", "8"), ("dice-advantage", "2"), ("dice-typed", "11")):
        box = table.host.driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    table.host.driver.find_element(By.ID, "dice-roll").click()
    summary = "d20 11 +8 +2 = 21 (needs more than 20): success.typed dice"
    for seat in (table.host, table.holy):
        open_chat(seat)
        seat.wait("the d20 card", lambda s: any(m["summary"] == summary for m in chat(s)))
        assert page_fits(seat)
