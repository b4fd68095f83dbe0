"""Migration 0003 gives every existing player a name skeleton; look-alikes registered before the rule keep
their accounts, and only the first of them owns the skeleton."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from alembic import command
from alembic.config import Config

from libs.platform.database import REPO_ROOT
from libs.platform.settings import Settings
from tests.conftest import Infrastructure, new_database


@pytest.fixture
def fresh_database(infra: Infrastructure) -> Iterator[str]:
    with new_database(infra, "names") as url:
        yield url


def migrate_lobby(database_url: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "services" / "lobby" / "migrations"))
    config.set_main_option("sqlalchemy.url", Settings(database_url=database_url).sqlalchemy_url)
    config.attributes["schema"] = "lobby"
    command.upgrade(config, revision)


def test_existing_players_get_skeletons_and_earlier_look_alikes_keep_their_accounts(fresh_database: str) -> None:
    migrate_lobby(fresh_database, "0002")
    players = [("p1", "Anna", "registered", "2026-01-01"), ("p2", "\u0410nna", "registered", "2026-02-01"),
               ("p3", "Ａｎｎａ", "guest", "2026-03-01"), ("p4", "Bert", "registered", "2026-01-15")]
    with psycopg.connect(fresh_database) as connection:
        for player_id, name, kind, created in players:
            connection.execute("INSERT INTO lobby.players (player_id, name, kind, created_at) "
                               "VALUES (%s, %s, %s, %s)", (player_id, name, kind, created))
    migrate_lobby(fresh_database, "head")
    with psycopg.connect(fresh_database) as connection:
        skeletons = dict(connection.execute("SELECT player_id, name_skeleton FROM lobby.players").fetchall())
        assert skeletons == {"p1": "anna", "p2": "anna#p2", "p3": "anna", "p4": "bert"}
        # From now on the skeleton is unique among registered players (whatever the name itself).
        with pytest.raises(psycopg.errors.UniqueViolation):
            connection.execute("INSERT INTO lobby.players (player_id, name, name_skeleton, kind) "
                               "VALUES ('p5', 'Other', 'anna', 'registered')")
