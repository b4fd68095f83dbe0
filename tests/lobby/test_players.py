"""Signing up as a guest, registering, logging in, and the registration fact."""

from __future__ import annotations

import json

from nats.aio.client import Client as NatsClient
from nats.js.api import ConsumerConfig, DeliverPolicy
from sqlalchemy import update

from libs.platform.contracts.subjects import LOBBY_STREAM, PLAYER_REGISTERED
from services.lobby.database import sessions_of
from services.lobby.models import Player
from services.lobby.workers import publish_registrations_once
from tests.lobby.conftest import Lobby, bearer, unique_name


async def test_guest_gets_a_token_and_is_known_by_it(lobby: Lobby) -> None:
    name = unique_name("Gast")
    response = await lobby.http.post("/guests", json={"name": f"  {name} "})
    assert response.status_code == 201
    guest = response.json()
    assert guest["name"] == name and guest["kind"] == "guest" and guest["token"]

    me = await lobby.http.get("/me", headers=bearer(guest["token"]))
    assert me.json() == {"player_id": guest["player_id"], "name": name, "kind": "guest"}


async def test_registered_player_can_log_in_again_with_the_password(lobby: Lobby) -> None:
    name = unique_name("Anna")
    registered = await lobby.http.post("/players", json={"name": name, "password": "geheim123"})
    assert registered.status_code == 201
    assert registered.json()["kind"] == "registered"

    login = await lobby.http.post("/sessions", json={"name": name.upper(), "password": "geheim123"})
    assert login.status_code == 200
    assert login.json()["player_id"] == registered.json()["player_id"]
    me = await lobby.http.get("/me", headers=bearer(login.json()["token"]))
    assert me.json()["kind"] == "registered" and me.json()["name"] == name


async def test_wrong_password_or_unknown_name_is_refused_in_german(lobby: Lobby) -> None:
    name = unique_name("Bert")
    await lobby.http.post("/players", json={"name": name, "password": "richtig123"})

    wrong = await lobby.http.post("/sessions", json={"name": name, "password": "falsch123"})
    unknown = await lobby.http.post("/sessions", json={"name": unique_name("Niemand"), "password": "egal1234"})

    assert wrong.status_code == 401 and wrong.json()["detail"] == "Name oder Passwort stimmt nicht."
    assert unknown.status_code == 401 and unknown.json()["detail"] == "Name oder Passwort stimmt nicht."


async def test_a_registered_name_is_taken_whatever_its_case(lobby: Lobby) -> None:
    name = unique_name("Clara")
    await lobby.http.post("/players", json={"name": name, "password": "geheim123"})

    again = await lobby.http.post("/players", json={"name": name.lower(), "password": "anderes123"})
    as_guest = await lobby.http.post("/guests", json={"name": name.upper()})

    assert again.status_code == 409 and "schon vergeben" in again.json()["detail"]
    assert as_guest.status_code == 409 and "schon vergeben" in as_guest.json()["detail"]


async def test_too_short_names_and_passwords_are_refused_with_a_reason(lobby: Lobby) -> None:
    short_name = await lobby.http.post("/players", json={"name": "Al", "password": "geheim123"})
    short_password = await lobby.http.post("/players", json={"name": unique_name(), "password": "kurz"})
    odd_name = await lobby.http.post("/guests", json={"name": "<script>"})

    assert short_name.status_code == 422 and "mindestens 3 Zeichen" in short_name.json()["detail"]
    assert short_password.status_code == 422 and "mindestens 8 Zeichen" in short_password.json()["detail"]
    assert odd_name.status_code == 422


async def test_malformed_bodies_and_missing_tokens_are_refused(lobby: Lobby) -> None:
    assert (await lobby.http.post("/players", json={"name": "Dora"})).status_code == 422
    assert (await lobby.http.post("/guests", content=b"kein json")).status_code == 422
    assert (await lobby.http.get("/me")).status_code == 401
    assert (await lobby.http.get("/me", headers=bearer("not-a-token"))).status_code == 401


async def test_registration_fact_lands_on_the_lobby_stream_once(lobby: Lobby, lobby_nc: NatsClient) -> None:
    name = unique_name("Emil")
    player = (await lobby.http.post("/players", json={"name": name, "password": "geheim123"})).json()
    # The outbox publishes it again as if the first publish had not been recorded: still one fact.
    async with sessions_of(lobby.runtime).begin() as session:
        await session.execute(update(Player).where(Player.player_id == player["player_id"])
                              .values(registration_published_at=None))
    assert await publish_registrations_once(lobby.runtime, grace="0 seconds") >= 1

    facts = await _registration_facts(lobby_nc)
    mine = [fact for fact in facts if fact["player_id"] == player["player_id"]]
    assert len(mine) == 1
    assert mine[0]["name"] == name and mine[0]["registered_at"]


async def _registration_facts(nc: NatsClient) -> list[dict[str, str]]:
    js = nc.jetstream()
    subscription = await js.pull_subscribe(
        PLAYER_REGISTERED, stream=LOBBY_STREAM,
        config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL, filter_subject=PLAYER_REGISTERED))
    pending = (await subscription.consumer_info()).num_pending
    messages = await subscription.fetch(pending, timeout=5) if pending else []
    await subscription.unsubscribe()
    return [json.loads(message.data) for message in messages]
