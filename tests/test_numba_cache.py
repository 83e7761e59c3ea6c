"""The compiled kernels' cache: one name for all the kernels' sources (issue 26).

numba compiles a kernel with its helpers inlined from other modules, but its cache index checks
only the file of the function it compiles; ``numba_cache.source_digest`` therefore names every
kernel module's compiled code by a digest of all the kernel sources (``disk_cache
.KERNEL_SOURCES``), so a change to any helper compiles every kernel again.
"""

from __future__ import annotations

import re
from pathlib import Path

from tableside.simulate import disk_cache, numba_cache

SIMULATE = Path(disk_cache.__file__).parent
COMPILED = re.compile(r"^@(jit|inline)\b|numba\.njit", re.MULTILINE)


def test_every_kernel_source_is_named_by_the_digest_of_them_all() -> None:
    digests = {numba_cache.source_digest(str(SIMULATE / n)) for n in disk_cache.KERNEL_SOURCES}
    assert digests == {disk_cache.kernel_digest()[:16]}
    other = SIMULATE / "fast_war.py"
    assert numba_cache.source_digest(str(other)) != disk_cache.kernel_digest()[:16]


def test_every_module_numba_compiles_is_a_kernel_source() -> None:
    compiled = {p.name for p in SIMULATE.glob("*.py") if COMPILED.search(p.read_text("utf-8"))}
    assert compiled, "the pattern finds the kernels"
    missing = compiled - set(disk_cache.KERNEL_SOURCES)
    assert missing == set(), f"add these to disk_cache.KERNEL_SOURCES: {sorted(missing)}"


def test_the_strike_tables_digest_covers_the_war_kernel() -> None:
    war = {f"simulate/{n}" for n in disk_cache.KERNEL_SOURCES if not n.startswith("fast_strife")}
    assert war <= set(disk_cache.SOURCES)
