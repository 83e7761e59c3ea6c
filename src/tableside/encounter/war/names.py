"""The words a War command accepts for an effect and for a Host's adjustment.

Kept apart from :mod:`.args` (the validators, which load pydantic) so that the command line's
``--help`` lists them without loading anything else.
"""

from __future__ import annotations

from typing import Literal

EffectName = Literal[
    "falter", "falter_cycle", "release_falter_cycle", "poison", "bound", "unbound", "grappled",
    "released", "entangled", "exposed", "unexposed", "surprised", "asleep", "awake", "knock_back",
    "lower_status", "wear_e", "wear_r", "wear_p", "exertion",
]  # fmt: skip

HostField = Literal[
    "ap", "readied", "falter", "poison", "exertion", "position", "wear_e", "wear_r", "wear_p",
    "stance", "status_lowered",
]  # fmt: skip
