"""Daily seeds: today's and tomorrow's commitments published, each seed revealed only once its day is over."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from libs.platform.days import berlin_day, day_end, iso_z
from libs.platform.settings import Settings
from services.lobby.daily import ensure_upcoming_seeds
from tests.clocks import ShiftedClock
from tests.lobby.conftest import Lobby
from tests.lobby.home_helpers import KnownSeeds, another_lobby

pytestmark = pytest.mark.usefixtures("with_tinygame")


@pytest.fixture(scope="module")
async def far_lobby(lobby_settings: Settings) -> AsyncIterator[tuple[Lobby, KnownSeeds]]:
    """A lobby replica whose clock is years ahead (days no other test touched), with predictable seeds."""
    clock = ShiftedClock()
    clock.advance(days=2000 + uuid.uuid4().int % 20000)
    seeds = KnownSeeds(uuid.uuid4().hex)
    async with another_lobby(lobby_settings, clock=clock, seeds=seeds) as replica:
        yield replica, seeds


async def test_today_and_tomorrow_are_committed_for_every_daily_mode(
        far_lobby: tuple[Lobby, KnownSeeds]) -> None:
    lobby, seeds = far_lobby
    today = berlin_day(lobby.clock.now())
    tomorrow = today + timedelta(days=1)

    answer = await lobby.http.get("/daily")

    assert answer.status_code == 200, answer.text
    listed = {(entry["game"], entry["mode"], entry["day"]): entry for entry in answer.json()}
    for game, mode, title in (("speedmosaik", "tageswerkstatt", "Tageswerkstatt"),
                              ("tinygame", "tagesstich", "Tagesstich")):
        for day in (today, tomorrow):
            entry = listed[(game, mode, day.isoformat())]
            assert entry["title"] == title and entry["seed"] is None
            assert entry["reveal_at"] == iso_z(day_end(day))
            # The commitment is sha256 of a seed this replica's source drew (nobody else knew these days).
            assert entry["commitment"] in {hashlib.sha256(seed).hexdigest() for seed in seeds.drawn}
    assert len(listed) == len(answer.json())  # one entry per mode and day


async def test_a_seed_is_revealed_only_after_its_day_and_matches_its_commitment(
        far_lobby: tuple[Lobby, KnownSeeds]) -> None:
    lobby, _ = far_lobby
    today = berlin_day(lobby.clock.now()).isoformat()
    before = await lobby.http.get(f"/daily/tinygame/tagesstich/{today}")
    assert before.status_code == 200 and before.json()["seed"] is None

    lobby.clock.advance(days=1)  # tomorrow at the same time: today is over
    after = await lobby.http.get(f"/daily/tinygame/tagesstich/{today}")

    assert after.status_code == 200
    revealed = after.json()
    assert revealed["commitment"] == before.json()["commitment"]
    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == revealed["commitment"]
    # The new today is not over: its seed stays secret.
    new_today = berlin_day(lobby.clock.now()).isoformat()
    assert (await lobby.http.get(f"/daily/tinygame/tagesstich/{new_today}")).json()["seed"] is None


async def test_replicas_hand_out_the_same_seed_whoever_drew_first(
        far_lobby: tuple[Lobby, KnownSeeds], lobby_settings: Settings) -> None:
    lobby, _ = far_lobby
    clock = ShiftedClock()
    clock.offset = lobby.clock.offset
    other_seeds = KnownSeeds("another replica")
    async with another_lobby(lobby_settings, clock=clock, seeds=other_seeds) as replica:
        mine = await ensure_upcoming_seeds(lobby.runtime)
        theirs = await ensure_upcoming_seeds(replica.runtime)
    assert {key: row.seed for key, row in mine.items()} == {key: row.seed for key, row in theirs.items()}


async def test_refusals(far_lobby: tuple[Lobby, KnownSeeds]) -> None:
    lobby, _ = far_lobby
    today = berlin_day(lobby.clock.now())
    after_tomorrow = (today + timedelta(days=2)).isoformat()
    long_ago = (today - timedelta(days=400)).isoformat()

    malformed = await lobby.http.get("/daily/tinygame/tagesstich/morgen")
    too_early = await lobby.http.get(f"/daily/tinygame/tagesstich/{after_tomorrow}")
    never = await lobby.http.get(f"/daily/tinygame/tagesstich/{long_ago}")
    not_daily = await lobby.http.get(f"/daily/tinygame/reise/{today.isoformat()}")
    unknown_game = await lobby.http.get(f"/daily/schach/tagesstich/{today.isoformat()}")

    assert malformed.status_code == 422 and malformed.json() == {
        "detail": "„morgen“ ist kein Tag der Form JJJJ-MM-TT.", "code": "invalid_day"}
    assert too_early.status_code == 404 and too_early.json()["code"] == "seed_not_found"
    assert "gibt es noch nicht" in too_early.json()["detail"]
    assert never.status_code == 404 and never.json() == {
        "detail": f"Für den {long_ago} gibt es keinen Tagessamen von „Tagesstich“.", "code": "seed_not_found"}
    assert not_daily.status_code == 404 and not_daily.json()["code"] == "unknown_mode"
    assert unknown_game.status_code == 404 and unknown_game.json()["code"] == "unknown_game"
    # Nothing was made for the refused days.
    assert (await lobby.http.get(f"/daily/tinygame/tagesstich/{long_ago}")).status_code == 404


async def test_the_worker_publishes_tomorrows_commitment_before_anyone_asks(lobby_settings: Settings) -> None:
    clock = ShiftedClock()
    clock.advance(days=30000 + uuid.uuid4().int % 10000)
    seeds = KnownSeeds(uuid.uuid4().hex)
    async with another_lobby(lobby_settings, clock=clock, seeds=seeds) as replica:
        tomorrow = berlin_day(clock.now()) + timedelta(days=1)
        for _ in range(200):  # the worker runs at startup; no request has asked for a seed yet
            if len(seeds.drawn) >= 4:
                break
            await asyncio.sleep(0.05)
        drawn = {hashlib.sha256(seed).hexdigest() for seed in seeds.drawn}
        answer = await replica.http.get(f"/daily/speedmosaik/tageswerkstatt/{tomorrow.isoformat()}")
    assert answer.status_code == 200 and answer.json()["commitment"] in drawn
