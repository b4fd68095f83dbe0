"""Decisions on request: for a player whose think time ran out, and the "Rat des Meisters"."""

from __future__ import annotations

import asyncio
import time

from libs.platform.contracts.commands import ADVISE, DECIDE, Advice, AdviseRequest, DecideRequest, Decision
from libs.platform.rpc import CommandRefused, answer
from libs.platform.service import Runtime
from services.bot import metrics
from services.bot.policies import LEVELS, advise, decide
from services.bot.turns import decision_rng


async def decide_on_request(request: DecideRequest) -> Decision:
    """Return the move the given level makes for `seat` from `view` (the computer stepping in)."""
    level = request.level or "normal"
    if level not in LEVELS:
        raise CommandRefused(422, f"Unbekannte Computerstärke {level}.", "malformed")
    rng = decision_rng(request.game_id, request.n, request.seat)
    started = time.perf_counter()
    move = await asyncio.to_thread(decide, request.rules, request.view, request.seat, level, rng)
    metrics.DECISION_SECONDS.labels(level).observe(time.perf_counter() - started)
    if move is None:
        # Only a seat that may (not must) act can decide not to act; the table asks for must-act seats.
        raise CommandRefused(409, f"Platz {request.seat + 1} muss gerade nicht entscheiden.", "not_your_turn")
    metrics.DECISIONS.labels(request.rules, level).inc()
    return Decision(move=move)


async def advise_on_request(request: AdviseRequest) -> Advice:
    """Return the strong level's move for `seat` and the German reason for it."""
    rng = decision_rng(request.game_id, request.n, request.seat)
    move, reason = await asyncio.to_thread(advise, request.rules, request.view, request.seat, rng)
    metrics.ADVICE.inc()
    # None: the advice for a may-act seat is to do nothing now; the reason says so.
    return Advice(move=move, reason=reason)


async def serve_decisions(runtime: Runtime) -> None:
    """Startup step: answer decision and advice requests (queue group "bots") from now on."""
    # Subscribed before the service reports ready (a startup step, not a worker); draining ends them.
    await answer(runtime.nc, DECIDE, decide_on_request)
    await answer(runtime.nc, ADVISE, advise_on_request)
