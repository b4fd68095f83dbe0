"""Helpers for the leaderboard's home tests: a fresh copy of the tiny game per test (its own mode lists and
badges), and synthetic `GameEnded` facts with a solo mode, list keys and badges."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx

from libs.platform.contracts.events import EndedSeat, GameEnded, GameMode, Outcome
from libs.platform.days import day_start
from libs.platform.envelope import Event, EventType, new_event
from libs.rules import registry
from tests.leaderboard.conftest import bot, human, new_id
from tests.rules.tinygame import SPEC, TinyGame

__all__ = ["at_day", "bot", "ended", "fresh_game", "get_json", "human", "new_id"]


def fresh_game() -> str:
    """Register the tiny game under a new name (modes frei/tagesstich/reise, badges erster_stich/leer/serie).

    Its lists, badges and streaks belong to one test only.
    """
    name = f"zwerg{uuid.uuid4().hex[:10]}"

    class Fresh(TinyGame):
        spec = replace(SPEC, game=name)

    registry.register(Fresh())
    return name


def at_day(day: date, hour: int = 12) -> datetime:
    """A moment on the Berlin day `day` (`hour` hours after its start)."""
    return day_start(day) + timedelta(hours=hour)


def ended(
    game: str,
    seats: Sequence[dict[str, Any]],
    *,
    scores: Sequence[int],
    tie_break: Sequence[int] | None = None,
    places: Sequence[int] | None = None,
    mode: str | None = None,
    day: date | None = None,
    attempt: int | None = None,
    stage: int | None = None,
    badges: Sequence[Sequence[str]] | None = None,
    left: Sequence[int] = (),
    at: datetime | None = None,
    n: int = 40,
    seed_reveal_at: str | None = None,
) -> Event:
    """A sealed `GameEnded` of `game` as the table appends it; a mode game's list keys are (score, tie_break)."""
    ties = list(tie_break or [0] * len(seats))
    if places is None:
        places = [1 + sum((other, ties[o]) > (score, ties[i]) for o, other in enumerate(scores))
                  for i, score in enumerate(scores)]
    extra: dict[str, Any] = {}
    if mode is not None:
        extra["mode"] = GameMode(key=mode, day=None if day is None else day.isoformat(),
                                 attempt=attempt if day is None or attempt is not None else 1, stage=stage)
        extra["list_keys"] = [[score, tie] for score, tie in zip(scores, ties, strict=True)]
    if badges is not None:
        extra["badges"] = [list(keys) for keys in badges]
    if seed_reveal_at is not None:
        extra["seed_reveal_at"] = seed_reveal_at
    data = GameEnded(
        game=game, variant="einzeln", rules=f"{game}@1", table_id=f"t-{new_id()[:8]}",
        seats=[EndedSeat(**seat, seat=index) for index, seat in enumerate(seats)],
        outcome=Outcome(places=list(places), scores=list(scores), tie_break=ties, leaderboard_points=list(scores),
                        lines=[[] for _ in seats], summary={"key": "summary", "params": {}, "text": "Ende."}),
        seed="ab" * 32, left=list(left), **extra,
    ).to_data()
    when = at or (at_day(day) if day is not None else datetime.now(UTC))
    return new_event(game_id=new_id(), n=n, type=EventType.GAME_ENDED, actor="system", rules=f"{game}@1",
                     data=data, prev="cd" * 32, at=when)


async def get_json(client: httpx.AsyncClient, path: str, status: int = 200, **params: Any) -> Any:
    """GET `path` and return its JSON body, asserting the status."""
    response = await client.get(path, params=params)
    assert response.status_code == status, response.text
    return response.json()
