"""Table chat: free text between the humans seated in one game, kept with the game in PostgreSQL.

Who writes comes from the bearer token and the seat record (`game_players`, written when the lobby starts a
game), never from the request. A message is stored first and then announced on the game's core NATS subject
(`chat_subject`), which every lobby replica's live chat streams listen to: a live reader is never told of a
message that is not stored, and one that missed an announcement finds it on its next look at the store.
Rules (docs/services/lobby.md, "Table chat"): posting only while the game runs; 1–300 characters after
trimming, no control characters; at most CHAT_MESSAGES_PER_10S messages per player and game within any ten
seconds, counted in PostgreSQL over all replicas; no chat where the game's rules forbid it
(`Home.chat_allowed`, e.g. the team variant of the tiny game).
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import msgspec
from nats.aio.msg import Msg
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy import func, select, text
from starlette.responses import StreamingResponse

from libs.platform.auth import Identity
from libs.platform.clock import clock_of
from libs.platform.contracts.subjects import chat_subject
from libs.platform.days import iso_z
from libs.platform.logging import get_logger
from libs.platform.ratelimit import TOO_MANY_STREAMS, RateLimited, Slots
from libs.platform.responses import CountedStream
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from libs.rules import registry
from libs.rules.registry import UnknownRules
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid
from services.lobby.models import ChatMessage, GamePlayer, GameTable
from services.lobby.tables import PLAYING

MAX_CHARS = 300
WINDOW = timedelta(seconds=10)
READ_LIMIT = 100
LIVE_STREAMS_PER_PLAYER = 4
"""Open live chat streams per player and replica (each holds a NATS subscription and a task)."""
KEEPALIVE_SECONDS = 15.0
TOO_MANY_MESSAGES = "Zu viele Nachrichten im Tisch-Chat. Bitte {wait} erneut versuchen."
# Characters that reorder or break the displayed text (bidi embeddings, overrides, isolates) count as control
# characters too; joiners stay allowed (emoji sequences need them).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class ChatSettings(BaseSettings):
    """The lobby's own chat setting, from the environment."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    chat_messages_per_10s: int = Field(default=5, ge=0)
    """CHAT_MESSAGES_PER_10S: messages a player may post to one game's chat within ten seconds; 0 = no limit."""


def installing_chat(chat: ChatSettings | None) -> Callable[[Runtime], Any]:
    """Return the startup step that gives the lobby its chat settings (None: from the environment) and the
    replica's live-stream slots."""

    async def install(runtime: Runtime) -> None:
        runtime.extras["chat_settings"] = chat or ChatSettings()
        runtime.extras["chat_streams"] = Slots(LIVE_STREAMS_PER_PLAYER)

    return install


@dataclass(frozen=True)
class Room:
    """A game's chat as one seated player reaches it: their seat record and whether the game still runs."""

    game_id: str
    me: GamePlayer
    running: bool


def clean_text(raw: str) -> str:
    """Return the message as stored (trimmed), or refuse it (422, German reason)."""
    message = raw.strip()
    if not message:
        raise invalid("Die Nachricht ist leer.", "chat_empty")
    if len(message) > MAX_CHARS:
        raise invalid(f"Eine Nachricht hat höchstens {MAX_CHARS} Zeichen (diese hat {len(message)}).", "chat_too_long")
    if any(unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") or char in _BIDI_CONTROLS for char in message):
        raise invalid("Die Nachricht enthält Steuerzeichen (etwa Zeilenumbrüche oder Tabulatoren); erlaubt ist "
                      "eine Zeile Text.", "chat_control_chars")
    return message


async def post_message(runtime: Runtime, player: Identity, game_id: str, raw: str) -> dict[str, Any]:
    """Store a message of `player` in `game_id`'s chat, then announce it; return it as readers see it.

    404 unknown game; 403 `not_seated`, `chat_off`; 409 `game_over`; 422 text; 429 `rate_limited` with
    Retry-After. Nothing is stored when refused.
    """
    room = await open_room(runtime, player, game_id)
    if not room.running:
        raise conflict("Die Partie ist vorbei: in ihren Tisch-Chat lässt sich nichts mehr schreiben.", "game_over")
    message = clean_text(raw)
    limit: int = runtime.extras["chat_settings"].chat_messages_per_10s
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        # One writer per game at a time: numbers without gaps, and the limit counted without a race.
        await session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                              {"key": f"lobby.chat:{game_id}"})
        if limit > 0:
            recent = (await session.execute(
                select(ChatMessage.posted_at).where(ChatMessage.game_id == game_id,
                                                    ChatMessage.player_id == player.player_id,
                                                    ChatMessage.posted_at > now - WINDOW)
                .order_by(ChatMessage.posted_at.desc()).limit(limit))).scalars().all()
            if len(recent) >= limit:
                raise RateLimited(TOO_MANY_MESSAGES, _seconds_until(recent[-1] + WINDOW, now))
        last = await session.scalar(select(func.coalesce(func.max(ChatMessage.seq), 0))
                                    .where(ChatMessage.game_id == game_id))
        stored = ChatMessage(game_id=game_id, seq=int(last or 0) + 1, seat=room.me.seat, player_id=player.player_id,
                             name=room.me.name, text=message, posted_at=now)
        session.add(stored)
    body = message_json(stored)
    try:
        await runtime.nc.publish(chat_subject(game_id), msgspec.json.encode(body))
    except Exception:  # stored is what counts: live readers look at the store again on their next keep-alive
        get_logger(game_id=game_id).warning("chat_announce_failed", exc_info=True)
    return body


