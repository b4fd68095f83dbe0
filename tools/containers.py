"""`make run CONTAINERS=1`: the whole platform from its one image (`make image`), every process in a podman
container run as the Kubernetes manifests (deploy/k8s) run its pod.

Read from the manifests, so the two cannot drift: each Deployment's (and the migrations Job's) command, its
environment (the ConfigMap speed-platform as the dev overlay merges it, every `env` entry; the Secrets' values
passed to podman through its own environment, never on its command line), the pod's user and group, the
read-only root file system with its emptyDir volumes as tmpfs mounts of their size limit, dropped
capabilities, no privilege escalation, the preStop hook and terminationGracePeriodSeconds at stop, and the
startup, liveness and readiness probes, which this module sends itself (`probe`) as the kubelet would: podman
does not send HTTP probes.

What differs from a cluster, and why (docs/operations.md, "The platform in containers (proven here)"):
  - NATS and PostgreSQL are the platform's development servers (libs/devservers, as `make run` starts them):
    NATS_URL names the dev server's port, the Secret speed-pg-app's `uri` its database, the Secret
    speed-nats-users its users' passwords.
  - Every container shares the machine's network (`--network host`); the Services' names (lobby, table, nats,
    ...) resolve to 127.0.0.1 inside them (`--add-host`). Two pods that listen on the same port in a cluster
    (table and table-followup: 8102) cannot share one network: the second gets FIRST_EXTRA_PORT (8106, as under
    `make run`), its PORT and probes with it; so does a container whose port another program on the machine
    holds (any free port, and the URLs naming its Service follow it).
  - No resource requests or limits (podman here cannot use cgroup controllers); one replica of each.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import yaml

from libs.devservers.ports import free_port
from libs.devservers.servers import Servers, start_servers
from tools import image as image_tool

REPO_ROOT = Path(__file__).resolve().parents[1]
K8S = REPO_ROOT / "deploy" / "k8s"
OVERLAY = "dev"
"""The overlay whose ConfigMap changes apply (one NATS server: STREAM_REPLICAS=1)."""
CONFIGMAP = "speed-platform"
FIRST_EXTRA_PORT = 8106
"""Where a container whose manifest port another container already holds listens instead (table-followup)."""
LIMITS = ("--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024")
"""Explicit limits: podman's defaults raise them, which needs CAP_SYS_RESOURCE some machines lack."""
LABEL = "speed-platform.containers"
"""The label on every container started here (its value: the run's name prefix)."""


class ContainerError(Exception):
    """A container did not start or become ready as its manifest expects; the message says which and why."""


@dataclass(frozen=True)
class Probe:
    """An httpGet probe as the manifest declares it."""

    path: str
    period: float
    timeout: float
    failures: int


@dataclass
class Workload:
    """One container of a manifest's pod template: a Deployment's (`kind` Deployment) or the migrations Job's."""

    name: str
    kind: str
    command: list[str]
    args: list[str]
    env: dict[str, str]
    """Plain values: the ConfigMap's (envFrom) overlaid by the container's `env` values."""
    secret_env: dict[str, tuple[str, str]]
    """Variable -> (Secret, key) of the `env` entries with a secretKeyRef."""
    port: int | None
    user: int
    group: int
    read_only_root: bool
    tmpfs: dict[str, str]
    """Mount path -> size limit of the emptyDir volumes the container mounts."""
    drop_all_capabilities: bool
    no_privilege_escalation: bool
    pre_stop: list[str]
    grace_seconds: int
    probes: dict[str, Probe] = field(default_factory=dict)
    """"startup", "liveness", "readiness" -> the probe (httpGet on the container's port)."""


def _documents(path: Path) -> Iterable[dict[str, Any]]:
    return (document for document in yaml.safe_load_all(path.read_text()) if document)


