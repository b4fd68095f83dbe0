"""Speedspore through the table service on real servers: the game's own timeout rule, trading between two humans
at the table, and the seat views' hidden hands (issue 12: the game plugs in without changing the services)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import Event, EventType
from libs.platform.rpc import request
from libs.platform.settings import Settings
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from services.table.event_store import GameLog
from tests.conftest import running_app
from tests.table.test_clocks_and_advice import LateClock, auth

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)
HUMANS = [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
          {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}]
BOTS = [{"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]
SHORT, LONG = 30, 60
"""Think times: with the late clock (39 s behind), 30 s (+10 s grace) ends about 1 s after a decision starts, 60 s
about 31 s after: time for the test to decide itself."""
TIMEOUT_KEYS = {"gruendung": {"fruchtkoerper", "faden"}, "wurf": {"wuerfeln"}, "haupt": {"zug_beenden"},
                "abwerfen": {"abwerfen"}, "schimmel": {"schimmel"}, "wuchsschub": {"verzichten"}}
"""What the computer may do for a human whose clock ran out, by phase (README: it only rolls or ends the turn,
and resolves forced choices); an answer to an offer is always "nein"."""


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(create_app(settings, clock=LateClock())) as client, running_app(bot_app(settings)):
        yield client


async def start(nc: NatsClient, think_time: int) -> str:
    result = await request(nc, TABLE_START, {"game": "speedspore", "settings": {"insel": "einsteiger"},
                                             "seats": [*HUMANS, *BOTS], "platform": {"think_time": think_time}})
    return str(result["game_id"])


async def moves(nc: NatsClient, game_id: str) -> list[Event]:
    return [s.event for s in await GameLog(nc.jetstream()).read(game_id) if s.event.type == EventType.MOVE_MADE]


async def view_of(table: httpx.AsyncClient, game_id: str, who: Identity) -> dict[str, Any]:
    answer = await table.get(f"/games/{game_id}/view", headers=auth(who))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_when_a_humans_clock_runs_out_the_computer_only_rolls_ends_the_turn_or_resolves_forced_choices(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, SHORT)
    made: list[Event] = []
    for _ in range(900):
        made = await moves(nc, game_id)
        human_turns = [m for m in made if m.data["seat"] in (0, 1)]
        if len(human_turns) >= 14:
            break
        await asyncio.sleep(0.1)
    human_turns = [m for m in made if m.data["seat"] in (0, 1)]
    assert len(human_turns) >= 14, f"only {len(human_turns)} human moves"
    assert all(m.data["chosen_by"] == "timeout" for m in human_turns)
    allowed = set().union(*TIMEOUT_KEYS.values(), {"antwort"})
    keys = [set(m.data["move"]) - {"opfer"} for m in human_turns]  # the mold's move also names its victim
    assert all(len(made_keys) == 1 and made_keys <= allowed for made_keys in keys), keys
    assert {"fruchtkoerper", "faden", "wuerfeln", "zug_beenden"} <= set().union(*keys)
    assert all(m.data["move"] == {"antwort": "nein"} for m in human_turns if "antwort" in m.data["move"])
    # the game runs on: the computers play their own turns in between
    assert any(m.data["seat"] in (2, 3) and m.data["chosen_by"] != "timeout" for m in made)


def _pick(view: dict[str, Any]) -> dict[str, Any]:
    """A quick human decision: roll, found, discard, move the mold as listed; end the turn otherwise."""
    legal = view["legal_moves"]
    for wanted in ({"wuerfeln": True}, {"antwort": "nein"}):
        if wanted in legal:
            return dict(wanted)
    if {"zug_beenden": True} in legal:
        return {"zug_beenden": True}
    return dict(legal[0])


async def _until_anna_trades(table: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    """Play both humans quickly until Anna has rolled in her own turn and holds cards; return her view."""
    for _ in range(3000):
        anna = await view_of(table, game_id, ANNA)
        board = anna["board"]
        if (0 in anna["to_move"] and board["phase"] == "haupt" and board["dran"] == 0
                and sum(board["du"]["hand"].values()) >= 1 and board["angebot"] is None):
            return anna
        acted = False
        for who, seat in ((ANNA, 0), (BERT, 1)):
            seen = anna if seat == 0 else await view_of(table, game_id, BERT)
            if seat in seen["to_move"] and seen["legal_moves"]:
                answer = await table.post(f"/games/{game_id}/moves", headers=auth(who), json={"move": _pick(seen)})
                assert answer.status_code in (200, 409), answer.text  # 409: a computer moved first
                acted = True
        if not acted:
            await asyncio.sleep(0.05)
    raise AssertionError("Anna never got to trade")


async def _offer_bert_can_pay(table: httpx.AsyncClient, game_id: str) -> dict[str, Any] | None:
    """Play on to Anna's next chance to trade and let her offer (Bert declining) until Bert could pay one; return
    that offer, still open, or None if he could pay none of her first five this turn."""
    anna = await _until_anna_trades(table, game_id)
    offers = [m for m in anna["legal_moves"] if "angebot" in m]
    assert offers, "Anna holds cards after rolling, so she may offer"
    for offer in offers[:5]:
        sent = await table.post(f"/games/{game_id}/moves", headers=auth(ANNA), json={"move": offer})
        assert sent.status_code == 200, sent.text
        bert = await view_of(table, game_id, BERT)
        assert 1 in bert["to_move"], "an offer asks every other seat for an answer, each on its own clock"
        assert bert["board"]["angebot"]["gib"] == offer["angebot"]["gib"]
        if {"antwort": "ja"} in bert["legal_moves"]:
            return dict(offer)
        assert (await table.post(f"/games/{game_id}/moves", headers=auth(BERT),
                                 json={"move": {"antwort": "nein"}})).status_code == 200
    return None


async def _end_annas_turn(table: httpx.AsyncClient, game_id: str) -> None:
    """End Anna's turn as soon as she may (the computers may still be answering her last offer)."""
    for _ in range(400):
        anna = await view_of(table, game_id, ANNA)
        if {"zug_beenden": True} in anna["legal_moves"]:
            answer = await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                                      json={"move": {"zug_beenden": True}})
            assert answer.status_code in (200, 409), answer.text
            return
        await asyncio.sleep(0.05)
    raise AssertionError("Anna could not end her turn")


