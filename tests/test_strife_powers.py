"""Powers as data (issue 14 item 16) and the fight's cast from the catalogue: SA-60 … SA-63."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from clirun import Cli

from tableside.encounter.engine import Encounter, command_rng
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
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


# --- item 13: Impale in fights (SA-64) ----------------------------------------------------------


def aldric_charges(goblin_at: float = 5.0) -> Encounter[FightState]:
    """Aldric (Long Sword, Kite Shield) first; the Goblin with its Spear (Reach 1) waits."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (19,), id="Aldric", model="Aldric", side="heroes", position=[0, 0, 0])
    do(e, "add", (1,), id="Goblin", model="Goblin", side="monsters", position=[goblin_at, 0, 0])
    do(e, "start")
    assert e.state.current == "Aldric"
    return e


def test_sa64_impale_a_passed_initiative_test_strikes_first_with_a_bonus_per_inch() -> None:
    """SA-64, S-13: Aldric moves 4" into base contact, within the Spear's range (2"); the
    Goblin's Initiative test (d20 15 + 6 = 21) passes; its Spear hits (80) for 1d8 6 + 4 (whole
    inches), then Aldric's Turn goes on."""
    e = aldric_charges()
    do(e, "move", id="Aldric", to=[4, 0, 0])
    record = do(e, "impale", (15, 80, 6), impaler="Goblin", target="Aldric")
    kinds = [ev.kind for ev in record.events]
    assert kinds == ["reaction_spent", "test_resolved", "attack_resolved", "hp_set"]
    assert record.events[0].data["reason"] == "Impale"
    damage = record.events[2].data["result"]["damage"]
    assert damage["parts"] == [{"label": "1d8", "amount": 6},
                               {"label": 'Impale (4" moved)', "amount": 4}]  # fmt: skip
    assert hp(e, "Aldric") == 30 - 10 and e.state.current == "Aldric"
    with pytest.raises(TablesideError, match=r"Goblin has already used its Reaction"):
        do(e, "attack", (80, 8), attacker="Aldric",
           attacks=[{"defender": "Goblin", "reaction": "ward_off"}])  # fmt: skip
    do(e, "attack", (80, 8), attacker="Aldric", attacks=[{"defender": "Goblin"}])
    assert hp(e, "Goblin") == 0


def test_sa64_impale_a_failed_initiative_test_spends_the_reaction_and_strikes_nothing() -> None:
    """SA-64: d20 5 + 6 = 11 fails: no attack, no dice beyond the test, the Reaction is spent."""
    e = aldric_charges()
    do(e, "move", id="Aldric", to=[3.5, 0, 0])
    record = do(e, "impale", (5,), impaler="Goblin", target="Aldric")
    assert [ev.kind for ev in record.events] == ["reaction_spent", "test_resolved"]
    assert hp(e, "Aldric") == 30 and not e.state.rounds.can_react("Goblin")


def test_sa64_the_mover_may_block_the_impaling_attack() -> None:
    """SA-64, SA-22: Aldric Blocks the Spear with his Kite Shield (d20 18 succeeds)."""
    e = aldric_charges()
    do(e, "move", id="Aldric", to=[3.5, 0, 0])
    record = do(e, "impale", (15, 80, 18), impaler="Goblin", target="Aldric", reaction="block")
    attack = record.events[2].data["result"]
    assert attack["reaction"]["kind"] == "block" and attack["reaction"]["result"] == "success"
    assert attack["damage"]["basis"] == "minimum"
    assert not e.state.rounds.can_react("Aldric")


@pytest.mark.parametrize(
    ("goblin_at", "steps", "impaler", "match"),
    [
        (5.0, [], "Goblin", r"Aldric has not just moved"),
        (5.0, [("move", [3.5, 0, 0]), ("instant", None)], "Goblin", r"has not just moved"),
        (5.0, [("move", [2.0, 0, 0])], "Goblin", r"did not come into the melee range"),
        (2.0, [("move", [1.0, 0, 0])], "Goblin", r"was already within the melee range"),
    ],
)
def test_sa64_impale_is_refused_outside_its_window(
    goblin_at: float, steps: list[tuple[str, Any]], impaler: str, match: str
) -> None:
    """SA-64: only right after a Move that brought the foe into the weapon's melee range."""
    e = aldric_charges(goblin_at)
    for kind, to in steps:
        if kind == "move":
            do(e, "move", id="Aldric", to=to)
        else:
            do(e, "instant", id="Aldric", name="shout")
    before = (e.revision, e.state)
    with pytest.raises(TablesideError, match=match):
        do(e, "impale", (15, 80, 6), impaler=impaler, target="Aldric")
    assert (e.revision, e.state) == before


