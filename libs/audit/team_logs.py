"""Check 6 (docs/audit.md): a game's team logs (side moves: Speednova's team signals from ``speednova@2``), when
the export carries them.

An export carries the team logs its reader may see (``team_logs``: an operator's every team's, a player's their own
team's, none for a game without side moves). Each is checked as a log of its own and against the game's log:

- its chain (``libs.platform.team_log.team_chain_problem``): numbered 1..k, linked from 64 zeros, every hash
  recomputing, every entry a SideMoveMade of this game and team, ``after`` never going back;
- its team is one the rules give this game (``side_teams``) with the same seats;
- its binding: every entry names a game event (``after``, before GameEnded) and that event's hash
  (``after_hash``), so it cannot be moved to another place of the game;
- its replay, merged into the game's: after game event n, every team's entries with ``after == n`` (team by team,
  each in order) are applied with the rules — the seat is the team's, the move is a side move of exactly this
  team, legal at that point, its effects the recomputed ones.

The game's own log must hold no side move (a MoveMade the rules call a side move would show the other team that
a signal was given). A copy with fewer team logs (an opponent's: only their own team's) replays the same game,
since nothing of the game's log depends on side moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from libs.audit.compare import first_difference, plain
from libs.audit.document import read_team_log_shapes
from libs.audit.report import Difference
from libs.platform.envelope import Event, EventType
from libs.platform.private import PRIVATE
from libs.platform.team_log import team_chain_problem
from libs.rules import IllegalMove
from libs.rules.engine import Engine, Position

CHECK = "team"
CHOSEN_BY = ("player", "bot", "timeout", "departed", "operator")


class TeamLogProblem(Exception):
    """A team log does not hold (its difference says where)."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(difference.reason)
        self.difference = difference


def _difference(team: int, n: int | None, name: str, expected: Any, found: Any, reason: str) -> TeamLogProblem:
    where = f"team_logs[{team}]" + (f".events[{n}]" if n is not None else "")
    return TeamLogProblem(Difference(CHECK, None, f"{where}.{name}" if name else where, expected, found,
                                     f"Teamprotokoll {team + 1}" + (f", Eintrag {n}" if n is not None else "")
                                     + f": {reason}"))


@dataclass(frozen=True)
class TeamLog:
    """One team log of an export: the team's index, its seats and its entries."""

    team: int
    seats: tuple[int, ...]
    events: list[Event]


def read_team_logs(raw: Any) -> list[TeamLog]:
    """Return the export's team logs (``team_logs``; absent: none). UnusableDocument when their shape is not an
    export's (``libs.audit.document.read_team_log_shapes``: an unknown or missing member of an entry, say);
    TeamLogProblem when a team is listed twice."""
    if raw is None:
        return []
    logs = [TeamLog(team=team, seats=seats, events=events) for team, seats, events in read_team_log_shapes(raw)]
    teams = [log.team for log in logs]
    if len(set(teams)) != len(teams):
        raise _difference(teams[0], None, "team", "jedes Team einmal", teams, "Ein Team ist doppelt aufgeführt.")
    for log in logs:
        for event in log.events:
            if _holds_private(event.data):
                raise _difference(log.team, event.n, "data", "keine privaten Teile", PRIVATE,
                                  "Ein Eintrag des Teamprotokolls hat keine privaten Teile (nur das Team liest es).")
    return logs


