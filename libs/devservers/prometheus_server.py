"""A Prometheus process (Debian's `prometheus` package) scraping the platform as the cluster's does.

Its scrape jobs are deploy/k8s's ServiceMonitors with prometheus-operator's relabelling, its rules the
PrometheusRule's groups (libs/devservers/k8s_monitoring). Kubernetes' service discovery is replaced by one
file per Service (`targets/<service>.json`) naming the local processes as its pods; Prometheus re-reads a
file when it changes, so a restarted process on a new port is scraped without a restart.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from libs.devservers.k8s_monitoring import (
    NAMESPACE,
    ServiceMonitor,
    operator_relabelling,
    service_monitors,
    write_rules_file,
)
from libs.devservers.ports import free_port, wait_for_port
from libs.devservers.processes import stop_process

PROMETHEUS_BINARY = "/usr/bin/prometheus"
INSTALL_HINT = "sudo apt-get install -y prometheus"


def prometheus_binary() -> str:
    """Return the prometheus executable (Debian's package), or raise saying how to install it."""
    found = PROMETHEUS_BINARY if os.path.exists(PROMETHEUS_BINARY) else shutil.which("prometheus")
    if found is None:
        raise FileNotFoundError(f"prometheus not found: install it with `{INSTALL_HINT}`")
    return found


@dataclass(frozen=True)
class Target:
    """One process Prometheus scrapes: a pod of the Kubernetes Service `service` (the job)."""

    service: str
    port: int
    pod: str
    container: str


class PrometheusServer:
    """Starts Prometheus on a free loopback port with its data under `data_dir`.

    `scrape_interval` and `evaluation_interval` override the ServiceMonitors' 15 s (the tests use 1 s, so a
    fault shows within seconds); the rules and relabelling are the cluster's unchanged.
    """

    def __init__(self, data_dir: Path, port: int | None = None, *, scrape_interval: str | None = None,
                 evaluation_interval: str = "15s") -> None:
        self.data_dir = data_dir.resolve()
        self.port = free_port(port)
        self.scrape_interval = scrape_interval
        self.evaluation_interval = evaluation_interval
        self.monitors: list[ServiceMonitor] = service_monitors()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> dict[str, Any]:
        """The prometheus.yml: one scrape job per ServiceMonitor, the PrometheusRule's groups as rules."""
        jobs = []
        for monitor in self.monitors:
            jobs.append({
                "job_name": monitor.job_name,
                "honor_labels": monitor.honor_labels,
                "scrape_interval": self.scrape_interval or monitor.interval,
                "scrape_timeout": "1s" if self.scrape_interval else "10s",
                "metrics_path": monitor.path,
                "file_sd_configs": [{"files": [str(self._targets_file(monitor.service))]}],
                "relabel_configs": operator_relabelling(monitor),
            })
        return {"global": {"scrape_interval": self.scrape_interval or "15s",
                           "evaluation_interval": self.evaluation_interval},
                "rule_files": [str(self.data_dir / "rules" / "speed-platform.yaml")],
                "scrape_configs": jobs}

    def _targets_file(self, service: str) -> Path:
        return self.data_dir / "targets" / f"{service}.json"

    def set_targets(self, targets: Iterable[Target]) -> None:
        """Name the processes to scrape, replacing the earlier ones of the same Services (written atomically:
        Prometheus watches the files)."""
        by_service: dict[str, list[Target]] = {}
        for target in targets:
            by_service.setdefault(target.service, []).append(target)
        known = {monitor.service for monitor in self.monitors}
        unknown = set(by_service) - known
        if unknown:
            raise ValueError(f"no ServiceMonitor selects {sorted(unknown)} (known: {sorted(known)})")
        for service, members in by_service.items():
            groups = [{"targets": [f"127.0.0.1:{target.port}"],
                       "labels": {"__meta_kubernetes_namespace": NAMESPACE,
                                  "__meta_kubernetes_service_name": service,
                                  "__meta_kubernetes_pod_name": target.pod,
                                  "__meta_kubernetes_pod_container_name": target.container}}
                      for target in members]
            self._write_targets(service, groups)

    def clear_targets(self, service: str) -> None:
        """Scrape no process of `service` any more."""
        self._write_targets(service, [])

    def _write_targets(self, service: str, groups: list[dict[str, Any]]) -> None:
        path = self._targets_file(service)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_text(json.dumps(groups, indent=2))
        partial.replace(path)

    def start(self) -> PrometheusServer:
        """Write the config and rules, start Prometheus and wait until it answers ready."""
        (self.data_dir / "tsdb").mkdir(parents=True, exist_ok=True)
        write_rules_file(self.data_dir / "rules" / "speed-platform.yaml")
        for monitor in self.monitors:
            if not self._targets_file(monitor.service).exists():
                self.clear_targets(monitor.service)
        config = self.data_dir / "prometheus.yml"
        config.write_text(json.dumps(self.config(), indent=2))  # YAML is a superset of JSON
        log = open(self.data_dir / "prometheus.log", "ab")  # noqa: SIM115 - handed to the child
        self._process = subprocess.Popen(
            [prometheus_binary(), f"--config.file={config}", f"--storage.tsdb.path={self.data_dir / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=15d",
             "--web.enable-lifecycle"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port, timeout=30)
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Block until `/-/ready` answers 200, or raise TimeoutError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"prometheus not ready after {timeout} s (see {self.data_dir / 'prometheus.log'})")

    def stop(self) -> None:
        """Stop Prometheus (SIGTERM: it writes its head block; the data stays)."""
        if self._process is None:
            return
        stop_process(self._process, timeout=15)
        self._process = None
