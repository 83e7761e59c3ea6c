"""The log in pages (issue 26, W-74): the page boots with its last records, older ones on request.

A fight's page carries only the last :data:`BOOT_RECORDS` records the viewer may see in its boot
data; ``GET …/log?before=REV&limit=N`` gives the (at most ``N``) records before revision ``REV``
and whether more lie before them. Both are cut from the one redacted read of the log that
``GET …/log`` and the stream use (``WebTable.log``, W-1 … W-16, W-66), so a page of the log
holds exactly what the whole log holds for the same viewer, and nothing else.
"""

from __future__ import annotations

from typing import Any

BOOT_RECORDS = 50  # the records in a fight page's boot data
PAGE_MOST = 200  # the most records one ``GET …/log?limit=`` may ask


def last_records(
    records: list[dict[str, Any]], before: int | None, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """The last ``limit`` of ``records`` before revision ``before`` (None: the newest), in order.

    Returns:
        Those records, and whether any record lies before them.
    """
    older = [r for r in records if before is None or int(r["revision"]) < before]
    return older[-limit:], len(older) > limit
