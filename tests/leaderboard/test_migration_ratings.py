"""The rating migrations on databases with games (issue 36). 0004: a leaderboard at revision 0003 that projected
played games (its tracking rows, results, standings, end tables and badges, but no ratings) is upgraded, and the
ratings the migration's backfill wrote are exactly what projecting the same games' ends afresh writes, floats bit
for bit. 0006: team games where a partner left, rated by the older rule (the whole team last), are rated again as
a fresh projection rates them."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.platform.contracts.events import GameMode
from libs.platform.database import REPO_ROOT, create_engine, session_factory, upgrade_service
from libs.platform.envelope import Event, EventType
from libs.platform.settings import Settings
from services.leaderboard.models import SCHEMA, metadata
from services.leaderboard.projection import _project_unrated, project_finished_game, read_finished_game
from services.leaderboard.rating_projection import rebuild_ratings
from tests.conftest import Infrastructure, new_database
from tests.leaderboard.conftest import bot, fresh_variant, game_ended, human
from tools.speed.rebuild_compare import compare_schemas
from tools.speed.rebuild_leaderboard import IGNORED_COLUMNS, create_fresh_schema, fresh_schema_name

GOLDEN = REPO_ROOT / "tests" / "audit" / "golden"
START = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)


@pytest.fixture
def database_url(infra: Infrastructure) -> Iterator[str]:
    with new_database(infra, "ratings") as url:
        yield url


@pytest.fixture
async def engine(settings: Settings, database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(settings.model_copy(update={"database_url": database_url}))
    yield engine
    await engine.dispose()


def golden_ends() -> list[Event]:
    """The `GameEnded` of every golden export written before the ratings (the unsigned ones, 1–2 December): games
    played through the platform to their end by a table of revision 0003's time, whose ends name no `teams`. The
    signed golden exports are later games (their ends name `teams`): a 0003 leaderboard met such an end only in a
    rolling deploy, the case docs/services/leaderboard.md lists as backfilled seat by seat."""
    ends = []
    for path in sorted(GOLDEN.glob("*.json")):
        if path.stem.endswith("_signed"):
            continue
        for line in json.loads(Path(path).read_text())["events"]:
            if line["type"] == EventType.GAME_ENDED:
                ends.append(Event.decode(json.dumps(line)))
    return ends


def games_before_ratings(rng: random.Random) -> list[Event]:
    """Ends as logs before the ratings hold them (no `teams`): two lists, eight players and the computers, 2–4
    seats, shared places, leavers with and without other humans, equal end times, daily first attempts and
    practice attempts, a game without a human and one with a human seat that has no player."""
    players = [human(f"Spieler {index}") for index in range(8)]
    events: list[Event] = []
    for variant in (fresh_variant(), fresh_variant()):
        for number in range(40):
            size = rng.choice((2, 3, 4))
            seats = [*rng.sample(players, size - 1), bot(rng.choice(("easy", "normal", "strong")))]
            rng.shuffle(seats)
            scores = [rng.randrange(0, 5) for _ in seats]
            places = [1 + sum(other > score for other in scores) for score in scores]
            humans = [index for index, seat in enumerate(seats) if seat["kind"] == "human"]
            left = [index for index in humans if rng.random() < 0.1]
            with_others = [index for index in left if len(humans) > 1]
            mode = None
            if number % 7 == 3:
                mode = GameMode(key="tageswerkstatt", day=f"{START + timedelta(days=number):%Y-%m-%d}",
                                attempt=1 + number % 2)
            events.append(game_ended(seats, scores=scores, places=places, points=[score * 10 for score in scores],
                                     variant=variant, left=left, left_with_other_humans=with_others, mode=mode,
                                     at=START + timedelta(minutes=number // 2)))  # equal ends too
        events.append(game_ended([bot("easy"), bot("strong")], scores=[3, 1], places=[1, 2], points=[30, 10],
                                 variant=variant, at=START + timedelta(hours=3)))
        nameless = {**human("Gast"), "player_id": None}
        events.append(game_ended([nameless, players[0], bot("normal")], scores=[4, 2, 1], places=[1, 2, 3],
                                 points=[40, 20, 10], variant=variant, at=START + timedelta(hours=3)))
    return events


async def projected_afresh(engine: AsyncEngine, events: list[Event]) -> str:
    """Project `events` (one transaction each, as the live consumer) into a new schema; its name."""
    fresh = fresh_schema_name()
    await create_fresh_schema(engine, fresh)
    sessions = session_factory(engine.execution_options(schema_translate_map={SCHEMA: fresh}))
    for event in events:
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(event))
    return fresh


async def differences_from(engine: AsyncEngine, fresh: str) -> list[str]:
    """How the live schema differs from `fresh`, as `speed rebuild leaderboard` reports it."""
    async with engine.connect() as connection:
        differences = await compare_schemas(connection, metadata, SCHEMA, fresh, IGNORED_COLUMNS)
    return ["\n".join(difference.lines()) for difference in differences]


async def test_the_backfill_of_a_database_with_games_writes_what_a_fresh_projection_does(
        engine: AsyncEngine, database_url: str) -> None:
    events = [*golden_ends(), *games_before_ratings(random.Random(36))]
    arrived = events[:]
    random.Random(4).shuffle(arrived)  # the order the consumer at 0003 projected them in is not the rating order
    before, after = arrived[:70], arrived[70:]
    upgrade_service("leaderboard", database_url, "0003")
    sessions = session_factory(engine)
    for event in before:  # what the service at revision 0003 wrote per game: everything but ratings
        async with sessions() as session, session.begin():
            assert await _project_unrated(session, read_finished_game(event)) is not None

    upgrade_service("leaderboard", database_url, "head")

    assert await differences_from(engine, await projected_afresh(engine, before)) == []
    async with engine.connect() as connection:
        rated = (await connection.exec_driver_sql(
            f'SELECT count(DISTINCT game_id), count(DISTINCT (game, variant)) FROM "{SCHEMA}".rating_changes')).one()
    # Every game but the practice attempts and those without a human; the golden games' four lists and the two.
    unrated = sum(1 for event in before if (event.data.get("mode") or {}).get("attempt") == 2
                  or not any(seat["kind"] == "human" and seat["player_id"] for seat in event.data["seats"]))
    assert tuple(rated) == (len(before) - unrated, 4 + 2)
    # The service goes on with the games that end after the upgrade, some of them earlier in rating order than
    # backfilled ones: their lists rewind over the backfill's rows (its stored ratings before each game).
    backfilled = {(event.data["variant"], event.at) for event in before}
    assert any(variant == event.data["variant"] and event.at < at for event in after for variant, at in backfilled)
    for event in after:
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(event))
    assert await differences_from(engine, await projected_afresh(engine, arrived)) == []


def team_games(rng: random.Random) -> list[Event]:
    """2 v 2 games of one list (teams in GameEnded, as logs since the ratings have them), partners leaving in some,
    and 2-seat games of the same players between them."""
    players = [human(f"Spieler {index}") for index in range(6)]
    variant, events = fresh_variant(), []
    for number in range(30):
        if number % 3:
            seats = [*rng.sample(players, 3), bot("normal")]
            rng.shuffle(seats)
            first, second = rng.choice(((1, 3), (3, 1), (1, 1)))
            humans = [index for index, seat in enumerate(seats) if seat["kind"] == "human"]
            left = [index for index in humans if rng.random() < 0.3]
            events.append(game_ended(seats, scores=[5, 3, 5, 3], places=[first, second, first, second],
                                     points=[50, 30, 50, 30], variant=variant, teams=[[0, 2], [1, 3]], left=left,
                                     left_with_other_humans=left, at=START + timedelta(minutes=number)))
        else:
            events.append(game_ended(rng.sample(players, 2), scores=[4, 2], places=[1, 2], points=[40, 20],
                                     variant=variant, at=START + timedelta(minutes=number)))
    return events


async def test_team_games_rated_by_the_older_rule_are_rated_again_as_a_fresh_projection_does(
        engine: AsyncEngine, database_url: str) -> None:
    events = team_games(random.Random(6))
    upgrade_service("leaderboard", database_url, "0005")
    sessions = session_factory(engine)
    for event in events:
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(event))
    # What the release before wrote: every seat of a team with a leaver ranked last, the lists rated so.
    async with sessions() as session, session.begin():
        changed = await session.execute(text(f"""
            UPDATE "{SCHEMA}".rating_changes c SET rank = jsonb_array_length(g.seats) + 1
            FROM "{SCHEMA}".finished_games g WHERE g.game_id = c.game_id AND c.rank < jsonb_array_length(g.seats) + 1
            AND EXISTS (SELECT 1 FROM "{SCHEMA}".rating_changes o WHERE o.game_id = c.game_id AND o.side = c.side
                        AND o.rank = jsonb_array_length(g.seats) + 1)"""))
        assert changed.rowcount > 0  # the mix has such partners
        await rebuild_ratings(session)
    fresh = await projected_afresh(engine, events)
    assert await differences_from(engine, fresh) != []

    upgrade_service("leaderboard", database_url, "head")

    assert await differences_from(engine, fresh) == []