def test_sa64_only_an_impale_weapon_impales() -> None:
    """SA-64, S-13: the Goblin's Spear impales; Aldric's Long Sword has no Impale attribute."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (1,), id="Aldric", model="Aldric", side="heroes", position=[0, 0, 0])
    do(e, "add", (19,), id="Goblin", model="Goblin", side="monsters", position=[4, 0, 0])
    do(e, "start")
    do(e, "move", id="Goblin", to=[1, 0, 0])
    with pytest.raises(TablesideError, match=r"Long Sword has no Impale attribute"):
        do(e, "impale", (15, 80, 6), impaler="Aldric", target="Goblin")


# --- item 13: improvised Block and Parry in fights (SA-65) --------------------------------------


def aldric_and_goblin_in_contact() -> Encounter[FightState]:
    return aldric_charges(1.0)


def test_sa65_an_improvised_parry_with_the_spear_is_knocked_away_on_a_natural_8() -> None:
    """SA-65, S-12: AGIL 2 + Large +1 − 2 size = 9 fails; natural ≤ 10 knocks the Spear away."""
    e = aldric_and_goblin_in_contact()
    record = do(e, "attack", (80, 8, 6), attacker="Aldric",
                attacks=[{"defender": "Goblin", "reaction": "improvised_parry"}])  # fmt: skip
    reaction = record.events[1].data["result"]["reaction"]
    assert (reaction["kind"], reaction["items"], reaction["total"]) == (
        "improvised_parry", ["Spear"], 9)  # fmt: skip
    assert reaction["disarmed"] and hp(e, "Goblin") == 8 - 7
    (disarmed,) = e.state.models["Goblin"].conditions
    assert disarmed.name == "Disarmed" and "Spear knocked away" in disarmed.source


def test_sa65_an_improvised_block_with_an_item_and_its_size() -> None:
    """SA-65, S-12: a serving tray (M, +0): d20 20 − 2 (STR 8) − 2 (size) = 16, a Critical Block."""
    e = aldric_and_goblin_in_contact()
    record = do(e, "attack", (80, 20), attacker="Aldric", attacks=[{
        "defender": "Goblin", "reaction": "improvised_block", "reaction_item": "Serving Tray",
        "reaction_item_size": "M"}])  # fmt: skip
    reaction = record.events[1].data["result"]["reaction"]
    assert (reaction["kind"], reaction["items"], reaction["result"], reaction["total"]) == (
        "improvised_block", ["Serving Tray"], "critical", 16)  # fmt: skip
    assert record.events[1].data["result"]["damage"]["basis"] == "minimum"


def test_sa65_an_improvised_parry_needs_a_weapon_held() -> None:
    """SA-65: an improvised Parry names a weapon the defender holds."""
    e = aldric_and_goblin_in_contact()
    with pytest.raises(TablesideError, match=r"Goblin holds no Axe to use for an improvised"):
        item = {"defender": "Goblin", "reaction": "improvised_parry", "reaction_item": "Axe"}
        do(e, "attack", (80, 8, 6), attacker="Aldric", attacks=[item])


# --- item 13: combined attacks and Combined Damage in fights (SA-66, SA-67) ---------------------


def test_sa66_a_combined_power_rides_the_main_hand_attack_on_one_hit_roll() -> None:
    """SA-66, S-9: Sera's Dagger with Flame Strike: one d100 80, 1d4 3 and fire 1d6 5 (3 Spirit)."""
    e = sera_and_goblins((1, 0))
    record = do(e, "attack", (80, 3, 5), attacker="Sera",
                attacks=[{"defender": "Goblin-1", "power": "Flame Strike"}])  # fmt: skip
    combined = next(ev for ev in record.events if ev.kind == "combined_resolved")
    result = combined.data["result"]
    assert result["outcome"] == "both" and result["natural"] == 80
    assert (result["physical_damage"]["total"], result["spirit_damage"]["total"]) == (3, 5)
    assert hp(e, "Goblin-1") == 0 and spirit(e) == 9


