"""Whole games between computer players, played through the Engine as the services do (for the bot tests)."""

from __future__ import annotations

from collections.abc import Callable

from libs.rules.engine import UNDO_KEY, Engine
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies import decide

Player = Callable[[Engine, Json, int, SeededRng], Json | None]
"""Who decides for a seat: ``(engine, the seat's view, seat, rng) -> move`` (None: does not act)."""


def at_level(level: str) -> Player:
    """Return a player that is the game's own computer player at ``level`` (the service's entry point)."""
    return lambda engine, view, seat, rng: decide(engine.rules_id, view, seat, level, rng)


def play(engine: Engine, config: Json, players: tuple[Player, ...], seed: bytes, label: str = "") -> tuple[int, ...]:
    """Play a game to the end and return its places; every seat that must act gets a legal move (never "Zurück").

    Decision ``t`` draws from ``SeededRng(seed, "bots").derive(f"{label}{t}")``.
    """
    position = engine.start(engine.normalize_config(config, len(players)), len(players), seed)
    rng = SeededRng(seed, "bots")
    turn = 0
    while not engine.is_over(position):
        seat = engine.must_act(position)[0]
        move = players[seat](engine, engine.view(position, seat), seat, rng.derive(f"{label}{turn}"))
        assert move is not None and UNDO_KEY not in move
        assert move in engine.legal_moves(position, seat)
        position = engine.apply(position, seat, move).position
        turn += 1
    return engine.outcome(position).places


def wins(engine: Engine, config: Json, first: str, second: str, games: int, seed: Callable[[int], bytes]) -> int:
    """Return in how many 2-player games level ``first`` placed 1st and ``second`` 2nd (seats alternate).

    Game ``g`` is seeded with ``seed(g)``; its decisions draw as in ``play`` with the label ``zug-``.
    """
    won = 0
    for game in range(games):
        levels = (first, second) if game % 2 == 0 else (second, first)
        places = play(engine, config, (at_level(levels[0]), at_level(levels[1])), seed(game), label="zug-")
        mine = levels.index(first)
        won += places[mine] == 1 and places[1 - mine] == 2
    return won
