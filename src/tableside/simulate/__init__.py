"""Whole-fight simulation of stored encounters, both games (``tableside simulate``).

See docs/simulate.md for the policies, the seeds, the statistics and the report's schema.
"""

from tableside.simulate import disk_cache
from tableside.simulate.driver import DEFAULT_CAP, default_workers, simulate
from tableside.simulate.runs import SimulationError, run_seed

disk_cache.install()

__all__ = ["DEFAULT_CAP", "SimulationError", "default_workers", "run_seed", "simulate"]
