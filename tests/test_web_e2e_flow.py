"""Decisions that flow (issue 21), replayed as a new group would play them, in real chromium.

The Host on a laptop-size window, Ann on a laptop (she plays the Watcher or Aldric), Ben on a
phone at 390 × 844 (he plays the Herald or Sera), each in their own browser against a real
server on a free port, a fresh store per test. The War: the Watcher and the Herald against two
NPCs whose values are secret, Jackal and Boss (Boss's numbers are all of 100 or more, so any
that reaches a player is found). The fight: Aldric and Sera against a Goblin (an NPC).

Each test replays one item of the issue: (1) a player's changed Adjustments never leave the Host
without an option, and NPCs turned automatic answer at once; (2) a hidden Strike on a player's
character asks that player; (3) the defender decides seeing the dice, in plain words, with a die
picker; (4) the Host's questions of a command on one card, Approve suggested, before the dice;
(5) Realm of Strife dice stage by stage, each prompt saying what the die is for, every typed
value in the breakdown, Enter sending; and: an action while the server is unreachable says it
was not sent. Every new card passes axe-core at both sizes; a player's page, decisions and
stream carry no secret number.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from a11y import assert_accessible, axe_source
from hostile import TOKEN_RUN, secret_pattern
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from test_web_e2e import LiveServer, browser_paths, chromiums
from test_web_e2e_decisions import DESKTOP, PHONE, Person, options
from test_web_secrets import BOSS

from tableside.encounter.log import Command
from tableside.encounter.roster import FOUR_AGAINST_FOUR, add_commands
from tableside.store import table_audience
from tableside.web.auth import Principal

ANN, BEN = "Ann", "Ben"
AT = {"Herald": (0.0, 0.0, 0.0), "Watcher": (0.0, 2.0, 0.0), "Jackal": (1.0, 2.0, 0.0)}
BOSS_AT = [1.0, 0.0, 0.0]
BOSS_NUMBERS = {4321, 3142, 1732, 977, 661}  # Boss's values: none may reach a player (W-1)
RULING_ID = re.compile(r"\b[MSWDF]A?-\d+\b")
CARDS = """
return [...document.querySelectorAll('#decision-panels .decision-card')].map(c => ({
  head: c.querySelector('.card-head').textContent,
  apply: c.querySelectorAll('.apply').length,
  questions: [...c.querySelectorAll('.decision')].map(d => ({kind: d.dataset.kind, id: d.id,
    title: d.querySelector('h3').textContent,
    dice: [...d.querySelectorAll('.dice')].map(p => p.textContent),
    buttons: [...d.querySelectorAll('.options button')].map(b => ({text: b.textContent,
      pressed: b.getAttribute('aria-pressed'), suggested: b.classList.contains('suggested')}))
  }))}));
"""
VISIBLE_TEXT = """
return [...document.querySelectorAll('#decision-panels .decision')].map(d => {
  const copy = d.cloneNode(true);
  copy.querySelectorAll('details').forEach(x => x.remove());
  return copy.textContent; }).join('\\n');
"""
FETCH_JSON = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {headers: auth}).then(r => r.text()).then(done, e => done(String(e)));
"""
STREAM = """
const done = arguments[arguments.length - 1], got = [];
const s = new EventSource(api + '/stream?after=0');
const keep = ev => got.push(ev.type + ' ' + ev.data);
for (const k of ['record', 'moved', 'state']) s.addEventListener(k, keep);
setTimeout(() => { s.close(); done(got.join('\\n')); }, 1500);
"""


@dataclass
class Table:
    """One table: its encounter and the three people at it."""

    server: LiveServer
    encounter: int
    host: Person
    ann: Person  # laptop: the Watcher (War), Aldric (fight)
    ben: Person  # phone: the Herald (War), Sera (fight)

    @property
    def everyone(self) -> tuple[Person, Person, Person]:
        return (self.host, self.ann, self.ben)

    def settings(self, **changes: Any) -> None:
        """The Host's decision settings, set in the store (the page's form is tested apart)."""
        store = self.server.table.store
        now = table_audience.decision_settings(store, self.encounter).to_json()
        settings = table_audience.DecisionSettings(**{**now, **changes})
        table_audience.set_decision_settings(store, self.encounter, settings)

    def log_has(self, start: str) -> bool:
        return any(line.startswith(start) for line in self.host.log())


