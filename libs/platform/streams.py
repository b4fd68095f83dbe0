"""The JetStream streams of the platform, their subjects, and creating them idempotently."""

from __future__ import annotations

from dataclasses import replace

from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

GAMES_STREAM = "GAMES"
BOT_TURNS_STREAM = "BOT_TURNS"
LOBBY_STREAM = "LOBBY"
TIMERS_STREAM = "TIMERS"


def game_subject(game_id: str) -> str:
    """The subject of one game's event log."""
    return f"game.{game_id}.events"


def bot_turn_subject(game_id: str) -> str:
    """The work-queue subject of "a bot must decide in this game" requests."""
    return f"bot.turn.{game_id}"


def timer_set_subject(game_id: str, seat: int) -> str:
    """Where a seat's think-time deadline is scheduled (a new schedule replaces the old one)."""
    return f"timer.set.{game_id}.{seat}"


def timer_fire_subject(game_id: str, seat: int) -> str:
    """Where JetStream delivers a seat's deadline when it is reached."""
    return f"timer.fire.{game_id}.{seat}"


# Request/reply subjects served by the bot service (queue group "bots").
BOT_DECIDE = "bot.cmd.decide"
BOT_ADVISE = "bot.cmd.advise"

# Request/reply subjects served by the table service (queue group "table").
TABLE_START = "table.cmd.start"
TABLE_MOVE = "table.cmd.move"
TABLE_VIEW = "table.cmd.view"

# Lobby facts other services react to.
PLAYER_REGISTERED = "lobby.events.player_registered"

STREAMS: tuple[StreamConfig, ...] = (
    StreamConfig(
        name=GAMES_STREAM,
        description="Every game's event log, one subject per game; the source of truth.",
        subjects=["game.*.events"],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        duplicate_window=120.0,
        allow_msg_schedules=True,
    ),
    StreamConfig(
        name=BOT_TURNS_STREAM,
        description="Work queue of decisions the computer players must make; one shared consumer.",
        subjects=["bot.turn.*"],
        retention=RetentionPolicy.WORK_QUEUE,
        storage=StorageType.FILE,
        duplicate_window=120.0,
        discard=DiscardPolicy.OLD,
    ),
    StreamConfig(
        name=TIMERS_STREAM,
        description="Durable think-time deadlines: schedules on timer.set.*, fired onto timer.fire.*.",
        subjects=["timer.set.*.*", "timer.fire.*.*"],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        max_age=24 * 3600.0,
        allow_msg_schedules=True,
    ),
    StreamConfig(
        name=LOBBY_STREAM,
        description="Facts from the lobby (players registered) for the ledger and others.",
        subjects=["lobby.events.>"],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        duplicate_window=120.0,
    ),
)


async def ensure_streams(js: JetStreamContext, replicas: int = 1) -> None:
    """Create every platform stream that does not exist yet (with `replicas` copies), and update the rest."""
    for template in STREAMS:
        config = replace(template, num_replicas=replicas)
        assert config.name is not None
        try:
            await js.stream_info(config.name)
        except NotFoundError:
            try:
                await js.add_stream(config)
            except BadRequestError as error:  # another replica created it a moment ago
                if error.err_code != 10058:
                    raise
            continue
        await js.update_stream(config)
