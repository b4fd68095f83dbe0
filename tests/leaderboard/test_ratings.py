"""Skill ratings (issue 28): what a finished game does to its players' ratings, where players read them, and that
they do not depend on the order the games' ends arrive in."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.platform.contracts.commands import RATINGS, RatingsQuery
from libs.platform.contracts.events import GameMode
from libs.platform.database import create_engine, session_factory
from libs.platform.envelope import Event
from libs.platform.rpc import call
from libs.platform.settings import Settings
from services.leaderboard.models import SCHEMA, metadata
from services.leaderboard.projection import project_finished_game, project_finished_games, read_finished_game
from services.leaderboard.rating_projection import rebuild_ratings
from tests.leaderboard.conftest import bot, fresh_variant, game_ended, human, new_id, publish_and_wait
from tools.speed.rebuild_compare import compare_schemas
from tools.speed.rebuild_leaderboard import IGNORED_COLUMNS, create_fresh_schema, drop_schema, fresh_schema_name

START = datetime(2026, 12, 2, 18, 0, tzinfo=UTC)


def two_player_game(first: dict[str, Any], second: dict[str, Any], variant: str, **more: Any) -> Event:
    """A game `first` won against `second`."""
    return game_ended([first, second], scores=[40, 20], places=[1, 2], points=[70, 35], variant=variant, **more)


async def end_table(leaderboard: httpx.AsyncClient, event: Event) -> list[dict[str, Any]]:
    response = await leaderboard.get(f"/games/{event.game_id}")
    assert response.status_code == 200, response.text
    seats: list[dict[str, Any]] = response.json()["seats"]
    return seats


async def rating(leaderboard: httpx.AsyncClient, player_id: str, variant: str) -> dict[str, Any]:
    response = await leaderboard.get(f"/players/{player_id}/ratings/speedmosaik/{variant}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_a_win_against_a_computer_raises_the_rating_and_the_end_table_shows_before_and_after(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    variant, anna = fresh_variant(), human("Anna")
    event = two_player_game(anna, bot("normal"), variant)

    await publish_and_wait(nc, event)

    mine, computer = await end_table(leaderboard, event)
    assert mine["rating"]["before"] == 1500 and mine["rating"]["uncertainty_before"] == 500
    assert mine["rating"]["after"] > 1500 and mine["rating"]["change"] == mine["rating"]["after"] - 1500
    assert computer["rating"]["after"] < 1500
    now = await rating(leaderboard, anna["player_id"], variant)
    assert (now["rating"], now["games"], now["provisional"], now["rank"]) == (mine["rating"]["after"], 1, True, None)
    assert [(step["game_id"], step["before"], step["after"]) for step in now["history"]] == [
        (event.game_id, 1500, mine["rating"]["after"])]


async def test_beating_the_strong_computer_counts_more_than_beating_the_easy_one(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    variant, witness = fresh_variant(), human("Zeuge")
    # The computers' ratings part as they play: strong ahead of the witness, easy behind.
    await publish_and_wait(nc, *(
        game_ended([bot("strong"), witness, bot("easy")], scores=[50, 30, 10], places=[1, 2, 3],
                   points=[80, 45, 15], variant=variant) for _ in range(8)))
    anna, bert = human("Anna"), human("Bert")

    await publish_and_wait(nc, two_player_game(anna, bot("strong"), variant),
                           two_player_game(bert, bot("easy"), variant))

    gain_strong = (await rating(leaderboard, anna["player_id"], variant))["mu"] - 25
    gain_easy = (await rating(leaderboard, bert["player_id"], variant))["mu"] - 25
    assert gain_strong > 1.5 * gain_easy > 0
    listed = (await leaderboard.get(f"/ratings/speedmosaik/{variant}")).json()
    assert [computer["level"] for computer in listed["computers"]] == ["strong", "easy"]


async def test_a_shared_place_moves_both_players_alike(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant, anna, bert, cleo = fresh_variant(), human("Anna"), human("Bert"), human("Cleo")
    event = game_ended([anna, bert, cleo], scores=[30, 30, 5], places=[1, 1, 3], points=[60, 60, 5],
                       variant=variant)

    await publish_and_wait(nc, event)

    first, second, third = (seat["rating"] for seat in await end_table(leaderboard, event))
    assert first["mu_after"] == second["mu_after"] > 25 > third["mu_after"]


async def test_team_mates_share_their_teams_rating_change(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    seats = [human("Anna"), human("Bert"), human("Cleo"), human("Dora")]
    event = game_ended(seats, scores=[7, 4, 7, 4], places=[1, 3, 1, 3], points=[40, 10, 40, 10],
                       variant=variant, teams=[[0, 2], [1, 3]])

    await publish_and_wait(nc, event)

    anna, bert, cleo, dora = (seat["rating"] for seat in await end_table(leaderboard, event))
    assert anna["mu_after"] == cleo["mu_after"] > 25 > bert["mu_after"] == dora["mu_after"]
    # Two sides, not four players each for themselves: the same places without teams rate otherwise.
    alone = game_ended([human("Emil"), human("Frieda"), human("Gustav"), human("Hanna")], scores=[7, 4, 7, 4],
                       places=[1, 3, 1, 3], points=[40, 10, 40, 10], variant=fresh_variant())
    await publish_and_wait(nc, alone)
    assert anna["mu_after"] != (await end_table(leaderboard, alone))[0]["rating"]["mu_after"]


async def test_a_player_who_leaves_is_rated_last_even_when_the_computer_won_their_seat(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    variant, anna, bert = fresh_variant(), human("Anna"), human("Bert")
    event = game_ended([anna, bert, bot("easy")], scores=[60, 30, 10], places=[1, 2, 3], points=[-10, 45, 15],
                       variant=variant, left=[0], left_with_other_humans=[0])

    await publish_and_wait(nc, event)

    left, stayed, computer = (seat["rating"] for seat in await end_table(leaderboard, event))
    assert left["after"] < 1500 < stayed["after"]
    assert left["after"] < computer["after"]


async def test_a_partner_who_played_on_after_the_team_mate_left_is_rated_by_the_teams_result(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    """A 2 v 2 game (as Speednova's teams): Bert leaves, the computer plays his seat on, and Anna with it wins.
    The rules score the team by its result (both partners place 1, docs/rules/speednova.md) and the leaver −10:
    Anna's rating moves as a winner's, the opponents' as losers', and only Bert's as if his team had come last."""
    variant = fresh_variant()
    anna, bert, cleo, dora = human("Anna"), human("Bert"), human("Cleo"), human("Dora")
    left = game_ended([anna, cleo, bert, dora], scores=[7, 4, 7, 4], places=[1, 3, 1, 3], points=[120, 50, -10, 50],
                      variant=variant, teams=[[0, 2], [1, 3]], left=[2], left_with_other_humans=[2])
    # The same game without a leaver, between four new players: what a team's win and loss do to ratings.
    stayed = game_ended([human("Emil"), human("Frieda"), human("Gustav"), human("Hanna")], scores=[7, 4, 7, 4],
                        places=[1, 3, 1, 3], points=[120, 50, 120, 50], variant=fresh_variant(),
                        teams=[[0, 2], [1, 3]])

    await publish_and_wait(nc, left, stayed)

    winner, loser, _, _ = (seat["rating"] for seat in await end_table(leaderboard, stayed))
    partner, opponent, leaver, other_opponent = (seat["rating"] for seat in await end_table(leaderboard, left))
    assert partner["after"] > 1500 > leaver["after"]
    assert (partner["mu_after"], partner["sigma_after"]) == (winner["mu_after"], winner["sigma_after"])
    assert opponent["mu_after"] == other_opponent["mu_after"] == loser["mu_after"] < 25
    assert leaver["mu_after"] == loser["mu_after"]  # as if his team had lost: who leaves is rated last
    # The lists say the same: the partner keeps the team's points and win, the leaver gets −10.
    listed = {entry["player_id"]: entry for entry in
              (await leaderboard.get(f"/leaderboards/speedmosaik/{variant}")).json()["entries"]}
    assert (listed[anna["player_id"]]["points"], listed[anna["player_id"]]["wins"]) == (120, 1)
    assert listed[bert["player_id"]]["points"] == -10


async def test_solo_and_practice_games_are_not_rated(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant, anna = fresh_variant(), human("Anna")
    solo = game_ended([anna], scores=[40], places=[1], points=[40], variant=variant)
    practice = two_player_game(anna, bot("normal"), variant,
                               mode=GameMode(key="tageswerkstatt", day="2026-12-02", attempt=2))

    await publish_and_wait(nc, solo, practice)

    assert [seat["rating"] for seat in await end_table(leaderboard, solo)] == [None]
    assert [seat["rating"] for seat in await end_table(leaderboard, practice)] == [None, None]
    assert (await leaderboard.get(f"/players/{anna['player_id']}/ratings")).json()["ratings"] == []
    fresh = await rating(leaderboard, anna["player_id"], variant)
    assert (fresh["rating"], fresh["uncertainty"], fresh["games"], fresh["history"]) == (1500, 500, 0, [])


async def test_the_rating_list_shows_only_players_with_ten_rated_games(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    variant, anna, bert, cleo = fresh_variant(), human("Anna"), human("Bert"), human("Cleo")
    games = [two_player_game(anna, bert, variant) for _ in range(10)]
    games += [two_player_game(cleo, bot("normal"), variant) for _ in range(3)]

    await publish_and_wait(nc, *games)

    listed = (await leaderboard.get(f"/ratings/speedmosaik/{variant}")).json()
    assert (listed["min_games"], listed["total"]) == (10, 2)
    assert [(entry["rank"], entry["name"], entry["games"]) for entry in listed["entries"]] == [
        (1, "Anna", 10), (2, "Bert", 10)]
    assert listed["entries"][0]["rating"] > 1500 > listed["entries"][1]["rating"]
    assert (await rating(leaderboard, anna["player_id"], variant))["rank"] == 1
    cleo_now = await rating(leaderboard, cleo["player_id"], variant)
    assert (cleo_now["provisional"], cleo_now["rank"]) == (True, None)
    mine = (await leaderboard.get(f"/players/{cleo['player_id']}/ratings")).json()["ratings"]
    assert [(line["variant"], line["games"], line["rating"]) for line in mine] == [
        (variant, 3, cleo_now["rating"])]


async def test_a_matchmaker_reads_ratings_over_nats(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant, anna, newcomer = fresh_variant(), human("Anna"), f"p-{new_id()[:12]}"
    await publish_and_wait(nc, two_player_game(anna, bot("strong"), variant))
    anna_now = await rating(leaderboard, anna["player_id"], variant)

    answer = await call(nc, RATINGS, RatingsQuery(game="speedmosaik", variant=variant,
                                                  player_ids=[newcomer, anna["player_id"]]))

    assert [(player.key, player.rating, player.games) for player in answer.players] == [
        (newcomer, 1500, 0), (anna["player_id"], anna_now["rating"], 1)]
    assert answer.players[1].mu == anna_now["mu"] and answer.players[1].sigma == anna_now["sigma"]
    assert [(computer.key, computer.games) for computer in answer.computers] == [("strong", 1)]


# ---- order: the same games give the same floats, whatever order they arrive in ------------------------------
@pytest.fixture
async def engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(settings)
    yield engine
    await engine.dispose()


def random_games(count: int, rng: random.Random) -> list[Event]:
    """`count` games of one list among eight players and the computers, 2–4 seats, ties, teams and leavers."""
    players = [human(f"Spieler {index}") for index in range(8)]
    variant, events = fresh_variant(), []
    for number in range(count):
        size = rng.choice((2, 3, 4))
        seats = [*rng.sample(players, size - 1), bot(rng.choice(("easy", "normal", "strong")))]
        rng.shuffle(seats)
        scores = [rng.randrange(0, 5) for _ in seats]
        places = [1 + sum(other > score for other in scores) for score in scores]
        teams = [[0, 2], [1, 3]] if size == 4 and rng.random() < 0.3 else None
        if teams is not None:
            first, second = rng.choice(((1, 3), (3, 1), (1, 1)))
            places = [first, second, first, second]
        left = [index for index, seat in enumerate(seats) if seat["kind"] == "human" and rng.random() < 0.05]
        events.append(game_ended(seats, scores=scores, places=places, points=scores, variant=variant, left=left,
                                 teams=teams, at=START + timedelta(seconds=number // 2)))  # equal ends too
    return events


async def project_in_order(engine: AsyncEngine, schema: str, events: list[Event]) -> None:
    """Project the events one transaction each, as the live consumer does, into `schema`."""
    sessions = session_factory(engine.execution_options(schema_translate_map={SCHEMA: schema}))
    for event in events:
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(event))


async def project_in_batches(engine: AsyncEngine, schema: str, events: list[Event], size: int) -> None:
    """Project the events `size` to a transaction, rated together, as the live consumer does with a fetch's
    batch, into `schema`."""
    sessions = session_factory(engine.execution_options(schema_translate_map={SCHEMA: schema}))
    for start in range(0, len(events), size):
        async with sessions() as session, session.begin():
            await project_finished_games(session, [read_finished_game(event) for event in events[start:start + size]])


async def test_the_same_games_in_any_order_give_bit_identical_ratings(engine: AsyncEngine) -> None:
    rng = random.Random(28)
    events = random_games(60, rng)
    shuffled = events[:]
    rng.shuffle(shuffled)  # late arrivals all over: every one rewinds its list and rates again
    in_order, arrived, repaired, batched = (fresh_schema_name() for _ in range(4))
    for schema in (in_order, arrived, repaired, batched):
        await create_fresh_schema(engine, schema)
    try:
        await project_in_order(engine, in_order, events)
        await project_in_order(engine, arrived, shuffled)
        await project_in_order(engine, repaired, events)
        # Batches of 7 shuffled games (one of them twice), rated together: late within a batch and across batches.
        await project_in_batches(engine, batched, [*shuffled[:30], shuffled[3], *shuffled[30:]], size=7)
        async with session_factory(engine.execution_options(schema_translate_map={SCHEMA: repaired}))() as session, \
                session.begin():
            await rebuild_ratings(session)  # the service's own rebuild from the stored sides and ranks
        async with engine.connect() as connection:
            for other in (arrived, repaired, batched):
                assert await compare_schemas(connection, metadata, in_order, other, IGNORED_COLUMNS) == []
            rated = await connection.exec_driver_sql(
                f'SELECT count(DISTINCT game_id) FROM "{in_order}".rating_changes')
        assert rated.scalar() == 60
    finally:
        for schema in (in_order, arrived, repaired, batched):
            await drop_schema(engine, schema)


async def test_two_replicas_rating_one_list_at_once_lose_no_update(engine: AsyncEngine) -> None:
    events = random_games(40, random.Random(2))
    in_order, together = fresh_schema_name(), fresh_schema_name()
    for schema in (in_order, together):
        await create_fresh_schema(engine, schema)
    try:
        await project_in_order(engine, in_order, events)
        # Two consumers share the list's games, each projecting one game per transaction, at the same time.
        await asyncio.gather(project_in_order(engine, together, events[0::2]),
                             project_in_order(engine, together, events[1::2]))
        async with engine.connect() as connection:
            assert await compare_schemas(connection, metadata, in_order, together, IGNORED_COLUMNS) == []
    finally:
        for schema in (in_order, together):
            await drop_schema(engine, schema)
