"""What outlives a fight: the carry-over proposed at its end, and a rest (CH-3 … CH-12).

Realm of Strife follows the Combat page's carry-over lines (S-22): HP, Spirit, Faith, Focus and
Honor's code stacks carry over as they stand (CH-3); Vigor returns to its maximum after a
reasonable break, half of it for a wave fight (CH-4); Fury halves at once and is lost unless
another battle follows within 2 minutes (CH-5); Honor oaths and virtues may change at the start
of the next combat (CH-6). A fight closed with ``end_combat`` already applied S-22 to its
resources: they are taken as they stand (CH-7).

Allies of Majesty's texts say nothing of what outlives a War; the Host chooses, and the
defaults are (CH-8): Wear carries over (a wound stays until rest), Exertion is rested away
(M-4: Rest removes it), timed lowerings of Status end with the War, and an epic Defeat carries
over until rest. A rest (CH-11, CH-12) restores what resting restores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tableside.campaign.sheets import MAJESTY
from tableside.errors import DataError
from tableside.strife.catalog import Pool, Resource
from tableside.strife.resources import end_of_combat


@dataclass(frozen=True, slots=True)
class Options:
    """The Host's choices at a fight's end (CH-4, CH-5, CH-8).

    Attributes:
        wave: Realm of Strife: only a brief respite follows (Vigor back to half its maximum).
        battle_soon: Realm of Strife: another battle follows within 2 minutes (Fury kept halved).
        keep_exertion: Allies of Majesty: Exertion carries over instead of being rested away.
    """

    wave: bool = False
    battle_soon: bool = False
    keep_exertion: bool = False


@dataclass(frozen=True, slots=True)
class Change:
    """One number that changes on the roster sheet: its name, before, after and the reading."""

    name: str
    before: Any
    after: Any
    ruling: str

    def to_json(self) -> dict[str, Any]:
        """The change as JSON."""
        return {"name": self.name, "before": self.before, "after": self.after,
                "ruling": self.ruling}  # fmt: skip


def _changes(
    before: dict[str, Any], after: dict[str, Any], rulings: dict[str, str]
) -> list[Change]:
    return [
        Change(name, before.get(name), value, rulings.get(name, "CH-3"))
        for name, value in after.items()
        if before.get(name) != value
    ]


def strife_carry(
    sheet: dict[str, Any], fought: dict[str, Any], applied: bool, options: Options
) -> tuple[dict[str, Any], list[Change]]:
    """A Realm of Strife roster sheet after a fight, and what changed (CH-3 … CH-7).

    Args:
        sheet: The roster sheet before the fight.
        fought: The model's sheet at the fight's end.
        applied: Whether ``end_combat`` already applied S-22 to the fight's resources (CH-7).
        options: The Host's choices.
    """
    pools = {Resource(k): Pool.model_validate(v) for k, v in fought.get("resources", {}).items()}
    if not applied:
        pools = end_of_combat(
            pools, wave=options.wave, battle_within_2_minutes=options.battle_soon
        ).pools
    after = dict(sheet)
    after["hp"] = min(fought["hp"], sheet["hp_max"])
    resources = dict(sheet.get("resources", {}))
    for name, pool in pools.items():
        if name.value in resources:
            resources[name.value] = pool.model_dump(mode="json")
    after["resources"] = resources
    rulings = {"Vigor": "CH-4", "Fury": "CH-5", "Honor": "CH-6"}
    before = {"HP": sheet["hp"], **_currents(sheet)}
    now = {"HP": after["hp"], **_currents(after)}
    return after, _changes(before, now, rulings)


def _currents(sheet: dict[str, Any]) -> dict[str, int]:
    return {name: pool["current"] for name, pool in sheet.get("resources", {}).items()}


def majesty_carry(
    sheet: dict[str, Any], fought: dict[str, Any], options: Options
) -> tuple[dict[str, Any], list[Change]]:
    """An Allies of Majesty roster sheet after a War, and what changed (CH-8)."""
    after = dict(sheet)
    after["wear"] = dict(fought["wear"])
    after["exertion"] = fought["exertion"] if options.keep_exertion else 0
    after["status_lowered"] = 0
    after["defeated_by_epic"] = fought["defeated_by_epic"]
    return after, _changes(_majesty_view(sheet), _majesty_view(after), {})


def _majesty_view(sheet: dict[str, Any]) -> dict[str, Any]:
    wear = sheet["wear"]
    return {"Wear E": wear["E"], "Wear R": wear["R"], "Wear P": wear["P"],
            "Exertion": sheet["exertion"], "Defeated": sheet["defeated_by_epic"]}  # fmt: skip


def carry(
    game: str, sheet: dict[str, Any], fought: dict[str, Any], applied: bool, options: Options
) -> tuple[dict[str, Any], list[Change]]:
    """The roster sheet after a fight of ``game``, and what changed."""
    if game == MAJESTY:
        after, changes = majesty_carry(sheet, fought, options)
    else:
        after, changes = strife_carry(sheet, fought, applied, options)
    return after, [Change(c.name, c.before, c.after, _ruling(game, c)) for c in changes]


def _ruling(game: str, change: Change) -> str:
    return "CH-8" if game == MAJESTY else change.ruling


def rest(game: str, sheet: dict[str, Any], amount: int | None = None) -> dict[str, Any]:
    """A rest: what resting restores (CH-11 Realm of Strife, CH-12 Allies of Majesty).

    Realm of Strife: HP and Spirit each regain ``amount`` (a full rest when None: to their
    maxima; Spirit regains as much as HP, S-22); Vigor returns to its maximum and Fury is gone.
    Faith and Focus are regained otherwise (Faith's own rules, Meditation): a rest leaves them.
    Allies of Majesty: Wear and Exertion are gone and an epic Defeat ends (the Host's default).
    """
    if amount is not None and (isinstance(amount, bool) or amount < 1):
        raise DataError(f"A rest's amount must be a whole number of 1 or more, got {amount!r}.")
    after = dict(sheet)
    if game == MAJESTY:
        after |= {"wear": {"E": 0, "R": 0, "P": 0}, "exertion": 0, "status_lowered": 0,
                  "defeated_by_epic": False}  # fmt: skip
        return after
    gain = sheet["hp_max"] if amount is None else amount
    after["hp"] = min(sheet["hp_max"], sheet["hp"] + gain)
    resources = {name: dict(pool) for name, pool in sheet.get("resources", {}).items()}
    spirit = resources.get("Spirit")
    if spirit is not None and spirit.get("maximum") is not None:
        spirit["current"] = min(spirit["maximum"], spirit["current"] + gain)
    vigor = resources.get("Vigor")
    if vigor is not None and vigor.get("maximum") is not None:
        vigor["current"] = max(vigor["current"], vigor["maximum"])
    if "Fury" in resources:
        resources["Fury"]["current"] = 0
    after["resources"] = resources
    return after
