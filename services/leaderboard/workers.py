"""The leaderboard's NATS side: the durable consumer of the games' ends (the table's copies of `GameEnded` on
GAME_FACTS) and the answer to rating requests."""

from __future__ import annotations

from typing import Any

from nats.aio.msg import Msg

from libs.platform.consumers import message_span, run_batch_consumer
from libs.platform.contracts.commands import RATINGS, RatingOf, Ratings, RatingsQuery
from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_FACTS_STREAM, LEADERBOARD_DURABLE
from libs.platform.database import session_factory
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, answer
from libs.platform.service import Runtime
from services.leaderboard.metrics import DUPLICATES_SKIPPED, EVENTS_IGNORED, EVENTS_PROCESSED
from services.leaderboard.projection import (
    FinishedGame,
    MalformedGameEnded,
    project_finished_games,
    read_finished_game,
)
from services.leaderboard.rating_queries import RatingNow, computer_ratings, ratings_of


async def consume_game_events(runtime: Runtime) -> None:
    """Project every `GameEnded` into the lists exactly once; acknowledge anything else unchanged.

    What one fetch brings (up to PROJECTION_BATCH events) is projected in one transaction, game after game in
    the stream's order, and rated together: a busy hour's games share a BEGIN, a COMMIT, a pooled connection's
    checkout and each list's rating statements instead of paying them each (docs/benchmarks.md, "The
    leaderboard projecting ended games in batches"). Only
    `facts.game.ended` is read, so other event types arrive only if misrouted; a copy delivered twice is
    projected once (the tracking row of `(game_id, n)`), in the same batch or a later one.
    """
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    log = get_logger(worker="game_events")

    async def handle(messages: list[Msg]) -> None:
        games = [(message_span(LEADERBOARD_DURABLE, msg), finished)
                 for msg in messages if (finished := _finished_game(msg, log)) is not None]
        if not games:
            return
        async with sessions() as session, session.begin():
            outcomes = await project_finished_games(session, [finished for _, finished in games],
                                                    around=lambda index: games[index][0])
        # Once committed: a line says what is stored.
        for (span, finished), awards in zip(games, outcomes, strict=True):
            ids = span.ids
            if awards is not None:
                EVENTS_PROCESSED.labels(finished.game).inc()
                log.info("game_projected", game_id=finished.game_id, humans=len(finished.results),
                         badges=[f"{award.player_id}:{award.badge}" for award in awards], batch=len(games),
                         **ids.log_fields())
            else:
                DUPLICATES_SKIPPED.inc()
                log.info("game_already_projected", game_id=finished.game_id, **ids.log_fields())

    await run_batch_consumer(runtime.js, stream=GAME_FACTS_STREAM, durable=LEADERBOARD_DURABLE,
                             subject=GAME_ENDED_FACT, handler=handle, batch=PROJECTION_BATCH,
                             stopping=runtime.stopping, linger=PROJECTION_LINGER)


PROJECTION_BATCH = 32
"""Ended games projected in one transaction at most: past a few dozen the saved round trips no longer show, and a
transaction that fails is taken again game by game."""
PROJECTION_LINGER = 0.5
"""Seconds the consumer waits after a batch that was not full: at a game end every second or two the next ones
join the batch (a game's end costs a third when rated with others), and a list or an end table's rating is
at most half a second later."""


def _finished_game(msg: Msg, log: Any) -> FinishedGame | None:
    """The finished game a message carries, or None (counted and, where malformed, logged) when there is nothing to
    project: redelivering cannot change that, so the message is acked with its batch."""
    try:
        event = Event.decode(msg.data)
    except (ValueError, TypeError):
        EVENTS_IGNORED.labels("malformed").inc()
        log.error("event_malformed", subject=msg.subject)
        return None
    if event.type != EventType.GAME_ENDED:
        EVENTS_IGNORED.labels("other_type").inc()
        return None
    try:
        return read_finished_game(event)
    except MalformedGameEnded as error:
        EVENTS_IGNORED.labels("malformed").inc()
        log.error("game_ended_malformed", game_id=event.game_id, n=event.n, problem=str(error))
        return None


async def serve_rating_requests(runtime: Runtime) -> None:
    """Answer `leaderboard.cmd.ratings` (queue group `leaderboard`): players' and the computer levels' ratings in
    one list, for a matchmaker that seats players of like strength."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)

    async def handle(query: RatingsQuery) -> Ratings:
        if len(query.player_ids) > MAX_RATINGS_ASKED:
            raise CommandRefused(422, f"Höchstens {MAX_RATINGS_ASKED} Spieler auf einmal.", "too_many_players")
        async with sessions() as session:
            players = await ratings_of(session, query.game, query.variant, query.player_ids)
            computers = await computer_ratings(session, query.game, query.variant)
        return Ratings(players=[_rating_of(now.key, now) for now in players],
                       computers=[_rating_of(level, now) for level, now in computers])

    await answer(runtime.nc, RATINGS, handle)


MAX_RATINGS_ASKED = 500


def _rating_of(key: str, now: RatingNow) -> RatingOf:
    return RatingOf(key=key, mu=now.mu, sigma=now.sigma, rating=now.rating, uncertainty=now.uncertainty,
                    games=now.games)
