"""deploy/k8s stays true to the code: services, ports, probes, streams, consumers and metric names.

No cluster needed: the manifests are read with PyYAML. Names that matter are imported from the code
(ports, the BOT_TURNS stream, the bots consumer), so renaming them there breaks this test until the
manifests follow. The base and both overlays are also built with the pinned kubectl's kustomize
(tests/deploy/rendering.py; missing, the tests fail and say how to install it) and checked as built;
tests/deploy/test_rendered_manifests.py validates what they build against the API schemas and the code.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from libs.devservers.nats_server import nats_server_binary
from libs.devservers.processes import DEFAULT_PORTS, SPLIT_TABLE_ENV, TABLE_FOLLOWUP, WEB, WEB_PORT
from libs.platform.contracts.subjects import BOT_TURNS_DURABLE as BOT_CONSUMER
from libs.platform.contracts.subjects import BOT_TURNS_STREAM
from libs.platform.nats_mappings import mappings_conf
from libs.platform.nats_permissions import SERVICE_USERS as SERVICE_NATS_USERS
from libs.platform.nats_permissions import USERS as NATS_USERS
from libs.platform.nats_permissions import authorization_conf, password_variable
from libs.platform.settings import TABLE_ROLES, Settings
from tests.deploy.rendering import rendered

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
BASE = K8S / "base"
OVERLAYS = {"dev": K8S / "overlays" / "dev", "production": K8S / "overlays" / "production"}
KUSTOMIZATIONS = {"base": BASE, **OVERLAYS}
OPERATIONS_DOC = REPO / "docs" / "operations.md"

SERVICES = tuple(DEFAULT_PORTS)
NATS_SECRET = "speed-nats-users"
WORKLOADS = ("Deployment", "StatefulSet", "Job")
# Labels Prometheus (prometheus-operator) adds to every scraped series.
TARGET_LABELS = {"job", "instance", "namespace", "pod", "service", "container", "endpoint"}


# ---------------------------------------------------------------------------------------------- reading


def load_documents(path: Path) -> list[Any]:
    """Every non-empty document of a YAML file."""
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


@cache
def kustomization(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((directory / "kustomization.yaml").read_text())
    return data


def generator_files(directory: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """(generator, file) for every file a configMapGenerator or secretGenerator reads."""
    k = kustomization(directory)
    for generator in k.get("configMapGenerator", []) + k.get("secretGenerator", []):
        for entry in generator.get("files", []) + generator.get("envs", []):
            yield generator, directory / entry.split("=", 1)[-1]


def listed_files(directory: Path) -> list[Path]:
    """Every local file a kustomization refers to: resources, patches, generator inputs."""
    k = kustomization(directory)
    files = []
    for entry in k.get("resources", []) + k.get("components", []):
        assert "://" not in entry, f"{directory}: remote resource {entry}; kustomize must build offline"
        path = directory / entry
        files.append(path / "kustomization.yaml" if path.is_dir() else path)
    for patch in k.get("patches", []) + k.get("patchesStrategicMerge", []):
        if isinstance(patch, str):
            files.append(directory / patch)
        elif "path" in patch:
            files.append(directory / patch["path"])
    files.extend(path for _, path in generator_files(directory))
    return files


@cache
def base_objects() -> tuple[dict[str, Any], ...]:
    objects: list[dict[str, Any]] = []
    for entry in kustomization(BASE)["resources"]:
        objects.extend(load_documents(BASE / entry))
    return tuple(objects)


def objects_of(kind: str) -> list[dict[str, Any]]:
    return [obj for obj in base_objects() if obj["kind"] == kind]


def one(kind: str, name: str) -> dict[str, Any]:
    found = [obj for obj in objects_of(kind) if obj["metadata"]["name"] == name]
    assert len(found) == 1, f"expected exactly one {kind} {name} in deploy/k8s/base, found {len(found)}"
    return found[0]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod_spec(workload)
    return list(spec.get("initContainers", [])) + list(spec["containers"])


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def resolve_port(container: dict[str, Any], port: int | str) -> int:
    """A probe's or Service's port (number or container port name) as a number."""
    if isinstance(port, int):
        return port
    for declared in container.get("ports", []):
        if declared.get("name") == port:
            return int(declared["containerPort"])
    raise AssertionError(f"container {container['name']} has no port named {port!r}")


def generator_literals(name: str) -> dict[str, str]:
    for generator in kustomization(BASE).get("configMapGenerator", []):
        if generator["name"] == name:
            return dict(literal.split("=", 1) for literal in generator.get("literals", []))
    raise AssertionError(f"no configMapGenerator {name} in deploy/k8s/base")


def generator_text(name: str, key: str) -> str:
    """The text of file `key` of the base's configMapGenerator `name`."""
    for generator in kustomization(BASE).get("configMapGenerator", []):
        for entry in generator.get("files", []) if generator["name"] == name else []:
            entry_key, _, source = str(entry).rpartition("=")
            if (entry_key or Path(source).name) == key:
                return (BASE / source).read_text()
    raise AssertionError(f"no file {key} in configMapGenerator {name}")


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


# ------------------------------------------------------------------------------------- kustomizations


@pytest.mark.parametrize("name", list(KUSTOMIZATIONS))
def test_every_file_a_kustomization_lists_exists_and_parses(name: str) -> None:
    directory = KUSTOMIZATIONS[name]
    files = listed_files(directory)
    assert files, f"{name}: the kustomization lists nothing"
    for path in files:
        assert path.is_file(), f"{name}: {path.relative_to(REPO)} is listed but missing"
        if path.suffix in (".yaml", ".yml"):
            documents = load_documents(path)
            assert documents, f"{path.relative_to(REPO)} is empty"
            for doc in documents:
                assert isinstance(doc, dict) and ("kind" in doc or path.name == "kustomization.yaml"), path
        elif path.suffix == ".json":
            json.loads(path.read_text())
        else:
            assert path.read_text().strip(), f"{path.relative_to(REPO)} is empty"
    for patch in kustomization(directory).get("patches", []):
        if isinstance(patch, dict) and "patch" in patch:
            assert load_documents_from_text(patch["patch"]), f"{name}: an inline patch does not parse"


