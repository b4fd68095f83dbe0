"""Stakes in Taler: held for a seat, collected into the pot at the start, paid to the best-placed human."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from libs.platform.contracts.events import (
    EndedSeat,
    GameEnded,
    GameSeat,
    GameStarted,
    Outcome,
    PlatformSettings,
    PlayerLeft,
)
from libs.platform.contracts.subjects import LEDGER_GAMES_DURABLE, game_fact_msg_id
from libs.platform.envelope import GENESIS, Event, EventType, new_event
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.ledger.booking import HOUSE_ACCOUNT, hold_account, pot_account
from services.ledger.models import Account
from services.ledger.stakes import collect_pot, settle_game
from tests.game_facts import append_as_table, facts_are_read, publish_fact
from tests.ledger.conftest import token_for

Sessions = async_sessionmaker[AsyncSession]
FundedWallet = Callable[[int], Awaitable[str]]


def new_table_id() -> str:
    return uuid.uuid4().hex


def new_game_id() -> str:
    return uuid.uuid4().hex


def hold_key(table_id: str, player_id: str, round_: int = 1) -> str:
    return f"hold:{table_id}:{player_id}:{round_}"


async def hold(nc: NatsClient, table_id: str, player_id: str, amount: int, round_: int = 1) -> dict[str, Any]:
    return await request(nc, "ledger.cmd.hold", {"player_id": player_id, "table_id": table_id, "amount": amount,
                                                 "key": hold_key(table_id, player_id, round_)})


async def release(nc: NatsClient, table_id: str, player_id: str, round_: int = 1) -> dict[str, Any]:
    return await request(nc, "ledger.cmd.release", {"player_id": player_id, "table_id": table_id,
                                                    "key": hold_key(table_id, player_id, round_)})


async def balance_of(sessions: Sessions, account_id: str) -> int:
    async with sessions() as session:
        balance = await session.scalar(select(Account.balance).where(Account.id == account_id))
    return int(balance or 0)


async def memos(ledger: httpx.AsyncClient, settings: Settings, player_id: str) -> list[tuple[str, int]]:
    body = (await ledger.get("/wallets/me/transactions", headers=token_for(settings, player_id))).json()
    return [(line["memo"], line["amount"]) for line in body["transactions"]]


def human(player_id: str, account: str = "registered") -> dict[str, Any]:
    return {"name": f"Mensch {player_id[-4:]}", "kind": "human", "player_id": player_id, "level": None,
            "account": account}


def computer(number: int) -> dict[str, Any]:
    return {"name": f"Computer {number}", "kind": "bot", "player_id": None, "level": "easy", "account": None}


class GameLog:
    """Writes one game's log the way the table service does: chained events, `Nats-Msg-Id <game>:<n>`, and
    GameStarted/GameEnded copied onto GAME_FACTS as its follow-up does."""

    def __init__(self, nc: NatsClient, table_id: str, seats: list[dict[str, Any]], stake: int) -> None:
        self.nc, self.table_id, self.seats, self.stake = nc, table_id, seats, stake
        self.game_id = new_game_id()
        self.events: list[Event] = []

    def next_event(self, type: str, data: dict[str, Any]) -> Event:
        return new_event(game_id=self.game_id, n=len(self.events) + 1, type=type, actor="system",
                         rules="speedmosaik@1", data=data, prev=self.events[-1].hash if self.events else GENESIS)

    async def append(self, type: str, data: dict[str, Any], copy_fact: bool = True) -> Event:
        event = self.next_event(type, data)
        await append_as_table(self.nc.jetstream(), event, copy_fact=copy_fact)
        self.events.append(event)
        return event

    def started_data(self) -> dict[str, Any]:
        return GameStarted(
            game="speedmosaik", rules="speedmosaik@1", settings={"workshop": "kachelwand"},
            seats=[GameSeat(**seat) for seat in self.seats], table_id=self.table_id, seed="00" * 32,
            seed_commitment="0" * 64,
            platform=PlatformSettings(tempo="normal", think_time=120, turbo=False, stake=self.stake),
        ).to_data()

    def ended_data(self, places: list[int], left: Sequence[int] = ()) -> dict[str, Any]:
        count = len(places)
        return GameEnded(
            game="speedmosaik", variant="kachelwand", rules="speedmosaik@1", table_id=self.table_id,
            seats=[EndedSeat(**seat, seat=i) for i, seat in enumerate(self.seats)],
            outcome=Outcome(places=places, scores=[0] * count, tie_break=[0] * count, lines=[[] for _ in places],
                            leaderboard_points=[0] * count, summary={"key": "ende", "params": {}, "text": "Ende."}),
            seed="00" * 32, left=list(left), left_with_other_humans=list(left),
        ).to_data()

    async def start(self) -> None:
        await self.append(EventType.GAME_STARTED, self.started_data())

    async def leave(self, seat: int) -> None:
        await self.append(EventType.PLAYER_LEFT, PlayerLeft(seat=seat, player_id=self.seats[seat]["player_id"],
                                                            with_other_humans=True).to_data())

    async def end(self, places: list[int], left: Sequence[int] = ()) -> None:
        await self.append(EventType.GAME_ENDED, self.ended_data(places, left))


async def ledger_has_read_every_game_event(nc: NatsClient, timeout: float = 15.0) -> None:
    """Wait until the ledger's game consumer has acknowledged every game fact (GAME_FACTS)."""
    await facts_are_read(nc.jetstream(), LEDGER_GAMES_DURABLE, timeout)


