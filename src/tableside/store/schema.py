"""Which schema revision this package ships, read from its migration files without Alembic.

A store already at this revision is opened without loading Alembic (``migrate.upgrade``) or,
on the command line, without SQLAlchemy (``lite.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

SCRIPT_LOCATION = str(Path(__file__).resolve().parent / "migrations")
_REVISION = re.compile(r'^(down_revision|revision)\b[^=]*=\s*"([^"]+)"', re.MULTILINE)


def shipped_head() -> str | None:
    """The newest migration's id read from the shipped files (None unless exactly one head)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (Path(SCRIPT_LOCATION) / "versions").glob("v*.py"):
        found = dict((key, value) for key, value in _REVISION.findall(path.read_text("utf-8")))
        if "revision" not in found:
            return None
        revisions.add(found["revision"])
        if "down_revision" in found:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return next(iter(heads)) if len(heads) == 1 else None
