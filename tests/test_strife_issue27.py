"""Issue 27, Realm of Strife rules loose ends: the off hand (SA-92), flying or perched (SA-93),
NPC policies that know the rules (SA-94)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clirun import Cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tableside.dice import SeededRng
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError
from tableside.strife.catalog import builtin_catalog

CATALOG = builtin_catalog()


def do(
    e: Encounter[FightState], kind: str, dice: tuple[int, ...] | None = None, /, **args: Any
) -> LogRecord:
    return e.execute(Command(kind, args, dice))


def duelist() -> dict[str, Any]:
    """A Duelist: a Long Sword in the main hand, a Dagger in the off hand, no Dual Wield."""
    kit = {"name": "Duelist", "shield": None, "off_hand": "Dagger"}
    sheet = CATALOG.combatant("Aldric").model_copy(
        update={**kit, "proficiencies": ("Swords", "Daggers")}
    )
    document: dict[str, Any] = sheet.model_dump(mode="json")
    return document


def duel() -> Encounter[FightState]:
    """The Duelist (first to act) in base contact with a troll (a Goblin's sheet)."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 3)
    do(e, "add", (10,), id="duel", sheet=duelist(), side="heroes", position=[0.0, 0.0, 0.0])
    do(e, "add", (2,), id="troll", model="Goblin", side="monsters", position=[1.0, 0.0, 0.0])
    do(e, "start")
    return e


def weapons_used(record: LogRecord) -> list[tuple[str, list[str]]]:
    """Each attack's weapon and the labels of its modifiers."""
    return [
        (ev.data["result"]["weapon"], [m["label"] for m in ev.data["result"]["modifiers"]])
        for ev in record.events
        if ev.kind == "attack_resolved"
    ]


# --- item 1: the off hand without naming it (SA-92) ----------------------------------------------


def test_sa92_the_second_attack_takes_the_off_hand_without_naming_it() -> None:
    """SA-92: main hand, then off hand, each Clumsy for dual wielding (no criticals, S-16)."""
    e = duel()
    record = do(e, "attack", (60, 3, 98, 2), attacker="duel", attacks=[{"defender": "troll"}] * 2)
    used = weapons_used(record)
    assert [w for w, _ in used] == ["Long Sword", "Dagger"]
    assert used[0][1] == ["Clumsy (dual wielding) −10 × size M"]
    assert used[1][1] == ["Clumsy (dual wielding) −10 × size S"]
    outcomes = [ev.data["result"]["outcome"] for ev in record.events
                if ev.kind == "attack_resolved"]  # fmt: skip
    assert outcomes == ["hit", "hit"]  # 98 is no critical when dual wielding is Clumsy


def test_sa92_a_named_weapon_leaves_the_other_hand_to_the_attack_that_names_none() -> None:
    """SA-92: naming the Dagger first, the unnamed attack takes the Long Sword."""
    e = duel()
    attacks = [{"defender": "troll", "weapon": "Dagger"}, {"defender": "troll"}]
    record = do(e, "attack", (60, 3, 20), attacker="duel", attacks=attacks)
    assert [w for w, _ in weapons_used(record)] == ["Dagger", "Long Sword"]


def test_sa92_a_third_attack_is_still_refused_sa46() -> None:
    """SA-92 keeps SA-46: two weapons held, two attacks; a third is refused, nothing applied."""
    e = duel()
    before = e.revision
    with pytest.raises(TablesideError, match=r"may make 2 attack\(s\).*not 3 \(SA-46\)"):
        do(e, "attack", attacker="duel", attacks=[{"defender": "troll"}] * 3)
    assert e.revision == before


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def cli_duel(cli: Cli, tmp_path: Path) -> str:
    """``tableside fight`` with the Duelist and a troll, the Duelist's Turn."""
    sheet = tmp_path / "duelist.json"
    sheet.write_text(json.dumps(duelist()), encoding="utf-8")
    fight = str(cli.json("fight", "new", "The duel", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "duel", "--sheet", str(sheet), "--side", "heroes",
             "--dice", "20")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "troll", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0", "--dice", "1")  # fmt: skip
    cli.json("fight", "start", fight)
    return fight


def test_sa92_cli_attack_twice_without_weapon_and_weapon_per_attack(
    cli: Cli, tmp_path: Path
) -> None:
    """SA-92: the issue's command is accepted; ``--weapon`` is one per attack, in order."""
    fight = cli_duel(cli, tmp_path)
    done = cli.json("fight", "attack", fight, "duel", "--target", "troll", "--target", "troll",
                    "--dice", "60 3 98 2")  # fmt: skip
    weapons = [ev["data"]["result"]["weapon"] for ev in done["record"]["events"]
               if ev["kind"] == "attack_resolved"]  # fmt: skip
    assert weapons == ["Long Sword", "Dagger"]
    code, _out, err = cli.run("fight", "attack", fight, "troll", "--target", "duel",
                              "--weapon", "Spear", "--weapon", "Spear")  # fmt: skip
    assert code == 2 and "--weapon is given 2 times for 1 --target(s)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# --- item 2: flying or perched (SA-93) -----------------------------------------------------------


def archer_fight(
    z: float, perched: bool | None = None, can_fly: bool = False
) -> Encounter[FightState]:
    """Sera with a Short Bow set up ``z``" above the ground, a Goblin 6" away on the ground."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 1)
    kit = {"main_hand": "Short Bow", "off_hand": None, "can_fly": can_fly}
    sheet = CATALOG.combatant("Sera").model_copy(update=kit).model_dump(mode="json")
    add: dict[str, Any] = {"id": "Sera", "sheet": sheet, "side": "heroes", "position": [0, 0, z]}
    if perched is not None:
        add["perched"] = perched
    do(e, "add", (20,), **add)
    do(e, "add", (1,), id="Goblin", model="Goblin", side="monsters", position=[6.0, 0.0, 0.0])
    do(e, "start")
    return e


def flying_penalty(e: Encounter[FightState]) -> bool:
    """Whether Sera's shot at the Goblin takes the flying shooter's −5 (SA-47)."""
    record = do(e, "attack", (50, 3), attacker="Sera", attacks=[{"defender": "Goblin"}])
    result = next(ev for ev in record.events if ev.kind == "attack_resolved").data["result"]
    return any(m["label"] == "flying shooter" for m in result["modifiers"])


def test_sa93_an_archer_set_on_a_roof_is_perched_unless_the_host_says_flying() -> None:
    """SA-93: a sheet that cannot fly, set 3" up, stands there: no flying −5; said flying, it
    flies."""
    roof = archer_fight(3.0)
    assert roof.state.models["Sera"].perched and not flying_penalty(roof)
    aloft = archer_fight(3.0, perched=False)
    assert not aloft.state.models["Sera"].perched and flying_penalty(aloft)


def test_sa93_a_sheet_that_can_fly_flies_unless_the_host_says_perched() -> None:
    """SA-93: "can fly" on the sheet: set above the ground it flies; said perched, it stands."""
    wings = archer_fight(3.0, can_fly=True)
    assert not wings.state.models["Sera"].perched and flying_penalty(wings)
    rooftop = archer_fight(3.0, perched=True, can_fly=True)
    assert rooftop.state.models["Sera"].perched and not flying_penalty(rooftop)


def test_sa93_the_state_view_shows_flying_and_perched() -> None:
    """SA-93: the choice is visible in the state view (``fight show``, the web table)."""
    from tableside.encounter.views import model_json

    assert {k: model_json(archer_fight(3.0).state.models["Sera"])[k]
            for k in ("perched", "flying")} == {"perched": True, "flying": False}  # fmt: skip
    view = model_json(archer_fight(3.0, perched=False).state.models["Sera"])
    assert (view["perched"], view["flying"]) == (False, True)
    ground = model_json(archer_fight(0.0).state.models["Sera"])
    assert (ground["perched"], ground["flying"]) == (False, False)


def test_sa93_perched_on_the_ground_is_refused_and_nothing_applied() -> None:
    """SA-93: perched or flying is said only above the ground; one sentence, nothing applied."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 1)
    with pytest.raises(TablesideError, match=r"Sera is put on the ground \(z 0\).*SA-93"):
        do(e, "add", (20,), id="Sera", model="Sera", side="heroes", perched=True)
    assert e.revision == 0 and not e.state.models


def test_sa93_the_host_placing_a_model_up_from_the_ground_places_it_as_add_does() -> None:
    """SA-93: host_set from the ground to a roof perches a non-flyer (said flying, it flies);
    moved on above the ground it keeps its perch (SA-90); undo and redo agree."""
    e = archer_fight(0.0)
    do(e, "host_set", id="Sera", field="position", value=[0.0, 0.0, 4.0])
    assert e.state.models["Sera"].perched
    do(e, "host_set", id="Sera", field="position", value=[1.0, 0.0, 5.0])
    assert e.state.models["Sera"].perched  # SA-90: the Host moved it on above the ground
    do(e, "host_set", id="Sera", field="position", value=[1.0, 0.0, 5.0], perched=False)
    assert not e.state.models["Sera"].perched and flying_penalty(e)
    after = e.state
    e.undo()
    e.undo()
    assert e.state.models["Sera"].perched  # back to the roof the Host first put it on
    e.redo()
    e.redo()
    assert e.state == after
    with pytest.raises(TablesideError, match=r"perched goes with a position.*SA-93"):
        do(e, "host_set", id="Goblin", field="hp", value=3, perched=True)


def test_sa93_cli_fight_add_perched_or_flying(cli: Cli, tmp_path: Path) -> None:
    """SA-93: ``fight add --flying`` / ``--perched``; ``fight show`` says which; the ground: 2."""
    fight = str(cli.json("fight", "new", "The roofs", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Sera", "--model", "Sera", "--side", "heroes",
             "--at", "0,0,3", "--flying", "--dice", "20")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Kit", "--model", "Sera", "--side", "heroes",
             "--at", "2,0,3", "--dice", "5")  # fmt: skip
    models = {m["id"]: m for m in cli.json("fight", "show", fight)["models"]}
    assert (models["Sera"]["flying"], models["Kit"]["perched"]) == (True, True)
    code, out, _err = cli.run("fight", "show", fight)
    assert code == 0 and "(flying)" in out and "(perched)" in out
    code, _out, err = cli.run("fight", "add", fight, "--id", "Aldric", "--model", "Aldric",
                              "--side", "heroes", "--perched")  # fmt: skip
    assert code == 2 and "put on the ground (z 0)" in err and "Traceback" not in err


def test_sa93_the_web_setup_passes_perched_to_a_strife_model_only() -> None:
    """SA-93: the set-up's ``perched`` reaches ``add``; a War character is refused it."""
    from tableside.errors import DataError
    from tableside.web.setup import NewCharacter, add_args

    spec = NewCharacter(model="Sera", side="heroes", position=(0.0, 0.0, 3.0), perched=False)
    assert add_args("strife-combat", spec)["perched"] is False
    assert "perched" not in add_args("strife-combat", spec.model_copy(update={"perched": None}))
    war = NewCharacter(character={"name": "Kael"}, perched=True)
    with pytest.raises(DataError, match=r"perched is for a Realm of Strife model.*SA-93"):
        add_args("majesty-war", war)


# --- item 3: NPC policies that know the rules (SA-94) --------------------------------------------


def taunted_caster() -> Encounter[FightState]:
    """Sera (Arcane Missile) taunted by Goblin-2, 10" off, with Goblin-1 nearer, 5" off."""
    e: Encounter[FightState] = Encounter(StrifeFight(), 2)
    sheet = CATALOG.combatant("Sera").model_copy(update={"powers": ("Arcane Missile",)})
    do(e, "add", (20,), id="Sera", sheet=sheet.model_dump(mode="json"), side="heroes")
    for name, x in (("Goblin-1", 5.0), ("Goblin-2", 10.0)):
        do(e, "add", (1,), id=name, model="Goblin", side="monsters", position=[x, 0.0, 0.0])
    do(e, "start")
    do(e, "condition", id="Sera", name="Taunted", source="Goblin-2")
    return e


def test_sa94_a_taunted_npc_casts_only_at_its_taunter_sa91() -> None:
    """SA-94, SA-91: the policy's first choice (Goblin-1, the nearest) is refused by the engine;
    it casts at Goblin-2, its taunter, which the engine accepts."""
    from tableside.encounter.strife.policy import accepts, candidates, next_command

    e = taunted_caster()
    game = e.game
    assert isinstance(game, StrifeFight)
    first = next(candidates(e.state, CATALOG))
    assert first.kind == "cast" and first.args["targets"][0] == "Goblin-1"
    assert not accepts(game, e.state, first)
    chosen = next_command(e.state, CATALOG, game)
    assert chosen.kind == "cast" and chosen.args["targets"] == ["Goblin-2"]
    record = e.execute(chosen)
    assert any(ev.kind == "cast_resolved" for ev in record.events)


def test_sa94_an_accepted_first_choice_is_the_choice_the_policy_always_made() -> None:
    """SA-94: untaunted, the policy casts at the nearest as before (F-40)."""
    from tableside.encounter.strife.policy import candidates, next_command

    e = taunted_caster()
    do(e, "end_condition", id="Sera", name="Taunted")
    chosen = next_command(e.state, CATALOG)
    assert chosen == next(candidates(e.state, CATALOG))
    assert chosen.kind == "cast" and chosen.args["targets"] == ["Goblin-1"]


MODELS = ("Aldric", "Sera", "Goblin", "Cave Troll")
CONDITIONS = ("Taunted", "Feared", "Knocked Down", None)


@st.composite
def random_fight(draw: st.DrawFn) -> Encounter[FightState]:
    """Two to four models on two sides, hurt or not, some Taunted, Feared or Knocked Down."""
    e: Encounter[FightState] = Encounter(StrifeFight(), draw(st.integers(0, 2**16)))
    count = draw(st.integers(2, 4))
    names = [f"m{i}" for i in range(count)]
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(MODELS))
        sheet = CATALOG.combatant(kind)
        update: dict[str, Any] = {"hp": draw(st.integers(1, sheet.hp_max))}
        if kind == "Sera":
            update["powers"] = ("Arcane Missile",)
        at = [draw(st.integers(-8, 8)) / 2, draw(st.integers(-8, 8)) / 2, 0.0]
        side = (
            "heroes"
            if i == 0
            else "monsters"
            if i == 1
            else draw(st.sampled_from(("heroes", "monsters")))
        )
        document = sheet.model_copy(update=update).model_dump(mode="json")
        do(e, "add", (draw(st.integers(1, 20)),), id=name, sheet=document, side=side, position=at)
    do(e, "start")
    for name in names:
        condition = draw(st.sampled_from(CONDITIONS))
        if condition is not None:
            source = draw(st.sampled_from([n for n in names if n != name]))
            do(e, "condition", id=name, name=condition, source=source)
    return e


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_fight())
def test_sa94_every_policy_choice_is_accepted_by_the_engine(e: Encounter[FightState]) -> None:
    """SA-94: over random fights, the engine accepts every command the policy chooses."""
    from tableside.encounter.strife.policy import next_command

    game = e.game
    assert isinstance(game, StrifeFight)
    for _ in range(60):
        if e.state.ended:
            break
        command = next_command(e.state, CATALOG, game)
        try:
            e.execute(command)
        except TablesideError as error:
            raise AssertionError(f"the engine refused the policy's {command}: {error}") from None


