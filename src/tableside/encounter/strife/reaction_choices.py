"""The defender's Reaction as a choice (D-7, S-4, S-10 … S-13).

One ``reaction`` choice per attack of an Action, owned by its defender, with every Reaction the
defender may legally take now, each option with its exact odds and the best one suggested.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from tableside.dice import Rng
from tableside.dice.laws import probability
from tableside.encounter.decisions import Choice, put
from tableside.encounter.log import JSON, Command
from tableside.encounter.strife.args import AttackArgs, AttackItem
from tableside.encounter.strife.attack import attack_setup
from tableside.encounter.strife.laws import weigh
from tableside.encounter.strife.reactions import declare_reaction
from tableside.encounter.strife.rehearsal import passes
from tableside.encounter.strife.state import FightState, Model
from tableside.encounter.strife.turns import FightRules, Pending
from tableside.errors import TablesideError
from tableside.strife.attack import AttackSetup
from tableside.strife.loadout import loadout

REACTIONS = ("block", "parry", "combined_parry", "block_and_parry", "ward_off")
"""The Reactions an attack's defender may declare, in the order they are offered."""


NO_REACTION = "No Reaction"


REACTION_NAMES = {
    "block": "Block",
    "parry": "Parry",
    "combined_parry": "Combined Parry",
    "block_and_parry": "Block and Parry",
    "ward_off": "Ward-off",
}


@dataclass(frozen=True, slots=True)
class ReactionOption:
    """One Reaction on offer, with its label and the attack's exact odds with it."""

    value: str | None
    label: str
    odds: JSON
    damage: Fraction  # P(the attack deals damage)
    mean: Fraction  # the damage dealt on average

    def to_json(self) -> JSON:
        """The option as the choice lists it."""
        return {"value": self.value, "label": self.label, "odds": self.odds}

    @property
    def rank(self) -> tuple[Fraction, Fraction, bool]:
        """Best for the defender first: least chance of damage, least damage, no Reaction."""
        return (self.damage, self.mean, self.value is not None)


def reaction_choices(
    game: FightRules, state: FightState, command: Command, args: AttackArgs, rng: Rng
) -> list[Choice]:
    """One ``reaction`` choice per attack whose defender has a Reaction to declare (D-7).

    The round's one Reaction (S-4) is declared for at most one attack on a defender: once an
    earlier attack on it carries a Reaction, the later ones offer none; while an earlier one is
    still to be answered, the later ones wait (they are listed once it is answered). An attack
    whose defender may take no Reaction at all offers nothing to choose and is not listed. A
    Reaction already in the arguments is listed as given (its owner's policy judges it).
    """
    attacker = state.models[args.attacker]
    raw_items = command.args.get("attacks") or ()
    waiting: set[str] = set()
    committed: set[str] = set()
    found: list[Choice] = []
    for index, item in enumerate(args.attacks):
        defender = state.models.get(item.defender)
        given = isinstance(raw_items[index], Mapping) and "reaction" in raw_items[index]
        skip = not given and (item.defender in waiting or item.defender in committed)
        if item.reaction is not None:
            committed.add(item.defender)
        if defender is None or defender.down or skip:
            continue
        # a Reaction in the arguments is judged by who set it, never asked: its options (each
        # an exact law and a dry run) are not computed (issue 21: an attack stays cheap)
        options = [] if given else reaction_options(game, state, command, attacker, index,
                                                    item, rng)  # fmt: skip
        if len(options) < 2 and not given:
            continue
        if not given:
            waiting.add(item.defender)
        which = f" (attack {index + 1} of {len(args.attacks)})" if len(args.attacks) > 1 else ""
        found.append(
            reaction_choice(game, attacker, defender, (index, which), item, options, given)
        )
    return found


def reaction_choice(
    game: FightRules,
    attacker: Model,
    defender: Model,
    at: tuple[int, str],
    item: AttackItem,
    options: list[ReactionOption],
    given: bool,
) -> Choice:
    """The defender's Reaction to one attack, the option best for it suggested.

    ``at``: the attack's index in the Action and its place in words (`` (attack 2 of 3)``).
    """
    index, which = at
    best = min(options, key=lambda o: o.rank) if options else None
    weapon = "Shield Blow" if item.shield_blow else item.weapon or game_weapon(game, attacker)
    article = "an" if weapon[:1].lower() in "aeiou" else "a"
    return Choice(
        kind="reaction",
        combatant=defender.id,
        path=("attacks", index, "reaction"),
        options=tuple(o.to_json() for o in options),
        suggested=None if best is None else best.value,
        given=given,
        prompt=f"{attacker.id} attacks {defender.id} with {article} {weapon}{which}: "
        f"how does {defender.id} react?",
        key=f"reaction.{index}",
        info={"title": f"{defender.id}'s Reaction", "details": {"rules": ["D-7", "S-4"]}},
    )


