"""Stakes at the ledger: held before a registered player takes a seat at a stake table, released on leaving.

The ledger answers `ledger.cmd.hold` / `ledger.cmd.release` (request/reply, queue group `ledger`). Each
hold has its own key `hold:<table_id>:<player_id>:<round>`, the round drawn at random per hold: a key is
never used twice, not even after a hold was given back because the seat was not taken after all. A
release gives back exactly that hold.

The ledger gives a hold back by itself `HOLD_TTL_SECONDS` after it was made unless its game started (a table
never started, a hold whose reply got lost). The lobby does not wait for that: a stake table still open after
half of that time (`stale_after`) is closed and its stakes released (`tables.close_stale_stake_tables`), so a
seated player's stake never goes back behind the lobby's back while the lobby runs. Should it happen anyway
(the lobby was down for hours), the game starts all the same and that seat plays without stake: the ledger
collects only holds it still has, and who paid nothing cannot win the pot.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import nats.errors
from sqlalchemy import func, select

from libs.platform.auth import Identity, PlayerKind
from libs.platform.contracts.commands import (
    BALANCE,
    GAME_POT,
    HOLD_STAKE,
    RELEASE_STAKE,
    BalanceQuery,
    HoldStake,
    PotQuery,
    ReleaseStake,
)
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, call
from libs.platform.service import Runtime
from services.lobby.database import sessions_of
from services.lobby.models import GamePlayer, GameTable, Seat


@dataclass(frozen=True)
class HeldStake:
    """A stake the ledger holds for a seat."""

    table_id: str
    player_id: str
    key: str


class StakeRefused(CommandRefused):
    """The ledger refused to hold one player's stake (not enough Taler, no wallet): that player's refusal."""

    def __init__(self, refusal: CommandRefused, player_id: str) -> None:
        super().__init__(refusal.status, refusal.reason, refusal.code)
        self.player_id = player_id


def stale_after(hold_ttl_seconds: int) -> timedelta:
    """How long a stake table may stay open before the lobby closes it: half the ledger's hold time."""
    return timedelta(seconds=hold_ttl_seconds / 2)


def pays_stake(table: GameTable, player: Identity) -> bool:
    """Whether `player` pays the table's stake: registered players at stake tables (guests play without)."""
    return table.stake > 0 and player.kind == PlayerKind.REGISTERED


UNREACHABLE_LEDGER = "Das Konto ist gerade nicht erreichbar. Bitte versuche es gleich noch einmal."


async def hold(runtime: Runtime, *, player_id: str, table_id: str, amount: int,
               from_key: str | None = None) -> HeldStake:
    """Have the ledger hold `amount` Taler of `player_id` for `table_id` (a table, or a quick match's request) under
    a key of its own, and return the hold; or refuse as every place that holds stakes refuses.

    With `from_key` (the player's hold of the same amount elsewhere: a quick match's while waiting) the ledger
    moves that hold to this one in one booking, so the Taler never pass through the wallet; 409 `hold_gone`
    when that hold is no longer held.

    Refusals pass through ("Nicht genug Taler …", 409); a missing wallet is 409 `no_wallet`; an unreachable
    ledger is 503 `ledger_unavailable`, after giving back the hold it may have booked all the same.
    """
    stake = HeldStake(table_id, player_id, f"hold:{table_id}:{player_id}:{secrets.token_hex(6)}")
    try:
        await call(runtime.nc, HOLD_STAKE, HoldStake(player_id=player_id, table_id=table_id, amount=amount,
                                                     key=stake.key, from_key=from_key))
    except CommandRefused as refusal:
        if refusal.code == "no_wallet":
            raise CommandRefused(409, "Deine Geldbörse ist noch nicht eröffnet – bitte versuche es gleich noch "
                                      "einmal.", "no_wallet") from refusal
        raise
    except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        await release_quietly(runtime, stake)
        raise CommandRefused(503, UNREACHABLE_LEDGER, "ledger_unavailable") from error
    return stake


async def release(runtime: Runtime, stake: HeldStake, because: str) -> None:
    """Have the ledger give back the hold `stake`, or refuse with 503 `ledger_unavailable` when it does not answer.

    `because` is "left" (the player stood up), "table_closed" (the lobby closed the table) or a quick match's
    reason for leaving its queue.
    """
    try:
        await call(runtime.nc, RELEASE_STAKE, ReleaseStake(player_id=stake.player_id, table_id=stake.table_id,
                                                           key=stake.key, because=because))
    except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        raise CommandRefused(503, UNREACHABLE_LEDGER, "ledger_unavailable") from error


