"""Who may do what at a web table: tokens, roles, and the combatant each command acts for.

A token is 32 random bytes (``secrets.token_urlsafe``); the database keeps only its sha256, which
is enough for a high-entropy secret (no salt or slow hash is needed: nobody can guess one). The
Host of a table may send any command, undo, redo and hide commands. A player may send only the
commands listed in :data:`PLAYER_ACTORS`, and only for one of its own characters; ``next`` only
when one of its characters holds the current Turn.

A request presents a :class:`Credential`: a token (``Authorization: Bearer``, or a join link on
its first visit) or a browser session's id (its cookie, W-11), which the store resolves to the
token it was exchanged for. The CSRF proof a session's page sends back is derived from the
session's id (:func:`csrf_token`): only a page served to that browser can know it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tableside.store.tables import Seat

TOKEN_BYTES = 32

# The argument naming the combatant a player's command acts for, per game and command kind.
PLAYER_ACTORS: dict[str, dict[str, str]] = {
    "majesty-war": {
        "strike": "striker", "move": "id", "stance": "id", "rest": "id", "stand_ready": "id",
        "carry_over": "id", "break_free": "id", "interpose": "id",
    },
    "strife-combat": {
        "attack": "attacker", "aoo": "attacker", "cast": "caster", "move": "id", "disengage": "id",
        "bottom": "id", "instant": "id", "whole_turn": "id", "roll_with_the_blow": "id",
        "hide": "id", "act": "id", "react": "id", "pick_up": "id",
    },
}  # fmt: skip


class ForbiddenError(Exception):
    """A request the token's holder may not make (HTTP 403); one sentence."""


class UnauthorisedError(Exception):
    """A missing or unknown token (HTTP 401); one sentence."""


SESSION_COOKIE = "tableside_session"
"""The cookie that carries a browser's session id (HttpOnly, SameSite=Strict, W-11)."""


@dataclass(frozen=True, slots=True)
class Credential:
    """What a request presents: a token, or (``session``) a browser session's id (W-11)."""

    secret: str
    session: bool = False

    @property
    def hash(self) -> str:
        """What the database keeps of it: its sha256, hex."""
        return token_hash(self.secret)


def credential(authorization: str | None) -> Credential | None:
    """The credential of an ``Authorization`` header: ``Bearer <token>`` or ``Session <id>``.

    ``Session`` is what the session middleware puts there for a browser's cookie (after its
    CSRF check); a client may send it itself too, which is as safe as ``Bearer``.
    """
    if authorization is None:
        return None
    scheme, _, secret = authorization.partition(" ")
    secret = secret.strip()
    if not secret:
        return None
    scheme = scheme.lower()
    if scheme == "bearer":
        return Credential(secret)
    if scheme == "session":
        return Credential(secret, session=True)
    return None


def csrf_token(session_id: str) -> str:
    """The CSRF proof of a session (W-11): a hash of its id, so it reveals nothing of it."""
    return hashlib.sha256(b"tableside-csrf\0" + session_id.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh, unguessable token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the database keeps of a token: its sha256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Principal:
    """The holder of a token: the Host of ``table_id``, or a player's seat at it."""

    table_id: int
    seat: Seat | None

    @property
    def is_host(self) -> bool:
        """Whether this is the table's Host."""
        return self.seat is None

    @property
    def role(self) -> str:
        """``host`` or ``player``."""
        return "host" if self.seat is None else "player"

    def plays(self, combatant: object) -> bool:
        """Whether ``combatant`` is one of this player's characters."""
        return self.seat is not None and combatant in self.seat.characters


def require_host(who: Principal, what: str) -> None:
    """Refuse anyone but the Host."""
    if not who.is_host:
        raise ForbiddenError(f"Only the Host may {what}.")


Commander = Callable[[str], str | None]
"""Who sends a model's own commands now: its controller while controlled (SA-97), else itself."""


def commander(state: object) -> Commander:
    """Who sends each model's own commands in ``state`` (SA-97)."""
    from tableside.encounter.strife.forced import commander_of

    return lambda model: commander_of(state, model)


def commands(who: Principal, model: object, state: object = None) -> bool:
    """Whether ``who`` may send ``model``'s own commands (the Host may send any).

    A player: the seat playing the model's commander, its controller while Mind Controlled
    (SA-97), else the model itself.
    """
    if who.is_host:
        return True
    return isinstance(model, str) and who.plays(commander(state)(model))


def authorise_command(
    who: Principal,
    game: str,
    kind: str,
    args: dict[str, Any],
    current: str | None,
    state: object = None,
) -> None:
    """Refuse a player's command that does not act for one of its own characters.

    Args:
        who: The token's holder.
        game: The encounter's game.
        kind: The command's kind.
        args: The command's arguments (not yet validated by the game).
        current: The combatant whose Turn it is (for ``next``).
        state: The encounter's state: a controlled model's commands are its controller's
            seat's for the duration, never its own player's (SA-97).
    """
    if who.is_host:
        return
    if kind == "next":
        if not commands(who, current, state):
            refuse_controlled(who, current, commander(state))
            raise ForbiddenError(
                f"Only the Host or the player of {current or 'the current combatant'} "
                "may end the Turn."
            )
        return
    field = PLAYER_ACTORS.get(game, {}).get(kind)
    if field is None:
        raise ForbiddenError(f"Only the Host may send a {kind!r} command.")
    actor = args.get(field)
    if not commands(who, actor, state):
        refuse_controlled(who, actor, commander(state))
        raise ForbiddenError(
            f"A player may act only for its own characters, and {actor!r} "
            f"(the {kind} command's {field}) is not one of them."
        )


def refuse_controlled(who: Principal, model: object, commander: Commander) -> None:
    """Refuse, naming the controller, a player's command for its own model under control."""
    if not isinstance(model, str) or not who.plays(model):
        return
    controller = commander(model)
    if controller is not None and controller != model:
        raise ForbiddenError(
            f"{model} is controlled by {controller}: its commands are sent by the seat that "
            f"plays {controller} until the control ends (SA-97)."
        )