def game_weapon(game: FightRules, attacker: Model) -> str:
    """The attacker's first equipped weapon (what an attack without ``weapon`` uses)."""
    weapons = loadout(game.catalog, attacker.sheet).weapons
    return weapons[0].name if weapons else "no weapon"


def reaction_options(
    game: FightRules,
    state: FightState,
    command: Command,
    attacker: Model,
    index: int,
    item: AttackItem,
    rng: Rng,
) -> list[ReactionOption]:
    """No Reaction and every Reaction the defender may legally take against attack ``index``.

    Legal: the engine builds the attack with it (equipment, training, the round's Reaction
    unused, a Block against a ranged attack, Ward-off Reach: ``attack_setup`` and
    ``attack_odds``' own checks) and the whole Action is decided with it on a throwaway copy of
    its dice (no earlier attack of the Action spent that Reaction).
    """
    found = []
    for value, setup in reaction_setups(game, state, attacker, item):
        if setup is None:
            continue
        try:
            weighed = weigh(setup)
        except TablesideError:
            continue
        tried = put(command.args, ("attacks", index, "reaction"), value)
        if (
            value is not None
            and needs_dry_run(command)
            and not passes(game, state, Command("attack", tried), rng)
        ):
            continue
        reaction = setup.reaction
        label = (
            NO_REACTION
            if reaction is None
            else f"{REACTION_NAMES[value or '']} with {' and '.join(reaction.items)}"
        )
        law, dealt = weighed.law, weighed.dealt
        odds = {
            "hit": probability(law.hits),
            "damage": probability(dealt),
            "defeat": probability(law.defeat),
            "mean_damage": float(weighed.mean),
        }
        found.append(ReactionOption(value, label, odds, dealt, weighed.mean))
    return found


LAZY_SETUPS = True
"""Whether :func:`reaction_setups` builds the attack once and declares each Reaction on it
(tests turn it off to compare with a whole setup per Reaction)."""


def reaction_setups(
    game: FightRules, state: FightState, attacker: Model, item: AttackItem
) -> Iterator[tuple[str | None, AttackSetup | None]]:
    """No Reaction and each Reaction with the attack's setup, None where it is refused.

    :func:`attack_setup` differs between Reactions only in the one it declares: the attack
    without one is built once, and each Reaction declared on it (issue 21, item 8: an
    automatic NPC's Reaction built six setups). Where that cannot stand (no attack without a
    Reaction, or Combined Damage, built after the Reaction), each is built whole (checked equal
    in ``tests/test_strife_rehearsal.py``).
    """
    p = Pending(state)
    base: AttackSetup | None = None
    if LAZY_SETUPS and not item.combined_damage:
        try:
            base = attack_setup(game, p, attacker, item.model_copy(update={"reaction": None}))
        except TablesideError:
            base = None
    defender = state.models.get(item.defender)
    for value in (None, *REACTIONS):
        try:
            if base is None or defender is None:
                candidate = item.model_copy(update={"reaction": value})
                yield value, attack_setup(game, Pending(state), attacker, candidate)
            elif value is None:
                yield value, base
            else:  # reads the item's improvised fields, not its Reaction: no copy per Reaction
                reaction = declare_reaction(game, p, defender, value, item)
                yield value, replace(base, reaction=reaction)
        except TablesideError:
            yield value, None


def needs_dry_run(command: Command) -> bool:
    """Whether a Reaction that builds and weighs may still be refused by the whole Action.

    An Action of one attack, with no triggered Reactions (SA-96), no combined power and no
    crushing injury, was just decided on a copy of its dice with the Reaction as given
    (:func:`attack_choices`); another Reaction changes only that attack's setup, which
    :func:`attack_setup` and :func:`weigh` have built and checked (the round's Reaction,
    the equipment, a Block or a Ward-off against this weapon). No dry run per Reaction is
    needed then (issue 21, item 8: checked equal to the dry runs in
    ``tests/test_strife_reaction_fast.py``).
    """
    attacks = command.args.get("attacks")
    if command.args.get("reactions") or not isinstance(attacks, list) or len(attacks) != 1:
        return True
    item = attacks[0]
    return not isinstance(item, Mapping) or any(
        item.get(key) is not None for key in ("power", "crushing_injury")
    )
