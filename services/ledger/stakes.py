"""Stakes: a player's stake held for a seat, collected into the game's pot at the start, paid out at the end.

Money moves `wallet → hold:<table>:<player>` when the lobby seats a registered player at a stake table,
back when the player stands up before the start, `holds → pot:<game>` with `GameStarted`, and
`pot → wallets (and the house)` with `GameEnded`. Each step has its own idempotency key, so a retried
command or a redelivered event moves nothing twice.

Every hold expires `HOLD_TTL_SECONDS` after it was made: a hold that has not gone into a pot by then (its
table never started, or the lobby never learned of it because the reply was lost) is given back by the
sweeper (`release_expired_holds`), under the same key as a release on leaving, so it goes back once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.contracts.commands import HoldStake, Pot, PotQuery, PotShare, ReleaseStake, StakeHeld, StakeReleased
from libs.platform.contracts.events import GameEnded, GameStarted
from libs.platform.envelope import Event, EventType
from libs.platform.rpc import CommandRefused
from services.ledger.booking import (
    HOUSE_ACCOUNT,
    Booking,
    InsufficientFunds,
    find_booking,
    hold_account,
    open_account,
    open_system_accounts,
    post_transaction,
    pot_account,
    record_decision,
    wallet_account,
)
from services.ledger.handlers import read_wallet
from services.ledger.models import Account, AccountKind, Hold, HoldState

STAKE_HELD = "stake_held"
STAKE_MOVED = "stake_moved"
STAKE_RELEASED = "stake_released"
STAKE_EXPIRED = "stake_expired"
POT_COLLECTED = "pot_collected"
POT_EMPTY = "pot_empty"
POT_WON = "pot_won"
STAKE_RETURNED = "stake_returned"
POT_TO_HOUSE = "pot_to_house"
KINDS = (STAKE_HELD, STAKE_MOVED, STAKE_RELEASED, STAKE_EXPIRED, POT_COLLECTED, POT_EMPTY, POT_WON, STAKE_RETURNED,
         POT_TO_HOUSE)
"""Every kind of transaction the stakes book."""
MAX_STAKE = 100
# The wallet history's memo of a release, by why the lobby asked for it (`{table}`: the table's label).
NOT_STARTED_IN_TIME = "Einsatz zurück: Tisch {table} wurde nicht rechtzeitig gestartet"
RELEASE_MEMOS = {"left": "Einsatz zurück: Tisch {table} vor dem Start verlassen",
                 "table_closed": NOT_STARTED_IN_TIME,
                 # A quick match's hold while its player waits (`{table}`: the start of the match id).
                 "match_left": "Einsatz zurück: Schnell spielen {table} beendet, bevor ein Tisch frei war",
                 "match_seated": "Einsatz aus Schnell spielen {table} geht an den Tisch der Partie"}

StartedLoader = Callable[[str], Awaitable[Event | None]]


class MalformedStakeCommand(CommandRefused):
    """A hold or release request whose ids, key or amount the ledger cannot accept."""

    def __init__(self, reason: str) -> None:
        super().__init__(422, reason, "malformed")


def table_label(table_id: str) -> str:
    """How memos name a table: the start of its id."""
    return table_id[:8]


def pot_key(game_id: str) -> str:
    """The idempotency key of collecting a game's pot (or deciding that it stays empty)."""
    return f"{game_id}:pot"


def payout_key(game_id: str) -> str:
    """The idempotency key of paying out a game's pot."""
    return f"{game_id}:payout"


def release_key(hold_key: str) -> str:
    """The idempotency key of releasing the hold booked under `hold_key`."""
    return "release:" + hold_key.removeprefix("hold:")