async def test_two_humans_trade_at_the_table_and_neither_sees_the_others_cards(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, LONG)
    # The table draws the game's seed, and the computers' moves interleave: Bert may hold too little to pay
    # any of Anna's offers in her first turn, so she tries again in her later turns.
    offer = None
    for _turn in range(8):
        offer = await _offer_bert_can_pay(table, game_id)
        if offer is not None:
            break
        await _end_annas_turn(table, game_id)
    assert offer is not None, "Bert could pay none of Anna's offers in eight of her turns"
    before_anna = (await view_of(table, game_id, ANNA))["board"]["du"]["hand"]
    before_bert = (await view_of(table, game_id, BERT))["board"]["du"]["hand"]
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(BERT),
                             json={"move": {"antwort": "ja"}})).status_code == 200
    answers = (await view_of(table, game_id, ANNA))["board"]["angebot"]["antworten"]
    assert answers[1]["art"] == "ja", "each answer is visible as it comes"
    traded = await table.post(f"/games/{game_id}/moves", headers=auth(ANNA), json={"move": {"handeln": 1}})
    assert traded.status_code == 200, traded.text
    after_anna = (await view_of(table, game_id, ANNA))["board"]["du"]["hand"]
    bert_view = await view_of(table, game_id, BERT)
    after_bert = bert_view["board"]["du"]["hand"]
    for kind, count in offer["angebot"]["gib"].items():
        assert after_anna.get(kind, 0) == before_anna.get(kind, 0) - count + offer["angebot"]["nimm"].get(kind, 0)
        assert after_bert.get(kind, 0) == before_bert.get(kind, 0) + count
    # Bert reads Anna's hand only as a count, never by kind; a spectator reads no hand at all
    anna_seen_by_bert = bert_view["board"]["spieler"][0]
    assert anna_seen_by_bert["karten"] == sum(after_anna.values())
    assert "hand" not in anna_seen_by_bert and bert_view["board"]["du"]["platz"] == 1
    spectator = (await table.get(f"/games/{game_id}")).json()
    assert spectator["board"]["du"] is None
