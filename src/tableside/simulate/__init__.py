"""Whole-fight simulation of stored encounters, both games (``tableside simulate``).

See docs/simulate.md for the policies, the seeds, the statistics and the report's schema.

The names below are imported when first used (PEP 562): the simulators' compiled kernels bring
numba and LLVM (about 100 MB), which a web server's start, pages and commands do not need
(issue 26, W-75).
"""

from typing import TYPE_CHECKING, Any

from tableside.simulate import disk_cache

if TYPE_CHECKING:  # the names as they are, for the type checker only
    from tableside.simulate.driver import DEFAULT_CAP, default_workers, simulate
    from tableside.simulate.runs import SimulationError, run_seed

disk_cache.install()

__all__ = ["DEFAULT_CAP", "SimulationError", "default_workers", "run_seed", "simulate"]
WHERE = {"DEFAULT_CAP": "driver", "default_workers": "driver", "simulate": "driver",
         "SimulationError": "runs", "run_seed": "runs"}  # fmt: skip


def __getattr__(name: str) -> Any:
    """A name of :data:`__all__`, imported from its module on first use."""
    if name not in WHERE:
        raise AttributeError(f"module 'tableside.simulate' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"tableside.simulate.{WHERE[name]}"), name)
