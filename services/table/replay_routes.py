"""The table's step-through replay: an ended game at event n, as one seat saw it, as the public saw it, or whole.

Who may read what (see docs/replay.md): a player of the game reads their own seat's view or the public
one, never another seat's and never the whole game; an operator reads any of them; anyone else nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query

from libs.platform.clock import clock_of
from libs.platform.envelope import EventType
from libs.platform.http_errors import refusals
from libs.platform.responses import JsonBody
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime, RuntimeDep
from services.table.event_store import StoredEvent
from services.table.games import games_of
from services.table.modes import is_revealed
from services.table.records import CorruptLog, Seat, seats_of
from services.table.replay_views import ALL, PUBLIC, Sight, step_event, step_lines, step_view
from services.table.replays import GameReplay, Replays, is_ended
from services.table.team_exports import side_teams
from services.table.viewers import Viewer, require_player_or_operator, viewer_of

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(401, 403, 404, 409))


def replays_of(runtime: Runtime) -> Replays:
    """Return the replica's replay cache (made on first use)."""
    replays: Replays = runtime.extras.setdefault("replays", Replays())
    return replays


def _corrupt(error: CorruptLog) -> CommandRefused:
    return CommandRefused(409, f"Das Protokoll dieser Partie lässt sich nicht nachspielen ({error}).", "log_corrupt")


def sight_of(asked: str | None, viewer: Viewer, seats: tuple[Seat, ...]) -> Sight:
    """Return what `viewer` asked to see (`asked`: a seat's number from 0, "public", or None/"all" for the whole
    game), refused (403) when it is not theirs to see and (422) when it names no seat of the game."""
    if asked is None or asked == ALL:
        sight = Sight(whole=True)
    elif asked == PUBLIC:
        sight = Sight()
    else:
        try:
            seat = int(asked)
        except ValueError:
            seat = -1
        if not 0 <= seat < len(seats):
            raise CommandRefused(422, f"„{asked[:20]}“ ist kein Platz dieser Partie: erlaubt sind 0 bis "
                                 f"{len(seats) - 1}, „public“ oder „all“.", "no_such_seat")
        sight = Sight(seat=seat)
    if viewer.is_operator or (sight.seat is None and not sight.whole):
        return sight
    if sight.whole:
        raise CommandRefused(403, "Die ganze Partie mit allen verdeckten Teilen sieht nur der Betrieb; "
                             "frag mit seat=<dein Platz> oder seat=public.", "not_yours")
    if sight.seat != viewer.seat:
        raise CommandRefused(403, "Die Sicht eines anderen Platzes bleibt verdeckt; du siehst nur deinen "
                             "eigenen Platz oder die öffentliche Sicht.", "not_yours")
    return sight


def replay_step(replay: GameReplay, game_id: str, n: int, sight: Sight, runtime: Runtime | None = None
                ) -> dict[str, Any]:
    """Return step `n` of an ended game's replay as `sight` sees it: the view after event n, that event, its
    log lines, who chose it and when, and the neighbouring step numbers (404 when the log has no event n)."""
    last = replay.last
    if not 1 <= n <= last:
        raise CommandRefused(404, f"Die Partie hat kein Ereignis Nummer {n}; es gibt 1 bis {last}.", "no_such_event")
    try:
        record = replay.record_at(n)
    except CorruptLog as error:
        raise _corrupt(error) from error
    event = replay.event(n)
    clock = clock_of(runtime) if runtime is not None else None
    seed_secret = (sight.whole and event.type == EventType.GAME_STARTED and bool(event.data.get("seed_reveal_at"))
                   and not is_revealed(replay.record_at(last), clock))
    step = {
        "game_id": game_id,
        "n": n,
        "of": last,
        "seat": sight.name,
        "event": step_event(event, sight, seed_secret=seed_secret),
        "view": step_view(record, sight, clock),
        "lines": step_lines(event, replay.seats, sight),
        "chosen_by": event.data.get("chosen_by"),
        "at": event.at,
        "prev": n - 1 if n > 1 else None,
        "next": n + 1 if n < last else None,
    }
    readable = [head.team for head in record.team_logs if sight.whole or sight.seat in head.seats]
    if readable:  # the team logs' entries after event n this sight may read (a team member: their own team's)
        step["team_events"] = [stored.event.to_json() for stored in replay.side_entries(n)
                               if stored.event.data.get("team") in readable]
    return step


@router.get("/{game_id}/replay")
async def replay_at(game_id: str, runtime: RuntimeDep,
                    n: Annotated[int, Query(description="the event to show, from 1 (GameStarted)")],
                    seat: Annotated[str | None, Query(description='a seat from 0, "public", or "all"/none: whole')]
                    = None,
                    authorization: Annotated[str | None, Header()] = None) -> JsonBody:
    """An ended game after event `n`, step by step: as the caller's own seat saw it, as the public saw it,
    or whole (operators only; any seat too). Only the game's players and operators may replay it."""
    replays = replays_of(runtime)
    replay = replays.cached(game_id)
    if replay is None:
        games = games_of(runtime)
        events = await games.events(game_id)
        if not is_ended(events):
            viewer = viewer_of(runtime, _seats_of_running(events), authorization)
            require_player_or_operator(viewer)
            raise CommandRefused(409, "Die Partie läuft noch; Schritt für Schritt nachspielen lässt sie sich "
                                 "nach dem Ende.", "game_running")
        side = [stored for team, _seats in side_teams(events[0].event)
                for stored in await games.team_events(game_id, team)]
        try:
            replay = replays.keep(game_id, events, side)
        except CorruptLog as error:
            raise _corrupt(error) from error
    viewer = viewer_of(runtime, replay.seats, authorization)
    require_player_or_operator(viewer)
    sight = sight_of(seat, viewer, replay.seats)
    return JsonBody(replay_step(replay, game_id, n, sight, runtime))


def _seats_of_running(events: list[StoredEvent]) -> tuple[Seat, ...]:
    """Who sits at a running game (nobody known when its log does not begin as it should)."""
    try:
        return seats_of(events[0].event)
    except (KeyError, TypeError, ValueError):
        return ()
