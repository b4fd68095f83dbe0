"""Handlers for tables: solo games, open tables, joining, leaving, starting, and "Nochmal" (rematch)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import nats.errors
from sqlalchemy import exists, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.auth import Identity
from libs.platform.clock import clock_of
from libs.platform.contracts.commands import START_GAME, Command, Rep, Req, StartedReply, StartGame, StartSeat
from libs.platform.contracts.events import GameMode, PlatformSettings
from libs.platform.logging import get_logger
from libs.platform.rpc import RESEND_AFTER, CommandRefused, call
from libs.platform.service import Runtime
from libs.rules import registry
from libs.rules.home import Home, SoloMode
from libs.rules.registry import UnknownRules
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid, table_not_found
from services.lobby.models import GamePlayer, GameTable, Seat
from services.lobby.stakes import (
    HeldStake,
    StakeRefused,
    hold_stake,
    holds_undone_on_failure,
    pays_stake,
    release_stake,
    stale_after,
)
from services.lobby.table_settings import (
    TableSettings,
    check_bot_level,
    normalize_game_settings,
    rule_module,
    validate_settings,
)

OPEN, PLAYING, FINISHED, REMATCH = "open", "playing", "finished", "rematch"
STATUSES = (OPEN, PLAYING, FINISHED, REMATCH)
MIN_SEATS, MAX_SEATS = 2, 4
LIST_LIMIT = 100
# "die Plätze der anderen bleiben bis zu zwei Minuten für sie frei"
REMATCH_HOLD = timedelta(minutes=2)


async def start_solo(runtime: Runtime, player: Identity, game: str, settings: dict[str, Any] | None,
                     opponents: int, bot_level: str) -> dict[str, Any]:
    """Seat `player` against 0–3 computers (as the game allows) and start the game at once (no stake).

    No computer at all is a game's solo mode, where it has one; the rule module's seat counts decide.
    """
    if not 0 <= opponents <= 3:
        raise invalid("Solo spielst du gegen 1 bis 3 Computer (oder allein, wo das Spiel es kennt).",
                      "invalid_opponents")
    check_bot_level(bot_level)
    seat_count = 1 + opponents
    checked = validate_settings(game, settings, seat_count, is_solo=True)
    async with sessions_of(runtime).begin() as session:
        table = _new_table(player, checked, seat_count, bot_level, fill_with_bots=True, is_solo=True,
                           now=clock_of(runtime).now())
        session.add(table)
        await session.flush()
        seats = [_human_seat(table.table_id, 0, player)]
        seats += [_bot_seat(table.table_id, index, index, bot_level) for index in range(1, seat_count)]
        await _start(runtime, session, table, seats)
    return describe(table, seats)


async def open_table(runtime: Runtime, host: Identity, game: str, settings: dict[str, Any] | None,
                     player_count: int, bot_level: str, fill_with_bots: bool) -> dict[str, Any]:
    """Open a table for 2–4 players with the host in seat 0."""
    if not MIN_SEATS <= player_count <= MAX_SEATS:
        raise invalid("Ein Tisch hat 2 bis 4 Plätze.", "invalid_player_count")
    check_bot_level(bot_level)
    checked = validate_settings(game, settings, player_count, is_solo=False)
    async with holds_undone_on_failure(runtime) as held, sessions_of(runtime).begin() as session:
        table = _new_table(host, checked, player_count, bot_level, fill_with_bots=fill_with_bots,
                           is_solo=False, now=clock_of(runtime).now())
        session.add(table)
        await session.flush()
        seat = _human_seat(table.table_id, 0, host)
        if pays_stake(table, host):
            await hold_stake(runtime, table, seat, held)
        session.add(seat)
    return describe(table, [seat])


async def seat_match(runtime: Runtime, session: AsyncSession, humans: Sequence[Identity], checked: TableSettings,
                     seat_count: int, bot_level: str, held: list[HeldStake],
                     moving: Mapping[str, str] | None = None) -> tuple[GameTable, list[Seat]]:
    """Open a quick match's table and start its game at once, inside the caller's transaction.

    The humans sit in seats 0.. in the order given (the first hosts), computers of `bot_level` in the rest;
    each registered player's stake is held on the table first (a refusal names the player: `StakeRefused`),
    moved in one ledger booking from the hold `moving[player_id]` where the player has one (the queue's).
    From then on it is a table like any other: chat, pot, end table and "Nochmal" work as at an open table.
    """
    table = _new_table(humans[0], checked, seat_count, bot_level, fill_with_bots=True, is_solo=False,
                       now=clock_of(runtime).now())
    seats = [_human_seat(table.table_id, index, human) for index, human in enumerate(humans)]
    refuse_two_seats(seats)  # before any stake is held: one player queued twice never plays themself
    session.add(table)
    await session.flush()
    for seat, human in zip(seats, humans, strict=True):
        if pays_stake(table, human):
            try:
                await hold_stake(runtime, table, seat, held, (moving or {}).get(human.player_id))
            except CommandRefused as refusal:
                if refusal.status == 503:
                    raise
                raise StakeRefused(refusal, human.player_id) from refusal
    seats += [_bot_seat(table.table_id, index, index - len(humans) + 1, bot_level)
              for index in range(len(humans), seat_count)]
    await _start(runtime, session, table, seats)
    return table, seats


async def seated_table(session: AsyncSession, table_id: str) -> tuple[GameTable | None, list[Seat]]:
    """A table and its seats as stored (None: gone), without settling rematch waits."""
    table = await session.get(GameTable, table_id)
    return table, (await _seats(session, table_id) if table is not None else [])


async def list_tables(runtime: Runtime, status: str, limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
    """Return the newest `limit` tables with `status`; open tables only while they have a free seat."""
    if status not in STATUSES:
        raise invalid("Den Tisch-Status gibt es nicht: „open“, „playing“, „finished“ oder „rematch“.",
                      "invalid_status")
    if status in (OPEN, REMATCH):
        await reopen_expired_rematches(runtime)
    async with sessions_of(runtime)() as session:
        tables = (await session.execute(
            select(GameTable).where(GameTable.status == status, GameTable.is_solo.is_(False))
            .order_by(GameTable.created_at.desc()).limit(min(limit, LIST_LIMIT)))).scalars().all()
        seats_by_table: dict[str, list[Seat]] = {table.table_id: [] for table in tables}
        if tables:
            rows = (await session.execute(select(Seat).where(Seat.table_id.in_(seats_by_table))
                                          .order_by(Seat.seat))).scalars().all()
            for seat in rows:
                seats_by_table[seat.table_id].append(seat)
    listed = [describe(table, seats_by_table[table.table_id]) for table in tables]
    return [table for table in listed if status != OPEN or table["free_seats"] > 0]


async def show_table(runtime: Runtime, table_id: str) -> dict[str, Any]:
    """Return one table with its seats, or 404 (seats kept past their two minutes are freed first)."""
    async with sessions_of(runtime)() as session:
        table = await session.get(GameTable, table_id)
        if table is None:
            raise table_not_found()
        is_due = _is_rematch_due(runtime, table)
        if not is_due:
            return describe(table, await _seats(session, table_id))
    async with sessions_of(runtime).begin() as session:
        table = await _locked_table(session, table_id)
        seats = await _settle_rematch(runtime, session, table, await _seats(session, table_id))
        if seats is None:
            raise table_not_found()
        return describe(table, seats)


async def join_table(runtime: Runtime, player: Identity, table_id: str) -> dict[str, Any]:
    """Seat `player` in the lowest free seat of an open table; exactly one wins the last seat."""
    try:
        async with holds_undone_on_failure(runtime) as held, sessions_of(runtime).begin() as session:
            table = await _locked_table(session, table_id)
            settled = await _settle_rematch(runtime, session, table, await _seats(session, table_id))
            if settled is None:
                raise table_not_found()
            seats = settled
            _refuse_unless_open(table)
            if any(seat.player_id == player.player_id for seat in seats):
                raise conflict("Du sitzt schon an diesem Tisch.", "already_seated")
            taken = {seat.seat for seat in seats}
            free = [index for index in range(table.player_count) if index not in taken]
            if not free:
                raise conflict("Der Tisch ist schon voll.", "table_full")
            seat = _human_seat(table_id, free[0], player)
            if pays_stake(table, player):
                await hold_stake(runtime, table, seat, held)
            session.add(seat)
            seats = sorted([*seats, seat], key=lambda each: each.seat)
    except IntegrityError as error:  # backstop behind the row lock: (table_id, seat) is unique
        raise conflict("Der Platz wurde gerade vergeben.", "seat_taken") from error
    return describe(table, seats)


async def leave_table(runtime: Runtime, player: Identity, table_id: str) -> dict[str, Any]:
    """Free `player`'s seat before the start (the held stake goes back); the next human hosts, an empty
    table is dissolved. While seats are kept for a rematch, leaving says "not this time"."""
    async with sessions_of(runtime).begin() as session:
        table = await _locked_table(session, table_id)
        settled = await _settle_rematch(runtime, session, table, await _seats(session, table_id))
        if settled is None:
            raise table_not_found()
        seats = settled
        if table.status not in (OPEN, REMATCH):
            raise conflict("Die Partie hat schon begonnen – aufstehen geht jetzt nur im Spiel.", "not_open")
        mine = next((seat for seat in seats if seat.player_id == player.player_id), None)
        if mine is None:
            raise conflict("Du sitzt nicht an diesem Tisch.", "not_seated")
        await release_stake(runtime, mine)
        if table.status == REMATCH:
            # The seat counts as "not coming back": freed when the table reopens, at once if nobody is
            # waited for any more.
            mine.held_until = clock_of(runtime).now()
            remaining = await _settle_rematch(runtime, session, table, seats)
            if remaining is None:
                return {**describe(table, []), "dissolved": True}
            return {**describe(table, remaining), "dissolved": False}
        await session.delete(mine)
        await session.flush()
        seats = [seat for seat in seats if seat is not mine]
        if not seats:
            await session.delete(table)
            return {**describe(table, []), "dissolved": True}
        if table.host_id == player.player_id:
            table.host_id = str(seats[0].player_id)
    return {**describe(table, seats), "dissolved": False}


async def start_table(runtime: Runtime, player: Identity, table_id: str) -> dict[str, Any]:
    """Start an open table (host only): free seats go to computers if wished, else at least two humans."""
    async with sessions_of(runtime).begin() as session:
        table = await _locked_table(session, table_id)
        _refuse_unless_open(table)
        if table.host_id != player.player_id:
            raise CommandRefused(403, "Nur wer den Tisch eröffnet hat, kann die Partie starten.", "not_host")
        seats = await _start_seated(runtime, session, table, await _seats(session, table_id))
    return describe(table, seats)


async def rematch_table(runtime: Runtime, player: Identity, table_id: str) -> dict[str, Any]:
    """"Nochmal": after the game, sit again at your seat (stake held again at stake tables).

    Alone with computers, the next game starts at once with the same settings and seats. With other
    humans the table waits up to two minutes for them, their seats kept; when all are back the next game
    starts by itself, otherwise the seats of those who did not come back are freed and the table reopens.
    """
    now = clock_of(runtime).now()
    is_everyone_back = False
    async with holds_undone_on_failure(runtime) as held, sessions_of(runtime).begin() as session:
        table = await _locked_table(session, table_id)
        seats = await _settle_rematch(runtime, session, table, await _seats(session, table_id))
        if seats is None:
            raise table_not_found()
        mine = next((seat for seat in seats if seat.player_id == player.player_id and seat.kind == "human"),
                    None)
        if table.status == OPEN:
            if mine is not None:
                raise conflict("Du sitzt schon wieder an diesem Tisch.", "already_back")
            reopened = True  # too late: the seats are free again, so sit down as anyone would
        else:
            reopened = False
            if table.status == PLAYING:
                raise conflict("Die Partie an diesem Tisch läuft noch.", "still_playing")
            if mine is None:
                raise CommandRefused(403, "Nochmal spielen kann nur, wer an diesem Tisch mitgespielt hat.",
                                     "not_a_player")
            humans = [seat for seat in seats if seat.kind == "human"]
            if table.status == FINISHED and (table.is_solo or len(humans) == 1):
                if pays_stake(table, player):
                    await hold_stake(runtime, table, mine, held)
                seats = await _start_seated(runtime, session, table, seats)
                return describe(table, seats)
            if table.status == FINISHED:
                table.status, table.rematch_until = REMATCH, now + REMATCH_HOLD
                for seat in seats:
                    if seat.kind == "bot":
                        await session.delete(seat)  # computers sit down again when the game starts
                    else:
                        seat.held_until = table.rematch_until
                seats = humans
            elif mine.held_until is None:
                raise conflict("Du sitzt schon wieder an diesem Tisch.", "already_back")
            mine.held_until = None
            if pays_stake(table, player):
                await hold_stake(runtime, table, mine, held)
            is_everyone_back = all(seat.held_until is None for seat in seats)
    if reopened:
        return await join_table(runtime, player, table_id)
    if is_everyone_back:
        await start_if_everyone_back(runtime, table_id)
    return await show_table(runtime, table_id)


async def start_if_everyone_back(runtime: Runtime, table_id: str) -> bool:
    """Start the next game at a rematch table once every human of the last game is back; return if started.

    Runs after the last "Nochmal" is committed. If the table service is unreachable the table keeps
    waiting and the rematch sweeper tries again; if it refuses, the table reopens for a normal start.
    """
    log = get_logger(table_id=table_id)
    try:
        async with sessions_of(runtime).begin() as session:
            table = await _locked_table(session, table_id)
            seats = await _seats(session, table_id)
            if table.status != REMATCH or any(seat.held_until is not None for seat in seats):
                return False
            await _start_seated(runtime, session, table, seats)
        return True
    except CommandRefused as refusal:
        if refusal.status == 503:
            log.warning("rematch_start_deferred")
            return False
        log.warning("rematch_start_refused", reason=refusal.reason)
    async with sessions_of(runtime).begin() as session:
        # rematch_until stays: from then on the table is open (see close_stale_stake_tables).
        await session.execute(update(GameTable).where(GameTable.table_id == table_id, GameTable.status == REMATCH)
                              .values(status=OPEN))
    return False


async def reopen_expired_rematches(runtime: Runtime) -> int:
    """Free the seats kept past their two minutes and reopen those tables; return how many reopened.

    Replicas share the work: tables another replica is settling are skipped (`SKIP LOCKED`).
    """
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        due = (await session.execute(
            select(GameTable).where(GameTable.status == REMATCH, GameTable.rematch_until <= now)
            .order_by(GameTable.rematch_until).limit(LIST_LIMIT).with_for_update(skip_locked=True)
        )).scalars().all()
        for table in due:
            await _settle_rematch(runtime, session, table, await _seats(session, table.table_id))
    return len(due)


async def start_deferred_rematches(runtime: Runtime) -> int:
    """Start the rematch tables whose humans are all back but whose start did not get through; return how many."""
    waiting = exists().where(Seat.table_id == GameTable.table_id, Seat.held_until.is_not(None))
    async with sessions_of(runtime)() as session:
        ready = (await session.execute(
            select(GameTable.table_id).where(GameTable.status == REMATCH, ~waiting).limit(LIST_LIMIT)
        )).scalars().all()
    return sum([await start_if_everyone_back(runtime, table_id) for table_id in ready])


async def close_stale_stake_tables(runtime: Runtime, now: datetime) -> int:
    """Close the stake tables that stayed open too long without a start (`stale_after`); return how many.

    Their stakes go back first: the ledger gives back a hold by itself once it expires, and the table is
    closed well before that, so nobody sits at a table believing a stake is held that went back. A table is
    open since it was opened or, after a rematch, since the rematch wait ended (every hold at it is younger).
    Replicas share the work (`SKIP LOCKED`); a table whose stakes cannot go back now (ledger unreachable)
    stays until the next sweep.
    """
    open_since = func.coalesce(GameTable.rematch_until, GameTable.created_at)
    is_stale = (GameTable.status == OPEN, GameTable.stake > 0,
                open_since <= now - stale_after(runtime.settings.hold_ttl_seconds))
    async with sessions_of(runtime)() as session:
        stale = (await session.execute(select(GameTable.table_id).where(*is_stale).limit(LIST_LIMIT))).scalars().all()
    closed = 0
    for table_id in stale:
        log = get_logger(table_id=table_id)
        try:
            async with sessions_of(runtime).begin() as session:
                table = (await session.execute(select(GameTable).where(GameTable.table_id == table_id, *is_stale)
                                               .with_for_update(skip_locked=True))).scalar_one_or_none()
                if table is None:
                    continue  # started, left or closed meanwhile, or another replica is at it
                seats = await _seats(session, table_id)
                for seat in seats:
                    await release_stake(runtime, seat, because="table_closed")
                await session.delete(table)
            closed += 1
            log.info("stale_stake_table_closed", seats=len(seats))
        except CommandRefused as refusal:
            log.warning("stale_stake_table_kept", reason=refusal.reason)
    return closed


async def finish_game(runtime: Runtime, table_id: str, game_id: str) -> bool:
    """Mark the table `finished` if `game_id` is its current game; return whether this changed anything."""
    async with sessions_of(runtime).begin() as session:
        result = await session.execute(
            update(GameTable)
            .where(GameTable.table_id == table_id, GameTable.game_id == game_id, GameTable.status == PLAYING)
            .values(status=FINISHED, finished_at=datetime.now(UTC)))
    return bool(getattr(result, "rowcount", 0))


def describe(table: GameTable, seats: Sequence[Seat]) -> dict[str, Any]:
    """Return the table as the API shows it: settings, host, seats, status, current game, rematch wait."""
    host = next((seat for seat in seats if seat.player_id == table.host_id), None)
    return {
        "table_id": table.table_id,
        "game": table.game,
        "settings": TableSettings(game=table.game, rules_id=table.rules or "", game_settings=table.settings,
                                  tempo=table.tempo, think_time=table.think_time, stake=table.stake,
                                  turbo=table.turbo).to_json(),
        "solo": table.is_solo,
        "host": {"player_id": table.host_id, "name": host.name if host else None},
        "player_count": table.player_count,
        "bot_level": table.bot_level,
        "fill_with_bots": table.fill_with_bots,
        "status": table.status,
        "game_id": table.game_id,
        "rules": table.rules,
        "seats": [_seat_json(seat) for seat in seats],
        "free_seats": table.player_count - len(seats) if table.status == OPEN else 0,
        "rematch_until": table.rematch_until.isoformat() if table.rematch_until and table.status == REMATCH
        else None,
        "created_at": table.created_at.isoformat() if table.created_at else None,
        "mode": mode_json(table),
    }


async def _start_seated(runtime: Runtime, session: AsyncSession, table: GameTable,
                        seated: list[Seat]) -> list[Seat]:
    """Start the game with the humans sitting at `table` (computers as the table wishes); return its seats.

    With `fill_with_bots` every other seat gets a computer; without, the humans play alone, renumbered
    without gaps, and there must be at least two.
    """
    humans = [seat for seat in seated if seat.kind == "human"]
    if table.fill_with_bots:
        by_index = {seat.seat: seat for seat in humans}
        seats, bot_number = [], 0
        for index in range(table.player_count):
            if index in by_index:
                seats.append(_copy_seat(by_index[index], index))
            else:
                bot_number += 1
                seats.append(_bot_seat(table.table_id, index, bot_number, table.bot_level))
    else:
        if len(humans) < 2:
            raise conflict("Mindestens zwei Menschen müssen am Tisch sitzen, wenn die freien Plätze "
                           "nicht an Computer gehen.", "too_few_humans")
        # The game's seats are the real ones, numbered without gaps.
        seats = [_copy_seat(seat, index) for index, seat in enumerate(humans)]
    table.settings = normalize_game_settings(table.game, table.settings, len(seats))
    for seat in seated:
        await session.delete(seat)
    await session.flush()
    await _start(runtime, session, table, seats)
    table.rematch_until = None
    return seats


def _is_rematch_due(runtime: Runtime, table: GameTable) -> bool:
    return (table.status == REMATCH and table.rematch_until is not None
            and table.rematch_until <= clock_of(runtime).now())


async def _settle_rematch(runtime: Runtime, session: AsyncSession, table: GameTable,
                          seats: list[Seat]) -> list[Seat] | None:
    """Reopen a rematch table once no seat is kept any more; return its seats (None: table dissolved).

    A kept seat whose time is up (or whose player said "not this time") is freed, but only when no other
    seat is still kept: until then the table waits for them.
    """
    if table.status != REMATCH:
        return seats
    now = clock_of(runtime).now()
    waiting = [seat for seat in seats if seat.held_until is not None]
    if not waiting or any(seat.held_until is not None and seat.held_until > now for seat in waiting):
        return seats
    for seat in waiting:
        await session.delete(seat)
    await session.flush()
    remaining = [seat for seat in seats if seat.held_until is None]
    if not remaining:
        await session.delete(table)
        get_logger(table_id=table.table_id).info("rematch_dissolved")
        return None
    # rematch_until stays: from then on the table is open (see close_stale_stake_tables).
    table.status = OPEN
    if all(seat.player_id != table.host_id for seat in remaining):
        table.host_id = str(remaining[0].player_id)
    get_logger(table_id=table.table_id).info("rematch_reopened", freed=len(waiting), seated=len(remaining))
    return remaining


TABLE_UNAVAILABLE = "table_unavailable"
"""The refusal's code when the table service does not answer (503)."""


async def ask_table(runtime: Runtime, command: Command[Req, Rep], body: Req) -> Rep:
    """Send the table service a command that is harmless to repeat (a start names its game, a second leave is
    answered `already`) and return its reply: sent again after RESEND_AFTER without an answer, as a table replica
    that died holding it never answers; refused with 503 `table_unavailable` when none comes within the call's
    timeout. The table's own refusals pass as they are."""
    try:
        return await call(runtime.nc, command, body, attempt=RESEND_AFTER)
    except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        raise CommandRefused(503, "Der Spieltisch ist gerade nicht erreichbar. Bitte versuche es gleich noch "
                                  "einmal.", TABLE_UNAVAILABLE) from error


async def _start(runtime: Runtime, session: AsyncSession, table: GameTable, seats: list[Seat], *,
                 seed: str | None = None, seed_reveal_at: str | None = None) -> None:
    """Ask the table service to start the game, inside the caller's transaction and row lock.

    Holding the lock while the table answers keeps joins and a second start out; if the table refuses or
    does not answer, the transaction rolls back and the table stays as it was. A solo mode table starts its
    game in its mode (`table.mode` and the mode columns); a daily game also gets the day's `seed` and when it
    may be revealed. The humans seated are recorded per game (`game_players`: who may use the game's chat).
    """
    refuse_two_seats(seats)
    # The id follows from the table and its previous game, so a start retried after a lost reply names
    # the same game: the table service then answers "game_exists" and nothing is started twice.
    game_id = hashlib.sha256(f"{table.table_id}:{table.game_id or ''}".encode()).hexdigest()[:32]
    command = StartGame(
        game_id=game_id, table_id=table.table_id, game=table.game, settings=table.settings,
        seats=[StartSeat(**_seat_payload(seat)) for seat in seats],
        platform=PlatformSettings(tempo=table.tempo, think_time=table.think_time, turbo=table.turbo,
                                  stake=table.stake),
        mode=game_mode_of(table), seed=seed, seed_reveal_at=seed_reveal_at)
    log = get_logger(table_id=table.table_id, game_id=game_id)
    try:
        result = await ask_table(runtime, START_GAME, command)
    except CommandRefused as refusal:
        if refusal.code == TABLE_UNAVAILABLE:
            log.warning("table_start_unanswered")
        if refusal.code != "game_exists":
            raise
        # Our own earlier attempt (or its repeat) started it; only its reply was lost.
        result = StartedReply(game_id=game_id, rules=rule_module(table.game).rules_id, n=1)
    for seat in seats:
        session.add(seat)
    table.status = PLAYING
    table.game_id = result.game_id or game_id
    table.rules = result.rules or None
    table.started_at = datetime.now(UTC)
    humans = [{"game_id": table.game_id, "seat": seat.seat, "player_id": seat.player_id, "name": seat.name,
               "table_id": table.table_id} for seat in seats if seat.kind == "human" and seat.player_id]
    if humans:
        await session.execute(pg_insert(GamePlayer).values(humans).on_conflict_do_nothing())
    log.info("game_started", seats=len(seats))


def refuse_two_seats(seats: Sequence[Seat]) -> None:
    """Refuse (409 `two_seats_one_player`) seats of one game naming one human twice, before anything is held or
    started: a player holds one seat of a game (a guest and an account are two players; computers have no
    player id and may hold any number of seats)."""
    first_seat: dict[str, Seat] = {}
    for seat in seats:
        if seat.kind != "human" or not seat.player_id:
            continue
        earlier = first_seat.setdefault(seat.player_id, seat)
        if earlier is not seat:
            raise conflict(f"„{seat.name}“ säße zweimal an dieser Partie (Platz {earlier.seat + 1} und Platz "
                           f"{seat.seat + 1}): jeder Mensch spielt auf genau einem Platz.", "two_seats_one_player")


def game_mode_of(table: GameTable) -> GameMode | None:
    """The solo mode the table's current game is played in, as the table service receives it (None: no mode)."""
    if table.mode is None:
        return None
    return GameMode(key=table.mode, day=table.mode_day.isoformat() if table.mode_day else None,
                    attempt=table.mode_attempt, stage=table.mode_stage)


def mode_json(table: GameTable) -> dict[str, Any] | None:
    """The table's solo mode as the API shows it (None: no mode): key, title, day, attempt, practice, stage."""
    mode = game_mode_of(table)
    if mode is None:
        return None
    declared = _declared_mode(table.game, mode.key)
    stage = declared.stage(mode.stage) if declared is not None and mode.stage is not None else None
    return {"key": mode.key, "title": declared.title if declared is not None else mode.key,
            "day": mode.day, "attempt": mode.attempt, "practice": mode.is_practice, "stage": mode.stage,
            "stage_title": stage.title if stage is not None else None}


def _declared_mode(game: str, key: str) -> SoloMode | None:
    try:
        home: Home = registry.latest(game).spec.home
    except UnknownRules:
        return None
    return home.mode(key)


async def _locked_table(session: AsyncSession, table_id: str) -> GameTable:
    table = (await session.execute(select(GameTable).where(GameTable.table_id == table_id)
                                   .with_for_update())).scalar_one_or_none()
    if table is None:
        raise table_not_found()
    return table


async def _seats(session: AsyncSession, table_id: str) -> list[Seat]:
    rows = await session.execute(select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat))
    return list(rows.scalars().all())


