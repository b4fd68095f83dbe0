"""Projecting `GameEnded` into results, standings, end tables, badge awards and ratings, exactly once per event;
rebuilding the derived tables from the stored results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import case, delete, func, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.contracts.base import ContractError
from libs.platform.contracts.events import GameEnded, GameMode
from libs.platform.database import table_of
from libs.platform.days import parse_day
from libs.platform.envelope import Event, EventType, parse_stamp
from services.leaderboard.awards import Award, Earning, SeatEarning, award_badges, rebuild_awards
from services.leaderboard.models import FinishedGameRow, ProcessedEvent, Result, Standing
from services.leaderboard.rating_model import RatedGame, rated_seats
from services.leaderboard.rating_projection import rate_games, rebuild_ratings


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
    list_key: tuple[int, ...] | None = None
    """The mode's list key (a mode game only)."""
    badges: tuple[str, ...] = ()
    """The game badges GameEnded lists for this seat."""


@dataclass(frozen=True)
class ModePlayed:
    """The solo mode a game was played in, as GameEnded names it."""

    key: str
    day: date | None
    attempt: int | None
    stage: int | None
    practice: bool
    late: bool = False
    """A daily game that ended after its day's seed was revealed: practice, whatever its attempt."""

    def to_json(self) -> dict[str, Any]:
        """Return the mode as stored with the end table."""
        return {"key": self.key, "day": None if self.day is None else self.day.isoformat(),
                "attempt": self.attempt, "stage": self.stage, "practice": self.practice, "late": self.late}


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
    mode: ModePlayed | None = None
    teams: tuple[tuple[int, ...], ...] = ()
    """The seats that played together (GameEnded.teams; () without teams and in older logs)."""

    def earning(self) -> Earning:
        """Return what the badge awards of this game are decided from."""
        return Earning(game_id=self.game_id, game=self.game, ended_at=self.ended_at,
                       mode=None if self.mode is None else self.mode.key,
                       day=None if self.mode is None else self.mode.day,
                       seats=tuple(SeatEarning(player_id=result.player_id, has_left=result.has_left,
                                               badges=result.badges) for result in self.results))


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


def _mode_played(mode: GameMode, ended_at: datetime, seed_reveal_at: str | None) -> ModePlayed:
    """Return the mode of a finished game; a daily game that ended once its seed was public is practice.

    Eigene Festlegung: the day's seed is revealed when the day is over, and with it every draw still to
    come; a first attempt still running then (started before midnight, or resumed later) can no longer be
    compared fairly, so it enters no list.
    """
    try:
        day = None if mode.day is None else parse_day(mode.day)
        reveal = None if seed_reveal_at is None else parse_stamp(seed_reveal_at)
    except ValueError as error:
        raise MalformedGameEnded(f"mode.day {mode.day!r} or seed_reveal_at is unreadable") from error
    late = day is not None and reveal is not None and ended_at >= reveal
    return ModePlayed(key=mode.key, day=day, attempt=mode.attempt, stage=mode.stage,
                      practice=mode.is_practice or late, late=late)