async def read_messages(runtime: Runtime, player: Identity, game_id: str, after: int, limit: int) -> dict[str, Any]:
    """The game's messages after number `after` (oldest first, at most `limit`), for a seated player."""
    room = await open_room(runtime, player, game_id)
    messages = await _stored_after(runtime, game_id, after, limit)
    return {"game_id": game_id, "open": room.running, "max_chars": MAX_CHARS, "messages": messages}


async def open_room(runtime: Runtime, player: Identity, game_id: str) -> Room:
    """The game's chat for `player`: 404 if the lobby knows no such game, 403 unless seated in it or when the
    game's rules have no chat."""
    async with sessions_of(runtime)() as session:
        seated = (await session.execute(select(GamePlayer).where(GamePlayer.game_id == game_id))).scalars().all()
        table = await session.get(GameTable, seated[0].table_id) if seated else None
        if not seated and not await session.scalar(select(func.count()).select_from(GameTable)
                                                   .where(GameTable.game_id == game_id)):
            raise CommandRefused(404, "Diese Partie kennt die Lobby nicht.", "game_not_found")
    me = next((each for each in seated if each.player_id == player.player_id), None)
    if me is None:
        raise CommandRefused(403, "Den Tisch-Chat lesen und schreiben nur, wer an dieser Partie mitspielt.",
                             "not_seated")
    if table is not None and not chat_allowed(table):
        raise CommandRefused(403, "In dieser Spielvariante gibt es keinen Tisch-Chat: Partner verständigen sich "
                                  "nur über die Zeichen des Spiels.", "chat_off")
    running = table is not None and table.game_id == game_id and table.status == PLAYING
    return Room(game_id=game_id, me=me, running=running)


def chat_allowed(table: GameTable) -> bool:
    """Whether the rules of the table's game let its players chat with these settings."""
    try:
        allowed: bool = registry.latest(table.game).spec.home.chat_allowed(table.settings)
    except UnknownRules:
        return True
    return allowed


def message_json(message: ChatMessage) -> dict[str, Any]:
    """A chat message as readers get it."""
    return {"game_id": message.game_id, "seq": message.seq, "seat": message.seat, "player_id": message.player_id,
            "name": message.name, "text": message.text, "posted_at": iso_z(message.posted_at)}


async def live_messages(runtime: Runtime, player: Identity, game_id: str, after: int) -> StreamingResponse:
    """Server-sent events of the game's chat for a seated player: stored messages after `after`, then each new
    one as it is stored (`id` = its number, `event: chat`). 429 beyond the player's open live chat streams."""
    await open_room(runtime, player, game_id)
    slots: Slots = runtime.extras["chat_streams"]
    if not slots.acquire(player.player_id):
        raise RateLimited(TOO_MANY_STREAMS, 10.0)
    return CountedStream(_stream(runtime, game_id, after), lambda: slots.release(player.player_id),
                          media_type="text/event-stream",
                          headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _stream(runtime: Runtime, game_id: str, after: int) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[Msg] = asyncio.Queue()

    async def heard(msg: Msg) -> None:
        await queue.put(msg)

    # Listen first, then read the store: a message stored in between is in one of the two (shown once).
    subscription = await runtime.nc.subscribe(chat_subject(game_id), cb=heard)
    last = after
    try:
        yield b": chat\n\n"
        while True:
            while True:
                batch = await _stored_after(runtime, game_id, last, READ_LIMIT)
                for message in batch:
                    last = message["seq"]
                    yield _sse(message)
                if len(batch) < READ_LIMIT:
                    break
            if runtime.stopping.is_set():
                return
            try:
                msg = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE_SECONDS)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            told = msgspec.json.decode(msg.data)
            if isinstance(told, dict) and told.get("seq") == last + 1:
                last = told["seq"]
                yield _sse(told)
            # Anything else (a gap, a repeat) is settled by reading the store at the loop's top.
    finally:
        try:
            await subscription.unsubscribe()
        except Exception:  # the connection may be closing
            pass


async def _stored_after(runtime: Runtime, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
    async with sessions_of(runtime)() as session:
        rows = (await session.execute(
            select(ChatMessage).where(ChatMessage.game_id == game_id, ChatMessage.seq > after)
            .order_by(ChatMessage.seq).limit(limit))).scalars().all()
    return [message_json(row) for row in rows]


def _sse(message: dict[str, Any]) -> bytes:
    return b"id: %d\nevent: chat\ndata: %s\n\n" % (message["seq"], msgspec.json.encode(message))


def _seconds_until(moment: datetime, now: datetime) -> float:
    return max(0.001, (moment - now).total_seconds())
