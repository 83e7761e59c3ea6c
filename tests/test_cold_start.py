"""Cold start of the exact odds on the web (issue 15, F-22): the web server keeps exact laws in
the disk cache (``TABLESIDE_CACHE``, ``off``) and builds the shared odds tables on a thread of
its own when it starts, so a fresh server's first odds request reads what it needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = """
import json, sys, time
from fastapi.testclient import TestClient
from tableside.majesty import odds, odds_law
from tableside.web import create_app

client = TestClient(create_app("sqlite:///" + sys.argv[1]))
client.__enter__()
client.app.state.warming.join()
warmed = odds._strike_keys.cache_info().currsize
store = odds_law.STORE
before = (store.hits, store.misses) if store is not None else None
table = client.post("/api/tables", json={"name": "Cold"}).json()
auth = {"Authorization": "Bearer " + table["host_token"]}
eid = client.post(f"/api/tables/{table['id']}/encounters", headers=auth,
                  json={"game": "majesty-war", "name": "Cold", "seed": 1}).json()["id"]
def character(name, side, weapon, control):
    return {"format": "tableside/majesty-character", "version": 1, "name": name, "side": side,
            "weapon": weapon, "attributes": {"might": 44, "swiftness": 30, "control": control,
            "endurance": 60, "resolve": 40, "passion": 40}}
# Control 70 (the start-up Strike has 30 and 40): other Adjustments, so laws of their own
for who, side, weapon, x in (("Ana", "holy", "Spear", 0), ("Bel", "fallen", "Club", 2)):
    made = character(who, side, weapon, 70)
    body = {"kind": "add", "args": {"id": who, "character": made, "position": [x, 0, 0]}}
    assert client.post(f"/api/encounters/{eid}/commands", headers=auth, json=body).is_success
assert client.post(f"/api/encounters/{eid}/commands", headers=auth,
                   json={"kind": "next", "args": {}}).is_success
state = client.get(f"/api/encounters/{eid}", headers=auth).json()["state"]
striker = state["current"]
other = "Bel" if striker == "Ana" else "Ana"
began = time.process_time()
r = client.post(f"/api/encounters/{eid}/odds", headers=auth,
                json={"kind": "strike", "args": {"striker": striker, "defender": other}})
cpu = time.process_time() - began
assert r.status_code == 200, r.text
after = (store.hits, store.misses) if store is not None else None
print(json.dumps({"store": type(store).__name__, "warmed": warmed, "before": before,
                  "after": after, "cpu_ms": 1000 * cpu}))
"""


def fresh_server(tmp_path: Path, cache: str, name: str) -> dict[str, Any]:
    env = {**os.environ, "TABLESIDE_CACHE": cache}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / f"{name}.db")], env=env,
                         capture_output=True, text=True, check=False, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def test_f22_a_fresh_servers_first_odds_read_the_disk_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = fresh_server(tmp_path, str(cache), "first")
    assert first["store"] == "RollLawStore"
    assert first["warmed"] >= 1  # the shared tables were built when the server started
    assert first["after"][1] > first["before"][1]  # this Strike's own laws were computed …
    assert any(cache.glob("roll-law-*.tbl"))  # … and kept
    again = fresh_server(tmp_path, str(cache), "again")
    assert again["before"] == [again["before"][0], 0] and again["before"][0] >= 1
    assert again["after"][1] == 0 and again["after"][0] > again["before"][0]  # all read back
    # a generous bound (the machine may be loaded); without the cache the law costs 0.5 s+
    assert again["cpu_ms"] < 250, again


def test_f22_tableside_cache_off_keeps_nothing_on_disk(tmp_path: Path) -> None:
    found = fresh_server(tmp_path, "off", "off")
    assert found["store"] == "RollLawStore" and found["warmed"] >= 1
    assert found["before"][0] == 0 and found["after"][0] == 0  # nothing read back
    assert not any(tmp_path.glob("**/*.tbl"))


def test_f22_a_table_file_gives_back_its_arrays_and_refuses_anything_else() -> None:
    import numpy as np
    import pytest

    from tableside.simulate.disk_cache import pack, unpack

    arrays = {
        "rows": np.arange(24, dtype=np.int64).reshape(2, 12),
        "w": np.array([3, 1]),
        "flags": np.array([[True], [False]]),
        "empty": np.zeros((0, 3), dtype=np.int16),
    }
    back = unpack(pack(arrays))
    assert list(back) == list(arrays)
    for name, value in arrays.items():
        assert back[name].dtype == value.dtype and np.array_equal(back[name], value)
    back["rows"][0, 0] = 7  # writable, as np.load's arrays are
    data = pack(arrays)
    for broken in (b"PK\x03\x04" + data[4:], data[:-1], data + b"\x00"):
        with pytest.raises(ValueError):
            unpack(broken)
    with pytest.raises(ValueError, match="Python objects"):
        pack({"o": np.array([object()])})
