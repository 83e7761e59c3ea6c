"""Powers as data (issue 14 item 16) and the fight's cast from the catalogue: SA-60 … SA-63."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from test_cli_fight import Cli

from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.strife_fight import StrifeFight
from tableside.encounter.strife_state import FightState
from tableside.errors import DataError, TablesideError
from tableside.strife.catalog import (
    Element,
    PowerRoll,
    PowerTargets,
    Resource,
    builtin_catalog,
    parse_catalog,
)

CATALOG = builtin_catalog()
GOOD_POWER: dict[str, Any] = {
    "name": "Frost Lance", "archetype": "Missile", "element": "frost", "resource": "Spirit",
    "cost": 3, "range": 20, "damage": "1d10", "blockable": True, "dodge_allowed": True,
}  # fmt: skip


def power_file(**changes: Any) -> dict[str, Any]:
    power = {**copy.deepcopy(GOOD_POWER), **changes}
    return {"format": "tableside/strife-catalog", "version": 1, "powers": [power]}


def do(
    e: Encounter[FightState], kind: str, dice: tuple[int, ...] | None = None, /, **args: Any
) -> LogRecord:
    return e.execute(Command(kind, args, dice))


def sera_and_goblins(
    *at: tuple[float, float], game: StrifeFight | None = None
) -> Encounter[FightState]:
    """Sera (Spirit 12) at the origin, Sera first, against a Goblin at each of ``at``."""
    e: Encounter[FightState] = Encounter(game or StrifeFight(), 3)
    do(e, "add", (19,), id="Sera", model="Sera", side="heroes", position=[0, 0, 0])
    for number, (x, y) in enumerate(at, start=1):
        do(e, "add", (1,), id=f"Goblin-{number}", model="Goblin", side="monsters",
           position=[x, y, 0])  # fmt: skip
    do(e, "start")
    assert e.state.current == "Sera"
    return e


def casts(record: LogRecord) -> list[dict[str, Any]]:
    return [ev.data for ev in record.events if ev.kind == "cast_resolved"]


def spirit(e: Encounter[FightState]) -> int:
    return e.state.models["Sera"].sheet.resources[Resource.SPIRIT].current


def hp(e: Encounter[FightState], who: str) -> int:
    return e.state.models[who].sheet.hp


# --- SA-60: the catalogue -----------------------------------------------------------------------


def test_sa60_the_builtin_catalogue_has_the_powers_the_combat_page_names() -> None:
    """SA-60: Arcane Torrent (Storm, one roll), Birds of Prey (Multi, separate rolls), a Missile."""
    torrent = CATALOG.power("arcane torrent")
    assert (torrent.targets, torrent.element.value, torrent.resource) == (
        PowerTargets.ONE_ROLL, "arcane", Resource.SPIRIT)  # fmt: skip
    assert CATALOG.power("Birds of Prey").targets == PowerTargets.SEPARATE_ROLLS
    missile = CATALOG.power("Arcane Missile")
    assert missile.blockable and missile.dodge_allowed and missile.range == 24
    assert CATALOG.power("Flame Strike").roll == PowerRoll.COMBINED
    assert CATALOG.power("Flame Strike").touch
    assert CATALOG.power("Curse of Control").effects[0].name == "Controlled"


@pytest.mark.parametrize(
    ("change", "sentence"),
    [
        ({"damage": "d10"}, "field powers.0.damage: Damage dice must look like"),
        ({"range": -3}, "field powers.0.range"),
        ({"targets": "everyone"}, "field powers.0.targets"),
        ({"resource": None}, "field powers.0: a cost of 3 needs the resource it is paid from"),
        ({"max_targets": 4}, "a one-target power cannot have max_targets 4"),
        ({"effects": [{"name": "Stun", "chance": 0}]}, "field powers.0.effects.0.chance"),
        ({"colour": "blue"}, "field powers.0.colour"),
    ],
)
def test_sa60_bad_power_data_is_refused_in_one_sentence_naming_the_field(
    change: dict[str, Any], sentence: str
) -> None:
    """SA-60: powers are validated like the weapons: one sentence naming the field path."""
    with pytest.raises(DataError) as refused:
        parse_catalog(power_file(**change), "mine.json")
    message = str(refused.value)
    assert message.startswith("mine.json: ") and sentence in message
    assert message.count(". ") == 0 and message.endswith(".")


def test_sa60_a_hosts_file_adds_powers_and_a_fight_casts_them_by_name() -> None:
    """SA-60: extensible like the weapons (Catalog.extended); the fight takes its numbers."""
    catalog = CATALOG.extended(parse_catalog(power_file(), "mine.json"), "mine.json")
    assert catalog.power("frost lance").damage == "1d10"
    e = sera_and_goblins((6, 0), game=StrifeFight(catalog=catalog))
    record = do(e, "cast", (80, 7), caster="Sera", targets=["Goblin-1"], power="Frost Lance")
    (cast,) = casts(record)
    assert cast["result"]["element"] == "frost" and cast["result"]["damage"]["total"] == 7
    assert spirit(e) == 12 - 3 and hp(e, "Goblin-1") == 8 - 7


# --- SA-60: the fight's cast takes the catalogue's numbers -------------------------------------


def test_sa60_cast_by_name_takes_element_damage_cost_and_resource_from_the_catalogue() -> None:
    """SA-60: no element, damage or cost typed: Arcane Missile's arcane 1d8 for 2 Spirit."""
    e = sera_and_goblins((5, 0))
    record = do(e, "cast", (80, 5), caster="Sera", targets=["Goblin-1"], power="Arcane Missile")
    (cast,) = casts(record)
    assert (cast["result"]["power"], cast["result"]["element"]) == ("Arcane Missile", "arcane")
    assert cast["result"]["damage"]["dice"] == "1d8" and hp(e, "Goblin-1") == 8 - 5
    assert spirit(e) == 10
    spent = next(ev for ev in record.events if ev.kind == "resources_set")
    assert spent.rule == "SA-49" and spent.data["spent"] == 2


