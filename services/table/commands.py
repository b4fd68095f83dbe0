"""The table's NATS command endpoints (queue group "table"): start a game, make a move, read a view, leave, and
read a game's GameStarted; the commands about one game also on the partitions this replica holds (game affinity)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import nats.errors
from nats.aio.subscription import Subscription
from nats.js.errors import APIError

from libs.platform.clock import clock_of
from libs.platform.contracts.commands import (
    LEAVE_GAME,
    MAKE_MOVE,
    PLAY_MOVE,
    READ_GAME_STARTED,
    START_GAME,
    VIEW_GAME,
    Command,
    GameStartedQuery,
    LeaveGame,
    LeftReply,
    MakeMove,
    MoveMadeReply,
    Receipt,
    StartedReply,
    StartGame,
    ViewGame,
)
from libs.platform.contracts.subjects import partition_subject
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, answer
from libs.platform.service import Runtime
from services.table.games import CHOSEN_FOR_DEPARTED, Games, games_of
from services.table.metrics import GAME_COMMANDS
from services.table.partitions import PartitionLeases, ensure_lease_bucket
from services.table.records import GameRecord
from services.table.views import game_view

Handler = Callable[[Any], Awaitable[Any]]


def command_handlers(runtime: Runtime) -> list[tuple[Command[Any, Any], Handler]]:
    """Every table command with the handler that answers it on this replica."""
    games = games_of(runtime)

    async def start(command: StartGame) -> StartedReply:
        record = await games.start(command)
        return StartedReply(game_id=record.game_id, rules=record.module.rules_id, n=record.n)

    async def move(command: MakeMove, *, human: bool = False) -> MoveMadeReply:
        await _check_nats_mover(games, command, human=human)
        # Only the event's number and receipt are answered: the move is folded on after the answer is written.
        event = await games.play(command.game_id, command.seat, command.move, actor=command.actor or "system",
                                 chosen_by=command.chosen_by or "bot", expected_n=command.expected_n)
        # A side move's receipt is its team-log entry's (`team` set), the reply's `n` still the game's.
        receipt = None if event.sig is None else Receipt(game_id=event.game_id, n=event.signed_n, hash=event.hash,
                                                         kid=event.sig["kid"], sig=event.sig["sig"], team=event.team)
        return MoveMadeReply(game_id=command.game_id, n=event.n, receipt=receipt)

    async def bot_move(command: MakeMove) -> MoveMadeReply:
        return await move(command)

    async def play(command: MakeMove) -> MoveMadeReply:
        # This subject carries the operator's tools' moves in a human's seat (the benchmark's players); the
        # actor must be the seat's player (`_mover_refusal`), so an empty one is refused before `move`'s
        # "system" stand-in could reach the log. The move is written as the operator's ("operator"), never as
        # the player's own: the audit fails a game with such a move (docs/audit.md, "Who did what").
        return await move(msgspec.structs.replace(command, chosen_by="operator"), human=True)

    async def view(query: ViewGame) -> dict[str, Any]:
        return game_view(await games.load(query.game_id), query.seat, clock_of(runtime))

    async def leave(command: LeaveGame) -> LeftReply:
        return await leave_game(games, command)

    async def started(query: GameStartedQuery) -> dict[str, Any]:
        # Games.events falls back to the archive once the game's subject was purged (404 for no such game).
        return (await games.events(query.game_id))[0].event.to_json()

    return [(START_GAME, start), (MAKE_MOVE, bot_move), (PLAY_MOVE, play), (VIEW_GAME, view), (LEAVE_GAME, leave),
            (READ_GAME_STARTED, started)]


def counted(handler: Handler, partition: str) -> Handler:
    """`handler`, counting each command it answers under `partition` (speed_table_game_commands_total)."""
    counter = GAME_COMMANDS.labels(partition)

    async def answer_counted(request: Any) -> Any:
        counter.inc()
        return await handler(request)

    return answer_counted


async def serve_commands(runtime: Runtime) -> None:
    """Startup step: answer table commands on their shared subjects (queue group "table") from now on; with
    TABLE_AFFINITY off, also every partition's (a game's commands then reach any replica)."""
    handlers = command_handlers(runtime)
    # Subscribed before the service reports ready (a startup step, not a worker), so no request that
    # arrives after /readyz answers 200 finds nobody listening; draining the connection ends them.
    for command, handler in handlers:
        await answer(runtime.nc, command, counted(handler, "shared") if command.by_game else handler)
    if not runtime.settings.table_affinity:
        for command, handler in handlers:
            if command.by_game:
                await answer(runtime.nc, command, counted(handler, "any"),
                             subject=partition_subject(command.subject, "*"))


async def hold_partitions(runtime: Runtime) -> None:
    """Worker (api role, TABLE_AFFINITY on): hold an even share of the command partitions among the living API
    replicas, serving each held partition's commands (services/table/partitions.py), until the service stops;
    then give them up so the others take them over at once."""
    log = get_logger()
    by_game = [(command, handler) for command, handler in command_handlers(runtime) if command.by_game]
    await ensure_lease_bucket(runtime.js, runtime.settings.stream_replicas)

    async def serve(partition: int) -> list[Subscription]:
        return [await answer(runtime.nc, command, counted(handler, str(partition)),
                             subject=partition_subject(command.subject, partition))
                for command, handler in by_game]

    leases = PartitionLeases(runtime.nc, runtime.js, serve, runtime.settings.table_lease_seconds)
    try:
        while True:
            try:
                await leases.tick()
            except (nats.errors.Error, APIError) as error:  # NATS away for a moment: the next tick tries again
                log.warning("partition_leases_unavailable", error=type(error).__name__)
            if not await runtime.pause(leases.ttl / 3):
                return
    finally:
        await leases.release()


ALREADY = frozenset({"game_over", "already_left"})
"""`Games.leave`'s refusals that mean the player is out already: the lobby's retry gets `already`, no error."""


async def leave_game(games: Games, command: LeaveGame) -> LeftReply:
    """Let the human `player_id` leave the game (the lobby giving up a player's unfinished solo game).

    404 `not_seated` when no human seat of the game is theirs. A game already over, or a seat already
    left, answers `already=True`, so the lobby may retry safely; otherwise PlayerLeft is in the log first
    and the computer plays on for the seat.
    """
    record = await games.load(command.game_id)
    seat = record.seat_of(command.player_id)
    if seat is None or seat.is_bot:
        raise CommandRefused(404, "Du sitzt nicht an dieser Partie.", "not_seated")
    if record.ended is not None or record.is_over or seat.index in record.left:
        return LeftReply(game_id=record.game_id, n=record.n, already=True)
    try:
        record = await games.leave(command.game_id, seat.index, command.player_id)
    except CommandRefused as refusal:
        if refusal.code not in ALREADY:
            raise
        return LeftReply(game_id=command.game_id, n=(await games.load(command.game_id)).n, already=True)
    return LeftReply(game_id=record.game_id, n=record.n)


DEPARTED_LEVEL = "normal"
"""The level of the computer that plays on for a seat whose human left (the follow-up asks the bot service for it)."""


def _computer_actor(level: str) -> str:
    """How a computer's move names who made it: "bot:<level>", as the bot service sends it."""
    return f"bot:{level}"


async def _check_nats_mover(games: Games, command: MakeMove, *, human: bool = False) -> None:
    """Refuse (403) a move over NATS whose actor and `chosen_by` do not fit the seat.

    NATS permissions let only the bot service (and the operator) send `table.cmd.move`; this check keeps
    even that sender to what the table's services write, which is what the audit accepts: a computer seat's
    move ("bot") named for the computer of that seat's level (`bot:<level>`), a move for a seat whose human left
    ("departed") named for the computer that plays on (`bot:normal`), nothing naming another actor. A human's
    own move ("player") comes only over HTTP with the player's token. The operator's tools (the benchmark) play
    a human's seat only on `table.cmd.play`, which no service's user may send, and such a move is written as
    the operator's ("operator", in the seat's player's name), so a stolen bot password cannot move for a human
    and no operator can pass a move off as the player's own. A think time that ran out
    ("timeout") is the table's own decision and never arrives over NATS. Who sits where never changes, so a
    cached record does; only before refusing is the game read afresh, since another replica may have recorded
    that the seat's human left.
    """
    refusal = _mover_refusal(await games.seated(command.game_id), command, human=human)
    if refusal is not None:
        refusal = _mover_refusal(await games.load(command.game_id), command, human=human)
    if refusal is not None:
        raise refusal


def _mover_refusal(record: GameRecord, command: MakeMove, *, human: bool) -> CommandRefused | None:
    """Why `command` may not move for its seat in `record`, or None (a seat the game does not have is judged by
    `Games.move`, as is the leaver's own name or a `chosen_by` no computer plays a left seat with)."""
    if not 0 <= command.seat < len(record.seats):
        return None
    seat, number = record.seats[command.seat], command.seat + 1
    chosen_by = command.chosen_by or "bot"
    if command.seat in record.left:
        if chosen_by not in CHOSEN_FOR_DEPARTED or command.actor == seat.player_id:
            return None  # `Games.move` says "left_game"
        if chosen_by == "timeout":
            return CommandRefused(403, "Wenn die Bedenkzeit abläuft, zieht der Tisch selbst.", "not_your_seat")
        if command.actor != _computer_actor(DEPARTED_LEVEL):
            return CommandRefused(403, f"Für Platz {number} spielt der Computer der Stufe „{DEPARTED_LEVEL}“ weiter "
                                       f"({_computer_actor(DEPARTED_LEVEL)}), kein anderer.", "not_your_seat")
        return None
    if chosen_by == "player" or (chosen_by == "operator" and not human):
        return CommandRefused(403, "Züge eines Menschen kommen über HTTP mit seinem Token, nicht über NATS.",
                              "not_your_seat")
    if chosen_by == "operator":
        if seat.is_bot or command.actor != seat.player_id:
            return CommandRefused(403, f"Nur der Mensch auf Platz {number} darf dort selbst ziehen.", "not_your_seat")
        return None
    if not command.actor.startswith("bot:"):
        return CommandRefused(403, "Ein Zug des Computers muss als Zug des Computers gekennzeichnet sein.",
                              "not_your_seat")
    if chosen_by == "bot" and not seat.is_bot:
        return CommandRefused(403, f"Auf Platz {number} spielt ein Mensch; der Computer darf dort nicht ziehen.",
                              "not_your_seat")
    if chosen_by == "departed" and not seat.is_bot:
        return CommandRefused(403, f"Platz {number} hat niemand verlassen; der Computer darf dort nicht ziehen.",
                              "not_your_seat")
    if chosen_by == "timeout":
        return CommandRefused(403, "Wenn die Bedenkzeit abläuft, zieht der Tisch selbst.", "not_your_seat")
    if chosen_by == "departed":
        return CommandRefused(403, f"Auf Platz {number} sitzt ein Computer; verlassen hat ihn niemand.",
                              "not_your_seat")
    if command.actor != _computer_actor(str(seat.level)):
        return CommandRefused(403, f"Auf Platz {number} spielt der Computer der Stufe „{seat.level}“ "
                                   f"({_computer_actor(str(seat.level))}), kein anderer.", "not_your_seat")
    return None