def configmap(overlay: str = OVERLAY) -> dict[str, str]:
    """The ConfigMap speed-platform's literals: the base's, merged with `overlay`'s."""
    values: dict[str, str] = {}
    for folder in (K8S / "base", K8S / "overlays" / overlay):
        kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
        for generator in kustomization.get("configMapGenerator", []):
            if generator["name"] == CONFIGMAP:
                values.update(literal.split("=", 1) for literal in generator.get("literals", []))
    return values


def _size(limit: str) -> str:
    """A Kubernetes quantity (64Mi) as a tmpfs size (64m)."""
    units = {"Ki": "k", "Mi": "m", "Gi": "g"}
    for suffix, unit in units.items():
        if limit.endswith(suffix):
            return limit[: -len(suffix)] + unit
    return limit


def workloads(overlay: str = OVERLAY) -> list[Workload]:
    """Every Deployment's and Job's container in deploy/k8s/base/services, as `overlay` configures them."""
    config = configmap(overlay)
    found = []
    for path in sorted((K8S / "base" / "services").glob("*.yaml")):
        for document in _documents(path):
            if document["kind"] not in ("Deployment", "Job"):
                continue
            pod = document["spec"]["template"]["spec"]
            (container,) = pod["containers"]
            env: dict[str, str] = {}
            for source in container.get("envFrom", []):
                if source["configMapRef"]["name"] != CONFIGMAP:
                    raise ContainerError(f"{path.name}: envFrom {source} is not the ConfigMap {CONFIGMAP}")
                env.update(config)
            secret_env: dict[str, tuple[str, str]] = {}
            for entry in container.get("env", []):
                if "value" in entry:
                    env[entry["name"]] = str(entry["value"])
                    secret_env.pop(entry["name"], None)
                else:
                    ref = entry["valueFrom"]["secretKeyRef"]
                    secret_env[entry["name"]] = (ref["name"], ref["key"])
                    env.pop(entry["name"], None)
            ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
            probes = {}
            for kind in ("startup", "liveness", "readiness"):
                if spec := container.get(f"{kind}Probe"):
                    get = spec["httpGet"]
                    if ports.get(get["port"], get["port"]) != ports.get("http"):
                        raise ContainerError(f"{path.name}: the {kind} probe is not on the container's port")
                    probes[kind] = Probe(get["path"], float(spec.get("periodSeconds", 10)),
                                         float(spec.get("timeoutSeconds", 1)), int(spec.get("failureThreshold", 3)))
            volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
            tmpfs = {}
            for mount in container.get("volumeMounts", []):
                volume = volumes[mount["name"]]
                if "emptyDir" not in volume:
                    raise ContainerError(f"{path.name}: volume {mount['name']} is not an emptyDir")
                tmpfs[mount["mountPath"]] = _size(str((volume["emptyDir"] or {}).get("sizeLimit", "64Mi")))
            security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
            pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
            found.append(Workload(
                name=document["metadata"]["name"], kind=document["kind"], command=list(container["command"]),
                args=list(container.get("args", [])), env=env, secret_env=secret_env, port=ports.get("http"),
                user=int(security["runAsUser"]), group=int(security["runAsGroup"]),
                read_only_root=bool(security.get("readOnlyRootFilesystem")), tmpfs=tmpfs,
                drop_all_capabilities="ALL" in security.get("capabilities", {}).get("drop", []),
                no_privilege_escalation=security.get("allowPrivilegeEscalation") is False,
                pre_stop=list(pre_stop), grace_seconds=int(pod.get("terminationGracePeriodSeconds", 30)),
                probes=probes))
    return found


