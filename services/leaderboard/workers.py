"""The leaderboard's NATS side: the durable consumer of the games' ends (the table's copies of `GameEnded` on
GAME_FACTS) and the answer to rating requests."""

from __future__ import annotations

from nats.aio.msg import Msg

from libs.platform.consumers import run_pull_consumer
from libs.platform.contracts.commands import RATINGS, RatingOf, Ratings, RatingsQuery
from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_FACTS_STREAM, LEADERBOARD_DURABLE
from libs.platform.database import session_factory
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, answer
from libs.platform.service import Runtime
from services.leaderboard.metrics import DUPLICATES_SKIPPED, EVENTS_IGNORED, EVENTS_PROCESSED
from services.leaderboard.projection import MalformedGameEnded, project_finished_game, read_finished_game
from services.leaderboard.rating_queries import RatingNow, computer_ratings, ratings_of


async def consume_game_events(runtime: Runtime) -> None:
    """Project every `GameEnded` into the lists exactly once; acknowledge anything else unchanged.

    Only `facts.game.ended` is read, so other event types arrive only if misrouted; a copy delivered twice
    is projected once (the tracking row of `(game_id, n)`).
    """
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    log = get_logger(worker="game_events")

    async def handle(msg: Msg) -> None:
        try:
            event = Event.decode(msg.data)
        except (ValueError, TypeError):
            EVENTS_IGNORED.labels("malformed").inc()
            log.error("event_malformed", subject=msg.subject)
            return
        if event.type != EventType.GAME_ENDED:
            EVENTS_IGNORED.labels("other_type").inc()
            return
        try:
            finished = read_finished_game(event)
        except MalformedGameEnded as error:
            # Redelivering cannot repair the event: log it loudly and let it be acked.
            EVENTS_IGNORED.labels("malformed").inc()
            log.error("game_ended_malformed", game_id=event.game_id, n=event.n, problem=str(error))
            return
        async with sessions() as session, session.begin():
            awards = await project_finished_game(session, finished)
        if awards is not None:
            EVENTS_PROCESSED.labels(finished.game).inc()
            log.info("game_projected", game_id=finished.game_id, humans=len(finished.results),
                     badges=[f"{award.player_id}:{award.badge}" for award in awards])
        else:
            DUPLICATES_SKIPPED.inc()
            log.info("game_already_projected", game_id=finished.game_id)

    await run_pull_consumer(runtime.js, stream=GAME_FACTS_STREAM, durable=LEADERBOARD_DURABLE,
                            subject=GAME_ENDED_FACT, handler=handle, stopping=runtime.stopping)


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