async def seated(nc: NatsClient, table_id: str, seats: list[dict[str, Any]], stake: int) -> GameLog:
    """Hold every registered human's stake (in seat order) and return the game's log, not started yet."""
    for seat in seats:
        if seat["kind"] == "human" and seat["account"] == "registered":
            await hold(nc, table_id, seat["player_id"], stake)
    return GameLog(nc, table_id, seats, stake)


async def play(nc: NatsClient, table_id: str, seats: list[dict[str, Any]], stake: int, places: list[int],
               left: Sequence[int] = ()) -> GameLog:
    """Hold every registered human's stake, then start, (leave,) and end the game; wait for the ledger."""
    game = await seated(nc, table_id, seats, stake)
    await game.start()
    for index in left:
        await game.leave(index)
    await game.end(places, left)
    await ledger_has_read_every_game_event(nc)
    return game


async def test_holding_a_stake_takes_it_from_the_wallet_once_and_shows_it(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(1000)
    table_id = new_table_id()

    first = await hold(nc, table_id, anna, 50)
    again = await hold(nc, table_id, anna, 50)

    assert first == {"held": 50, "balance": 950, "duplicate": False}
    assert again["duplicate"] is True and again["balance"] == 950
    assert (await memos(ledger, settings, anna))[0] == (f"Einsatz gehalten für Tisch {table_id[:8]}", -50)


async def test_a_stake_beyond_the_wallet_is_refused_and_nothing_is_held(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(40)
    table_id = new_table_id()

    with pytest.raises(CommandRefused) as refusal:
        await hold(nc, table_id, anna, 50)

    assert refusal.value.status == 409
    assert refusal.value.reason == "Nicht genug Taler für den Einsatz von 50 Taler: du hast 40 Taler."
    assert await balance_of(sessions, hold_account(table_id, anna)) == 0
    assert (await hold(nc, new_table_id(), anna, 25))["balance"] == 15


async def test_a_guest_has_no_wallet_to_hold_a_stake_from(ledger: httpx.AsyncClient, nc: NatsClient) -> None:
    with pytest.raises(CommandRefused) as refusal:
        await hold(nc, new_table_id(), f"guest-{uuid.uuid4().hex[:8]}", 10)

    assert refusal.value.code == "no_wallet"


async def test_a_key_that_names_another_seat_is_refused(
        ledger: httpx.AsyncClient, nc: NatsClient, funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(100)
    table_id = new_table_id()

    with pytest.raises(CommandRefused) as refusal:
        await request(nc, "ledger.cmd.hold", {"player_id": anna, "table_id": table_id, "amount": 10,
                                              "key": f"{new_game_id()}:payout"})

    assert refusal.value.status == 422


async def test_standing_up_before_the_start_gives_the_stake_back_once(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(100)
    table_id = new_table_id()
    await hold(nc, table_id, anna, 25)

    first = await release(nc, table_id, anna)
    again = await release(nc, table_id, anna)
    never_held = await release(nc, table_id, anna, round_=2)

    assert first == {"released": 25, "duplicate": False}
    assert again == {"released": 25, "duplicate": True}
    assert never_held["released"] == 0
    assert await balance_of(sessions, hold_account(table_id, anna)) == 0
    assert (await memos(ledger, settings, anna))[:2] == [
        (f"Einsatz zurück: Tisch {table_id[:8]} vor dem Start verlassen", 25),
        (f"Einsatz gehalten für Tisch {table_id[:8]}", -25)]


async def move(nc: NatsClient, from_table: str, table_id: str, player_id: str, amount: int,
               round_: int = 1) -> dict[str, Any]:
    return await request(nc, "ledger.cmd.hold", {"player_id": player_id, "table_id": table_id, "amount": amount,
                                                 "key": hold_key(table_id, player_id, round_),
                                                 "from_key": hold_key(from_table, player_id)})


async def test_a_hold_moves_to_another_table_in_one_booking_the_wallet_untouched_once(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(60)
    queue, table_id = new_table_id(), new_table_id()
    await hold(nc, queue, anna, 50)

    moved = await move(nc, queue, table_id, anna, 50)
    again = await move(nc, queue, table_id, anna, 50)
    released = await release(nc, queue, anna)  # the queue's hold went to the table: nothing to give back

    assert moved == {"held": 50, "balance": 10, "duplicate": False}
    assert again == {"held": 50, "balance": 10, "duplicate": True}
    assert released["released"] == 0
    assert await balance_of(sessions, hold_account(queue, anna)) == 0
    assert await balance_of(sessions, hold_account(table_id, anna)) == 50
    # The wallet's history: the stake left it once and never came back (no moment where it was free).
    assert await memos(ledger, settings, anna) == [(f"Einsatz gehalten für Tisch {queue[:8]}", -50),
                                                   ("Startguthaben", 60)]
    with pytest.raises(CommandRefused) as spent_elsewhere:
        await hold(nc, new_table_id(), anna, 50)
    assert spent_elsewhere.value.reason == "Nicht genug Taler für den Einsatz von 50 Taler: du hast 10 Taler."


async def test_a_hold_no_longer_held_or_of_another_player_does_not_move(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    queue, table_id = new_table_id(), new_table_id()
    await hold(nc, queue, anna, 25)
    await release(nc, queue, anna)

    with pytest.raises(CommandRefused) as gone:
        await move(nc, queue, table_id, anna, 25)
    await hold(nc, queue, bert, 25)
    with pytest.raises(CommandRefused) as foreign:
        await request(nc, "ledger.cmd.hold", {"player_id": anna, "table_id": table_id, "amount": 25,
                                              "key": hold_key(table_id, anna), "from_key": hold_key(queue, bert)})

    assert (gone.value.status, gone.value.code) == (409, "hold_gone")
    assert gone.value.reason == "Der Einsatz ist nicht mehr gehalten (abgelaufen oder zurückgegeben)."
    assert foreign.value.status == 422
    assert await balance_of(sessions, hold_account(table_id, anna)) == 0
    assert await balance_of(sessions, hold_account(queue, bert)) == 25


async def test_the_start_moves_the_seated_humans_holds_into_the_pot(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(500), await funded_wallet(500)
    table_id = new_table_id()
    game = await seated(nc, table_id, [human(anna), human(f"g-{uuid.uuid4().hex[:8]}", "guest"), human(bert),
                                       computer(1)], stake=100)

    await game.start()
    await ledger_has_read_every_game_event(nc)

    assert await balance_of(sessions, pot_account(game.game_id)) == 200
    assert await balance_of(sessions, hold_account(table_id, anna)) == 0
    assert await balance_of(sessions, hold_account(table_id, bert)) == 0


async def test_the_best_placed_human_takes_the_pot(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna, bert, cora = await funded_wallet(1000), await funded_wallet(1000), await funded_wallet(1000)
    table_id = new_table_id()

    game = await play(nc, table_id, [human(anna), computer(1), human(bert), human(cora)], stake=50,
                      places=[2, 1, 3, 4])

    # The computer in seat 1 came first; of the humans, Anna placed best.
    assert await balance_of(sessions, pot_account(game.game_id)) == 0
    assert (await memos(ledger, settings, anna))[0] == (f"Topf gewonnen: 150 Taler an Tisch {table_id[:8]}", 150)
    for player_id, balance in ((anna, 1100), (bert, 950), (cora, 950)):
        assert (await ledger.get("/wallets/me", headers=token_for(settings, player_id))).json()["balance"] == balance


async def test_a_tie_splits_the_pot_and_the_remainder_goes_to_the_house(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna, bert, cora = await funded_wallet(100), await funded_wallet(100), await funded_wallet(100)
    house_before = await balance_of(sessions, HOUSE_ACCOUNT)

    await play(nc, new_table_id(), [human(anna), human(bert), human(cora)], stake=25, places=[1, 1, 3])

    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert, cora)] == [112, 112, 75]
    assert await balance_of(sessions, HOUSE_ACCOUNT) == house_before + 1
    memo, amount = (await memos(ledger, settings, bert))[0]
    assert amount == 37 and memo.startswith("Topf gewonnen, geteilt unter 2: je 37 von 75 Taler")
    assert memo.endswith("(Rest 1 Taler ans Haus)")


async def test_the_pot_tells_who_paid_and_who_won_once_the_game_is_settled(
        ledger: httpx.AsyncClient, nc: NatsClient, funded_wallet: FundedWallet) -> None:
    anna, bert, cora = await funded_wallet(100), await funded_wallet(100), await funded_wallet(100)
    table_id = new_table_id()
    game = await seated(nc, table_id, [human(anna), human(bert), human(cora), computer(1)], stake=25)
    assert await request(nc, "ledger.cmd.pot", {"game_id": game.game_id}) == {
        "state": "none", "total": 0, "shares": [], "house": 0, "memo": ""}

    await game.start()
    await ledger_has_read_every_game_event(nc)
    opened = await request(nc, "ledger.cmd.pot", {"game_id": game.game_id})
    await game.end([1, 1, 3, 4])
    await ledger_has_read_every_game_event(nc)
    settled = await request(nc, "ledger.cmd.pot", {"game_id": game.game_id})

    assert opened["state"] == "open" and opened["total"] == 75
    assert sorted((share["player_id"], share["paid"], share["won"]) for share in opened["shares"]) == sorted(
        [(anna, 25, 0), (bert, 25, 0), (cora, 25, 0)])
    assert settled["state"] == "settled" and settled["house"] == 1
    assert sorted((share["player_id"], share["paid"], share["won"]) for share in settled["shares"]) == sorted(
        [(anna, 25, 37), (bert, 25, 37), (cora, 25, 0)])
    assert settled["memo"].startswith("Topf gewonnen, geteilt unter 2: je 37 von 75 Taler")


async def test_a_pot_question_without_a_game_id_is_refused(nc: NatsClient) -> None:
    with pytest.raises(CommandRefused) as refused:
        await request(nc, "ledger.cmd.pot", {"game_id": ""})

    assert refused.value.status == 422


async def test_the_only_human_at_the_table_gets_the_stake_back(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(100)
    table_id = new_table_id()

    await play(nc, table_id, [computer(1), human(anna), computer(2)], stake=100, places=[1, 3, 2])

    assert (await ledger.get("/wallets/me", headers=token_for(settings, anna))).json()["balance"] == 100
    assert (await memos(ledger, settings, anna))[0] == (
        f"Einsatz zurück: du warst der einzige Mensch an Tisch {table_id[:8]}", 100)


async def test_who_leaves_early_forfeits_the_stake_to_the_others(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert, cora = await funded_wallet(100), await funded_wallet(100), await funded_wallet(100)

    # Anna left while leading (the computer played on for her seat); of those who stayed, Cora placed best.
    await play(nc, new_table_id(), [human(anna), human(bert), human(cora)], stake=10, places=[1, 3, 2],
               left=[0])

    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert, cora)] == [90, 90, 120]


async def test_when_every_human_left_the_pot_goes_to_the_house(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    house_before = await balance_of(sessions, HOUSE_ACCOUNT)

    await play(nc, new_table_id(), [human(anna), human(bert), computer(1)], stake=50, places=[2, 1, 3],
               left=[0, 1])

    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert)] == [50, 50]
    assert await balance_of(sessions, HOUSE_ACCOUNT) == house_before + 100


async def test_guests_never_pay_and_cannot_win_the_pot(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    guest = f"g-{uuid.uuid4().hex[:8]}"

    game = await play(nc, new_table_id(), [human(guest, "guest"), human(anna), human(bert)], stake=25,
                      places=[1, 3, 2])

    async with sessions() as session:
        assert await session.scalar(select(Account.id).where(Account.owner.like(f"%{guest}"))) is None
    assert await balance_of(sessions, pot_account(game.game_id)) == 0
    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert)] == [75, 125]


async def test_a_game_without_stake_books_nothing_and_leaves_the_tables_holds_alone(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna = await funded_wallet(100)
    table_id = new_table_id()
    await hold(nc, table_id, anna, 30)  # held for a staked game the table has yet to start
    game = GameLog(nc, table_id, [human(anna), computer(1)], stake=0)

    await game.start()
    await game.end([1, 2])
    await ledger_has_read_every_game_event(nc)

    assert await balance_of(sessions, hold_account(table_id, anna)) == 30
    assert await balance_of(sessions, pot_account(game.game_id)) == 0
    assert [amount for _, amount in await memos(ledger, settings, anna)] == [-30, 100]  # the hold; the funding


async def test_redelivered_game_events_collect_and_pay_once(
        ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings, sessions: Sessions,
        funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    table_id = new_table_id()
    game = await play(nc, table_id, [human(anna), human(bert)], stake=50, places=[1, 2])
    # The table holds again for the next game at the same table, before the old events come once more.
    await hold(nc, table_id, anna, 50, round_=2)

    # The follow-up copies them again (redelivered after the duplicate window): a new Msg-Id gets them through.
    for event in (game.events[0], game.events[-1]):
        await publish_fact(nc.jetstream(), event, msg_id=f"{game_fact_msg_id(event.game_id, event.n)}:again")
    await ledger_has_read_every_game_event(nc)

    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert)] == [100, 50]
    assert await balance_of(sessions, hold_account(table_id, anna)) == 50
    assert [amount for _, amount in await memos(ledger, settings, anna)] == [-50, 100, -50, 100]


async def test_an_end_seen_before_its_start_still_pays_and_the_late_start_takes_nothing(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    table_id = new_table_id()
    game = await seated(nc, table_id, [human(anna), human(bert)], stake=10)
    started = game.next_event(EventType.GAME_STARTED, game.started_data())
    game.events.append(started)
    ended = game.next_event(EventType.GAME_ENDED, game.ended_data([2, 1]))

    async def load_started(game_id: str) -> Event | None:
        return started if game_id == game.game_id else None

    async with sessions() as session, session.begin():
        paid = await settle_game(session, ended, load_started)
    await hold(nc, table_id, anna, 10, round_=2)
    async with sessions() as session, session.begin():
        late = await collect_pot(session, started)

    assert paid is not None and paid.kind == "pot_won"
    assert late is not None and late.is_duplicate
    assert await balance_of(sessions, hold_account(table_id, anna)) == 10
    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert)] == [80, 110]


async def test_an_end_fact_before_its_start_fact_pays_from_the_start_in_the_log(
        ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet) -> None:
    anna, bert = await funded_wallet(100), await funded_wallet(100)
    table_id = new_table_id()
    game = await seated(nc, table_id, [human(anna), human(bert)], stake=20)
    # GameStarted is in the log, but its copy on GAME_FACTS is not out yet when the end's copy arrives.
    await game.append(EventType.GAME_STARTED, game.started_data(), copy_fact=False)
    await game.end([1, 2])
    await ledger_has_read_every_game_event(nc)

    assert [await balance_of(sessions, f"wallet:{player}") for player in (anna, bert)] == [120, 80]
    await hold(nc, table_id, anna, 20, round_=2)  # the next game at the table holds before the late start
    await publish_fact(nc.jetstream(), game.events[0])
    await ledger_has_read_every_game_event(nc)

    assert await balance_of(sessions, hold_account(table_id, anna)) == 20
    assert await balance_of(sessions, pot_account(game.game_id)) == 0
