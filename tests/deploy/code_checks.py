"""Rendered manifests against the code they run: what a pod would find wrong only once it starts.

`code_problems(objects, ...)` reads every Deployment and Job of a rendered overlay as the kubelet would start it
(image, command, environment from ConfigMaps, Secrets and values, ports, probes) and asks the code:

- image: every container of a Deployment or Job runs the platform image the overlay names;
- command: `python -m <module>` names a module of the code that can be run;
- environment: every variable a manifest sets is one the code reads (a pydantic-settings field of
  libs/platform/settings.py or another settings class of the services, or a name the code looks up in os.environ),
  every setting without a default is set, and the settings and the service's app accept the environment as the
  pod gets it (production refuses the development secret, a missing NATS user, a table without signing keys);
- references: every configMapKeyRef and secretKeyRef names a key its ConfigMap (rendered) or Secret (the
  documented ones: docs/operations.md) holds, and every envFrom and volume names one that exists;
- ports: the service listens (HOST, PORT, else its `__main__`'s default port) on all interfaces, on its
  container port `http` and on the port `make run` gives it (libs/devservers/processes.py); the probes and every
  Service and ServiceMonitor reach that port, and every URL in the environment names a Service and one of its
  ports;
- paths: the probes' and the ServiceMonitors' paths are GET routes of the service's FastAPI app;
- NATS (its own image): every `$VARIABLE` its config files read is in its environment.

Each check returns readable problems instead of failing at the first, so a test can show it catches a broken copy.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import AliasChoices
from pydantic_settings import BaseSettings
from starlette.routing import Match

from libs.devservers.processes import DEFAULT_PORTS, WEB, WEB_PORT
from libs.platform.settings import Settings
from libs.platform.signing import new_key_file

REPO = Path(__file__).resolve().parents[2]
PLATFORM_IMAGE = "speed-platform"
"""The name the base manifests give the platform's one image (deploy/Containerfile); overlays rewrite it."""
WORKLOADS = ("Deployment", "StatefulSet", "Job")
URL = re.compile(r"^(?:http|https|nats)://([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(?:/.*)?$")


# ---------------------------------------------------------------------------------------- what the code reads


@cache
def settings_classes() -> tuple[type[BaseSettings], ...]:
    """Every pydantic-settings class of libs/ and services/ (the services' apps imported first)."""
    for module in service_modules():
        importlib.import_module(f"{module}.app")
    found: list[type[BaseSettings]] = []
    pending: list[type[Any]] = [BaseSettings]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            if sub.__module__.split(".")[0] in ("libs", "services"):
                found.append(sub)
    return tuple(found)


def env_names(settings: type[BaseSettings]) -> dict[str, str]:
    """The environment variable names a settings class reads (upper case) -> its field."""
    config = settings.model_config
    prefix = str(config.get("env_prefix", ""))
    names: dict[str, str] = {}
    for field_name, field in settings.model_fields.items():
        aliases: list[str] = []
        if isinstance(field.validation_alias, str):
            aliases.append(field.validation_alias)
        elif isinstance(field.validation_alias, AliasChoices):
            aliases += [choice for choice in field.validation_alias.choices if isinstance(choice, str)]
        elif field.alias:
            aliases.append(field.alias)
        for alias in aliases or [prefix + field_name]:
            names[alias.upper()] = field_name
    return names


@cache
def environ_lookups() -> frozenset[str]:
    """Names the code looks up in os.environ itself (os.environ.get("X"), os.environ["X"], os.getenv("X"))."""
    pattern = re.compile(r"""(?:environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']|environ\[\s*["']([A-Z][A-Z0-9_]*)""")
    names: set[str] = set()
    for root in ("libs", "services"):
        for path in (REPO / root).rglob("*.py"):
            if "devservers" in path.parts:
                continue  # `make run`'s own servers, not what a pod runs
            for match in pattern.finditer(path.read_text(encoding="utf-8")):
                names.add(match.group(1) or match.group(2))
    return frozenset(names)


@cache
def known_env_names() -> frozenset[str]:
    """Every environment variable name the platform's code reads."""
    names = set(environ_lookups())
    for settings in settings_classes():
        names |= set(env_names(settings))
    return frozenset(names)


