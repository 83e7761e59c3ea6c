"""The browser tests' accessibility check: axe-core (WCAG 2.1 A and AA rules) in the page.

axe-core comes from the npm registry at set-up (``make axe``: ``node_modules/axe-core``, not in
the repository), or from ``$TABLESIDE_AXE_JS``. Without it the check skips its test, except
under CI (``$CI`` set), where it fails: ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver
from test_store_support import in_ci

ROOT = Path(__file__).resolve().parent.parent
AXE_JS = Path(os.environ.get("TABLESIDE_AXE_JS", ROOT / "node_modules/axe-core/axe.min.js"))
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
RUN = """
const done = arguments[arguments.length - 1];
const context = arguments[0] ? {include: arguments[0]} : document;
axe.run(context, {runOnly: {type: 'tag', values: arguments[1]}, resultTypes: ['violations']})
  .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' '))}))))
  .catch(e => done([{id: 'axe did not run', impact: 'critical', help: String(e), nodes: []}]));
"""


def axe_source() -> str:
    """axe-core's script, or skip (fail under CI) when it is not installed."""
    if AXE_JS.is_file():
        return AXE_JS.read_text("utf-8")
    if in_ci():
        pytest.fail(f"{AXE_JS} is missing, and CI must run the accessibility checks (make axe).")
    pytest.skip(f"no accessibility checker: {AXE_JS} is missing (make axe)")


def violations(driver: WebDriver, include: list[str] | None = None) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.1 A/AA violations on the page as it is now (``include``: selectors)."""
    source = axe_source()
    if not driver.execute_script("return typeof window.axe === 'object';"):
        driver.execute_script(source)
    driver.set_script_timeout(60)
    found: list[dict[str, Any]] = driver.execute_async_script(RUN, include, RULES)
    return found


def assert_accessible(driver: WebDriver, include: list[str] | None = None) -> None:
    """No WCAG 2.1 A/AA violation (in ``include``, or the whole page)."""
    found = violations(driver, include)
    assert not found, "\n".join(f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}"
                                for v in found)  # fmt: skip
