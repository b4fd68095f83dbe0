"""Schemathesis against every service's OpenAPI schema, over real HTTP to the five running services.

Each operation gets a bounded, reproducible number of generated requests, valid and invalid ones; every answer
must be no 5xx and must be what the schema documents: a documented status code, content type and body. The
routes that need a player get a real guest's bearer token from the lobby.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import httpx
import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from services.bot.app import create_app as create_bot
from services.leaderboard.app import create_app as create_leaderboard
from services.ledger.app import create_app as create_ledger
from services.lobby.app import create_app as create_lobby
from services.table.app import create_app as create_table
from tests.conftest import Platform

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = 20
"""Generated requests per operation and mode: enough to reach every refusal, bounded for 2 cores."""
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def bearer(platform_processes: Platform) -> Iterator[dict[str, str]]:
    """The header of a guest signed up at the lobby, as a client would get it."""
    answer = httpx.post(f"{platform_processes.url('lobby')}/guests", json={"name": "Fuzzi"})
    answer.raise_for_status()
    yield {"Authorization": f"Bearer {answer.json()['token']}"}


@pytest.fixture(scope="module")
def solo_game(platform_processes: Platform, bearer: dict[str, str]) -> str:
    """A running solo game of the guest against a computer, for the table's routes to work on."""
    answer = httpx.post(f"{platform_processes.url('lobby')}/tables/solo", headers=bearer,
                        json={"settings": {"workshop": "kachelwand"}})
    answer.raise_for_status()
    return str(answer.json()["game_id"])


_turns = itertools.count()


def _schema(create_app: Callable[[], FastAPI]) -> schemathesis.schemas.BaseSchema:
    """The service's schema as its app describes it (the same app the running process serves)."""
    schema = schemathesis.openapi.from_dict(create_app().openapi())
    schema.config.generation.update(max_examples=EXAMPLES, deterministic=True,
                                    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
    # coverage: boundary values and other methods of each operation; fuzzing: EXAMPLES generated requests.
    schema.config.phases.update(phases=["examples", "coverage", "fuzzing"])
    return schema


table = _schema(create_table)
lobby = _schema(create_lobby)
ledger = _schema(create_ledger)
leaderboard = _schema(create_leaderboard)
bot = _schema(create_bot)


def _call(case: schemathesis.Case, platform: Platform, service: str, bearer: dict[str, str]) -> None:
    case.call_and_validate(base_url=platform.url(service), headers=bearer, checks=CHECKS, timeout=20)


@table.parametrize()
@FUZZ
def test_table(case: schemathesis.Case, platform_processes: Platform, bearer: dict[str, str], solo_game: str) -> None:
    # Every other request goes to a real game the guest plays, so moves, previews, views and advice get past
    # "no such game" (not the live stream, which runs until the game ends, nor leaving, which ends the fun).
    if case.path_parameters and "game_id" in case.path_parameters and not case.path.endswith(("/live", "/leave")) \
            and next(_turns) % 2 == 0:
        case.path_parameters["game_id"] = solo_game
    _call(case, platform_processes, "table", bearer)


@lobby.parametrize()
@FUZZ
def test_lobby(case: schemathesis.Case, platform_processes: Platform, bearer: dict[str, str]) -> None:
    _call(case, platform_processes, "lobby", bearer)


@ledger.parametrize()
@FUZZ
def test_ledger(case: schemathesis.Case, platform_processes: Platform, bearer: dict[str, str]) -> None:
    _call(case, platform_processes, "ledger", bearer)


@leaderboard.parametrize()
@FUZZ
def test_leaderboard(case: schemathesis.Case, platform_processes: Platform, bearer: dict[str, str]) -> None:
    _call(case, platform_processes, "leaderboard", bearer)


@bot.parametrize()
@FUZZ
def test_bot(case: schemathesis.Case, platform_processes: Platform, bearer: dict[str, str]) -> None:
    _call(case, platform_processes, "bot", bearer)
