"""What deploy/k8s tells Prometheus: the ServiceMonitors (as scrape configs with prometheus-operator's
relabelling) and the PrometheusRule's groups, read from the manifests so the local Prometheus scrapes and
alerts exactly as the cluster's does."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MONITORING = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "base"
NAMESPACE = "speed"
"""The namespace of the base kustomization: the alerts' PromQL names it."""
RULES_FILE = MONITORING / "monitoring" / "prometheusrules.yaml"
DASHBOARDS = MONITORING / "monitoring" / "dashboards"


def _documents(path: Path) -> Iterator[dict[str, Any]]:
    import yaml

    for document in yaml.safe_load_all(path.read_text()):
        if isinstance(document, dict):
            yield document


@dataclass(frozen=True)
class ServiceMonitor:
    """One ServiceMonitor endpoint and the Service it selects (the `job` label prometheus-operator gives)."""

    name: str
    service: str
    port_name: str
    path: str
    honor_labels: bool
    interval: str

    @property
    def job_name(self) -> str:
        """prometheus-operator's scrape job name for the monitor's first endpoint."""
        return f"serviceMonitor/{NAMESPACE}/{self.name}/0"


def service_monitors(base: Path = MONITORING) -> list[ServiceMonitor]:
    """Every ServiceMonitor of the base manifests, with the name of the Service its selector matches."""
    documents = [document for path in sorted(base.rglob("*.yaml")) for document in _documents(path)]
    services = [document for document in documents if document.get("kind") == "Service"]
    monitors = []
    for monitor in (document for document in documents if document.get("kind") == "ServiceMonitor"):
        wanted = monitor["spec"]["selector"]["matchLabels"]
        matching = [service["metadata"]["name"] for service in services
                    if wanted.items() <= service["metadata"].get("labels", {}).items()]
        if len(matching) != 1:
            raise ValueError(f"ServiceMonitor {monitor['metadata']['name']} selects {matching}, not one Service")
        endpoint = monitor["spec"]["endpoints"][0]
        monitors.append(ServiceMonitor(
            name=monitor["metadata"]["name"], service=matching[0], port_name=endpoint["port"],
            path=endpoint.get("path", "/metrics"), honor_labels=bool(endpoint.get("honorLabels", False)),
            interval=endpoint.get("interval", "30s")))
    return monitors


def operator_relabelling(monitor: ServiceMonitor) -> list[dict[str, Any]]:
    """The target relabelling prometheus-operator writes for a ServiceMonitor endpoint (the part that names the
    series: namespace, service, pod, container, job, endpoint), fed here by the `__meta_kubernetes_*` labels
    that the local targets carry in place of Kubernetes' service discovery."""
    def copy(source: str, target: str) -> dict[str, Any]:
        return {"source_labels": [source], "target_label": target}

    return [
        copy("__meta_kubernetes_namespace", "namespace"),
        copy("__meta_kubernetes_service_name", "service"),
        copy("__meta_kubernetes_pod_name", "pod"),
        copy("__meta_kubernetes_pod_container_name", "container"),
        {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "job", "replacement": "${1}"},
        {"target_label": "endpoint", "replacement": monitor.port_name},
    ]


def rule_groups(path: Path = RULES_FILE) -> list[dict[str, Any]]:
    """The rule groups of the PrometheusRule (its `spec.groups`: a plain Prometheus rules file's content)."""
    (rule,) = [document for document in _documents(path) if document.get("kind") == "PrometheusRule"]
    groups: list[dict[str, Any]] = rule["spec"]["groups"]
    return groups


def write_rules_file(target: Path, path: Path = RULES_FILE) -> Path:
    """Write the PrometheusRule's groups as a Prometheus rules file at `target` (for prometheus, promtool)."""
    import yaml

    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump({"groups": rule_groups(path)}, sort_keys=False))
    return target
