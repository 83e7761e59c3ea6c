"""The Balance panel ready at once, in headless chromium (issue 26, W-76, W-77).

The Host opens the demo War's set-up page while the balance process is still loading (a
stand-in that loads until released): the panel shows a first estimate on the full engine with
its wide intervals and says so, at the phone size and the laptop size; once the process is
ready the page asks again by itself and shows the fast engines' balance, without a reload.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from test_balance_apart import Loading
from test_web_e2e import LiveServer, Seat, chromiums, live_server

from tableside.simulate import balance as simulated
from tableside.web.demo import create_demo

pytestmark = pytest.mark.slow


@pytest.fixture
def loading() -> Iterator[tuple[LiveServer, Loading, str, str]]:
    """A served table whose balance process loads until released; the Host's link and the
    War's set-up page."""
    with live_server("ready") as server:
        demo = create_demo(server.table)
        balances: Any = server.app.state.balances
        stand_in = Loading()
        balances.apart = balances.runner = stand_in
        balances.expect_warm()  # as a served app does before its warm-up
        balances.warm(compile_first=lambda: None)
        setup = f"/tables/{demo.table_id}/encounters/{demo.encounter_id}/setup"
        yield server, stand_in, demo.host_page, setup
        stand_in.release.set()


def test_w77_the_panel_shows_a_first_estimate_then_refines_it_itself(
    loading: tuple[LiveServer, Loading, str, str],
) -> None:
    """W-77: the phone and the laptop see the first estimate said as such, then the fast one."""
    server, stand_in, host_page, setup = loading
    with chromiums("host") as drivers:
        host = Seat("Host", drivers[0])
        host.driver.get(server.base + host_page)  # the Host's session
        for size in ((390, 844), (1366, 768)):
            host.driver.set_window_size(*size)
            host.driver.get(server.base + setup)
            host.wait("a first estimate", lambda s: "first estimate" in s.text("balance-status"))
            status = host.text("balance-status")
            assert f"{simulated.QUICK_RUNS} runs" in status and "full engine" in status
            assert "wide intervals" in status and "being loaded" in status
            assert "95 % interval" in host.text("balance-sides")
        assert stand_in.slices == []  # nothing asked of the balance process yet
        stand_in.release.set()
        host.wait("the refined balance", lambda s: "(fast engine" in s.text("balance-status"))
        status = host.text("balance-status")
        assert "first estimate" not in status and "policy stand-in" in status
        assert re.search(r"[\d,]+ runs in", status)
        assert len(host.driver.find_elements(By.CSS_SELECTOR, "#balance-sides li")) == 2
        host.driver.get("about:blank")
