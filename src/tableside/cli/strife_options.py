"""The options of ``tableside strife …`` (and ``odds attack``), declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tableside.cli.options import Seed, Shared

DICE_HELP = """\
Physical dice (--dice) are typed in stage by stage as NAME=FACES, faces separated by commas
(or spaces), stages separated by spaces or semicolons, in any order:

\b
  ward=12,9     Ward-off roll-off: the attacker's d20, then the defender's d20
  hit=37        the hit d100 (two for --precision: hit=37,80; the lower is kept)
  reaction=14   the Block or Parry d20, rolled with the hit roll
  damage=6,3    the weapon's damage dice (only when full damage stands)
  spirit=4      with cast --combined: the spirit portion's damage dice
  effects=55    one d100 per % effect of the weapon (only when full damage stands)

Give exactly the dice the roll uses: a missing, surplus or impossible die is refused.
"""


Dice = Annotated[
    str | None,
    typer.Option(
        help='Physical dice stage by stage, e.g. "hit=37 reaction=14 damage=6,3 effects=55" '
        "(see the stages above)."
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON (docs/strife.md).")]
Catalogs = Annotated[
    list[Path] | None,
    typer.Option(
        "--catalog",
        metavar="FILE",
        help="A tableside/strife-catalog JSON file extending the built-in one (repeatable).",
    ),
]
Ruleset = Annotated[
    str, typer.Option(help="Ruleset: standard, crit-requires-hit or uncapped-size.")
]
Model = Annotated[
    str, typer.Argument(help="A character or monster by name, or a sheet file ending in .json.")
]
Numbers = Annotated[list[int] | None, typer.Option(metavar="N", help="Repeatable.")]

ReactionOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction",
        help="The defender's declared reaction: block, parry, combined-parry, block-and-parry, "
        "improvised-block, improvised-parry or ward-off.",
    ),
]
ShieldOpt = Annotated[
    str | None, typer.Option("--shield", help="Reaction shield (default: the defender's).")
]
ReactionWeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-weapon",
        help="Weapon for parry, improvised-parry, block-and-parry, ward-off (default: the "
        "defender's main hand).",
    ),
]
ReactionOffOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-off-weapon",
        help="Second weapon of a combined-parry (default: the defender's off hand).",
    ),
]
ItemOpt = Annotated[
    str | None,
    typer.Option("--item", help="Item of an improvised-block (default: the main hand)."),
]
ItemSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--item-size", help="S, M, L or XL for an improvised-block item not in the catalogue."
    ),
]
ReactionUseOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-use",
        help="block-and-parry tested as a block (STR) or parry (AGIL); default the higher stat.",
    ),
]
ReactionAdvantageOpt = Annotated[
    list[int] | None,
    typer.Option(
        "--reaction-advantage",
        metavar="N",
        help="Extra advantage (−: disadvantage) to the reaction.",
    ),
]
MovedOpt = Annotated[
    int, typer.Option("--moved", help="Whole inches the attacker moved this Turn (S-16).")
]
FlyingOpt = Annotated[bool, typer.Option("--flying", help="The shooter is airborne (S-16).")]
ThrownOpt = Annotated[bool, typer.Option("--thrown", help="The weapon is thrown (S-16).")]
UnderwaterOpt = Annotated[
    bool, typer.Option("--underwater", help="The target is underwater (S-16).")
]
OtherHandOpt = Annotated[
    str | None,
    typer.Option("--other-hand", help="Dual wielding: the other hand's weapon (S-16)."),
]
DualOpt = Annotated[
    bool,
    typer.Option("--dual-wielding", help="Dual wielding with the sheet's other equipped weapon."),
]
DistanceOpt = Annotated[
    float | None,
    typer.Option(
        help="Inches to the target (0 = base contact; water inches already counted twice): "
        "melee needs ≤ the weapon's Reach, ranged and thrown > 0 and ≤ the range."
    ),
]

# What ``strife attack`` and ``strife cast`` both end with, in this order (--help lists it so).
ATTACK_OPTIONS: tuple[Shared, ...] = (
    ("moved", MovedOpt, 0), ("flying", FlyingOpt, False), ("thrown", ThrownOpt, False),
    ("underwater", UnderwaterOpt, False), ("other_hand", OtherHandOpt, None),
    ("dual_wielding", DualOpt, False), ("distance", DistanceOpt, None),
    ("reaction", ReactionOpt, None), ("shield", ShieldOpt, None),
    ("reaction_weapon", ReactionWeaponOpt, None), ("reaction_off_weapon", ReactionOffOpt, None),
    ("item", ItemOpt, None), ("item_size", ItemSizeOpt, None),
    ("reaction_use", ReactionUseOpt, None), ("reaction_advantage", ReactionAdvantageOpt, None),
    ("ruleset", Ruleset, "standard"), ("catalog", Catalogs, None), ("seed", Seed, 1),
    ("dice", Dice, None), ("json_out", Json, False),
)  # fmt: skip