def _holds_private(value: Any) -> bool:
    """True if ``value`` holds an object with the member ``$private`` at any depth."""
    if isinstance(value, dict):
        return PRIVATE in value or any(_holds_private(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_private(item) for item in value)
    return False


def check_team_logs(logs: list[TeamLog], game: list[Event], engine: Engine, settings: Any, seat_count: int) -> None:
    """Check each team log's chain, team and binding to the game's log (before the merged replay)."""
    allowed = engine.side_teams(settings if isinstance(settings, dict) else {}, seat_count)
    last_move = max((event.n for event in game if event.type != EventType.GAME_ENDED), default=0)
    by_n = {event.n: event for event in game}
    for log in logs:
        if not 0 <= log.team < len(allowed) or tuple(allowed[log.team]) != log.seats:
            raise _difference(log.team, None, "seats", [list(team) for team in allowed], list(log.seats),
                              "Dieses Team hat nach den Regeln kein Teamprotokoll (oder andere Plätze).")
        problem = team_chain_problem(log.events, game[0].game_id, log.team)
        if problem is not None:
            raise _difference(log.team, problem[0], problem[1], None, None, problem[2])
        for event in log.events:
            after = event.data.get("after")
            if not isinstance(after, int) or not 1 <= after <= last_move:
                raise _difference(log.team, event.n, "data.after", f"1..{last_move}", after,
                                  "Der Eintrag folgt keinem Ereignis der laufenden Partie.")
            if event.data.get("after_hash") != by_n[after].hash:
                raise _difference(log.team, event.n, "data.after_hash", by_n[after].hash, event.data.get("after_hash"),
                                  f"Der Eintrag ist nicht an Ereignis {after} des Spielprotokolls gebunden.")
            if event.rules != game[0].rules:
                raise _difference(log.team, event.n, "rules", game[0].rules, event.rules,
                                  "Der Eintrag nennt eine andere Regelversion als GameStarted.")
            if list(event.data.get("seats") or []) != list(log.seats):
                raise _difference(log.team, event.n, "data.seats", list(log.seats), event.data.get("seats"),
                                  "Der Eintrag nennt andere Plätze als sein Team.")


@dataclass
class SideReplay:
    """The team logs' entries waiting to be folded into the replay, in the one merged order."""

    pending: list[tuple[int, int, TeamLog, Event]] = field(default_factory=list)
    replayed: int = 0
    mover: Callable[[Event, int, str], Difference | None] | None = None
    """Checks an entry's ``actor`` and ``chosen_by`` against the seats and departures the game's log proves so
    far (``libs.audit.actors.side_mover_difference``); set by the replay."""

    @staticmethod
    def of(logs: list[TeamLog]) -> SideReplay:
        entries = [(int(event.data["after"]), log.team, log, event) for log in logs for event in log.events]
        entries.sort(key=lambda entry: (entry[0], entry[1], entry[3].n))
        return SideReplay(pending=entries)

    def after(self, engine: Engine, position: Position, n: int) -> Position:
        """Apply every entry that follows game event ``n`` and return the position after them."""
        while self.pending and self.pending[0][0] == n:
            _after, team, log, event = self.pending.pop(0)
            position = self._apply(engine, position, team, log, event)
            self._check_mover(team, event)
            self.replayed += 1
        return position

    def _check_mover(self, team: int, event: Event) -> None:
        """Raise a TeamLogProblem where the entry's actor or ``chosen_by`` is not what the table writes."""
        if self.mover is None:
            return
        difference = self.mover(event, int(event.data["seat"]), str(event.data.get("chosen_by")))
        if difference is not None:
            raise _difference(team, event.n, difference.field, difference.expected, difference.found,
                              difference.reason)

    @staticmethod
    def _apply(engine: Engine, position: Position, team: int, log: TeamLog, event: Event) -> Position:
        data = event.data
        seat, move = data.get("seat"), data.get("move")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in log.seats:
            raise _difference(team, event.n, "data.seat", list(log.seats), seat, "Der Platz gehört nicht zum Team.")
        if data.get("chosen_by") not in CHOSEN_BY:
            raise _difference(team, event.n, "data.chosen_by", list(CHOSEN_BY), data.get("chosen_by"),
                              "Unbekannte Herkunft des Zuges.")
        try:
            side = engine.side_channel(position, seat, move)
        except Exception:
            side = None
        if side != log.seats:
            raise _difference(team, event.n, "data.move", "ein Nebenzug dieses Teams", move,
                              "Nach den Regeln ist dieser Zug kein Nebenzug des Teams; er gehört nicht hierher.")
        try:
            applied = engine.apply(position, seat, move)
        except IllegalMove as error:
            raise _difference(team, event.n, "data.move", "ein nach den Regeln erlaubter Zug", move,
                              f"Der Zug ist an dieser Stelle nicht erlaubt: {error.reason}") from None
        except Exception as error:
            raise _difference(team, event.n, "data.move", "ein nach den Regeln erlaubter Zug", move,
                              f"Der Zug ist nach den Regeln nicht lesbar ({type(error).__name__}).") from None
        found = data.get("effects")
        difference = first_difference(plain(applied.effects), plain(found) if isinstance(found, list) else found,
                                      "data.effects")
        if difference is not None:
            raise _difference(team, event.n, difference[0], difference[1], difference[2],
                              "Die verzeichneten Folgen des Nebenzugs weichen von den nachgerechneten ab.")
        return applied.position
