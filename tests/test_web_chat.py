"""The fight's chat and dice roller (docs/web.md, W-30 … W-33): API, stream, store, migration."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx2 as httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from patience import EVENT_WAIT
from sqlalchemy import inspect
from test_web_tokens import (
    SLOW_POLL,
    Table,
    bearer,
    browser,
    csrf,
    make_table,
    serving,
)

from tableside.dice import SeededRng
from tableside.store import Store
from tableside.store import chat as stored_chat
from tableside.store.migrate import current_revision, downgrade, upgrade
from tableside.web import create_app
from tableside.web.auth import SESSION_COOKIE
from tableside.web.chat import CHAT_PER_MINUTE, ChatRoom
from tableside.web.guards import RateWindow
from tableside.web.roller import RollSpec, reroll, roll_card


@pytest.fixture
def app(url: str) -> Iterator[FastAPI]:
    application = create_app(url)
    with TestClient(application):
        yield application


@pytest.fixture
def table(app: FastAPI) -> Table:
    return make_table(app)


def room(table: Table) -> ChatRoom:
    chat: ChatRoom = table.app.state.chat
    return chat


def say(table: Table, token: str, body: dict[str, Any], path: str = "/chat") -> httpx.Response:
    return table.api().post(f"/api/encounters/{table.eid}{path}", headers=bearer(token), json=body)


def read(table: Table, token: str) -> dict[str, Any]:
    r = table.api().get(f"/api/encounters/{table.eid}/chat", headers=bearer(token))
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def texts(table: Table, token: str) -> list[str]:
    return [m["text"] for m in read(table, token)["messages"]]


# --- W-30: messages ------------------------------------------------------------------------------


def test_w30_the_host_and_players_post_and_everyone_reads_them_in_order(table: Table) -> None:
    for token, text in ((table.host, "Welcome"), (table.ann, "<script>x</script>"),
                        (table.bo, "Hi all")):  # fmt: skip
        r = say(table, token, {"text": text})
        assert r.status_code == 201, r.text
        assert r.json()["text"] == text and r.json()["kind"] == "text"
    for token in (table.host, table.ann, table.bo):
        messages = read(table, token)["messages"]
        assert [m["text"] for m in messages] == ["Welcome", "<script>x</script>", "Hi all"]
        assert [m["author"] for m in messages] == ["Host", "Ann", "Bo"]
        assert [m["host"] for m in messages] == [True, False, False]
        assert all(m["at"].endswith("+00:00") for m in messages)
    assert read(table, table.ann)["me"] == {"host": False, "seat": table.ann_seat, "name": "Ann"}
    seats = read(table, table.host)["seats"]
    assert seats == [{"id": table.ann_seat, "name": "Ann"}, {"id": table.bo_seat, "name": "Bo"}]
    assert "seats" not in read(table, table.ann)


def test_w30_chat_is_not_in_the_log_and_leaves_undo_and_the_revision_alone(table: Table) -> None:
    before = table.revision()
    log = table.api().get(f"/api/encounters/{table.eid}/log", headers=bearer(table.host)).json()
    assert say(table, table.ann, {"text": "hello"}).status_code == 201
    assert say(table, table.ann, {"kind": "d12"}, "/rolls").status_code == 201
    assert table.revision() == before
    after = table.api().get(f"/api/encounters/{table.eid}/log", headers=bearer(table.host)).json()
    assert after == log
    r = table.api().post(f"/api/encounters/{table.eid}/undo", headers=bearer(table.host), json={})
    assert r.status_code == 200, r.text
    assert texts(table, table.host)[0] == "hello"  # an undo takes no message back


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"text": ""}, 422, "field text"),
        ({"text": "x" * 501}, 422, "at most 500 characters"),
        ({"text": "line\nbreak"}, 422, "U+000A"),
        ({"text": "hi", "colour": "red"}, 422, "field colour"),
        ({"text": "hi", "to": 99999}, 400, "no seat with id 99999"),
        ({"text": "hi", "to": "host"}, 400, "not to 'host'"),
        ({"text": 5}, 422, "field text"),
        ({"text": "hi", "to": True}, 422, "field to"),
        ({"text": "hi", "to": "1"}, 422, "field to"),
    ],
)
def test_w30_a_bad_message_is_refused_with_one_sentence_and_nothing_is_stored(
    table: Table, body: dict[str, Any], status: int, words: str
) -> None:
    r = say(table, table.host, body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert words in error and error.endswith(".") and error.count(". ") == 0, error
    assert texts(table, table.host) == []


def test_w30_a_player_whispers_only_to_the_host(table: Table) -> None:
    r = say(table, table.ann, {"text": "psst", "to": table.bo_seat})
    assert r.status_code == 403 and "only to the Host" in r.json()["error"]
    assert texts(table, table.host) == []


def test_w30_a_player_never_reads_another_seats_whisper(table: Table) -> None:
    assert say(table, table.ann, {"text": "Ann to Host", "to": "host"}).status_code == 201
    r = say(table, table.host, {"text": "Host to Bo", "to": table.bo_seat})
    assert r.status_code == 201 and r.json()["whisper"] == {"seat": table.bo_seat, "name": "Bo"}
    assert say(table, table.host, {"text": "public"}).status_code == 201
    assert texts(table, table.host) == ["Ann to Host", "Host to Bo", "public"]
    assert texts(table, table.ann) == ["Ann to Host", "public"]
    assert texts(table, table.bo) == ["Host to Bo", "public"]


def test_w30_a_removed_seats_whispers_go_with_it_and_a_new_seat_never_reads_them(
    table: Table,
) -> None:
    assert say(table, table.host, {"text": "secret for Bo", "to": table.bo_seat}).status_code == 201
    client = table.api()
    seat = f"/api/tables/{table.tid}/players/{table.bo_seat}"
    r = client.delete(seat, headers=bearer(table.host))
    assert r.status_code == 200, r.text
    r = client.post(f"/api/tables/{table.tid}/players", headers=bearer(table.host),
                    json={"name": "Cy", "characters": []})  # fmt: skip
    assert "secret for Bo" not in texts(table, r.json()["token"])
    assert "secret for Bo" not in texts(table, table.host)


def test_w30_a_revoked_link_can_neither_read_nor_post(table: Table) -> None:
    client = table.api()
    seat = f"/api/tables/{table.tid}/players/{table.ann_seat}"
    assert client.delete(seat, headers=bearer(table.host)).status_code == 200
    chat = f"/api/encounters/{table.eid}/chat"
    for r in (say(table, table.ann, {"text": "still here?"}),
              client.get(chat, headers=bearer(table.ann))):  # fmt: skip
        assert r.status_code == 401 and "revoked" in r.json()["error"]
    assert texts(table, table.host) == []


def test_w30_a_browser_posts_with_the_pages_csrf_proof_only(table: Table) -> None:
    client, _ = browser(table.app, f"/join/{table.ann}")
    path = f"/api/encounters/{table.eid}/chat"
    for headers in ({}, {"X-CSRF-Token": "0" * 64}):
        r = client.post(path, json={"text": "forged"}, headers=headers)
        assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = client.post(f"{path.removesuffix('chat')}rolls", json={"kind": "d12"})
    assert r.status_code == 403
    assert client.post(path, json={"text": "mine"}, headers=csrf(client)).status_code == 201
    assert texts(table, table.host) == ["mine"]


def test_w33_a_seat_posts_at_most_the_rate_a_minute(table: Table) -> None:
    assert CHAT_PER_MINUTE == 30
    clock = [100.0]
    room(table).rate = RateWindow(3, clock=lambda: clock[0])
    for n in range(3):
        assert say(table, table.ann, {"text": f"m{n}"}).status_code == 201
    r = say(table, table.ann, {"kind": "d12"}, "/rolls")
    assert r.status_code == 429, r.text
    assert r.json()["error"].startswith("Too many chat messages and rolls: at most 3 a minute")
    assert say(table, table.bo, {"text": "Bo is another seat"}).status_code == 201
    clock[0] += 61
    assert say(table, table.ann, {"text": "later"}).status_code == 201
    assert texts(table, table.host) == ["m0", "m1", "m2", "Bo is another seat", "later"]


# --- W-30: the live stream ------------------------------------------------------------------------


def collect(url: str, headers: dict[str, str], into: queue.Queue[bytes]) -> threading.Thread:
    """Every byte of a stream, chunk by chunk, into a queue (until the stream ends)."""

    def run() -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=30)) as r:
                for chunk in r.iter_bytes():
                    into.put(chunk)
        except httpx.HTTPError:
            into.put(b"<failed>")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def until(into: queue.Queue[bytes], marker: bytes, seconds: float = EVENT_WAIT) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen:
        seen += into.get(timeout=max(0.1, deadline - time.monotonic()))
    return seen


def test_w30_messages_stream_live_and_a_player_never_receives_anothers_whisper(url: str) -> None:
    application = create_app(url, poll=SLOW_POLL, listen_poll=SLOW_POLL)
    with serving(application) as base:
        table = make_table(application)
        stream = f"{base}/api/encounters/{table.eid}/stream?after={table.revision()}"
        client = httpx.Client(base_url=base)
        assert client.post(f"/api/encounters/{table.eid}/chat", headers=bearer(table.host),
                           json={"text": "before the stream"}).status_code == 201  # fmt: skip
        feeds = {who: queue.Queue[bytes]() for who in ("ann", "bo", "host")}
        for who, token in (("ann", table.ann), ("bo", table.bo), ("host", table.host)):
            collect(stream, bearer(token), feeds[who])
            until(feeds[who], b"retry:")
        started = time.monotonic()
        posts: list[tuple[str, dict[str, Any]]] = [
            (table.ann, {"text": "ANN-WHISPER", "to": "host"}),
            (table.host, {"text": "HOST-TO-ANN", "to": table.ann_seat}),
            (table.host, {"kind": "d12", "boon": 1, "to": table.ann_seat}),
            (table.bo, {"text": "BO-PUBLIC"}),
        ]
        for token, body in posts:
            path = "/rolls" if "kind" in body else "/chat"
            r = client.post(f"/api/encounters/{table.eid}{path}", headers=bearer(token), json=body)
            assert r.status_code == 201, r.text
        bo = until(feeds["bo"], b"BO-PUBLIC")
        ann = until(feeds["ann"], b"BO-PUBLIC")
        host = until(feeds["host"], b"BO-PUBLIC")
        assert time.monotonic() - started < 10  # woken at once, not polled (SLOW_POLL is 30 s)
        assert b"event: chat" in bo and b"ANN-WHISPER" not in bo and b"HOST-TO-ANN" not in bo
        assert b'"kind":"roll"' not in bo and b"before the stream" not in bo
        assert b"ANN-WHISPER" in ann and b"HOST-TO-ANN" in ann and b'"kind":"roll"' in ann
        assert b"ANN-WHISPER" in host and b"HOST-TO-ANN" in host
        for chunk in (bo, ann, host):
            chat_events = [e for e in chunk.split(b"\n\n") if b"event: chat" in e]
            assert chat_events and all(b"id:" not in e for e in chat_events)  # Last-Event-ID stays


def test_w30_a_message_another_process_stored_reaches_the_stream(url: str) -> None:
    application = create_app(url, poll=0.2, listen_poll=0.2)
    with serving(application) as base:
        table = make_table(application)
        stream = f"{base}/api/encounters/{table.eid}/stream?after={table.revision()}"
        feed = queue.Queue[bytes]()
        collect(stream, bearer(table.bo), feed)
        until(feed, b"retry:")
        with Store.open(url) as other:  # another process's store: this one's notifier not told
            message = stored_chat.NewMessage(True, "Host", None, None, "text", "FROM-ELSEWHERE")
            stored_chat.post(other, table.eid, message, datetime.now(UTC))
        assert b"FROM-ELSEWHERE" in until(feed, b"FROM-ELSEWHERE")


# --- W-31, W-32: rolls --------------------------------------------------------------------------


def test_w31_a_player_rolls_7d12_with_a_boon_and_the_lowest_die_is_discarded(table: Table) -> None:
    r = say(table, table.ann, {"kind": "d12", "boon": 1, "dice": [9, 4, 12, 1, 7, 10, 3, 8]},
            "/rolls")  # fmt: skip
    assert r.status_code == 201, r.text
    message = r.json()
    roll = message["roll"]
    assert message["kind"] == "roll" and roll["typed"] is True and roll["seed"] is None
    assert [c["discarded"] for c in roll["chips"]] == [False] * 6 + [True, False]  # the 3 (M-7)
    assert [c["as"] for c in roll["chips"]] == [
        "hit", "miss", "twelve", "one", "miss", "hit", "stop", "miss"]  # fmt: skip
    # natural 9 4 12 1 7 10 8: a 12 and a 1 pair (M-8): Hits 9, 12, 10 = 3; Stops: the 1
    assert (roll["hits"], roll["misses"], roll["stops"], roll["net"]) == (3, 3, 1, 2)
    assert message["text"] == "7d12, Boon 1: 3 Hits, 3 Misses, 1 Stop (net +2)."
    assert read(table, table.bo)["messages"][-1] == message  # a reload shows the same card


def test_w32_server_dice_come_again_from_the_seed_stored_on_the_card(table: Table) -> None:
    bodies: list[dict[str, Any]] = [
        {"kind": "d12", "bane": 2},
        {"kind": "check", "factor": 4, "opposing": 2, "boon": 1, "label": "Climb the wall"},
    ]
    for body in bodies:
        r = say(table, table.bo, body, "/rolls")
        assert r.status_code == 201, r.text
        card = read(table, table.host)["messages"][-1]["roll"]
        assert card["typed"] is False and isinstance(card["seed"], int)
        rng = SeededRng(card["seed"])
        assert card["rolled"] == [rng.roll(12) for _ in card["rolled"]]
        spec = RollSpec(**body)
        assert reroll("majesty-war", spec, card) == card
    seeds = {m["roll"]["seed"] for m in read(table, table.host)["messages"]}
    assert len(seeds) == 2  # each roll has its own seed


def test_w32_a_check_suggests_the_best_adjustments_but_reads_as_rolled() -> None:
    # Factor 5 against 3: advantage 2, one Adjustment for the roller (M-10)
    spec = RollSpec("check", factor=5, opposing=3)
    card = roll_card("majesty-war", spec, 0, [8, 8, 9, 9, 4, 5, 6])
    assert card["as_rolled"]["net"] == 2 and card["as_rolled"]["outcome"] == "partial"
    assert card["as_rolled"]["final"] == [8, 8, 9, 9, 4, 5, 6]  # nothing forced
    assert card["adjusters"] == [{"side": "roller", "count": 1}]
    suggested = card["suggested"]
    assert suggested["adjustments"] == [{"die": 1, "from": 8, "to": 9, "side": "roller"}]
    assert (suggested["net"], suggested["outcome"]) == (3, "success")
    assert card["summary"] == (
        "Attribute Check: 2 net Passes as rolled, partial success; with the best Adjustments "
        "3 net Passes, success."
    )


def test_w32_a_suggested_adjustment_names_the_die_as_rolled_discarded_dice_counted() -> None:
    spec = RollSpec("check", factor=5, opposing=3, boon=1)
    card = roll_card("majesty-war", spec, 0, [2, 8, 8, 9, 9, 4, 5, 6])  # Boon drops the 2 (M-7)
    assert [c["discarded"] for c in card["chips"]] == [True] + [False] * 7
    assert card["suggested"]["adjustments"] == [{"die": 2, "from": 8, "to": 9, "side": "roller"}]


def test_w32_a_seed_is_exact_as_a_javascript_number(table: Table) -> None:
    for _ in range(5):
        assert say(table, table.ann, {"kind": "d12"}, "/rolls").status_code == 201
    seeds = [m["roll"]["seed"] for m in read(table, table.ann)["messages"]]
    assert all(0 <= seed < 2**53 for seed in seeds) and len(set(seeds)) == 5


def test_w32_three_unpaired_12s_make_an_epic_check_whatever_the_net() -> None:
    card = roll_card("majesty-war", RollSpec("check", difficulty=20), 0, [12, 12, 12, 2, 2, 2, 2])
    assert card["as_rolled"]["outcome"] == "success" and card["as_rolled"]["automatic"] is True
    assert "Epic" in card["summary"]


def test_w31_realm_of_strife_rolls_d20_tests_and_d100_against_a_target(url: str) -> None:
    application = create_app(url)
    with TestClient(application) as client:
        r = client.post("/api/tables", json={"name": "Friday"})
        tid, host = r.json()["id"], bearer(r.json()["host_token"])
        body = {"game": "strife-combat", "name": "Pass", "seed": 3}
        eid = client.post(f"/api/tables/{tid}/encounters", headers=host, json=body).json()["id"]
        rolls = f"/api/encounters/{eid}/rolls"
        r = client.post(rolls, headers=host, json={"kind": "d20", "stat": 8, "advantage": 2,
                                                   "dice": [11]})  # fmt: skip
        assert r.status_code == 201, r.text
        assert r.json()["text"] == "d20 11 +8 +2 = 21 (needs more than 20): success."
        r = client.post(rolls, headers=host, json={"kind": "d20", "stat": 50, "dice": [1]})
        assert r.json()["roll"]["success"] is False and "natural 1" in r.json()["text"]
        r = client.post(rolls, headers=host, json={"kind": "d100", "modifier": 5, "target": 40,
                                                   "dice": [35]})  # fmt: skip
        assert r.json()["text"] == "d100 35 +5 = 40 (needs at most 40): success."
        r = client.post(rolls, headers=host, json={"kind": "d100", "target": 60,
                                                   "against": "above", "dice": [60]})  # fmt: skip
        assert r.json()["roll"]["success"] is False
        r = client.post(rolls, headers=host, json={"kind": "d12"})
        assert r.status_code == 400
        assert r.json()["error"] == (
            "A 'd12' roll is not one of Realm of Strife's: roll 'd100' or 'd20'.")  # fmt: skip
        r = client.post(rolls, headers=host, json={"kind": "d20", "dice": [21]})
        assert r.status_code == 400 and "21" in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"kind": "d100"}, 400, "not one of Allies of Majesty's"),
        ({"kind": "d12", "dice": [1, 2, 3]}, 400, "needs 7 dice (no Boon or Bane) but 3"),
        ({"kind": "d12", "dice": [13, 1, 1, 1, 1, 1, 1]}, 400, "cannot show 13"),
        ({"kind": "d12", "boon": 7}, 422, "field boon"),
        ({"kind": "d7"}, 422, "field kind"),
        ({"kind": "check", "check": "luck"}, 422, "field check"),
        ({"kind": "check", "factor": -1}, 422, "field factor"),
        ({"kind": "d12", "label": "x" * 81}, 422, "field label"),
    ],
)
def test_w31_a_bad_roll_is_refused_with_one_sentence_and_nothing_is_stored(
    table: Table, body: dict[str, Any], status: int, words: str
) -> None:
    r = say(table, table.ann, body, "/rolls")
    assert r.status_code == status, r.text
    assert words in r.json()["error"], r.json()
    assert texts(table, table.host) == []


def test_w31_a_whispered_roll_reaches_only_the_host_and_its_seat(table: Table) -> None:
    r = say(table, table.host, {"kind": "d12", "to": table.ann_seat}, "/rolls")
    assert r.status_code == 201
    assert len(texts(table, table.ann)) == 1 and texts(table, table.bo) == []


# --- the store: migration 0007 -----------------------------------------------------------------


def test_w30_migration_0007_adds_the_chat_table_and_takes_it_away(url: str) -> None:
    with Store.open(url) as store:
        assert "chat_messages" in inspect(store.engine).get_table_names()
        downgrade(store.engine, "0006")
        assert current_revision(store.engine) == "0006"
        assert "chat_messages" not in inspect(store.engine).get_table_names()
        upgrade(store.engine, "0007")
        assert current_revision(store.engine) == "0007"
        columns = {c["name"] for c in inspect(store.engine).get_columns("chat_messages")}
        wanted = {"encounter_id", "at", "author", "whisper_seat_id", "kind", "text", "data"}
        assert wanted <= columns


def test_w30_a_session_cookie_reads_the_chat(table: Table) -> None:
    client, _ = browser(table.app, f"/join/{table.bo}")
    assert client.cookies.get(SESSION_COOKIE, domain="testserver.local")
    assert say(table, table.host, {"text": "hello Bo"}).status_code == 201
    r = client.get(f"/api/encounters/{table.eid}/chat")
    assert r.status_code == 200 and [m["text"] for m in r.json()["messages"]] == ["hello Bo"]


def test_w31_the_page_offers_the_games_own_rolls_and_a_labelled_message_box(table: Table) -> None:
    client, _ = browser(table.app, f"/join/{table.host}")
    war = client.get(f"/tables/{table.tid}/encounters/{table.eid}").text
    body = {"game": "strife-combat", "name": "Pass", "seed": 3}
    r = client.post(f"/api/tables/{table.tid}/encounters", json=body, headers=csrf(client))
    strife = client.get(f"/tables/{table.tid}/encounters/{r.json()['id']}").text
    for page in (war, strife):
        assert '<label for="chat-text">Message</label>' in page
        assert 'id="chat-list" class="chat-list" role="log"' in page
        assert 'id="chat-live" class="visually-hidden" aria-live="polite"' in page
    assert '<option value="d12">' in war and '<option value="check">' in war
    assert '<option value="d100">' not in war and '<option value="d20">' in strife
    assert '<option value="d12">' not in strife
    whisper = '<option value="host">Only the Host (whisper)</option>'
    assert whisper not in war  # the Host whispers to seats, not to itself
    player, _ = browser(table.app, f"/join/{table.ann}")
    assert whisper in player.get(f"/tables/{table.tid}/encounters/{table.eid}").text
