"""The table's NATS command endpoints (queue group "table"): start a game, make a move, read a view."""

from __future__ import annotations

from typing import Any

from libs.platform.rpc import CommandRefused, serve
from libs.platform.service import Runtime
from libs.platform.streams import TABLE_MOVE, TABLE_START, TABLE_VIEW
from services.table.games import Games
from services.table.views import game_view


async def serve_commands(runtime: Runtime) -> None:
    """Startup step: answer table commands (queue group "table") from now on."""
    games: Games = runtime.extras["games"]

    async def start(payload: dict[str, Any]) -> dict[str, Any]:
        record = await games.start(payload)
        return {"game_id": record.game_id, "rules": record.module.rules_id, "n": record.n}

    async def move(payload: dict[str, Any]) -> dict[str, Any]:
        try:
            game_id, seat = str(payload["game_id"]), int(payload["seat"])
        except (KeyError, TypeError, ValueError) as error:
            raise CommandRefused(422, "game_id und seat fehlen.", "malformed") from error
        expected = payload.get("expected_n")
        record = await games.move(
            game_id, seat, payload.get("move"), actor=str(payload.get("actor") or "system"),
            chosen_by=str(payload.get("chosen_by") or "bot"),
            expected_n=int(expected) if expected is not None else None,
        )
        return {"game_id": record.game_id, "n": record.n}

    async def view(payload: dict[str, Any]) -> dict[str, Any]:
        record = await games.load(str(payload.get("game_id")))
        seat = payload.get("seat")
        return game_view(record, int(seat) if seat is not None else None)

    # Subscribed before the service reports ready (a startup step, not a worker), so no request that
    # arrives after /readyz answers 200 finds nobody listening; draining the connection ends them.
    await serve(runtime.nc, TABLE_START, "table", start)
    await serve(runtime.nc, TABLE_MOVE, "table", move)
    await serve(runtime.nc, TABLE_VIEW, "table", view)
