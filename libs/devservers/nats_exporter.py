"""nats-server's monitoring JSON as Prometheus metrics, for the local Prometheus (`make observe`, tests/observe).

nats-server (2.15 too) has no Prometheus endpoint of its own: its monitoring port answers JSON (`/varz`,
`/jsz`, ...). In the cluster the `prometheus-nats-exporter` sidecar translates it (deploy/k8s/base/nats/
statefulset.yaml); that exporter is a Go program that is neither on PyPI nor in Debian, so on a laptop this
small adapter does the same for the metrics the alerts and dashboards read, under the exporter's names and
labels (its `-jsz=all` and `-varz` collectors): `jetstream_server_*`, `jetstream_stream_*`,
`jetstream_consumer_*` with `server_id, server_name, cluster, domain, meta_leader, is_meta_leader, account,
account_id, stream_name, stream_leader, is_stream_leader, consumer_name, consumer_leader, is_consumer_leader,
consumer_desc, consumer_created`, and `gnatsd_varz_*` with `server_id`. Each scrape reads the server afresh.

Run: `python -m libs.devservers.nats_exporter --monitor http://127.0.0.1:8222 --port 7777`.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

import httpx
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

SERVER_LABELS = ("server_id", "server_name", "cluster", "domain", "meta_leader", "is_meta_leader")
STREAM_LABELS = (*SERVER_LABELS, "account", "account_id", "stream_name", "stream_leader", "is_stream_leader")
CONSUMER_LABELS = (*STREAM_LABELS, "consumer_name", "consumer_leader", "is_consumer_leader", "consumer_desc",
                   "consumer_created")

SERVER_VALUES = {"total_streams": "streams", "total_consumers": "consumers", "total_messages": "messages",
                 "total_message_bytes": "bytes"}
"""jetstream_server_<name> <- the `/jsz` key."""
STREAM_VALUES = {"total_messages": "messages", "total_bytes": "bytes", "first_seq": "first_seq",
                 "last_seq": "last_seq", "consumer_count": "consumer_count"}
"""jetstream_stream_<name> <- the key of a stream's `state`."""
CONSUMER_VALUES = {"num_pending": ("num_pending",), "num_ack_pending": ("num_ack_pending",),
                   "num_redelivered": ("num_redelivered",), "num_waiting": ("num_waiting",),
                   "delivered_consumer_seq": ("delivered", "consumer_seq"),
                   "delivered_stream_seq": ("delivered", "stream_seq"),
                   "ack_floor_consumer_seq": ("ack_floor", "consumer_seq"),
                   "ack_floor_stream_seq": ("ack_floor", "stream_seq")}
"""jetstream_consumer_<name> <- the path of keys in a consumer's detail."""
VARZ_VALUES = ("connections", "total_connections", "subscriptions", "slow_consumers", "routes", "in_msgs",
               "out_msgs", "in_bytes", "out_bytes", "mem", "cpu")
"""gnatsd_varz_<key> <- the `/varz` key of the same name."""


def _is_leader(cluster: Mapping[str, Any] | None, server_name: str) -> tuple[str, str]:
    """The (leader, is_leader) label values of a clustered asset; a server without a cluster leads its own."""
    if not cluster:
        return "", "true"
    leader = str(cluster.get("leader", ""))
    return leader, "true" if leader == server_name else "false"


def _dig(detail: Mapping[str, Any], path: tuple[str, ...]) -> float:
    value: Any = detail
    for key in path:
        value = value.get(key, 0) if isinstance(value, Mapping) else 0
    return float(value or 0)


