"""The numba cache's folder is keyed by a kernel's source and the sources it covers (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tableside.simulate import balance, numba_cache
from tableside.simulate.fast_strife_kernel_base import KERNEL_FILES


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


def test_the_strife_kernels_parts_are_covered_and_warmed() -> None:
    here = Path(balance.__file__).parent
    parts = {p.name for p in here.glob("fast_strife_kernel*.py")} | {"fast_kernel.py"}
    assert {Path(f).name for f in KERNEL_FILES} == parts
    assert set(balance.KERNEL_SOURCES) == parts
    for part in here.glob("fast_strife_kernel*.py"):
        assert "numba_cache.covers(__file__, *KERNEL_FILES)" in part.read_text("utf-8"), part
