"""Quick match ("Schnell spielen"): a queue per game, variant and stake that seats players of like rating at a
table that starts at once, filled with computers after the time each player chose.

The queue lives in PostgreSQL (`match_requests`, one row per player waiting; `match_pools`, one row per queue),
shared by every lobby replica without a lock of our own: a matching round takes a pool's row with
`FOR UPDATE SKIP LOCKED` (another replica busy with that pool is skipped, not waited for) and then the pool's
waiting rows `FOR UPDATE SKIP LOCKED` (a row being cancelled right now waits for the next round). A request
leaves `waiting` only in a transaction holding its row lock, and the partial unique index on waiting player
ids keeps a player from waiting twice, so nobody is seated twice.

Who plays whom is services/lobby/match_groups.py. The rating is asked of the leaderboard
(`leaderboard.cmd.ratings`) when a player enters; a leaderboard that does not answer leaves the player at the
starting 1500. A registered player's stake is held on entering (`hold:<match_id>:<player>:<round>`), given
back on cancel or drop, and, when seated, moved to a hold on the new table in one ledger booking (the ledger
collects a game's pot from holds on its table; the Taler never pass through the wallet) inside the transaction
that starts the game.

Heartbeat: the waiting player's client asks `GET /match/{id}` (the web page every 2 s); a request not asked for
within `MATCH_HEARTBEAT_SECONDS` is dropped and its stake given back. Nobody waits longer than half the
ledger's hold time (the hold would expire), like stake tables left open.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import nats.errors
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform import table_options as options
from libs.platform.auth import Identity, PlayerKind
from libs.platform.clock import clock_of
from libs.platform.contracts.commands import (
    RATINGS,
    RatingsQuery,
)
from libs.platform.http_errors import shown
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, call
from libs.platform.service import Runtime
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid
from services.lobby.match_groups import Group, Waiting, form_groups, needs_computers
from services.lobby.models import MatchPool, MatchRequest
from services.lobby.stakes import (
    HeldStake,
    StakeRefused,
    hold,
    holds_undone_on_failure,
    release,
    stale_after,
)
from services.lobby.table_settings import TableSettings, game_title, rule_module, validate_settings
from services.lobby.tables import describe, seat_match, seated_table

WAITING, SEATED, CANCELLED, DROPPED = "waiting", "seated", "cancelled", "dropped"
STARTING_RATING = 1500
MAX_FILL_AFTER = 600
RANGE_WORDS = ("2-4", "2–4")
TABLES_AT_ONCE = 4
"""Tables one round starts side by side (each holds a database connection while the table service answers)."""
ROUND_LIMIT = 500
"""Waiting players one round of one pool looks at (oldest first)."""
GONE = "Du warst zu lange nicht da (die Seite wurde geschlossen?); die Suche ist beendet."
TOO_LONG = "Du hast zu lange gewartet; die Suche ist beendet. Versuch es gleich noch einmal."


class MatchSettings(BaseSettings):
    """The quick match's own settings, from the environment."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    match_heartbeat_seconds: float = Field(default=30.0, gt=0)
    """MATCH_HEARTBEAT_SECONDS: a waiting player not heard of (`GET /match/{id}`) for this long is dropped."""
    match_interval_seconds: float = Field(default=0.5, gt=0)
    """MATCH_INTERVAL_SECONDS: how often each replica runs a matching round (and at once after a new entry)."""


def installing_matches(settings: MatchSettings | None) -> Callable[[Runtime], Any]:
    """Return the startup step that gives the lobby its quick-match settings (None: from the environment)."""

    async def install(runtime: Runtime) -> None:
        runtime.extras["match_settings"] = settings or MatchSettings()
        runtime.extras["match_wake"] = asyncio.Event()

    return install


def match_settings_of(runtime: Runtime) -> MatchSettings:
    """The quick-match settings installed at startup."""
    settings: MatchSettings = runtime.extras["match_settings"]
    return settings


# ---- entering, looking, cancelling ------------------------------------------------------------------------

