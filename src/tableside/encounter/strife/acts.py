"""Acts besides attacks and casts in a Realm of Strife fight (issue 14, item 15).

- ``act``: a Full Action or a Role-play Action (the Turn's Action, SA-80), a Quick Action or a
  Role-play Instant (the Turn's Instant, SA-81), with the stat test or (Role-play Action) the
  stat roll-off the Host asks for.
- ``react``: a Skill/Casting, Role-play or other Reaction declared out of turn, spending the
  round's one Reaction (S-4), with a stat test where the Host asks for one (SA-82, SA-83).

Climbing and swimming tests on a ``move`` and the Sprint streak (SA-84 … SA-87) are in
:mod:`tableside.encounter.strife.climbing`.

The handlers take the fight's :class:`~tableside.encounter.strife.turns.Pending` copy and raise
:class:`~tableside.errors.RulesError` to refuse (nothing is written then).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from tableside.dice import Rng
from tableside.encounter.decisions import Choice, approval
from tableside.encounter.strife.state import FightState, Model
from tableside.encounter.strife.turns import FightRules, Pending, use_element
from tableside.encounter.war.args import ID, Args, parse_args
from tableside.errors import RulesError
from tableside.limits import MODIFIER_MAX, FreeText, Name
from tableside.strife.catalog import Reaction, Stat
from tableside.strife.checks import Contestant, StatTest, roll_off, stat_test
from tableside.strife.records import Part
from tableside.strife.report import roll_off_dict, stat_test_dict
from tableside.strife.turns import TurnElement

Advantage = Annotated[int, Field(ge=-MODIFIER_MAX, le=MODIFIER_MAX)]


ActKind = Literal["full", "roleplay", "quick", "roleplay_instant"]


ReactKind = Literal["skill", "roleplay", "other"]


ACT_NAMES = {
    "full": "Full Action",
    "roleplay": "Role-play Action",
    "quick": "Quick Action",
    "roleplay_instant": "Role-play Instant",
}


REACT_NAMES = {"skill": "Skill Reaction", "roleplay": "Role-play Reaction", "other": "Reaction"}


INSTANT_ACTS = ("quick", "roleplay_instant")


ADVANTAGE_DEFAULTS = {"advantage": 0, "against_advantage": 0}
"""The Host's modifiers of an act's or a reaction's test and their values unset (D-4)."""


class ActArgs(Args):
    """act: a Full or Role-play Action (the Action, SA-80) or a Quick Action / Role-play Instant.

    ``test`` is the stat of the stat test the Host asks for (S-1); a Role-play Action may
    instead be a stat roll-off ``against`` another model (S-2), with ``against_stat`` (the same
    stat unless named).
    """

    id: str = ID
    kind: ActKind
    name: Name
    test: Stat | None = None
    advantage: Advantage = 0
    against: Annotated[str, ID] | None = None
    against_stat: Stat | None = None
    against_advantage: Advantage = 0


class ReactArgs(Args):
    """react: a Skill/Casting, Role-play or other Reaction, out of turn (S-4, SA-82, SA-83)."""

    id: str = ID
    kind: ReactKind
    name: Name
    trigger: FreeText | None = None
    test: Stat | None = None
    advantage: Advantage = 0