def test_sa60_the_host_may_still_type_a_powers_numbers() -> None:
    """SA-60: explicit damage and cost win over the catalogue's (the Host's to approve, SA-63)."""
    e = sera_and_goblins((5, 0))
    do(e, "cast", (80, 2, 2), caster="Sera", targets=["Goblin-1"], power="Arcane Missile",
       damage="2d4", cost=1)  # fmt: skip
    assert hp(e, "Goblin-1") == 8 - 4 and spirit(e) == 11


def test_sa60_a_missile_powers_dodge_comes_from_the_catalogue() -> None:
    """SA-60, S-8: Arcane Missile allows Dodge: a natural 9 (≤ the Goblin's Dodge 10) is dodged."""
    e = sera_and_goblins((5, 0))
    (cast,) = casts(do(e, "cast", (9,), caster="Sera", targets=["Goblin-1"],
                       power="Arcane Missile"))  # fmt: skip
    assert cast["result"]["outcome"] == "dodged" and hp(e, "Goblin-1") == 8


def test_sa60_an_unknown_power_needs_its_element() -> None:
    """SA-60: a power typed by hand names its element; without one the sentence lists the known."""
    e = sera_and_goblins((5, 0))
    before = e.revision
    with pytest.raises(TablesideError, match=r"'Zap' is not a power of the catalogue \(known: "):
        do(e, "cast", (80,), caster="Sera", targets=["Goblin-1"], power="Zap")
    assert e.revision == before
    do(e, "cast", (80,), caster="Sera", targets=["Goblin-1"], power="Zap", element="lightning")


