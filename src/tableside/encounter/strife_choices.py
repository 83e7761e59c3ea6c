"""The choices a Realm of Strife command involves, each made by its owner (issue 11).

:func:`strife_choices` is what :meth:`StrifeFight.choices` returns to the encounter engine:

- **The defender's Reaction** (D-7, S-4, S-10 … S-13): one ``reaction`` choice per attack of an
  Action, owned by its defender, with every Reaction the defender may legally take now (the
  engine's own checks and a dry run of the Action with it), each option with its exact odds
  (``strife.odds.attack_odds``), and the option best for the defender suggested. Several
  attacks on one defender: the one Reaction of the round is declared for at most one of them,
  asked attack by attack in the Action's order.
- **Host-only modifiers** (D-4): an attack's raw ``modifiers`` or a weapon named by a model that
  holds none (SA-45); a cast's ``spell_power``, ``damage`` and unresisted targets. Any of them
  makes one ``approve`` choice for the Host.
- **An act's or a reaction's advantage** (D-4, SA-80, SA-82): the test's ``advantage`` (and a
  Role-play roll-off's ``against_advantage``) are the Host's, approved like the modifiers above.
- **Staged physical dice** (D-6): with ``physical`` rollers, the next stage of dice whose
  faces are still missing, for its roller to enter (see :mod:`tableside.encounter.strife_dice`).

A command the rules refuse lists no choices: it is refused at once (a dry run), so nobody is
asked about a command that could never be decided.
"""

from __future__ import annotations

import copy
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from tableside.dice import Rng, SeededRng
from tableside.dice.laws import probability
from tableside.encounter.decisions import APPROVE, APPROVED, REJECTED, Choice, approval, put
from tableside.encounter.log import JSON, Command
from tableside.encounter.strife_acts import act_choices, triggered_choices
from tableside.encounter.strife_dice import (
    PHYSICAL_ARGS,
    AttackStages,
    DiceNeededError,
    Entered,
    StageDice,
    stage_key,
)
from tableside.encounter.strife_fight import (
    AttackArgs,
    AttackItem,
    CastArgs,
    Pending,
    StrifeFight,
    aoo_key,
    attack_setup,
    declare_reaction,
    physical_dice,
    rehearse,
)
from tableside.encounter.strife_state import FightState, Model
from tableside.encounter.war.args import parse_args
from tableside.errors import RulesError, TablesideError
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import Combatant, PowerTargets
from tableside.strife.loadout import loadout
from tableside.strife.odds import attack_odds
from tableside.strife.odds_law import AttackOdds

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
CAST_DEFAULTS: Mapping[str, Any] = {"spell_power": 0, "damage": None, "resists": True}
"""A cast's Host-only modifiers and their values when nobody sets them (D-4)."""


LAWS_KEPT = 256
"""Exact attack laws kept (:func:`exact_law`): a few Actions' worth of Reactions."""
_laws: OrderedDict[tuple[Hashable, ...], Weighed] = OrderedDict()
_laws_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Weighed:
    """An attack's exact law and the figures a Reaction's option shows (exact fractions)."""

    law: AttackOdds
    dealt: Fraction  # P(damage > 0)
    mean: Fraction  # damage on average


def exact_law(setup: AttackSetup) -> AttackOdds:
    """``attack_odds(setup)``, kept (:func:`weigh`)."""
    return weigh(setup).law


def weigh(setup: AttackSetup) -> Weighed:
    """``attack_odds(setup)``, kept for the next attack whose law is the same.

    The law follows the setup (both sheets, the weapon, the circumstances, the Reaction and the
    ruleset). Current HP feeds it only through P(defeat) and, for a defender that absorbs
    damage (an object, S-21), the HP its Absorption is taken from: so the key is the setup's
    pickled bytes with both models' HP set aside (:func:`law_key`), and a kept law is fitted to
    the defender's HP now (:func:`at_hp`). An automatic NPC's Reaction weighs every legal
    Reaction of each attack, about 1 ms each (issue 21, item 8); the next attack on the same
    foe, its HP lowered, reuses them (checked equal to ``attack_odds`` in
    ``tests/test_strife_reaction_fast.py``).
    """
    key = law_key(setup)
    with _laws_lock:
        found = _laws.get(key)
        if found is not None:
            _laws.move_to_end(key)
    if found is not None:
        return at_hp(found, setup)
    law = attack_odds(setup)
    weighed = Weighed(law, 1 - law.damage.p(0), law.damage.mean)
    with _laws_lock:
        _laws[key] = weighed
        while len(_laws) > LAWS_KEPT:
            _laws.popitem(last=False)
    return weighed


