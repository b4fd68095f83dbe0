"""Decisions on request: for a player whose think time ran out, and the "Rat des Meisters"."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from libs.platform.rpc import CommandRefused, serve
from libs.platform.service import Runtime
from libs.platform.streams import BOT_ADVISE, BOT_DECIDE
from services.bot import metrics
from services.bot.policies import LEVELS, advise, decide
from services.bot.turns import decision_rng


def _request_fields(payload: dict[str, Any]) -> tuple[str, dict[str, Any], int]:
    try:
        rules, view, seat = str(payload["rules"]), payload["view"], int(payload["seat"])
    except (KeyError, TypeError, ValueError) as error:
        raise CommandRefused(422, "rules, view und seat fehlen.", "malformed") from error
    if not isinstance(view, dict):
        raise CommandRefused(422, "Die Sicht muss ein JSON-Objekt sein.", "malformed")
    return rules, view, seat


async def decide_on_request(payload: dict[str, Any]) -> dict[str, Any]:
    """Return the move the given level makes for `seat` from `view` (the computer stepping in)."""
    rules, view, seat = _request_fields(payload)
    level = str(payload.get("level") or "normal")
    if level not in LEVELS:
        raise CommandRefused(422, f"Unbekannte Computerstärke {level}.", "malformed")
    rng = decision_rng(str(payload.get("game_id", "")), int(payload.get("n", 0)), seat)
    started = time.perf_counter()
    move = await asyncio.to_thread(decide, rules, view, seat, level, rng)
    metrics.DECISION_SECONDS.labels(level).observe(time.perf_counter() - started)
    metrics.DECISIONS.labels(rules, level).inc()
    return {"move": move}


async def advise_on_request(payload: dict[str, Any]) -> dict[str, Any]:
    """Return the strong level's move for `seat` and the German reason for it."""
    rules, view, seat = _request_fields(payload)
    rng = decision_rng(str(payload.get("game_id", "")), int(payload.get("n", 0)), seat)
    move, reason = await asyncio.to_thread(advise, rules, view, seat, rng)
    metrics.ADVICE.inc()
    return {"move": move, "reason": reason}


async def serve_decisions(runtime: Runtime) -> None:
    """Startup step: answer decision and advice requests (queue group "bots") from now on."""
    # Subscribed before the service reports ready (a startup step, not a worker); draining ends them.
    await serve(runtime.nc, BOT_DECIDE, "bots", decide_on_request)
    await serve(runtime.nc, BOT_ADVISE, "bots", advise_on_request)