async def enter_queue(runtime: Runtime, player: Identity, game: str, variant: str | None, seats: int | str,
                      stake: int, fill_after: int | None) -> dict[str, Any]:
    """Put `player` in the queue of `game`/`variant`/`stake` for the seat counts asked, stake held; or refuse.

    Refusals (German): unknown game or variant, seat counts the game does not allow, a stake not offered, a
    waiting time for computers out of range (422); already waiting (409 `already_queued`); not enough Taler
    (409, the ledger's reason); the ledger unreachable (503).
    """
    checked, seat_counts = _checked_request(game, variant, seats, stake, fill_after)
    variant_name = _variant_of(checked)
    log = get_logger(player_id=player.player_id, game=game, variant=variant_name)
    async with sessions_of(runtime)() as session:
        if await session.scalar(select(MatchRequest.match_id).where(MatchRequest.player_id == player.player_id,
                                                                    MatchRequest.status == WAITING)):
            raise _already_queued()
    rating = await _rating_of(runtime, player, checked.game, variant_name)
    now = clock_of(runtime).now()
    request = MatchRequest(
        match_id=uuid.uuid4().hex, player_id=player.player_id, name=player.name, account=player.kind.value,
        game=checked.game, variant=variant_name, stake=checked.stake, seat_counts=list(seat_counts),
        fill_after=fill_after, rating=rating, status=WAITING, created_at=now, seen_at=now)
    try:
        async with holds_undone_on_failure(runtime) as held, sessions_of(runtime).begin() as session:
            await session.execute(pg_insert(MatchPool).values(game=request.game, variant=request.variant,
                                                              stake=request.stake).on_conflict_do_nothing())
            if checked.stake > 0 and player.kind == PlayerKind.REGISTERED:
                await _hold_for_queue(runtime, request, held)
            session.add(request)
    except IntegrityError as error:  # another replica put the same player in a queue a moment ago
        raise _already_queued() from error
    log.info("match_queued", match_id=request.match_id, seats=seat_counts, rating=rating, stake=request.stake)
    wake = runtime.extras.get("match_wake")
    if wake is not None:
        wake.set()
    return _describe(request, now, match_settings_of(runtime))


async def look_at(runtime: Runtime, player: Identity, match_id: str) -> dict[str, Any]:
    """The player's match as it stands (waiting, seated with its table, cancelled, dropped); counts as the
    heartbeat while waiting. 404 for a match that is not the player's."""
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        # A round matching this request holds its row: skip the heartbeat then rather than wait for the round.
        request = (await session.execute(select(MatchRequest).where(MatchRequest.match_id == match_id)
                                         .with_for_update(skip_locked=True))).scalar_one_or_none()
        if request is None:
            request = await session.get(MatchRequest, match_id)
        elif request.status == WAITING:
            request.seen_at = now
        if request is None or request.player_id != player.player_id:
            raise _not_found()
        return await _answer(session, request, now, match_settings_of(runtime))


async def cancel(runtime: Runtime, player: Identity, match_id: str) -> dict[str, Any]:
    """Leave the queue (the stake goes back). A player already seated gets 409 `already_seated`: the game is on."""
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        request = (await session.execute(select(MatchRequest).where(MatchRequest.match_id == match_id)
                                         .with_for_update())).scalar_one_or_none()
        if request is None or request.player_id != player.player_id:
            raise _not_found()
        if request.status == SEATED:
            raise conflict("Du hast schon einen Tisch – die Partie läuft bereits.", "already_seated")
        if request.status == WAITING:
            await _release_queue_hold(runtime, request, because="match_left")
            request.status, request.ended_at, request.reason = CANCELLED, now, None
        get_logger(match_id=match_id).info("match_cancelled")
        return await _answer(session, request, now, match_settings_of(runtime))


# ---- the matching rounds ----------------------------------------------------------------------------------

