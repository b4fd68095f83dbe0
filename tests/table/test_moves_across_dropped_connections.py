"""No move is lost or doubled when a NATS connection drops in the middle of a write.

The table (its API role, in this process) and a sender of moves (as the bot sends them: `table.cmd.move` with
`expected_n`, sent again after RESEND_AFTER without an answer) talk to the real nats-server through a TCP proxy that
cuts their connections at chosen points of the conversation (tests/nats_proxy.py): in the middle of the
sender's request, of the table's append to the game's log, of JetStream's acknowledgement of that append, of the
table's reply, and of that reply reaching the sender. Everything runs on uvloop, as the services do (uvicorn picks it).

Afterwards the log says: every move the sender was told was made is there, at the number and with the hash of its
receipt; every move the sender meant is there once, in order, none twice; the chain verifies. Every move was answered
as made, also the one whose first answer was torn (sent again, it is answered with the stored move's receipt rather
than refused as stale). And nothing went wrong in the client's own writing (no error reached the loop's handler).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import uvloop

from libs.platform import nats_client
from libs.platform.contracts.commands import MAKE_MOVE, VIEW_GAME, MakeMove, ViewGame
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import EventType, verify_chain
from libs.platform.nats_permissions import inbox_prefix
from libs.platform.rpc import RESEND_AFTER, UNAVAILABLE, CommandRefused, call, request
from services.table.app import create_app
from services.table.event_store import GameLog
from tests.conftest import Infrastructure
from tests.nats_proxy import TO_CLIENT, TO_SERVER, Cut, CuttingProxy

MOVES = 12
CUTS = {
    1: (TO_SERVER, b"PUB table.cmd.move."),  # the sender's request, torn
    3: (TO_SERVER, b"PUB game."),  # the table's append to the game's log, torn: not stored
    5: (TO_CLIENT, b'"stream":"GAMES"'),  # the append is stored, its acknowledgement torn on its way to the table
    7: (TO_SERVER, b"PUB _INBOX.bot."),  # the table's reply to the sender, torn
    9: (TO_CLIENT, b"MSG _INBOX.bot."),  # that reply, torn on its way to the sender
}
"""Before which move (0-based) which cut is armed: direction and the bytes the torn command or reply begins with."""


@dataclass
class Played:
    """What the sender meant and was told."""

    game_id: str = ""
    meant: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Per position (`expected_n`) the move sent there (the same move however often it was sent)."""
    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    """(n, receipt hash) of every move the table answered as made."""
    stale: list[int] = field(default_factory=list)
    """Positions whose move was refused as stale: sent again after its first attempt had been stored."""
    cuts: list[Cut] = field(default_factory=list)
    loop_errors: list[str] = field(default_factory=list)


async def send_move(bot: nats_client.Client, game_id: str, seat: int, move: dict[str, Any], n: int,
                    played: Played) -> None:
    """Send the move as the bot does until the table answers (made, or stale); "nobody answers" (the table's
    connection is reconnecting) is the bot's redelivery: the same move at the same position again."""
    played.meant[n] = move
    while True:
        try:
            reply = await call(bot, MAKE_MOVE, MakeMove(game_id=game_id, seat=seat, move=move, expected_n=n,
                                                        actor="bot:normal", chosen_by="bot"),
                               timeout=30.0, attempt=RESEND_AFTER)
        except CommandRefused as refusal:
            if refusal.code != "stale":
                raise
            played.stale.append(n)
            return
        except UNAVAILABLE:
            await asyncio.sleep(0.2)
            continue
        assert reply.receipt is not None
        played.acknowledged.append((reply.n, reply.receipt.hash))
        return


async def play_through_cuts(infra: Infrastructure) -> tuple[Played, list[Any]]:
    """Play MOVES moves of a computers' game through the cutting proxy; return what was played and the log."""
    played = Played()
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: played.loop_errors.append(
        f"{context.get('message')}: {context.get('exception')!r}"))
    upstream_port = urlsplit(infra.nats_url).port
    assert upstream_port is not None
    proxy = await CuttingProxy(upstream_port).start()
    app = create_app(infra.settings(table_roles="api").model_copy(
        update={"nats_url": infra.nats_url.replace(f":{upstream_port}", f":{proxy.port}")}))
    admin = await nats_client.connect(infra.nats_url)  # starts the game and reads views and the log, not proxied
    password = json.loads(Path(infra.nats_credentials).read_text())["bot"]
    bot = await nats_client.connect(f"nats://127.0.0.1:{proxy.port}", user="bot", password=password,
                                    inbox_prefix=inbox_prefix("bot"), name="bot", max_reconnect_attempts=-1,
                                    reconnect_time_wait=0.2)
    try:
        async with app.router.lifespan_context(app):
            started = await request(admin, TABLE_START, {
                "game_id": uuid.uuid4().hex, "table_id": None, "game": "speedmosaik", "settings": {},
                "seats": [{"kind": "bot", "level": "normal", "name": f"Computer {i + 1}"} for i in range(2)]})
            played.game_id = game_id = str(started["game_id"])
            for step in range(MOVES):
                if step in CUTS:
                    played.cuts.append(proxy.arm(*CUTS[step]))
                spectator = await call(admin, VIEW_GAME, ViewGame(game_id=game_id))
                seat = int(spectator["to_move"][0])
                view = await call(admin, VIEW_GAME, ViewGame(game_id=game_id, seat=seat))
                await send_move(bot, game_id, seat, view["legal_moves"][0], int(view["n"]), played)
        log = [stored.event for stored in await GameLog(admin.jetstream(), admin).read(played.game_id)]
    finally:
        await bot.close()
        await admin.close()
        await proxy.close()
    return played, log


def test_no_move_is_lost_or_doubled_when_connections_drop_mid_write(infra: Infrastructure) -> None:
    played, log = uvloop.run(play_through_cuts(infra))
    assert [cut.done.is_set() for cut in played.cuts] == [True] * len(CUTS), "every cut was made"
    verify_chain(log)
    by_n = {event.n: event for event in log}
    for n, receipt_hash in played.acknowledged:
        assert by_n[n].hash == receipt_hash, f"the move answered as event {n} is that event"
    made = [event for event in log if event.type == EventType.MOVE_MADE]
    # Each position's move once, in order, none lost and none doubled.
    assert [(event.n - 1, event.data["move"]) for event in made] == sorted(played.meant.items())
    # And the sender was told so every time: a move sent again after its first sending was stored (its answer torn)
    # is answered with that move's receipt, never refused as stale.
    assert played.stale == []
    assert [n for n, _ in played.acknowledged] == [n + 1 for n in sorted(played.meant)]
    assert played.loop_errors == []