@pytest.fixture(scope="module")
def browsers() -> Iterator[tuple[WebDriver, WebDriver, WebDriver]]:
    axe_source()
    with chromiums("host", "ann", "ben") as drivers:
        yield drivers[0], drivers[1], drivers[2]


@pytest.fixture
def server() -> Iterator[LiveServer]:
    browser_paths()
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/flow.db") as live:
        yield live


def people(browsers: tuple[WebDriver, WebDriver, WebDriver]) -> tuple[Person, Person, Person]:
    """The Host and Ann at a laptop's size, Ben at a phone's; nothing kept from another test."""
    host, ann, ben = (Person(n, d) for n, d in zip(("Host", ANN, BEN), browsers, strict=True))
    for person, size in ((host, DESKTOP), (ann, DESKTOP), (ben, PHONE)):
        person.driver.delete_all_cookies()
        person.size(size)
    return host, ann, ben


def open_pages(table: Table, table_id: int, host_token: str, links: dict[str, str]) -> None:
    base = f"{table.server.base}/tables/{table_id}/encounters/{table.encounter}?token="
    table.host.driver.get(base + host_token)
    for person in (table.ann, table.ben):
        person.driver.get(base + links[person.name])


def war_table(server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver],
              current: str) -> Table:  # fmt: skip
    """The War: Ann's Watcher and Ben's Herald against Jackal and Boss (NPCs, values secret)."""
    web = server.table
    table_id, host_token = web.create_table("Ford")
    who = Principal(table_id, None)
    info = web.create_encounter(who, table_id, "majesty-war", "Skirmish", 7)
    roster = tuple((n, s, w, AT[n], a) for n, s, w, _at, a in FOUR_AGAINST_FOUR if n in AT)
    boss = Command("add", {"id": "Boss", "position": BOSS_AT, "character": BOSS})
    for command in (*add_commands(roster), boss, Command("next")):
        web.execute(who, info.id, command, None)
    for npc in ("Jackal", "Boss"):
        table_audience.set_secret(web.store, info.id, npc, True)
    seating = (table_id, host_token, info.id)
    return at_turn(server, browsers, seating, current, ("Watcher", "Herald"), ("the War", 8))


def at_turn(
    server: LiveServer,
    browsers: tuple[WebDriver, WebDriver, WebDriver],
    seating: tuple[int, str, int],
    current: str,
    characters: tuple[str, str],
    shown: tuple[str, int],
) -> Table:
    """The Host steps the encounter to ``current``'s Turn (at most ``shown[1]`` steps); Ann and
    Ben take ``characters``; everyone opens the page and sees the Turn (``shown[0]``: its name)."""
    web = server.table
    table_id, host_token, encounter_id = seating
    who = Principal(table_id, None)
    for _ in range(shown[1]):
        if web.state(encounter_id, who)["current"] == current:
            break
        web.execute(who, encounter_id, Command("next", {}), None)
    assert web.state(encounter_id, who)["current"] == current
    links = {name: web.add_player(who, table_id, name, (char,))[1]
             for name, char in zip((ANN, BEN), characters, strict=True)}  # fmt: skip
    table = Table(server, encounter_id, *people(browsers))
    open_pages(table, table_id, host_token, links)
    for person in table.everyone:
        person.wait(shown[0], lambda s: f"{current}'s Turn" in s.text("whose"))
    return table


