"""A refusal as the player who sent the command may read it (W-9).

The engine refuses a command with one sentence, which may carry numbers of a combatant secret to
the player (its AP, its Might, how many Adjustments it may make). :func:`public_refusal` keeps a
sentence built from public values only, says an Adjustment count without the count allowed,
and replaces any other by one naming the command and the secret combatants
(:mod:`tableside.web.redact` has the rules for the rest of what a player reads).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tableside.web.redact import carries_number

# Refusals that carry numbers built from public values only (the dice, distances, gear, the
# actor's own AP); ``who`` names the combatant whose values they are, which must not be secret.
PUBLIC_REFUSALS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        r"^There is no die \d+ to adjust; the roll keeps \d+ dice\.$",
        r"^An Adjustment moves a die by 1 up or down, not by -?\d+\.$",
        r"^Die \d+ cannot be adjusted to -?\d+(; faces stay within 1–12|: it is locked by an "
        r"Epic roll \(M-9\))\.$",
        r"^(?P<who>\S+) cannot [^:]+ for \d+ AP: it is \S+ Turn and (?P=who) has -?\d+ AP "
        r"(\(\d+ wasted by Falter this Turn, M-34\) )?and -?\d+ Readied AP\.$",
        r"^(?P<who>\S+) is Grappling \S+ and may Strike another Target only with at least 40 more "
        r"Might \(M-37\)\.$",
        r'^\S+ is [\d.]+" away, beyond the range of .+ \([\d.]+"\)\.$',
        r"^\S+ must be in base contact with \S+ to attack with .+ \(Reach \d+\); the distance "
        r'is [\d.]+"\.$',
        r'^An interposing elohim must be within Melee Range \(3"\) of .+ \(M-16\)\.$',
    )
)
# The engine's refusals that name how many Adjustments a side may make (M-11, M-12).
ADJUSTMENT_REFUSAL = re.compile(
    r"^(The \S+ named (?P<n>\d+) Adjustments but (has|may make) only|Die \d+ was named for an "
    r"Adjustment but nobody may adjust)"
)


def public_refusal(sentence: str, kind: str, actor: object, hidden: Sequence[str]) -> str:
    """A refusal as the player who sent the command may read it (W-9).

    ``hidden`` are the combatants the command involves whose values are secret to the player.
    Without them, or when the sentence carries no number, it stands; an Adjustment count is
    said without the count allowed; a sentence known to be built from public values stands;
    any other is replaced by one naming the command and the secret combatants.
    """
    if not hidden or not carries_number(sentence):
        return sentence
    names = " and ".join(hidden)
    who = actor if isinstance(actor, str) else "The actor"
    found = ADJUSTMENT_REFUSAL.match(sentence)
    if found is not None:
        many = f"{found['n']} Adjustments" if found["n"] else "those Adjustments"
        return (
            f"{who} may not make {many} against {names}: how many may be made follows "
            "values that are secret to you (M-11, M-12)."
        )
    for pattern in PUBLIC_REFUSALS:
        match = pattern.match(sentence)
        if match is not None and match.groupdict().get("who") not in hidden:
            return sentence
    return (
        f"The rules refuse {who}'s {kind} here, for a reason that follows values of {names} "
        "that are secret to you."
    )
