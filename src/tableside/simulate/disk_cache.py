"""Exact laws computed once and kept on disk (issue 15: cold start under 50 ms).

Two kinds of tables are kept, each in one ``.tbl`` file (:func:`pack`) named by a SHA-256 of
its inputs and of the source code that computes it (any change to the rules code gives new
names, so a stale table is never read):

* the odds engine's roll laws (``majesty.odds_law.roll_law``: a reading, the `best` passes and
  the Boon/Bane), through the store hook of ``odds_law`` (the rules package itself does no I/O);
* the fast War simulator's Strike tables (``fast_laws.strike_table``).

The folder is ``$TABLESIDE_CACHE`` when set (``off`` turns the cache off), else
``platformdirs.user_cache_dir("tableside")`` when platformdirs is installed, else
``~/.cache/tableside``. Files are written to a temporary name and renamed, so concurrent
processes never read half a file; an unreadable file is ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import tableside
from tableside.majesty import odds_law

SOURCES = (
    "majesty/odds_law.py", "majesty/odds_tables.py", "majesty/odds_order.py",
    "majesty/adjust.py", "majesty/rolls.py", "majesty/strike.py", "majesty/strike_types.py",
    "majesty/character.py",
    "majesty/wear.py", "majesty/catalog.py", "majesty/data/weapons.json",
    "majesty/data/maneuvers.json", "simulate/fast_laws.py", "simulate/fast_war.py",
    "simulate/fast_war_start.py", "simulate/disk_cache.py", "simulate/fast_kernel.py",
    "simulate/fast_kernel_base.py", "simulate/fast_kernel_wear.py", "simulate/fast_kernel_turns.py",
)  # fmt: skip
# The modules numba compiles, one cache: a kernel inlines helpers from the others, so the
# compiled code of each is named by a digest of them all (numba_cache, issue 26).
KERNEL_SOURCES = (
    "fast_kernel.py", "fast_kernel_base.py", "fast_kernel_wear.py", "fast_kernel_turns.py",
    "fast_strife_kernel.py", "fast_strife_kernel_base.py", "fast_strife_kernel_policy.py",
    "fast_strife_kernel_acts.py", "fast_strife_kernel_turns.py", "fast_strife_kernel_water.py",
    "fast_strife_kernel_compel.py",
)  # fmt: skip
MAGIC = b"TBLSIDE1"  # the first bytes of a table file (pack)


def folder() -> Path | None:
    """Where tables are kept (None: the cache is off)."""
    chosen = os.environ.get("TABLESIDE_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    return user_folder()


def user_folder() -> Path:
    """The user's cache folder for Tableside (platformdirs', else ``~/.cache/tableside``)."""
    try:
        import platformdirs  # type: ignore[import-not-found,unused-ignore]

        return Path(platformdirs.user_cache_dir("tableside"))
    except ImportError:
        return Path.home() / ".cache" / "tableside"


@cache
def code_version() -> str:
    """A digest of the source files that compute the tables."""
    root = Path(tableside.__file__).parent
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode())
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:16]


@cache
def kernel_digest() -> str:
    """A SHA-256 of every kernel source (:data:`KERNEL_SOURCES`), in their order."""
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update(name.encode())
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def path_for(kind: str, inputs: str) -> Path | None:
    """The file of one table (None: the cache is off)."""
    where = folder()
    if where is None:
        return None
    name = hashlib.sha256(f"{code_version()}|{kind}|{inputs}".encode()).hexdigest()[:32]
    return where / f"{kind}-{name}.tbl"


def load(kind: str, inputs: str) -> dict[str, Any] | None:
    """A kept table's arrays, or None."""
    path = path_for(kind, inputs)
    if path is None or not path.exists():
        return None
    try:
        return unpack(path.read_bytes())
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(kind: str, inputs: str, arrays: dict[str, Any]) -> None:
    """Keep a table (silently skipped when the folder cannot be written)."""
    path = path_for(kind, inputs)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(pack(arrays))
        os.replace(temporary, path)
    except OSError:
        return


