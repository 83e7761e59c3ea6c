"""Bounds on every argument (W-7) and the rules for names (W-8), in one place.

Every numeric argument a caller can give -- a command's arguments on the web or the CLI, a set-up
form, a character document, a CLI option -- is bounded to what the rules can use, and refused
*before* any die is rolled. ``docs/security.md`` ("Bounds on every argument") lists these
constants; a test checks that the table there and this module agree.

The module is pure (no I/O): the rules packages, the encounters, the web and the CLI all read it.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from tableside.errors import DataError

# --- one roll (M-6, M-7, M-10 … M-12, M-20) ------------------------------------------------------
DICE_ROLLED = 7  # a roll is 7d12 (M-6)
BOON_MAX = 6  # Boon:# and Bane:# each 0..6 (the exact odds cover net Boon/Bane up to 6)
DICE_MAX = DICE_ROLLED + BOON_MAX  # 13: the most dice one roll can roll or keep (M-7)
FACE_STEPS = 11  # one die moves at most 11 steps, from 1 to 12 (M-12)
ADJUSTMENTS_MAX = DICE_MAX * FACE_STEPS  # 143 raw Adjustments (or tokens) a side can use
IGNORE_STOPS_MAX = DICE_MAX  # no roll has more Stops than dice (M-20)
STEPS_MAX = 2 * ADJUSTMENTS_MAX  # explicit Adjustments of both sides (M-13)
SUPERIORITY_MAX = 200  # |Melee Influence superiority| (M-29): a sum of Magnitudes
WEAR_FLAT_MAX = 1_000  # |flat "# Wear"| of one Strike (M-26)
WEAR_PERCENT_MIN = -100  # % Wear below -100 % cannot lower Wear further (M-26)
WEAR_PERCENT_MAX = 1_000
MANEUVERS_MAX = 12  # Maneuvers, Songs and Spiritual Effects on one Strike (M-29), each once
PATH_MAX = 16  # waypoints of one Strike's or Move's path
EFFECT_AMOUNT_MAX = 1_000  # amount of one special effect (M-34 … M-39)
HOST_VALUE_MAX = 10_000  # |value| of a Host's manual adjustment (host_set)
AP_MAX = 7  # AP a character spends at once (M-4, M-41)

# --- characters and sheets ----------------------------------------------------------------------
ATTRIBUTE_MAX = 10_000  # a natural Basic Attribute or a War Attribute override (M-1, M-2)
WEAR_MAX = (
    1_000_000  # Wear taken and Exertion (they add up; past natural + 40 Wear changes nothing)
)
TIER_MAX = 100  # Tier and Magnitude
STATUS_LOWERED_MAX = 10  # active timed lowerings of Status (two already Defeat, M-3 b)
HP_MAX = 10_000  # a Realm of Strife sheet's HP, HP max and resource pools
RESISTANCE_MAX = 200  # |Resistance| to one element, in d100 points (S-8), with room above 100
LIST_MAX = 40  # proficiencies, skills or armour pieces on one sheet

# --- Realm of Strife commands -------------------------------------------------------------------
MODIFIER_MAX = 100  # |a to-hit, casting or damage modifier|: the rolls are d100 (S-7)
MODIFIERS_MAX = 10  # modifiers on one attack or cast
SPELL_POWER_MAX = 1_000  # spell power shared among those hit (S-15)
AOO_OFFERS_MAX = 16  # Attacks of Opportunity one move may offer, each answered once (D-14)
REACTIONS_MAX = 64  # Reactions one attack or cast sets off, one a model (SA-96)
POWER_COST_MAX = 1_000  # a power's resource cost (Spirit, Faith, Focus …, SA-49)
ROUNDS_MAX = 100  # rounds a condition lasts (S-23)
STAT_MAX = 100  # |a stat given as a number| of a stat test (S-1)
MOVED_MAX = 1_000  # whole inches moved this Turn (S-16)

# --- positions, dice typed in, names and free text ----------------------------------------------
POSITION_MAX = 10_000.0  # |x|, |y|, |z| in inches; NaN and Infinity are refused
DISTANCE_MAX = 2 * POSITION_MAX * 2  # a distance given directly (more than any two positions)
DIE_FACE_MIN = 0  # physical dice typed in: faces 0..100 reach the rules' own refusal ...
DIE_FACE_MAX = 100  # ... (a d12 cannot show 13); a d100 is the largest die
DICE_TYPED_MAX = 400  # physical dice of one command
NUMBER_DIGITS_MAX = 20  # digits of a number typed on the CLI before it is read
NAME_MAX = 80  # a character's, condition's, power's or instant's name
LABEL_MAX = 200  # a table's, encounter's or seat's name; free text such as a source or a note
ID_MAX = 40  # a combatant id (letters, digits, '_', '.', '-')

# --- the CLI's own counts -----------------------------------------------------------------------
MC_MAX = 10_000_000  # Monte Carlo rolls of a Strike or Check: about 5 s and 300 MB
ATTACK_MC_MAX = 50_000  # Monte Carlo attacks (one by one): about 15 s
RUNS_MAX = 10_000_000  # simulated runs of one encounter (a batch job; --workers share them)
WORKERS_MAX = 64  # worker processes of a simulation
CYCLES_MAX = 10_000  # War Cycles / fight rounds before a simulated run is unfinished
SEED_MIN = -(2**63)  # seeds are stored as 64-bit integers
SEED_MAX = 2**63 - 1
ROW_ID_MAX = 2**31 - 1  # a stored row's id (PostgreSQL INTEGER)
PERCENT_MAX = 100  # a percentage chance (crit, critical miss, Dodge)
AC_MAX = 200  # an Armour Class given directly (d100 rolls)

SHOWN_MAX = 40  # characters of a refused value echoed in an error sentence


def shown(value: object) -> str:
    """A refused value as an error sentence shows it: its repr, cut to about 40 characters."""
    text = repr(value)
    return text if len(text) <= SHOWN_MAX else f"{text[: SHOWN_MAX - 3]}..."


def refused_character(text: str) -> str | None:
    """The first character a name may not hold (W-8), as ``U+XXXX``, or None.

    Refused: control characters (Unicode category Cc, e.g. a newline or ESC), format characters
    (Cf: bidirectional overrides such as U+202E, zero-width joiners), surrogates (Cs), and the
    line and paragraph separators (Zl, Zp).
    """
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def check_name(text: str) -> str:
    """A name or free text without control or format characters (W-8); ValueError otherwise."""
    bad = refused_character(text)
    if bad is not None:
        raise ValueError(f"a name may not contain control or format characters (found {bad})")
    return text


REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@functools.cache
def name_pattern() -> str:
    """A JSON-schema pattern of the names :func:`check_name` accepts (for the API's document).

    The refused characters are listed as literal ranges (surrogates, which no JSON text can
    carry alone, aside); built on first use, since it reads the whole Unicode database.
    """
    ranges: list[tuple[int, int]] = []
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF or unicodedata.category(chr(code)) not in REFUSED_CATEGORIES:
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    parts = "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    )
    return f"^[^{parts}]*$"


def _name_schema(schema: dict[str, Any]) -> None:
    schema["pattern"] = name_pattern()


def check_finite(value: float) -> float:
    """A coordinate that is a finite number within ±POSITION_MAX (W-8); ValueError otherwise."""
    if not math.isfinite(value) or abs(value) > POSITION_MAX:
        raise ValueError(f"a position is a finite number of inches within ±{POSITION_MAX:g}")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def json_document(text: str, what: str) -> object:
    """Decode a JSON document typed or read in, refusing what JSON itself does not allow.

    ``NaN`` and ``Infinity`` (which Python's parser accepts), numbers of more than 4300 digits
    and nesting too deep for the parser are refused with one sentence (W-7, W-8).

    Raises:
        DataError: The text is not such a document.
    """
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise DataError(f"{what} is not valid JSON: {error.msg} at line {error.lineno}.") from None
    except ValueError as error:
        raise DataError(f"{what} is not valid JSON: {str(error)[:80]}.") from None
    except RecursionError:
        raise DataError(f"{what} is not valid JSON: it is nested too deeply.") from None


def require_bool(value: object) -> bool:
    """A boolean given as a boolean (W-8): ``"yes"``, ``1`` or ``"true"`` is refused."""
    if not isinstance(value, bool):
        raise ValueError("must be true or false (a JSON boolean)")
    return value


# Pydantic field types of the arguments (W-7, W-8).
Flag = Annotated[bool, BeforeValidator(require_bool)]  # "yes", 1 and "true" are refused
Coordinate = Annotated[
    float,
    Field(
        allow_inf_nan=False, json_schema_extra={"minimum": -POSITION_MAX, "maximum": POSITION_MAX}
    ),
    AfterValidator(check_finite),
]


def as_tuple(value: object) -> object:
    """A JSON array as a tuple (strict models take tuples only); anything else as it is."""
    return tuple(value) if isinstance(value, list) else value


Coordinates = Annotated[tuple[Coordinate, Coordinate, Coordinate], BeforeValidator(as_tuple)]
NAMED = Field(json_schema_extra=_name_schema)  # the document's pattern (check_name's own)
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX), NAMED, AfterValidator(check_name)]
Label = Annotated[str, Field(min_length=1, max_length=LABEL_MAX), NAMED, AfterValidator(check_name)]
SideName = Annotated[str, Field(min_length=1, max_length=ID_MAX), NAMED, AfterValidator(check_name)]
FreeText = Annotated[str, Field(max_length=LABEL_MAX), NAMED, AfterValidator(check_name)]
Boon = Annotated[int, Field(ge=0, le=BOON_MAX)]
Adjustments = Annotated[int, Field(ge=0, le=ADJUSTMENTS_MAX)]
DieFace = Annotated[int, Field(ge=DIE_FACE_MIN, le=DIE_FACE_MAX)]
Seed = Annotated[int, Field(ge=SEED_MIN, le=SEED_MAX)]


# --- CLI options, by name (W-7) -----------------------------------------------------------------
# Every integer or decimal option of every ``tableside`` command is bounded by its name here;
# ``tableside.cli.app`` applies the table when the commands are built and a test checks that no
# numeric option is left out. The same name means the same quantity in every command.
WEAR_FLOOR = -40  # a current value never goes below -40 (M-1)
FACTOR_MAX = ATTRIBUTE_MAX // 10  # a Factor Value is an attribute // 10 (M-30)
TWELVES_MAX = 50  # 12 Effects a weapon already fired this Turn

SERVE_LIMIT_MAX = 1_000_000_000  # the largest value of a web table's limit (W-13)

_ATTRIBUTE = (0, ATTRIBUTE_MAX)
_CURRENT = (WEAR_FLOOR, ATTRIBUTE_MAX)
_ADJUST = (0, ADJUSTMENTS_MAX)
_MODIFIER = (-MODIFIER_MAX, MODIFIER_MAX)
_PERCENT = (0, PERCENT_MAX)
_ROW = (1, ROW_ID_MAX)
CLI_BOUNDS: dict[str, tuple[float, float]] = {
    # Allies of Majesty rolls, Strikes and Checks
    "boon": (0, BOON_MAX),
    "bane": (0, BOON_MAX),
    "ignore_stops": (0, IGNORE_STOPS_MAX),
    "striker_adjustments": _ADJUST,
    "defender_adjustments": _ADJUST,
    "inspiration": _ADJUST,
    "obstruction": _ADJUST,
    "raw_for": _ADJUST,
    "raw_against": _ADJUST,
    "difficulty": (-ADJUSTMENTS_MAX, ADJUSTMENTS_MAX),
    "superiority": (-SUPERIORITY_MAX, SUPERIORITY_MAX),
    "wear_flat": (-WEAR_FLAT_MAX, WEAR_FLAT_MAX),
    "wear_percent": (WEAR_PERCENT_MIN, WEAR_PERCENT_MAX),
    "twelves_this_turn": (0, TWELVES_MAX),
    "force": _ATTRIBUTE,
    "guard": _ATTRIBUTE,
    "precision": _ATTRIBUTE,
    "defender_force": _ATTRIBUTE,
    "passion": _ATTRIBUTE,
    "resolve": _ATTRIBUTE,
    "allotment": _ATTRIBUTE,
    "song_spp": _ATTRIBUTE,
    "attribute": _CURRENT,
    "against": _CURRENT,
    "endurance": _CURRENT,
    "factor": (-FACTOR_MAX, FACTOR_MAX),
    "against_factor": (-FACTOR_MAX, FACTOR_MAX),
    "distance": (0, DISTANCE_MAX),
    "radius": (0, DISTANCE_MAX),  # a War's Spiritual Dominion (M-15)
    "amount": (0, EFFECT_AMOUNT_MAX),
    "ap": (1, AP_MAX),
    # Realm of Strife attacks, casts and tests
    "ac": (0, AC_MAX),
    "dodge": _PERCENT,
    "crit": _PERCENT,
    "weapon_crit": _PERCENT,
    "critical_miss": _PERCENT,
    "miscast": _PERCENT,
    "resistance": (-RESISTANCE_MAX, RESISTANCE_MAX),
    "hp": (0, HP_MAX),
    "moved": (0, MOVED_MAX),
    "spell_power": (0, SPELL_POWER_MAX),
    "cost": (0, POWER_COST_MAX),
    "rounds": (1, ROUNDS_MAX),
    "modifier": _MODIFIER,
    "hit_modifier": _MODIFIER,
    "damage_bonus": _MODIFIER,
    "weapon_damage_bonus": _MODIFIER,
    "reaction_advantage": _MODIFIER,
    "advantage": _MODIFIER,
    "disadvantage": _MODIFIER,
    "acting_advantage": _MODIFIER,
    "acting_disadvantage": _MODIFIER,
    "opposing_advantage": _MODIFIER,
    "opposing_disadvantage": _MODIFIER,
    # counts, seeds and stored rows
    "mc": (1, MC_MAX),
    "runs": (1, RUNS_MAX),
    "balance_runs": (1, RUNS_MAX),
    "workers": (1, WORKERS_MAX),
    "max_cycles": (1, CYCLES_MAX),
    "max_rounds": (1, CYCLES_MAX),
    "seed": (SEED_MIN, SEED_MAX),
    "revision": (0, SEED_MAX),
    "encounter_id": _ROW,
    "character_id": _ROW,
    "replace_id": _ROW,
    "table": _ROW,  # tableside table … (issue 25)
    "owner": _ROW,
    "character": _ROW,
    "encounter": _ROW,  # tableside table characters join / carry-over (issue 25)
    "port": (1, 65_535),
    "idle": (1, 604_800),  # seconds the command daemon waits for a command (a week at most)
    # the web table's limits (W-13, tableside.web_limits), set by `tableside serve`
    **{
        name: (1, SERVE_LIMIT_MAX)
        for name in (
            "tables_per_minute",
            "max_combatants",
            "max_seats",
            "max_encounters",
            "max_body_bytes",
            "streams_per_token",
            "max_streams",
            "tables_per_hour",
            "seats_per_minute",
            "streams_per_address",
            "streams_per_table",
            "commands_per_minute",
            "table_commands_per_minute",
            "address_commands_per_minute",
            "chat_per_minute",
            "table_chat_per_minute",
        )
    },
}
# Options whose command checks the same bound with a sentence of its own (tableside simulate).
CLI_OWN_CHECKS = frozenset({"runs", "workers", "max_cycles", "max_rounds"})
