"""Issue 27, Reactions offered when they trigger (SA-96): the engine's choices and handlers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clirun import Cli
from test_decisions_strife import SEED, ask_open, choices, do, goblin_attack, values

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError
from tableside.strife.catalog import Combatant, Reaction, builtin_catalog

CATALOG = builtin_catalog()


def sheet(name: str, **changes: Any) -> dict[str, Any]:
    """A catalogue model's sheet with ``changes`` (skills, reactions)."""
    document: dict[str, Any] = (
        CATALOG.combatant(name).model_copy(update=changes).model_dump(mode="json")
    )
    return document


SHOUT = Reaction(name="Warning Shout", kind="roleplay", trigger="foe_attacks")


def fight() -> Encounter[FightState]:
    """Aldric (Reversal), Sera (a Warning Shout) against a Goblin (Counterspell); Goblin first."""
    e: Encounter[FightState] = Encounter(StrifeFight(), SEED)
    do(e, "add", (10,), id="Aldric", sheet=sheet("Aldric", skills=("Reversal",)), side="heroes",
       position=[0, 0, 0])  # fmt: skip
    do(e, "add", (2,), id="Sera", sheet=sheet("Sera", reactions=(SHOUT,)), side="heroes",
       position=[0.5, 0.5, 0])  # fmt: skip
    do(e, "add", (12,), id="Goblin", sheet=sheet("Goblin", skills=("Counterspell",)),
       side="monsters", position=[1, 0, 0])  # fmt: skip
    do(e, "start")
    assert e.state.current == "Goblin"
    return e


def test_sa96_a_sheet_says_its_reactions_and_their_triggers() -> None:
    """SA-96: the named skills' Reactions (Reversal, Swift Kick, Counterspell) and declared ones."""
    aldric = Combatant.model_validate(sheet("Aldric", skills=("Reversal", "Swift Kick")))
    assert [(r.name, r.kind, r.when) for r in aldric.reactions_known()] == [
        ("Reversal", "skill", "when it is attacked"),
        ("Swift Kick", "skill", "when it is attacked"),
    ]
    sera = Combatant.model_validate(sheet("Sera", reactions=(SHOUT,), skills=("Counterspell",)))
    assert [(r.name, r.when) for r in sera.reactions_known()] == [
        ("Warning Shout", "when a foe attacks"),
        ("Counterspell", "when a foe casts a power"),
    ]
    assert "reactions" not in CATALOG.combatant("Aldric").model_dump(mode="json")  # unchanged


def test_sa96_an_attack_offers_each_triggered_reaction_before_block_and_parry() -> None:
    """SA-96: the Goblin attacks Aldric: Aldric is offered Reversal (being attacked), Sera her
    Warning Shout (a foe attacking), each with "No reaction", before Aldric's Block or Parry."""
    e = fight()
    found = choices(e, "attack", **goblin_attack())
    assert [(c.kind, c.combatant) for c in found] == [
        ("skill_reaction", "Aldric"),
        ("skill_reaction", "Sera"),
        ("reaction", "Aldric"),
    ]
    reversal, shout = found[0], found[1]
    assert values(reversal) == ["Reversal", None] and reversal.suggested is None
    assert [o["label"] for o in reversal.options] == [
        "Reversal (Skill Reaction, when it is attacked)", "No reaction"]  # fmt: skip
    assert reversal.gate and reversal.path == ("reactions", "Aldric")
    assert values(shout) == ["Warning Shout", None]
    assert "SA-96" in reversal.info["details"]["rules"]


