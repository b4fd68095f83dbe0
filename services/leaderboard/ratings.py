"""HTTP: the skill ratings. A game's rating list, a player's ratings, and one player's rating in one list with
its history (what a matchmaker reads; over NATS: `leaderboard.cmd.ratings`, services/leaderboard/workers.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import RuntimeDep
from services.leaderboard.queries import ensure_known_game
from services.leaderboard.rating_model import RATED_LIST_MIN_GAMES
from services.leaderboard.rating_queries import (
    RatingNow,
    computer_ratings,
    player_ratings,
    rating_history,
    rating_list,
    rating_rank,
    ratings_of,
)

router = APIRouter(tags=["ratings"], responses=refusals(404))


class RatingOut(BaseModel):
    """A rating: shown (``rating`` = round(60 · μ), ``uncertainty`` = round(60 · σ)) and raw (openskill's μ, σ)."""

    rating: int
    uncertainty: int
    mu: float
    sigma: float
    games: int
    """Rated games of this list."""
    provisional: bool
    """Fewer rated games than the rating list asks for: not listed yet ("vorläufig")."""

    @classmethod
    def of(cls, now: RatingNow) -> RatingOut:
        """The answer's form of a current rating."""
        return cls(rating=now.rating, uncertainty=now.uncertainty, mu=now.mu, sigma=now.sigma, games=now.games,
                   provisional=now.provisional)


class RatingEntryOut(RatingOut):
    """One line of a rating list; equal shown ratings share a rank."""

    rank: int
    player_id: str
    name: str


class ComputerRatingOut(RatingOut):
    """A computer level's rating in the list."""

    level: str


class RatingListOut(BaseModel):
    """One page of a game's rating list, best first."""

    game: str
    variant: str
    min_games: int
    """Rated games a player needs to be listed."""
    total: int
    limit: int
    offset: int
    entries: list[RatingEntryOut]
    computers: list[ComputerRatingOut]


class RatingStepOut(BaseModel):
    """One rated game: the rating before and after it."""

    game_id: str
    ended_at: datetime
    before: int
    after: int
    uncertainty: int
    """After the game."""


class PlayerListRatingOut(RatingOut):
    """A player's rating in one list, with their rank there (None while provisional) and their last games."""

    player_id: str
    game: str
    variant: str
    rank: int | None
    history: list[RatingStepOut]
    """Oldest first."""


class PlayerRatingLineOut(RatingOut):
    """A player's rating in one list."""

    game: str
    variant: str
    last_played_at: datetime


class PlayerRatingsOut(BaseModel):
    """Every list a player has a rating in, most recently played first."""

    player_id: str
    ratings: list[PlayerRatingLineOut]


@router.get("/ratings/{game}/{variant}", response_model=RatingListOut)
async def get_rating_list(
    game: str,
    variant: str,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> RatingListOut:
    """A game's rating list: humans with enough rated games, best first, and the computer levels' ratings."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        await ensure_known_game(session, game)
        total, entries = await rating_list(session, game, variant, limit, offset)
        computers = await computer_ratings(session, game, variant)
    return RatingListOut(
        game=game, variant=variant, min_games=RATED_LIST_MIN_GAMES, total=total, limit=limit, offset=offset,
        entries=[RatingEntryOut(rank=entry.rank, player_id=entry.player_id, name=entry.name,
                                **RatingOut.of(entry.rating).model_dump()) for entry in entries],
        computers=[ComputerRatingOut(level=level, **RatingOut.of(now).model_dump()) for level, now in computers])


@router.get("/players/{player_id}/ratings", response_model=PlayerRatingsOut)
async def get_player_ratings(player_id: str, runtime: RuntimeDep) -> PlayerRatingsOut:
    """The player's ratings, one per list they played a rated game of (empty for a new player)."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        lines = await player_ratings(session, player_id)
    return PlayerRatingsOut(player_id=player_id, ratings=[
        PlayerRatingLineOut(game=line.game, variant=line.variant, last_played_at=line.last_played_at,
                            **RatingOut.of(line.rating).model_dump()) for line in lines])


@router.get("/players/{player_id}/ratings/{game}/{variant}", response_model=PlayerListRatingOut)
async def get_player_rating(
    player_id: str,
    game: str,
    variant: str,
    runtime: RuntimeDep,
    history: Annotated[int, Query(ge=0, le=200)] = 50,
) -> PlayerListRatingOut:
    """The player's rating in one list (a player without rated games there: the starting rating 1500 ± 500,
    0 games), their rank in the rating list, and their last `history` rated games there."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        await ensure_known_game(session, game)
        [now] = await ratings_of(session, game, variant, [player_id])
        rank = await rating_rank(session, game, variant, now)
        steps = await rating_history(session, game, variant, player_id, history) if history else []
    return PlayerListRatingOut(
        player_id=player_id, game=game, variant=variant, rank=rank, **RatingOut.of(now).model_dump(),
        history=[RatingStepOut(game_id=step.game_id, ended_at=step.ended_at, before=step.before.shown,
                               after=step.after.shown, uncertainty=step.after.shown_uncertainty) for step in steps])
