"""A real Prometheus (Debian's package, the cluster's ServiceMonitors, relabelling and rules; libs/devservers/
monitoring) scrapes the whole platform every second while games run. Every dashboard panel's query answers;
stopping the bot service or the ledger makes their alerts' expressions true; a killed table replica costs a
blip of errors on the dashboard while the turns go on. Everything is asserted on Prometheus's answers.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from libs.devservers.k8s_monitoring import rule_groups
from libs.platform import nats_client
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.rpc import request
from tests.observe.dashboard_queries import PanelQuery, metric_names, queries
from tests.observe.observed_platform import (
    ObservedPlatform,
    PrometheusError,
    observed_platform,
    web_guest,
    web_live_events,
    web_move,
    web_solo_game,
)
from tools import demo

pytestmark = pytest.mark.timeout(600)

CLUSTER_ONLY = {
    "kube_deployment_status_replicas_ready": "kube-state-metrics: there is no Kubernetes on a laptop",
}
"""Metrics the dashboards read from exporters the cluster runs and the local platform has not (and why)."""

EMPTY_WHEN_HEALTHY = {
    ("speed-services", "5xx / s by service", "A"):
        "a healthy platform answers no request with a server error (test_a_killed_table_replica_... shows it)",
}
"""Panel queries that may return no series on a healthy platform, with why. Everything else must answer."""


def alert_expression(name: str) -> str:
    """The PromQL of the alert `name` in the PrometheusRule, as the cluster evaluates it."""
    (expr,) = [rule["expr"] for group in rule_groups() for rule in group["rules"] if rule.get("alert") == name]
    return str(expr)


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ObservedPlatform]:
    with observed_platform(tmp_path_factory.mktemp("observed")) as running:
        yield running


def play_demo_games(platform: ObservedPlatform) -> list[str]:
    """One game of every registered game against a computer, through the public HTTP APIs (tools/demo)."""
    urls = {name: platform.url(name) for name in ("lobby", "table", "leaderboard")}
    played = []
    with httpx.Client(timeout=demo.TIMEOUT) as client:
        auth = demo.sign_in(client, urls, "Olga")
        for described in demo.answered(client.get(f"{urls['lobby']}/games"), "Spiele lesen"):
            seating = demo.seatings(described, games=1)[0]
            game_id = demo.start(client, urls, auth, seating, slow=False)
            assert demo.play(client, urls, auth, game_id, random.Random(3), slow=False)["status"] == "ended"
            played.append(game_id)
        demo.wait_until_listed(client, urls, played)
    return played


def use_the_web_pages(platform: ObservedPlatform) -> None:
    """A guest in the web front end: a solo table, its live stream, two moves clicked on the page."""
    with httpx.Client(base_url=platform.url("web"), timeout=20, follow_redirects=False) as client:
        csrf = web_guest(client, "Paula")
        game_id = web_solo_game(client, csrf)
        assert web_live_events(client, game_id, 2) == ["update", "board"]
        for _ in range(2):
            web_move(client, csrf, game_id)
        client.get(f"/wiederholung/{game_id}")


def test_every_dashboard_panel_answers_while_games_run(platform: ObservedPlatform) -> None:
    play_demo_games(platform)
    use_the_web_pages(platform)
    # Every series the games made has been scraped and the rates see two samples (1 s scrapes).
    platform.wait_for("sum(speed_leaderboard_events_processed_total) >= 4", timeout=30, what="games projected")
    time.sleep(3)
    known = platform.metric_names()
    problems: list[str] = []
    for query in queries():
        unknown = {name for name in metric_names(query.expr) if name not in known and name not in CLUSTER_ONLY}
        if unknown:
            problems.append(f"{describe(query)} names metrics no service exports: {sorted(unknown)}")
            continue
        try:
            result = platform.query(query.expr)
        except PrometheusError as refused:
            problems.append(f"{describe(query)} is refused by Prometheus: {refused}")
            continue
        if metric_names(query.expr) & set(CLUSTER_ONLY) or query.key in EMPTY_WHEN_HEALTHY:
            continue
        if not result:
            problems.append(f"{describe(query)} returns no series while games run")
    assert not problems, "\n".join(problems)


def test_the_lists_of_unanswered_queries_name_real_panels() -> None:
    keys = {query.key for query in queries()}
    assert set(EMPTY_WHEN_HEALTHY) <= keys, set(EMPTY_WHEN_HEALTHY) - keys
    used = set().union(*(metric_names(query.expr) for query in queries()))
    assert set(CLUSTER_ONLY) <= used, set(CLUSTER_ONLY) - used


def describe(query: PanelQuery) -> str:
    return f"{query.dashboard} / {query.panel} / {query.ref_id} `{query.expr}`"


async def start_games_awaiting_the_computer(nats_url: str, count: int) -> None:
    """Start `count` games in which a computer moves first and a human (who never moves) second, through the
    table's start command as the lobby would: each asks the bots for one turn, then waits without a clock."""
    client = await nats_client.connect(nats_url)
    try:
        for _ in range(count):
            game_id = uuid.uuid4().hex
            await request(client, TABLE_START, {
                "game_id": game_id, "table_id": None, "game": "speedmosaik", "settings": {"workshop": "kachelwand"},
                "seats": [{"kind": "bot", "level": "easy", "name": "Computer"},
                          {"kind": "human", "name": "Wartend", "player_id": f"p-{game_id[:12]}"}]}, timeout=20)
    finally:
        await client.drain()


