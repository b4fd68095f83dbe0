"""The conformance suite's tiny game through the whole platform: lobby → table → bots → ledger → leaderboard.

Hidden hands, a draw pile, an offer another seat may answer, "Zurück", simultaneous laying, team signs
and the game's own timeout rule, played by two humans over HTTP beside two computers; all five services
run as processes with the game loaded as a plugin (`RULE_PLUGINS`). The table's clock lags 35 s, so a 30 s
think time (plus 10 s grace) runs out after about 5 s.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from libs.devservers.processes import SERVICES
from libs.platform.envelope import Event, EventType, verify_chain
from libs.platform.private import PRIVATE, reveal_for
from tests.conftest import Infrastructure, Platform, running_platform
from tests.e2e.client import live_views, read_log, wait_for

PLUGIN = "tests.rules.tinygame"


@pytest.fixture(scope="module")
def tiny_platform(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    """The five services as processes, with the tiny game loaded and the table's clock 35 s behind."""
    plugin = {"RULE_PLUGINS": PLUGIN}
    extra = {name: {**plugin, **({"CLOCK_LAG_SECONDS": "35"} if name == "table" else {})} for name in SERVICES}
    with running_platform(infra, tmp_path_factory.mktemp("tiny-service-logs"), extra) as platform:
        yield platform


class Player:
    """A registered player using lobby, table and ledger over HTTP."""

    def __init__(self, platform: Platform, name: str) -> None:
        self.platform = platform
        answer = httpx.post(f"{platform.url('lobby')}/players", timeout=10,
                            json={"name": f"{name}-{uuid.uuid4().hex[:6]}", "password": "geheim-" + name * 3})
        answer.raise_for_status()
        body = answer.json()
        self.token, self.player_id = body["token"], body["player_id"]
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def table(self, path: str) -> str:
        return f"{self.platform.url('table')}/games/{path}"

    def view(self, game_id: str) -> dict[str, Any]:
        answer = httpx.get(self.table(f"{game_id}/view"), headers=self.auth, timeout=10)
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def move(self, game_id: str, move: dict[str, Any]) -> httpx.Response:
        return httpx.post(self.table(f"{game_id}/moves"), headers=self.auth, json={"move": move}, timeout=10)

    def log(self, game_id: str) -> dict[str, Any]:
        answer = httpx.get(self.table(f"{game_id}/events"), headers=self.auth, timeout=10)
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def balance(self) -> int:
        answer = httpx.get(f"{self.platform.url('ledger')}/wallets/me", headers=self.auth, timeout=10)
        answer.raise_for_status()
        return int(answer.json()["balance"])


def full_log(infra: Infrastructure, game_id: str) -> list[Event]:
    """The whole log as an auditor with access to the stream reads it."""
    return read_log(infra.nats_url, game_id)


class LiveRecorder(threading.Thread):
    """Reads one seat's live stream (SSE) in the background and keeps every view it is sent."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.views: list[dict[str, Any]] = []

    def run(self) -> None:
        with httpx.stream("GET", self.url, params={"token": self.token}, timeout=httpx.Timeout(60.0)) as stream:
            self.views.extend(live_views(stream.iter_lines()))


def hidden_from(seat: int, value: Any) -> list[Any]:
    """Return every private part in `value` that `seat` could open although it is not meant for it."""
    found = []
    if isinstance(value, dict):
        if PRIVATE in value and len(value) == 1:
            inner = value[PRIVATE]
            if seat not in inner["to"] and ("value" in inner or "salt" in inner):
                found.append(inner)
            return found
        for item in value.values():
            found += hidden_from(seat, item)
    elif isinstance(value, list):
        for item in value:
            found += hidden_from(seat, item)
    return found


def assert_sees_only_its_own(seat: int, view: dict[str, Any]) -> None:
    """A seat's view shows its own hand and the others' card counts, never their cards or its partner's hand."""
    board = view["board"]
    assert board["du"]["platz"] == seat + 1
    for other in board["spieler"]:
        assert set(other) == {"platz", "karten", "gelegt", "zeichen_gegeben", "punkte", "stiche"}
    for effect in view["last_effects"]:
        assert "visible_to" not in effect or seat in effect["visible_to"]