def fight_table(server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver],
                current: str) -> Table:  # fmt: skip
    """The fight: Ann's Aldric and Ben's Sera against a Goblin (the Host's NPC, a Spear)."""
    web = server.table
    table_id, host_token = web.create_table("Mill")
    who = Principal(table_id, None)
    info = web.create_encounter(who, table_id, "strife-combat", "Goblin at the mill", 5)
    for args in ({"id": "Aldric", "model": "Aldric", "side": "heroes"},
                 {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 2, 0]},
                 {"id": "Goblin", "model": "Goblin", "side": "monsters",
                  "position": [1, 0, 0]}):  # fmt: skip
        web.execute(who, info.id, Command("add", args), None)
    web.execute(who, info.id, Command("start", {}), None)
    seating = (table_id, host_token, info.id)
    return at_turn(server, browsers, seating, current, ("Aldric", "Sera"), ("the fight", 4))


def aim(person: Person, actor: str, target: str) -> None:
    """The play panel's acting character and target, picked as a person would."""
    person.wait("the actor", lambda s: actor in options(s, "p-actor"))
    Select(person.find("p-actor")).select_by_value(actor)
    person.wait("the target", lambda s: target in options(s, "p-target"))
    Select(person.find("p-target")).select_by_value(target)


def cards(person: Person) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = person.driver.execute_script(CARDS)
    return found


def plain_words(person: Person) -> None:
    """Issue 21: the decision's visible words carry no JSON and no ruling id (Details may)."""
    text: str = person.driver.execute_script(VISIBLE_TEXT)
    assert text.strip(), f"{person.name} has no decision to read"
    assert "{" not in text and '"mode"' not in text, text
    assert not RULING_ID.search(text), text


def no_secrets(person: Person) -> None:
    """Nothing a player receives carries a secret number of Boss (W-1): page, decisions, stream."""
    leak = secret_pattern(BOSS_NUMBERS)
    page = person.driver.page_source
    decisions = person.driver.execute_async_script(FETCH_JSON, "/api/encounters/" + str(
        person.driver.execute_script("return boot.encounter;")) + "/decisions")  # fmt: skip
    stream = person.driver.execute_async_script(STREAM)
    for name, raw in (("page", page), ("decisions", decisions), ("stream", stream)):
        text = TOKEN_RUN.sub("<run>", raw)  # a token or a nonce may hold any digits
        found = leak.search(text)
        assert not found, f"{person.name}'s {name} carries {found.group()} in " + repr(
            text[max(0, found.start() - 120) : found.end() + 120])  # fmt: skip


def asked_or_done(kind: str) -> Callable[[Person], bool]:
    """A check: a question of ``kind`` is on the page, or nobody decides anything any more."""

    def check(seat: Person) -> bool:
        return any(p["kind"] == kind for p in seat.panels()) or seat.text("waiting").startswith(
            "Nobody")  # fmt: skip

    return check


def network(person: Person, offline: bool) -> None:
    """The browser's network cut off or back (chromium's own emulation: requests fail)."""
    conditions = {"offline": offline, "latency": 0, "downloadThroughput": -1,
                  "uploadThroughput": -1}  # fmt: skip
    person.driver.execute_cdp_cmd("Network.enable", {})
    person.driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)


def accessible_at_both_sizes(person: Person, selector: str) -> None:
    for size in (DESKTOP, PHONE):
        person.size(size)
        assert person.overflow() == [], (person.name, size)
        assert_accessible(person.driver, [selector])
    person.size(PHONE if person.name == BEN else DESKTOP)


# -- item 1: a player's changed Adjustments never strand the Host -------------------------------


