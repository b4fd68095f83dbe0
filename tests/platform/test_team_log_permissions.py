"""Team logs (side moves, ``game.<id>.team.<k>`` on GAMES) under the NATS users: only the table appends to one,
and the archive's user reads them through its own durable consumer (docs/architecture.md, "Side moves")."""

from __future__ import annotations

import uuid

import pytest
from nats.aio.client import Client as NatsClient
from nats.js.errors import NotFoundError

from libs.platform.contracts.subjects import (
    GAMES_STREAM,
    TABLE_ARCHIVE_DURABLE,
    TABLE_ARCHIVE_TEAMS_DURABLE,
    team_subject,
)
from libs.platform.nats_permissions import ARCHIVE, TABLE
from libs.platform.settings import Settings
from tests.platform.test_nats_permissions import connected_as, credentials  # noqa: F401 (the fixture)

pytestmark = pytest.mark.usefixtures("credentials")


async def test_only_the_table_appends_to_a_team_log(settings: Settings, nc: NatsClient) -> None:
    game_id = uuid.uuid4().hex
    subject = team_subject(game_id, 0)
    for intruder in ("leaderboard", "ledger", "lobby", "bot"):
        async with connected_as(settings, intruder) as connection:
            await connection.nc.publish(subject, b'{"forged": true}')
            assert await connection.refused(subject), intruder
    with pytest.raises(NotFoundError):
        await nc.jetstream().get_last_msg(GAMES_STREAM, subject)
    async with connected_as(settings, "table") as table:
        ack = await table.nc.jetstream().publish(subject, b'{"allowed": true}', stream=GAMES_STREAM)
    assert (await nc.jetstream().get_last_msg(GAMES_STREAM, subject)).seq == ack.seq
    await nc.jetstream().purge_stream(GAMES_STREAM, subject=subject)


def test_the_archive_user_has_a_consumer_for_the_team_logs_and_the_table_may_publish_them() -> None:
    assert "game.*.team.*" in TABLE.publish
    assert any(TABLE_ARCHIVE_TEAMS_DURABLE in subject for subject in ARCHIVE.publish)
    assert any(TABLE_ARCHIVE_DURABLE in subject for subject in ARCHIVE.publish)
    assert not any(subject.startswith("game.") for subject in ARCHIVE.publish)  # it reads, never appends
