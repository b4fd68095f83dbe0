"""The table's HTTP API: thin routes that parse, call the game handlers, and shape the answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig, DeliverPolicy
from pydantic import BaseModel, Field

from libs.audit import EXPORT_FORMAT, audit
from libs.audit.pins import keys_answer_pins
from libs.platform.auth import Identity
from libs.platform.clock import clock_of
from libs.platform.contracts.commands import ADVISE, AdviseRequest
from libs.platform.contracts.subjects import game_subject, team_subject
from libs.platform.envelope import Event, EventType
from libs.platform.http_errors import refusals
from libs.platform.nats_client import stream_sequence
from libs.platform.private import opened
from libs.platform.ratelimit import client_address
from libs.platform.responses import CountedStream, JsonBody
from libs.platform.rpc import CommandRefused, call
from libs.platform.service import CurrentPlayer, Runtime, RuntimeDep, bearer_token, identity_of
from libs.rules import IllegalMove
from services.table import metrics, signing_routes
from services.table.event_store import StoredEvent
from services.table.games import CONFLICT_CODES, Games, LeftGame, games_of
from services.table.live_limits import LiveLimits
from services.table.records import GameRecord, seats_of
from services.table.team_exports import side_teams
from services.table.views import game_view, public_event

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(403, 404, 409, 429, 503))


class MoveRequest(BaseModel):
    move: dict[str, Any]
    expected_n: int | None = Field(default=None, ge=1, description="refuse if the log has moved on")


class PreviewRequest(BaseModel):
    move: dict[str, Any]


def _seat_of(record: GameRecord, player: Identity) -> int:
    seat = record.seat_of(player.player_id)
    if seat is None:
        raise CommandRefused(403, "Du sitzt nicht an dieser Partie.", "not_seated")
    return seat.index


def _playing_seat(record: GameRecord, player: Identity) -> int:
    """The caller's seat, refused (403) once they left the game: the computer decides for it from then on."""
    seat = _seat_of(record, player)
    if seat in record.left:
        raise LeftGame()
    return seat


@router.get("/{game_id}")
async def read_game(game_id: str, runtime: RuntimeDep) -> JsonBody:
    """The game as a spectator sees it (no seat's hidden data)."""
    return JsonBody(game_view(await games_of(runtime).load(game_id), None, clock_of(runtime)))