def test_the_tiny_game_runs_through_the_whole_platform_and_never_shows_a_seat_another_seats_hand(
        tiny_platform: Platform, infra: Infrastructure) -> None:
    lobby = tiny_platform.url("lobby")
    anna, bert = Player(tiny_platform, "anna"), Player(tiny_platform, "bert")
    wait_for(lambda: httpx.get(f"{tiny_platform.url('ledger')}/wallets/me", headers=bert.auth).status_code == 200)
    start_balance = {"anna": anna.balance(), "bert": bert.balance()}

    offered = httpx.get(f"{lobby}/games/tinygame", timeout=10).json()
    assert offered["spec"]["undo_steps"] == 2 and offered["spec"]["may_act"] and offered["spec"]["teams"]

    created = httpx.post(f"{lobby}/tables", headers=anna.auth, timeout=10, json={
        "game": "tinygame", "settings": {"variante": "team", "think_time": 30, "stake": 10},
        "player_count": 4, "bot_level": "easy", "fill_with_bots": True})
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    assert httpx.post(f"{lobby}/tables/{table_id}/join", headers=bert.auth, timeout=10).status_code == 200
    started = httpx.post(f"{lobby}/tables/{table_id}/start", headers=anna.auth, timeout=10)
    assert started.status_code == 200, started.text
    game_id = started.json()["game_id"]

    live = LiveRecorder(anna.table(f"{game_id}/live"), anna.token)
    live.start()

    # Round 1 starts with Anna (seat 0): she marks a card, takes it back ("Zurück"), offers, and passes.
    view = anna.view(game_id)
    assert view["to_move"] == [0] and view["may_act"] == [] and not view["can_undo"]
    clock = view["clocks"][0]
    assert clock["seat"] == 0 and clock["think_time"] == 30
    card = view["board"]["du"]["hand"][0]
    assert anna.move(game_id, {"vormerken": card}).status_code == 200
    marked = anna.view(game_id)
    assert marked["board"]["du"]["vorgemerkt"] == card and marked["can_undo"]
    undone = anna.move(game_id, {"zurueck": True})
    assert undone.status_code == 200, undone.text
    undone_view = undone.json()
    assert undone_view["board"]["du"]["vorgemerkt"] is None and not undone_view["can_undo"]
    assert undone_view["clocks"][0]["since_n"] == clock["since_n"]  # "Zurück" never resets the think time
    nothing_left = anna.move(game_id, {"zurueck": True})
    assert nothing_left.status_code == 422 and nothing_left.json()["detail"]

    assert anna.move(game_id, {"anbieten": True}).status_code == 200
    bert_view = bert.view(game_id)
    assert bert_view["to_move"] == [0]  # Anna must still end her turn; her clock runs on
    if bert_view["board"]["angebot_offen"]:  # unless a computer was quicker, Bert may (not must) accept
        assert 1 in bert_view["may_act"] and bert_view["legal_moves"] == [{"annehmen": True}]
    accepted = bert.move(game_id, {"annehmen": True})
    if accepted.status_code == 200:  # Bert was quicker than the computers at seats 2 and 3
        answerer = 1
        assert len(accepted.json()["board"]["du"]["hand"]) == 3
    else:  # a computer answered the offer first
        assert accepted.status_code in (409, 422) and accepted.json()["detail"]
        answerer = next(event.data["seat"] for event in full_log(infra, game_id)
                        if event.type == EventType.MOVE_MADE and event.data["move"] == {"annehmen": True})
    running_copy = anna.log(game_id)  # while the game runs: the seed and others' parts only as digests
    assert not running_copy["ended"] and not hidden_from(0, running_copy["events"])
    verify_chain([Event(**entry) for entry in running_copy["events"]])
    assert anna.move(game_id, {"passen": True}).status_code == 200

    # Bert (seat 1) lets his think time run out: the game passes for him and the log says so.
    def bert_timed_out() -> Event | None:
        return next((event for event in full_log(infra, game_id) if event.type == EventType.MOVE_MADE
                     and event.data["seat"] == 1 and event.data["chosen_by"] == "timeout"), None)

    timed_out = wait_for(bert_timed_out, timeout=30)
    assert timed_out.data["move"] == {"passen": True}

    # From here on both humans play whenever they must: lay the highest card (after a sign to the partner).
    def play_along(player: Player, seat: int) -> bool:
        view = player.view(game_id)
        assert_sees_only_its_own(seat, view)
        if view["status"] != "running":
            return True
        if seat in view["to_move"]:
            moves = view["legal_moves"]
            choice = next((m for m in moves if "zeichen" in m), None) or next(
                (m for m in moves if "passen" in m), None) or max(
                (m for m in moves if "legen" in m), key=lambda m: m["legen"])
            answer = player.move(game_id, choice)
            assert answer.status_code in (200, 409), answer.text
        return False

    wait_for(lambda: play_along(anna, 0) & play_along(bert, 1), timeout=90, interval=0.05)
    live.join(timeout=30)

    # The end: audit, ledger, leaderboard, lobby.
    final = anna.view(game_id)
    assert final["status"] == "ended"
    outcome = final["outcome"]
    assert outcome["places"][0] == outcome["places"][2] and outcome["places"][1] == outcome["places"][3]
    audit = httpx.get(anna.table(f"{game_id}/audit"), timeout=10).json()
    assert audit["chain_ok"] and audit["outcome_matches"]

    events = full_log(infra, game_id)
    kinds = [event.data["move"] for event in events if event.type == EventType.MOVE_MADE]
    assert {"zurueck": True} in kinds and {"annehmen": True} in kinds
    assert any(event.data.get("chosen_by") == "timeout" for event in events if event.type == EventType.MOVE_MADE)

    # Each seat's own copy of the log: other seats' parts only as digests, and its chain verifies.
    for seat, player in ((0, anna), (1, bert)):
        copy = player.log(game_id)["events"]
        assert not hidden_from(seat, copy)
        mine = [Event(**entry) for entry in copy]
        verify_chain(mine)
        assert [event.hash for event in mine] == [event.hash for event in events]
        for entry, event in zip(copy, events, strict=True):
            assert entry["data"] == reveal_for(event.data, seat)
    answerer_draw = [part for event in events if event.type == EventType.MOVE_MADE and event.data["seat"] == answerer
                     for part in event.data["effects"] if PRIVATE in part
                     and part[PRIVATE]["value"]["key"] == "tiny.gezogen"]
    assert answerer_draw and all(part[PRIVATE]["to"] == [answerer] for part in answerer_draw)

    # Anna's live stream, while the game ran, never carried another seat's hand or private effect.
    assert live.views and live.views[-1]["status"] == "ended"
    for shown in live.views:
        assert_sees_only_its_own(0, shown)

    # Stakes: 10 Taler each; the winning team's human takes the pot (split on a tie, remainder to the house).
    def settled() -> dict[str, int] | None:
        now = {"anna": anna.balance(), "bert": bert.balance()}
        return now if now != {name: balance - 10 for name, balance in start_balance.items()} else None

    balances = wait_for(settled, timeout=30)
    change = {name: balances[name] - start_balance[name] for name in balances}
    assert sum(change.values()) in (0, -1)
    winners = {name for name, seat in (("anna", 0), ("bert", 1)) if outcome["places"][seat] == 1}
    for name in change:
        assert change[name] > 0 if winners == {name} else change[name] <= 0 or len(winners) == 2

    board = wait_for(lambda: (r := httpx.get(f"{tiny_platform.url('leaderboard')}/leaderboards/tinygame/team",
                                             params={"limit": 200}, timeout=10)).status_code == 200
                     and {e["player_id"]: e for e in r.json()["entries"]}.get(anna.player_id) and r.json(), timeout=30)
    entries = {entry["player_id"]: entry for entry in board["entries"]}
    assert entries[anna.player_id]["points"] == outcome["leaderboard_points"][0]
    assert entries[bert.player_id]["points"] == outcome["leaderboard_points"][1]
    table = wait_for(lambda: (t := httpx.get(f"{lobby}/tables/{table_id}", timeout=10).json())["status"] == "finished"
                     and t, timeout=30)
    assert table["status"] == "finished"
