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
  faces are still missing, for its roller to enter (see :mod:`tableside.encounter.strife.dice`).

A command the rules refuse lists no choices: it is refused at once (a dry run), so nobody is
asked about a command that could never be decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tableside.dice import Rng
from tableside.dice.laws import probability
from tableside.encounter.decisions import APPROVE, APPROVED, REJECTED, Choice, approval, put
from tableside.encounter.log import JSON, Command
from tableside.encounter.strife.acts import act_choices, triggered_choices
from tableside.encounter.strife.args import AttackArgs, AttackItem, CastArgs
from tableside.encounter.strife.attack import attack_setup, physical_dice
from tableside.encounter.strife.dice_choices import dice_choice, given_dice, next_dice
from tableside.encounter.strife.laws import exact_law
from tableside.encounter.strife.movement import aoo_key
from tableside.encounter.strife.reaction_choices import needs_dry_run, reaction_choices
from tableside.encounter.strife.rehearsal import dry_run, rehearse, streamed, throwaway
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import FightRules, Pending
from tableside.encounter.war.args import parse_args
from tableside.errors import RulesError, TablesideError
from tableside.strife.catalog import PowerTargets
from tableside.strife.loadout import loadout

CAST_DEFAULTS: Mapping[str, Any] = {"spell_power": 0, "damage": None, "resists": True}
"""A cast's Host-only modifiers and their values when nobody sets them (D-4)."""


def strife_choices(game: FightRules, state: FightState, command: Command, rng: Rng) -> list[Choice]:
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


def aoo_choices(game: FightRules, state: FightState, command: Command, rng: Rng) -> list[Choice]:
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


def aoo_choice(game: FightRules, state: FightState, offer: Any, mover: str, given: bool) -> Choice:
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


# --- the attack -------------------------------------------------------------------------------


def attack_choices(
    game: FightRules, state: FightState, command: Command, rng: Rng, ahead: bool = True
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
    game: FightRules, state: FightState, command: Command, args: AttackArgs, rng: Rng
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


def attack_approval(game: FightRules, state: FightState, args: AttackArgs) -> Choice | None:
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
    game: FightRules, state: FightState, command: Command, choice: Choice
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


# --- the cast ---------------------------------------------------------------------------------


def cast_choices(game: FightRules, state: FightState, command: Command, rng: Rng) -> list[Choice]:
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


def cast_proposals(game: FightRules, args: CastArgs) -> tuple[dict[str, Any], dict[str, Any]]:
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