@cache
def service_modules() -> tuple[str, ...]:
    """services.<name> packages that `python -m` runs (those with a __main__.py)."""
    return tuple(sorted(f"services.{path.parent.name}" for path in (REPO / "services").glob("*/__main__.py")))


def runnable(module: str) -> bool:
    """Whether `python -m module` finds something to run in the code."""
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return False
    if spec is None:
        return False
    if spec.submodule_search_locations is not None:  # a package: needs its __main__
        return importlib.util.find_spec(f"{module}.__main__") is not None
    return True


@cache
def default_port(module: str) -> int | None:
    """The `default_port=` a service's __main__ passes to run_service (used when PORT is 0 or unset)."""
    spec = importlib.util.find_spec(f"{module}.__main__")
    if spec is None or spec.origin is None:
        return None
    for node in ast.walk(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "default_port" and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, int):
            return node.value.value
    return None


@contextmanager
def pod_environment(env: Mapping[str, str]) -> Iterator[None]:
    """os.environ as the pod has it for every name the code reads (others, e.g. PATH, left alone)."""
    read = {name.upper() for name in known_env_names()}
    saved = {name: value for name, value in os.environ.items()
             if name.upper() in read or name.startswith("OTEL_") or name in env}
    for name in saved:
        del os.environ[name]
    os.environ.update(env)
    try:
        yield
    finally:
        for name in env:
            os.environ.pop(name, None)
        os.environ.update(saved)


def get_routes(app: FastAPI, path: str) -> bool:
    """Whether `GET path` reaches a route of `app` (query strings ignored)."""
    scope = {"type": "http", "path": path.split("?", 1)[0], "method": "GET", "root_path": ""}
    return any(route.matches(scope)[0] == Match.FULL for route in app.router.routes)


# ------------------------------------------------------------------------------------------ the manifests


@dataclass(frozen=True)
class Secrets:
    """The Secrets the manifests read but do not contain: name -> keys (docs/operations.md)."""

    keys: Mapping[str, frozenset[str]]

    def value(self, name: str, key: str) -> str:
        """A stand-in for a Secret's value, of the form the code expects there."""
        if key == "keys.json":
            return json.dumps(new_key_file())
        if key == "uri":
            return f"postgresql://speed:secret@{name.removesuffix('-app')}-rw.speed:5432/speed"
        return f"{key.lower()}-" + "s" * 40


def _named(objects: tuple[dict[str, Any], ...], kind: str, name: str) -> dict[str, Any] | None:
    return next((obj for obj in objects if obj["kind"] == kind and obj["metadata"]["name"] == name), None)


