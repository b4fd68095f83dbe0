"""The lobby's app: players, tables, quick match, a player's home (solo modes, daily seeds, campaigns, chat), and
the workers that follow games, publish facts, make the daily seeds and match the queues."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.clock import Clock, installing
from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.lobby.chat import ChatSettings, installing_chat
from services.lobby.daily import publish_daily_seeds
from services.lobby.daily_seed_source import DailySeedSource, installing_seed_source
from services.lobby.database import open_sessions
from services.lobby.limits import make_limits
from services.lobby.matchmaking import MatchSettings, installing_matches, run_matches
from services.lobby.routers import chat, games, home, match, players, tables
from services.lobby.workers import publish_pending_registrations, sweep_rematches, track_game_ends


def create_app(settings: Settings | None = None, clock: Clock | None = None, seeds: DailySeedSource | None = None,
               chat_settings: ChatSettings | None = None, match_settings: MatchSettings | None = None) -> FastAPI:
    """Build the lobby service; tests may replace the edges `clock` and `seeds` by subclasses, and give the chat
    and quick-match settings (else read from the environment: CHAT_MESSAGES_PER_10S, MATCH_*)."""

    return create_service_app(
        "lobby",
        # home before games: its /games/{game}/modes must not be taken for a game's name
        routers=[players.router, tables.router, match.router, home.router, chat.router, games.router],
        workers=[track_game_ends, publish_pending_registrations, sweep_rematches, publish_daily_seeds, run_matches],
        on_startup=[open_sessions, installing(clock), make_limits, installing_seed_source(seeds),
                    installing_chat(chat_settings), installing_matches(match_settings)],
        uses_database=True,
        settings=settings,
    )
