"""Issue 21, item 8: an attack's dry run rehearsed, its events reused by the real decide.

:func:`rehearse` keeps the dry run of the very command on the same state and fresh dice
stream; :meth:`StrifeFight.decide` then returns its events instead of deciding again. On random
fights, attack forms, Reactions and streams, the events (or the refusal) must be those a fresh
decide gives, and a rehearsal of anything else (another Reaction, stream or state) is not used.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from test_strife_reaction_fast import CASES, FORMS, MODELS, fight, ident, options

from tableside.dice import SeededRng
from tableside.encounter.log import Command, Event
from tableside.encounter.strife import choices, reaction_choices, rehearsal
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.rehearsal import rehearse
from tableside.encounter.strife.state import FightState
from tableside.errors import TablesideError

REACTIONS = (None, *reaction_choices.REACTIONS)


def decided(game: StrifeFight, state: FightState, command: Command, stream: int) -> Any:
    """The command's events on ``stream``, or the refusal's words."""
    try:
        return game.decide(state, command, SeededRng.stream(5, stream))
    except TablesideError as refused:
        return str(refused)


def fresh(game: StrifeFight, state: FightState, command: Command, stream: int) -> Any:
    """The full path: nothing rehearsed."""
    rehearsal._rehearsal.last = None
    return decided(game, state, command, stream)


def rehearsed_then(
    game: StrifeFight, state: FightState, command: Command, tried: Command, streams: tuple[int, int]
) -> Any:
    """``tried`` rehearsed on the first stream, then ``command`` decided on the second."""
    with contextlib.suppress(TablesideError):
        rehearse(game, state, tried, SeededRng.stream(5, streams[0]))
    return decided(game, state, command, streams[1])


def attack(attacker: str, defender: str, form: dict[str, Any], reaction: Any) -> Command:
    item = {"defender": defender, **form}
    if reaction != "absent":
        item["reaction"] = reaction
    return Command("attack", {"attacker": attacker, "attacks": [item]})


def test_a_rehearsed_attack_decides_as_a_fresh_one() -> None:
    draw = random.Random(21)
    fights: dict[tuple[str, str, int, bool], tuple[StrifeFight, FightState] | None] = {}
    checked = 0
    for _ in range(250):
        pair = tuple(draw.sample(MODELS, 2))
        key = (pair[0], pair[1], draw.choice((1, 1, 2)), draw.random() < 0.2)
        if key not in fights:
            try:
                fights[key] = fight(*key)
            except TablesideError:
                fights[key] = None
        found = fights[key]
        if found is None:
            continue
        game, state = found
        form = draw.choice(FORMS)
        command = attack(ident(pair[0]), ident(pair[1]), form, draw.choice(("absent", *REACTIONS)))
        other = attack(ident(pair[0]), ident(pair[1]), form, draw.choice(("absent", *REACTIONS)))
        stream = draw.randrange(40)
        full = fresh(game, state, command, stream)
        assert rehearsed_then(game, state, command, command, (stream, stream)) == full
        # another command, stream or state rehearsed: never taken for this one
        assert rehearsed_then(game, state, command, other, (stream, stream)) == full
        assert rehearsed_then(game, state, command, command, (stream + 1, stream)) == full
        rehearsal._rehearsal.last = None
        with contextlib.suppress(TablesideError):
            rehearse(game, FightState(**vars(state)), command, SeededRng.stream(5, stream))
        assert decided(game, state, command, stream) == full
        checked += isinstance(full, list) and all(isinstance(e, Event) for e in full)
    assert checked > 30


def test_a_rehearsal_is_taken_once_and_only_for_a_fresh_stream() -> None:
    game, state = fight("Aldric", "Goblin", 1, False)
    command = attack("Aldric", "Goblin", {}, None)
    kept = rehearse(game, state, command, SeededRng.stream(5, 1))
    assert game.decide(state, command, SeededRng.stream(5, 1)) is kept.events
    again = game.decide(state, command, SeededRng.stream(5, 1))
    assert again == kept.events and again is not kept.events
    used = SeededRng.stream(5, 1)
    used.roll(6)
    assert rehearsal.stream_key(command, used) is None


def listing(game: StrifeFight, state: FightState, command: Command, ahead: bool) -> Any:
    """The attack's choices (listed ``ahead`` or after a first dry run), or the refusal."""
    rehearsal._rehearsal.last = None
    try:
        return choices.attack_choices(game, state, command, SeededRng.stream(5, 3), ahead=ahead)
    except Exception as refused:  # the same refusal, whatever its type
        return (type(refused), str(refused))


def test_choices_listed_ahead_equal_those_after_a_first_dry_run() -> None:
    draw = random.Random(96)
    names = [ident(m) for m in MODELS]
    taken = 0
    for _ in range(300):
        pair = tuple(draw.sample(MODELS, 2))
        try:
            game, state = fight(pair[0], pair[1], draw.choice((1, 1, 2)), draw.random() < 0.2)
        except TablesideError:
            continue
        attacker = draw.choice((ident(pair[0]), ident(pair[0]), draw.choice(names)))
        defender = draw.choice((ident(pair[1]), ident(pair[1]), "Nobody", attacker))
        command = attack(attacker, defender, draw.choice(FORMS), "absent")
        ahead = listing(game, state, command, True)
        assert ahead == listing(game, state, command, False), (pair, command)
        if isinstance(ahead, tuple):
            continue
        # what the automatic policy then decides: the rehearsal's events, equal to a fresh decide
        listing(game, state, command, True)
        chosen = choices.suggested(command, ahead)
        reused = decided(game, state, chosen, 3)
        assert reused == fresh(game, state, chosen, 3), (pair, command)
        taken += chosen != command
    assert taken > 8


def test_reactions_declared_on_one_setup_equal_whole_setups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    draw = random.Random(8)
    forms = (*FORMS, {"reaction_item": "Stool"}, {"combined_damage": ["fire"]})
    compared = 0
    for pair, gap, spent in draw.sample(CASES, 30):
        try:
            game, state = fight(pair[0], pair[1], gap, spent)
        except TablesideError:
            continue
        for form in forms:
            command = attack(ident(pair[0]), ident(pair[1]), form, "absent")
            lazy = options(game, state, command)
            with monkeypatch.context() as patched:
                patched.setattr(reaction_choices, "LAZY_SETUPS", False)
                whole = options(game, state, command)
            assert lazy == whole, (pair, gap, spent, form)
            compared += len(lazy)
    assert compared > 60
