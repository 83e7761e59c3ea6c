"""A store handle used as a context manager: ``with …`` closes it (Store and LiteLog alike)."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """``with handle:`` returns the handle and calls its :meth:`close` on the way out."""

    def close(self) -> None:
        """Release what the handle holds; it cannot be used afterwards."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        self.close()