def pack(arrays: dict[str, Any]) -> bytes:
    """Arrays as one file's bytes: a magic, a JSON header (name, dtype, shape), raw data.

    Plain numeric arrays only (no Python objects), read back by :func:`unpack` without
    ``pickle`` and about twenty times faster than an ``.npz`` archive (F-22).
    """
    plain = {name: np.ascontiguousarray(value) for name, value in arrays.items()}
    for name, value in plain.items():
        if value.dtype.hasobject:
            raise ValueError(f"array {name!r} holds Python objects")
    header = json.dumps([[n, v.dtype.str, list(v.shape)] for n, v in plain.items()]).encode()
    parts = [MAGIC, len(header).to_bytes(4, "little"), header]
    return b"".join([*parts, *(value.tobytes() for value in plain.values())])


def unpack(data: bytes) -> dict[str, Any]:
    """The arrays of :func:`pack`'s bytes (ValueError when they are not such bytes)."""
    if not data.startswith(MAGIC):
        raise ValueError("not a table file")
    start = len(MAGIC) + 4
    size = int.from_bytes(data[len(MAGIC) : start], "little")
    buffer = bytearray(data)  # writable arrays, as np.load gives
    offset, arrays = start + size, {}
    for name, kind, shape in json.loads(data[start : start + size]):
        dtype = np.dtype(kind)
        if dtype.hasobject:
            raise ValueError("a table file may not hold Python objects")
        count = int(np.prod(shape, dtype=np.int64))
        arrays[str(name)] = np.frombuffer(buffer, dtype, count, offset).reshape(shape)
        offset += count * dtype.itemsize
    if offset != len(data):
        raise ValueError("a table file's length does not match its header")
    return arrays


class RollLawStore:
    """The store hook of ``odds_law``: roll laws kept on disk.

    ``hits`` and ``misses`` count the laws read back and those not found (then computed).
    """

    def __init__(self) -> None:
        self.hits = 0
        self.misses = 0

    def load(self, key: str) -> odds_law.RollLaw | None:
        """A kept roll law."""
        arrays = load("roll-law", key)
        if arrays is None:
            self.misses += 1
            return None
        self.hits += 1
        total, boon_net = (int(v) for v in arrays.pop("scalars"))
        return odds_law.RollLaw(**arrays, total=total, boon_net=boon_net)

    def save(self, key: str, law: odds_law.RollLaw) -> None:
        """Keep a roll law."""
        arrays = {name: getattr(law, name) for name in odds_law.RollLaw.__dataclass_fields__}
        scalars = np.array([arrays.pop("total"), arrays.pop("boon_net")], dtype=np.int64)
        save("roll-law", key, {**arrays, "scalars": scalars})


def install() -> None:
    """Let the odds engine keep its roll laws on disk (once per process)."""
    if not isinstance(odds_law.STORE, RollLawStore):
        odds_law.STORE = RollLawStore()


def warm_odds() -> None:
    """Build the tables every first exact law needs, so that a first request need not (F-22).

    One plain Strike law (Sword against Axe, ``best``) and one Realm of Strife attack law are
    computed: they build the shared tables (the kept rolls, every tally's Hits, Stops, 12
    Effects and Falter, the plain reading's roll law, read from the disk cache when kept). The
    web server runs this on a thread of its own when it starts.
    """
    from tableside.majesty.catalog import builtin_catalog
    from tableside.majesty.character import Attributes, Character, Side
    from tableside.majesty.odds import strike_odds
    from tableside.majesty.strike import StrikeSetup
    from tableside.strife.attack import AttackSetup
    from tableside.strife.catalog import builtin_catalog as strife_catalog
    from tableside.strife.odds import attack_odds

    catalog = builtin_catalog()
    striker = Character("A", Attributes(42, 31, 30, 60, 40, 40), weapon="Sword")
    defender = Character("D", Attributes(56, 22, 40, 60, 40, 40), weapon="Axe", side=Side.FALLEN)
    strike_odds(StrikeSetup(striker, defender, catalog.weapon("Sword"), catalog.weapon("Axe")))
    strife = strife_catalog()
    attack_odds(AttackSetup(strife.combatant("Aldric"), strife.combatant("Goblin"),
                            strife.weapon("Long Sword")))  # fmt: skip