def check_stake_command(command: HoldStake | ReleaseStake) -> None:
    """Refuse (422) a hold or release without ids, with a foreign key, or (a hold) with a wrong amount."""
    if not all(value and ":" not in value for value in (command.player_id, command.table_id)):
        raise MalformedStakeCommand("Die Anfrage braucht player_id und table_id.")
    # Keys are scoped to the seat, so a caller can never take the key of a game's booking.
    if not command.key.startswith(f"hold:{command.table_id}:{command.player_id}:") or len(command.key) > 250:
        raise MalformedStakeCommand("Der Schlüssel eines Einsatzes ist „hold:<Tisch>:<Spieler>:<Runde>“.")
    if isinstance(command, HoldStake) and not 0 < command.amount <= MAX_STAKE:
        raise MalformedStakeCommand(f"Ein Einsatz ist 1 bis {MAX_STAKE} Taler.")
    if isinstance(command, HoldStake) and command.from_key is not None:
        parts = command.from_key.split(":")
        if len(parts) != 4 or parts[0] != "hold" or not parts[1] or parts[2] != command.player_id \
                or parts[1] == command.table_id or len(command.from_key) > 250:
            raise MalformedStakeCommand("Ein Einsatz wechselt nur von einem anderen Einsatz desselben Spielers "
                                        "(„hold:<Tisch>:<Spieler>:<Runde>“).")
    if isinstance(command, ReleaseStake) and command.because not in RELEASE_MEMOS:
        raise MalformedStakeCommand("Ein Einsatz geht zurück, weil jemand aufsteht („left“), der Tisch "
                                    "geschlossen wird („table_closed“), jemand nicht mehr auf Schnell spielen "
                                    "wartet („match_left“) oder dafür einen Tisch bekommt („match_seated“).")


async def hold_stake(session: AsyncSession, command: HoldStake, now: datetime, ttl: timedelta) -> StakeHeld:
    """Move the stake from the wallet to the seat's hold account once per key; refuse 409 when broke.

    The hold expires at `now + ttl` unless it goes into a pot before. A key held before answers with what
    is still held under it (0 once it went into a pot or back to the wallet).
    """
    check_stake_command(command)
    if command.from_key is not None:
        return await _move_hold(session, command, command.from_key, now, ttl)
    wallet = await read_wallet(session, command.player_id)
    hold = hold_account(command.table_id, command.player_id)
    await open_account(session, hold, AccountKind.HOLD, f"{command.table_id}:{command.player_id}")
    try:
        booking = await post_transaction(
            session, command.key, STAKE_HELD,
            [(wallet_account(command.player_id), -command.amount), (hold, command.amount)],
            memo=f"Einsatz gehalten für Tisch {table_label(command.table_id)}",
        )
    except InsufficientFunds as error:
        raise InsufficientFunds(f"Nicht genug Taler für den Einsatz von {command.amount} Taler: "
                                f"du hast {wallet.balance} Taler.") from error
    held = dict(booking.postings).get(hold, 0)
    if booking.is_duplicate:
        row = await session.get(Hold, command.key)
        held = row.amount if row is not None and row.state == HoldState.HELD else 0
    else:
        session.add(Hold(key=command.key, account_id=hold, amount=held, state=HoldState.HELD.value,
                         held_at=now, expires_at=now + ttl))
        await session.flush()
    balance = (await read_wallet(session, command.player_id)).balance
    return StakeHeld(held=held, balance=balance, duplicate=booking.is_duplicate)


async def _move_hold(session: AsyncSession, command: HoldStake, from_key: str, now: datetime,
                     ttl: timedelta) -> StakeHeld:
    """Move the stake held under `from_key` to the seat's hold under `command.key` in one booking (hold −s,
    hold +s; the wallet is not touched, so at no moment are the Taler free), once per key.

    The old hold is settled (`released`, with no release booking: a later release of it gives back nothing);
    the new one expires at `now + ttl` unless it goes into a pot before. 409 `hold_gone` when the old hold is no
    longer held (it expired or went back), 422 when it holds another amount.
    """
    hold, source = hold_account(command.table_id, command.player_id), hold_account(from_key.split(":")[1],
                                                                                  command.player_id)
    row = await _locked_hold(session, from_key)  # a concurrent move under the same key waits here
    earlier = await find_booking(session, command.key)
    if earlier is None:
        if row is None or row.account_id != source or row.state != HoldState.HELD:
            raise CommandRefused(409, "Der Einsatz ist nicht mehr gehalten (abgelaufen oder zurückgegeben).",
                                 "hold_gone")
        if row.amount != command.amount:
            raise MalformedStakeCommand(f"Der gehaltene Einsatz ist {row.amount} Taler, nicht {command.amount}.")
    await open_account(session, hold, AccountKind.HOLD, f"{command.table_id}:{command.player_id}")
    booking = await post_transaction(
        session, command.key, STAKE_MOVED, [(source, -command.amount), (hold, command.amount)],
        memo=f"Einsatz wechselt an Tisch {table_label(command.table_id)}")
    if booking.is_duplicate:
        held_row = await session.get(Hold, command.key)
        held = held_row.amount if held_row is not None and held_row.state == HoldState.HELD else 0
    else:
        assert row is not None
        row.state, row.settled_at = HoldState.RELEASED.value, now
        held = command.amount
        session.add(Hold(key=command.key, account_id=hold, amount=held, state=HoldState.HELD.value,
                         held_at=now, expires_at=now + ttl))
        await session.flush()
    balance = (await read_wallet(session, command.player_id)).balance
    return StakeHeld(held=held, balance=balance, duplicate=booking.is_duplicate)


