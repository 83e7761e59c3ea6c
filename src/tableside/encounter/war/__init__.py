"""The Allies of Majesty War as a package: one module per concern around one state.

From the bottom up (a module imports only those above it in this list; ``docs/packages.md``):
:mod:`.names` (the words of effects and Host fields), :mod:`.args` (validated arguments),
:mod:`.state` (the state and how events change it), :mod:`.pending` (the working copy and the
effects every command shares), :mod:`.turns` (Cycle, Turns, timed effects), :mod:`.movement`
(moving, Knock Back), :mod:`.grapple` (Grappling, Entangling), :mod:`.strike` (the Strike),
:mod:`.effects` (special effects and the Host's hand), :mod:`.commands` (the handler table),
:mod:`.choices` (who chooses what on a Strike) and :mod:`.game` (:class:`MajestyWar`).

The names below are re-exported lazily: importing :mod:`.names` for the command line's
``--help`` loads nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tableside.encounter.war.game import MajestyWar
    from tableside.encounter.war.state import Combatant, EndPoint, Timed, WarState
    from tableside.encounter.war.strike import strike_breakdown, strike_setup

__all__ = [
    "Combatant", "EndPoint", "MajestyWar", "Timed", "WarState", "strike_breakdown",
    "strike_setup",
]  # fmt: skip

_HOMES = {
    "MajestyWar": "game", "Combatant": "state", "EndPoint": "state", "Timed": "state",
    "WarState": "state", "strike_breakdown": "strike", "strike_setup": "strike",
}  # fmt: skip


if not TYPE_CHECKING:  # the type checker sees the names above, and no others

    def __getattr__(name: str) -> Any:
        """The re-exported names, each loaded from its module when first asked for."""
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{__name__}.{home}"), name)
