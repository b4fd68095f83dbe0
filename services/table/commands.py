"""The table's NATS command endpoints (queue group "table"): start a game, make a move, read a view."""

from __future__ import annotations

from typing import Any

from libs.platform.contracts.commands import (
    MAKE_MOVE,
    START_GAME,
    VIEW_GAME,
    MakeMove,
    MoveMadeReply,
    StartedReply,
    StartGame,
    ViewGame,
)
from libs.platform.rpc import answer
from libs.platform.service import Runtime
from services.table.games import Games
from services.table.views import game_view


async def serve_commands(runtime: Runtime) -> None:
    """Startup step: answer table commands (queue group "table") from now on."""
    games: Games = runtime.extras["games"]

    async def start(command: StartGame) -> StartedReply:
        record = await games.start(command)
        return StartedReply(game_id=record.game_id, rules=record.module.rules_id, n=record.n)

    async def move(command: MakeMove) -> MoveMadeReply:
        record = await games.move(command.game_id, command.seat, command.move, actor=command.actor or "system",
                                  chosen_by=command.chosen_by or "bot", expected_n=command.expected_n)
        return MoveMadeReply(game_id=record.game_id, n=record.n)

    async def view(query: ViewGame) -> dict[str, Any]:
        return game_view(await games.load(query.game_id), query.seat)

    # Subscribed before the service reports ready (a startup step, not a worker), so no request that
    # arrives after /readyz answers 200 finds nobody listening; draining the connection ends them.
    await answer(runtime.nc, START_GAME, start)
    await answer(runtime.nc, MAKE_MOVE, move)
    await answer(runtime.nc, VIEW_GAME, view)
