"""Answers compressed for a client that accepts it (issue 26, W-70).

The fight page, the set-up pages and the API's larger answers travel gzipped (starlette's
``GZipMiddleware``, 1 KB and up, zlib's level 6); answers under 1 KB and live streams
(``text/event-stream``) are sent as they are, and a client that does not accept gzip gets every
answer plain.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tableside.web import assets, create_app
from tableside.web.demo import DemoLinks, create_demo

PLAIN = {"Accept-Encoding": "identity"}
GZIP = {"Accept-Encoding": "gzip"}


@pytest.fixture
def demo() -> Iterator[tuple[TestClient, DemoLinks]]:
    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(f"sqlite:///{tmp}/z.db")) as c:
        yield c, create_demo(c.app.state.table)  # type: ignore[attr-defined]


def test_w70_the_fight_page_travels_gzipped_to_a_browser(
    demo: tuple[TestClient, DemoLinks],
) -> None:
    client, links = demo
    client.get(links.host_page, headers=GZIP)  # the Host's cookie, then the page
    page = links.host_page.split("?")[0]
    zipped = client.get(page, headers=GZIP)
    plain = client.get(page, headers=PLAIN)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert zipped.text == plain.text  # the same page
    sent = zipped.num_bytes_downloaded
    assert sent * 3 < len(plain.content), (sent, len(plain.content))  # 32 KB: about 6 KB
    assert zipped.headers["x-content-type-options"] == "nosniff"  # the other headers kept


def test_w70_small_answers_and_clients_without_gzip_get_them_plain(
    demo: tuple[TestClient, DemoLinks],
) -> None:
    client, links = demo
    token = re.sub(r".*token=", "", links.host_page)
    auth = {"Authorization": f"Bearer {token}", **GZIP}
    state = client.get(f"/api/encounters/{links.encounter_id}", headers=auth)
    assert state.status_code == 200 and state.headers["content-encoding"] == "gzip"
    small = client.get(f"/api/encounters/{links.encounter_id}/settings", headers=auth)
    assert small.status_code == 200 and len(small.content) < 1024
    assert "content-encoding" not in small.headers
    missing = client.get("/api/encounters/999999", headers=auth)
    assert missing.status_code in (403, 404) and "content-encoding" not in missing.headers


def test_w73_scripts_and_styles_are_hashed_files_cached_for_a_year_and_gzipped(
    demo: tuple[TestClient, DemoLinks],
) -> None:
    """The fight page references its script and style sheet by content-hashed names (with their
    SRI hashes) and runs no inline script (script-src 'self'); each file travels gzipped, is
    kept a year without asking again, answers 304 to its ETag, and an unknown name is a 404."""
    client, links = demo
    client.get(links.host_page, headers=GZIP)
    page = client.get(links.host_page.split("?")[0], headers=GZIP)
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    assert "nonce" not in policy
    inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", page.text)
    assert inline == []  # only the boot data's JSON, never an inline script
    found = re.findall(r'(?:src|href)="(/static/[a-z]+\.[0-9a-f]{10}\.(?:js|css))"', page.text)
    assert sorted(n.rsplit(".", 2)[0] for n in found) == ["/static/fight", "/static/page"]
    for path in found:
        asset = assets.by_name()[path.removeprefix("/static/")]
        assert f'integrity="{asset.integrity}"' in page.text
        zipped = client.get(path, headers=GZIP)
        plain = client.get(path, headers=PLAIN)
        assert zipped.status_code == plain.status_code == 200
        assert zipped.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert (
            zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
        )
        assert zipped.content == plain.content == asset.body  # the same bytes, unzipped
        assert zipped.num_bytes_downloaded * 2 < len(plain.content)
        assert hashlib.sha256(plain.content).hexdigest().startswith(path.split(".")[1])
        again = client.get(path, headers={"If-None-Match": zipped.headers["etag"], **GZIP})
        assert again.status_code == 304 and again.content == b""
    missing = client.get("/static/fight.0000000000.js")
    assert missing.status_code == 404 and missing.json() == {"error": "There is no such file."}