def test_sa66_a_combined_power_is_refused_on_the_off_hand_or_a_casting_power() -> None:
    """SA-66: only the main-hand attack carries it; a casting power is cast, not carried."""
    e = sera_and_goblins((1, 0))
    with pytest.raises(TablesideError, match=r"one attack of an Action carries a power"):
        do(e, "attack", (80, 3, 5, 80, 3, 5), attacker="Sera", attacks=[
            {"defender": "Goblin-1", "power": "Flame Strike"},
            {"defender": "Goblin-1", "power": "Flame Strike"}])  # fmt: skip
    sheet = CATALOG.combatant("Sera").model_copy(update={"off_hand": "Mace"})
    e = Encounter(StrifeFight(), 3)
    do(e, "add", (19,), id="Sera", sheet=sheet.model_dump(mode="json"), side="heroes",
       position=[0, 0, 0])  # fmt: skip
    do(e, "add", (1,), id="Goblin-1", model="Goblin", side="monsters", position=[1, 0, 0])
    do(e, "start")
    with pytest.raises(
        TablesideError, match=r"rides the main-hand attack \(Dagger\), not the Mace"
    ):
        do(e, "attack", (80, 3, 5), attacker="Sera", attacks=[
            {"defender": "Goblin-1", "weapon": "Mace", "power": "Flame Strike"}])  # fmt: skip
    with pytest.raises(TablesideError, match=r"Arcane Missile makes a casting roll of its own"):
        do(e, "attack", (80, 3), attacker="Sera",
           attacks=[{"defender": "Goblin-1", "power": "Arcane Missile"}])  # fmt: skip
    assert spirit(e) == 12


def test_sa67_combined_damage_rolls_against_the_lowest_ac_or_resistance() -> None:
    """SA-67, S-9: natural 20 is an Armor Save against the Troll's AC 25, a hit against Fire 10."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (19,), id="Aldric", model="Aldric", side="heroes", position=[0, 0, 0])
    do(e, "add", (1,), id="Troll", model="Cave Troll", side="monsters", position=[1, 0, 0])
    do(e, "start")
    plain = do(e, "attack", (20,), attacker="Aldric", attacks=[{"defender": "Troll"}])
    assert plain.events[1].data["result"]["outcome"] == "armor_save"
    e.undo()
    both = do(e, "attack", (20, 4), attacker="Aldric",
              attacks=[{"defender": "Troll", "combined_damage": ["fire"]}])  # fmt: skip
    result = both.events[1].data["result"]
    assert (result["outcome"], result["ac"]) == ("hit", 10) and hp(e, "Troll") == 55


def test_sa67_combined_damage_needs_the_hosts_approval() -> None:
    """SA-67, D-4: an attack that states it deals both is the Host's to allow."""
    e = sera_and_goblins((1, 0))
    command = Command("attack", {"attacker": "Sera", "attacks": [
        {"defender": "Goblin-1", "combined_damage": ["fire"]}]})  # fmt: skip
    game = e.game
    assert isinstance(game, StrifeFight)
    found = game.choices(e.state, command, command_rng(3, e.next_seq, command))
    approve = next(c for c in found if c.kind == "approve")
    assert "combined damage" in approve.prompt


