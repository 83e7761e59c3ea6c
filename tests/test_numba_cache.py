"""The compiled kernels' cache: one name for all the kernels' sources (issue 26).

numba compiles a kernel with its helpers inlined from other modules, but its cache index checks
only the file of the function it compiles; ``numba_cache.source_digest`` therefore names every
kernel module's compiled code by a digest of all the kernel sources (``disk_cache
.KERNEL_SOURCES``), so a change to any helper compiles every kernel again, and a module outside
that list names the files it compiles in with ``numba_cache.covers``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tableside.simulate import disk_cache, numba_cache
from tableside.simulate.fast_strife_kernel_base import KERNEL_FILES

SIMULATE = Path(disk_cache.__file__).parent
COMPILED = re.compile(r"^@(jit|inline)\b|numba\.njit", re.MULTILINE)


def test_a_kernels_digest_changes_with_any_module_it_covers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel, helper = tmp_path / "kernel.py", tmp_path / "helper.py"
    kernel.write_text("x = 1\n")
    helper.write_text("y = 1\n")
    monkeypatch.setattr(numba_cache, "_COVERED", {})
    numba_cache.source_digest.cache_clear()
    alone = numba_cache.source_digest(str(kernel))
    numba_cache.covers(str(kernel), str(helper))
    covered = numba_cache.source_digest(str(kernel))
    helper.write_text("y = 2\n")
    numba_cache.source_digest.cache_clear()
    assert len({alone, covered, numba_cache.source_digest(str(kernel))}) == 3
    numba_cache.source_digest.cache_clear()


def test_the_strife_kernels_parts_are_kernel_sources() -> None:
    parts = {p.name for p in SIMULATE.glob("fast_strife_kernel*.py")} | {"fast_kernel.py"}
    assert {Path(f).name for f in KERNEL_FILES} == parts
    assert parts <= set(disk_cache.KERNEL_SOURCES)


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
