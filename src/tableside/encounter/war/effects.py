"""Special effects applied by hand (M-34 … M-39) and the Host's manual adjustments."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tableside.dice import Rng
from tableside.encounter.war.args import (
    EffectArgs,
    HostArgs,
    cached_args,
)
from tableside.encounter.war.grapple import check_grapple, release
from tableside.encounter.war.movement import knock_back
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    add_exertion,
    deal_wear,
    inflict_falter,
    one_cycle_later,
)
from tableside.encounter.war.state import Combatant
from tableside.errors import RulesError
from tableside.majesty import special
from tableside.majesty.character import WearKind
from tableside.majesty.formats import character_to_data


def do_effect(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Apply a special effect by hand (M-34 … M-39)."""
    args = cached_args(EffectArgs, raw, "apply_effect")
    c = p.combatant(args.id)
    EFFECTS[args.effect](p, c, args, rng)


def _flag(name: str, value: Any, rule: str) -> Any:
    def apply(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
        p.emit("condition_set", rule, id=c.id, name=name, value=value)
        if name in ("bound", "asleep") and value:
            convert_falter(p, c.id)

    return apply


def convert_falter(p: Pending, who: str) -> None:
    """Falter already applied converts to Wear when the elohim becomes incapacitated (M-34)."""
    if p.combatant(who).falter:
        inflict_falter(p, who, 0, "incapacitated")


def _grappled(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if args.by is not None:
        check_grapple(p, p.combatant(args.by), c)
    p.emit("condition_set", "M-37", id=c.id, name="grappled_by", value=args.by or args.source)
    if c.entangled_strength is not None:
        p.emit("condition_set", "M-37", id=c.id, name="entangled_strength", value=None)
    p.emit("stance_set", "M-37", id=c.id, on=False)
    if args.by is not None and p.combatant(args.by).stance:
        p.emit("stance_set", "M-37", id=args.by, on=False, reason="Grappling")
    convert_falter(p, c.id)


def _entangled(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    """Entangled by a source of a given strength, not by a Grappler (M-37, A-38)."""
    if args.by is not None:
        raise RulesError(
            "Entangled comes from a source, not a Grappler: give --source (e.g. Bind) and its "
            "strength as --amount, or use grappled --by for a Grappler (M-37, A-38)."
        )
    strength = _amount(args)
    p.emit("condition_set", "M-37", id=c.id, name="grappled_by", value=args.source)
    p.emit("condition_set", "M-37", id=c.id, name="entangled_strength", value=strength)
    p.emit("stance_set", "M-37", id=c.id, on=False)
    convert_falter(p, c.id)


def _surprised(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if args.by is None:
        raise RulesError("Surprised needs --by: the elohim doing the Surprising (M-19).")
    p.combatant(args.by)
    p.emit(
        "condition_set",
        "M-19",
        id=c.id,
        name="surprised_by",
        value=sorted({*c.surprised_by, args.by}),
        ends="just before its next Activation",
    )


def _falter_cycle(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    p.emit(
        "timed_added",
        "M-34",
        id=c.id,
        name="falter_cycle",
        source=args.source,
        ends=one_cycle_later(p.state).to_json(),
    )
    convert_falter(p, c.id)
    waste_all_ap(p, c.id)


def waste_all_ap(p: Pending, who: str) -> None:
    """F:1 Cycle wastes every AP held, Readied AP included (M-34)."""
    c = p.combatant(who)
    if c.readied:
        p.emit("ap_wasted", "M-34", id=who, pool="readied", ap=c.readied, reason="F:1 Cycle")
        p.emit("readied_set", "M-34", id=who, ap=0, uses=[])
    p.emit("ap_wasted", "M-34", id=who, pool="ap", ap=c.ap, reason="F:1 Cycle")
    p.emit("ap_set", "M-34", id=who, ap=0)


def _release_cycle(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if c.falter_cycle is None:
        raise RulesError(f"{c.id} is not F:1 Cycle.")
    p.emit("timed_expired", "M-34", id=c.id, name="falter_cycle", ends=None, source=args.source)


def _amount(args: EffectArgs) -> int:
    if args.amount != int(args.amount):
        raise RulesError(f"{args.effect} needs a whole number, not {args.amount:g}.")
    return int(args.amount)


def _knock(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    origin = args.origin
    if origin is None and args.by is not None:
        origin = p.combatant(args.by).position
    if origin is None:
        raise RulesError("Knock Back needs --by (the source elohim) or an origin point (M-35).")
    knock_back(p, c.id, origin, args.amount, rng)


def _wear(kind: str) -> Any:
    def apply(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
        deal_wear(p, c.id, kind, _amount(args), args.source, "M-1")

    return apply


EFFECTS: dict[str, Any] = {
    "falter": lambda p, c, a, r: inflict_falter(p, c.id, _amount(a), a.source),
    "falter_cycle": _falter_cycle,
    "release_falter_cycle": _release_cycle,
    "poison": lambda p, c, a, r: p.emit(
        "poison_set", "M-38", id=c.id, poison=special.add_poison(c.poison, _amount(a))
    ),
    "bound": _flag("bound", True, "M-36"),
    "unbound": _flag("bound", False, "M-36"),
    "grappled": _grappled,
    "released": lambda p, c, a, r: release(p, c.id),
    "entangled": _entangled,
    "exposed": _flag("exposed", True, "M-19"),
    "unexposed": _flag("exposed", False, "M-19"),
    "surprised": _surprised,
    "asleep": _flag("asleep", True, "M-34"),
    "awake": _flag("asleep", False, "M-34"),
    "knock_back": _knock,
    "lower_status": lambda p, c, a, r: p.emit(
        "status_lowered", "M-3", id=c.id, ends=one_cycle_later(p.state).to_json(), source=a.source
    ),
    "wear_e": _wear("E"),
    "wear_r": _wear("R"),
    "wear_p": _wear("P"),
    "exertion": lambda p, c, a, r: add_exertion(p, c.id, _amount(a), False, a.source),
}


def do_host_set(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host sets a value by hand; logged like everything else."""
    args = cached_args(HostArgs, raw, "host_set")
    c = p.combatant(args.id)
    value = args.value
    if args.field == "position":
        if not isinstance(value, tuple):
            raise RulesError(f"position needs [x, y, z], not {value!r}.")
        p.emit("moved", "host", id=c.id, to=list(value), inches=0, ap=0, host=True)
        return
    if isinstance(value, tuple):
        raise RulesError(f"{args.field} needs a number, not {list(value)!r}.")
    number = int(value)
    host_field(p, c, args.field, number)


def host_field(p: Pending, c: Combatant, name: str, number: int) -> None:
    """One Host adjustment, checked against the rules' bounds."""
    if name != "stance" and number < 0:
        raise RulesError(f"{name} cannot be negative, got {number}.")
    if name == "falter" and number > special.FALTER_CAP:
        raise RulesError(f"Falter cannot exceed F:7 (M-34), got {number}.")
    if name in ("wear_e", "wear_r", "wear_p"):
        kind = WearKind(name[-1].upper())
        wear = replace(c.character.wear, **{kind.value: number})
        p.emit(
            "character_set",
            "host",
            id=c.id,
            character=character_to_data(replace(c.character, wear=wear)),
        )
        return
    simple: dict[str, tuple[str, dict[str, Any]]] = {
        "ap": ("ap_set", {"ap": number}),
        "readied": ("readied_set", {"ap": number, "uses": list(c.ready_uses) or ["host"]}),
        "falter": ("falter_set", {"falter": number, "added": 0, "source": "host"}),
        "poison": ("poison_set", {"poison": number}),
        "exertion": (
            "exertion_set",
            {
                "exertion": number,
                "window": c.window_exertion,
                "added": 0,
                "ignored": 0,
                "source": "host",
            },
        ),
        "stance": ("stance_set", {"on": bool(number)}),
    }
    if name == "status_lowered":
        character = replace(c.character, status_lowered=number)
        p.emit("character_set", "host", id=c.id, character=character_to_data(character))
        return
    event_kind, data = simple[name]
    p.emit(event_kind, "host", id=c.id, host=True, **data)