def test_sa94_a_simulation_of_a_taunted_caster_plays_to_the_end_sa91() -> None:
    """SA-94: the simulation plays the policy's first choice and, refused, the first the engine
    accepts: runs from the taunted caster end without a refused command (before: stopped)."""
    from tableside.simulate.games import StrifeSim
    from tableside.simulate.runs import Start, play_run

    e = taunted_caster()
    start = Start("strife-combat", "taunted", 2, e.state, e.next_seq)
    sim = StrifeSim()
    for run in range(6):
        outcome, _state = play_run(sim, start, 11, run, 30)
        assert outcome.commands > 0
    first = sim.next_command(e.state)
    assert first.kind == "cast" and first.args["targets"] == ["Goblin-1"]  # refused (SA-91) …
    events, _after = sim.play(e.state, first, SeededRng(1))  # … so its taunter is cast at
    assert [ev.data["target"] for ev in events if ev.kind == "cast_resolved"] == ["Goblin-2"]


# --- item 5: control of another model (SA-95) ----------------------------------------------------


def test_sa95_a_mind_controlled_models_choices_go_to_its_controller_and_back_after() -> None:
    """SA-95: Aldric, Mind Controlled by Sera, has his Reaction chosen by Sera; Controlled (the
    Curse of Control) the same; the condition ended, Aldric chooses again."""
    from test_decisions_strife import choices, duel, goblin_attack

    e = duel()
    (free,) = choices(e, "attack", **goblin_attack())
    assert free.combatant == "Aldric"
    do(e, "condition", id="Aldric", name="Mind Controlled", source="Sera")
    (held,) = choices(e, "attack", **goblin_attack())
    assert (held.kind, held.combatant, held.path) == ("reaction", "Sera", free.path)
    assert held.options == free.options  # Aldric's own gear: only who chooses changes
    do(e, "end_condition", id="Aldric", name="Mind Controlled")
    (back,) = choices(e, "attack", **goblin_attack())
    assert back.combatant == "Aldric"
    do(e, "condition", id="Aldric", name="Controlled", source="Sera's Curse of Control")
    (cursed,) = choices(e, "attack", **goblin_attack())
    assert cursed.combatant == "Sera"


