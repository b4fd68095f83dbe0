"""Faults met by a service in its container, seen through the probes its manifest declares (tools/containers.py):
NATS or PostgreSQL away when it starts, an event loop that no longer answers, and SIGTERM.

Marked `containers` like tests/deploy/test_containers.py (`make test-containers`): asked for, they fail (never
skip) where podman cannot run containers.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from libs.devservers.servers import Servers, start_servers
from tools import containers as containers_tool
from tools import image as image_tool

pytestmark = [pytest.mark.containers, pytest.mark.timeout(2400)]

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """NATS and PostgreSQL for the module: a test that stops one starts it again."""
    servers = start_servers(tmp_path_factory.mktemp("servers"), throwaway=True)
    yield servers
    servers.stop()


@pytest.fixture
def platform(image: str, servers: Servers, tmp_path: Path) -> Iterator[containers_tool.ContainerPlatform]:
    platform = containers_tool.ContainerPlatform(servers, image=image, auth_secret=secrets.token_urlsafe(48),
                                                 prefix="speed-fault", logs=tmp_path / "logs")
    yield platform
    platform.stop()


def not_ready_for(platform: containers_tool.ContainerPlatform, container: containers_tool.Container,
                  probes: int) -> list[int | None]:
    """Send the readiness probe `probes` times at its period; return what it answered (None: nothing) while
    the container kept running."""
    spec = container.workload.probes["readiness"]
    answers = []
    for _ in range(probes):
        answers.append(platform.probe(container, "readiness"))
        assert platform.running(container), platform.log(container)
        time.sleep(spec.period)
    return answers


@pytest.mark.parametrize("away", ["nats", "postgres"])
def test_a_service_started_without_nats_or_postgres_stays_not_ready_and_gets_ready_when_it_comes(
        platform: containers_tool.ContainerPlatform, servers: Servers, away: str) -> None:
    server = servers.nats if away == "nats" else servers.postgres
    assert server is not None
    server.stop()
    try:
        # The ledger needs both (its own NATS user and its schema in PostgreSQL); migrations ran before.
        platform.start(only=["ledger"], migrate=False)
        ledger = platform.by_name("ledger")
        # Three readiness periods (15 s): never ready, still running (the kubelet restarts it only when its
        # startup probe has failed 60 times, 2 minutes).
        answers = not_ready_for(platform, ledger, probes=3)
        print(f"\n{away} away: readiness answered {answers}; its startup probe {platform.probe(ledger, 'startup')}")
    finally:
        server.start()  # also for the module's next test
    assert 200 not in answers, answers
    platform.wait_ready()
    assert platform.probe(ledger, "liveness") == 200


def test_an_event_loop_that_stops_answering_fails_its_liveness_probe(
        platform: containers_tool.ContainerPlatform) -> None:
    platform.start(only=["lobby"])
    platform.wait_ready()
    lobby = platform.by_name("lobby")
    liveness = lobby.workload.probes["liveness"]
    # SIGSTOP: the process, its event loop with it, stops while the kernel still accepts connections on its
    # socket: what the kubelet sees of a loop blocked by a long synchronous call.
    image_tool.podman("kill", "--signal", "STOP", lobby.container)
    try:
        failures = [platform.probe(lobby, "liveness") for _ in range(liveness.failures)]
    finally:
        image_tool.podman("kill", "--signal", "CONT", lobby.container)
    # failureThreshold unanswered probes in a row, each given its timeoutSeconds: the kubelet restarts it.
    assert failures == [None] * liveness.failures
    assert platform.probe(lobby, "liveness") == 200


def test_sigterm_ends_every_service_by_itself_within_its_grace_period(
        platform: containers_tool.ContainerPlatform) -> None:
    platform.start()
    platform.wait_ready()
    stopped = platform.stop()
    names = {workload.name for workload in platform.workloads if workload.kind == "Deployment"}
    assert set(stopped) == names
    # 137 would be SIGKILL: podman sends it when terminationGracePeriodSeconds (counted from the preStop hook,
    # as the kubelet counts them) are over. Each ended by itself after SIGTERM, cleanly.
    assert {name: how.exit_code for name, how in stopped.items()} == dict.fromkeys(names, 0), stopped
    print("\nstopped (s from preStop, s after SIGTERM):",
          {name: (round(how.seconds, 1), round(how.after_sigterm, 1)) for name, how in sorted(stopped.items())})