SETUP_FIELDS = tuple(f.name for f in fields(AttackSetup))
HP_FIELDS = frozenset({"hp", "hp_max"})


def law_key(setup: AttackSetup) -> tuple[Hashable, ...]:
    """What fixes an attack's law but for P(defeat): HP set aside unless absorbed.

    Each part of the setup as its pickled bytes (a plain value as it is), a sheet field by
    field without its HP (:func:`sheet_key`). The parts are immutable and kept by object
    (:func:`kept_bytes`): the Reactions of one attack, the next attack by the same models, and
    a sheet whose HP alone changed (a copy that shares its other fields) pickle nothing again
    (issue 21, item 8; equal keys exactly when the setups pickled whole, HP aside, are equal:
    ``tests/test_strife_law_key.py``).
    """
    if not LAW_PARTS or setup.defender.absorption != 0 or setup.defender.hp < 1:
        return (pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL),)
    found: list[Hashable] = []
    for name in SETUP_FIELDS:
        part = getattr(setup, name)
        if isinstance(part, Combatant):
            found.append(sheet_key(part))
        elif name in KEPT_PARTS:
            found.append(kept_bytes(part))
        elif isinstance(part, PLAIN) or part == ():
            found.append(part)
        else:
            found.append(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    return tuple(found)


KEPT_PARTS = frozenset({"weapon", "ruleset"})
"""The parts of a setup whose bytes are kept by object (the others are small and made anew)."""
LAW_PARTS = True
"""Whether :func:`law_key` keys a law by its parts (tests turn it off to compare with the setup
pickled whole)."""
PARTS_KEPT = 256
_parts: OrderedDict[int, tuple[object, Hashable]] = OrderedDict()
PLAIN = (str, int, bool, type(None), Enum)
"""Field values that stand in a key as they are: hashable, and a validated field holds one
type (so `True` and `1`, or an enum member and its value, never meet in one field)."""


def sheet_key(sheet: Combatant) -> Hashable:
    """A sheet's fields but ``hp`` and ``hp_max``: plain values as they are, others pickled."""
    return kept(sheet, lambda: tuple(
        (k, v if isinstance(v, PLAIN) else kept_bytes(v))
        for k, v in vars(sheet).items() if k not in HP_FIELDS
    ))  # fmt: skip


def kept_bytes(part: object) -> Hashable:
    """``part`` pickled, kept by the object itself."""
    return kept(part, lambda: pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))


def kept(part: object, make: Callable[[], Hashable]) -> Hashable:
    """``make()``, kept by the object ``part`` (immutable) while it is among the last used.

    The object is held with what was made, so its ``id`` names no other object while kept.
    """
    key = id(part)
    with _laws_lock:
        found = _parts.get(key)
        if found is not None and found[0] is part:
            _parts.move_to_end(key)
            return found[1]
    made = make()
    with _laws_lock:
        _parts[key] = (part, made)
        while len(_parts) > PARTS_KEPT:
            _parts.popitem(last=False)
    return made


def at_hp(kept: Weighed, setup: AttackSetup) -> Weighed:
    """A kept law of the same attack, for ``setup`` (its sheets, its defender's HP now)."""
    if kept.law.setup == setup:  # the very attack again: the kept law itself
        return kept
    hp = setup.defender.hp
    law = replace(kept.law, setup=setup, hp=hp, defeat=kept.law.damage.at_least(hp))
    return Weighed(law, kept.dealt, kept.mean)


