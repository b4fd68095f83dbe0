"""A game of two computers played to its end through a running table and bot service (tests of what follows)."""

from __future__ import annotations

import asyncio

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import GAMES_STREAM, TABLE_FOLLOWUP_DURABLE, TABLE_START
from libs.platform.rpc import request
from tests.game_facts import consumer_is_done


async def computers_play_to_the_end(nc: NatsClient, table: httpx.AsyncClient) -> str:
    """Start a Speedmosaik game of two easy computers, wait until the table shows it ended and its follow-up has
    handled every event; return the game's id."""
    result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": [
        {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]})
    game_id = str(result["game_id"])
    for _ in range(600):
        if (await table.get(f"/games/{game_id}")).json()["status"] == "ended":
            break
        await asyncio.sleep(0.05)
    await consumer_is_done(nc.jetstream(), GAMES_STREAM, TABLE_FOLLOWUP_DURABLE)
    return game_id
