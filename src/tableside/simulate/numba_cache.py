"""Compiled kernels kept in the user's cache folder, shared by every checkout (issue 23).

numba keeps a ``cache=True`` function's machine code beside its module (``__pycache__``), or
under ``$NUMBA_CACHE_DIR`` in a folder named by the module's *path*: either way a fresh clone
compiles every kernel again (a minute or two of CPU each). :func:`install` puts a locator first
in numba's list that keeps the code in the user's cache folder (``~/.cache/tableside/numba/``,
:func:`disk_cache.user_folder`; ``$TABLESIDE_CACHE`` moves only the exact tables), named by the
module's name and a SHA-256 of its source text (for a kernel, of all the kernels' sources
together: one cache, ``disk_cache.KERNEL_SOURCES``), so that any checkout of the same source reuses
it; a changed source gets a new folder, and numba's own index still checks the source
and numba's version before it loads anything.

Nothing is installed when ``$NUMBA_CACHE_DIR`` is set (numba's own choice then stands: the
benchmarks use it to measure a compilation from scratch).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from numba.core import caching

from tableside.simulate import disk_cache


@cache
def source_digest(py_file: str) -> str:
    """The first 16 hex digits of a SHA-256 of a source file's bytes.

    A kernel module's (``disk_cache.KERNEL_SOURCES``) is that of every kernel source together:
    numba's index checks only the compiled function's own file, and a kernel inlines helpers
    from the others (issue 26).
    """
    path = Path(py_file)
    here = Path(disk_cache.__file__).parent
    if path.name in disk_cache.KERNEL_SOURCES and path.parent.resolve() == here.resolve():
        return disk_cache.kernel_digest()[:16]
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class UserCacheLocator(caching._CacheLocator):
    """numba's cache for one function: ``<cache folder>/numba/<module>-<source digest>``."""

    def __init__(self, py_func: Any, py_file: str, where: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        name = Path(py_file).stem
        self._cache_path = str(where / "numba" / f"{name}-{source_digest(py_file)}")

    def get_cache_path(self) -> str:
        """The folder of this function's index and machine code."""
        return self._cache_path

    def get_source_stamp(self) -> str:
        """The source's digest (the same text in any checkout is the same stamp)."""
        return source_digest(self._py_file)

    def get_disambiguator(self) -> str:
        """The function's first line, as numba's own locators."""
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> UserCacheLocator | None:
        """The locator, or None (numba's next one) when the folder cannot be written."""
        where = disk_cache.user_folder()
        if not os.path.exists(py_file):
            return None
        locator = cls(py_func, py_file, where)
        try:
            os.makedirs(locator.get_cache_path(), exist_ok=True)
            tempfile.TemporaryFile(dir=locator.get_cache_path()).close()
        except OSError:
            return None
        return locator


def install() -> None:
    """Put :class:`UserCacheLocator` first in numba's list (once; see the module's note)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    implementation: Any = getattr(caching, "CacheImpl", None) or caching.__dict__["_CacheImpl"]
    classes: list[Any] = implementation._locator_classes
    if UserCacheLocator not in classes:
        classes.insert(0, UserCacheLocator)