def _pod(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def _containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    return list(_pod(workload).get("initContainers", [])) + list(_pod(workload)["containers"])


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def resolve_port(container: dict[str, Any], port: int | str) -> int | None:
    """A port given by number or by the container's port name, as a number (None: no such name)."""
    if isinstance(port, int):
        return port
    if str(port).isdigit():
        return int(port)
    return next((int(p["containerPort"]) for p in container.get("ports", []) if p.get("name") == port), None)


def container_env(container: dict[str, Any], objects: tuple[dict[str, Any], ...],
                  secrets: Secrets) -> tuple[dict[str, str], list[str]]:
    """The environment the container starts with (envFrom, then env), and what it references that is not there."""
    env: dict[str, str] = {}
    problems: list[str] = []
    for source in container.get("envFrom", []):
        prefix = source.get("prefix", "")
        if "configMapRef" in source:
            config_map = _named(objects, "ConfigMap", source["configMapRef"]["name"])
            if config_map is None:
                problems.append(f"envFrom names ConfigMap {source['configMapRef']['name']}, which is not rendered")
            else:
                env.update({prefix + key: str(value) for key, value in config_map.get("data", {}).items()})
        if "secretRef" in source:
            name = source["secretRef"]["name"]
            if name not in secrets.keys:
                problems.append(f"envFrom names Secret {name}, which no document says to create")
            else:
                env.update({prefix + key: secrets.value(name, key) for key in secrets.keys[name]})
    for entry in container.get("env", []):
        name, value_from = entry["name"], entry.get("valueFrom")
        if value_from is None:
            env[name] = str(entry.get("value", ""))
        elif "secretKeyRef" in value_from:
            ref = value_from["secretKeyRef"]
            if ref["key"] not in secrets.keys.get(ref["name"], frozenset()):
                problems.append(f"{name} reads key {ref['key']!r} of Secret {ref['name']}, which "
                                + ("holds no such key" if ref["name"] in secrets.keys else "nobody creates"))
            env[name] = secrets.value(ref["name"], ref["key"])
        elif "configMapKeyRef" in value_from:
            ref = value_from["configMapKeyRef"]
            config_map = _named(objects, "ConfigMap", ref["name"])
            if config_map is None or ref["key"] not in config_map.get("data", {}):
                problems.append(f"{name} reads key {ref['key']!r} of ConfigMap {ref['name']}, which "
                                + ("is not rendered" if config_map is None else "holds no such key"))
            else:
                env[name] = str(config_map["data"][ref["key"]])
        else:  # fieldRef, resourceFieldRef: filled in by the kubelet
            env[name] = "from-the-pod"
    return env, problems


def code_problems(objects: tuple[dict[str, Any], ...], image: str, secrets: Secrets) -> list[str]:
    """Everything in the rendered `objects` that disagrees with the code (see the module's docstring)."""
    problems: list[str] = []
    for workload in (obj for obj in objects if obj["kind"] in WORKLOADS):
        for container in _containers(workload):
            where = f"{workload['kind']} {workload['metadata']['name']}/{container['name']}"
            env, reference_problems = container_env(container, objects, secrets)
            problems += [f"{where}: {problem}" for problem in reference_problems]
            problems += [f"{where}: {problem}" for problem in _url_problems(env, objects)]
            if workload["kind"] == "StatefulSet":
                # NATS: not the platform's image; nats-server reads its variables (tests/deploy/test_manifests.py
                # runs `nats-server -t` on the config itself)
                problems += [f"{where}: {problem}" for problem in _config_variable_problems(workload, container,
                                                                                            env, objects)]
                continue
            if container.get("image") != image:
                problems.append(f"{where}: runs image {container.get('image')!r}, not the platform image {image!r}")
            problems += [f"{where}: {problem}" for problem in _command_problems(container)]
            problems += [f"{where}: {problem}" for problem in _env_name_problems(env)]
            module = _module_of(container)
            if module in service_modules():
                problems += [f"{where}: {problem}"
                             for problem in _service_problems(workload, container, env, module, objects)]
    problems += _volume_problems(objects)
    return problems


def _module_of(container: dict[str, Any]) -> str | None:
    argv = list(container.get("command", [])) + list(container.get("args", []))
    return argv[2] if len(argv) == 3 and argv[:2] == ["python", "-m"] else None


def _command_problems(container: dict[str, Any]) -> list[str]:
    module = _module_of(container)
    if module is None:
        return [f"command {container.get('command')} {container.get('args', [])} is not `python -m <module>`"]
    if not runnable(module):
        return [f"command runs `python -m {module}`, which is no runnable module of the code"]
    return []


def _env_name_problems(env: Mapping[str, str]) -> list[str]:
    known = known_env_names()
    return [f"sets {name}, which the code never reads" for name in env if name.upper() not in known]


def _url_problems(env: Mapping[str, str], objects: tuple[dict[str, Any], ...]) -> list[str]:
    problems = []
    for name, value in env.items():
        for url in value.split(","):
            match = URL.match(url.strip())
            if match is None:
                continue
            host, port = match.group(1), int(match.group(2))
            service = _named(objects, "Service", host)
            if service is None:
                problems.append(f"{name}={value}: no Service {host} is rendered")
            elif port not in {p["port"] for p in service["spec"]["ports"]}:
                problems.append(f"{name}={value}: Service {host} has no port {port}")
    return problems


def _service_problems(workload: dict[str, Any], container: dict[str, Any], env: Mapping[str, str], module: str,
                      objects: tuple[dict[str, Any], ...]) -> list[str]:
    """Settings, app, listening address, probes and Services of one `python -m services.<name>` container."""
    problems = []
    with pod_environment(env):
        for settings_class in settings_classes():
            for name, field in env_names(settings_class).items():
                if settings_class.model_fields[field].is_required() and name not in {n.upper() for n in env}:
                    problems.append(f"{name} is required ({settings_class.__name__}) and not set")
            try:
                settings_class()
            except ValueError as error:
                problems.append(f"{settings_class.__name__} refuses the pod's environment: {_short(error)}")
        try:
            settings = Settings()
            app = importlib.import_module(f"{module}.app").create_app(settings)
        except ValueError as error:
            return [*problems, f"{module} does not start with the pod's environment: {_short(error)}"]
    listening = settings.port or default_port(module)
    if settings.host not in ("0.0.0.0", "::"):
        problems.append(f"listens on HOST={settings.host}: probes and Services cannot reach it")
    expected = {**DEFAULT_PORTS, WEB: WEB_PORT}.get(workload["metadata"]["name"])
    if expected is not None and listening != expected:
        problems.append(f"listens on {listening}, not on {expected}, the port `make run` gives it and the other "
                        "services' defaults name (libs/devservers/processes.py)")
    http = resolve_port(container, "http")
    if http != listening:
        problems.append(f"container port http is {http}, the service listens on {listening} (PORT, {module})")
    for probe_name in ("startupProbe", "livenessProbe", "readinessProbe"):
        probe = container.get(probe_name, {}).get("httpGet")
        if probe is None:
            continue
        if resolve_port(container, probe["port"]) != listening:
            problems.append(f"{probe_name} asks port {probe['port']}, the service listens on {listening}")
        if not get_routes(app, probe["path"]):
            problems.append(f"{probe_name} path {probe['path']} is no GET route of {module}")
    labels = workload["spec"]["template"]["metadata"].get("labels", {})
    for service in (obj for obj in objects if obj["kind"] == "Service"):
        if not _selects(service["spec"].get("selector", {}), labels):
            continue
        for port in service["spec"]["ports"]:
            target = resolve_port(container, port.get("targetPort", port["port"]))
            if target != listening or port["port"] != listening:
                problems.append(f"Service {service['metadata']['name']} port {port.get('name', port['port'])} "
                                f"({port['port']} -> {port.get('targetPort', port['port'])}) does not reach the "
                                f"service's {listening}")
        for monitor in (obj for obj in objects if obj["kind"] == "ServiceMonitor"):
            if not _selects(monitor["spec"]["selector"].get("matchLabels", {}), service["metadata"].get("labels", {})):
                continue
            for endpoint in monitor["spec"]["endpoints"]:
                if endpoint.get("port") not in {p.get("name") for p in service["spec"]["ports"]}:
                    problems.append(f"ServiceMonitor {monitor['metadata']['name']} scrapes port "
                                    f"{endpoint.get('port')!r}, which Service {service['metadata']['name']} lacks")
                if not get_routes(app, endpoint.get("path", "/metrics")):
                    problems.append(f"ServiceMonitor {monitor['metadata']['name']} scrapes "
                                    f"{endpoint.get('path', '/metrics')}, no GET route of {module}")
    return problems


CONFIG_VARIABLE = re.compile(r"^\s*[\w-]+\s*[:=]\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*$", re.MULTILINE)
"""A NATS config line whose value is an environment variable (`server_name: $SERVER_NAME`)."""


def _config_variable_problems(workload: dict[str, Any], container: dict[str, Any], env: Mapping[str, str],
                              objects: tuple[dict[str, Any], ...]) -> list[str]:
    """Every `$VARIABLE` a config file the container mounts from a ConfigMap reads is in its environment."""
    volumes = {volume["name"]: volume for volume in _pod(workload).get("volumes", [])}
    problems = []
    for mount in container.get("volumeMounts", []):
        config_map_name = volumes.get(mount["name"], {}).get("configMap", {}).get("name")
        config_map = _named(objects, "ConfigMap", config_map_name) if config_map_name else None
        for file, text in (config_map or {}).get("data", {}).items():
            for variable in sorted(set(CONFIG_VARIABLE.findall(str(text))) - set(env)):
                problems.append(f"{file} reads ${variable}, which the container's environment lacks")
    return problems


def _volume_problems(objects: tuple[dict[str, Any], ...]) -> list[str]:
    problems = []
    for workload in (obj for obj in objects if obj["kind"] in WORKLOADS):
        for volume in _pod(workload).get("volumes", []):
            if "configMap" in volume and _named(objects, "ConfigMap", volume["configMap"]["name"]) is None:
                problems.append(f"{workload['kind']} {workload['metadata']['name']}: volume {volume['name']} "
                                f"names ConfigMap {volume['configMap']['name']}, which is not rendered")
    return problems


def _short(error: Exception) -> str:
    return " ".join(str(error).split())[:300]

