"""Projecting `GameEnded` into results and standings, exactly once per event; rebuilding by replay."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.contracts.base import ContractError
from libs.platform.contracts.events import GameEnded
from libs.platform.envelope import Event, EventType
from services.leaderboard.models import FinishedGameRow, ProcessedEvent, Result, Standing


class MalformedGameEnded(ValueError):
    """A `GameEnded` event lacks what the leaderboard needs; redelivering it cannot help."""


@dataclass(frozen=True)
class SeatResult:
    """What one human seat achieved in a finished game."""

    seat: int
    player_id: str
    name: str
    account: str | None
    place: int
    score: int
    points: int
    has_left: bool


@dataclass(frozen=True)
class FinishedGame:
    """The part of a `GameEnded` event the lists are made of; bots are already left out."""

    game_id: str
    n: int
    event_hash: str
    game: str
    variant: str
    rules: str
    players: int
    ended_at: datetime
    results: tuple[SeatResult, ...]
    end_table: tuple[dict[str, Any], ...]


def _int_at(values: Sequence[int], index: int, what: str) -> int:
    if not 0 <= index < len(values):
        raise MalformedGameEnded(f"outcome.{what} has no entry for seat {index}")
    return values[index]


LEAVING_PENALTY = -10
""""Wer eine Partie mit anderen Menschen verlässt, bekommt −10 Punkte." """


def points_for(game_points: int, *, has_left: bool, left_other_humans: bool) -> int:
    """Return the list points of one human's game.

    Eigene Festlegung: who leaves a game with other humans gets −10 instead of the game's points; who
    leaves a game without other humans (the computer finished it) gets 0; everyone else the game's points.
    """
    if left_other_humans:
        return LEAVING_PENALTY
    return 0 if has_left else game_points


def read_finished_game(event: Event) -> FinishedGame:
    """Return the finished game of a `GameEnded` event, or raise MalformedGameEnded."""
    try:
        ended = GameEnded.of(event)
    except ContractError as error:
        raise MalformedGameEnded(error.reason) from error
    if not ended.game or not ended.variant:
        raise MalformedGameEnded("GameEnded needs a game and a variant")
    outcome = ended.outcome
    left, deserted = set(ended.left), set(ended.left_with_other_humans)
    try:
        ended_at = datetime.fromisoformat(event.at)
    except ValueError as error:
        raise MalformedGameEnded(f"unreadable time {event.at!r}") from error
    results = []
    for seat in ended.seats:
        if seat.kind != "human" or not seat.player_id:
            continue  # bots (and seats without a player) never appear in lists
        index = seat.seat
        results.append(SeatResult(
            seat=index, player_id=seat.player_id, name=seat.name or seat.player_id, account=seat.account,
            place=_int_at(outcome.places, index, "places"),
            score=_int_at(outcome.scores, index, "scores"),
            points=points_for(_int_at(outcome.leaderboard_points, index, "leaderboard_points"),
                              has_left=index in left, left_other_humans=index in deserted),
            has_left=index in left,
        ))
    end_table = tuple(
        {"seat": position, "name": seat.name, "kind": seat.kind, "level": seat.level, "player_id": seat.player_id,
         "place": _int_at(outcome.places, position, "places"),
         "score": _int_at(outcome.scores, position, "scores"),
         "points": _int_at(outcome.leaderboard_points, position, "leaderboard_points"),
         "has_left": position in left}
        for position, seat in enumerate(ended.seats)
    )
    return FinishedGame(game_id=event.game_id, n=event.n, event_hash=event.hash, game=ended.game,
                        variant=ended.variant, rules=ended.rules or event.rules, players=len(ended.seats),
                        ended_at=ended_at, results=tuple(results), end_table=end_table)


async def project_finished_game(session: AsyncSession, finished: FinishedGame) -> bool:
    """Add the game to the lists inside the session's transaction; False if it was projected before."""
    tracked = await session.execute(
        insert(ProcessedEvent)
        .values(game_id=finished.game_id, n=finished.n, event_type=EventType.GAME_ENDED,
                event_hash=finished.event_hash)
        .on_conflict_do_nothing(index_elements=[ProcessedEvent.game_id, ProcessedEvent.n])
        .returning(ProcessedEvent.game_id)
    )
    if tracked.first() is None:
        return False
    await session.execute(insert(FinishedGameRow).values(
        game_id=finished.game_id, game=finished.game, variant=finished.variant, rules=finished.rules,
        ended_at=finished.ended_at, seats=list(finished.end_table),
    ).on_conflict_do_nothing(index_elements=[FinishedGameRow.game_id]))
    for result in finished.results:
        await session.execute(insert(Result).values(
            game_id=finished.game_id, seat=result.seat, player_id=result.player_id, name=result.name,
            account=result.account, game=finished.game, variant=finished.variant, rules=finished.rules,
            place=result.place, score=result.score, points=result.points, players=finished.players,
            has_left=result.has_left, ended_at=finished.ended_at,
        ))
        await _add_to_standing(session, finished, result)
    return True


async def _add_to_standing(session: AsyncSession, finished: FinishedGame, result: SeatResult) -> None:
    row = insert(Standing).values(
        game=finished.game, variant=finished.variant, player_id=result.player_id, name=result.name,
        points=result.points, games=1, wins=1 if result.place == 1 else 0, best_score=result.score,
        last_played_at=finished.ended_at,
    )
    is_newer = row.excluded.last_played_at >= Standing.last_played_at
    await session.execute(row.on_conflict_do_update(
        index_elements=[Standing.game, Standing.variant, Standing.player_id],
        set_={
            "points": Standing.points + row.excluded.points,
            "games": Standing.games + 1,
            "wins": Standing.wins + row.excluded.wins,
            "best_score": func.greatest(Standing.best_score, row.excluded.best_score),
            # A replayed old game must not rename a player back to an old name.
            "name": case((is_newer, row.excluded.name), else_=Standing.name),
            "last_played_at": func.greatest(Standing.last_played_at, row.excluded.last_played_at),
        },
    ))


_REBUILD_STANDINGS = text("""
INSERT INTO leaderboard.standings (game, variant, player_id, name, points, games, wins, best_score,
                                   last_played_at)
SELECT game, variant, player_id,
       (array_agg(name ORDER BY ended_at DESC))[1],
       SUM(points), COUNT(*), COUNT(*) FILTER (WHERE place = 1), MAX(score), MAX(ended_at)
FROM leaderboard.results
GROUP BY game, variant, player_id
""")


async def rebuild_standings(session: AsyncSession) -> None:
    """Recompute every all-time list from the stored results (the same lists the events built)."""
    await session.execute(delete(Standing))
    await session.execute(_REBUILD_STANDINGS)