def test_sa60_range_is_checked_against_the_catalogue() -> None:
    """SA-60: Arcane Missile reaches 24"; a Goblin 30" away is out of range, nothing written."""
    e = sera_and_goblins((30, 0))
    before = (e.revision, e.state)
    with pytest.raises(TablesideError, match=r'30.0" away, beyond the range of Arcane Missile'):
        do(e, "cast", (80, 5), caster="Sera", targets=["Goblin-1"], power="Arcane Missile")
    assert (e.revision, e.state) == before


def test_sa61_an_offensive_ranged_power_cannot_target_a_model_in_base_contact() -> None:
    """SA-61: the Combat page's "offensive ranged spells/powers cannot be used" in contact."""
    e = sera_and_goblins((1, 0))
    with pytest.raises(TablesideError, match=r"offensive ranged powers cannot .* base contact"):
        do(e, "cast", (80, 5), caster="Sera", targets=["Goblin-1"], power="Arcane Missile")
    assert spirit(e) == 12


def test_sa60_a_one_target_power_refuses_two_targets_and_max_targets_holds() -> None:
    """SA-60: Arcane Missile has one target; Birds of Prey at most three."""
    e = sera_and_goblins((5, 0), (5, 2), (5, 4), (5, 6))
    with pytest.raises(TablesideError, match=r"Arcane Missile reaches at most 1 target"):
        do(e, "cast", caster="Sera", targets=["Goblin-1", "Goblin-2"], power="Arcane Missile")
    four = [f"Goblin-{n}" for n in range(1, 5)]
    with pytest.raises(TablesideError, match=r"Birds of Prey reaches at most 3 target"):
        do(e, "cast", caster="Sera", targets=four, power="Birds of Prey")


def test_sa60_arcane_torrent_makes_one_casting_roll_for_all_its_targets() -> None:
    """SA-60, SA-49: a Storm-type power: one d100, then each target's 1d6."""
    e = sera_and_goblins((5, 0), (5, 2))
    record = do(e, "cast", (80, 3, 4), caster="Sera", targets=["Goblin-1", "Goblin-2"],
                power="Arcane Torrent")  # fmt: skip
    assert [c["result"]["natural"] for c in casts(record)] == [80, 80]
    assert (hp(e, "Goblin-1"), hp(e, "Goblin-2"), spirit(e)) == (5, 4, 8)


def test_sa60_birds_of_prey_rolls_a_casting_d100_for_each_target() -> None:
    """SA-60, S-15: a Multi-type power: a separate casting roll per target, from the catalogue."""
    e = sera_and_goblins((5, 0), (5, 2))
    record = do(e, "cast", (80, 3, 2), caster="Sera", targets=["Goblin-1", "Goblin-2"],
                power="Birds of Prey")  # fmt: skip
    assert [c["result"]["natural"] for c in casts(record)] == [80, 2]
    assert (hp(e, "Goblin-1"), hp(e, "Goblin-2"), spirit(e)) == (5, 8, 7)


def test_sa60_a_combined_power_is_refused_by_cast() -> None:
    """SA-60: Flame Strike rides a weapon attack's hit roll (S-9), so cast refuses it."""
    e = sera_and_goblins((1, 0))
    with pytest.raises(TablesideError, match=r"Flame Strike is the spirit portion of a weapon"):
        do(e, "cast", (80,), caster="Sera", targets=["Goblin-1"], power="Flame Strike")


# --- SA-62: a power's effects -------------------------------------------------------------------


def test_sa62_a_guaranteed_effect_is_put_on_a_target_hit_and_not_on_one_that_resists() -> None:
    """SA-62: Curse of Control puts Controlled (1 round) on a hit; a resisted curse puts nothing."""
    e = sera_and_goblins((5, 0), (5, 2))
    record = do(e, "cast", (80,), caster="Sera", targets=["Goblin-1"], power="Curse of Control")
    (added,) = [ev for ev in record.events if ev.kind == "condition_added"]
    assert added.rule == "SA-62" and added.data["condition"]["rounds_left"] == 1
    assert added.data["condition"]["source"] == "Sera's Curse of Control"
    sheet = CATALOG.combatant("Goblin").model_copy(update={"resistances": {Element.SHADOW: 90}})
    e = Encounter(StrifeFight(), 3)
    do(e, "add", (19,), id="Sera", model="Sera", side="heroes", position=[0, 0, 0])
    do(e, "add", (1,), id="Goblin", sheet=sheet.model_dump(mode="json"), side="monsters",
       position=[5, 0, 0])  # fmt: skip
    do(e, "start")
    record = do(e, "cast", (80,), caster="Sera", targets=["Goblin"], power="Curse of Control")
    assert casts(record)[0]["result"]["outcome"] == "resisted"
    assert not e.state.models["Goblin"].conditions


