"""Publishing the lobby's facts on the LOBBY stream (de-duplicated by Nats-Msg-Id)."""

from __future__ import annotations

from datetime import UTC, datetime

from nats.js import JetStreamContext
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.contracts.events import PlayerRegistered
from libs.platform.contracts.subjects import PLAYER_REGISTERED, registration_msg_id
from libs.platform.tracing import with_trace
from services.lobby.models import Player


async def publish_registration(js: JetStreamContext, session: AsyncSession, player: Player) -> None:
    """Publish `lobby.events.player_registered` for `player` and mark it published (commit is the caller's)."""
    fact = PlayerRegistered(player_id=player.player_id, name=player.name,
                            registered_at=player.created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"))
    await js.publish(PLAYER_REGISTERED, fact.encode(),
                     headers=with_trace({"Nats-Msg-Id": registration_msg_id(player.player_id)}))
    await session.execute(update(Player).where(Player.player_id == player.player_id)
                          .values(registration_published_at=datetime.now(UTC)))