async def run_matches(runtime: Runtime) -> None:
    """Worker: every MATCH_INTERVAL_SECONDS, and at once after a player entered here, match every pool once."""
    log = get_logger(worker="matchmaker")
    wake: asyncio.Event = runtime.extras["match_wake"]
    interval = match_settings_of(runtime).match_interval_seconds
    while not runtime.stopping.is_set():
        try:
            seated = await match_all(runtime)
            if seated:
                log.info("matches_made", players_seated=seated)
        except Exception:
            log.warning("match_round_failed", exc_info=True)
        wake.clear()
        stop = asyncio.ensure_future(runtime.stopping.wait())
        woken = asyncio.ensure_future(wake.wait())
        await asyncio.wait([stop, woken], timeout=interval, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        woken.cancel()


async def match_all(runtime: Runtime) -> int:
    """One round over every pool with players waiting; return how many players were seated."""
    async with sessions_of(runtime)() as session:
        pools = (await session.execute(select(MatchRequest.game, MatchRequest.variant, MatchRequest.stake)
                                       .where(MatchRequest.status == WAITING).distinct())).all()
    seated = 0
    for game, variant, stake in pools:
        seated += await match_pool(runtime, game, variant, stake)
    return seated


async def match_pool(runtime: Runtime, game: str, variant: str, stake: int) -> int:
    """Drop the pool's silent and overdue players, then seat the groups of like strength; return how many
    players were seated. A pool another replica is matching right now is skipped.

    The pool's row stays locked for the whole round, so one replica at a time decides who plays whom in a
    pool; each table is then started and committed in a transaction of its own that locks its players' rows and
    checks they still wait (a cancel may have come between), so a player sees the table the moment it starts.
    """
    now = clock_of(runtime).now()
    settings = match_settings_of(runtime)
    async with sessions_of(runtime).begin() as session:
        pool = (await session.execute(
            select(MatchPool).where(MatchPool.game == game, MatchPool.variant == variant, MatchPool.stake == stake)
            .with_for_update(skip_locked=True))).scalar_one_or_none()
        if pool is None:
            return 0
        rows = (await session.execute(
            select(MatchRequest).where(MatchRequest.game == game, MatchRequest.variant == variant,
                                       MatchRequest.stake == stake, MatchRequest.status == WAITING)
            .order_by(MatchRequest.created_at).limit(ROUND_LIMIT))).scalars().all()
        queue = []
        for request in rows:
            reason = _gone_reason(runtime, request, now, settings.match_heartbeat_seconds)
            if reason is not None:
                await _drop_gone(runtime, request.match_id, now, reason, settings.match_heartbeat_seconds)
                continue
            queue.append(Waiting(match_id=request.match_id, rating=request.rating,
                                 seat_counts=tuple(request.seat_counts), since=request.created_at,
                                 fill_after=request.fill_after))
        computers = await _computer_ratings(runtime, game, variant) if needs_computers(queue, now) else {}
        slots = asyncio.Semaphore(TABLES_AT_ONCE)

        async def seat(group: Group) -> int:
            async with slots:
                return len(group.humans) if await _seat_group(runtime, group) else 0

        # The groups share no player, so their tables start side by side, each in its own transaction.
        seated = sum(await asyncio.gather(*(seat(group) for group in form_groups(queue, now, computers))))
    return seated


async def _seat_group(runtime: Runtime, group: Group) -> bool:
    """Start one table for the group in a transaction of its own; return whether it started.

    Stakes move from the queue's holds to the table's: each paying player's queue hold becomes a hold on the
    table in one ledger booking before the start (`HoldStake.from_key`), so the Taler are never free in between.
    If anything fails, the table's holds go back to the wallets, the transaction rolls back, and each player
    whose queue hold was moved gets it held again (or is dropped when that is refused). A table service that
    does not answer leaves the group waiting for the next round; any other refusal drops the player it
    concerns (the ledger's "Nicht genug Taler …") or the whole group.
    """
    ids = [each.match_id for each in group.humans]
    released: list[str] = []
    try:
        async with holds_undone_on_failure(runtime) as held, sessions_of(runtime).begin() as session:
            locked = {request.match_id: request for request in (await session.execute(
                select(MatchRequest).where(MatchRequest.match_id.in_(ids), MatchRequest.status == WAITING)
                .with_for_update())).scalars().all()}
            if len(locked) != len(ids):
                return False  # someone cancelled or was dropped meanwhile: the next round decides anew
            members = [locked[match_id] for match_id in ids]
            first = members[0]
            checked = _table_settings(first.game, first.variant, first.stake, group.seat_count)
            moving = {request.player_id: request.stake_key for request in members if request.stake_key is not None}
            humans = [Identity(player_id=request.player_id, name=request.name, kind=PlayerKind(request.account))
                      for request in members]
            try:
                table, _ = await seat_match(runtime, session, humans, checked, group.seat_count,
                                            group.bot_level or "normal", held, moving)
            finally:  # the queue holds moved to the table (undone on failure: back to the wallet, held anew)
                released += [request.match_id for request in members
                             if request.player_id in {stake.player_id for stake in held}]
            seated_at = clock_of(runtime).now()
            for request in members:
                request.stake_key = None  # moved to the table's hold
                request.status, request.ended_at = SEATED, seated_at
                request.table_id, request.game_id = table.table_id, table.game_id
        get_logger(game=first.game, variant=first.variant).info(
            "match_seated", table_id=table.table_id, game_id=table.game_id, humans=len(members),
            computers=group.computers, bot_level=group.bot_level)
        return True
    except CommandRefused as refusal:
        get_logger(match_ids=ids).warning("match_start_failed", status=refusal.status, reason=refusal.reason)
        refused_player = refusal.player_id if isinstance(refusal, StakeRefused) else None
        await _after_failed_start(runtime, ids, released, refusal, refused_player)
        return False


async def _after_failed_start(runtime: Runtime, ids: Sequence[str], released: Sequence[str],
                              refusal: CommandRefused, refused_player: str | None) -> None:
    """Hold the queue stakes given back for a start that failed again, and drop whom the refusal concerns."""
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        members = (await session.execute(select(MatchRequest).where(MatchRequest.match_id.in_(ids),
                                                                    MatchRequest.status == WAITING)
                                         .with_for_update())).scalars().all()
        for request in members:
            if request.match_id in released:
                request.stake_key = None  # the ledger gave that hold back
                try:
                    await _hold_for_queue(runtime, request, [])
                except CommandRefused as again:
                    request.status, request.ended_at, request.reason = DROPPED, now, again.reason
                    continue
            if refusal.status != 503 and refused_player in (None, request.player_id):
                await _drop(runtime, request, now, refusal.reason)


def _gone_reason(runtime: Runtime, request: MatchRequest, now: datetime, heartbeat: float) -> str | None:
    """Why a waiting player is to be dropped now (not heard of, or waiting past half the hold time), or None."""
    if request.seen_at < now - timedelta(seconds=heartbeat):
        return GONE
    if request.created_at <= now - stale_after(runtime.settings.hold_ttl_seconds):
        return TOO_LONG
    return None


async def _drop_gone(runtime: Runtime, match_id: str, now: datetime, reason: str, heartbeat: float) -> None:
    """Drop one player who went away or waited too long, in a transaction of its own (a heartbeat or cancel that
    came meanwhile wins); a stake that cannot go back now is tried again next round."""
    try:
        async with sessions_of(runtime).begin() as session:
            request = (await session.execute(select(MatchRequest).where(MatchRequest.match_id == match_id,
                                                                        MatchRequest.status == WAITING)
                                             .with_for_update(skip_locked=True))).scalar_one_or_none()
            if request is None or _gone_reason(runtime, request, now, heartbeat) != reason:
                return
            await _drop(runtime, request, now, reason)
    except CommandRefused:
        get_logger(match_id=match_id).warning("match_drop_deferred")
        return
    get_logger(match_id=match_id).info("match_dropped", reason=reason)


async def _drop(runtime: Runtime, request: MatchRequest, now: datetime, reason: str) -> None:
    await _release_queue_hold(runtime, request, because="match_left")
    request.status, request.ended_at, request.reason = DROPPED, now, reason


# ---- stakes and ratings -----------------------------------------------------------------------------------

async def _hold_for_queue(runtime: Runtime, request: MatchRequest, held: list[HeldStake]) -> None:
    """Have the ledger hold the stake for the waiting player (key on the request), or refuse as tables do."""
    stake = await hold(runtime, player_id=request.player_id, table_id=request.match_id, amount=request.stake)
    request.stake_key = stake.key
    held.append(stake)


async def _release_queue_hold(runtime: Runtime, request: MatchRequest, because: str) -> None:
    """Give back the stake held while waiting (if any), or refuse with 503 when the ledger does not answer."""
    if request.stake_key is None:
        return
    await release(runtime, HeldStake(request.match_id, request.player_id, request.stake_key), because)
    request.stake_key = None


async def _rating_of(runtime: Runtime, player: Identity, game: str, variant: str) -> int:
    """The player's shown rating in the list (1500 when new, or when the leaderboard does not answer)."""
    try:
        ratings = await call(runtime.nc, RATINGS, RatingsQuery(game=game, variant=variant,
                                                               player_ids=[player.player_id]), timeout=2.0)
    except (CommandRefused, nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        get_logger(player_id=player.player_id).warning("match_rating_unknown", problem=type(error).__name__)
        return STARTING_RATING
    return ratings.players[0].rating if ratings.players else STARTING_RATING


async def _computer_ratings(runtime: Runtime, game: str, variant: str) -> dict[str, int]:
    """Each computer level's shown rating in the list ({} when none played a rated game or no answer came)."""
    try:
        ratings = await call(runtime.nc, RATINGS, RatingsQuery(game=game, variant=variant), timeout=2.0)
    except (CommandRefused, nats.errors.TimeoutError, nats.errors.NoRespondersError):
        return {}
    return {computer.key: computer.rating for computer in ratings.computers}


# ---- checks and answers -----------------------------------------------------------------------------------

def _checked_request(game: str, variant: str | None, seats: int | str, stake: int,
                     fill_after: int | None) -> tuple[TableSettings, tuple[int, ...]]:
    module = rule_module(game)
    title = game_title(module)
    allowed = tuple(count for count in module.spec.seat_counts if 2 <= count <= 4)
    if not allowed:
        raise invalid(f"{title} spielt man nicht mit anderen am Tisch.", "invalid_seats")
    if isinstance(seats, str) and seats.strip() in RANGE_WORDS:
        seat_counts = allowed
    elif isinstance(seats, int) and not isinstance(seats, bool) and seats in allowed:
        seat_counts = (seats,)
    elif isinstance(seats, str) and seats.strip().isdigit() and int(seats) in allowed:
        seat_counts = (int(seats),)
    else:
        raise invalid(f"Schnell spielen gibt es bei {title} mit {_counts_text(allowed)} Plätzen oder „2–4“.",
                      "invalid_seats")
    key, variants = module.spec.variant_key, module.spec.variants
    if variant is not None and (variant not in variants if key else variant != module.game):
        known = _counts_text(tuple(variants)) if key else module.game
        raise invalid(f"Die Variante „{shown(variant)}“ gibt es bei {title} nicht (nur {known}).",
                      "unknown_variant")
    if fill_after is not None and not 0 <= fill_after <= MAX_FILL_AFTER:
        raise invalid(f"Computer füllen nach 0 bis {MAX_FILL_AFTER} Sekunden auf (oder nie).", "invalid_fill_after")
    try:
        options.stake(stake)
    except options.InvalidTableOption as error:
        raise invalid(error.reason, error.code) from error
    settings: dict[str, Any] = {"stake": stake}
    if key and variant is not None:
        settings[key] = variant
    checked = None
    for count in seat_counts:  # every seat count the player accepts must be playable in the variant
        checked = validate_settings(game, settings, count, is_solo=False)
    assert checked is not None
    return checked, seat_counts


def _table_settings(game: str, variant: str, stake: int, seat_count: int) -> TableSettings:
    key = rule_module(game).spec.variant_key
    settings: dict[str, Any] = {"stake": stake, **({key: variant} if key else {})}
    return validate_settings(game, settings, seat_count, is_solo=False)


def _variant_of(checked: TableSettings) -> str:
    key = rule_module(checked.game).spec.variant_key
    return str(checked.game_settings.get(key) or checked.game) if key else checked.game


def _counts_text(values: tuple[Any, ...]) -> str:
    words = [str(value) for value in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " oder " + words[-1]


async def _answer(session: AsyncSession, request: MatchRequest, now: datetime,
                  settings: MatchSettings) -> dict[str, Any]:
    answer = _describe(request, now, settings)
    if request.status == SEATED and request.table_id:
        table, seats = await seated_table(session, request.table_id)
        if table is not None:
            answer["table"] = describe(table, seats)
    return answer


def _describe(request: MatchRequest, now: datetime, settings: MatchSettings) -> dict[str, Any]:
    waiting = Waiting(match_id=request.match_id, rating=request.rating, seat_counts=tuple(request.seat_counts),
                      since=request.created_at, fill_after=request.fill_after)
    is_waiting = request.status == WAITING
    return {
        "match_id": request.match_id, "status": request.status, "game": request.game, "variant": request.variant,
        "seats": list(request.seat_counts), "stake": request.stake, "fill_after": request.fill_after,
        "rating": request.rating, "window": round(waiting.window(now)) if is_waiting else None,
        "waiting_since": request.created_at.isoformat(),
        "waited_seconds": round(((now if is_waiting else request.ended_at or now) - request.created_at)
                                .total_seconds(), 1),
        "fill_at": (request.created_at + timedelta(seconds=request.fill_after)).isoformat()
        if request.fill_after is not None else None,
        "stake_held": request.stake_key is not None, "reason": request.reason,
        "table_id": request.table_id, "game_id": request.game_id,
        "heartbeat_seconds": settings.match_heartbeat_seconds,
    }


def _already_queued() -> CommandRefused:
    return conflict("Du wartest schon auf eine Partie. Brich die Suche ab, bevor du eine neue beginnst.",
                    "already_queued")


def _not_found() -> CommandRefused:
    return CommandRefused(404, "Diese Suche gibt es nicht (oder sie ist nicht deine).", "match_not_found")
