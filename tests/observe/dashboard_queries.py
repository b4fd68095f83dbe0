"""Every query of every panel of deploy/k8s/base/monitoring/dashboards/*.json, with its template variables filled
in as Grafana would, and the metric names it reads."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from libs.devservers.k8s_monitoring import DASHBOARDS

GRAFANA_VARIABLES = {"__rate_interval": "1m", "__interval": "15s", "__range": "5m"}
"""Grafana's built-in variables, at values a 15 s scrape interval gives."""

PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
                "offset", "inf", "nan"}


@dataclass(frozen=True)
class PanelQuery:
    """One target of one panel."""

    dashboard: str
    panel: str
    ref_id: str
    expr: str

    @property
    def key(self) -> tuple[str, str, str]:
        """(dashboard uid, panel title, refId): how the lists below name a query."""
        return (self.dashboard, self.panel, self.ref_id)


def dashboards(folder: Path = DASHBOARDS) -> dict[str, dict[str, Any]]:
    """file name -> dashboard JSON."""
    return {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def panels(panel_list: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every panel, rows' collapsed panels included."""
    for panel in panel_list:
        yield panel
        yield from panels(panel.get("panels", []))


def variables(dashboard: dict[str, Any]) -> dict[str, str]:
    """The dashboard's template variables at their current (else first, else defining) value."""
    values = dict(GRAFANA_VARIABLES)
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "datasource":
            values[variable["name"]] = "prometheus"
            continue
        current = (variable.get("current") or {}).get("value")
        options = variable.get("options") or []
        value = current or (options[0]["value"] if options else variable.get("query", ""))
        values[variable["name"]] = ".*" if value in ("$__all", ["$__all"]) else str(value)
    return values


def fill(expr: str, values: dict[str, str]) -> str:
    """`expr` with `$name`, `${name}` and `[[name]]` replaced by the variables' values."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name not in values:
            raise KeyError(f"undefined variable {name} in {expr}")
        return values[name]

    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]", value, expr)


def queries() -> list[PanelQuery]:
    """Every panel target's PromQL, variables filled in."""
    found = []
    for dashboard in dashboards().values():
        values = variables(dashboard)
        for panel in panels(dashboard["panels"]):
            for target in panel.get("targets", []):
                if target.get("expr"):
                    found.append(PanelQuery(dashboard["uid"], panel["title"], target.get("refId", ""),
                                            fill(target["expr"], values)))
    return found


def metric_names(expr: str) -> set[str]:
    """The metric names `expr` reads (not its functions, label names, keywords or durations)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\[[^\]]*\]", "", text)  # range and subquery durations
    names = set()
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?", text):
        name, call = match.group(1), match.group(2)
        if not call and name.lower() not in PROMQL_WORDS:
            names.add(name)
    return names