def test_sa95_a_controller_that_is_down_controls_nothing() -> None:
    """SA-95, SA-71: a condition whose source is down (or names nobody) binds nothing."""
    from test_decisions_strife import choices, duel, goblin_attack

    e = duel()
    do(e, "condition", id="Aldric", name="Mind Controlled", source="a voice in the dark")
    assert choices(e, "attack", **goblin_attack())[0].combatant == "Aldric"
    do(e, "condition", id="Aldric", name="Mind Controlled", source="Sera")
    do(e, "host_set", id="Sera", field="hp", value=0)
    assert choices(e, "attack", **goblin_attack())[0].combatant == "Aldric"


def test_sa95_the_controllers_seat_is_asked_at_the_web_table() -> None:
    """SA-95: the seat playing the controller owns the controlled model's choice (D-4)."""
    from test_decisions_strife import choices, duel, goblin_attack

    from tableside.store.tables import Seat
    from tableside.web.decisions import owner_seat

    seats = [Seat(1, 1, "Ann", ("Aldric",)), Seat(2, 1, "Bo", ("Sera",))]
    e = duel()
    assert owner_seat(choices(e, "attack", **goblin_attack())[0], seats) == seats[0]
    do(e, "condition", id="Aldric", name="Mind Controlled", source="Sera", rounds=1)
    assert owner_seat(choices(e, "attack", **goblin_attack())[0], seats) == seats[1]
