"""The compiled Realm of Strife kernel plays the Python fast path's transitions (F-50, F-51).

* **Same draws, same states** (F-50, the strongest check): a run of the Python fast path is
  played with the kernel's own uniform numbers (``uniform(key, run, j)`` for its ``j``-th
  attack), and after every command the kernel, stopped after as many commands of the same run,
  must hold the same state, number for number (conditions with their sources and rounds left,
  positions bit for bit, Turn Order, offers …). On the ambush, a start with Knocked Down,
  Vulnerable, a spent Reaction, an Initiative penalty and round-counted conditions, and the
  ambush's roster started without an ambush.
* **Exact laws**: the kernel's arrays are the laws' cumulative floats and outcome columns, and
  its draw picks the outcome ``Law.draw`` picks; ``round3`` is Python's ``round(x, 3)``.
* **Statistics**: kernel against Python fast path, win chances, round of the end, HP lost and
  falls per model.
* **Casters** (F-60): the policy's casts (Birds of Prey on several targets, Arcane Missile
  Blocked and not, the Spirit pools) are played by the kernel, same draws and same states as the
  Python path, and agree with it in law; the report of a fight with a caster has no fallback.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_simulate_agreement_strife_effects import archer, block_spell, casters, door, stun

from tableside.cli.simulate_cmds import render
from tableside.encounter.engine import copy_with
from tableside.encounter.strife.args import CONTACT
from tableside.encounter.strife.policy import ROUNDING
from tableside.encounter.strife.state import FightState
from tableside.simulate import fast_strife, simulate
from tableside.simulate import fast_strife_compiled as compiled
from tableside.simulate import fast_strife_kernel as kernel
from tableside.simulate.fast_strife import Run, choose, view
from tableside.simulate.fast_strife_kernel import round3
from tableside.simulate.fast_strife_law import Law, Outcome
from tableside.simulate.runs import COMMAND_CAP, load_start
from tableside.strife.conditions import condition
from tableside.strife.turns import ROLL_WITH_THE_BLOW_INITIATIVE

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MASK = (1 << 64) - 1


def ambush() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((EXAMPLES / "strife_ambush.json").read_text())
    return document


def _mix(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uniform(key: int, run: int, count: int) -> float:
    """``fast_kernel.uniform`` (the Strife kernel's draws) in plain Python."""
    stream = _mix(key ^ _mix(run))
    return (_mix((stream + count) & MASK) >> 11) * (1.0 / 9007199254740992.0)


def hurt_start() -> FightState:
    """Knocked Down, Vulnerable (until removed and for 2 rounds), a spent Reaction, a penalty."""
    state: FightState = load_start(ambush()).state
    aldric, troll, sera = state.models["Aldric"], state.models["Troll"], state.models["Sera"]
    knocked = condition("Knocked Down", "Cave Troll's Troll Club")
    vulnerable = condition("Vulnerable", "Cave Troll's critical miss")
    state = state.with_model(copy_with(aldric, sheet=aldric.sheet.model_copy(update={"hp": 12}),
                                       conditions=(knocked,)))  # fmt: skip
    state = state.with_model(copy_with(troll, conditions=(vulnerable,), initiative_penalty=10,
                                       position=(3.0, 1.0, 0.0)))  # fmt: skip
    state = state.with_model(copy_with(sera, conditions=(condition("Vulnerable", "a trap", 2),)))
    return copy_with(state, rounds=state.rounds.spend_reaction("Goblin-1"))


def unstarted() -> FightState:
    document = ambush()
    document["records"] = [r for r in document["records"] if r["command"]["kind"] != "start"]
    state: FightState = load_start(document).state
    return state


def replay(state: FightState, key: int, run: int, cap: int = 100) -> dict[str, int]:
    """One Python fast run on the kernel's draws, compared with the kernel after every command."""
    work, why = compiled.compiled(state)
    assert work is not None, why
    batch, roster = work.batch, work.batch.roster
    fast = Run(batch.start, roster)
    drawn = [0]

    def draw(law: Law) -> Outcome:
        drawn[0] += 1
        return law.draw(uniform(key, run, drawn[0] - 1))

    kinds: dict[str, int] = {}
    commands, played = batch.extra, 0
    while not fast.ended and fast.round <= cap and commands < COMMAND_CAP:
        choice = choose(fast, roster)
        kinds[choice[0]] = kinds.get(choice[0], 0) + 1
        batch.rules.apply(fast, choice, draw)
        commands, played = commands + 1, played + 1
        out, hp = work.play(key, run, 1, cap, limit=played)
        assert work.view() == compiled.comparable(view(fast, roster)), (run, played, choice)
        assert out[0, 3] == commands and hp[0].tolist() == fast.hp
    out, _ = work.play(key, run, 1, cap)  # no limit: the same end
    winner = -1 if fast.winner is None else work.sides.index(fast.winner)
    assert out[0].tolist() == [int(fast.ended), winner, fast.round, commands]
    return kinds


def test_f50_same_draws_same_states_on_the_ambush() -> None:
    """F-50: 12 ambush runs, every command kind of the policy, state for state."""
    kinds: dict[str, int] = {}
    for run in range(12):
        for kind, n in replay(load_start(ambush()).state, 987654321, run).items():
            kinds[kind] = kinds.get(kind, 0) + n
    assert {"next", "move", "attack", "aoo", "roll"} <= set(kinds)


def test_f50_same_draws_same_states_from_a_hurt_knocked_down_start() -> None:
    """F-50: conditions (until removed, for rounds, to the end of the next Turn), penalties."""
    for run in range(10):
        replay(hurt_start(), 31337, run)


def test_f50_same_draws_same_states_from_a_fight_not_yet_started() -> None:
    """F-50: the ambush's roster started by the engine (the ``start`` counted), state for state."""
    for run in range(6):
        replay(unstarted(), 5, run)


def test_f50_the_kernel_laws_are_the_python_laws() -> None:
    """F-50: cumulative floats, failed Parries, damage and conditions, law by law; same draws."""
    work, _ = compiled.compiled(hurt_start())
    assert work is not None
    k = work.static
    for (i, weapon, j, reaction), law in work.batch.laws.table.items():
        slot = 0 if reaction is not None or work.batch.roster.reaction[j] is None else 1
        index = int(k.law_of[i, work.weapons[i].index(weapon), j, slot])
        start, end = int(k.law_start[index]), int(k.law_start[index + 1])
        assert k.cumulative[start:end].tolist() == list(law.cumulative)
        assert bool(k.law_reacts[index]) == law.reacts
        for o, outcome in zip(range(start, end), law.outcomes, strict=True):
            assert bool(k.failed[o]) == outcome.failed_parry and k.damage[o] == outcome.damage
            puts = range(int(k.put_start[o]), int(k.put_start[o + 1]))
            inflicted = tuple(("attacker" if k.put_target[c] == 0 else "defender",
                               work.kinds.condition(int(k.put_kind[c]), int(k.put_rounds[c])))
                              for c in puts)  # fmt: skip
            assert inflicted == outcome.inflicted


def test_f50_round3_is_pythons_round() -> None:
    """F-50: positions are rounded as ``round(x, 3)``, ties and signs included."""
    rng = random.Random(15)
    values = [rng.uniform(-40, 40) for _ in range(20000)]
    values += [k / 2000 for k in range(-4000, 4001)]  # halves of 1/1000 in decimal
    values += [0.0, -0.0, 0.0005, -0.0005, 1e-12, 2.675, 1.0005, 0.1 + 0.2]
    values += [math.nextafter(v, math.inf) for v in values[-3000:]]
    mine = [round3(v) for v in values]
    assert all(a == round(v, 3) and math.copysign(1, a) == math.copysign(1, round(v, 3))
               for a, v in zip(mine, values, strict=True))  # fmt: skip


def test_f50_statistics_agree_with_the_python_fast_path() -> None:
    """F-50: 40,000 kernel runs against 6,000 Python fast runs, on two fights.

    Within 4.5 standard errors of the difference: each side's win chance, the round of the
    end, each model's chance to fall and mean HP lost. At the ambush's p ≈ 0.014 the bound on a
    win chance is about 0.007.
    """
    for state in (load_start(ambush()).state, hurt_start()):
        kernel_agrees_with_python(state)


def kernel_agrees_with_python(state: FightState) -> None:
    """40,000 kernel runs against 6,000 Python fast runs within 4.5 standard errors."""
    kernel = compiled.run_fast(state, 8, 100, 40000, 1)
    python = fast_strife.run_fast(state, 9, 100, 6000, 1)
    for side in {*kernel.wins, *python.wins}:
        assert agree(kernel.wins[side], 40000, python.wins[side], 6000), side
    assert mean_agree(kernel.clock.n, kernel.clock.total, kernel.clock.squares,
                      python.clock.n, python.clock.total, python.clock.squares)  # fmt: skip
    for who, moments in kernel.losses.items():
        assert agree(kernel.fallen[who], 40000, python.fallen[who], 6000), who
        (a,), (b,) = moments, python.losses[who]
        assert mean_agree(a.n, a.total, a.squares, b.n, b.total, b.squares), who


def agree(k1: int, n1: int, k2: int, n2: int) -> bool:
    a, b = (k1 + 1) / (n1 + 2), (k2 + 1) / (n2 + 2)
    return abs(k1 / n1 - k2 / n2) <= 4.5 * math.sqrt(a * (1 - a) / n1 + b * (1 - b) / n2)


def mean_agree(n1: int, s1: int, q1: int, n2: int, s2: int, q2: int) -> bool:
    m1, m2 = s1 / n1, s2 / n2
    v1, v2 = q1 / n1 - m1 * m1, q2 / n2 - m2 * m2
    return abs(m1 - m2) <= 4.5 * math.sqrt(v1 / n1 + v2 / n2) + 1e-9


def test_f51_the_kernel_plays_the_ambush_and_is_deterministic() -> None:
    """F-51: ``engine="fast"`` plays the ambush on the kernel; a report per seed, any workers."""
    one = simulate(ambush(), 9000, seed=3, engine="fast")
    two = simulate(ambush(), 9000, seed=3, engine="fast", workers=2)
    assert one["engine"] == "fast" and "kernel_fallback" not in one
    assert one == two
    state = load_start(ambush()).state
    played = compiled.run_fast(state, 3, one["cap"]["max"], 9000, 1)  # the kernel's own runs
    assert {side: p["count"] for side, p in one["outcome"]["wins"].items()} == played.wins
    assert abs(one["commands"]["mean"] * 9000 - played.commands.total) < 1e-6
    assert one != simulate(ambush(), 9000, seed=4, engine="fast")


def test_f60_a_model_with_powers_is_played_by_the_kernel() -> None:
    """F-60: a caster's fight is on the kernel: no fallback, the kernel's own runs reported."""
    document = casters()
    report = simulate(document, 3000, seed=1, engine="fast")
    assert report["engine"] == "fast" and "kernel_fallback" not in report
    render(report)
    state = load_start(document).state
    expected = compiled.run_fast(state, 1, report["cap"]["max"], 3000, 1)
    assert {side: p["count"] for side, p in report["outcome"]["wins"].items()} == expected.wins
    assert np.isclose(report["commands"]["mean"], expected.commands.total / 3000)


def test_f60_same_draws_same_states_with_casts_blocks_and_pools() -> None:
    """F-60: casters, state for state: casts on one and on three targets, Blocks, pools spent."""
    kinds: dict[str, int] = {}
    for document, runs in ((casters(), 8), (block_spell(), 8)):
        for run in range(runs):
            for kind, n in replay(load_start(document).state, 4242, run).items():
                kinds[kind] = kinds.get(kind, 0) + n
    assert {"next", "move", "attack", "aoo", "roll", "cast"} <= set(kinds)


def test_f60_the_kernel_cast_laws_are_the_python_cast_laws() -> None:
    """F-60: every (power, target, Block) of a caster fight points at its cast law's arrays."""
    for document in (casters(), block_spell()):
        work, _ = compiled.compiled(load_start(document).state)
        assert work is not None
        k, roster = work.static, work.batch.roster
        firsts = np.cumsum([0, *map(len, roster.powers)])
        assert k.power_start.tolist() == firsts.tolist()
        for (i, p, j, block), law in work.batch.laws.casts.items():
            index = int(k.cast_of[firsts[i] + p, j, int(block)])
            start, end = int(k.law_start[index]), int(k.law_start[index + 1])
            assert k.cumulative[start:end].tolist() == list(law.cumulative)
            assert bool(k.law_reacts[index]) == law.reacts == block
            assert k.damage[start:end].tolist() == [o.damage for o in law.outcomes]


def test_f60_caster_statistics_agree_with_the_python_fast_path() -> None:
    """F-60: 40,000 kernel runs against 6,000 Python fast runs of each caster fight (4.5 s.e.)."""
    for document in (casters(), block_spell()):
        state = load_start(document).state
        kernel_agrees_with_python(state)


def test_f50_the_kernel_constants_are_the_engine_constants() -> None:
    """F-50: base contact, the policy's rounding margin and the Roll-with-the-Blow penalty."""
    assert kernel.CONTACT == CONTACT and kernel.ROUNDING == ROUNDING
    assert kernel.PENALTY == ROLL_WITH_THE_BLOW_INITIATIVE


def test_f50_a_fight_the_kernel_cannot_hold_is_played_by_the_python_fast_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """F-50: past the kernel's bit sets the Python fast path plays, and the report says why."""
    monkeypatch.setattr(compiled, "BITS", 2)
    monkeypatch.setattr(compiled, "_KNOWN", {})
    report = simulate(casters(), 50, seed=1, engine="fast")
    assert report["engine"] == "fast"
    assert report["kernel_fallback"] == "more than 2 models or weapons"
    render(report)
    assert "engine fast (its Python path, not the compiled kernel: more than 2 models" in " ".join(
        capsys.readouterr().out.split()
    )


def test_f62_same_draws_same_states_with_a_ranged_first_weapon() -> None:
    """F-62: *archer* on the kernel, state for state: moves toward another, shots by inches."""
    state = load_start(archer()).state
    work, why = compiled.compiled(state)
    assert work is not None, why
    for (i, weapon, j, inches), law in work.batch.laws.shots.items():
        index = int(work.static.shot_of[i, work.weapons[i].index(weapon), j, inches, 0])
        start, end = int(work.static.law_start[index]), int(work.static.law_start[index + 1])
        assert work.static.cumulative[start:end].tolist() == list(law.cumulative)
    kinds: dict[str, int] = {}
    for run in range(10):
        for kind, n in replay(state, 77, run).items():
            kinds[kind] = kinds.get(kind, 0) + n
    assert {"aoo", "move", "attack", "next"} <= set(kinds)


def test_f63_same_draws_same_states_with_stun() -> None:
    """F-63: *stun* on the kernel, state for state: Stun put on, ticked and ended as tracked."""
    for run in range(10):
        replay(load_start(stun()).state, 99, run)


def test_f64_same_draws_same_states_with_absorption() -> None:
    """F-64: *door* on the kernel, state for state: each hit absorbed by the door's HP."""
    for run in range(8):
        replay(load_start(door()).state, 5, run)