@router.get("/{game_id}/view")
async def read_view(game_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> JsonBody:
    """The game as the caller's seat sees it, with its legal moves when it is the caller's turn."""
    return await seat_view(runtime, game_id, player)


@router.post("/{game_id}/moves", responses={200: {"model": signing_routes.MoveAnswer,
                                                  "description": "the caller's view after the move, with its receipt"}})
async def make_move(game_id: str, body: MoveRequest, player: CurrentPlayer, runtime: RuntimeDep) -> JsonBody:
    """Make a move for the caller's seat; it is in the log before this answers (403 once they left).

    The answer is the caller's view after the move plus `receipt`: the table's Ed25519 signature of the move's
    event hash (docs/audit.md, "Signatures and receipts"); keep it to prove later what the log said."""
    return await seat_move(runtime, game_id, player, body.move, body.expected_n)


# The work of the two routes above, shared with their lean path (services/table/fast_routes.py), which serves
# the same requests without FastAPI's per-request machinery: one body of code, one behaviour.
async def seat_view(runtime: Runtime, game_id: str, player: Identity) -> JsonBody:
    """The game as `player`'s seat sees it (403 if they have no seat, 404 if there is no such game)."""
    record = await games_of(runtime).load(game_id)
    return JsonBody(game_view(record, _seat_of(record, player), clock_of(runtime)))


async def seat_move(runtime: Runtime, game_id: str, player: Identity, move: dict[str, Any],
                    expected_n: int | None) -> JsonBody:
    """Make `move` for `player`'s seat and return the seat's view after it; the move is in the log first."""
    games = games_of(runtime)
    seat = _seat_of(await games.seated(game_id), player)
    record = await games.move(game_id, seat, move, actor=player.player_id, chosen_by="player",
                              expected_n=expected_n)
    return JsonBody({**game_view(record, seat, clock_of(runtime)), "receipt": signing_routes.receipt_of(record, seat)})


@router.post("/{game_id}/leave")
async def leave_game(game_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Leave a running game: the computer plays on for your seat (with other humans: −10 on the list)."""
    games = games_of(runtime)
    seat = _seat_of(await games.load(game_id), player)
    record = await games.leave(game_id, seat, player.player_id)
    return game_view(record, seat, clock_of(runtime))


@router.post("/{game_id}/preview")
async def preview_move(game_id: str, body: PreviewRequest, player: CurrentPlayer,
                       runtime: RuntimeDep) -> dict[str, Any]:
    """What the move would bring the caller (points, floor, warnings), without making it."""
    record = await games_of(runtime).load(game_id)
    seat = _playing_seat(record, player)
    try:
        return {"move": body.move, "preview": record.engine.preview(record.position, seat, body.move)}
    except IllegalMove as error:  # the same status and code the move itself would be refused with
        raise CommandRefused(409 if error.code in CONFLICT_CODES else 422, error.reason, error.code) from error


@router.get("/{game_id}/advice")
async def master_advice(game_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """"Rat des Meisters": the move the strong computer would make, with its reason.

    Only at a table without other humans (a hint would be unfair to them), and only on the caller's turn.
    """
    record = await games_of(runtime).load(game_id)
    seat = _playing_seat(record, player)
    if record.has_other_humans(seat):
        metrics.ADVICE.labels("refused").inc()
        raise CommandRefused(403, "Rat des Meisters gibt es nur, wenn keine anderen Menschen mitspielen.",
                             "advice_not_allowed")
    if not record.is_running or not record.engine.can_act(record.position, seat):
        raise CommandRefused(409, "Du bist gerade nicht am Zug.", "not_your_turn")
    advice = await call(runtime.nc, ADVISE, AdviseRequest(
        rules=record.module.rules_id, seat=seat, view=record.engine.view(record.position, seat),
        game_id=game_id, n=record.n,
    ), timeout=15.0)
    metrics.ADVICE.labels("given").inc()
    preview = record.engine.preview(record.position, seat, advice.move) if advice.move else None
    return {"game_id": game_id, "n": record.n, "move": advice.move, "reason": advice.reason, "preview": preview}


@router.get("/{game_id}/events")
async def read_log(game_id: str, runtime: RuntimeDep,
                   authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The game's log for replays and audits: complete once the game has ended, redacted before."""
    events = await games_of(runtime).events(game_id)
    is_ended = events[-1].event.type == EventType.GAME_ENDED
    viewer = None
    if authorization:  # a header that is no valid bearer token is refused, not ignored
        identity = identity_of(runtime, bearer_token(authorization) or authorization)
        viewer = next((seat.index for seat in seats_of(events[0].event) if seat.player_id == identity.player_id),
                      None)
    body: dict[str, Any] = {"game_id": game_id, "ended": is_ended,
                            "events": [public_event(stored.event, viewer, is_ended) for stored in events]}
    team = next((team for team in side_teams(events[0].event) if viewer in team[1]), None)
    if team is not None:  # a team member also reads their own team log (side moves), whole; nobody else does
        body["team_log"] = {"team": team[0], "seats": list(team[1]), "events": [
            stored.event.to_json() for stored in await games_of(runtime).team_events(game_id, team[0])]}
    return body


@router.get("/{game_id}/audit")
async def audit_game(game_id: str, runtime: RuntimeDep) -> dict[str, Any]:
    """Check an ended game with `libs.audit` (what `speed audit` runs on an export): the hash chain, the seed
    against its commitment, and replaying the moves gives the recorded effects and outcome; the signatures against
    the table's own keys and their periods (what `GET /keys` publishes), never only the keys the log names."""
    events = await games_of(runtime).events(game_id)
    if events[-1].event.type != EventType.GAME_ENDED:
        raise CommandRefused(409, "Die Partie läuft noch; prüfen lässt sie sich nach dem Ende.", "game_running")
    keyring = games_of(runtime).keyring
    report = audit({"format": EXPORT_FORMAT, "game_id": game_id, "seed": _seed_of(events),
                    "signing_keys": [] if keyring is None else keyring.published_for(
                        stored.event.sig["kid"] for stored in events if stored.event.sig),
                    "events": [stored.event.to_json() for stored in events]},
                   pins=None if keyring is None else keys_answer_pins(keyring.published(), "table"))
    difference = report.difference
    outcome_held = "outcome" in report.checks
    if difference is not None and difference.check != "outcome" and not outcome_held:
        return {"game_id": game_id, "chain_ok": False, "problem": difference.line()}
    answer = {"game_id": game_id, "chain_ok": True, "events": len(events),
              "outcome_matches": difference is None or outcome_held, "outcome": report.outcome,
              "verdict": report.verdict()}
    if difference is not None and outcome_held:  # a check after the outcome failed: the timeout moves
        answer["problem"] = difference.line()
    return answer


def _seed_of(events: list[StoredEvent]) -> str:
    """The game's seed, hex: GameEnded's, or (a daily game's, kept out of GameEnded) GameStarted's sealed one;
    the answer never shows it."""
    revealed = events[-1].event.data.get("seed")
    if revealed:
        return str(revealed)
    try:
        return str(opened(events[0].event.data.get("seed")))
    except KeyError:
        return ""


@router.get("/{game_id}/live")
async def live_updates(game_id: str, runtime: RuntimeDep, request: Request,
                       token: Annotated[str | None, Query()] = None,
                       authorization: Annotated[str | None, Header()] = None) -> StreamingResponse:
    """Server-sent events: the viewer's view after every event in the log (token optional: spectator).

    429 when the caller's address, the player, or all spectators together hold their limit of open streams.
    """
    games = games_of(runtime)
    record = await games.load(game_id)
    raw = token or bearer_token(authorization)
    identity = identity_of(runtime, raw) if raw else None
    viewer = _seat_of(record, identity) if identity is not None else None
    limits: LiveLimits = runtime.extras["live_limits"]
    release = limits.open(client_address(request.scope, runtime.settings.trusted_proxies),
                          identity.player_id if identity is not None else None)
    return CountedStream(_stream(runtime, games, record, viewer, request), release,
                         media_type="text/event-stream",
                         headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _stream(runtime: Runtime, games: Games, record: GameRecord, viewer: int | None,
                  request: Request) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[Msg] = asyncio.Queue()

    async def on_event(msg: Msg) -> None:
        await queue.put(msg)

    subscriptions = [await runtime.js.subscribe(
        game_subject(record.game_id), ordered_consumer=True, cb=on_event,
        config=ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=record.last_seq + 1),
    )]
    team = record.team_of_seat(viewer)
    if team is not None:  # a team member is also told of their own team log's entries (never the other team's)
        subscriptions.append(await runtime.js.subscribe(
            team_subject(record.game_id, team.team), ordered_consumer=True, cb=on_event,
            config=ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=team.last_seq + 1),
        ))
    metrics.LIVE_STREAMS.inc()
    try:
        yield _sse("update", _live_view(runtime, record, viewer), _sse_id(record, viewer))
        while record.ended is None:
            try:
                msg = await asyncio.wait_for(queue.get(), timeout=15.0)
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield b": keep-alive\n\n"
                continue
            while not queue.empty():  # only the newest event matters: the view shows the game after it
                msg = queue.get_nowait()
            if team is None:
                # The delivered event is folded onto the cached game (no read of the log when it is one behind).
                latest = await games.at_event(Event.decode(msg.data), stream_sequence(msg))
            else:  # the game's log or the team's: read both as they stand
                latest = await games.load(record.game_id)
            if _progress(latest, viewer) > _progress(record, viewer):
                record = latest
                yield _sse("update", _live_view(runtime, record, viewer), _sse_id(record, viewer))
    finally:
        metrics.LIVE_STREAMS.dec()
        for subscription in subscriptions:
            try:
                await subscription.unsubscribe()
            except Exception:  # the connection may be closing
                pass


def _live_view(runtime: Runtime, record: GameRecord, viewer: int | None) -> dict[str, Any]:
    """A live update: the viewer's view and the signed receipt of the event it shows the game after (for a team
    member after their own team's side move: that entry's, with `team`)."""
    return {**game_view(record, viewer, clock_of(runtime)), "receipt": signing_routes.receipt_of(record, viewer)}


def _progress(record: GameRecord, viewer: int | None) -> tuple[int, int]:
    """How far `viewer` has seen the game: the log's n, and their own team log's n (0 without one)."""
    team = record.team_of_seat(viewer)
    return record.n, team.n if team is not None else 0


def _sse_id(record: GameRecord, viewer: int | None) -> str:
    """An update's id: the log's n; for a team member "<n>.<team log's n>" (their team's entries count too)."""
    team = record.team_of_seat(viewer)
    return str(record.n) if team is None else f"{record.n}.{team.n}"


def _sse(kind: str, body: dict[str, Any], event_id: str) -> bytes:
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (event_id.encode(), kind.encode(), msgspec.json.encode(body))