@pytest.mark.parametrize(("effect_die", "stunned"), [(25, True), (26, False)])
def test_sa62_a_percent_effect_rolls_a_d100_after_the_damage(
    effect_die: int, stunned: bool
) -> None:
    """SA-62: Curse Torment's 25 % Stun: cast d100, 1d4 damage, then the effect's d100."""
    e = sera_and_goblins((5, 0))
    record = do(e, "cast", (80, 2, effect_die), caster="Sera", targets=["Goblin-1"],
                power="Curse Torment")  # fmt: skip
    (rolled,) = [ev.data for ev in record.events if ev.kind == "effect_rolled"]
    assert (rolled["roll"], rolled["applied"]) == (effect_die, stunned)
    names = [c.name for c in e.state.models["Goblin-1"].conditions]
    assert names == (["Stun"] if stunned else []) and hp(e, "Goblin-1") == 6


# --- SA-63: what needs the Host's approval ------------------------------------------------------


def cast_choices(e: Encounter[FightState], **args: Any) -> list[Any]:
    command = Command("cast", args)
    game = e.game
    assert isinstance(game, StrifeFight)
    return list(game.choices(e.state, command, command_rng(3, e.next_seq, command)))


def test_sa63_a_catalogue_powers_own_damage_needs_no_approval() -> None:
    """SA-63: the catalogue's damage is state-given; typed damage and spell power are the Host's."""
    e = sera_and_goblins((5, 0))
    base = {"caster": "Sera", "targets": ["Goblin-1"], "power": "Arcane Missile"}
    assert cast_choices(e, **base) == []
    assert cast_choices(e, **base, damage="1d8", element="arcane", cost=2) == []
    proposals: list[tuple[dict[str, Any], str]] = [
        ({"damage": "3d8"}, "damage 3d8"),
        ({"spell_power": 2}, "spell_power 2"),
        ({"cost": 0}, "cost 0"),
        ({"resists": False}, "resists False"),
    ]
    for extra, shown in proposals:
        (approve,) = cast_choices(e, **base, **extra)
        assert approve.kind == "approve" and shown in approve.prompt
    typed = {"caster": "Sera", "targets": ["Goblin-1"], "power": "Zap", "element": "fire"}
    assert cast_choices(e, **typed) == []
    (approve,) = cast_choices(e, **typed, damage="1d6")
    assert "damage 1d6" in approve.prompt


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def test_sa60_fight_cast_names_a_catalogue_power_on_the_command_line(cli: Cli) -> None:
    """SA-60: ``fight cast --power "Arcane Missile"`` needs no element; a bad one exits 2."""
    fight = str(cli.json("fight", "new", "Missiles", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Sera", "--model", "Sera", "--side", "heroes",
             "--dice", "19")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "5,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", fight)
    out = cli.json("fight", "cast", fight, "Sera", "--target", "Goblin", "--power",
                   "Arcane Missile", "--dice", "80,5")  # fmt: skip
    goblin = next(m for m in out["state"]["models"] if m["id"] == "Goblin")
    assert goblin["hp"] == 3
    code, _, err = cli.run("fight", "cast", fight, "Sera", "--target", "Goblin", "--power", "Zap")
    assert code == 2 and "is not a power of the catalogue" in err and "Traceback" not in err
