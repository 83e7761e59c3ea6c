"""Where a resolver's dice come from: one Rng for everything, or dice typed in per stage.

A resolver asks for the dice of each stage by name (``ward_off``, ``hit``, ``reaction``,
``damage``, ``effects`` …). With :class:`RngStages` they all come from one injected Rng, in the
order the resolver asks; with :class:`GivenStages` each stage plays back the faces given for it,
and :meth:`GivenStages.finish` refuses faces that were given but not needed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from tableside.dice import Rng, ScriptedRng

Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class RngStages:
    """Every stage draws from the same Rng."""

    rng: Rng

    def rng_for(self, stage: str) -> Rng:
        """The Rng of a stage."""
        return self.rng


@dataclass(slots=True)
class GivenStages:
    """Each stage plays back its own typed-in faces."""

    faces: Mapping[str, Sequence[int]]
    _scripts: dict[str, ScriptedRng] = field(default_factory=dict)

    def rng_for(self, stage: str) -> Rng:
        """A scripted Rng over the faces given for ``stage`` (none given: none available)."""
        if stage not in self._scripts:
            self._scripts[stage] = ScriptedRng(self.faces.get(stage, ()), f"{stage} dice")
        return self._scripts[stage]

    def finish(self) -> None:
        """Refuse leftover faces of any stage (RulesError naming the stage)."""
        for stage, faces in self.faces.items():
            self.rng_for(stage)
            if faces:
                self._scripts[stage].expect_all_used()

    def play(self, resolve: Callable[[GivenStages], Result]) -> Result:
        """``resolve`` on these faces, then :meth:`finish`: every ``*_with_dice`` resolver."""
        result = resolve(self)
        self.finish()
        return result