def without_credentials(url: str) -> str:
    """A NATS URL without the user and password in it (each service logs in as its own user)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def dev_secrets(servers: Servers, auth_secret: str) -> dict[tuple[str, str], str]:
    """The values of the Secrets the manifests name, for the development servers `servers`:
    speed-auth, speed-nats-users (every user's password), speed-table-signing, speed-pg-app."""
    passwords: dict[str, str] = json.loads(Path(servers.nats_credentials).read_text())
    values = {("speed-auth", "AUTH_SECRET"): auth_secret,
              ("speed-table-signing", "keys.json"): Path(servers.signing_keys_file).read_text(),
              ("speed-pg-app", "uri"): servers.database_url}
    values.update({("speed-nats-users", f"NATS_PASSWORD_{user.upper()}"): password
                   for user, password in passwords.items()})
    return values


@dataclass(frozen=True)
class Stopped:
    """How a container stopped: seconds from its preStop hook to its end, of them after SIGTERM, exit code
    (137: SIGKILL, the grace period was over)."""

    seconds: float
    after_sigterm: float
    exit_code: int | None


@dataclass
class Container:
    """A workload started as the podman container `container` listening on `port` (None: no port)."""

    workload: Workload
    container: str
    port: int | None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class ContainerPlatform:
    """The platform's workloads as podman containers of `image` against `servers` (see the module's docstring)."""

    def __init__(self, servers: Servers, *, image: str = image_tool.IMAGE, auth_secret: str,
                 prefix: str = "speed", overlay: str = OVERLAY, logs: Path | None = None) -> None:
        self.image = image
        self.prefix = prefix
        self.logs = logs
        self.workloads = workloads(overlay)
        self.secrets = dev_secrets(servers, auth_secret)
        nats = urlsplit(servers.nats_url)
        self.nats_address = f"{nats.hostname}:{nats.port}"
        self.containers: list[Container] = []
        self.ports: dict[str, int | None] = {}

    def by_name(self, name: str) -> Container:
        return next(container for container in self.containers if container.workload.name == name)

    def _ports(self) -> dict[str, int | None]:
        """The port each workload listens on: its manifest's, unless another container or another program
        on this machine holds it already; then FIRST_EXTRA_PORT, or else any free one."""
        ports: dict[str, int | None] = {}
        taken: set[int] = set()
        # The workloads other containers call by their Service's name (web: TABLE_URL=http://table:8102) keep
        # their manifest's port first.
        called = {urlsplit(value).hostname for workload in self.workloads for value in workload.env.values()
                  if value.startswith("http://")}
        for workload in sorted(self.workloads, key=lambda workload: workload.name not in called):
            port = workload.port
            if port is not None:
                port = free_port(port if port not in taken else FIRST_EXTRA_PORT)
                while port in taken:
                    port = free_port()
                taken.add(port)
            ports[workload.name] = port
        return ports

    def command(self, workload: Workload, container: str, port: int | None,
                detach: bool = True) -> tuple[list[str], dict[str, str]]:
        """The `podman run` arguments that run `workload` as its manifest says, and the environment podman
        needs for them (the Secrets' values, which `-e NAME` takes from it)."""
        env = dict(workload.env)
        if env.get("NATS_URL"):
            # The dev server, not the cluster's Service nats:4222 (by address: its port may differ).
            env["NATS_URL"] = f"nats://{self.nats_address}"
        if port is not None and port != workload.port:
            env["PORT"] = str(port)
        for name, value in env.items():
            # A Service's URL (web: http://lobby:8101) follows its container to the port it got here.
            url = urlsplit(value) if value.startswith("http://") else None
            if url is not None and url.hostname in self.ports and url.port is not None:
                env[name] = f"http://{url.hostname}:{self.ports[url.hostname]}{url.path}"
        podman_env = {**os.environ}
        arguments = ["run", "--detach" if detach else "--rm", "--name", container, "--label", f"{LABEL}={self.prefix}",
                     "--network", "host", *LIMITS, "--user", f"{workload.user}:{workload.group}",
                     "--entrypoint", json.dumps(workload.command)]
        for host in ("nats", *(other.name for other in self.workloads if other.port is not None)):
            arguments += ["--add-host", f"{host}:127.0.0.1"]
        if workload.read_only_root:
            # Only the manifest's volumes are writable: not podman's own tmpfs on /tmp, /var/tmp and /run.
            arguments += ["--read-only", "--read-only-tmpfs=false"]
        for path, size in workload.tmpfs.items():
            arguments += ["--tmpfs", f"{path}:rw,size={size},mode=1777"]
        if workload.drop_all_capabilities:
            arguments += ["--cap-drop", "all"]
        if workload.no_privilege_escalation:
            arguments += ["--security-opt", "no-new-privileges"]
        for name, value in env.items():
            arguments += ["--env", f"{name}={value}"]
        for name, key in workload.secret_env.items():
            if key not in self.secrets:
                raise ContainerError(f"{workload.name}: no value for the Secret {key[0]}, key {key[1]}")
            podman_env[name] = self.secrets[key]
            arguments += ["--env", name]
        return [*arguments, self.image, *workload.args], podman_env

    def migrate(self) -> None:
        """Run the migrations Job's container to its end; raise if it fails."""
        (job,) = (workload for workload in self.workloads if workload.kind == "Job")
        arguments, env = self.command(job, f"{self.prefix}-{job.name}", None, detach=False)
        result = image_tool.podman(*arguments, check=False, env=env)
        if result.returncode != 0:
            raise ContainerError(f"the {job.name} Job's container failed ({result.returncode}): "
                                 f"{(result.stdout + result.stderr).strip()[-2000:]}")

    def start(self, only: Iterable[str] | None = None, migrate: bool = True) -> None:
        """Run the migrations, then start every Deployment's container (`only`: those named), not waiting for
        readiness."""
        self.remove()
        if migrate:
            self.migrate()
        ports = self.ports = self._ports()
        names = set(only) if only is not None else None
        for workload in self.workloads:
            if workload.kind != "Deployment" or (names is not None and workload.name not in names):
                continue
            name = f"{self.prefix}-{workload.name}"
            arguments, env = self.command(workload, name, ports[workload.name])
            image_tool.podman(*arguments, env=env)
            self.containers.append(Container(workload, name, ports[workload.name]))

    def probe(self, container: Container, kind: str) -> int | None:
        """Send the container's `kind` probe once, as the kubelet does: its status code, None when it did not
        answer within the probe's timeout."""
        spec = container.workload.probes[kind]
        try:
            return httpx.get(f"{container.url}{spec.path}", timeout=spec.timeout).status_code
        except httpx.HTTPError:
            return None

    def running(self, container: Container) -> bool:
        state = image_tool.podman("inspect", "--format", "{{.State.Running}}", container.container, check=False)
        return state.stdout.strip() == "true"

    def wait_ready(self, containers: Iterable[Container] | None = None) -> None:
        """Wait until every container passed its startup probe, then its readiness probe, each within what its
        manifest allows (the startup probe's period x failureThreshold; the readiness probe's the same way);
        raise naming the container and the tail of its log otherwise."""
        chosen = list(containers if containers is not None else self.containers)
        for container in chosen:
            for kind in ("startup", "readiness"):
                spec = container.workload.probes.get(kind)
                if spec is None:
                    continue
                deadline = time.monotonic() + spec.period * spec.failures
                while self.probe(container, kind) != 200:
                    if not self.running(container):
                        raise ContainerError(f"{container.container} exited:\n{self.log(container)}")
                    if time.monotonic() > deadline:
                        raise ContainerError(f"{container.container} failed its {kind} probe {spec.path} "
                                             f"{spec.failures} times:\n{self.log(container)}")
                    time.sleep(min(spec.period, 1.0))
        # A probe answered by another program on the same port would pass while the container failed to listen.
        for container in chosen:
            if not self.running(container):
                raise ContainerError(f"{container.container} exited:\n{self.log(container)}")

    def log(self, container: Container, lines: int = 40) -> str:
        result = image_tool.podman("logs", "--tail", str(lines), container.container, check=False)
        return (result.stdout + result.stderr).strip()

    def stop_one(self, container: Container) -> Stopped:
        """Stop a container as the kubelet stops a pod: its preStop hook, then SIGTERM, then SIGKILL when the
        terminationGracePeriodSeconds (counted from the start of the hook) are over."""
        began = time.monotonic()
        workload = container.workload
        if workload.pre_stop and self.running(container):
            image_tool.podman("exec", container.container, *workload.pre_stop, check=False,
                              timeout=workload.grace_seconds)
        hook = time.monotonic() - began
        left = max(1, round(workload.grace_seconds - hook))
        image_tool.podman("stop", "--time", str(left), container.container, check=False)
        ended = time.monotonic() - began
        state = image_tool.podman("inspect", "--format", "{{.State.ExitCode}}", container.container, check=False)
        code = int(state.stdout.strip()) if state.stdout.strip().lstrip("-").isdigit() else None
        return Stopped(seconds=ended, after_sigterm=ended - hook, exit_code=code)

    def stop(self) -> dict[str, Stopped]:
        """Stop every container at once (as a namespace's pods are); keep their logs (in `logs`, if given);
        remove them; return how each one stopped."""
        seconds: dict[str, Stopped] = {}

        def stop(container: Container) -> None:
            seconds[container.workload.name] = self.stop_one(container)

        threads = [threading.Thread(target=stop, args=(container,)) for container in self.containers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.logs is not None:
            self.logs.mkdir(parents=True, exist_ok=True)
            for container in self.containers:
                log = image_tool.podman("logs", container.container, check=False)
                (self.logs / f"{container.workload.name}.log").write_text(log.stdout + log.stderr)
        self.remove()
        self.containers = []
        return seconds

    def remove(self) -> None:
        """Remove every container of this prefix (also those a killed run left behind)."""
        listed = image_tool.podman("ps", "--all", "--quiet", "--filter", f"label={LABEL}={self.prefix}",
                                   check=False)
        if ids := listed.stdout.split():
            image_tool.podman("rm", "--force", "--time", "0", *ids, check=False)


def auth_secret(data: Path) -> str:
    """The AUTH_SECRET of `make run CONTAINERS=1`: generated once into `data`/containers/auth-secret (0600)."""
    path = data / "containers" / "auth-secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(48))
    return path.read_text().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO_ROOT / ".data")
    parser.add_argument("--image", default=os.environ.get("IMAGE") or image_tool.IMAGE)
    args = parser.parse_args()
    data: Path = args.data.resolve()
    if reason := image_tool.unavailable():
        sys.exit(f"make run CONTAINERS=1: {reason}")
    stopping = False

    def request_stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    servers = start_servers(data, throwaway=False, nats_port=4222, postgres_port=5432)
    platform = ContainerPlatform(servers, image=args.image, auth_secret=auth_secret(data), logs=data / "logs")
    try:
        platform.start()
        platform.wait_ready()
        print(f"\nIm Browser spielen: {platform.by_name('web').url}", flush=True)
        print(f"\nSpeed platform is running in containers of {args.image} (Ctrl-C stops everything; data stays "
              f"in {data}):\n", flush=True)
        print(f"  NATS           {without_credentials(servers.nats_url)}   (dev server; users and passwords: "
              f"{servers.nats_credentials})")
        print(f"  PostgreSQL     {servers.database_url}   (dev server)")
        for container in platform.containers:
            print(f"  {container.workload.name:<14} {container.url}   (container {container.container}, "
                  f"`podman logs {container.container}`)")
        print(flush=True)
        while not stopping:
            for container in platform.containers:
                if not platform.running(container):
                    print(f"container {container.container} stopped unexpectedly:\n{platform.log(container)}",
                          file=sys.stderr)
                    stopping = True
            time.sleep(1.0)
    except ContainerError as error:
        print(f"make run CONTAINERS=1: {error}", file=sys.stderr)
    finally:
        print("stopping ...", flush=True)
        platform.stop()
        servers.stop()
        print(f"stopped (the containers' logs: {data / 'logs'}).", flush=True)


if __name__ == "__main__":
    main()
