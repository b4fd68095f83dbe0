"""Wallets as players see them over HTTP, funded by the lobby's registration facts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from libs.platform.auth import PlayerKind
from libs.platform.contracts.subjects import registration_msg_id
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.ledger.booking import HOUSE_ACCOUNT, post_transaction, wallet_account
from tests.ledger.conftest import new_player_id, publish_registration, token_for, wait_until_consumed

DOCUMENTED_STARTING_BALANCE = 1000


async def test_a_registered_player_starts_with_the_documented_balance(
    ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings
) -> None:
    player_id = new_player_id()
    await wait_until_consumed(nc, await publish_registration(nc, player_id))

    response = await ledger.get("/wallets/me", headers=token_for(settings, player_id))

    assert response.status_code == 200
    assert response.json() == {"player_id": player_id, "balance": DOCUMENTED_STARTING_BALANCE}


async def test_a_republished_registration_funds_the_wallet_only_once(
    ledger: httpx.AsyncClient, nc: NatsClient, settings: Settings
) -> None:
    player_id = new_player_id()
    await publish_registration(nc, player_id)
    # A different Msg-Id gets past JetStream's de-duplication, so the ledger really sees it twice.
    second = await publish_registration(nc, player_id, msg_id=registration_msg_id(player_id) + ":again")
    await wait_until_consumed(nc, second)

    wallet = await ledger.get("/wallets/me", headers=token_for(settings, player_id))
    history = await ledger.get("/wallets/me/transactions", headers=token_for(settings, player_id))

    assert wallet.json()["balance"] == DOCUMENTED_STARTING_BALANCE
    assert [line["amount"] for line in history.json()["transactions"]] == [DOCUMENTED_STARTING_BALANCE]


async def test_the_balance_needs_a_token(ledger: httpx.AsyncClient) -> None:
    response = await ledger.get("/wallets/me")

    assert response.status_code == 401


async def test_a_forged_token_is_refused(ledger: httpx.AsyncClient) -> None:
    response = await ledger.get("/wallets/me", headers={"Authorization": "Bearer not-a-token"})

    assert response.status_code == 401


async def test_guests_have_no_wallet_and_are_told_why(ledger: httpx.AsyncClient, settings: Settings) -> None:
    response = await ledger.get("/wallets/me", headers=token_for(settings, new_player_id(), PlayerKind.GUEST))

    assert response.status_code == 404
    assert response.json()["detail"] == "Gäste spielen ohne Einsatz und haben keine Geldbörse."


async def test_a_registration_the_ledger_has_not_seen_has_no_wallet(
    ledger: httpx.AsyncClient, settings: Settings
) -> None:
    response = await ledger.get("/wallets/me", headers=token_for(settings, new_player_id()))

    assert response.status_code == 404
    assert "keine Geldbörse" in response.json()["detail"]


async def test_a_player_reads_their_own_wallet_by_id_but_not_someone_elses(
    ledger: httpx.AsyncClient, settings: Settings, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    anna = await funded_wallet(250)
    bert = await funded_wallet(400)

    own = await ledger.get(f"/wallets/{anna}", headers=token_for(settings, anna))
    other = await ledger.get(f"/wallets/{bert}", headers=token_for(settings, anna))

    assert own.json() == {"player_id": anna, "balance": 250}
    assert other.status_code == 403
    assert other.json()["detail"] == "Du kannst nur deine eigene Geldbörse ansehen."


async def test_the_history_shows_each_booking_with_the_running_balance(
    ledger: httpx.AsyncClient,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    funded_wallet: Callable[[int], Awaitable[str]],
) -> None:
    player_id = await funded_wallet(1000)
    wallet = wallet_account(player_id)
    async with sessions() as session, session.begin():
        await post_transaction(session, f"stake:{player_id}:1", "stake", [(wallet, -100), (HOUSE_ACCOUNT, 100)],
                               memo="Einsatz")
        await post_transaction(session, f"win:{player_id}:1", "payout", [(HOUSE_ACCOUNT, -30), (wallet, 30)],
                               memo="Gewinn")

    response = await ledger.get("/wallets/me/transactions", headers=token_for(settings, player_id))

    body = response.json()
    assert body["balance"] == 930
    assert [(line["memo"], line["amount"], line["balance_after"]) for line in body["transactions"]] == [
        ("Gewinn", 30, 930),
        ("Einsatz", -100, 900),
        ("Startguthaben", 1000, 1000),
    ]
    second_page = await ledger.get("/wallets/me/transactions", params={"limit": 1, "offset": 1},
                                   headers=token_for(settings, player_id))
    assert [line["memo"] for line in second_page.json()["transactions"]] == ["Einsatz"]


async def test_other_services_can_ask_for_a_balance_over_nats(
    ledger: httpx.AsyncClient, nc: NatsClient, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(420)

    answer = await request(nc, "ledger.cmd.balance", {"player_id": player_id})

    assert answer == {"balance": 420}


async def test_asking_for_the_balance_of_a_player_without_wallet_is_refused(
    ledger: httpx.AsyncClient, nc: NatsClient
) -> None:
    try:
        await request(nc, "ledger.cmd.balance", {"player_id": new_player_id()})
    except CommandRefused as refusal:
        assert refusal.status == 404
    else:
        raise AssertionError("a balance without wallet was answered")


async def test_the_ledger_counts_bookings_in_its_metrics(ledger: httpx.AsyncClient) -> None:
    response = await ledger.get("/metrics")

    assert "speed_ledger_transactions_booked_total" in response.text
    assert "speed_ledger_duplicates_ignored_total" in response.text