def test_sa64_sa65_sa66_impale_improvised_and_combined_on_the_command_line(cli: Cli) -> None:
    """SA-64 ``fight impale``; SA-65 ``--reaction improvised_parry``; SA-66 ``--power``."""
    fight = str(cli.json("fight", "new", "Charge", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Aldric", "--model", "Aldric", "--side", "heroes",
             "--dice", "19")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "5,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Sera", "--model", "Sera", "--side", "heroes",
             "--at", "5,1,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", fight)
    cli.json("fight", "move", fight, "Aldric", "--to", "4,0,0")
    out = cli.json("fight", "impale", fight, "Goblin", "--target", "Aldric", "--dice", "15,80,6")
    assert next(m for m in out["state"]["models"] if m["id"] == "Aldric")["hp"] == 20
    code, _, err = cli.run("fight", "impale", fight, "Goblin", "--target", "Aldric")
    assert code == 2 and "Goblin has already used its Reaction this round" in err
    cli.json("fight", "attack", fight, "Aldric", "--target", "Goblin", "--dice", "5")
    cli.json("fight", "next", fight)
    out = cli.json("fight", "attack", fight, "Sera", "--target", "Goblin", "--power",
                   "Flame Strike", "--dice", "80,3,5")  # fmt: skip
    combined = next(e for e in out["record"]["events"] if e["kind"] == "combined_resolved")
    assert combined["data"]["result"]["outcome"] == "both"
    duel = str(cli.json("fight", "new", "Duel", "--seed", "5")["id"])
    cli.json("fight", "add", duel, "--id", "Aldric", "--model", "Aldric", "--side", "heroes",
             "--dice", "19")  # fmt: skip
    cli.json("fight", "add", duel, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", duel)
    out = cli.json("fight", "attack", duel, "Aldric", "--target", "Goblin", "--reaction",
                   "improvised_parry", "--dice", "80,8,6")  # fmt: skip
    attack = next(e for e in out["record"]["events"] if e["kind"] == "attack_resolved")
    assert attack["data"]["result"]["reaction"]["kind"] == "improvised_parry"


# --- SA-68: Blocking a Missile-type power in a fight --------------------------------------------


def sera_against_aldric() -> Encounter[FightState]:
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (19,), id="Sera", model="Sera", side="heroes", position=[0, 0, 0])
    do(e, "add", (1,), id="Aldric", model="Aldric", side="rivals", position=[6, 0, 0])
    do(e, "start")
    return e


@pytest.mark.parametrize(("block_die", "damage"), [(11, 0), (5, 3)])
def test_sa68_a_target_blocks_a_missile_power_with_the_casting_roll(
    block_die: int, damage: int
) -> None:
    """SA-68, S-10, SA-23: Aldric's Block d20 + 6 + 4: 21 stops the Missile (Crushing Blow 0);
    15 fails and the 1d8 (3) goes through. The Reaction is spent either way."""
    e = sera_against_aldric()
    dice = (80, block_die) if damage == 0 else (80, block_die, damage)
    record = do(e, "cast", dice, caster="Sera", targets=["Aldric"], power="Arcane Missile",
                blocks={"Aldric": "block"})  # fmt: skip
    (cast,) = casts(record)
    assert cast["result"]["reaction"]["total"] == block_die + 10
    assert hp(e, "Aldric") == 30 - damage and not e.state.rounds.can_react("Aldric")


def test_sa68_only_a_blockable_power_and_only_its_target_can_be_blocked() -> None:
    """SA-68: Arcane Torrent is not Missile-type; a Block needs the round's Reaction."""
    e = sera_against_aldric()
    with pytest.raises(TablesideError, match=r"Arcane Torrent cannot be Blocked"):
        do(e, "cast", (80, 11, 3), caster="Sera", targets=["Aldric"], power="Arcane Torrent",
           blocks={"Aldric": "block"})  # fmt: skip
    with pytest.raises(TablesideError, match=r"Sera is not a target of this Arcane Missile"):
        do(e, "cast", (80, 11), caster="Sera", targets=["Aldric"], power="Arcane Missile",
           blocks={"Sera": "block"})  # fmt: skip
    assert spirit(e) == 12


def test_sa64_a_sprint_into_the_spears_range_may_be_impaled() -> None:
    """SA-64: a Sprint's move (10") brings Aldric into the Spear's range: +10 damage."""
    e = aldric_charges(11.0)
    do(e, "whole_turn", id="Aldric", kind="sprint", to=[10, 0, 0])
    record = do(e, "impale", (15, 80, 6), impaler="Goblin", target="Aldric")
    assert record.events[2].data["impale"] == 10 and hp(e, "Aldric") == 30 - 16


def test_sa65_an_item_for_a_reaction_that_is_not_improvised_is_refused() -> None:
    """SA-65: reaction_item belongs to an improvised Block or Parry only."""
    e = aldric_and_goblin_in_contact()
    with pytest.raises(TablesideError, match=r"are for an improvised Block or Parry .* not parry"):
        do(e, "attack", (80, 8, 6), attacker="Aldric", attacks=[
            {"defender": "Goblin", "reaction": "parry", "reaction_item": "Spear"}])  # fmt: skip
