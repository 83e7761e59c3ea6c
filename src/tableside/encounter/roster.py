"""Example combatants for demonstrations, the golden War, benchmarks and simulations."""

from __future__ import annotations

from typing import Any

from tableside.encounter.log import Command

Point3 = tuple[float, float, float]


def character_doc(
    name: str,
    side: str = "holy",
    weapon: str = "Sword",
    attributes: dict[str, int] | None = None,
    overrides: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A character document (format tableside/majesty-character v1); attributes default to 30."""
    natural = {"might": 42, "swiftness": 30, "control": 30, "endurance": 60, "resolve": 40,
               "passion": 40} | (attributes or {})  # fmt: skip
    return {
        "format": "tableside/majesty-character",
        "version": 1,
        "name": name,
        "side": side,
        "weapon": weapon,
        "attributes": natural,
        "overrides": overrides or {},
    }


FOUR_AGAINST_FOUR: tuple[tuple[str, str, str, Point3, dict[str, int]], ...] = (
    ("Herald", "holy", "Sword", (0.0, 0.0, 0.0), {"might": 42, "swiftness": 31, "control": 30}),
    ("Watcher", "holy", "Spear", (0.0, 2.0, 0.0), {"might": 35, "swiftness": 40, "control": 45}),
    ("Guardian", "holy", "Hammer", (0.0, 4.0, 1.0), {"might": 60, "swiftness": 15, "control": 28}),
    ("Messenger", "holy", "Axe", (0.0, 6.0, 0.0), {"might": 48, "swiftness": 25, "control": 35}),
    ("Warrior", "fallen", "Axe", (8.0, 0.0, 0.0), {"might": 56, "swiftness": 22, "control": 40}),
    ("Jackal", "fallen", "Club", (8.0, 2.0, 0.0), {"might": 30, "swiftness": 48, "control": 20}),
    ("Deceiver", "fallen", "Sword", (8.0, 4.0, 2.0), {"might": 38, "swiftness": 33, "control": 50}),
    ("Brute", "fallen", "Hammer", (8.0, 6.0, 0.0), {"might": 70, "swiftness": 10, "control": 25}),
)


def add_commands(
    roster: tuple[tuple[str, str, str, Point3, dict[str, int]], ...] = FOUR_AGAINST_FOUR,
) -> list[Command]:
    """The roster as 'add' commands."""
    return [
        Command("add", {"id": name, "position": list(at),
                        "character": character_doc(name, side, weapon, attributes)})
        for name, side, weapon, at, attributes in roster
    ]  # fmt: skip
