"""A scripted golden War through the rulings of issue 13 (M-4, M-21, M-24, M-34 … M-41).

Each step names the ruling it shows. Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/war_rulings.py --write
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from golden_script import main, rendered

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.roster import character_doc
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "war_rulings.log"
SEED = 13
ATTRIBUTES = {"might": 42, "swiftness": 30, "control": 30, "endurance": 60, "resolve": 40,
              "passion": 40}  # fmt: skip


def add(
    name: str, side: str, position: list[float], weapon: str = "Sword", **attrs: int
) -> Command:
    """Add a combatant with the default Attributes, some overridden."""
    overrides = {k: v for k, v in attrs.items() if k not in ATTRIBUTES}
    attributes = {**ATTRIBUTES, **{k: v for k, v in attrs.items() if k in ATTRIBUTES}}
    doc = character_doc(name, side, weapon, attributes, overrides)
    return Command("add", {"id": name, "character": doc, "position": position})


def c(kind: str, dice: tuple[int, ...] | None = None, **args: Any) -> Command:
    """One scripted command."""
    return Command(kind, args, dice)


NEXT = c("next")
TITAN_NEXTS = 3
SCRIPT: list[Command] = [
    add("Herald", "holy", [0.0, 0.0, 0.0], swiftness=60),  # Speed 14: Turns in Segments 1 and A
    add("Watcher", "holy", [0.0, 4.0, 0.0], "Spear", swiftness=40, speed=3),
    add("Warrior", "fallen", [1.0, 0.0, 0.0], "Axe", swiftness=20, endurance=90),
    add("Nimble", "fallen", [3.0, 0.0, 0.0], "Spear", swiftness=60, speed=7),
    add("Wall", "fallen", [5.0, 0.0, 0.0], "Club", swiftness=10, endurance=80, speed=7),
    # F:1 Cycle dealt before the War lasts all of Cycle 1.
    c("apply_effect", id="Nimble", effect="falter_cycle", source="Song"),
    NEXT,  # Cycle 1, Turn 1: Herald
    # M-37: Grappling ends the Grappler's Defensive Stance.
    c("stance", id="Herald", on=True),
    c("apply_effect", id="Warrior", effect="grappled", by="Herald"),
    c("apply_effect", id="Warrior", effect="released"),
    # M-36: a Bound Defender is Exposed: 1–3 Misses, 1s inert, 11 a 12.
    c("apply_effect", id="Warrior", effect="bound"),
    c("strike", (1, 2, 3, 11, 9, 5, 5), striker="Herald", defender="Warrior", mode="none"),
    c("apply_effect", id="Warrior", effect="unbound"),
    # Readied AP for two declared uses.
    c("stand_ready", id="Herald", ap=4, uses=["Counter Strike", "Move"]),
    NEXT,  # Nimble: F:1 Cycle wastes every AP
    NEXT,  # Watcher (Speed 3)
    c("carry_over", id="Watcher", ap=3),  # A-29: into Cycle 2's Turn of 3 AP → 6
    NEXT,  # Warrior
    # the Sword's 12 Effect on a Readied Strike joins the Readied AP; A-34: the Strike
    # uses up "Counter Strike", the Move then "Move".
    c("strike", (12, 9, 9, 5, 5, 5, 5), striker="Herald", defender="Warrior", mode="none"),
    # M-4 / A-32: Weary the moment Exertion passes Stamina (3 + 48 // 10 = 7), in its own Turn.
    c("host_set", id="Warrior", field="exertion", value=5),
    c("strike", (5,) * 7, striker="Warrior", defender="Herald", mode="none"),
    c("strike", (5,) * 7, striker="Warrior", defender="Herald", mode="none"),
    c("move", id="Herald", to=[-1.0, 0.0, 0.0]),
    # M-35 / A-15: Knocked Back past Nimble (who steps aside) into Wall.
    c(
        "apply_effect",
        (12, 12, 12, 5, 5, 5, 5) + (5,) * 21,
        id="Warrior",
        effect="knock_back",
        amount=6.5,
        by="Herald",
    ),
    # M-34: becoming Defeated converts every F:# to WearR and WearP.
    c("apply_effect", id="Warrior", effect="falter", amount=2),
    c("apply_effect", id="Warrior", effect="wear_e", amount=150),
    # M-24 / A-30: a Status lowered for 1 Cycle does not cut Cycle 2's War Scroll.
    c("apply_effect", id="Herald", effect="lower_status", source="Epic result"),
    NEXT,  # Wall
    NEXT,  # Herald, Segment A: its unused Readied AP rest
    NEXT,  # Cycle 2: Herald 7 + 7; Nimble's F:1 Cycle over
    NEXT,  # Nimble: 7 AP
    NEXT,  # Watcher: 3 + 3 carried
    # M-37 / A-35: the Grappler's 2-AP Strike is a Might vs Might Check; the Grapple holds.
    c("apply_effect", id="Nimble", effect="grappled", by="Watcher"),
    c(
        "strike",
        (9, 9, 10, 5, 5, 5, 5),
        striker="Watcher",
        defender="Nimble",
        two_ap=True,
        mode="none",
    ),
    # Titan joins mid-War and takes its first Turn in Cycle 3.
    add("Titan", "holy", [4.0, 1.0, 0.0], might=130, swiftness=60),
    *[NEXT] * TITAN_NEXTS,  # to Titan's first Turn
    # with 88 more Might, Titan swings Nimble at Wall: collision WearE to both.
    c("apply_effect", id="Nimble", effect="grappled", by="Titan"),
    c(
        "strike",
        (9, 9, 9, 2, 5, 5, 5),
        striker="Titan",
        defender="Wall",
        body="Nimble",
        mode="none",
    ),
    # a second Grapple (88 ≥ 40 more); Titan's Might is now split, 65 against each.
    c("apply_effect", id="Warrior", effect="grappled", by="Titan"),
    c(
        "strike",
        (9, 9, 10, 5, 5, 5, 5),
        striker="Titan",
        defender="Warrior",
        two_ap=True,
        mode="none",
    ),
    # Entangled by Bind, Herald breaks free against its Resolve Allotment (40).
    c("apply_effect", id="Herald", effect="entangled", amount=40, source="Bind"),
    NEXT,  # Herald
    c("break_free", (9, 9, 10, 5, 5, 5, 5), id="Herald"),
    # this War switches to the newer Full Defensive Stance; A-39: Herald keeps Full
    # Defensive Stance as its state; A-40: a Spiritual Dominion stands in the War.
    c("ruleset", name="newer-full-stance"),
    c("stance", id="Herald", full=True),
    c("dominion", id="Ward", center=[2.0, 3.0, 0.0], radius=0.5),
    NEXT,  # Nimble
    NEXT,  # Watcher
    NEXT,  # Wall
    c("move", id="Wall", to=[2.0, 0.0, 0.0]),
    c("strike", (9, 9, 5, 5, 5, 5, 5), striker="Wall", defender="Herald"),
]


def run_war(seed: int = SEED) -> Encounter[WarState]:
    """Execute the script."""
    encounter: Encounter[WarState] = Encounter(MajestyWar(), seed)
    for command in SCRIPT:
        encounter.execute(command)
    return encounter


def transcript() -> str:
    """The rendered log of the scripted War."""
    return rendered(run_war())


if __name__ == "__main__":
    main(GOLDEN, transcript)