def test_a_stopped_bot_service_sets_off_the_computer_turn_backlog_alert(platform: ObservedPlatform) -> None:
    backlog = alert_expression("SpeedBotTurnsBacklogGrowing")
    assert platform.query(backlog) == []
    bot = platform.processes["bot"][0]
    bot.stop()
    platform.rescrape()
    try:
        asyncio.run(start_games_awaiting_the_computer(platform.nats_url, 60))
        # More than 50 turns wait and the number grew: the expression is true (the alert then waits its `for:`).
        (firing,) = platform.wait_for(backlog, timeout=60, what="the computer-turn backlog alert")
        assert float(firing["value"][1]) >= 51
    finally:
        bot.start()
        bot.wait_ready(timeout=90)
        platform.rescrape()
    # The bots work the backlog off: every waiting turn is taken.
    platform.wait_for('max(jetstream_consumer_num_pending{stream_name="BOT_TURNS", consumer_name="bots", '
                      'is_consumer_leader="true"}) == 0', timeout=120, what="the backlog worked off")


def test_a_stopped_ledger_sets_off_the_settlement_lag_alert(platform: ObservedPlatform) -> None:
    lagging = alert_expression("SpeedLedgerSettlementLagging")
    ledger = platform.processes["ledger"][0]
    # The ledger has settled every fact so far (its floor moved within the last minute, or nothing waits).
    platform.wait_for(f"absent({lagging.strip()})", timeout=90, what="no settlement lag before the fault")
    ledger.stop()
    platform.rescrape()
    try:
        asyncio.run(start_games_awaiting_the_computer(platform.nats_url, 3))  # their starts are facts to settle
        # Facts wait and the floor has not moved for the expression's minute: true within its window.
        platform.wait_for(lagging, timeout=150, what="the settlement-lag alert")
    finally:
        ledger.start()
        ledger.wait_ready(timeout=90)
        platform.rescrape()
    platform.wait_for('max(jetstream_consumer_num_pending{stream_name="GAME_FACTS", consumer_name="ledger-games", '
                      'is_consumer_leader="true"}) == 0', timeout=120, what="the ledger catching up")


def test_a_killed_table_replica_shows_as_an_error_blip_while_the_turns_go_on(platform: ObservedPlatform) -> None:
    killed, survivor = platform.processes["table"]
    survivor_moves = f'sum(speed_table_moves_total{{pod="table-{survivor.pid}"}})'
    errors = next(query.expr for query in queries() if query.key == ("speed-services", "5xx / s by service", "A"))
    with httpx.Client(base_url=platform.url("web"), timeout=20, follow_redirects=False) as browser:
        csrf = web_guest(browser, "Karl")
        game_id = web_solo_game(browser, csrf)
        killed.stop(kill=True)
        try:
            before = float(platform.wait_for(survivor_moves, timeout=30, what="the survivor's moves")[0]["value"][1])
            # The web's game page asks the killed replica (a pod's connections die with it): server errors, for
            # a few seconds of a browser retrying (a counter's first sample is no increase to rate(): the errors
            # must span two scrapes to show) ...
            retried_until = time.monotonic() + 4
            while time.monotonic() < retried_until:
                assert browser.get(f"/spiel/{game_id}").status_code == 503
                time.sleep(0.5)
            # ... while computer turns go on through the other replica (bot turns and moves over NATS).
            asyncio.run(start_games_between_computers(platform.nats_url, 2))
            platform.wait_for(f"{survivor_moves} > {before}", timeout=60, what="turns through the other replica")
        finally:
            killed.start()
            killed.wait_ready(timeout=90)
            platform.rescrape()
        web_move(browser, csrf, game_id)  # the page works again once the replica is back
    blip = platform.wait_for(f'{errors.strip()} > 0', timeout=30, what="the error panel's blip")
    assert {(series["metric"]["service"], series["metric"]["status"]) for series in blip} == {("web", "503")}


async def start_games_between_computers(nats_url: str, count: int) -> None:
    """Start `count` games of two easy computers (they play to the end by themselves)."""
    client = await nats_client.connect(nats_url)
    try:
        for _ in range(count):
            await request(client, TABLE_START, {
                "game_id": uuid.uuid4().hex, "table_id": None, "game": "speedmosaik",
                "settings": {"workshop": "kachelwand"},
                "seats": [{"kind": "bot", "level": "easy", "name": f"Computer {seat + 1}"} for seat in range(2)]},
                timeout=20)
    finally:
        await client.drain()
