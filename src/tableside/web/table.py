"""The web table's operations, free of HTTP: tables, seats, commands, reads, role filtering.

Commands on one encounter are serialised by a lock per encounter in this process; across
processes the store's revision check refuses the later of two writers (``StaleRevisionError``)
with nothing written: the refused process drops its copy and decides a command that is not
exact again on the encounter read anew (an exact one answers 409). Every read a player makes
leaves out the records of hidden commands (and their undo and redo); the Host sees them marked
``"hidden": true``. Every state, record and answer a player gets has the values of combatants
secret to it concealed (:mod:`tableside.web.redact`).

A command's ``revision`` is the revision its sender saw: the command is decided against the
current state and refused only by the rules, unless ``exact`` asks for the old check (409 when
any record came after it); undo and redo with a revision are always exact (W-14). The limits of
W-13 (:class:`~tableside.web.guards.Limits`) are checked here, before anything is decided or
written. A write the database refuses drops the copy in memory, so nothing half-applied stays.
"""

from __future__ import annotations

from typing import Any

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.encounter.npc_turn import npc_command
from tableside.errors import DataError
from tableside.store import table_audience, table_log
from tableside.store.errors import StaleRevisionError as AppendRefusedError
from tableside.web.auth import (
    ForbiddenError,
    Principal,
    authorise_command,
    commander,
    require_host,
)
from tableside.web.guards import TooLargeError
from tableside.web.strict import check_args
from tableside.web.table_answers import (
    LazyAsker,
    npcs_of,
    players_roll,
)
from tableside.web.table_decisions import DecidingTable
from tableside.web.table_seats import SeatingTable
from tableside.web.table_views import (
    current_actor,
    involved,
    record_view,
    state_view,
)

NPC_STEPS_MAX = 12  # commands one press of "Play the NPC's Turn" sends at most (SA-98)
RETRIES = 3  # a non-exact command refused by another process's append is decided again