def metrics_from(varz: Mapping[str, Any], jsz: Mapping[str, Any]) -> list[Metric]:
    """Return the exporter's metric families for one server's `/varz` and `/jsz?consumers=true&config=true`."""
    server_id = str(varz.get("server_id", jsz.get("server_id", "")))
    server_name = str(varz.get("server_name", ""))
    meta = jsz.get("meta_cluster") or {}
    meta_leader = str(meta.get("leader", ""))
    is_meta_leader = "true" if not meta or meta_leader == server_name else "false"
    server = (server_id, server_name, str(meta.get("name", "")), str((jsz.get("config") or {}).get("domain", "")),
              meta_leader, is_meta_leader)

    families: list[Metric] = []
    for key in VARZ_VALUES:
        family = GaugeMetricFamily(f"gnatsd_varz_{key}", f"nats-server /varz {key}", labels=("server_id",))
        family.add_metric((server_id,), float(varz.get(key, 0) or 0))
        families.append(family)
    for name, key in SERVER_VALUES.items():
        family = GaugeMetricFamily(f"jetstream_server_{name}", f"JetStream {key} on this server",
                                   labels=SERVER_LABELS)
        family.add_metric(server, float(jsz.get(key, 0) or 0))
        families.append(family)
    streams = {name: GaugeMetricFamily(f"jetstream_stream_{name}", f"stream state {key}", labels=STREAM_LABELS)
               for name, key in STREAM_VALUES.items()}
    consumers = {name: GaugeMetricFamily(f"jetstream_consumer_{name}", f"consumer {'.'.join(path)}",
                                         labels=CONSUMER_LABELS)
                 for name, path in CONSUMER_VALUES.items()}
    for account in jsz.get("account_details") or ():
        for stream in account.get("stream_detail") or ():
            stream_labels = (*server, str(account.get("name", "")), str(account.get("id", "")),
                             str(stream.get("name", "")), *_is_leader(stream.get("cluster"), server_name))
            state = stream.get("state") or {}
            for name, key in STREAM_VALUES.items():
                streams[name].add_metric(stream_labels, float(state.get(key, 0) or 0))
            for consumer in stream.get("consumer_detail") or ():
                leader, is_leader = _is_leader(consumer.get("cluster"), server_name)
                labels = (*stream_labels, str(consumer.get("name", "")), leader, is_leader,
                          str((consumer.get("config") or {}).get("description", "")),
                          str(consumer.get("created", "")))
                for name, path in CONSUMER_VALUES.items():
                    consumers[name].add_metric(labels, _dig(consumer, path))
    return [*families, *streams.values(), *consumers.values()]


class NatsMonitorCollector(Collector):
    """Reads a nats-server's monitoring port at every scrape; a server that does not answer yields nothing
    (Prometheus then sees the series go stale, as with the real exporter)."""

    def __init__(self, monitor_url: str) -> None:
        self.monitor_url = monitor_url.rstrip("/")
        self._client = httpx.Client(timeout=5.0)
        self._lock = threading.Lock()

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            try:
                varz = self._client.get(f"{self.monitor_url}/varz").raise_for_status().json()
                jsz = self._client.get(f"{self.monitor_url}/jsz",
                                       params={"consumers": "true", "config": "true"}).raise_for_status().json()
            except httpx.HTTPError:
                return []
        return metrics_from(varz, jsz)


@contextmanager
def serving(monitor_url: str, port: int, host: str = "127.0.0.1") -> Iterator[None]:
    """Serve /metrics for the server at `monitor_url` on `host`:`port` while the context is open."""
    from prometheus_client import start_http_server

    registry = CollectorRegistry(auto_describe=False)
    registry.register(NatsMonitorCollector(monitor_url))
    server, thread = start_http_server(port, addr=host, registry=registry)
    try:
        yield
    finally:
        server.shutdown()
        thread.join(timeout=5)


def main() -> None:
    """Serve the metrics of one nats-server until stopped (SIGTERM or Ctrl-C)."""
    import signal

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--monitor", required=True, help="nats-server's monitoring URL, e.g. http://127.0.0.1:8222")
    parser.add_argument("--port", type=int, default=7777)
    args = parser.parse_args()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with serving(args.monitor, args.port), suppress(KeyboardInterrupt):
        stop.wait()


if __name__ == "__main__":
    main()