def _refuse_unless_open(table: GameTable) -> None:
    if table.status == PLAYING:
        raise conflict("Die Partie an diesem Tisch hat schon begonnen.", "already_started")
    if table.status == FINISHED:
        raise conflict("Die Partie an diesem Tisch ist schon vorbei.", "already_finished")
    if table.status == REMATCH:
        raise conflict("Die Plätze an diesem Tisch sind noch für die Mitspieler der letzten Partie frei.",
                       "seats_kept")


def _new_table(host: Identity, checked: TableSettings, player_count: int, bot_level: str, *,
               fill_with_bots: bool, is_solo: bool, now: datetime) -> GameTable:
    return GameTable(
        table_id=uuid.uuid4().hex, game=checked.game, settings=checked.game_settings, tempo=checked.tempo,
        think_time=checked.think_time, stake=checked.stake, turbo=checked.turbo, is_solo=is_solo,
        host_id=host.player_id, player_count=player_count, bot_level=bot_level,
        fill_with_bots=fill_with_bots, status=OPEN, created_at=now)


def _human_seat(table_id: str, index: int, player: Identity) -> Seat:
    return Seat(table_id=table_id, seat=index, player_id=player.player_id, name=player.name, kind="human",
                level=None, account=player.kind.value)


def _bot_seat(table_id: str, index: int, number: int, level: str) -> Seat:
    return Seat(table_id=table_id, seat=index, player_id=None, name=f"Computer {number}", kind="bot",
                level=level, account=None)


def _copy_seat(seat: Seat, index: int) -> Seat:
    return Seat(table_id=seat.table_id, seat=index, player_id=seat.player_id, name=seat.name, kind=seat.kind,
                level=seat.level, account=seat.account)


def _seat_payload(seat: Seat) -> dict[str, Any]:
    return {"player_id": seat.player_id, "name": seat.name, "kind": seat.kind, "level": seat.level,
            "account": seat.account}


def _seat_json(seat: Seat) -> dict[str, Any]:
    return {"seat": seat.seat, **_seat_payload(seat), "stake_held": seat.stake_key is not None,
            "kept_until": seat.held_until.isoformat() if seat.held_until else None}