class WebTable(DecidingTable, SeatingTable):
    """Tables, seats and encounters on one store, with live fan-out in this process."""

    # -- commands -----------------------------------------------------------------------

    def execute(
        self,
        who: Principal,
        encounter_id: int,
        command: Command,
        revision: int | None,
        hidden: bool = False,
        exact: bool = False,
    ) -> dict[str, Any]:
        """Authorise, decide, store and announce one command; on refusal nothing is written.

        Args:
            who: The sender.
            encounter_id: The encounter.
            command: The command.
            revision: The revision the sender saw (None: not given).
            hidden: The Host hides the command from players.
            exact: Refuse (409) if any record came after ``revision``; otherwise the command
                is decided against the current state, and one that another process's append
                beat is decided again, up to :data:`RETRIES` times (W-14).
        """
        if hidden:
            require_host(who, "send hidden commands")
        for attempt in range(RETRIES + 1):
            try:
                with self.lock(encounter_id):
                    encounter, record, asker = self._decide_and_append(
                        who, encounter_id, command, revision, hidden, exact
                    )
                break
            except AppendRefusedError:  # another process appended first
                if exact or attempt == RETRIES:
                    raise
        self.notifier.publish(encounter_id)
        seqs = frozenset({record.seq}) if hidden and record.seq is not None else frozenset()
        seats = None if asker is None or asker.policy is None else list(asker.policy.seats)
        held = hidden if record.kind is RecordKind.REQUEST else None  # the 202's own command
        answer = self.answer(who, encounter_id, record_view(record, seqs), state_view(encounter),
                             encounter, seats, held)  # fmt: skip
        self._with_carry_over(who, encounter_id, [record], encounter, answer)
        return answer

    def _decide_and_append(
        self,
        who: Principal,
        encounter_id: int,
        command: Command,
        revision: int | None,
        hidden: bool,
        exact: bool,
    ) -> tuple[Encounter[Any], LogRecord, LazyAsker | None]:
        """One try of :meth:`execute`, with the encounter's lock held (and the policy asked)."""
        encounter = self.live(encounter_id)
        authorise_command(
            who, encounter.game.name, command.kind, command.args, current_actor(encounter),
            encounter.state,
        )  # fmt: skip
        check_args(encounter.game.name, command.kind, command.args)  # the same whatever waits
        self.require_not_waiting(who, encounter_id, f"the {command.kind}")
        if command.kind == "add":
            self._require_room(encounter)
        strife = encounter.game.name == "strife-combat"
        physical = strife and bool(command.args.get("physical"))
        if physical and who.is_host and not self.host_decides(encounter_id, hidden):
            command = players_roll(command, table_audience.secrecy(self.store, encounter_id).played)
        if strife and not who.is_host and command.dice is not None:
            self.refuse_typed_dice(who, encounter_id, encounter.state, command)
        asker = None
        if getattr(encounter.game, "choices", None) is not None:
            asker = LazyAsker(lambda: self.policy(who, encounter_id, who.table_id), who.is_host)
        with self.refusals(who, encounter_id, encounter.game.name, encounter.state, command):
            record = encounter.execute(
                command, revision, exact, asker=asker, clamp_steps=not who.is_host
            )
        try:
            table_log.append(self.store, encounter_id, record, hidden)
        except BaseException:
            self.forget(encounter_id)  # ahead of the store: never keep a half-applied copy
            raise
        return encounter, record, asker

    def npc_turn(self, who: Principal, encounter_id: int) -> dict[str, Any]:
        """The Host plays the current NPC's Turn by the policy that knows the rules (SA-98).

        Command by command, each the policy's first choice the engine accepts (for NPCs only:
        models no seat commands), sent as the Host's, until the Turn passes, a decision waits,
        or :data:`NPC_STEPS_MAX` commands. Returns the last command's answer.
        """
        require_host(who, "play an NPC's Turn")
        answer: dict[str, Any] | None = None
        current = None
        for _ in range(NPC_STEPS_MAX):
            with self.lock(encounter_id):
                encounter = self.live(encounter_id)
                played = table_audience.secrecy(self.store, encounter_id).played
                current = self.npc_to_play(encounter, played, current, answer is None)
                if current is None:
                    break
                command = npc_command(encounter.game, encounter.state,
                                      npcs_of(encounter.state, played))  # fmt: skip
            answer = self.execute(who, encounter_id, command, None)
            if command.kind == "next" or "pending" in answer:
                break
        assert answer is not None
        return answer

    def npc_to_play(
        self, encounter: Encounter[Any], played: frozenset[str], before: str | None, first: bool
    ) -> str | None:
        """The NPC whose Turn it is, still the one played (None: stop); refused on the first."""
        current = current_actor(encounter)
        if encounter.pending is not None or current is None:
            if first:
                raise DataError("There is no NPC's Turn to play: " + (
                    "a decision waits." if encounter.pending is not None
                    else "the fight has not started or has ended."))  # fmt: skip
            return None
        if commander(encounter.state)(current) in played:
            if first:
                raise DataError(
                    f"It is the Turn of {current}, which a player commands: the Host plays "
                    "only the Turns of NPCs (SA-98)."
                )
            return None
        return current if first or current == before else None

    def refuse_typed_dice(
        self, who: Principal, encounter_id: int, state: Any, command: Command
    ) -> None:
        """Refuse a player's Strife dice typed all at once when a model secret to it is involved.

        How many of them the command reads (a damage roll only after a hit, a Block's d20 …)
        follows that model's values, so accepting or refusing them would tell the player a
        secret (W-52). The refusal is decided before any die is read, from the arguments and the
        secrecy alone: the same whatever the dice and whatever the secret values.
        """
        secret = self.secret_to(who, encounter_id)
        hidden = [c for c in involved(state, command.args) if secret(c)]
        if hidden:
            raise ForbiddenError(
                f"Dice typed all at once are not taken for a {command.kind} involving "
                f"{' and '.join(hidden)}: which of them are read follows values that are secret "
                "to you (W-52). Roll at the table stage by stage (each die asked when it comes), "
                "or let the server roll."
            )

    def _require_room(self, encounter: Encounter[Any]) -> None:
        """Refuse an ``add`` to a roster already at ``max_combatants`` (W-13)."""
        state = encounter.state
        roster = getattr(state, "combatants", None)
        if roster is None:
            roster = getattr(state, "models", {})
        if len(roster) >= self.limits.max_combatants:
            raise TooLargeError(
                f"This encounter already has {len(roster)} combatants, the most allowed "
                f"({self.limits.max_combatants})."
            )

    def step_back(
        self, who: Principal, encounter_id: int, revision: int | None, redo: bool
    ) -> dict[str, Any]:
        """The Host's undo (or redo), stored and announced."""
        require_host(who, "redo" if redo else "undo")
        with self.lock(encounter_id):
            encounter = self.live(encounter_id)
            if redo:
                self.require_not_waiting(who, encounter_id, "redo")
            record = encounter.redo(revision) if redo else encounter.undo(revision)
            try:
                table_log.append(self.store, encounter_id, record)
            except BaseException:
                self.forget(encounter_id)
                raise
        self.notifier.publish(encounter_id)
        seqs = table_audience.hidden_seqs(self.store, encounter_id)
        return self.answer(who, encounter_id, record_view(record, seqs), state_view(encounter),
                           encounter)  # fmt: skip
