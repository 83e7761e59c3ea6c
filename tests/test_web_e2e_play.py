"""The Strike form end to end in headless chromium: odds, physical dice, best, explicit steps.

The demo War (seed 7): it is Jackal's Turn and the fallen player plays Jackal. The player closes
in with the page's Move button, picks the Watcher and a movement path in the Strike form, reads
the exact odds, types physical dice, sees what ``best`` would do (M-13) and accepts it, or
changes it to explicit steps; the Host's browser shows the Strike's breakdown live.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.select import Select
from test_web_e2e import (
    FALLEN,
    WAR,
    LiveServer,
    Seat,
    e2e_fixtures,
    take_suggestions,
)

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.encounter.roster import add_commands
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.war.args import StrikeArgs, parse_args
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.strike import strike_setup
from tableside.majesty.odds import strike_odds
from tableside.store import table_audience
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo
from tableside.web.redact import redact_record
from tableside.web.table_views import record_view

DICE = "9, 4, 12, 3, 8, 1, 10"
STRIKE: dict[str, Any] = {"striker": "Jackal", "defender": "Watcher", "path": [[3.0, 2.0, 0.0]]}
READ_LINES = "return [...document.querySelectorAll(arguments[0])].map(d => d.textContent.trim());"


class Person(Seat):
    """A seat with the two things the Strike form needs: find an element, type into a box."""

    def find(self, element_id: str) -> WebElement:
        return self.driver.find_element(By.ID, element_id)

    def type(self, element_id: str, text: str) -> None:
        box = self.find(element_id)
        box.clear()
        box.send_keys(text)


@dataclass
class Play:
    server: LiveServer
    demo: DemoLinks
    host: Person
    player: Person  # the fallen player: Warrior, Jackal, Deceiver, Brute


server, browsers = e2e_fixtures("play", "host", "fallen")


@pytest.fixture
def play(server: LiveServer, browsers: tuple[WebDriver, WebDriver]) -> Play:
    """A new demo table; the Host and the fallen player open the War's page."""
    demo = create_demo(server.table)
    host, player = Person("Host", browsers[0]), Person(FALLEN, browsers[1])
    host.driver.get(server.base + demo.host_page)
    player.driver.get(server.base + demo.player_links[FALLEN])
    player.driver.find_element(By.LINK_TEXT, WAR).click()
    for seat in (host, player):
        seat.wait("the War", lambda s: s.text("revision") == "9")
        seat.mark()
    return Play(server, demo, host, player)


def lines(seat: Person, selector: str) -> list[str]:
    found: list[str] = seat.driver.execute_script(READ_LINES, selector)
    return found


def options(seat: Person, select_id: str) -> list[str]:
    return [o.get_attribute("value") or "" for o in Select(seat.find(select_id)).options]


def close_in_and_aim(play: Play) -> Person:
    """The player moves Jackal to 4,2,0 (4 AP) and aims a Strike at the Watcher along 3,2,0."""
    player = play.player
    player.wait("the pickers", lambda _s: "Jackal" in options(player, "p-actor"))
    assert options(player, "p-actor") == ["Warrior", "Jackal", "Deceiver", "Brute"]
    assert Select(player.find("p-actor")).first_selected_option.text == "Jackal"  # whose Turn
    Select(player.find("p-actor")).select_by_value("Jackal")
    player.move_to((4, 2, 0))
    player.wait("the move", lambda s: s.text("revision") == "10")
    player.wait('Watcher 4" away', lambda _s: 'Watcher (4", enemy)' in target_texts(player))
    Select(player.find("p-target")).select_by_value("Watcher")
    player.type("p-path", "3,2,0")
    return player


def target_texts(seat: Person) -> list[str]:
    return [o.text for o in Select(seat.find("p-target")).options]


def expected_means(play: Play) -> tuple[str, str]:
    """P(Defeat) and the mean uncanceled Hits of the Strike now, from the engine's own odds."""
    with play.server.table.lock(play.demo.encounter_id):
        live = play.server.table.live(play.demo.encounter_id)
    state, game = live.state, live.game
    assert isinstance(game, MajestyWar)
    args = parse_args(StrikeArgs, STRIKE, "strike")
    law = strike_odds(strike_setup(game, args, state.get("Jackal"), state.get("Watcher")))
    return f"P(Defeat) {100 * float(law.defeat):.2f}%", f"{float(law.uncanceled_hits.mean):.2f}"