def _seat_list(values: list[list[Any]] | Any, index: int) -> list[Any] | None:
    """Return a per-seat list field's entry (None when the field is UNSET or too short)."""
    if not isinstance(values, list) or not 0 <= index < len(values):
        return None
    entry = values[index]
    return entry if isinstance(entry, list) else None


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
        ended_at = parse_stamp(event.at)
    except ValueError as error:
        raise MalformedGameEnded(f"unreadable time {event.at!r}") from error
    reveal_at = ended.seed_reveal_at if isinstance(ended.seed_reveal_at, str) else None
    mode = _mode_played(ended.mode, ended_at, reveal_at) if isinstance(ended.mode, GameMode) else None
    results = []
    for seat in ended.seats:
        if seat.kind != "human" or not seat.player_id:
            continue  # bots (and seats without a player) never appear in lists
        index = seat.seat
        key = _seat_list(ended.list_keys, index)
        if mode is not None and key is None:
            key = [_int_at(outcome.scores, index, "scores")]  # a mode game without list keys: by its score
        results.append(SeatResult(
            seat=index, player_id=seat.player_id, name=seat.name or seat.player_id, account=seat.account,
            place=_int_at(outcome.places, index, "places"),
            score=_int_at(outcome.scores, index, "scores"),
            points=points_for(_int_at(outcome.leaderboard_points, index, "leaderboard_points"),
                              has_left=index in left, left_other_humans=index in deserted),
            has_left=index in left,
            list_key=None if key is None or mode is None else tuple(int(part) for part in key),
            badges=tuple(str(badge) for badge in _seat_list(ended.badges, index) or ()),
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
                        ended_at=ended_at, results=tuple(results), end_table=end_table, mode=mode,
                        teams=_teams(ended.teams, len(ended.seats)))


def _teams(teams: list[list[int]] | Any, seats: int) -> tuple[tuple[int, ...], ...]:
    """Return GameEnded's teams, or raise MalformedGameEnded when they name a seat twice or one that is not there."""
    if not isinstance(teams, list):
        return ()
    named = [seat for team in teams for seat in team]
    if len(set(named)) != len(named) or not all(0 <= seat < seats for seat in named):
        raise MalformedGameEnded(f"teams {teams!r} do not fit {seats} seats")
    return tuple(tuple(team) for team in teams)


def rated_game_of(finished: FinishedGame) -> RatedGame | None:
    """Return the game as the rating sees it, or None when it is not rated.

    Not rated: a practice or late daily game (it enters no mode list either), a game of fewer than two sides
    (solo), a game without a human. A human who left is rated last (`rating_model.rated_seats`).
    """
    if finished.mode is not None and finished.mode.practice:
        return None
    left = frozenset(int(seat["seat"]) for seat in finished.end_table if seat.get("has_left"))
    seats = rated_seats(finished.end_table, finished.teams, left)
    if not seats:
        return None
    return RatedGame(game_id=finished.game_id, game=finished.game, variant=finished.variant,
                     ended_at=finished.ended_at, seats=seats)


_PROCESSED = table_of(ProcessedEvent)
_GAMES = table_of(FinishedGameRow)
_RESULTS = table_of(Result)
_STANDINGS = table_of(Standing)
_TRACK = (insert(_PROCESSED)
          .on_conflict_do_nothing(index_elements=[ProcessedEvent.game_id, ProcessedEvent.n])
          .returning(ProcessedEvent.game_id))
_STORE_GAME = insert(_GAMES).on_conflict_do_nothing(index_elements=[FinishedGameRow.game_id])
_STORE_RESULT = insert(_RESULTS)
_STANDING = insert(_STANDINGS)
_ADD_TO_STANDING = _STANDING.on_conflict_do_update(
    index_elements=[Standing.game, Standing.variant, Standing.player_id],
    set_={
        "points": Standing.points + _STANDING.excluded.points,
        "games": Standing.games + 1,
        "wins": Standing.wins + _STANDING.excluded.wins,
        "best_score": func.greatest(Standing.best_score, _STANDING.excluded.best_score),
        # A replayed old game must not rename a player back to an old name.
        "name": case((_STANDING.excluded.last_played_at >= Standing.last_played_at, _STANDING.excluded.name),
                     else_=Standing.name),
        "last_played_at": func.greatest(Standing.last_played_at, _STANDING.excluded.last_played_at),
    },
)
"""The projection's statements, built once: executed with parameters (a list of them for the seats), they
are compiled once per process, where statements built per game with `.values(...)` cost the leaderboard a
few milliseconds of SQLAlchemy's CPU per finished game."""


async def project_finished_game(session: AsyncSession, finished: FinishedGame) -> list[Award] | None:
    """Add the game to the lists and award its badges inside the session's transaction.

    Returns the badges this game awarded, or None if the event was projected before (nothing changed).
    """
    return (await project_finished_games(session, [finished]))[0]


async def project_finished_games(session: AsyncSession, games: Sequence[FinishedGame],
                                 around: Callable[[int], AbstractContextManager[Any]] | None = None,
                                 ) -> list[list[Award] | None]:
    """Project `games` one after another (as `project_finished_game` each) inside the session's transaction, then
    rate the new ones together: one claim of each list, one read of its ratings and one write of each kind for the
    whole batch instead of per game (the ratings are a function of the set of games rated, whatever their order:
    `rating_projection`). Returns each game's awards, None for a game projected before. `around(i)` is entered
    around game i's own statements (its message's span)."""
    outcomes: list[list[Award] | None] = []
    to_rate: list[RatedGame] = []
    for index, finished in enumerate(games):
        with around(index) if around is not None else nullcontext():
            awards = await _project_unrated(session, finished)
        if awards is not None and (rated := rated_game_of(finished)) is not None:
            to_rate.append(rated)
        outcomes.append(awards)
    if to_rate:
        await rate_games(session, to_rate)
    return outcomes


async def _project_unrated(session: AsyncSession, finished: FinishedGame) -> list[Award] | None:
    """Everything of a game's projection but its rating: the tracking row, the end table, results, standings,
    badges. None when the tracking row was there (projected before: nothing written)."""
    tracked = await session.execute(_TRACK, {"game_id": finished.game_id, "n": finished.n,
                                             "event_type": EventType.GAME_ENDED, "event_hash": finished.event_hash})
    if tracked.first() is None:
        return None
    mode = finished.mode
    await session.execute(_STORE_GAME, {
        "game_id": finished.game_id, "game": finished.game, "variant": finished.variant, "rules": finished.rules,
        "ended_at": finished.ended_at, "seats": list(finished.end_table),
        "mode": None if mode is None else mode.to_json()})
    if finished.results:
        await session.execute(_STORE_RESULT, [_result_row(finished, result) for result in finished.results])
        await session.execute(_ADD_TO_STANDING, [_standing_row(finished, result) for result in finished.results])
    # After the results: a streak badge counts this game's day too.
    return await award_badges(session, finished.earning())


def _result_row(finished: FinishedGame, result: SeatResult) -> dict[str, Any]:
    """The `results` row of one seat."""
    mode = finished.mode
    return {
        "game_id": finished.game_id, "seat": result.seat, "player_id": result.player_id, "name": result.name,
        "account": result.account, "game": finished.game, "variant": finished.variant, "rules": finished.rules,
        "place": result.place, "score": result.score, "points": result.points, "players": finished.players,
        "has_left": result.has_left, "ended_at": finished.ended_at,
        "mode": None if mode is None else mode.key, "day": None if mode is None else mode.day,
        "attempt": None if mode is None else mode.attempt, "practice": mode is not None and mode.practice,
        "stage": None if mode is None else mode.stage,
        "list_key": None if result.list_key is None else list(result.list_key), "badges": list(result.badges),
    }


def _standing_row(finished: FinishedGame, result: SeatResult) -> dict[str, Any]:
    """What one seat adds to its player's all-time list entry (`_ADD_TO_STANDING` adds it up)."""
    return {"game": finished.game, "variant": finished.variant, "player_id": result.player_id, "name": result.name,
            "points": result.points, "games": 1, "wins": 1 if result.place == 1 else 0, "best_score": result.score,
            "last_played_at": finished.ended_at}


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


async def rebuild(session: AsyncSession) -> None:
    """Recompute everything derived from the stored results: the standings, the badge awards and the ratings
    (from the stored sides and ranks of every rated game, in rating order).

    The mode lists, day lists, histories and streaks are read from `results` directly, so they need no
    rebuild; the awards are replayed game by game in the order the games ended.
    """
    await rebuild_standings(session)
    await rebuild_awards(session)
    await rebuild_ratings(session)
