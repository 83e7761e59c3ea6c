"""Secret values: what a player receives of a combatant whose values are secret (W-1 … W-5, W-9).

A player sees of a secret combatant what the table would see: its id and name, side, position,
Status (or, in a Realm of Strife fight, whether it is down), visible conditions, the dice rolled
and what they did. Its numbers are replaced by :data:`SECRET`: attributes, Endurance, Resolve,
Passion and their Wear, AP, Falter, Poison, Exertion, hit points, AC, Initiative Score, and the
values a Strike, attack, cast or Check computes from them. Objects keep their shape (every key is
still there) so renderers need no special case. The rules are whitelists: a key not named here as
public is concealed, so a field added to an event later stays secret until it is listed.

Texts are whitelisted too (W-9): a listed free-text field (an Adjustment's ``why``, an event's
``source``, ``reason`` or ``text``) about a secret combatant is shown only as built from public
values (:func:`public_text`), and a refusal of a command that names a secret combatant only as a
sentence that carries none of its numbers (:func:`tableside.web.refusals.public_refusal`).

Everything is a pure function of JSON values and a predicate saying which combatant ids are
secret to the viewer; :class:`~tableside.web.table.WebTable` applies them to every read and
answer a player gets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from tableside.store.table_audience import Secrecy
from tableside.web.auth import Principal

SECRET = "secret"
DOWN = "down"

IsSecret = Callable[[object], bool]
Json = dict[str, Any]


class Unnamed:
    """The opponent of a Check whose record does not name it (e.g. a Grappler, M-37)."""

    def __repr__(self) -> str:
        """How it prints."""
        return "UNNAMED"


# Secret to every player, whatever the setting: who it is cannot be known from the record (W-9).
UNNAMED: Final = Unnamed()

# Keys of the state's combatant (War) and model (fight) rows a player always sees (W-2).
WAR_ROW_PUBLIC = frozenset(
    {"id", "side", "status", "position", "stance", "bound", "grappled_by", "exposed", "asleep",
     "surprised_by", "timed"}
)  # fmt: skip
FIGHT_ROW_PUBLIC = frozenset(
    {"id", "side", "position", "elements", "conditions", "initiative_penalty", "hidden"}
    | {"perched", "flying"}  # as plain to see as the position (SA-93)
)
ORDER_PUBLIC = frozenset({"combatant", "segment"})

# A character document v1 (War) and a Realm of Strife sheet: what the table sees (W-3).
CHARACTER_PUBLIC = frozenset({"format", "version", "name", "side", "weapon"})
SHEET_PUBLIC = frozenset(
    {"name", "npc", "size", "main_hand", "off_hand", "shield", "armour", "aquatic", "can_fly"}
)

ALL = frozenset({"*"})

# Per event kind, the data keys a player sees when the event's combatant (``id``) is secret.
EVENT_PUBLIC: dict[str, frozenset[str]] = {
    "combatant_removed": ALL,
    "turn_started": frozenset({"id", "turn", "cycle", "segment", "round"}),
    "turn_skipped": ALL,
    "turn_ended": frozenset({"id"}),
    "ap_set": frozenset({"id", "action"}),
    "ap_wasted": frozenset({"id", "reason"}),
    "readied_set": frozenset({"id", "uses"}),
    "carried_set": frozenset({"id"}),
    "falter_set": frozenset({"id", "source"}),
    "wear_taken": frozenset({"id", "kind", "source"}),
    "exertion_set": frozenset({"id", "source"}),
    "poison_set": frozenset({"id"}),
    "status_lowered": ALL,
    "timed_added": ALL,
    "timed_expired": ALL,
    "defeated": ALL,
    "moved": frozenset({"id", "to", "inches", "moved", "forced", "host"}),
    "stance_set": ALL,
    "condition_set": ALL,
    "twelves_counted": ALL,
    "weary_set": ALL,
    "note": frozenset({"id", "text"}),
    "bottom_of_queue": ALL,
    "element_used": ALL,
    "reaction_spent": ALL,
    "instant_owed": ALL,
    "condition_added": ALL,
    "condition_ended": ALL,
    "initiative_penalty": ALL,
    "sprinted": ALL,
    "hidden_set": ALL,
    "resources_set": frozenset({"id"}),
}

# Who an event is about: the keys naming combatants.
SUBJECT_KEYS = ("id", "striker", "defender", "attacker", "caster", "target")

# Keys of a Strike, attack, cast, Check or stat test result that are public whoever is secret:
# names, the dice and what they did.
RESULT_PUBLIC = frozenset(
    {"schema", "schema_version", "ruleset", "striker", "defender", "attacker", "caster", "target",
     "weapon", "maneuvers", "ranged", "reach", "power", "element", "kind",
     "rolled", "discarded", "discarded_indices", "boon_net", "natural", "naturals", "reading",
     "adjuster", "tokens", "adjustments", "final", "epic", "natural_unpaired_twelves",
     "natural_unpaired_ones", "pairs", "hits", "stops", "ignored_stops",
     "hits_regardless_of_stops", "uncanceled_hits", "uncanceled_stops", "twelve_effects",
     "twelve_effects_fired", "defensive_hits", "knock_back", "defender_status_change",
     "striker_status_change", "positives", "negatives", "outcome", "automatic", "success",
     "warded_off", "resists", "rulings"}
)  # fmt: skip
# A Majesty Strike's keys that belong to one side: public when that side is not secret.
STRIKER_KEYS = frozenset(
    {"cost", "precision", "force", "striker_falter", "ap_gained", "striker_after",
     "wear_to_striker"}
)  # fmt: skip
DEFENDER_KEYS = frozenset(
    {"guard", "defender_falter", "defender_falter_parts", "defender_exertion", "defender_after",
     "wear", "additional_wear", "passion_triggers", "passion_applied"}
)  # fmt: skip
STRIKE_SCHEMA = "tableside/majesty-strike"
# Realm of Strife attacks and casts: each side's own numbers are public when it is not secret.
STRIFE_SCHEMAS = frozenset(
    {"tableside/strife-attack", "tableside/strife-cast", "tableside/strife-combined-attack"}
)
# The acting side's numbers (its hit modifiers and total) and the defending side's (AC, Dodge,
# resistance); the % effect rolls and conditions inflicted are dice and public conditions.
ATTACKER_KEYS = frozenset(
    {"precision", "modifiers", "modified", "physical_modifiers", "spirit_modifiers"}
)
TARGET_KEYS = frozenset({"ac", "dodge", "resistance"})
# A Block or Parry: the table sees which, with what, the d20 and what it did (W-4).
REACTION_PUBLIC = frozenset({"kind", "items", "roll", "result", "stopped", "disarmed",
                             "item_damaged"})  # fmt: skip
# A Ward-off roll-off (S-2, S-13): who rolled which d20 and who won are public (issue 21).
ROLL_OFF_PUBLIC = frozenset({"schema", "schema_version", "ruleset", "winner", "tie", "rulings"})
ROLL_SIDE_PUBLIC = frozenset({"label", "natural"})
DAMAGE_PUBLIC = frozenset({"dice", "rolls", "basis"})
DAMAGE_ATTACKER = frozenset({"strength_modifier", "flat", "crushing_blow", "crit_multiplier"})


def host_view(_combatant: object) -> bool:
    """The Host's secrecy: nothing is secret to it."""
    return False