def test_a_player_sees_the_odds_types_dice_and_accepts_best_m13(play: Play) -> None:
    player, host = close_in_and_aim(play), play.host
    defeat, hits_mean = expected_means(play)
    player.wait("the odds", lambda s: " to deal Wear, " in s.text("odds-summary"))
    assert player.text("odds-summary").endswith(" to Defeat Watcher · 3 AP")
    assert player.text("odds-defeat") == defeat
    assert f"uncanceled Hits mean {hits_mean}" in player.text("odds-more")
    assert "3 AP · Adjustments: the best ones" in player.text("odds-more")
    assert player.text("roll-cost") == "(3 AP)"
    captions = lines(player, "#odds-laws caption")
    assert captions[0] == f"uncanceled Hits (mean {hits_mean})"
    assert captions[1].startswith("Wear E (mean ")
    player.type("my-dice", "9, 4, 12")
    player.find("use-dice").click()
    player.wait("the dice refused", lambda s: "at least 7 dice" in s.text("error"))
    player.type("my-dice", DICE)
    player.find("use-dice").click()
    player.wait("the suggestion", lambda _s: player.find("suggestion").is_displayed())
    assert player.text("error") == ""
    assert player.text("suggestion-head") == "The best Adjustments for you would be:"
    assert lines(player, "#suggestion-steps li") == ["die 1: 9 → 8 (defender)"]
    assert play.server.table.store.encounter(play.demo.encounter_id).revision == 10
    player.find("accept").click()
    take_suggestions(host)  # the Watcher's Obstruction and Adjustments (issue 11, D-8)
    for seat in (host, player):
        seat.wait("the Strike", lambda s: s.text("revision") == "13")
        seat.wait("the breakdown", lambda s: any("Adjustment die 1" in x for x in s.log()))
        log = seat.log()
        at = log.index("strike_resolved Jackal → Watcher with Club  [M-20]")
        assert log[at + 2] == "rolled 9 4 12 3 8 1 10 → final 8 4 12 3 8 1 10 (defender 9→8)"
        assert "Adjustment die 1: 9→8 by defender — best: Precision 1 vs Guard 2, raw sources " \
            "(M-10, M-11, M-18)" in log  # fmt: skip
        assert any(x.startswith("rulings M-") for x in log[at:])
        assert seat.same_page()
    assert not player.find("suggestion").is_displayed()
    player.driver.refresh()  # the server writes the breakdown exactly as the script did
    player.wait("the reloaded page", lambda s: not s.same_page())
    reloaded = player.log()
    at = reloaded.index("strike_resolved Jackal → Watcher with Club  [M-20]")
    live_at = log.index("strike_resolved Jackal → Watcher with Club  [M-20]")
    end = next(i for i in range(at, len(reloaded)) if reloaded[i].startswith("rulings "))
    assert reloaded[at : end + 1] == log[live_at : live_at + end + 1 - at]


def test_a_player_may_not_make_the_defenders_adjustments_m13_d8(play: Play) -> None:
    """M-10, M-13, D-8: the Watcher has the surplus, so its Adjustments are its player's; the
    Striker's explicit steps for the defender are refused on the page, nothing written."""
    player, host = close_in_and_aim(play), play.host
    player.type("my-dice", DICE)
    player.find("use-dice").click()
    player.wait("the suggestion", lambda _s: player.find("suggestion").is_displayed())
    player.find("change").click()
    assert player.find("steps").get_attribute("value") == "defender:1-"
    player.type("steps", "defender:5+, 9")
    player.find("apply-steps").click()
    player.wait("the step refused", lambda s: 'The Adjustment "9" is not like' in s.text("error"))
    player.type("steps", "defender:5-")
    player.find("apply-steps").click()
    player.wait("the refusal", lambda s: s.text("error").endswith("is Watcher's player's choice."))
    assert "Adjustments" in player.text("error")
    assert play.server.table.store.encounter(play.demo.encounter_id).revision == 10
    assert host.text("revision") == "10"


