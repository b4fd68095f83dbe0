"""Publishing the lobby's facts on the LOBBY stream (de-duplicated by Nats-Msg-Id)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from nats.js import JetStreamContext
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.streams import PLAYER_REGISTERED
from services.lobby.models import Player


def registration_msg_id(player_id: str) -> str:
    """The de-duplication id of a player's registration fact."""
    return f"registered:{player_id}"


async def publish_registration(js: JetStreamContext, session: AsyncSession, player: Player) -> None:
    """Publish `lobby.events.player_registered` for `player` and mark it published (commit is the caller's)."""
    payload = {"player_id": player.player_id, "name": player.name,
               "registered_at": player.created_at.astimezone(UTC).isoformat().replace("+00:00", "Z")}
    await js.publish(PLAYER_REGISTERED, json.dumps(payload).encode(),
                     headers={"Nats-Msg-Id": registration_msg_id(player.player_id)})
    await session.execute(update(Player).where(Player.player_id == player.player_id)
                          .values(registration_published_at=datetime.now(UTC)))