def test_i21_1_changed_adjustments_leave_the_host_an_option_and_auto_releases_it(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 1 (M-12, M-13, D-5): My dice, Enter, Change, 4+, Apply; the Host is asked
    Jackal's Obstruction with options; NPCs made automatic on the page answer it at once."""
    table = war_table(server, browsers, "Watcher")
    table.settings(npcs_decide="ask")
    host, ann = table.host, table.ann
    change_to(ann, "3 4 9 8 1 7 5", "4+")  # die 4: 8 → 9
    host.wait("the Host's card", lambda s: len(cards(s)) == 1)
    card = cards(host)[0]
    assert card["apply"] == 1
    for question in card["questions"]:
        assert question["buttons"], f"{question['title']} offers the Host no option"
    accessible_at_both_sizes(host, "#decisions")
    host.driver.find_element(By.CSS_SELECTOR, "#settings summary").click()
    Select(host.find("s-npcs")).select_by_value("auto")
    host.click("s-save")
    for person in table.everyone:
        person.wait("the Strike", lambda s: any(x.startswith("strike_resolved Watcher → Jackal")
                                                for x in s.log()))  # fmt: skip
        person.wait("nobody deciding", lambda s: s.text("waiting").startswith("Nobody"))


def change_to(ann: Person, dice: str, steps: str) -> None:
    """Ann's Watcher strikes Jackal with her dice: My dice, Enter, Change, the steps, Apply."""
    aim(ann, "Watcher", "Jackal")
    ann.type("my-dice", dice)
    ann.find("my-dice").send_keys(Keys.ENTER)  # Enter in My dice is Use my dice (item 5)
    ann.wait("the suggestion", lambda s: s.find("suggestion").is_displayed())
    ann.click("change")
    ann.type("steps", steps)
    ann.click("apply-steps")


def test_i21_1_an_impossible_step_is_refused_at_once_not_left_waiting(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 1 (M-12): "4+" on a 12 cannot be; Ann is told at once, in one sentence,
    nothing is written and nobody is asked (it never jams the fight)."""
    table = war_table(server, browsers, "Watcher")
    table.settings(npcs_decide="ask")
    before = server.table.store.encounter(table.encounter).revision
    change_to(table.ann, "3 4 9 12 1 7 5", "4+")  # die 4 is a 12
    table.ann.wait("the refusal", lambda s: "Die 4" in s.text("error"))
    assert server.table.store.encounter(table.encounter).revision == before
    assert table.host.text("waiting").startswith("Nobody")
    assert cards(table.host) == []


# -- item 2: a hidden Strike on a player's character asks that player ----------------------------


def test_i21_2_a_hidden_strike_on_the_herald_asks_bens_phone(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 2 (D-4, W-9): Boss's hidden Strike on the Herald asks Ben, who sees his own
    dice and options and no number of Boss; both screens say Ben decides."""
    table = war_table(server, browsers, "Boss")
    table.settings(npcs_decide="auto")
    host, ben = table.host, table.ben
    aim(host, "Boss", "Herald")
    host.find("p-hidden").click()
    host.click("roll")
    host.wait("the Host's banner", lambda s: "Herald's player (Ben)" in s.text("waiting"))
    ben.wait("Ben's question", lambda s: any(p["kind"] == "obstruction" for p in s.panels()))
    asked = next(p for p in ben.panels() if p["kind"] == "obstruction")
    assert asked["title"].startswith("Your decision: Herald's")
    assert asked["buttons"] and all(not b.startswith("{") for b in asked["buttons"])
    assert any(d.startswith("Dice rolled") for d in asked["dice"]), asked
    assert "Herald" in ben.text("waiting")
    assert "Decided by Herald's player (Ben)." in ben.driver.execute_script(VISIBLE_TEXT)
    plain_words(ben)
    no_secrets(ben)
    accessible_at_both_sizes(ben, "#decisions")
    for question in ("obstruction", "adjustments"):
        ben.wait(f"the {question} or the end", asked_or_done(question))
        if any(p["kind"] == question for p in ben.panels()):
            first = next(p for p in ben.panels() if p["kind"] == question)["buttons"][0]
            ben.choose(question, first)
    host.wait("the hidden Strike", lambda s: table.log_has("strike_resolved Boss → Herald"))
    ben.wait("nobody deciding", lambda s: s.text("waiting").startswith("Nobody"))
    no_secrets(ben)


# -- item 3: the defender decides seeing the dice, in plain words ---------------------------------


def test_i21_3_the_watcher_decides_with_the_dice_in_plain_words_and_picks_dice(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 3 (W-40, M-10, M-12, M-13): Jackal's Strike; Ann sees the rolled dice,
    the options with their effect, no JSON and no ruling id but behind Details, and picks dice
    herself."""
    table = war_table(server, browsers, "Jackal")
    table.settings(npcs_decide="auto")
    host, ann = table.host, table.ann
    aim(host, "Jackal", "Watcher")
    host.click("roll")
    ann.wait("the Obstruction", lambda s: any(p["kind"] == "obstruction" for p in s.panels()))
    for person in table.everyone:
        person.wait("who decides", lambda s: "Watcher's player (Ann)" in s.text("waiting"))
    asked = next(p for p in ann.panels() if p["kind"] == "obstruction")
    assert any(d.startswith("Dice rolled") for d in asked["dice"]), asked
    assert asked["buttons"][0].startswith(("No Obstruction", "0 Obstruction"))
    assert len(asked["buttons"]) <= 8
    plain_words(ann)
    details = ann.driver.find_element(By.CSS_SELECTOR, ".decision details summary")
    assert details.text == "Details"
    accessible_at_both_sizes(ann, "#decisions")
    ann.choose("obstruction", asked["buttons"][0])
    ann.wait("the Adjustments", lambda s: any(p["kind"] == "adjustments" for p in s.panels()))
    adjust = next(p for p in ann.panels() if p["kind"] == "adjustments")
    assert [b.split(":")[0].removesuffix(" (suggested)") for b in adjust["buttons"]] == [
        "Best for Watcher", "No Adjustments", "Choose dice…"]  # fmt: skip
    assert any(d.startswith("Dice rolled") for d in adjust["dice"])
    plain_words(ann)
    ann.choose("adjustments", "Choose dice…")
    picker = ann.driver.find_element(By.CSS_SELECTOR, ".decision[data-kind='adjustments'] .picker")
    assert picker.is_displayed()
    accessible_at_both_sizes(ann, "#decisions")
    lower = picker.find_element(By.CSS_SELECTOR, "button[aria-label='Lower die 1']")
    lower.click()
    send = next(b for b in picker.find_elements(By.TAG_NAME, "button")
                if b.text == "Send these Adjustments")  # fmt: skip
    send.click()
    for person in table.everyone:
        person.wait("the Strike", lambda s: any(x.startswith("strike_resolved Jackal → Watcher")
                                                for x in s.log()))  # fmt: skip
    no_secrets(ann)


def test_i21_3_the_host_decides_for_ann_and_her_screen_says_so(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21, W-40, D-4: the Host answers the Watcher's Obstruction for Ann on the card
    (she is asked, the Host may decide anything); Ann's screen says the Host decided it."""
    table = war_table(server, browsers, "Jackal")
    table.settings(npcs_decide="auto")
    host, ann = table.host, table.ann
    aim(host, "Jackal", "Watcher")
    host.click("roll")
    ann.wait("the Obstruction", lambda s: any(p["kind"] == "obstruction" for p in s.panels()))
    host.wait(
        "the Host's card",
        lambda s: any(q["kind"] == "obstruction" for c in cards(s) for q in c["questions"]),
    )
    card = cards(host)[0]
    assert not [b for q in card["questions"] for b in q["buttons"] if b["pressed"] == "true"]
    host.choose("obstruction", "1 Obstruction token")
    host.click_apply()
    ann.wait(
        "told the Host decided",
        lambda s: (
            s.text("decision-status")
            == ("The Host decided Watcher's Obstruction tokens for you: 1 Obstruction token.")
        ),
    )


# -- item 4: less for the Host --------------------------------------------------------------------


def test_i21_4_a_boon_is_one_card_for_the_host_approve_suggested_before_the_dice(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 4 (W-40, D-4): Ann's Strike with Boon 1; the Host gets one card, Approve preset
    and suggested, no dice yet; its NPC questions come on one card too; one Apply each."""
    table = war_table(server, browsers, "Watcher")
    table.settings(npcs_decide="ask")
    host, ann = table.host, table.ann
    assert host.find("h-start").is_displayed()  # Start the War sits in the play panel
    assert host.driver.execute_script(IN_PLAY_PANEL)
    aim(ann, "Watcher", "Jackal")
    ann.type("p-boon", "1")
    ann.click("roll")
    host.wait("the Host's card", lambda s: len(cards(s)) == 1)
    card = cards(host)[0]
    kinds = [q["kind"] for q in card["questions"]]
    assert kinds == ["approve"], kinds  # the Boon is approved before anything is rolled
    approve = card["questions"][0]
    assert approve["dice"] == []
    first = approve["buttons"][0]
    assert first["text"].startswith("Approve") and first["suggested"] and first["pressed"] == "true"
    accessible_at_both_sizes(host, "#decisions")
    ann.wait("Ann told whom she waits for", lambda s: "approval" in s.text("decision-status"))
    answered = {approve["id"]}
    host.click_apply()
    for _ in range(3):  # the NPC's questions after the approval, all on one card
        host.wait("the next card or the end", next_card(table, answered))
        if table.log_has("strike_resolved Watcher → Jackal"):
            break
        assert len(cards(host)) == 1
        for question in cards(host)[0]["questions"]:
            assert any(b["pressed"] == "true" for b in question["buttons"]), question
            answered.add(question["id"])
        host.click_apply()
    for person in table.everyone:
        person.wait("the Strike", lambda s: any(x.startswith("strike_resolved Watcher → Jackal")
                                                for x in s.log()))  # fmt: skip
    log = host.log()
    at = next(i for i, x in enumerate(log) if x.startswith("strike_resolved Watcher → Jackal"))
    assert any(x.startswith("Boon/Bane +1") for x in log[at:])


def next_card(table: Table, answered: set[str]) -> Callable[[Person], bool]:
    """A check: the Host's one card asks only new questions, or the Strike is resolved."""

    def check(seat: Person) -> bool:
        if table.log_has("strike_resolved Watcher → Jackal"):
            return True
        shown = cards(seat)
        ids = {q["id"] for card in shown for q in card["questions"]}
        return len(shown) == 1 and bool(ids) and not ids & answered

    return check


# -- item 5: Realm of Strife dice stage by stage --------------------------------------------------


IN_PLAY_PANEL = """
return !!document.querySelector('#play-panel > #host-start #h-start') &&
  !document.querySelector('#host-tools #h-start');
"""
STAGE = """
const [done, roller] = [arguments[0], arguments[1] || ''];
const box = [...document.querySelectorAll('#decision-panels .decision[data-kind="dice"]')].find(
  b => !done.includes(b.id) && b.querySelector('.prompt').textContent.startsWith(roller));
return box ? [box.id, box.querySelector('.prompt').textContent] : null;
"""


def type_stage(person: Person, entered: list[str], done: list[str], roller: str = "") -> str:
    """Type the die of the dice stage asked now (its prompt names its purpose); Enter sends.

    ``done``: the stages already typed (their panels may linger until the page hears back);
    ``roller``: only a stage of this combatant (the Host sees everyone's, and rolls the NPC's).
    """
    said: list[str] = []

    def typed(seat: Person) -> bool:
        found = seat.driver.execute_script(STAGE, done, roller)
        if not found:
            return False
        stage = {"id": found[0], "prompt": found[1]}
        face = re.search(r"\d+d(\d+)", stage["prompt"])
        sides = face.group(1) if face is not None else ""
        value = {"20": "14", "100": "55"}.get(sides, "3")  # a d8's damage: 3
        box = seat.find(stage["id"]).find_element(By.CSS_SELECTOR, "input.die")
        box.send_keys(value, Keys.ENTER)  # stale (the panel replaced): the wait tries again
        done.append(stage["id"])
        said.append(stage["prompt"])
        entered.append(value)
        return True

    person.wait("a dice stage typed", typed)
    prompt = said[-1]
    assert re.search(r"roll \d+d\d+ and enter the faces\. It is for .+\.$", prompt), prompt
    return prompt


def test_i21_5_strife_stages_say_what_each_die_is_for_and_show_every_typed_value(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 5 (S-2, S-13, D-6): Aldric attacks the Goblin with his own dice; the Goblin
    wards off; the stages come in table order (the d100, then the Ward-off d20), every stage's
    prompt says what its die is for; each typed value is in the card."""
    table = fight_table(server, browsers, "Aldric")
    table.settings(npcs_decide="ask")
    host, ann = table.host, table.ann
    aim(ann, "Aldric", "Goblin")
    ann.find("p-physical").click()
    ann.click("roll")
    host.wait("the Goblin's Reaction", lambda s: any(q["kind"] == "reaction" for c in cards(s)
                                                     for q in c["questions"]))  # fmt: skip
    host.choose("reaction", "Ward-off")
    host.click_apply()
    prompts: list[str] = []
    entered: list[str] = []
    done: list[str] = []
    for _ in range(4):
        ann.wait("a stage or the end", lambda s: s.driver.execute_script(STAGE, done)
                 or table.log_has("attack_resolved Aldric → Goblin"))  # fmt: skip
        if table.log_has("attack_resolved Aldric → Goblin"):
            break
        prompts.append(type_stage(ann, entered, done))
    assert any("Ward-off" in p for p in prompts), prompts
    # Table order (D-6): the attacker's d100 first, then the Ward-off contest's d20.
    assert entered[:2] == ["55", "14"], (entered, prompts)
    assert "Ward-off" not in prompts[0] and "Ward-off" in prompts[1], prompts
    host.wait("the attack", lambda s: table.log_has("attack_resolved Aldric → Goblin"))
    for person in table.everyone:
        person.wait("the typed 14 in the breakdown", lambda s: any(
            x.startswith("Ward-off roll-off: Aldric d20 14 → ") for x in s.log()))  # fmt: skip


def test_i21_5_the_host_rolls_the_goblins_dice_and_aldrics_player_types_her_parry(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 item 5 (S-10, S-11, D-6): Enter in My dice shows the Host's preview; then the
    Host rolls the Goblin's dice at the table stage by stage, and Aldric's player is asked her
    own Parry d20 (not rolled by the server), typed on her screen; 14 shows in the card."""
    table = fight_table(server, browsers, "Goblin")
    host, ann = table.host, table.ann
    aim(host, "Goblin", "Aldric")
    host.type("my-dice", "70 8")
    host.find("my-dice").send_keys(Keys.ENTER)  # Enter in My dice is Use my dice
    host.wait("the preview", lambda s: s.find("suggestion").is_displayed())
    host.click("discard")
    host.find("p-physical").click()
    host.click("roll")
    typed: dict[str, list[str]] = {"Host": [], ANN: []}
    done: list[str] = []
    prompts: list[str] = []
    for _ in range(6):
        host.wait("a question or the end", lambda s: resolved_or_asked(table, done))
        if table.log_has("attack_resolved Goblin → Aldric"):
            break
        if any(p["kind"] == "reaction" for p in ann.panels()):
            ann.choose("reaction", "Parry")
            ann.wait("the Reaction sent", lambda s: not any(
                p["kind"] == "reaction" for p in s.panels()))  # fmt: skip
        for person, roller in ((host, "Goblin:"), (ann, "Aldric:")):
            if person.driver.execute_script(STAGE, done, roller):
                prompt = type_stage(person, typed[person.name], done, roller)
                prompts.append(f"{person.name}: {prompt}")
    assert any(p.startswith(f"{ANN}: Aldric: roll 1d20") and "Block/Parry" in p
               for p in prompts), prompts  # fmt: skip
    assert typed[ANN] == ["14"]
    for person in table.everyone:
        person.wait("the parry's 14", lambda s: any(x.startswith("parry with ") and "d20 14" in x
                                                    for x in s.log()))  # fmt: skip


def resolved_or_asked(table: Table, done: list[str]) -> bool:
    """The Goblin's attack is resolved, or someone has a question of it to answer now."""
    if table.log_has("attack_resolved Goblin → Aldric"):
        return True
    if any(p["kind"] == "reaction" for p in table.ann.panels()):
        return True
    return bool(table.host.driver.execute_script(STAGE, done, "Goblin:")
                or table.ann.driver.execute_script(STAGE, done, "Aldric:"))  # fmt: skip


# -- offline is said ------------------------------------------------------------------------------


def test_i21_an_action_while_the_server_is_unreachable_says_it_was_not_sent(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21, W-41: the network gone, End the Turn says plainly it was not sent."""
    table = war_table(server, browsers, "Watcher")
    ann = table.ann
    before = server.table.store.encounter(table.encounter).revision
    network(ann, offline=True)
    try:
        ann.click("q-next")
        ann.wait("said not sent", lambda s: s.text("error").startswith("Not sent:"))
        assert "cannot be reached" in ann.text("error")
    finally:
        network(ann, offline=False)
    assert server.table.store.encounter(table.encounter).revision == before
    ann.click("q-next")  # back on line: the same button works
    ann.wait("the Turn ended", lambda s: "Watcher's Turn" not in s.text("whose"))
    assert ann.text("error") == ""


def test_i21_a_decision_while_the_server_is_unreachable_says_it_was_not_sent(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21, W-41: a decision's answer that cannot reach the server says so; nothing is
    stored."""
    table = war_table(server, browsers, "Jackal")
    table.settings(npcs_decide="auto")
    host, ann = table.host, table.ann
    aim(host, "Jackal", "Watcher")
    host.click("roll")
    ann.wait("the Obstruction", lambda s: any(p["kind"] == "obstruction" for p in s.panels()))
    before = server.table.store.encounter(table.encounter).revision
    ann.driver.execute_script("window.fetch = () => Promise.reject(new TypeError('offline'));")
    first = next(p for p in ann.panels() if p["kind"] == "obstruction")["buttons"][0]
    ann.choose("obstruction", first)
    ann.wait("said not sent", lambda s: s.text("decision-status").startswith("Not sent:"))
    assert ann.text("error").startswith("Not sent:")
    assert server.table.store.encounter(table.encounter).revision == before
    assert json.loads(json.dumps(ann.panels()))  # the question is still there to answer


# -- W-52: a player's steps past a secret count are clamped; the Host alone is told -------------


def test_w52_too_many_steps_against_a_secret_npc_are_clamped_and_only_the_host_reads_why(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 21 (W-52): on a phone, Ann's Watcher strikes Jackal (values secret) with her dice
    and twelve Adjustments, more than its surplus over Jackal's secret Guard: the Strike is made
    (not refused, which would tell her the count), the Host's log shows the Host-only note, and
    Ann's page, decisions and stream carry no note."""
    table = war_table(server, browsers, "Watcher")
    host, ann = table.host, table.ann
    ann.size(PHONE)
    change_to(ann, "3 4 9 8 1 7 5", ",".join(["3+", "3-"] * 6))  # die 3: 9 → 10 → 9 …
    for person in (host, ann):
        person.wait("the Strike", lambda s: any(x.startswith("strike_resolved Watcher → Jackal")
                                                for x in s.log()))  # fmt: skip
    assert ann.text("error") == ""
    host.wait("the Host's note", lambda s: any(x.startswith("Host only: Watcher named 12")
                                               for x in s.log()))  # fmt: skip
    assert any("only the first" in x for x in host.log())
    assert not any("only the first" in x or "Host only" in x for x in ann.log())
    assert "only the first" not in ann.driver.page_source
    decisions = ann.driver.execute_async_script(FETCH_JSON, f"/api/encounters/{table.encounter}"
                                                "/decisions")  # fmt: skip
    log = ann.driver.execute_async_script(FETCH_JSON, f"/api/encounters/{table.encounter}/log")
    stream = ann.driver.execute_async_script(STREAM)
    assert "only the first" in host.driver.execute_async_script(STREAM)  # the Host's stream
    for name, text in (("decisions", decisions), ("log", log), ("stream", stream)):
        assert '"note"' not in text and "only the first" not in text, (name, text[:300])
    assert ann.page_fits()
    no_secrets(ann)
