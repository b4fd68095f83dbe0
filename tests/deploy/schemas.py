"""Rendered resources against the schemas an API server checks them with, offline.

Built-in kinds: the Kubernetes OpenAPI schemas of `KUBERNETES_VERSIONS`, as the PyPI package kubernetes-validate
bundles them, in their strict form (a field the API does not know is an error, as `kubectl apply` reports it with
its default `--validate=strict`). Custom resources: the `openAPIV3Schema` of the published CRDs vendored under
tests/deploy/crds/ (README.md there: versions and sources), made strict the same way (an unknown field is an error
where the CRD does not preserve unknown fields), their `metadata` against Kubernetes' ObjectMeta.

Not checked here (an API server's own validation, only in a cluster): values the schemas leave free (a port above
65535, a label value's syntax, a selector that selects nothing), admission (Pod Security "restricted") and CEL rules
(`x-kubernetes-validations`) of the CRDs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from kubernetes_validate.utils import schema_contents
from referencing import Registry, Resource

KUBERNETES_VERSIONS = ("1.34", "1.36")
"""The Kubernetes releases the manifests are validated against: docs/operations.md names 1.34 as the oldest
supported; 1.34-1.36 is what the vendored CloudNativePG release (1.30) supports."""

CRDS = Path(__file__).resolve().parent / "crds"


def _api_file_part(api_version: str) -> str:
    """apps/v1 -> apps-v1, v1 -> v1, rbac.authorization.k8s.io/v1 -> rbac-v1 (kubernetes-validate's file names)."""
    return re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)


@cache
def kubernetes_validator(kind: str, api_version: str, version: str) -> jsonschema.Draft202012Validator | None:
    """The strict validator of a built-in kind at a Kubernetes release (None: no such kind there)."""
    directory = f"kubernetes-json-schema/v{version}.0-local-strict"
    try:
        schema = schema_contents(f"{directory}/{kind.lower()}-{_api_file_part(api_version)}.json", version)
    except FileNotFoundError:
        return None
    registry: Registry = Resource.from_contents(schema) @ Registry()
    registry = _definitions(version) @ registry
    return jsonschema.Draft202012Validator(schema, registry=registry)


@cache
def _definitions(version: str) -> Resource:
    return Resource.from_contents(schema_contents(f"kubernetes-json-schema/v{version}.0-local-strict/_definitions.json",
                                                  version))


def strict_openapi(schema: Any) -> Any:
    """A CRD's structural OpenAPI v3 schema as a JSON schema that refuses unknown fields (where the CRD does not
    preserve them) and accepts null where the CRD says `nullable`."""
    if not isinstance(schema, dict):
        return schema
    converted = {key: value for key, value in schema.items() if key not in ("properties", "items",
                                                                             "additionalProperties")}
    if "properties" in schema:
        converted["properties"] = {name: strict_openapi(sub) for name, sub in schema["properties"].items()}
    if "items" in schema:
        converted["items"] = strict_openapi(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        converted["additionalProperties"] = strict_openapi(schema["additionalProperties"])
    elif "additionalProperties" in schema:
        converted["additionalProperties"] = schema["additionalProperties"]
    elif "properties" in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
        converted["additionalProperties"] = False
    for combinator in ("allOf", "anyOf", "oneOf"):
        if combinator in schema:
            converted[combinator] = [strict_openapi(sub) for sub in schema[combinator]]
    if schema.get("nullable") and isinstance(schema.get("type"), str):
        converted["type"] = [schema["type"], "null"]
    return converted


@cache
def crd_validators() -> dict[tuple[str, str], tuple[jsonschema.Draft202012Validator, str]]:
    """(apiVersion, kind) -> (validator, the CRD file) for every served version of every vendored CRD."""
    found: dict[tuple[str, str], tuple[jsonschema.Draft202012Validator, str]] = {}
    for path in sorted(CRDS.glob("*.yaml")):
        crd = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if not version.get("served"):
                continue
            schema = strict_openapi(version["schema"]["openAPIV3Schema"])
            schema.setdefault("properties", {})["metadata"] = {"type": "object"}  # checked as Kubernetes' ObjectMeta
            found[(f"{group}/{version['name']}", kind)] = (jsonschema.Draft202012Validator(schema), path.name)
    return found


def _where(obj: dict[str, Any]) -> str:
    return f"{obj.get('kind')} {obj.get('metadata', {}).get('name')}"


def _errors(validator: jsonschema.Draft202012Validator, instance: Any, prefix: str = "") -> Iterator[str]:
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        path = ".".join(str(part) for part in error.absolute_path)
        yield f"{prefix}{path or '(top)'}: {error.message[:300]}"


def schema_problems(objects: Iterable[dict[str, Any]], version: str) -> list[str]:
    """What the API server of Kubernetes `version` (or the CRDs' schemas) would refuse in `objects`."""
    problems = []
    custom = crd_validators()
    for obj in objects:
        kind, api_version = str(obj.get("kind")), str(obj.get("apiVersion"))
        if (api_version, kind) in custom:
            validator, source = custom[(api_version, kind)]
            problems += [f"{_where(obj)} (CRD {source}): {error}" for error in _errors(validator, obj)]
            meta = kubernetes_validator("ObjectMeta", "meta/v1", version)
            assert meta is not None, "kubernetes-validate has no ObjectMeta schema"
            problems += [f"{_where(obj)}: {error}" for error in _errors(meta, obj.get("metadata"), "metadata.")]
            continue
        validator_or_none = kubernetes_validator(kind, api_version, version)
        if validator_or_none is None:
            problems.append(f"{_where(obj)}: no schema for {api_version} {kind} in Kubernetes {version} nor in a "
                            f"vendored CRD ({CRDS.name}/)")
            continue
        problems += [f"{_where(obj)} (Kubernetes {version}): {error}" for error in _errors(validator_or_none, obj)]
    return problems