async def release_stake(session: AsyncSession, command: ReleaseStake, now: datetime) -> StakeReleased:
    """Give back what the hold under `command.key` put aside, unless it went into a pot (once per key).

    A hold the sweeper gave back on expiry answers as a duplicate with what it gave back.
    """
    check_stake_command(command)
    row = await _locked_hold(session, command.key)
    if row is None or row.account_id != hold_account(command.table_id, command.player_id):
        return StakeReleased(released=0, duplicate=False)
    if row.state != HoldState.HELD:
        return await _earlier_release(session, command.key, command.player_id)
    booking = await _give_back(session, row, command.player_id, STAKE_RELEASED, now,
                               RELEASE_MEMOS[command.because].format(table=table_label(command.table_id)))
    row.state = HoldState.RELEASED.value
    return StakeReleased(released=dict(booking.postings).get(wallet_account(command.player_id), 0)
                         if booking is not None else 0, duplicate=False)


async def release_expired_holds(session: AsyncSession, now: datetime, limit: int = 100) -> int:
    """Give back every hold whose time ran out at `now` without going into a pot; return how many.

    Replicas share the work: holds another transaction is settling are skipped (`SKIP LOCKED`) and found by
    the next sweep if still held; each goes back under its release key, so never twice.
    """
    due = (await session.execute(
        select(Hold).where(Hold.state == HoldState.HELD.value, Hold.expires_at <= now)
        .order_by(Hold.expires_at).limit(limit).with_for_update(skip_locked=True)
    )).scalars().all()
    for row in due:
        table_id, player_id = row.account_id.removeprefix("hold:").split(":", 1)
        await _give_back(session, row, player_id, STAKE_EXPIRED, now,
                         NOT_STARTED_IN_TIME.format(table=table_label(table_id)))
        row.state = HoldState.EXPIRED.value
    return len(due)


async def _locked_hold(session: AsyncSession, key: str) -> Hold | None:
    row: Hold | None = (await session.execute(
        select(Hold).where(Hold.key == key).with_for_update().execution_options(populate_existing=True)
    )).scalar_one_or_none()
    return row


async def _earlier_release(session: AsyncSession, key: str, player_id: str) -> StakeReleased:
    """What an earlier release (on leaving or on expiry) gave back under `key`; 0 for a hold in a pot."""
    released = await find_booking(session, release_key(key))
    if released is None:
        return StakeReleased(released=0, duplicate=False)
    return StakeReleased(released=dict(released.postings).get(wallet_account(player_id), 0), duplicate=True)


async def _give_back(session: AsyncSession, row: Hold, player_id: str, kind: str, now: datetime,
                     memo: str) -> Booking | None:
    """Book the (locked, still held) hold `row` back to the player's wallet under its release key."""
    row.settled_at = now
    amount = min(row.amount, await _balance(session, row.account_id))
    if amount <= 0:  # nothing left on the account (cannot happen while the rows add up to its balance)
        return None
    return await post_transaction(session, release_key(row.key), kind,
                                  [(row.account_id, -amount), (wallet_account(player_id), amount)], memo=memo)


def stake_of(started: GameStarted) -> tuple[str, int] | None:
    """Return `(table_id, stake)` of a game played for a stake at a lobby table, else None."""
    stake, table_id = started.platform.stake, started.table_id
    if stake <= 0 or not table_id:
        return None
    return table_id, stake