def strife_choices(
    game: StrifeFight, state: FightState, command: Command, rng: Rng
) -> list[Choice]:
    """The choices ``command`` involves now, in the order they are asked (D-4, D-6, D-7).

    Args:
        game: The fight's rules (catalogue, ruleset).
        state: The fight now.
        command: The command, with the answers so far merged into its arguments.
        rng: A throwaway copy of the command's own dice stream.

    Raises:
        TablesideError: The command is refused by the rules (nothing is asked about it).
    """
    if command.kind == "attack":
        return attack_choices(game, state, command, rng)
    if command.kind == "cast":
        return cast_choices(game, state, command, rng)
    if command.kind == "move":
        return aoo_choices(game, state, command, rng)
    if command.kind in ("act", "react"):
        proposal = act_choices(command.kind, command.args)
        if proposal:
            dry_run(game, state, command, rng)
        return proposal
    return []


# --- Attacks of Opportunity (S-18, D-14) --------------------------------------------------------


def aoo_choices(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> list[Choice]:
    """Whether to take each Attack of Opportunity the move offers, for the attacker's owner.

    The move is decided on a throwaway copy without answers to see what it offers; each offer
    shows the chance its free attack hits (no Reaction: the mover's was not asked), and the
    suggestion is to take it when it can hit and the attacker's Reaction is still unused.
    """
    answers = command.args.get("aoo") or {}
    bare = Command("move", {k: v for k, v in command.args.items() if k != "aoo"})
    moved = game.pending(state, bare, throwaway(rng), describe=False)
    mover = str(command.args.get("id"))
    offers = [o for o in moved.state.offers if o.target == mover]
    return [
        aoo_choice(game, moved.state, o, mover, aoo_key(o.attacker, o.weapon) in answers)
        for o in offers
    ]


def aoo_choice(game: StrifeFight, state: FightState, offer: Any, mover: str, given: bool) -> Choice:
    """One offer: take it (with the chance it hits) or let it go (D-14)."""
    item = AttackItem(defender=mover, weapon=offer.weapon)
    attacker = state.models[offer.attacker]
    try:
        law = exact_law(attack_setup(game, Pending(state), attacker, item, free_attack=True))
        hit: JSON | None = probability(law.hits)
        can_hit = law.hits > 0
    except TablesideError:
        hit, can_hit = None, False
    may_react = offer.attacker in state.aoo.used or state.rounds.can_react(offer.attacker)
    words = f"{offer.attacker} attacks {mover} with {offer.weapon}"
    return Choice(
        kind="aoo",
        combatant=offer.attacker,
        path=("aoo", aoo_key(offer.attacker, offer.weapon)),
        options=(
            {"value": True, "label": f"Take it: {words}", "odds": {"hit": hit}},
            {"value": False, "label": "Let it go", "odds": None},
        ),
        suggested=can_hit and may_react,
        given=given,
        prompt=f"{mover} leaves base contact with {offer.attacker}: take the Attack of "
        f"Opportunity with {offer.weapon}?",
        key=f"aoo.{aoo_key(offer.attacker, offer.weapon)}",
        info={
            "title": f"{offer.attacker}'s Attack of Opportunity",
            "details": {"rules": ["S-18", "D-14"]},
        },
    )


# --- dry runs ---------------------------------------------------------------------------------


def throwaway(rng: Rng) -> Rng:
    """A fresh copy of the command's seeded stream (typed dice: any stream will do).

    A stream not yet drawn from is made anew from its seed and number (a deep copy costs more).
    """
    if isinstance(rng, SeededRng):
        if rng._generator is None:
            copied = SeededRng(rng.seed)
            copied._stream = rng._stream
            return copied
        return copy.deepcopy(rng)
    return SeededRng.stream(0, 0)


def streamed(command: Command) -> Command:
    """The command with every die from the stream: no typed or physical dice (a dry run)."""
    args = {k: v for k, v in command.args.items() if k not in PHYSICAL_ARGS}
    return Command(command.kind, args)


def dry_run(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> None:
    """Decide ``command`` on a throwaway copy (raise what the rules refuse)."""
    game.pending(state, streamed(command), throwaway(rng), describe=False)


def passes(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> bool:
    """Whether the rules accept ``command`` now."""
    try:
        dry_run(game, state, command, rng)
    except TablesideError:
        return False
    return True


# --- the attack -------------------------------------------------------------------------------


def attack_choices(
    game: StrifeFight, state: FightState, command: Command, rng: Rng, ahead: bool = True
) -> list[Choice]:
    """An attack's Host approval, its defenders' Reactions, then its next stage of dice.

    The Action is decided first on a copy of its dice (what the rules refuse is raised). For a
    plain attack (no physical dice, no dry run per Reaction, :func:`needs_dry_run`) and with
    ``ahead``, it is decided once its choices are listed instead, with the suggested Reactions
    put in, and kept (:func:`rehearse`): the command an NPC's automatic Reaction makes is decided
    once, not twice (issue 21, item 8). Such a rehearsal refused, the Action as given is
    decided: its refusal, if any, is the one raised. ``ahead=False``: always first (checked
    equal in ``tests/test_strife_rehearsal.py``).
    """
    args = parse_args(AttackArgs, command.args, "attack")
    physical_dice(args, rng)
    plain = streamed(command) == command
    if not (ahead and plain and not args.physical and not needs_dry_run(command)):
        if plain:  # the very command: its real decide reuses the events
            rehearse(game, state, command, throwaway(rng))
        else:
            dry_run(game, state, command, rng)
        return listed_attack_choices(game, state, command, args, rng)
    try:
        found = listed_attack_choices(game, state, command, args, rng)
    except Exception:
        rehearse(game, state, command, throwaway(rng))  # the refusal the rules give first
        raise
    try:
        rehearse(game, state, suggested(command, found), throwaway(rng))
    except TablesideError:
        rehearse(game, state, command, throwaway(rng))
    return found


def suggested(command: Command, found: Sequence[Choice]) -> Command:
    """``command`` with the suggestion of each Reaction not given put in (as a policy takes)."""
    args = command.args
    for choice in found:
        if choice.kind == "reaction" and not choice.given:
            args = put(args, choice.path, choice.suggested)
    return Command(command.kind, args, command.dice)


def listed_attack_choices(
    game: StrifeFight, state: FightState, command: Command, args: AttackArgs, rng: Rng
) -> list[Choice]:
    """:func:`attack_choices` once the Action is known to be decided (or about to be)."""
    found: list[Choice] = []
    proposal = attack_approval(game, state, args)
    if proposal is not None:
        found.append(proposal)
    found.extend(offered_reactions(state, command, args.attacker,
                                   [a.defender for a in args.attacks], False))  # fmt: skip
    reactions = reaction_choices(game, state, command, args, rng)
    found.extend(reactions)
    found.extend(given_dice(game, state, args))
    if not args.physical:
        return found
    if all(c.given for c in reactions):
        stage = next_dice(game, state, command, rng)
        if stage is not None:
            found.append(dice_choice(stage, given=False))
    elif any(faces is not None for faces in args.rolled.values()):
        raise RulesError(
            "rolled gives dice before every Reaction of the attack is declared: physical dice "
            "are entered stage by stage, once the Reactions are in (D-6)."
        )
    return found


def attack_approval(game: StrifeFight, state: FightState, args: AttackArgs) -> Choice | None:
    """The Host's approval of raw to-hit modifiers, weapons not held, Combined Damage (D-4).

    Named situational modifiers (SA-75) and a crushing injury (SA-74) are the Host's too.

    Conditions, size, equipment and Surprise are the state's: the engine derives them. A raw
    modifier, or a catalogue weapon named by a model that holds none (its natural weapons or an
    improvised one, SA-45; an armed model attacks only with what it holds), is the Host's to
    allow.
    """
    attacker = state.models[args.attacker]
    equipped = {w.name for w in loadout(game.catalog, attacker.sheet).weapons}
    proposed: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for number, item in enumerate(args.attacks, start=1):
        if item.modifiers:
            key = f"attack {number} modifiers"
            proposed[key], defaults[key] = list(item.modifiers), []
        if item.weapon is not None and item.weapon not in equipped:
            key = f"attack {number} weapon"
            proposed[key], defaults[key] = f"{item.weapon} (not held)", None
        if item.combined_damage:  # an attack that states it deals both (S-9, SA-67)
            key = f"attack {number} combined damage"
            proposed[key], defaults[key] = [e.value for e in item.combined_damage], []
        if item.situational:  # named situational modifiers (SA-75)
            key = f"attack {number} situational"
            proposed[key], defaults[key] = dict(item.situational), {}
        if item.crushing_injury is not None:  # a blocked crit may crush a limb (SA-74)
            key = f"attack {number} crushing injury"
            proposed[key], defaults[key] = item.crushing_injury, None
    defenders = ", ".join(dict.fromkeys(a.defender for a in args.attacks))
    return approval(attacker.id, proposed, defaults, f"{attacker.id}'s attack on {defenders}")


def strife_effects(
    game: StrifeFight, state: FightState, command: Command, choice: Choice
) -> list[JSON | None]:
    """The odds of an attack's approval: each attack with the proposal (Approve) and without.

    Only the Host answers an approval and the Host sees every value, so nothing secret feeds
    them for their reader (issue 21, W-53). Other questions' options carry their own odds.
    """
    if choice.kind != APPROVE or command.kind != "attack":
        return [None for _ in choice.options]
    try:
        args = parse_args(AttackArgs, command.args, "attack")
        attacker = state.models[args.attacker]
        held = {w.name for w in loadout(game.catalog, attacker.sheet).weapons}
        found: dict[Any, JSON] = {}
        for value, which in ((APPROVED, "with them"), (REJECTED, "without them")):
            words, odds = [], []
            for number, item in enumerate(args.attacks, start=1):
                if value == REJECTED:
                    item = item.model_copy(update={
                        "modifiers": (), "situational": {}, "combined_damage": (),
                        "crushing_injury": None,
                        "weapon": item.weapon if item.weapon in held else None,
                    })  # fmt: skip
                law = exact_law(attack_setup(game, Pending(state), attacker, item))
                hit, mean = probability(law.hits), float(law.damage.mean)
                odds.append({"hit": hit, "mean_damage": mean})
                words.append(f"attack {number}: {hit['p'] * 100:.0f} % to hit, {mean:.1f} "
                             "damage on average")  # fmt: skip
            found[value] = {"effect": f"{which}: " + "; ".join(words), "odds_by_attack": odds}
    except (TablesideError, KeyError):
        return [None for _ in choice.options]
    return [found.get(option.get("value")) for option in choice.options]


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
    game: StrifeFight, state: FightState, command: Command, args: AttackArgs, rng: Rng
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
    game: StrifeFight,
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


def game_weapon(game: StrifeFight, attacker: Model) -> str:
    """The attacker's first equipped weapon (what an attack without ``weapon`` uses)."""
    weapons = loadout(game.catalog, attacker.sheet).weapons
    return weapons[0].name if weapons else "no weapon"


def reaction_options(
    game: StrifeFight,
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
    game: StrifeFight, state: FightState, attacker: Model, item: AttackItem
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


def next_dice(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> StageDice | None:
    """The next stage of physical dice still to enter (D-6); None: all in.

    The Action is decided on a copy of its own dice stream, every stage entered so far played
    back, until a physical roller's stage has no faces yet: that stage is the one asked. Faces
    already entered for a later stage are refused (the dice come stage by stage, in order).
    """
    try:
        game.pending(state, command, throwaway(rng), describe=False)
    except DiceNeededError as need:
        rolled = command.args.get("rolled") or {}
        ahead = [k for k, faces in rolled.items() if faces is not None and k not in need.used]
        if ahead:
            raise RulesError(
                f"rolled gives dice for {ahead[0]!r} before {need.stage.what} "
                f"({need.stage.key!r}) is rolled: physical dice are entered stage by stage, "
                "in order (D-6)."
            ) from None
        return need.stage
    return None


STAGE_PURPOSE = {
    "ward_off_attacker": "the Ward-off contest: the attacker's d20 against the defender's; if "
    "the defender wins, the attack is kept at bay",
    "ward_off_defender": "the Ward-off contest: the defender's d20 against the attacker's; if "
    "the defender wins, the attack is kept at bay",
    "hit": "the attack's hit roll, read against the defender's AC and Dodge",
    "reaction": "the defender's Block/Parry test against this attack",
    "damage": "the damage of the attack that hit",
    "effects": "one d100 for each % effect of the attack",
}
"""What each stage's dice are for, in the table's words (issue 21: each prompt says it)."""


def purpose(stage: StageDice) -> str:
    """What the stage's dice decide."""
    return STAGE_PURPOSE.get(stage.key.partition(".")[2], stage.what)


def dice_choice(stage: StageDice, given: bool) -> Choice:
    """The roller's entry of one stage's faces (free: checked by the game when rolled)."""
    return Choice(
        kind="dice",
        combatant=stage.roller,
        path=("rolled", stage.key),
        options=(
            {
                "value": None,
                "label": f"{stage.count}d{stage.sides}: the server rolls them",
                "count": stage.count,
                "sides": stage.sides,
            },
        ),
        suggested=None,
        given=given,
        prompt=f"{stage.roller}: roll {stage.count}d{stage.sides} for {stage.what} "
        f"({purpose(stage)}) and enter the faces.",
        free=True,
        key=f"dice.{stage.key}",
        info={
            "title": f"{stage.roller}'s dice: {stage.what}",
            "input": {"type": "dice", "count": stage.count, "sides": stage.sides,
                      "for": purpose(stage), "what": stage.what},
            "details": {"rules": ["D-6"]},
        },
    )  # fmt: skip


def given_dice(game: StrifeFight, state: FightState, args: AttackArgs) -> list[Choice]:
    """The stages whose faces (or null) the arguments already carry, for the asker to judge.

    A roller's dice are its own: listed as given, the policy sees who entered them.
    """
    attacker = state.models[args.attacker]
    found = []
    for key in args.rolled:
        index, stage = stage_key(key, len(args.attacks))
        item = args.attacks[index]
        setup = attack_setup(game, Pending(state), attacker, item)
        stages = AttackStages(
            Entered(frozenset(), {}), SeededRng(0), index, setup, attacker.id, item.defender,
            item.precision,
        )  # fmt: skip
        found.append(dice_choice(stages.describe(stage), given=True))
    return found


# --- the cast ---------------------------------------------------------------------------------


def cast_choices(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> list[Choice]:
    """A cast's Host approval of its spell power, damage or unresisted targets (D-4, SA-63)."""
    args = parse_args(CastArgs, command.args, "cast")
    raw, defaults = cast_proposals(game, args)
    targets = ", ".join(args.targets)
    proposal = approval(args.caster, raw, defaults, f"{args.caster}'s {args.power} on {targets}")
    found = [] if proposal is None else [proposal]
    found.extend(offered_reactions(state, command, args.caster, args.targets, True))
    if found:
        dry_run(game, state, command, rng)
    return found


def offered_reactions(
    state: FightState, command: Command, actor: str, defenders: Sequence[str], casting: bool
) -> list[Choice]:
    """The Reactions the command sets off, each its model's choice (SA-96)."""
    given = command.args.get("reactions")
    return triggered_choices(state, actor, defenders, casting,
                             given if isinstance(given, Mapping) else {})  # fmt: skip


def cast_proposals(game: StrifeFight, args: CastArgs) -> tuple[dict[str, Any], dict[str, Any]]:
    """A cast's values and what each is when the state gives it (D-4, SA-63).

    A catalogue power's own damage, element, cost, resource, roll and timing are the state's
    (no approval needed); typed damage, spell power and an unresisted target still are the
    Host's, and so is any value that differs from the catalogue's.
    """
    raw = args.model_dump(mode="json")
    defaults = dict(CAST_DEFAULTS)
    entry = game.catalog.find_power(args.power)
    if entry is None:
        return raw, defaults
    given = {
        "damage": entry.damage,
        "element": entry.element.value,
        "cost": entry.cost,
        "resource": None if entry.resource is None else entry.resource.value,
        "separate_rolls": entry.targets == PowerTargets.SEPARATE_ROLLS,
        "instant": entry.timing == "instant",
    }
    for key, value in given.items():
        defaults[key] = value
        if raw.get(key) is None or (key in ("separate_rolls", "instant") and not raw[key]):
            raw[key] = value
    return raw, defaults
