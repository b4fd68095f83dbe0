"""The dashboards' JSON against Grafana's dashboard schema: grafana-foundation-sdk's models are generated from it,
so reading a dashboard into them and writing it back loses every key the schema does not know (a misspelt
`legendFromat`, an option of another panel type) and changes every value of the wrong type. Nothing may be lost
or changed; the models may only add the schema's defaults."""

from __future__ import annotations

import json
from typing import Any

import pytest
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.models.dashboard import Dashboard

from tests.observe.dashboard_queries import dashboards

register_default_plugins()  # panel options and Prometheus queries read by their plugins' own models


def differences(original: Any, checked: Any, path: str = "") -> list[str]:
    """Where `checked` lost or changed something of `original` (keys it adds are the schema's defaults)."""
    if isinstance(original, dict) and isinstance(checked, dict):
        found = [f"{path}/{key}: not in the schema" for key in original if key not in checked]
        return found + [difference for key in original if key in checked
                        for difference in differences(original[key], checked[key], f"{path}/{key}")]
    if isinstance(original, list) and isinstance(checked, list) and len(original) == len(checked):
        return [difference for index, (left, right) in enumerate(zip(original, checked, strict=True))
                for difference in differences(left, right, f"{path}[{index}]")]
    return [] if original == checked else [f"{path}: {original!r} became {checked!r}"]


@pytest.mark.parametrize("name", sorted(dashboards()))
def test_the_dashboard_is_what_grafanas_schema_describes(name: str) -> None:
    original = dashboards()[name]
    checked = json.loads(json.dumps(Dashboard.from_json(original), cls=JSONEncoder))
    assert differences(original, checked) == []


def test_the_check_finds_a_misspelt_key() -> None:
    dashboard = json.loads(json.dumps(next(iter(dashboards().values()))))
    target = next(panel for panel in dashboard["panels"] if panel.get("targets"))["targets"][0]
    target["legendFromat"] = target.pop("legendFormat")
    checked = json.loads(json.dumps(Dashboard.from_json(dashboard), cls=JSONEncoder))
    assert any("legendFromat: not in the schema" in difference for difference in differences(dashboard, checked))