def do_act(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Full or Role-play Action (ends the Turn) or a Quick Action / Role-play Instant (S-5).

    None of them is an attack, so the 4-3-2 rule (S-17) does not count it; a Full Action never
    has an off-hand attack with it (SA-80).
    """
    args = parse_args(ActArgs, raw, "act")
    m = p.model(args.id)
    what = ACT_NAMES[args.kind]
    opponent = act_opponent(p, m, args, what)
    check_advantage(args.test is not None or opponent is not None, args.advantage, what)
    if opponent is None and args.against_advantage:
        raise RulesError(f"An against_advantage needs a roll-off against a model ({what}).")
    if p.state.current != m.id and args.kind in INSTANT_ACTS:
        raise RulesError(
            f"A {what} is {m.id}'s Instant on its own Turn; out of turn, use a Reaction (react) "
            "or an out-of-turn instant (S-4, SA-81)."
        )
    instant = args.kind in INSTANT_ACTS
    use_element(p, m.id, TurnElement.INSTANT if instant else TurnElement.ACTION)
    rule = "SA-81" if instant else "SA-80"
    p.emit("note", rule, id=m.id, text=f"{what}: {args.name}", act=args.kind)
    if opponent is not None:
        contest(game, p, m, opponent, args, rng)
    elif args.test is not None:
        run_test(p, m, args.test, args.advantage, f"{what}: {args.name}", rng, rule)


def act_opponent(p: Pending, m: Model, args: ActArgs, what: str) -> Model | None:
    """The model a Role-play Action's roll-off is against, checked (S-2, SA-80)."""
    if args.against is None:
        if args.against_stat is not None:
            raise RulesError(f"against_stat needs a model to roll off against ({what}).")
        return None
    if args.kind != "roleplay":
        raise RulesError(
            f"Only a Role-play Action may be a stat roll-off against a foe, not a {what} (SA-80)."
        )
    if args.test is None:
        raise RulesError(f"A roll-off against {args.against} needs the stat to test (test).")
    opponent = p.model(args.against)
    if opponent.id == m.id:
        raise RulesError(f"{m.id} cannot roll off against itself.")
    if opponent.down:
        raise RulesError(f"{opponent.id} is out of the fight (0 HP) and rolls off no more.")
    return opponent


def check_advantage(tested: bool, advantage: int, what: str) -> None:
    """An advantage belongs to a test: refused without one."""
    if advantage and not tested:
        raise RulesError(f"An advantage of {advantage} needs a stat test (test) for the {what}.")


def contest(
    game: FightRules, p: Pending, m: Model, opponent: Model, args: ActArgs, rng: Rng
) -> None:
    """A Role-play Action's stat roll-off: the acting model wins ties (S-2, S-20, SA-80)."""
    assert args.test is not None
    theirs = args.against_stat or args.test
    acting = Contestant(m.id, Part(args.test.value, m.sheet.stat(args.test)),
                        advantage_parts(args.advantage), m.sheet.size)  # fmt: skip
    opposing = Contestant(opponent.id, Part(theirs.value, opponent.sheet.stat(theirs)),
                          advantage_parts(args.against_advantage), opponent.sheet.size)  # fmt: skip
    result = roll_off(rng, acting, opposing, game.ruleset)
    p.emit("test_resolved", "S-2", id=m.id, target=opponent.id,
           purpose=f"{ACT_NAMES[args.kind]}: {args.name}", winner=result.winner.value,
           success=result.winner.value == "acting",
           result=roll_off_dict(result) if p.describe else None)  # fmt: skip


def advantage_parts(advantage: int) -> tuple[Part, ...]:
    """The Host's advantage (positive) or disadvantage (negative) as a labelled part (S-1)."""
    if not advantage:
        return ()
    return (Part("advantage" if advantage > 0 else "disadvantage", advantage),)


def run_test(
    p: Pending, m: Model, stat: Stat, advantage: int, purpose: str, rng: Rng, rule: str
) -> StatTest:
    """Roll a stat test (S-1) and record it as a ``test_resolved`` event."""
    test = stat_test(rng, Part(stat.value, m.sheet.stat(stat)), advantage_parts(advantage))
    p.emit("test_resolved", rule, id=m.id, purpose=purpose, success=test.success,
           result=stat_test_dict(test) if p.describe else None)  # fmt: skip
    return test


def do_react(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Reaction declared out of turn: it spends the round's one Reaction (S-4, SA-82, SA-83).

    A Reaction "always takes place during someone else's turn", so it is refused on the model's
    own Turn; its effects beyond the test are the Host's (S-23).
    """
    args = parse_args(ReactArgs, raw, "react")
    m = p.model(args.id)
    what = REACT_NAMES[args.kind]
    check_advantage(args.test is not None, args.advantage, what)
    if p.state.round < 0:
        raise RulesError(f"A {what} is declared during the fight; it has not started yet.")
    if p.state.ended:
        raise RulesError("The fight has ended.")
    if m.down:
        raise RulesError(f"{m.id} is out of the fight (0 HP) and cannot react.")
    if p.state.current == m.id:
        raise RulesError(
            f"A Reaction takes place during someone else's Turn, not during {m.id}'s own (S-4)."
        )
    if not p.state.rounds.can_react(m.id):
        raise RulesError(f"{m.id} has already used its Reaction this round (S-4).")
    spend_reaction(p, m, Reaction(name=args.name, kind=args.kind, trigger="attacked",
                                  test=args.test), args.trigger, args.advantage, rng)  # fmt: skip


def spend_reaction(
    p: Pending, m: Model, reaction: Reaction, trigger: str | None, advantage: int, rng: Rng
) -> None:
    """Spend ``m``'s Reaction on ``reaction``: its events and its stat test (SA-82, SA-83)."""
    rule = "SA-82" if reaction.kind == "skill" else "SA-83"
    reason = f"{REACT_NAMES[reaction.kind]}: {reaction.name}"
    p.emit("reaction_spent", "S-4", id=m.id, failed_parry=False, reason=reason)
    said = {} if trigger is None else {"trigger": trigger}
    p.emit("note", rule, id=m.id, text=reason, reaction=reaction.kind, **said)
    if reaction.test is not None:
        run_test(p, m, reaction.test, advantage, reason, rng, rule)


def triggered(
    state: FightState, actor: str, defenders: Sequence[str], casting: bool
) -> dict[str, tuple[Reaction, ...]]:
    """Each model's Reactions that ``actor``'s attack on ``defenders`` (or cast) sets off (SA-96).

    Being attacked (a defender), a foe attacking (anyone of another side than the attacker's),
    a foe casting (another side than the caster's). Only a model that may react now: standing,
    not the actor, not on its own Turn, its round's Reaction unused (S-4).
    """
    me = state.models.get(actor)
    found: dict[str, tuple[Reaction, ...]] = {}
    for m in state.models.values():
        known = m.sheet.reactions_known()
        if not known or me is None or m.id == actor or m.down or m.id == state.current:
            continue
        if not state.rounds.can_react(m.id) or state.ended:
            continue
        foe = m.side != me.side
        sets_off = {"foe_casts"} if casting and foe else set()
        if not casting:
            sets_off |= ({"attacked"} if m.id in defenders else set()) | (
                {"foe_attacks"} if foe else set())  # fmt: skip
        mine = tuple(r for r in known if r.trigger in sets_off)
        if mine:
            found[m.id] = mine
    return found


def take_reactions(
    p: Pending,
    actor: str,
    defenders: Sequence[str],
    casting: bool,
    chosen: Mapping[str, Any],
    rng: Rng,
) -> None:
    """Spend the Reactions answered for this command's triggers, before any die (SA-96).

    A name that is not one of the model's Reactions this command sets off is refused.
    """
    offers = triggered(p.state, actor, defenders, casting)
    for model, name in chosen.items():
        if name is None:
            continue
        mine = {r.name: r for r in offers.get(model, ())}
        if name not in mine:
            what = "cast" if casting else "attack"
            raise RulesError(f"{model} has no Reaction {name!r} that this {what} sets off (SA-96).")
        spend_reaction(p, p.model(model), mine[name], mine[name].when, 0, rng)


def triggered_choices(
    state: FightState, actor: str, defenders: Sequence[str], casting: bool, given: Mapping[str, Any]
) -> list[Choice]:
    """One choice per model whose Reactions this command sets off: one of them, or none (SA-96).

    "No reaction" is always an option and the suggestion, so nobody is ever stuck; each gates
    the Block and Parry asked after it (the round has one Reaction).
    """
    words = "casts a power" if casting else "attacks"
    found = []
    for model, mine in triggered(state, actor, defenders, casting).items():
        options = [{"value": r.name, "label": f"{r.name} ({REACT_NAMES[r.kind]}, {r.when})"}
                   for r in mine]  # fmt: skip
        found.append(Choice(
            kind="skill_reaction", combatant=model, path=("reactions", model),
            options=(*options, {"value": None, "label": "No reaction"}), suggested=None,
            given=model in given, gate=True, key=f"skill_reaction.{model}",
            prompt=f"{actor} {words}: does {model} take a Reaction?",
            info={"title": f"{model}'s Reaction", "details": {"rules": ["SA-96", "S-4"]}},
        ))  # fmt: skip
    return found


def act_choices(command_kind: str, args: dict[str, Any]) -> list[Choice]:
    """The Host's approval of an act's or a reaction's advantages (D-4, SA-80, SA-82)."""
    who = args.get("id")
    what = f"{who}'s {command_kind} {args.get('name')}"
    proposal = approval(who if isinstance(who, str) else None, args, ADVANTAGE_DEFAULTS, what)
    return [] if proposal is None else [proposal]