async def collect_pot(session: AsyncSession, started: Event) -> Booking | None:
    """Move the seated registered humans' held stakes into the game's pot, once per game.

    Returns the pot's booking (one without postings when nobody had a stake held), None for a game
    without stake. A seat whose hold is missing plays without stake and cannot win the pot. Raises
    ContractError for a malformed `GameStarted`.
    """
    if started.type != EventType.GAME_STARTED:
        return None
    payload = GameStarted.of(started)
    staked = stake_of(payload)
    if staked is None:
        return None
    table_id, stake = staked
    key = pot_key(started.game_id)
    existing = await find_booking(session, key)
    if existing is not None:
        return replace(existing, is_duplicate=True)
    postings: list[tuple[str, int]] = []
    for seat in payload.seats:
        if seat.kind != "human" or seat.account != "registered" or not seat.player_id:
            continue  # guests and computers never pay
        hold = hold_account(table_id, seat.player_id)
        # Locking the seat's holds first waits for a sweeper or release busy with them, so what is read
        # next is what they left.
        held = await _held_on(session, hold)
        if await _balance(session, hold) >= stake and sum(row.amount for row in held) >= stake:
            postings.append((hold, -stake))
            _take_into_pot(held, stake)
    label = f"Topf der Partie {started.game_id[:8]} an Tisch {table_label(table_id)}"
    if not postings:
        return await record_decision(session, key, POT_EMPTY, memo=label)
    pot = pot_account(started.game_id)
    await open_account(session, pot, AccountKind.POT, started.game_id)
    return await post_transaction(session, key, POT_COLLECTED, [*postings, (pot, stake * len(postings))],
                                  memo=label)


@dataclass(frozen=True)
class HumanSeat:
    """A human's seat at the end of a game, as far as the pot cares."""

    seat: int
    player_id: str
    place: int
    has_paid: bool
    has_left: bool


@dataclass(frozen=True)
class PotDivision:
    """Who gets how much of a pot (`payouts`), what goes to the house, and the memo of the booking."""

    kind: str
    payouts: tuple[tuple[str, int], ...]
    house: int
    memo: str


def divide_pot(total: int, humans: Sequence[HumanSeat], table: str) -> PotDivision:
    """Divide a pot of `total` Taler among the humans of a finished game.

    A lone human at the table gets the stake back; otherwise the pot goes to the best-placed humans
    who paid and did not leave, split evenly, an indivisible remainder to the house. Who left forfeits;
    if every paying human left, the house takes the pot. When only one human paid (the others were
    guests), that human gets the stake back unless they left.
    """
    payers = [human for human in humans if human.has_paid]
    if len(humans) == 1 and payers:
        return PotDivision(STAKE_RETURNED, ((payers[0].player_id, total),), 0,
                           f"Einsatz zurück: du warst der einzige Mensch an Tisch {table}")
    staying = [human for human in payers if not human.has_left]
    if not staying:
        return PotDivision(POT_TO_HOUSE, (), total,
                           f"Topf ans Haus: alle mit Einsatz haben die Partie an Tisch {table} verlassen")
    if len(payers) == 1:
        return PotDivision(STAKE_RETURNED, ((staying[0].player_id, total),), 0,
                           f"Einsatz zurück: sonst hat niemand an Tisch {table} eingesetzt")
    best = min(human.place for human in staying)
    winners = sorted((human for human in staying if human.place == best), key=lambda human: human.seat)
    share, remainder = divmod(total, len(winners))
    if len(winners) == 1:
        memo = f"Topf gewonnen: {total} Taler an Tisch {table}"
    else:
        memo = f"Topf gewonnen, geteilt unter {len(winners)}: je {share} von {total} Taler an Tisch {table}"
        if remainder:
            memo += f" (Rest {remainder} Taler ans Haus)"
    return PotDivision(POT_WON, tuple((winner.player_id, share) for winner in winners), remainder, memo)


async def settle_pot(session: AsyncSession, ended: Event, pot: Booking) -> Booking | None:
    """Pay out the game's pot as `divide_pot` says (once per game: the payout's key); None when it is empty.

    `settle_game` has looked for an earlier payout already. Raises ContractError for a malformed `GameEnded`.
    """
    pot_id = pot_account(ended.game_id)
    total = sum(amount for account, amount in pot.postings if account == pot_id)
    payload = GameEnded.of(ended)
    table_id = payload.table_id or ""
    if total <= 0 or not table_id:
        return None
    paid = {account for account, amount in pot.postings if amount < 0}
    division = divide_pot(total, _human_seats(payload, table_id, paid), table_label(table_id))
    postings = [(pot_id, -total), *((wallet_account(player_id), amount) for player_id, amount in division.payouts)]
    if division.house:
        postings.append((HOUSE_ACCOUNT, division.house))
    await open_system_accounts(session)
    return await post_transaction(session, payout_key(ended.game_id), division.kind, postings,
                                  memo=division.memo)


