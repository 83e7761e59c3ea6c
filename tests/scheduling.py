"""Which tests share a worker under pytest-xdist (issue 23), decided from the test's node id.

xdist's ``--dist loadgroup`` groups the tests marked ``xdist_group`` by appending ``@group`` to
their node ids on the workers; from pytest 9 on the node id is no longer the attribute xdist
writes (pytest-xdist issue 1386), so no test kept its group and a module's module-scoped fixture
(a computed report, a server with its browsers) was made once on *each* worker. The scheduler
here does not rely on that: the controller reads the group straight from each node id
(:func:`group_of`), and :class:`GroupScheduling` hands a group's tests to one worker, as
``loadgroup`` meant to. :func:`computed_once` fails a test whose expensive fixture was computed
on a second worker of the same run.

- A module's tests stay on one worker (they share module-scoped fixtures).
- ``SPREAD`` modules (heavy, independent statistical tests) go test by test.
- ``MACHINE_GROUP`` modules (crash tests, CPU-time bounds) are one group: one after another.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

# One after another on one worker: a crash or a CPU-time bound beside another such test.
MACHINE_GROUP = ("test_store_crash", "test_war_crash", "test_cold_start", "test_bounds")
# Modules whose tests are independent and heavy: spread over the workers one by one (a
# module-scoped fixture with parameters is used by one test per parameter there).
SPREAD = (
    "test_simulate_agreement_effects", "test_simulate_agreement_strife_effects",
    "test_simulate_agreement_conditions", "test_simulate_agreement_strife_places",
    "test_simulate_agreement_dominions",
    "test_simulate_agreement_strife_rules",
)  # fmt: skip


def matches(module: str, names: tuple[str, ...]) -> bool:
    """Whether a module's name is one of ``names`` (a trailing * matches a prefix)."""
    return any(module.startswith(n[:-1]) if n.endswith("*") else module == n for n in names)


def group_of(nodeid: str) -> str:
    """The work unit of a test: its module, ``machine``, or (``SPREAD``) the test alone."""
    path = nodeid.split("::", 1)[0]
    module = Path(path).stem
    if matches(module, MACHINE_GROUP):
        return "machine"
    if matches(module, SPREAD):
        return nodeid
    return path


class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """xdist's scope scheduling with :func:`group_of` as the scope of each test."""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)


def make_scheduler(config: pytest.Config, log: Any) -> GroupScheduling | None:
    """The scheduler for ``--dist loadgroup`` (None: xdist's own, for the other modes)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return GroupScheduling(config, log)


def computed_once(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    """Fail when the expensive fixture ``name`` was already computed by another worker this run.

    The workers of one run keep their temporary folders under one parent; a file named after
    the fixture is made there without overwriting, so the second worker to compute it fails.
    """
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    marks = root / "computed-once"
    marks.mkdir(exist_ok=True)
    try:
        (marks / name).open("x").close()
    except FileExistsError:
        pytest.fail(f"the fixture {name!r} was computed on two workers of this run")
