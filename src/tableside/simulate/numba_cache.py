"""Compiled kernels kept in the user's cache folder, shared by every checkout (issue 23).

numba keeps a ``cache=True`` function's machine code beside its module (``__pycache__``), or
under ``$NUMBA_CACHE_DIR`` in a folder named by the module's *path*: either way a fresh clone
compiles every kernel again (a minute or two of CPU each). :func:`install` puts a locator first
in numba's list that keeps the code in the user's cache folder (``~/.cache/tableside/numba/``,
:func:`disk_cache.user_folder`; ``$TABLESIDE_CACHE`` moves only the exact tables), named by the
module's name and a SHA-256 of its source text, so that any checkout of the same source reuses
it; a changed source gets a new folder, and numba's own index still checks the source
and numba's version before it loads anything. numba itself checks only the file of the function
it caches, while a kernel compiles in the helpers it imports from other modules: a kernel module
names those with :func:`covers`, and its digest is then of all their texts, so a change to any
of them is a new folder too.

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

_COVERED: dict[str, tuple[str, ...]] = {}  # a module's file → the other files it compiles in


def covers(py_file: str, *others: str) -> None:
    """Key the machine code of ``py_file``'s functions by the sources of ``others`` too.

    Called by a kernel module at its import (before anything compiles) with the files of the
    modules whose numba functions it calls.
    """
    own = os.path.realpath(py_file)
    _COVERED[own] = tuple(sorted({os.path.realpath(o) for o in others} - {own}))
    source_digest.cache_clear()


@cache
def source_digest(py_file: str) -> str:
    """The first 16 hex digits of a SHA-256 of a source file's bytes and of those it covers."""
    own = os.path.realpath(py_file)
    digest = hashlib.sha256(Path(own).read_bytes())
    for other in _COVERED.get(own, ()):
        digest.update(b"\0" + Path(other).name.encode() + b"\0")  # not the checkout's path
        digest.update(Path(other).read_bytes())
    return digest.hexdigest()[:16]


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
