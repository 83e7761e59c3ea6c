"""Who a player does not see (docs/web.md W-66): fog, Hide and unplaced secret NPCs.

A combatant is *unseen* by a player when the player does not play it and either

- it stands in an area the Host has fogged (the map's fog, ``PUT …/fog``): this is how the Host
  keeps secret NPCs out of view until placing them where the players can see; or
- the rules hide it: a Realm of Strife model that is hidden (Hide, Stealth: S-22, SA-16).

An unseen combatant is absent from what the player is sent, not greyed: its row and its Turn
order entry leave the state (the current Turn, if it is its, reads null, and ``unseen_turn``
true), every record that names it leaves the log and the stream (as a hidden record does: the
stream says only that the table moved on), and the play panel offers it as no target. The Host
sees everyone.
"""

from __future__ import annotations

import re
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tableside.store.db import Store
from tableside.store.layers import Area, layers
from tableside.web.auth import Principal

Json = dict[str, Any]
Kept = tuple[float, tuple[Area, ...]]


def unseen_in(state: Json, who: Principal, fog: Iterable[Area]) -> frozenset[str]:
    """The ids ``who`` does not see in the state view ``state`` under ``fog`` (W-66)."""
    if who.is_host:
        return frozenset()
    areas = tuple(fog)
    rows = state.get("combatants", state.get("models", []))
    found = set()
    for row in rows if isinstance(rows, list) else []:
        cid = row.get("id")
        if not isinstance(cid, str) or who.plays(cid):
            continue
        if row.get("hidden") is True or fogged(row.get("position"), areas):
            found.add(cid)
    return frozenset(found)


def fogged(position: Any, areas: tuple[Area, ...]) -> bool:
    """Whether a position [x, y, z] lies in one of the fogged areas."""
    if not isinstance(position, list | tuple) or len(position) < 2:
        return False
    x, y = position[0], position[1]
    if not isinstance(x, int | float) or not isinstance(y, int | float):
        return False
    return any(a.covers(float(x), float(y)) for a in areas)


class FogCache:
    """Each encounter's fog as last read or written in this process.

    It is read again after :data:`FOG_FRESH` seconds (another process's change shows within
    them): a player's read costs no statement more (W-5).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._kept: weakref.WeakKeyDictionary[Store, dict[int, Kept]] = weakref.WeakKeyDictionary()
        self.clock = clock

    def fog(self, store: Store, encounter_id: int) -> tuple[Area, ...]:
        """The encounter's fog."""
        with self._lock:
            found = self._kept.get(store, {}).get(encounter_id)
        if found is not None and self.clock() - found[0] < FOG_FRESH:
            return found[1]
        areas = layers(store, encounter_id).fog
        self.kept(store, encounter_id, areas)
        return areas

    def kept(self, store: Store, encounter_id: int, areas: tuple[Area, ...]) -> None:
        """Remember the encounter's fog (as just written or read)."""
        with self._lock:
            self._kept.setdefault(store, {})[encounter_id] = (self.clock(), areas)


FOG_FRESH = 2.0
FOGS = FogCache()


def unseen(store: Store, state: Json, who: Principal, encounter_id: int) -> frozenset[str]:
    """The ids ``who`` does not see now."""
    if who.is_host:
        return frozenset()
    return unseen_in(state, who, FOGS.fog(store, encounter_id))


def without_unseen(state: Json, ids: frozenset[str]) -> Json:
    """The state view without the unseen combatants' rows, Turn entries and current Turn."""
    if not ids:
        return state
    out = dict(state)
    for key in ("combatants", "models"):
        if isinstance(state.get(key), list):
            out[key] = [row for row in state[key] if row.get("id") not in ids]
    if isinstance(state.get("order"), list):
        out["order"] = [t for t in state["order"] if not names_any(t, ids)]
    if state.get("current") in ids:
        out["current"] = None
        out["unseen_turn"] = True
    return out


def names_any(value: Any, ids: frozenset[str]) -> bool:
    """Whether any string anywhere in ``value`` (keys included) is one of ``ids``."""
    return any(s in ids for s in strings(value))


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, its mappings' keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


ATTACKER = "an unseen attacker"
SOMEONE = "an unseen combatant"
ACTING = ("striker", "attacker", "caster", "actor")


def labels(ids: Iterable[str], command: Any = None) -> dict[str, str]:
    """How each unseen id is said to a player: the command's actor "an unseen attacker".

    Every other unseen combatant is "an unseen combatant" (W-66).
    """
    args = command.get("args") if isinstance(command, Mapping) else None
    acting = {args.get(k) for k in ACTING} if isinstance(args, Mapping) else set()
    return {i: ATTACKER if i in acting else SOMEONE for i in ids}


def conceal(value: Any, said: Mapping[str, str]) -> Any:
    """``value`` with every unseen id (and its spaced form, "Goblin 2") said as ``said`` has it.

    A string that is an id, or names one as a word, anywhere in a JSON value (its mappings'
    keys included) reads the label instead: a decision's prompt, options, ``details``, dice
    labels and command, a refusal's sentence (W-66). Keys that two ids would make the same are
    numbered, so nothing is lost.
    """
    if not said:
        return value
    forms = {form: label for cid, label in said.items() for form in (cid, spaced(cid))}
    pattern = re.compile(
        r"(?<![\w])(" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
        + r")(?![\w])"
    )  # fmt: skip
    return _conceal(value, pattern, forms)


def spaced(cid: str) -> str:
    """An id as the pages write it: underscores read as spaces (W-62)."""
    return cid.replace("_", " ")


def said_at(label: str, start: int, more: bool) -> str:
    """The label, capitalised when it opens a text ("An unseen attacker's Strike on …")."""
    return label[0].upper() + label[1:] if start == 0 and more else label


def _conceal(value: Any, pattern: re.Pattern[str], forms: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(
            lambda m: said_at(forms[m.group(1)], m.start(), m.end() < len(value)), value
        )
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new = _conceal(key, pattern, forms) if isinstance(key, str) else key
            while new in out:
                new = f"{new} (another)"
            out[new] = _conceal(item, pattern, forms)
        return out
    if isinstance(value, list | tuple):
        return [_conceal(v, pattern, forms) for v in value]
    return value
