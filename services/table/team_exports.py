"""Which team logs (side moves: libs/platform/team_log.py) a reader of a finished game may have, and how an
export or a replay step carries them.

An operator reads every team's log; a player their own team's (an opponent's copy has no trace of the other
team's signals); a spectator none. A game without team logs adds nothing, so its export and replay keep their
exact shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.platform.envelope import Event
from libs.rules import ConfigError, registry
from libs.rules.registry import UnknownRules
from services.table.event_store import StoredEvent
from services.table.games import Games
from services.table.viewers import Viewer


@dataclass(frozen=True)
class TeamLogCopy:
    """One team log as a reader gets it: the team's index, its seats and every entry."""

    team: int
    seats: tuple[int, ...]
    events: list[StoredEvent]

    def to_json(self) -> dict[str, Any]:
        return {"team": self.team, "seats": list(self.seats), "events": [s.event.to_json() for s in self.events]}


def side_teams(started: Event) -> list[tuple[int, tuple[int, ...]]]:
    """The team logs a game may have (index, seats), read from its GameStarted (none for unknown rules)."""
    try:
        engine = registry.engine(started.rules)
        return list(enumerate(engine.side_teams(started.data.get("settings") or {},
                                                len(started.data.get("seats") or []))))
    except (UnknownRules, ConfigError, KeyError, TypeError, ValueError):
        return []


def readable_teams(started: Event, viewer: Viewer) -> list[tuple[int, tuple[int, ...]]]:
    """The team logs `viewer` may read: all for an operator, their own team's for a player, none else."""
    teams = side_teams(started)
    if viewer.is_operator:
        return teams
    return [team for team in teams if viewer.seat is not None and viewer.seat in team[1]]


async def readable_team_logs(games: Games, started: Event, viewer: Viewer) -> list[TeamLogCopy]:
    """Return the team logs `viewer` may read, whole (from the stream, or the archive once purged)."""
    return [TeamLogCopy(team=index, seats=seats, events=await games.team_events(started.game_id, index))
            for index, seats in readable_teams(started, viewer)]


def team_logs_field(team_logs: list[TeamLogCopy] | None) -> dict[str, Any]:
    """The export's ``team_logs`` field: present only for a game that has team logs the reader may read."""
    return {"team_logs": [log.to_json() for log in team_logs]} if team_logs else {}