def war_strikes() -> list[dict[str, Any]]:
    """Strikes from one War state with dice that bring out every part of the breakdown."""
    encounter = Encounter(MajestyWar(), 7)
    for command in add_commands():
        encounter.execute(command)
    encounter.execute(Command("next"))
    encounter.execute(Command("move", {"id": "Jackal", "to": [4, 2, 0]}))
    knock = (12, 12, 11, 12, 3, 8, 1, 10, 5, 5, 5, 5, 5, 5, 5)  # Boon, Epic, 12 Effect, Knock Back
    tries: list[tuple[dict[str, Any], tuple[int, ...]]] = [
        (STRIKE, tuple(int(x) for x in DICE.split(","))),  # best: one Adjustment by the defender
        ({**STRIKE, "maneuvers": ["Crushing Blow"], "boon": 1}, knock),
        (STRIKE, (1, 1, 1, 1, 3, 8, 9)),  # Epic defense: Defensive Hits, Falter, Defeated
        ({**STRIKE, "bane": 1, "wear_flat": 2, "wear_percent": 50}, (7, 7, 9, 10, 11, 2, 6, 12)),
    ]
    return [record(encounter, Command("strike", args, dice)) for args, dice in tries]


def fight_attacks() -> list[dict[str, Any]]:
    """Attacks on both sides with and without reactions, over several seeds."""
    found = []
    for seed in range(8):
        encounter = Encounter(StrifeFight(), seed)
        encounter.execute(Command("add", {"id": "Aldric", "model": "Aldric", "side": "heroes"}))
        goblin = {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}
        encounter.execute(Command("add", goblin))
        encounter.execute(Command("start"))
        me = encounter.state.current
        other = "Goblin" if me == "Aldric" else "Aldric"
        reaction = ("block", "parry", None)[seed % 3] if other == "Aldric" else None
        attack = {"defender": other, "reaction": reaction, "precision": seed % 2 == 0}
        command = Command("attack", {"attacker": me, "attacks": [attack]})
        found.append(record(encounter, command))
    return found


def record(encounter: Encounter[Any], command: Command) -> dict[str, Any]:
    """The record ``command`` would make now, as the web table sends it (nothing applied)."""
    events = encounter.decide(command, encounter.next_seq)
    made = LogRecord(
        encounter.revision + 1, RecordKind.COMMAND, encounter.next_seq, command, events
    )
    return record_view(made, frozenset())


def test_the_page_writes_every_breakdown_w24_w25(play: Play) -> None:
    """W-24: the page's one renderer writes every breakdown (no Python copy to compare with);
    W-25: a value concealed from a player is said in words, never as "secret"."""
    plain = war_strikes() + fight_attacks()
    # as players see them when one side's values are secret to them (W-1)
    concealed = [
        redact_record(r, hidden.__contains__)
        for hidden in (frozenset({"Watcher", "Goblin"}), frozenset({"Jackal", "Aldric"}))
        for r in plain
    ]
    records = plain + concealed
    shown: list[list[str]] = play.host.driver.execute_script(
        "return arguments[0].map(r => lines(r));", records
    )
    flat = [line for card in shown for line in card]
    assert sum(line.startswith("rulings ") for line in flat) == len(records)
    assert any("hidden" in line for card in shown[len(plain) :] for line in card)
    assert not [line for line in flat if "secret" in line]
    for part in ("Adjustment die 1: 9→8 by defender", "Boon/Bane +1: discarded 3",
                 "Effects fired: 12 Effects 1 of 2", "Falter: Watcher 2 (Club 12 Effect 2)",
                 "Status: Watcher unchanged, Jackal defeated", "Defensive Hits", "d100 ",
                 "damage 1d8: rolled "):  # fmt: skip
        assert any(part in line for line in flat), part