async def hold_stake(runtime: Runtime, table: GameTable, seat: Seat, held: list[HeldStake],
                     from_key: str | None = None) -> None:
    """Have the ledger hold the table's stake for `seat` (moved from the hold `from_key`, if given), note its key
    on the seat and in `held`, or refuse (`hold`)."""
    assert seat.player_id is not None
    stake = await hold(runtime, player_id=seat.player_id, table_id=table.table_id, amount=table.stake,
                       from_key=from_key)
    seat.stake_key = stake.key
    held.append(stake)


async def release_stake(runtime: Runtime, seat: Seat, because: str = "left") -> None:
    """Have the ledger give back the stake held for `seat` (if any), or refuse with 503 when it can't (`release`)."""
    if seat.stake_key is None or seat.player_id is None:
        return
    await release(runtime, HeldStake(seat.table_id, seat.player_id, seat.stake_key), because)
    seat.stake_key = None


async def release_quietly(runtime: Runtime, stake: HeldStake) -> None:
    """Give a hold back as a compensation; a failure is logged (the hold then stays with the ledger)."""
    try:
        await call(runtime.nc, RELEASE_STAKE, ReleaseStake(player_id=stake.player_id, table_id=stake.table_id,
                                                           key=stake.key), timeout=5.0)
    except Exception:
        get_logger(table_id=stake.table_id, player_id=stake.player_id).error(
            "stake_release_failed", key=stake.key, exc_info=True)


async def wallet_of(runtime: Runtime, player: Identity) -> dict[str, object]:
    """The player's own Taler (`ledger.cmd.balance`), for the web's stake forms: guests have no wallet
    (`balance: null`), nor has a registered player whose registration the ledger has not booked yet."""
    answer: dict[str, object] = {"player_id": player.player_id, "kind": player.kind.value, "balance": None}
    if player.kind != PlayerKind.REGISTERED:
        return answer
    try:
        balance = await call(runtime.nc, BALANCE, BalanceQuery(player_id=player.player_id), timeout=5.0)
    except CommandRefused as refusal:
        if refusal.code == "no_wallet" or refusal.status == 404:
            return answer
        raise
    except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        raise CommandRefused(503, "Das Konto ist gerade nicht erreichbar. Bitte versuche es gleich noch einmal.",
                             "ledger_unavailable") from error
    answer["balance"] = balance.balance
    return answer


async def pot_of(runtime: Runtime, game_id: str) -> dict[str, object]:
    """A game's Taler per seat for the end table, asked of the ledger (`ledger.cmd.pot`).

    `{"game_id", "state", "total", "house", "memo", "seats": [{"seat", "player_id", "paid", "won", "net"}]}`:
    `state` "none" for a game without stake (nobody paid: practice, solo, guests only), "open" while the pot waits
    for the end, "settled" once paid out; only seats that paid or won are listed. 404 `game_not_found` for a game
    the lobby never started; 503 `ledger_unavailable` when the ledger does not answer.
    """
    async with sessions_of(runtime)() as session:
        seated = (await session.execute(select(GamePlayer).where(GamePlayer.game_id == game_id))).scalars().all()
        if not seated and not await session.scalar(select(func.count()).select_from(GameTable)
                                                   .where(GameTable.game_id == game_id)):
            raise CommandRefused(404, "Diese Partie kennt die Lobby nicht.", "game_not_found")
    try:
        pot = await call(runtime.nc, GAME_POT, PotQuery(game_id=game_id), timeout=5.0)
    except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as error:
        raise CommandRefused(503, "Das Konto ist gerade nicht erreichbar. Bitte versuche es gleich noch einmal.",
                             "ledger_unavailable") from error
    seat_of = {each.player_id: each.seat for each in seated}
    seats = sorted(({"seat": seat_of.get(share.player_id), "player_id": share.player_id, "paid": share.paid,
                     "won": share.won, "net": share.won - share.paid} for share in pot.shares),
                   key=lambda line: (line["seat"] is None, line["seat"] or 0))
    return {"game_id": game_id, "state": pot.state, "total": pot.total, "house": pot.house, "memo": pot.memo,
            "seats": seats}


@asynccontextmanager
async def holds_undone_on_failure(runtime: Runtime) -> AsyncIterator[list[HeldStake]]:
    """Collect the holds made inside; if the block fails (the seat was not committed), release them again."""
    held: list[HeldStake] = []
    try:
        yield held
    except BaseException:
        for stake in held:
            await release_quietly(runtime, stake)
        raise