HOST_VIEW: IsSecret = host_view
"""The Host's :data:`IsSecret` (the redactions keep the Host-only parts for it alone)."""


def secret_to(who: Principal, secrecy: Secrecy) -> IsSecret:
    """Which combatant ids are secret to ``who``: none for the Host, never a player's own."""
    if who.is_host:
        return HOST_VIEW

    def secret(combatant: object) -> bool:
        if combatant is UNNAMED:
            return True
        return isinstance(combatant, str) and secrecy.secret(combatant) and not who.plays(combatant)

    return secret


def conceal(value: Any) -> Any:
    """The value with every leaf replaced by ``"secret"`` (objects keep their keys, lists empty)."""
    kind = type(value)  # the JSON types first, without the ABC checks (a Strike's report is big)
    if kind is dict:
        return {key: conceal(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return []
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return SECRET
    if isinstance(value, Mapping):
        return {key: conceal(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return []
    return SECRET


def keep(data: Mapping[str, Any], public: frozenset[str]) -> Json:
    """``data`` with every key not in ``public`` concealed."""
    if public is ALL:
        return dict(data)
    return {key: value if key in public else conceal(value) for key, value in data.items()}


# --- state --------------------------------------------------------------------------------------


def redact_state(state: Json, secret: IsSecret) -> Json:
    """An encounter's state (``war show`` / ``fight show`` JSON) as a player may see it."""
    out = dict(state)
    if isinstance(state.get("combatants"), list):
        out["combatants"] = [
            keep(row, WAR_ROW_PUBLIC) if secret(row.get("id")) else row
            for row in state["combatants"]
        ]
    if isinstance(state.get("models"), list):
        out["models"] = [
            model_row(row) if secret(row.get("id")) else row for row in state["models"]
        ]
    if isinstance(state.get("order"), list):
        out["order"] = [order_entry(turn, secret) for turn in state["order"]]
    return out


def model_row(row: Json) -> Json:
    """A secret model's row: its hit points only as ``"down"`` when it is out (W-2)."""
    out = keep(row, FIGHT_ROW_PUBLIC)
    if "hp" in row:
        out["hp"] = hp_view(row["hp"])
    return out


def hp_view(hp: Any) -> Any:
    """A secret model's hit points: ``"down"`` at 0 or less (out of the fight), else secret."""
    return DOWN if isinstance(hp, int | float) and hp <= 0 else SECRET


def order_entry(turn: Any, secret: IsSecret) -> Any:
    """A War Scroll entry without a secret combatant's AP (Strife orders are ids only)."""
    if isinstance(turn, Mapping) and secret(turn.get("combatant")):
        return keep(turn, ORDER_PUBLIC)
    return turn


# --- log records ---------------------------------------------------------------------------------


def redact_record(record: Json, secret: IsSecret) -> Json:
    """A log record (command, undo, redo, request or answer) as a player may see it."""
    out = dict(record)
    command = record.get("command")
    if isinstance(command, Mapping):
        out["command"] = redact_command(command, secret)
    else:
        command = None
    if isinstance(record.get("data"), Mapping):
        out["data"] = redact_decision_data(record["data"], command, secret)
    if isinstance(record.get("events"), list):
        out["events"] = [redact_event(event, secret, command) for event in record["events"]]
    return out


def redact_command(command: Mapping[str, Any], secret: IsSecret) -> Json:
    """A command's arguments without a secret combatant's sheet or the numbers set on it."""
    args = command.get("args")
    if isinstance(args, Mapping) and isinstance(args.get("reactions"), Mapping):
        args = {**args, "reactions": reactions_taken(args["reactions"], secret)}
        command = {**command, "args": args}
    if not isinstance(args, Mapping) or not secret(args.get("id")):
        return dict(command)
    shown = dict(args)
    kind = command.get("kind")
    if kind == "add":
        for key, public in (("character", CHARACTER_PUBLIC), ("sheet", SHEET_PUBLIC)):
            if isinstance(args.get(key), Mapping):
                shown[key] = keep(args[key], public)
    elif kind == "host_set" and args.get("field") != "position":
        shown["value"] = SECRET
    elif kind == "apply_effect":
        shown["amount"] = SECRET
    return {**command, "args": shown}


def reactions_taken(reactions: Mapping[str, Any], secret: IsSecret) -> Json:
    """The Reactions an attack or cast set off (SA-96), without a secret model's declined ones.

    A Reaction taken is seen at the table (its ``reaction_spent``); one declined would tell only
    that a secret model's sheet has one.
    """
    return {k: v for k, v in reactions.items() if v is not None or not secret(k)}


def redact_event(event: Json, secret: IsSecret, command: Mapping[str, Any] | None = None) -> Json:
    """One event as a player may see it (``command``: the record's, naming a Check's opponent)."""
    data = event.get("data")
    if not isinstance(data, Mapping):
        return event
    kind = str(event.get("kind"))
    if kind == "check_resolved":
        return {**event, "data": resolved(data, secret, check_opponent(data, command))}
    special = SPECIAL.get(kind)
    if special is not None:
        return {**event, "data": special(data, secret)}
    if not any(secret(data.get(key)) for key in SUBJECT_KEYS):
        return event
    public = EVENT_PUBLIC.get(kind, frozenset(SUBJECT_KEYS))
    return {**event, "data": public_texts(keep(data, public))}


def combatant_added(data: Mapping[str, Any], secret: IsSecret) -> Json:
    """A War combatant joins: its sheet shows only its name, side and weapon."""
    if not secret(data.get("id")):
        return dict(data)
    out = keep(data, frozenset({"id", "position", "tiebreak", "character"}))
    if isinstance(data.get("character"), Mapping):
        out["character"] = keep(data["character"], CHARACTER_PUBLIC)
    else:
        out["character"] = conceal(data.get("character"))
    return out


def model_added(data: Mapping[str, Any], secret: IsSecret) -> Json:
    """A Realm of Strife model joins: its sheet shows only its name and gear."""
    if not secret(data.get("id")):
        return dict(data)
    out = keep(data, frozenset({"id", "side", "position", "natural", "sheet"}))
    if isinstance(data.get("sheet"), Mapping):
        out["sheet"] = keep(data["sheet"], SHEET_PUBLIC)
    else:
        out["sheet"] = conceal(data.get("sheet"))
    return out


def hp_set(data: Mapping[str, Any], secret: IsSecret) -> Json:
    """A secret model's hit points: only whether it is down."""
    if not secret(data.get("id")):
        return dict(data)
    out = keep(data, frozenset({"id", "source", "host"}))
    out["hp"] = hp_view(data.get("hp"))
    return out


def cycle_started(data: Mapping[str, Any], secret: IsSecret) -> Json:
    """A new Cycle's War Scroll without secret combatants' AP."""
    out = dict(data)
    if isinstance(data.get("order"), list):
        out["order"] = [order_entry(turn, secret) for turn in data["order"]]
    return out


def check_opponent(data: Mapping[str, Any], command: Mapping[str, Any] | None) -> object:
    """Whose value a Check is opposed by: None if unopposed, :data:`UNNAMED` if not named (W-9).

    An interposition's Check opposes the interposer's Control to the Striker's, whom the
    ``interpose`` command names (M-16); any other opposed Check (breaking free opposes the
    Grappler's Might, M-37) does not name its opponent, so it counts as secret to every player.
    """
    result = data.get("result")
    if not isinstance(result, Mapping) or result.get("opposing") is None:
        return None
    args = command.get("args") if command is not None else None
    if (
        data.get("purpose") == "interpose"
        and command is not None
        and command.get("kind") == "interpose"
        and isinstance(args, Mapping)
        and isinstance(args.get("striker"), str)
    ):
        return args["striker"]
    return UNNAMED


def resolved(data: Mapping[str, Any], secret: IsSecret, opponent: object = None) -> Json:
    """A Strike, attack, cast, Check or test: the dice public, a secret side's numbers not.

    ``opponent`` is a Check's opponent (:func:`check_opponent`): when it is secret the Check's
    numbers that follow its value (opposing Factor, advantage, Adjustments available) are too.
    """
    result = data.get("result")
    sides = [data.get(k) for k in SUBJECT_KEYS] + [opponent]
    if not isinstance(result, Mapping) or not any(secret(side) for side in sides):
        return dict(data)
    out = keep(data, frozenset(SUBJECT_KEYS) | {"purpose", "result"})
    shown = keep(result, RESULT_PUBLIC)
    if isinstance(result.get("adjustments"), list):
        shown["adjustments"] = [adjustment_view(a) for a in result["adjustments"]]
    if result.get("schema") == STRIKE_SCHEMA:
        shown = strike_sides(
            result, shown, secret(data.get("striker")), secret(data.get("defender"))
        )
    elif result.get("schema") in STRIFE_SCHEMAS:
        acting = secret(data.get("attacker", data.get("caster")))
        shown = strife_sides(
            result, shown, acting, secret(data.get("defender", data.get("target")))
        )
    out["result"] = shown
    return out


def strike_sides(result: Mapping[str, Any], shown: Json, striker: bool, defender: bool) -> Json:
    """A Strike's keys of the side that is not secret, and its Wear lines (W-4)."""
    for keys, side_secret in ((STRIKER_KEYS, striker), (DEFENDER_KEYS, defender)):
        if not side_secret:
            shown.update({key: result[key] for key in keys if key in result})
    if "wear" in result:
        shown["wear"] = wear_view(result["wear"], taker=defender, dealer=striker)
    if isinstance(result.get("additional_wear"), list):
        lines = result["additional_wear"]
        shown["additional_wear"] = [wear_view(x, taker=defender, dealer=striker) for x in lines]
    if "wear_to_striker" in result:
        shown["wear_to_striker"] = wear_view(result["wear_to_striker"], striker, defender)
    return shown


def strife_sides(result: Mapping[str, Any], shown: Json, acting: bool, target: bool) -> Json:
    """A Realm of Strife attack or cast: each open side's own numbers, every die (W-4).

    ``acting`` and ``target`` say whether the attacker (caster) and the defender (target) are
    secret. The open side's numbers are shown (a player's own hit modifiers, AC, Dodge, reaction
    total and damage taken); the Block or Parry, the damage dice and the % effects are dice and
    what they did, public whoever rolls them.
    """
    out = dict(shown)
    for keys, side_secret in ((ATTACKER_KEYS, acting), (TARGET_KEYS, target)):
        if not side_secret:
            out.update({key: result[key] for key in keys if key in result})
    if isinstance(result.get("reaction"), Mapping):
        out["reaction"] = reaction_view(result["reaction"], target)
    if isinstance(result.get("ward_off"), Mapping):
        out["ward_off"] = roll_off_view(result["ward_off"], acting, target)
    for key in ("damage", "physical_damage", "spirit_damage"):
        if isinstance(result.get(key), Mapping):
            out[key] = damage_view(result[key], acting, target)
    if isinstance(result.get("effects"), list):
        out["effects"] = list(result["effects"])
    return out


def roll_off_view(roll: Mapping[str, Any], acting: bool, opposing: bool) -> Json:
    """A Ward-off roll-off: each side's name, d20 and the winner public (dice are, issue 21).

    A secret side's Initiative, parts and total are not (W-4).
    """
    out = keep(roll, ROLL_OFF_PUBLIC)
    for key, side_secret in (("acting", acting), ("opposing", opposing)):
        side = roll.get(key)
        if isinstance(side, Mapping):
            out[key] = dict(side) if not side_secret else keep(side, ROLL_SIDE_PUBLIC)
    return out


def reaction_view(reaction: Mapping[str, Any], secret_defender: bool) -> Json:
    """A Block or Parry: whole, or without a secret defender's values and total (W-4)."""
    return dict(reaction) if not secret_defender else keep(reaction, REACTION_PUBLIC)


def damage_view(damage: Mapping[str, Any], acting: bool, target: bool) -> Json:
    """Damage: the dice always; the attacker's modifiers, the total and absorption by side (W-4).

    The total is the defender's loss, shown when the defender is open; a secret defender's
    absorption hides it. The labelled parts are shown when the attacker is open, without the
    absorbed part of a secret defender (the rest is the attacker's own arithmetic).
    """
    public = set(DAMAGE_PUBLIC)
    if not acting:
        public |= DAMAGE_ATTACKER
    if not target:
        public |= {"absorbed", "total"}
    out = keep(damage, frozenset(public))
    if not acting and isinstance(damage.get("parts"), list):
        out["parts"] = [
            part
            for part in damage["parts"]
            if not (target and str(part.get("label", "")).startswith("absorbed"))
        ]
    return out


def wear_view(line: Any, taker: bool, dealer: bool) -> Any:
    """A Wear line: whole, or its amount without the dealer's Force, or only its kind."""
    if not isinstance(line, Mapping) or not (taker or dealer):
        return line
    public = {"kind"} if taker else {"kind", "hits", "amount"}
    return {**conceal(line), **{key: line[key] for key in public if key in line}}


# --- texts (W-9) -------------------------------------------------------------------------------

# An Adjustment's keys (die, faces, side) are the dice, public; its ``why`` is a text.
ADJUSTMENT_PUBLIC = frozenset({"die", "from", "to", "by"})
# Event keys holding a sentence or label rather than a value: shown only as :func:`public_text`.
TEXT_KEYS = frozenset({"why", "source", "reason", "text"})
# Ruling ids (M-10, S-7, SA-38, W-4) are names, not values.
RULING_ID = re.compile(r"\b[A-Z]{1,2}-\d+\b")
DIGIT = re.compile(r"\d")
# The engine's fixed words that hold a digit but no value: rules' names.
PUBLIC_WORDS = frozenset({"unpaired 1s", "F:1 Cycle"})
# The engine's texts that carry numbers, each with its form built from public values only.
TEXT_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(best: )?Precision -?\d+ vs Guard -?\d+, raw sources (\(M-10, M-11, M-18\))$"),
     r"\1Precision vs Guard (secret), raw sources \2"),
    (re.compile(r"^-?\d+ Falter converted$"), "Falter converted"),
    (re.compile(r"^Poison:-?\d+$"), "Poison"),
)  # fmt: skip


def carries_number(text: str) -> bool:
    """Whether ``text`` has a digit outside its ruling ids."""
    return DIGIT.search(RULING_ID.sub("", text)) is not None


def public_text(text: Any) -> Any:
    """A text about a secret combatant as a player may read it (W-9).

    A text that carries no number (ruling ids aside) is shown; one the engine builds with
    numbers is rebuilt from its public words (``best: Precision 2 vs Guard 977, raw sources …``
    reads ``best: Precision vs Guard (secret), raw sources …``); any other is ``"secret"``.
    """
    if not isinstance(text, str):
        return conceal(text)
    if text in PUBLIC_WORDS:
        return text
    for pattern, public in TEXT_REWRITES:
        if pattern.match(text):
            return pattern.sub(public, text)
    return SECRET if carries_number(text) else text


def public_texts(data: Json) -> Json:
    """``data`` with every text field (:data:`TEXT_KEYS`) as :func:`public_text`."""
    return {k: public_text(v) if k in TEXT_KEYS else v for k, v in data.items()}


def adjustment_view(item: Any) -> Any:
    """One Adjustment: its dice public, its ``why`` built from public values (W-4, W-9)."""
    if not isinstance(item, Mapping):
        return conceal(item)
    return public_texts(keep(item, ADJUSTMENT_PUBLIC | {"why"}))


# --- decisions (D-1, D-5) ------------------------------------------------------------------------

# A request's keys a player always sees; its options keep only their value and label (W-4).
REQUEST_PUBLIC = frozenset(
    {"id", "kind", "combatant", "path", "options", "suggested", "given", "prompt", "free", "key",
     "deadline", "waiting_for", "mine", "seq", "command", "gate", "title", "dice", "input",
     "details", "decided_by"}
)  # fmt: skip
# Kinds whose labels and prompt are built from public words only (the command's arguments, the
# dice, token counts): shown as they are (issue 21: the dice are public, W-4).
PUBLIC_WORDED_KINDS = frozenset({"approve", "dice", "obstruction", "adjustments"})
OPTION_PUBLIC = frozenset({"value", "label", "count", "sides"})  # a dice stage's dice are public
ANSWER_DATA_PUBLIC = frozenset({"answer", "requests", "outcome"})
HOST_ONLY = frozenset({"note"})
"""A record's data only the Host reads: a player's view leaves the key out altogether (W-52)."""


def command_sides(command: Mapping[str, Any] | None) -> list[object]:
    """The combatants a command's arguments name as a side (its actor, defender, target …)."""
    args = command.get("args") if command is not None else None
    if not isinstance(args, Mapping):
        return []
    named: list[object] = [args.get(key) for key in SUBJECT_KEYS]
    for value in args.values():
        if isinstance(value, list):
            for item in value:
                if isinstance(item, Mapping):
                    named += [item.get(key) for key in SUBJECT_KEYS]
                elif isinstance(item, str):
                    named.append(item)
    return [n for n in named if isinstance(n, str)]


def redact_request(
    request: Mapping[str, Any], command: Mapping[str, Any] | None, secret: IsSecret
) -> Json:
    """A decision as a player may see it (D-5, W-4).

    When the command or the choice involves a combatant secret to the player (the other side
    of an attack or Strike), the options lose their odds (``odds`` null, with ``odds_hidden``
    saying why) and any other key but their value and label, texts with numbers are shown as
    :func:`public_text`, and a suggestion that follows the odds is not shown (null).
    """
    if request.get("kind") == "skill_reaction" and secret(request.get("combatant")):
        # the Reactions a secret model's sheet has are secret (SA-96)
        request = {**request, "options": [],
                   "prompt": f"Does {request.get('combatant')} take a Reaction?"}  # fmt: skip
    out = {k: v if k in REQUEST_PUBLIC else conceal(v) for k, v in request.items()}
    sides = [*command_sides(command), request.get("combatant")]
    hidden = [s for s in dict.fromkeys(sides) if isinstance(s, str) and secret(s)]
    if not hidden:
        return out
    reason = f"The odds follow values of {' and '.join(hidden)} that are secret to you."
    # a proposal's words come from the command's own arguments, a dice stage's from its dice
    proposal = request.get("kind") in PUBLIC_WORDED_KINDS
    options = request.get("options")
    with_odds = False
    if isinstance(options, list):
        shown: list[Any] = []
        for option in options:
            if not isinstance(option, Mapping):
                shown.append(conceal(option))
                continue
            view = {k: v for k, v in option.items() if k in OPTION_PUBLIC}
            if not proposal and "label" in view:
                label = public_text(view["label"])
                view["label"] = label if label != SECRET else plain_value(view.get("value"))
            if any(k not in OPTION_PUBLIC for k in option):
                with_odds = True
                view["odds"] = None
                view["odds_hidden"] = reason
            shown.append(view)
        out["options"] = shown
    if not proposal and "prompt" in out:
        out["prompt"] = public_text(out["prompt"])
    if with_odds:
        out["suggested"] = None
        out["suggested_hidden"] = reason
    return out


def plain_value(value: Any) -> str:
    """An option's value as its label, when its own label tells secret numbers."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def redact_decision_data(
    data: Mapping[str, Any], command: Mapping[str, Any] | None, secret: IsSecret
) -> Json:
    """A request's or answer's ``data`` as a player may see it: its requests redacted."""
    out = {
        k: v if k in ANSWER_DATA_PUBLIC or secret is HOST_VIEW else conceal(v)
        for k, v in data.items()
        if k not in HOST_ONLY or secret is HOST_VIEW
    }
    requests = data.get("requests")
    if isinstance(requests, list):
        out["requests"] = [
            redact_request(r, command, secret) if isinstance(r, Mapping) else conceal(r)
            for r in requests
        ]
    return out


SPECIAL: dict[str, Callable[[Mapping[str, Any], IsSecret], Json]] = {
    "combatant_added": combatant_added,
    "character_set": combatant_added,
    "model_added": model_added,
    "hp_set": hp_set,
    "cycle_started": cycle_started,
    "strike_resolved": resolved,
    "attack_resolved": resolved,
    "cast_resolved": resolved,
    "test_resolved": resolved,
}