def load_documents_from_text(text: str) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(text) if doc is not None]


def test_every_manifest_in_base_is_listed() -> None:
    listed = {path.resolve() for path in listed_files(BASE)}
    on_disk = {path.resolve() for path in BASE.rglob("*") if path.is_file() and path.name != "kustomization.yaml"}
    assert on_disk <= listed, f"files in deploy/k8s/base that no kustomization uses: {sorted(on_disk - listed)}"


@pytest.mark.parametrize("name", list(OVERLAYS))
def test_overlays_build_on_base_in_the_same_namespace(name: str) -> None:
    overlay = kustomization(OVERLAYS[name])
    assert "../../base" in overlay["resources"]
    assert overlay.get("namespace") == kustomization(BASE)["namespace"]


# ----------------------------------------------------------------------------------------- services


@pytest.mark.parametrize("name", SERVICES)
def test_each_service_has_a_deployment_running_it_with_probes_and_limits(name: str) -> None:
    deployment = one("Deployment", name)
    container = next(c for c in pod_spec(deployment)["containers"] if c["name"] == name)
    port = DEFAULT_PORTS[name]

    assert container.get("command", []) + container.get("args", []) == ["python", "-m", f"services.{name}"]
    assert resolve_port(container, "http") == port
    env = env_of(container)
    assert env["PORT"]["value"] == str(port)
    assert "secretKeyRef" in env["AUTH_SECRET"]["valueFrom"], "AUTH_SECRET must come from a Secret"
    config_maps = {ref["configMapRef"]["name"] for ref in container.get("envFrom", []) if "configMapRef" in ref}
    assert "speed-platform" in config_maps

    liveness, readiness = container["livenessProbe"]["httpGet"], container["readinessProbe"]["httpGet"]
    assert liveness["path"] == "/healthz" and resolve_port(container, liveness["port"]) == port
    assert readiness["path"] == "/readyz" and resolve_port(container, readiness["port"]) == port

    limits = container["resources"]["limits"]
    assert limits.get("cpu") and limits.get("memory"), f"{name}: cpu and memory limits required"


@pytest.mark.parametrize("name", SERVICES)
def test_services_with_a_database_get_database_url_from_the_cnpg_app_secret(name: str) -> None:
    uses_database = "uses_database=True" in (REPO / "services" / name / "app.py").read_text()
    container = pod_spec(one("Deployment", name))["containers"][0]
    env = env_of(container)
    if not uses_database:
        assert "DATABASE_URL" not in env, f"{name} has no database; do not hand it the credentials"
        return
    (cluster,) = objects_of("Cluster")
    reference = env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert reference == {"name": f"{cluster['metadata']['name']}-app", "key": "uri"}


def test_platform_config_points_at_nats_and_production() -> None:
    literals = generator_literals("speed-platform")
    assert literals["ENVIRONMENT"] == "production"
    assert literals["HOST"] == "0.0.0.0"
    assert int(literals["BOT_CONCURRENCY"]) >= 1
    match = re.fullmatch(r"nats://([a-z0-9-]+):(\d+)", literals["NATS_URL"])
    assert match, literals["NATS_URL"]
    service = one("Service", match.group(1))
    assert int(match.group(2)) in {p["port"] for p in service["spec"]["ports"]}
    assert service["spec"]["selector"] == one("StatefulSet", "nats")["spec"]["selector"]["matchLabels"]


def test_every_deployment_has_a_service_and_a_servicemonitor() -> None:
    services, monitors = objects_of("Service"), objects_of("ServiceMonitor")
    deployments = objects_of("Deployment")
    assert {d["metadata"]["name"] for d in deployments} >= set(SERVICES)
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        container = pod_spec(deployment)["containers"][0]
        matching = [s for s in services if selects(s["spec"].get("selector", {}), pod_labels)]
        assert matching, f"no Service selects the pods of {name}"
        for service in matching:
            for port in service["spec"]["ports"]:
                resolve_port(container, port.get("targetPort", port["port"]))
        monitored = [
            (service, endpoint)
            for service in matching
            for monitor in monitors
            if selects(monitor["spec"]["selector"].get("matchLabels", {}), service["metadata"].get("labels", {}))
            for endpoint in monitor["spec"]["endpoints"]
        ]
        assert monitored, f"no ServiceMonitor scrapes {name}"
        for service, endpoint in monitored:
            assert endpoint["port"] in {p.get("name") for p in service["spec"]["ports"]}
            assert endpoint.get("path", "/metrics") == "/metrics"


def test_migrations_run_in_a_job() -> None:
    jobs = [job for job in objects_of("Job")
            if any(c.get("command") == ["python", "-m", "libs.platform.migrate"] for c in containers(job))]
    assert len(jobs) == 1, "one Job must run python -m libs.platform.migrate"
    assert importlib.util.find_spec("libs.platform.migrate") is not None
    env = env_of(pod_spec(jobs[0])["containers"][0])
    assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "uri"