def test_sa96_the_reaction_taken_spends_the_rounds_reaction_so_no_block_is_asked() -> None:
    """SA-96, S-4: Aldric answers Reversal: his Reaction is spent before the dice; the Block and
    Parry are no longer asked; declining (Sera) costs nothing."""
    e = fight()
    e.execute(Command("attack", goblin_attack()), asker=ask_open)
    assert e.pending is not None
    taken = {"Aldric": "Reversal", "Sera": None}
    asked = []
    while e.pending is not None:
        (first,) = e.pending.open  # each gates the next: one question at a time
        asked.append((first.choice.kind, first.choice.combatant))
        record = e.answer(first.id, taken[str(first.choice.combatant)], "seat", ask_open)
    assert asked == [("skill_reaction", "Aldric"), ("skill_reaction", "Sera")]
    spent = [ev.data for ev in record.events if ev.kind == "reaction_spent"]
    assert spent == [{"id": "Aldric", "failed_parry": False, "reason": "Skill Reaction: Reversal"}]
    assert not e.state.rounds.can_react("Aldric") and e.state.rounds.can_react("Sera")
    assert e.verify_replay().state == e.state


def test_sa96_a_cast_offers_counterspell_and_a_reaction_not_set_off_is_refused() -> None:
    """SA-96: a foe casting sets off the Goblin's Counterspell (not Aldric's Reversal); a
    Reaction the command does not set off is refused in one sentence, nothing applied."""
    e = fight()
    do(e, "next")
    assert e.state.current == "Aldric"
    cast = {"caster": "Aldric", "targets": ["Goblin"], "power": "Spark", "element": "fire"}
    (counter,) = choices(e, "cast", **cast)
    assert (counter.kind, counter.combatant, values(counter)) == (
        "skill_reaction", "Goblin", ["Counterspell", None])  # fmt: skip
    assert [c.combatant for c in choices(e, "attack", attacker="Aldric",
                                         attacks=[{"defender": "Goblin"}])
            if c.kind == "skill_reaction"] == []  # fmt: skip
    before = e.revision
    with pytest.raises(TablesideError, match=r"Goblin has no Reaction 'Reversal' that this cast"):
        do(e, "cast", **cast, reactions={"Goblin": "Reversal"})
    assert e.revision == before
    record = do(e, "cast", **cast, reactions={"Goblin": "Counterspell"})
    assert [ev.data["reason"] for ev in record.events if ev.kind == "reaction_spent"] == [
        "Skill Reaction: Counterspell"]  # fmt: skip


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    return Cli(tmp_path / "fight.db", capsys, monkeypatch)


def test_sa96_sa97_the_command_line_takes_a_reaction_and_shows_who_commands(
    cli: Cli, tmp_path: Path
) -> None:
    """SA-96: ``fight attack --take-reaction MODEL=REACTION``; a malformed one exits 2 in one
    sentence. SA-97: ``fight show`` says who commands a controlled model's Turn."""
    sheet_file = tmp_path / "aldric.json"
    sheet_file.write_text(json.dumps(sheet("Aldric", skills=("Reversal",))), encoding="utf-8")
    fight = str(cli.json("fight", "new", "The glade", "--seed", "5")["id"])
    cli.json("fight", "add", fight, "--id", "Aldric", "--sheet", str(sheet_file), "--side",
             "heroes")  # fmt: skip
    cli.json("fight", "add", fight, "--id", "Goblin", "--model", "Goblin", "--side", "monsters",
             "--at", "1,0,0")  # fmt: skip
    cli.json("fight", "start", fight, "--ambush", "monsters")
    code, _out, err = cli.run("fight", "attack", fight, "Goblin", "--target", "Aldric",
                              "--take-reaction", "Aldric")  # fmt: skip
    assert code == 2 and "--take-reaction 'Aldric' must be MODEL=REACTION" in err
    done = cli.json("fight", "attack", fight, "Goblin", "--target", "Aldric", "--take-reaction",
                    "Aldric=Reversal", "--dice", "50 3")  # fmt: skip
    reasons = [ev["data"].get("reason") for ev in done["record"]["events"]
               if ev["kind"] == "reaction_spent"]  # fmt: skip
    assert reasons == ["Skill Reaction: Reversal"]
    cli.json("fight", "condition", fight, "Goblin", "--name", "Mind Controlled", "--source",
             "Aldric")  # fmt: skip
    _code, shown, _err = cli.run("fight", "show", fight)
    assert "Goblin's Turn, commanded by Aldric (SA-97)" in shown