def test_the_host_attacks_in_a_realm_of_strife_fight_with_typed_dice_s7(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    host_token = fight_table(server)
    host = Person("Host", browsers[0])
    host.driver.get(f"{server.base}/tables/{host_token[0]}/encounters/{host_token[1]}"
                    f"?token={host_token[2]}")  # fmt: skip
    host.wait("the fight", lambda s: s.text("whose") == "Ambush round (heroes): Aldric's Turn")
    host.wait("the pickers", lambda _s: "Aldric" in options(host, "p-actor"))
    Select(host.find("p-actor")).select_by_value("Aldric")
    host.wait("the target", lambda _s: target_texts(host) == ['Goblin (1", enemy)'])
    assert options(host, "p-reaction") == ["", "none", "ward_off"]
    host.wait("the odds", lambda s: s.text("odds-more").startswith("P(defeat) 25.00%"))
    assert "P(hit) 90.00%" in host.text("odds-more")
    assert host.text("odds-summary").startswith("90 % to hit, ")
    assert lines(host, "#odds-laws caption")[1] == "damage to Goblin (mean 5.22)"
    host.type("my-dice", "70, 8")
    host.find("use-dice").click()
    host.wait("the preview", lambda _s: host.find("suggestion").is_displayed())
    assert "d100 70 → 70 vs AC 8, Dodge 10: hit" in lines(host, "#suggestion-lines div")
    host.find("p-hidden").click()  # the Host's roll, hidden from players
    host.find("accept").click()
    host.wait("the attack", lambda s: s.text("whose") == "Ended — winner: heroes")
    log = host.log()
    at = log.index("attack_resolved Aldric → Goblin with Long Sword  [S-7]")
    assert log[at + 1 : at + 4] == [
        "d100 70 → 70 vs AC 8, Dodge 10: hit",
        "damage 1d8: rolled 8 (1d8 8, Strength 1) = 9 (full)",
        "rulings S-7, S-14",
    ]
    assert table_audience.hidden_seqs(server.table.store, host_token[1]) == frozenset({3})
    said = lines(host, "#log > article.hidden-roll .say")[0]
    assert said.startswith("Hidden from players: Aldric attacks Goblin with a Long Sword: 70 vs "
                           "AC 8 — hit → 9 damage")  # fmt: skip


def fight_table(server: LiveServer) -> tuple[int, int, str]:
    """A Realm of Strife fight begun with an ambush: Aldric (heroes) next to a Goblin."""
    web = server.table
    table_id, token = web.create_table("Mill night")
    host = Principal(table_id, None)
    info = web.create_encounter(host, table_id, "strife-combat", "Ambush at the mill", 5)
    goblin: dict[str, Any] = {"id": "Goblin", "model": "Goblin", "side": "monsters"}
    goblin["position"] = [1, 0, 0]
    aldric: dict[str, Any] = {"id": "Aldric", "model": "Aldric", "side": "heroes"}
    for kind, args in [("add", aldric),
                       ("add", goblin), ("start", {"ambush": "heroes"})]:  # fmt: skip
        web.execute(host, info.id, Command(kind, args), None)
    return table_id, info.id, token


def test_a_player_s_dice_against_a_secret_defender_get_the_w10_sentence_and_still_roll(
    play: Play,
) -> None:
    """W-10: no preview against a secret combatant; the page says so and sends the dice as they
    are when the player accepts."""
    player, host = close_in_and_aim(play), play.host
    table_audience.set_secret(play.server.table.store, play.demo.encounter_id, "Watcher", True)
    player.type("my-dice", DICE)
    player.find("use-dice").click()
    player.wait("the sentence", lambda _s: player.find("suggestion").is_displayed())
    head = player.text("suggestion-head")
    assert head.startswith("Previews involving Watcher are not shown to players")
    assert "(W-10)" in head and head.endswith("Accept sends these dice as they are.")
    assert lines(player, "#suggestion-steps li") == [] and player.text("error") == ""
    assert play.server.table.store.encounter(play.demo.encounter_id).revision == 10
    player.find("accept").click()
    take_suggestions(host)  # the Watcher's choices, answered by the Host (D-5)
    for seat in (host, player):
        seat.wait("the Strike", lambda s: s.text("revision") == "13")
    log = player.log()
    assert "rolled 9 4 12 3 8 1 10 → final 8 4 12 3 8 1 10 (defender 9→8)" in log
    assert not any("vs Guard 2" in line for line in log)  # the why is public words (W-9)
    assert any("best: Precision vs Guard (hidden)" in line for line in log)  # W-25: in words
    assert any("vs Guard 2" in line for line in host.log())