def test_containerfile_installs_from_the_lock_and_runs_as_the_manifests_user() -> None:
    text = (DEPLOY / "Containerfile").read_text()
    assert "uv sync --frozen --no-dev" in text
    assert "COPY pyproject.toml uv.lock" in text
    users = re.findall(r"^USER\s+(\d+)", text, re.MULTILINE)
    assert users and int(users[-1]) != 0, "the image must end with a numeric non-root USER"
    for name in SERVICES:
        assert pod_spec(one("Deployment", name))["securityContext"]["runAsUser"] == int(users[-1])


# ----------------------------------------------------------------------------------- security, sizing


def check_workload_hygiene(workload: dict[str, Any]) -> None:
    spec = pod_spec(workload)
    name = f"{workload['kind']} {workload['metadata']['name']}"
    for container in containers(workload):
        resources = container.get("resources", {})
        for kind in ("requests", "limits"):
            assert resources.get(kind, {}).get("cpu"), f"{name}/{container['name']}: no cpu {kind}"
            assert resources.get(kind, {}).get("memory"), f"{name}/{container['name']}: no memory {kind}"
        context = container.get("securityContext", {})
        assert spec.get("securityContext", {}).get("runAsNonRoot") or context.get("runAsNonRoot"), name
        assert context.get("allowPrivilegeEscalation") is False, f"{name}/{container['name']}"
        assert context.get("readOnlyRootFilesystem") is True, f"{name}/{container['name']}"
        assert "ALL" in context.get("capabilities", {}).get("drop", []), f"{name}/{container['name']}"


def test_every_container_has_requests_limits_and_a_locked_down_security_context() -> None:
    workloads = [obj for obj in base_objects() if obj["kind"] in WORKLOADS]
    assert len(workloads) >= len(SERVICES) + 2
    for workload in workloads:
        check_workload_hygiene(workload)


def table_roles_of(deployment: dict[str, Any]) -> frozenset[str]:
    """The roles a table Deployment's pods run (all of them when TABLE_ROLES is not set), as the code reads them."""
    container = pod_spec(deployment)["containers"][0]
    value = env_of(container).get("TABLE_ROLES", {}).get("value")
    return Settings(table_roles=value or ",".join(TABLE_ROLES)).table_role_set  # refuses an unknown role


def test_the_table_runs_as_its_api_and_a_followup_deployment_with_every_role_exactly_once() -> None:
    table, followup = one("Deployment", "table"), one("Deployment", TABLE_FOLLOWUP)
    assert table_roles_of(table) == {"api"}
    assert table_roles_of(followup) == {"followup", "timers", "archive"}
    assert table_roles_of(table) | table_roles_of(followup) == set(TABLE_ROLES)
    # `make run` and the bench split the table the same way.
    assert SPLIT_TABLE_ENV == {"table": {"TABLE_ROLES": "api"},
                               TABLE_FOLLOWUP: {"TABLE_ROLES": "followup,timers,archive",
                                                "OTEL_SERVICE_NAME": TABLE_FOLLOWUP}}
    # Exported spans name the follow-up apart from the API, in the cluster as on a laptop (docs/operations.md).
    assert env_of(pod_spec(followup)["containers"][0])["OTEL_SERVICE_NAME"]["value"] == TABLE_FOLLOWUP


def test_the_table_followup_runs_the_table_image_as_the_tables_nats_user_with_probes_and_limits() -> None:
    deployment = one("Deployment", TABLE_FOLLOWUP)
    container = pod_spec(deployment)["containers"][0]
    assert container["command"] == ["python", "-m", "services.table"]
    env = env_of(container)
    port = DEFAULT_PORTS["table"]
    assert env["PORT"]["value"] == str(port) and resolve_port(container, "http") == port
    assert env["NATS_USER"]["value"] == "table"
    assert env["NATS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": NATS_SECRET,
                                                                 "key": password_variable("table")}
    assert "secretKeyRef" in env["AUTH_SECRET"]["valueFrom"]
    # The archive (docs/archive.md): the database from the CloudNativePG app Secret, and the archive's own
    # NATS user (the one that may purge GAMES) from its key of the NATS Secret.
    (cluster,) = objects_of("Cluster")
    assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"] == {"name": f"{cluster['metadata']['name']}-app",
                                                                "key": "uri"}
    assert env["ARCHIVE_NATS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": NATS_SECRET,
                                                                         "key": password_variable("archive")}
    assert not any("secretRef" in ref for ref in container.get("envFrom", [])), "only the table's password"
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        assert container[probe]["httpGet"]["path"] == path
        assert resolve_port(container, container[probe]["httpGet"]["port"]) == port
    resources = container["resources"]
    assert resources["requests"]["cpu"] and resources["limits"]["cpu"] and resources["limits"]["memory"]
    # Its own Deployment, scaled on its own: the table's HPA and Service leave its pods alone.
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert not selects(one("Service", "table")["spec"]["selector"], labels), "no player request may reach it"
    assert all(hpa["spec"]["scaleTargetRef"]["name"] != TABLE_FOLLOWUP for hpa in objects_of("HorizontalPodAutoscaler"))


SIGNING_SECRET = {"name": "speed-table-signing", "key": "keys.json"}
"""Where both table Deployments read the key file they sign every event with (docs/operations.md, "Signing keys")."""


def test_both_table_deployments_and_no_other_workload_read_the_signing_keys_from_their_secret() -> None:
    assert "table_signing_keys" in Settings.model_fields  # the variable the manifests set is the one the code reads
    for name in ("table", TABLE_FOLLOWUP):  # both append (moves; GameEnded and timeouts), so both sign
        env = env_of(pod_spec(one("Deployment", name))["containers"][0])
        assert env["TABLE_SIGNING_KEYS"]["valueFrom"]["secretKeyRef"] == SIGNING_SECRET, name
    for workload in (item for kind in WORKLOADS for item in objects_of(kind)):
        if workload["metadata"]["name"] in ("table", TABLE_FOLLOWUP):
            continue
        for container in containers(workload):
            assert "TABLE_SIGNING_KEYS" not in env_of(container), workload["metadata"]["name"]
            assert not any(ref.get("secretRef", {}).get("name") == SIGNING_SECRET["name"]
                           for ref in container.get("envFrom", []))
    operations = OPERATIONS_DOC.read_text(encoding="utf-8")
    assert "## Signing keys" in operations
    assert (f"create secret generic {SIGNING_SECRET['name']} --from-file={SIGNING_SECRET['key']}="
            in operations), "the doc says how to create the Secret"


