"""The local monitoring beside a running platform: the NATS metrics adapter and Prometheus, scraping every
service process as a pod of its Kubernetes Service (`make observe`, tests/observe)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from libs.devservers.ports import free_port, wait_for_port
from libs.devservers.processes import REPO_ROOT, ServiceProcess, stop_process
from libs.devservers.prometheus_server import PrometheusServer, Target

NATS_EXPORTER_MODULE = "libs.devservers.nats_exporter"
NATS_SERVICE = "nats-headless"
"""The Service the cluster's Prometheus scrapes the NATS exporter sidecars through (deploy/k8s/base/nats)."""
NATS_POD = "nats-0"
NATS_CONTAINER = "exporter"


def pod_name(process: ServiceProcess) -> str:
    """A pod name for a local process: its Service's name and its process id (a restart is a new pod)."""
    return f"{process.name}-{process.pid}"


class Monitoring:
    """Prometheus (Debian's package) and the NATS metrics adapter, for the nats-server whose monitoring
    port is `nats_monitor_port`; `watch` names the service processes to scrape."""

    def __init__(self, data_dir: Path, nats_monitor_port: int, *, prometheus_port: int | None = None,
                 exporter_port: int | None = None, scrape_interval: str | None = None,
                 evaluation_interval: str = "15s") -> None:
        self.data_dir = data_dir
        self.nats_monitor_port = nats_monitor_port
        self.exporter_port = free_port(exporter_port)
        self.prometheus = PrometheusServer(data_dir / "prometheus", prometheus_port, scrape_interval=scrape_interval,
                                           evaluation_interval=evaluation_interval)
        self._exporter: subprocess.Popen[bytes] | None = None
        self._watched: list[ServiceProcess] = []

    @property
    def url(self) -> str:
        """Prometheus's URL (its UI and HTTP API)."""
        return self.prometheus.url

    def start(self) -> Monitoring:
        """Start the NATS adapter and Prometheus; return when Prometheus is ready."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "nats-exporter.log", "ab")  # noqa: SIM115 - handed to the child
        self._exporter = subprocess.Popen(
            [sys.executable, "-m", NATS_EXPORTER_MODULE, "--monitor", f"http://127.0.0.1:{self.nats_monitor_port}",
             "--port", str(self.exporter_port)],
            cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_for_port(self.exporter_port)
            self.prometheus.start()
            self._publish()
        except BaseException:
            self.stop()
            raise
        return self

    def watch(self, processes: Iterable[ServiceProcess]) -> None:
        """Scrape exactly `processes` (besides NATS) from now on, each as a pod of the Service it is named for."""
        self._watched = list(processes)
        self._publish()

    def _publish(self) -> None:
        targets = [Target(NATS_SERVICE, self.exporter_port, NATS_POD, NATS_CONTAINER)]
        targets += [Target(process.name, process.port, pod_name(process), process.name)
                    for process in self._watched if process.port]
        self.prometheus.set_targets(targets)
        scraped = {target.service for target in targets}
        for monitor in self.prometheus.monitors:
            if monitor.service not in scraped:
                self.prometheus.clear_targets(monitor.service)

    def stop(self) -> None:
        """Stop Prometheus and the adapter (Prometheus's data stays under `data_dir`)."""
        self.prometheus.stop()
        if self._exporter is not None:
            stop_process(self._exporter, timeout=5)
            self._exporter = None