async def settle_game(session: AsyncSession, ended: Event, load_started: StartedLoader) -> Booking | None:
    """Pay out the pot of a finished game once; collects it first if its `GameStarted` was not seen yet."""
    # Most games are played without stake: their start, from the log, says so before any query is made.
    started = await load_started(ended.game_id)
    if started is not None and stake_of(GameStarted.of(started)) is None:
        return None
    existing = await find_booking(session, payout_key(ended.game_id))
    if existing is not None:
        return replace(existing, is_duplicate=True)
    pot = await find_booking(session, pot_key(ended.game_id))
    if pot is None:
        # GameStarted may still wait for redelivery; collecting now records the pot under its key,
        # so the late GameStarted then finds it instead of collecting the table's next holds.
        if started is None:
            return None
        pot = await collect_pot(session, started)
        if pot is None:
            return None
    return await settle_pot(session, ended, pot)


async def read_pot(session: AsyncSession, query: PotQuery) -> Pot:
    """What the game's pot took in (per player, from the hold accounts it was collected from) and paid out (per
    wallet, and to the house), from the two bookings under the game's pot and payout keys; 422 for an empty id."""
    if not query.game_id:
        raise CommandRefused(422, "Die Anfrage braucht eine game_id.", "malformed")
    pot = await find_booking(session, pot_key(query.game_id))
    if pot is None or not pot.postings:
        return Pot(state="none")
    paid: dict[str, int] = {}
    for account, amount in pot.postings:
        if account.startswith("hold:") and amount < 0:
            # `hold:<table>:<player>`: neither id may carry a colon (check_stake_command).
            player_id = account.split(":", 2)[2]
            paid[player_id] = paid.get(player_id, 0) - amount
    total = sum(paid.values())
    payout = await find_booking(session, payout_key(query.game_id))
    if payout is None:
        return Pot(state="open", total=total, shares=[PotShare(player_id=player, paid=amount, won=0)
                                                      for player, amount in sorted(paid.items())])
    won = {account.removeprefix("wallet:"): amount for account, amount in payout.postings
           if account.startswith("wallet:") and amount > 0}
    house = sum(amount for account, amount in payout.postings if account == HOUSE_ACCOUNT)
    shares = [PotShare(player_id=player, paid=paid.get(player, 0), won=won.get(player, 0))
              for player in sorted(paid.keys() | won.keys())]
    return Pot(state="settled", total=total, shares=shares, house=house, memo=payout.memo)


def _human_seats(ended: GameEnded, table_id: str, paid: set[str]) -> list[HumanSeat]:
    places = ended.outcome.places
    left = set(ended.left)
    humans = []
    for index, seat in enumerate(ended.seats):
        if seat.kind != "human" or not seat.player_id:
            continue
        # A seat without a place (a malformed outcome) is ranked last rather than paid blindly.
        place = places[index] if index < len(places) else len(ended.seats) + 1
        humans.append(HumanSeat(
            seat=index, player_id=seat.player_id, place=place,
            has_paid=hold_account(table_id, seat.player_id) in paid, has_left=index in left,
        ))
    return humans


async def _held_on(session: AsyncSession, account_id: str) -> list[Hold]:
    """The holds still held on `account_id`, oldest first, locked for this transaction."""
    rows = await session.execute(
        select(Hold).where(Hold.account_id == account_id, Hold.state == HoldState.HELD.value)
        .order_by(Hold.held_at, Hold.key).with_for_update().execution_options(populate_existing=True)
    )
    return list(rows.scalars().all())


def _take_into_pot(held: Sequence[Hold], stake: int) -> None:
    """Mark the oldest holds as gone into the pot until `stake` is covered (a larger one keeps the rest)."""
    needed = stake
    for row in held:
        if needed <= 0:
            break
        if row.amount <= needed:
            needed -= row.amount
            row.state, row.settled_at = HoldState.IN_POT.value, func.now()
        else:
            row.amount -= needed
            needed = 0


async def _balance(session: AsyncSession, account_id: str) -> int:
    balance = await session.scalar(select(Account.balance).where(Account.id == account_id))
    return int(balance or 0)