def test_every_deployment_is_watched_by_the_availability_alerts() -> None:
    rules = rule_expressions()
    for alert in ("SpeedServiceDown", "SpeedServiceNotReady"):
        (pattern,) = set(re.findall(r'deployment=~"([^"]+)"', rules[alert]))
        for deployment in objects_of("Deployment"):
            assert re.fullmatch(pattern, deployment["metadata"]["name"]), (alert, deployment["metadata"]["name"])
    (jobs,) = set(re.findall(r'job=~"([^"]+)"', rules["SpeedMetricsScrapeFailing"]))
    for service in objects_of("Service"):
        if service["metadata"]["labels"].get("app.kubernetes.io/component") == "service":
            assert re.fullmatch(jobs, service["metadata"]["name"]), service["metadata"]["name"]


def test_table_spreads_over_zones_and_nodes() -> None:
    constraints = pod_spec(one("Deployment", "table")).get("topologySpreadConstraints", [])
    assert {c["topologyKey"] for c in constraints} >= {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}


# ----------------------------------------------------------------------------------- NATS, PostgreSQL


def test_nats_is_a_three_node_jetstream_cluster() -> None:
    statefulset = one("StatefulSet", "nats")
    replicas = statefulset["spec"]["replicas"]
    assert replicas == 3
    headless = one("Service", statefulset["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"].get("publishNotReadyAddresses") is True
    conf = generator_text("nats-config", "nats.conf")
    assert re.search(r"^jetstream\s*\{", conf, re.MULTILINE) and "store_dir" in conf
    assert re.search(r"^cluster\s*\{", conf, re.MULTILINE)
    assert "server_name: $SERVER_NAME" in conf
    for index in range(replicas):
        assert f"nats://nats-{index}.{headless['metadata']['name']}:6222" in conf
    volumes = {v["name"]: v for v in pod_spec(statefulset)["volumes"]}
    assert volumes["config"]["configMap"]["name"] == "nats-config"
    assert statefulset["spec"]["volumeClaimTemplates"], "JetStream needs persistent storage"
    nats = next(c for c in pod_spec(statefulset)["containers"] if c["name"] == "nats")
    assert env_of(nats)["SERVER_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    exporter_port = next(p["name"] for c in pod_spec(statefulset)["containers"] for p in c.get("ports", [])
                         if p["name"] == "metrics")
    monitor = next(m for m in objects_of("ServiceMonitor")
                   if selects(m["spec"]["selector"]["matchLabels"], headless["metadata"]["labels"]))
    assert monitor["spec"]["endpoints"][0]["port"] == exporter_port


def test_postgres_is_a_cloudnativepg_cluster_of_three() -> None:
    (cluster,) = objects_of("Cluster")
    assert cluster["apiVersion"].startswith("postgresql.cnpg.io/")
    assert cluster["spec"]["instances"] == 3


# ----------------------------------------------------------------------------------------- scaling


def test_keda_scales_bots_on_the_bot_turns_consumer() -> None:
    (scaled,) = objects_of("ScaledObject")
    bot = one("Deployment", scaled["spec"]["scaleTargetRef"]["name"])
    assert bot["metadata"]["name"] == "bot"
    assert "replicas" not in bot["spec"], "KEDA owns the bot replicas; a fixed count would fight it"
    assert scaled["spec"]["minReplicaCount"] == 1 and scaled["spec"]["maxReplicaCount"] == 20
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "nats-jetstream"
    metadata = trigger["metadata"]
    assert metadata["stream"] == BOT_TURNS_STREAM
    assert metadata["consumer"] == BOT_CONSUMER
    assert metadata["account"] == "$G"
    assert float(metadata["lagThreshold"]) > 0
    # KEDA reaches the consumer leader as <server_name>.<endpoint>: the endpoint must be the headless
    # Service, in the namespace the manifests are deployed to, on the NATS monitoring port.
    host, port = metadata["natsServerMonitoringEndpoint"].rsplit(":", 1)
    service_name, namespace, *_ = host.split(".")
    statefulset = one("StatefulSet", "nats")
    assert service_name == statefulset["spec"]["serviceName"]
    assert namespace == kustomization(BASE)["namespace"]
    nats = next(c for c in pod_spec(statefulset)["containers"] if c["name"] == "nats")
    assert int(port) == resolve_port(nats, "monitor") == 8222


def test_table_scales_on_cpu_from_two_to_ten() -> None:
    (hpa,) = objects_of("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == "table"
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 10)
    assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
    table = one("Deployment", "table")
    assert "replicas" not in table["spec"], "the HPA owns the table replicas"
    assert pod_spec(table)["containers"][0]["resources"]["requests"]["cpu"], "CPU scaling needs a request"


def test_production_has_disruption_budgets_for_table_bot_and_nats() -> None:
    budgets = [doc for path in listed_files(OVERLAYS["production"]) if path.suffix == ".yaml"
               for doc in load_documents(path) if doc.get("kind") == "PodDisruptionBudget"]
    for workload in (one("Deployment", "table"), one("Deployment", TABLE_FOLLOWUP), one("Deployment", "bot"),
                     one("StatefulSet", "nats")):
        labels = workload["spec"]["template"]["metadata"]["labels"]
        assert any(selects(b["spec"]["selector"]["matchLabels"], labels) for b in budgets), workload["metadata"]


# ----------------------------------------------------------------------------------------- metrics

METRIC_CLASSES = {"Counter", "Gauge", "Histogram", "Summary"}


@cache
def defined_metrics() -> dict[str, tuple[str, frozenset[str]]]:
    """speed_* metrics constructed in services/ and libs/: name -> (type, label names)."""
    found: dict[str, tuple[str, frozenset[str]]] = {}
    for root in (REPO / "services", REPO / "libs"):
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                first = node.args[0]
                if callee not in METRIC_CLASSES or not isinstance(first, ast.Constant):
                    continue
                if not str(first.value).startswith("speed_"):
                    continue
                labels_node = node.args[2] if len(node.args) > 2 else next(
                    (k.value for k in node.keywords if k.arg == "labelnames"), None)
                labels = frozenset(
                    str(e.value) for e in getattr(labels_node, "elts", []) if isinstance(e, ast.Constant))
                found[str(first.value)] = (str(callee), labels)
    return found


@cache
def exposed_series() -> dict[str, frozenset[str]]:
    """The series names Prometheus actually sees (prometheus_client suffixes), with their labels."""
    series: dict[str, frozenset[str]] = {}
    for name, (kind, labels) in defined_metrics().items():
        if kind == "Counter":
            base = name.removesuffix("_total")
            series[f"{base}_total"] = series[f"{base}_created"] = labels
        elif kind == "Gauge":
            series[name] = labels
        elif kind == "Histogram":
            series[f"{name}_bucket"] = labels | {"le"}
            for suffix in ("_sum", "_count", "_created"):
                series[name + suffix] = labels
        else:  # Summary
            series[name] = labels | {"quantile"}
            for suffix in ("_sum", "_count", "_created"):
                series[name + suffix] = labels
    return series


def rule_expressions() -> dict[str, str]:
    """alert name -> PromQL, from every PrometheusRule."""
    return {
        rule.get("alert") or rule["record"]: rule["expr"]
        for obj in objects_of("PrometheusRule")
        for group in obj["spec"]["groups"]
        for rule in group["rules"]
    }


def dashboard_files() -> list[Path]:
    return [path for generator, path in generator_files(BASE)
            if generator.get("options", {}).get("labels", {}).get("grafana_dashboard") == "1"]


def walk_expressions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "expr" and isinstance(value, str):
                yield value
            else:
                yield from walk_expressions(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk_expressions(item)


def dashboard_expressions() -> dict[str, str]:
    """'<file>: <panel title>' -> PromQL, from every dashboard."""
    found = {}
    for path in dashboard_files():
        for panel in json.loads(path.read_text())["panels"]:
            for index, expr in enumerate(walk_expressions(panel.get("targets", []))):
                found[f"{path.name}: {panel['title']} #{index}"] = expr
    return found


def all_expressions() -> dict[str, str]:
    return {**rule_expressions(), **dashboard_expressions()}


SELECTOR = re.compile(r'(?<![\w"])(speed_[A-Za-z0-9_:]+)\s*(\{[^}]*\})?')
MATCHER = re.compile(r'([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)\s*"')
NAME_REGEX = re.compile(r'__name__\s*=~\s*"([^"]+)"')
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
OTHER_SELECTOR = re.compile(r'(?<![\w"])(?!speed_)(?:[a-z]+_[a-z0-9_]+|up)\s*[{\[]')


def test_the_code_defines_the_metrics_the_manifests_need() -> None:
    assert len(defined_metrics()) >= 10, "the metric scan found too little; has the metrics code moved?"


def test_every_speed_metric_in_rules_and_dashboards_is_defined_in_the_code() -> None:
    series = exposed_series()
    problems = []
    for where, expr in all_expressions().items():
        for match in SELECTOR.finditer(expr):
            name, matchers = match.group(1), match.group(2) or ""
            if name not in series:
                problems.append(f"{where}: {name} is not exported by services/ or libs/")
                continue
            for label in MATCHER.findall(matchers):
                if label not in series[name] | TARGET_LABELS:
                    problems.append(f"{where}: {name} has no label {label}")
        for pattern in NAME_REGEX.findall(expr):
            if not any(re.fullmatch(pattern, name) for name in series):
                problems.append(f"{where}: __name__=~{pattern!r} matches no exported metric")
    assert not problems, "\n".join(problems)


def test_grouping_labels_exist_on_the_metrics_grouped() -> None:
    series = exposed_series()
    problems = []
    for where, expr in all_expressions().items():
        names = [m.group(1) for m in SELECTOR.finditer(expr) if m.group(1) in series]
        if not names or OTHER_SELECTOR.search(expr):
            continue  # mixed with metrics from elsewhere (kube-state-metrics, the NATS exporter)
        known = TARGET_LABELS.union(*(series[name] for name in names))
        for group in GROUPING.findall(expr):
            for label in filter(None, (part.strip() for part in group.split(","))):
                if label not in known:
                    problems.append(f"{where}: grouping by {label}, which {names} do not have")
    assert not problems, "\n".join(problems)


def test_every_metric_the_code_defines_is_on_a_dashboard() -> None:
    used = {m.group(1) for expr in dashboard_expressions().values() for m in SELECTOR.finditer(expr)}
    missing = [name for name in defined_metrics()
               if not any(series == name or series.startswith(name.removesuffix("_total") + "_")
                          for series in used)]
    assert not missing, f"metrics nobody can see; add a panel to deploy/k8s/base/monitoring/dashboards: {missing}"


def test_alerts_cover_what_operators_care_about() -> None:
    exprs = "\n".join(rule_expressions().values())
    for needed in ("kube_deployment_status_replicas_ready", "speed_bot_decision_seconds_bucket",
                   "speed_table_append_conflicts_total", "speed_table_append_seconds_bucket",
                   'speed_http_requests_total{status=~"5..'):
        assert needed in exprs, f"no alert uses {needed}"
    backlog = [e for e in rule_expressions().values() if "jetstream_consumer_num_pending" in e
               and f'stream_name="{BOT_TURNS_STREAM}"' in e and f'consumer_name="{BOT_CONSUMER}"' in e]
    assert backlog, f"no alert on the pending messages of {BOT_TURNS_STREAM}/{BOT_CONSUMER}"


def test_every_alert_is_explained_in_the_operations_doc() -> None:
    doc = OPERATIONS_DOC.read_text()
    for obj in objects_of("PrometheusRule"):
        for group in obj["spec"]["groups"]:
            for rule in group["rules"]:
                if "alert" not in rule:
                    continue
                alert = rule["alert"]
                assert rule["labels"]["severity"] in {"critical", "warning", "info"}, alert
                assert rule["annotations"].get("summary"), alert
                assert rule["annotations"].get("runbook") == f"docs/operations.md#{alert.lower()}", alert
                assert f"### {alert}" in doc, f"docs/operations.md has no section ### {alert}"


def test_dashboards_are_grafana_json_with_panels() -> None:
    files = dashboard_files()
    assert files, "no configMapGenerator labelled grafana_dashboard: '1'"
    uids = set()
    for path in files:
        dashboard = json.loads(path.read_text())
        assert dashboard["uid"] not in uids
        uids.add(dashboard["uid"])
        assert dashboard["title"] and dashboard["panels"]
        for panel in dashboard["panels"]:
            if panel["type"] != "row":
                assert panel.get("targets"), f"{path.name}: panel {panel['title']} shows nothing"
    exprs = "\n".join(dashboard_expressions().values())
    for needed in ("speed_table_games_started_total", "speed_table_games_ended_total", "by (chosen_by)",
                   "histogram_quantile(0.5, sum by (le) (rate(speed_table_append_seconds_bucket",
                   "histogram_quantile(0.99, sum by (le) (rate(speed_table_append_seconds_bucket",
                   "speed_table_append_conflicts_total", "speed_table_live_streams", "speed_bot_decisions_total",
                   "sum by (le, level) (rate(speed_bot_decision_seconds_bucket",
                   "sum by (service, route) (rate(speed_http_requests_total",
                   "sum by (le, service, route) (rate(speed_http_request_seconds_bucket",
                   "speed_ledger_", "speed_leaderboard_"):
        assert needed in exprs, f"no dashboard panel uses {needed}"


# ------------------------------------------------------------------------------- built overlays


def built(name: str) -> tuple[dict[str, Any], ...]:
    """What `kubectl kustomize` builds of the base or an overlay (the pinned kubectl; never skipped)."""
    return rendered(KUSTOMIZATIONS[name])


@pytest.mark.parametrize("name", list(KUSTOMIZATIONS))
def test_kustomize_builds_everything_into_one_namespace(name: str) -> None:
    objects = built(name)
    namespace = kustomization(BASE)["namespace"]
    for obj in objects:
        if obj["kind"] != "Namespace":
            assert obj["metadata"].get("namespace") == namespace, f"{obj['kind']} {obj['metadata']['name']}"
        if obj["kind"] in WORKLOADS:
            check_workload_hygiene(obj)


def test_built_dev_runs_one_replica_of_everything_without_autoscalers() -> None:
    objects = built("dev")
    kinds = {obj["kind"] for obj in objects}
    assert not kinds & {"HorizontalPodAutoscaler", "ScaledObject"}
    for obj in objects:
        if obj["kind"] in ("Deployment", "StatefulSet"):
            assert obj["spec"].get("replicas") == 1, obj["metadata"]["name"]


def test_built_production_runs_the_http_services_twice_and_keeps_the_autoscalers() -> None:
    objects = built("production")
    replicas = {obj["metadata"]["name"]: obj["spec"].get("replicas")
                for obj in objects if obj["kind"] == "Deployment"}
    assert replicas == {"lobby": 2, "ledger": 2, "leaderboard": 2, "table": None, "bot": None, TABLE_FOLLOWUP: 2,
                        WEB: 2}
    assert {"HorizontalPodAutoscaler", "ScaledObject", "PodDisruptionBudget"} <= {o["kind"] for o in objects}
    images = {c["image"] for o in objects if o["kind"] in ("Deployment", "Job") for c in containers(o)}
    assert len(images) == 1 and not images.pop().endswith(":latest"), "production runs one pinned release"


# ------------------------------------------------------------------ NATS users and network policies


def test_the_nats_users_conf_is_generated_from_the_code() -> None:
    # Regenerate with: python -m libs.platform.nats_permissions > deploy/k8s/base/nats/users.conf
    assert generator_text("nats-config", "users.conf") == authorization_conf()
    for conf in (BASE / "nats" / "nats.conf", OVERLAYS["dev"] / "nats.conf"):
        assert re.search(r"^include \./users\.conf$", conf.read_text(), re.MULTILINE), conf


def test_the_nats_subject_mappings_are_generated_from_the_code() -> None:
    # Regenerate with: python -m libs.platform.nats_mappings > deploy/k8s/base/nats/mappings.conf
    assert generator_text("nats-config", "mappings.conf") == mappings_conf()
    for conf in (BASE / "nats" / "nats.conf", OVERLAYS["dev"] / "nats.conf"):
        assert re.search(r"^include \./mappings\.conf$", conf.read_text(), re.MULTILINE), conf


@pytest.mark.parametrize("name", ["base", "dev"])
def test_the_nats_config_is_valid_for_nats_server_with_every_password_from_the_secret(
        name: str, tmp_path: Path) -> None:
    conf = (BASE / "nats" / "nats.conf") if name == "base" else (OVERLAYS["dev"] / "nats.conf")
    (tmp_path / "nats.conf").write_text(conf.read_text())
    (tmp_path / "users.conf").write_text(generator_text("nats-config", "users.conf"))
    (tmp_path / "mappings.conf").write_text(generator_text("nats-config", "mappings.conf"))
    secret = {password_variable(user): f"pw-{user}" for user in NATS_USERS}
    result = subprocess.run([nats_server_binary(), "-t", "-c", str(tmp_path / "nats.conf")], capture_output=True,
                            text=True, timeout=30, env={"SERVER_NAME": "nats-0", **secret})
    assert result.returncode == 0, result.stderr
    missing = dict(secret)
    missing.pop(password_variable("bot"))
    result = subprocess.run([nats_server_binary(), "-t", "-c", str(tmp_path / "nats.conf")], capture_output=True,
                            text=True, timeout=30, env={"SERVER_NAME": "nats-0", **missing})
    assert result.returncode != 0 and "NATS_PASSWORD_BOT" in result.stderr, "a missing password must not start"


def test_the_nats_servers_read_every_password_from_the_secret() -> None:
    nats = next(c for c in pod_spec(one("StatefulSet", "nats"))["containers"] if c["name"] == "nats")
    assert {"secretRef": {"name": NATS_SECRET}} in nats.get("envFrom", [])


@pytest.mark.parametrize("name", SERVICES)
def test_each_service_connects_to_nats_as_its_own_user_with_its_password_alone(name: str) -> None:
    assert name in SERVICE_NATS_USERS, f"{name} has no NATS user in libs/platform/nats_permissions"
    container = pod_spec(one("Deployment", name))["containers"][0]
    env = env_of(container)
    assert env["NATS_USER"]["value"] == name
    assert env["NATS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": NATS_SECRET, "key": password_variable(name)}
    assert not any("secretRef" in ref for ref in container.get("envFrom", [])), "only its own password"


CNPG_POD = {"cnpg.io/cluster": "speed-pg"}
INGRESS_NAMESPACE, MONITORING_NAMESPACE = "ingress-nginx", "monitoring"


def pod_labels(objects: tuple[dict[str, Any], ...]) -> dict[str, dict[str, str]]:
    """The labels of every pod the manifests run, by workload name (the CloudNativePG instances as speed-pg)."""
    pods = {obj["metadata"]["name"]: obj["spec"]["template"]["metadata"]["labels"]
            for obj in objects if obj["kind"] in WORKLOADS}
    for cluster in (obj for obj in objects if obj["kind"] == "Cluster"):
        pods[cluster["metadata"]["name"]] = {"cnpg.io/cluster": cluster["metadata"]["name"]}
    return pods


def matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Kubernetes label selector semantics (matchLabels and In/NotIn/Exists); {} selects everything."""
    if any(labels.get(key) != value for key, value in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        if (operator == "In" and labels.get(key) not in values) or (operator == "NotIn" and labels.get(key) in values) \
                or (operator == "Exists" and key not in labels) or (operator == "DoesNotExist" and key in labels):
            return False
    return True


def admitted(objects: tuple[dict[str, Any], ...], target: dict[str, str], port: int | str,
             source: dict[str, str] | None = None, namespace: str | None = None) -> bool:
    """Whether the NetworkPolicies let a pod (`source` labels in this namespace, or any pod of the namespace
    `namespace`) reach `port` of a pod labelled `target` (ports given by number or by name, as written)."""
    for policy in (obj for obj in objects if obj["kind"] == "NetworkPolicy"):
        spec = policy["spec"]
        if "Ingress" not in spec.get("policyTypes", ["Ingress"]) or not matches(spec["podSelector"], target):
            continue
        for rule in spec.get("ingress", []):
            if rule.get("ports") and port not in {p["port"] for p in rule["ports"]}:
                continue
            for peer in rule.get("from", []):
                if "namespaceSelector" in peer:
                    if namespace is not None and matches(peer["namespaceSelector"],
                                                         {"kubernetes.io/metadata.name": namespace}) \
                            and matches(peer.get("podSelector", {}), {}):
                        return True
                elif source is not None and matches(peer["podSelector"], source):
                    return True
    return False


@pytest.mark.parametrize("overlay", list(OVERLAYS))
def test_network_policies_deny_by_default_and_open_only_what_the_platform_needs(overlay: str) -> None:
    objects = built(overlay)
    policies = [obj for obj in objects if obj["kind"] == "NetworkPolicy"]
    assert any(p["spec"]["podSelector"] == {} and p["spec"]["policyTypes"] == ["Ingress"]
               and not p["spec"].get("ingress") for p in policies), "a default deny of all ingress in the namespace"
    pods = pod_labels(objects)
    nats, postgres = pods["nats"], pods["speed-pg"]
    assert postgres == CNPG_POD
    databases = {name for name in SERVICES
                 if "uses_database=True" in (REPO / "services" / name / "app.py").read_text()} | {"migrate"}
    for name in SERVICES:
        assert admitted(objects, nats, 4222, source=pods[name]), f"{name} must reach NATS"
        assert admitted(objects, postgres, 5432, source=pods[name]) == (name in databases), \
            f"{name} {'must' if name in databases else 'must not'} reach PostgreSQL"
        assert admitted(objects, pods[name], "http", namespace=INGRESS_NAMESPACE), f"the ingress must reach {name}"
        assert admitted(objects, pods[name], "http", namespace=MONITORING_NAMESPACE), f"Prometheus must scrape {name}"
        for other in SERVICES:
            assert not admitted(objects, pods[other], "http", source=pods[name]), f"{name} must not reach {other}"
    followup = pods[TABLE_FOLLOWUP]
    assert admitted(objects, nats, 4222, source=followup), "the table's follow-up must reach NATS"
    assert admitted(objects, postgres, 5432, source=followup), "the table's follow-up runs the archive"
    assert admitted(objects, followup, "http", namespace=MONITORING_NAMESPACE), "Prometheus must scrape it"
    for name in SERVICES:
        assert not admitted(objects, followup, "http", source=pods[name]), f"{name} must not reach it"
        assert not admitted(objects, pods[name], "http", source=followup), f"it must not reach {name}"
    assert admitted(objects, postgres, 5432, source=pods["migrate"])
    assert not admitted(objects, nats, 4222, source=pods["migrate"]), "the migrations need no NATS"
    assert not admitted(objects, nats, 4222, namespace=INGRESS_NAMESPACE)
    assert not admitted(objects, postgres, 5432, namespace=INGRESS_NAMESPACE)
    assert admitted(objects, nats, 6222, source=nats), "the NATS servers route to each other"
    assert admitted(objects, nats, 8222, namespace="keda"), "KEDA reads the BOT_TURNS backlog"


# ------------------------------------------------------------------------------------ the web front end

WEB_REACHES = ("lobby", "table", "leaderboard", "bot")
"""The public HTTP APIs the web front end builds its pages from (issue 25); nothing else."""


def test_the_web_front_end_runs_without_nats_or_database_and_reaches_the_apis_by_their_services() -> None:
    deployment = one("Deployment", WEB)
    container = pod_spec(deployment)["containers"][0]
    assert container["command"] == ["python", "-m", "services.web"]
    env = env_of(container)
    assert env["PORT"]["value"] == str(WEB_PORT) and resolve_port(container, "http") == WEB_PORT
    assert env["NATS_URL"]["value"] == "" and "NATS_USER" not in env and "NATS_PASSWORD" not in env
    assert "DATABASE_URL" not in env and "secretKeyRef" in env["AUTH_SECRET"]["valueFrom"]
    for name in WEB_REACHES:
        url = env[f"{name.upper()}_URL"]["value"]
        assert url == f"http://{name}:{DEFAULT_PORTS[name]}"
        assert DEFAULT_PORTS[name] in {p["port"] for p in one("Service", name)["spec"]["ports"]}
    assert "LEDGER_URL" not in env
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        assert container[probe]["httpGet"]["path"] == path
    # Production settings accept a service without NATS only when it says so (an empty NATS_URL).
    Settings(environment="production", auth_secret="x" * 40, nats_url="")
    with pytest.raises(ValueError, match="NATS_USER"):
        Settings(environment="production", auth_secret="x" * 40)


def test_the_ingress_sends_every_path_to_the_web_front_end_unbuffered() -> None:
    (ingress,) = objects_of("Ingress")
    (rule,) = ingress["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    assert path["path"] == "/" and path["pathType"] == "Prefix"
    assert path["backend"]["service"]["name"] == WEB
    service = one("Service", WEB)
    assert path["backend"]["service"]["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"  # live


def egress_allowed(objects: tuple[dict[str, Any], ...], source: dict[str, str], target: dict[str, str],
                   port: int) -> bool:
    """Whether the egress policies selecting `source` let it reach `port` of a pod labelled `target` (True when
    no egress policy selects it: egress is open by default)."""
    policies = [obj for obj in objects if obj["kind"] == "NetworkPolicy"
                and "Egress" in obj["spec"].get("policyTypes", []) and matches(obj["spec"]["podSelector"], source)]
    if not policies:
        return True
    for policy in policies:
        for rule in policy["spec"].get("egress", []):
            if rule.get("ports") and port not in {p["port"] for p in rule["ports"]}:
                continue
            if any("podSelector" in peer and "namespaceSelector" not in peer and matches(peer["podSelector"], target)
                   for peer in rule.get("to", [])):
                return True
    return False


def test_the_web_front_end_may_reach_lobby_table_leaderboard_and_bot_over_http_and_nothing_else() -> None:
    objects = base_objects()
    pods = pod_labels(objects)
    web = pods[WEB]
    assert web.get("app.kubernetes.io/component") != "service", "no NATS for the web (NATS admits services)"
    assert admitted(objects, web, "http", namespace=INGRESS_NAMESPACE), "the ingress must reach the pages"
    assert admitted(objects, web, "http", namespace=MONITORING_NAMESPACE), "Prometheus must scrape the web"
    for name in WEB_REACHES:
        assert admitted(objects, pods[name], "http", source=web), f"the web must reach {name}"
        assert egress_allowed(objects, web, pods[name], DEFAULT_PORTS[name]), f"the web must reach {name}"
    for name in ("ledger", TABLE_FOLLOWUP):
        assert not admitted(objects, pods[name], "http", source=web), f"the web must not reach {name}"
        assert not egress_allowed(objects, web, pods[name], DEFAULT_PORTS["ledger" if name == "ledger" else "table"])
    assert not admitted(objects, pods["nats"], 4222, source=web)
    assert not egress_allowed(objects, web, pods["nats"], 4222)
    assert not admitted(objects, pods["speed-pg"], 5432, source=web)
    assert not egress_allowed(objects, web, pods["speed-pg"], 5432)
    for name in SERVICES:
        assert not admitted(objects, web, "http", source=pods[name]), f"{name} has no business with the pages"
