"""The lists players see, built from finished games (the table's copies of `GameEnded` on GAME_FACTS)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_FACTS_STREAM, game_fact_msg_id
from libs.platform.database import create_engine, session_factory
from libs.platform.settings import Settings
from services.leaderboard.projection import rebuild_standings
from tests.leaderboard.conftest import (
    bot,
    fresh_variant,
    game_ended,
    human,
    move_made,
    new_id,
    publish,
    publish_and_wait,
    wait_until_consumed,
)


async def entries(leaderboard: httpx.AsyncClient, variant: str, **params: int) -> list[dict[str, object]]:
    response = await leaderboard.get(f"/leaderboards/speedmosaik/{variant}", params=params)
    assert response.status_code == 200, response.text
    listed: list[dict[str, object]] = response.json()["entries"]
    return listed


async def test_a_finished_game_shows_up_in_the_kachelwand_list_with_the_events_points(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    anna, bert = human("Anna"), human("Bert")
    event = game_ended([anna, bert], scores=[42, 17], places=[1, 2], points=[72, 32])

    await publish_and_wait(nc, event)

    listed = {entry["player_id"]: entry for entry in await entries(leaderboard, "kachelwand", limit=200)}
    assert listed[anna["player_id"]]["points"] == 72
    assert listed[bert["player_id"]]["points"] == 32
    assert listed[anna["player_id"]] | {"rank": 0} == {
        "rank": 0, "player_id": anna["player_id"], "name": "Anna", "points": 72, "games": 1, "wins": 1,
        "best_score": 42,
    }


async def test_the_list_ranks_players_by_points(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna, bert, cleo = human("Anna"), human("Bert"), human("Cleo")

    await publish_and_wait(nc, game_ended([bert, anna, cleo], scores=[20, 50, 9], places=[2, 1, 3],
                                          points=[35, 80, 14], variant=variant))

    assert [(entry["rank"], entry["name"], entry["points"]) for entry in await entries(leaderboard, variant)] == [
        (1, "Anna", 80), (2, "Bert", 35), (3, "Cleo", 14)
    ]


async def test_the_same_event_delivered_twice_counts_once(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna = human("Anna")
    event = game_ended([anna, bot()], scores=[30, 25], places=[1, 2], points=[60, 40], variant=variant)

    await publish(nc, event)
    # Another Msg-Id gets past JetStream's de-duplication, so the stream really holds the event twice.
    second = await publish(nc, event, msg_id=f"{game_fact_msg_id(event.game_id, event.n)}:again")
    await wait_until_consumed(nc, second)

    [entry] = await entries(leaderboard, variant)
    assert (entry["points"], entry["games"], entry["wins"]) == (60, 1, 1)
    history = await leaderboard.get(f"/players/{anna['player_id']}/results")
    assert len(history.json()["results"]) == 1
    metrics = await leaderboard.get("/metrics")
    assert "speed_leaderboard_duplicates_skipped_total" in metrics.text


async def test_bots_never_appear_in_a_list(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna = human("Anna")

    await publish_and_wait(nc, game_ended([bot("easy"), anna, bot("normal")], scores=[60, 10, 40],
                                          places=[1, 3, 2], points=[90, 15, 55], variant=variant))

    assert [entry["name"] for entry in await entries(leaderboard, variant)] == ["Anna"]


async def test_equal_points_share_a_rank(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna, bert, cleo, dora = human("Anna"), human("Bert"), human("Cleo"), human("Dora")

    await publish_and_wait(nc, game_ended([anna, bert, cleo, dora], scores=[40, 25, 25, 3], places=[1, 2, 2, 4],
                                          points=[70, 40, 40, 3], variant=variant))

    assert [(entry["rank"], entry["name"]) for entry in await entries(leaderboard, variant)] == [
        (1, "Anna"), (2, "Bert"), (2, "Cleo"), (4, "Dora")
    ]


async def test_points_games_wins_and_best_score_add_up_over_games(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    variant = fresh_variant()
    anna, bert = human("Anna"), human("Bert")

    await publish_and_wait(
        nc,
        game_ended([anna, bert], scores=[31, 12], places=[1, 2], points=[61, 27], variant=variant),
        game_ended([anna, bert], scores=[8, 44], places=[2, 1], points=[23, 74], variant=variant),
        game_ended([bert, anna], scores=[19, 19], places=[1, 1], points=[49, 49], variant=variant),
    )

    assert [(entry["name"], entry["points"], entry["games"], entry["wins"], entry["best_score"])
            for entry in await entries(leaderboard, variant)] == [
        ("Bert", 150, 3, 2, 44),
        ("Anna", 133, 3, 2, 31),
    ]


async def test_a_list_is_paged_with_limit_and_offset(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    players = [human(name) for name in ("Anna", "Bert", "Cleo", "Dora")]
    await publish_and_wait(nc, game_ended(players, scores=[40, 30, 20, 10], places=[1, 2, 3, 4],
                                          points=[70, 45, 25, 10], variant=variant))

    response = await leaderboard.get(f"/leaderboards/speedmosaik/{variant}", params={"limit": 2, "offset": 1})

    body = response.json()
    assert body["total"] == 4
    assert [(entry["rank"], entry["name"]) for entry in body["entries"]] == [(2, "Bert"), (3, "Cleo")]


async def test_a_game_lists_its_variants(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    await publish_and_wait(nc, game_ended([human("Anna"), human("Bert")], scores=[5, 4], places=[1, 2],
                                          points=[35, 19], variant=variant))

    response = await leaderboard.get("/leaderboards/speedmosaik")

    assert {"variant": variant, "players": 2} in response.json()["variants"]


async def test_an_unknown_game_is_refused_with_a_reason(leaderboard: httpx.AsyncClient) -> None:
    response = await leaderboard.get("/leaderboards/schach/klassisch")

    assert response.status_code == 404
    assert response.json()["detail"] == "Ein Spiel „schach“ gibt es hier nicht."
    assert (await leaderboard.get("/leaderboards/schach")).status_code == 404


async def test_a_known_game_without_finished_games_has_an_empty_list(leaderboard: httpx.AsyncClient) -> None:
    response = await leaderboard.get(f"/leaderboards/speedmosaik/{fresh_variant()}")

    assert response.status_code == 200
    assert response.json()["entries"] == []


async def test_another_event_on_the_end_subject_changes_no_list(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = new_id()
    move = move_made(game_id)

    # The table never copies a move; one that got onto the end subject anyway is acknowledged and ignored.
    ack = await nc.jetstream().publish(GAME_ENDED_FACT, move.encode(), stream=GAME_FACTS_STREAM,
                                       headers={"Nats-Msg-Id": game_fact_msg_id(game_id, move.n)})
    await wait_until_consumed(nc, ack.seq)

    response = await leaderboard.get("/players/p-1/results")
    assert all(result["game_id"] != game_id for result in response.json()["results"])
    assert 'speed_leaderboard_events_ignored_total{reason="other_type"}' in (await leaderboard.get("/metrics")).text


async def test_a_player_sees_their_finished_games_newest_first(
    leaderboard: httpx.AsyncClient, nc: NatsClient
) -> None:
    anna = human("Anna")
    first = game_ended([anna, bot()], scores=[12, 30], places=[2, 1], points=[27, 60],
                       at=datetime(2026, 11, 28, 20, 15, tzinfo=UTC))
    second = game_ended([bot(), anna], scores=[18, 26], places=[2, 1], points=[33, 56],
                        at=datetime(2026, 11, 29, 9, 40, tzinfo=UTC))
    await publish_and_wait(nc, second, first)

    response = await leaderboard.get(f"/players/{anna['player_id']}/results")

    assert [(result["game_id"], result["seat"], result["place"], result["score"], result["points"])
            for result in response.json()["results"]] == [
        (second.game_id, 1, 1, 26, 56),
        (first.game_id, 0, 2, 12, 27),
    ]


async def test_the_lists_can_be_rebuilt_from_the_stored_results(
    leaderboard: httpx.AsyncClient, nc: NatsClient, settings: Settings
) -> None:
    variant = fresh_variant()
    anna, bert = human("Anna"), human("Bert")
    await publish_and_wait(
        nc,
        game_ended([anna, bert], scores=[31, 12], places=[1, 2], points=[61, 27], variant=variant),
        game_ended([bert, anna], scores=[19, 19], places=[1, 1], points=[49, 49], variant=variant),
    )
    before = await entries(leaderboard, variant)

    engine = create_engine(settings)
    async with session_factory(engine)() as session, session.begin():
        await rebuild_standings(session)
    await engine.dispose()

    assert await entries(leaderboard, variant) == before


async def test_leaving_a_game_with_other_humans_costs_ten_points(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna, bert = human("Anna"), human("Bert")
    await publish_and_wait(nc, game_ended([anna, bert], scores=[30, 12], places=[1, 2], points=[60, 27],
                                          variant=variant, left=[1], left_with_other_humans=[1]))
    listed = {entry["name"]: entry["points"] for entry in await entries(leaderboard, variant)}
    assert listed == {"Anna": 60, "Bert": -10}


async def test_leaving_a_solo_game_brings_no_points_and_no_penalty(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    variant = fresh_variant()
    anna = human("Anna")
    await publish_and_wait(nc, game_ended([anna, bot()], scores=[30, 12], places=[1, 2], points=[60, 27],
                                          variant=variant, left=[0]))
    listed = {entry["name"]: entry["points"] for entry in await entries(leaderboard, variant)}
    assert listed == {"Anna": 0}


async def test_a_burst_of_ended_games_with_a_copy_and_a_broken_one_lands_in_the_list_each_game_once(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    # The games of a busy minute arrive together and are projected in batches (one transaction each).
    variant = fresh_variant()
    anna, bert = human("Anna"), human("Bert")
    games = [game_ended([anna, bert], scores=[20 + i, 10], places=[1, 2], points=[5, 1], variant=variant)
             for i in range(30)]
    broken = game_ended([anna, bert], scores=[99], places=[1, 2], points=[500, 500], variant=variant)  # no score 2
    copy = games[7]
    sequences = await asyncio.gather(
        *(publish(nc, event) for event in games[:15]),
        publish(nc, broken),
        publish(nc, copy, msg_id=f"{game_fact_msg_id(copy.game_id, copy.n)}:again"),
        *(publish(nc, event) for event in games[15:]))
    await wait_until_consumed(nc, max(sequences))

    assert [(entry["name"], entry["points"], entry["games"], entry["wins"], entry["best_score"])
            for entry in await entries(leaderboard, variant)] == [("Anna", 150, 30, 30, 49), ("Bert", 30, 30, 0, 10)]
