"""Every alert of deploy/k8s/base/monitoring/prometheusrules.yaml, checked by Prometheus's own `promtool`: the rules
load, and each alert's unit tests (alert_rules_test.yaml beside this file) show it silent just before its `for:`,
firing after it with its labels and annotations, and silent on a healthy series. Each runbook link leads to a
section of docs/operations.md that exists."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from libs.devservers.k8s_monitoring import rule_groups, write_rules_file
from libs.devservers.processes import REPO_ROOT
from libs.devservers.prometheus_server import INSTALL_HINT

UNIT_TESTS = Path(__file__).with_name("alert_rules_test.yaml")
OPERATIONS = REPO_ROOT / "docs" / "operations.md"


def promtool() -> str:
    """Debian's promtool (it comes with the `prometheus` package)."""
    found = shutil.which("promtool") or ("/usr/bin/promtool" if Path("/usr/bin/promtool").exists() else None)
    if found is None:
        pytest.fail(f"promtool is missing: install it with `{INSTALL_HINT}`")
    return found


def alerts() -> dict[str, dict[str, Any]]:
    """alert name -> its rule."""
    return {rule["alert"]: rule for group in rule_groups() for rule in group["rules"] if "alert" in rule}


def minutes(duration: str) -> float:
    """A Prometheus duration such as `90s`, `5m` or `1h` in minutes."""
    value, unit = re.fullmatch(r"(\d+)([smh])", duration).groups()  # type: ignore[union-attr]
    return int(value) * {"s": 1 / 60, "m": 1, "h": 60}[unit]


@pytest.fixture(scope="module")
def rules_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PrometheusRule's groups as a plain rules file, with the unit tests beside it."""
    folder = tmp_path_factory.mktemp("rules")
    write_rules_file(folder / "speed-platform.yaml")
    shutil.copy(UNIT_TESTS, folder / UNIT_TESTS.name)
    return folder


def test_promtool_accepts_every_rule(rules_folder: Path) -> None:
    checked = subprocess.run([promtool(), "check", "rules", str(rules_folder / "speed-platform.yaml")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(alerts())} rules found" in checked.stdout


def test_every_alert_fires_and_stays_silent_as_its_unit_tests_say(rules_folder: Path) -> None:
    tested = subprocess.run([promtool(), "test", "rules", str(rules_folder / UNIT_TESTS.name)],
                            capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_is_tested_before_and_after_its_for_and_on_a_healthy_series() -> None:
    groups = yaml.safe_load(UNIT_TESTS.read_text())["tests"]
    for name, rule in alerts().items():
        hold = minutes(rule.get("for", "0s"))
        cases = [(index, case) for index, group in enumerate(groups)
                 for case in group.get("alert_rule_test", ()) if case["alertname"] == name]
        firing = [(index, case) for index, case in cases if case["exp_alerts"]]
        assert firing, f"{name}: no unit test in which it fires"
        for index, case in firing:
            for expected in case["exp_alerts"]:
                # Every label the rule sets and every annotation it writes, spelled out.
                assert rule["labels"].items() <= expected["exp_labels"].items(), name
                assert set(expected["exp_annotations"]) == set(rule["annotations"]), name
            silent_before = [minutes(other["eval_time"]) for other_index, other in cases
                             if other_index == index and not other["exp_alerts"]
                             and minutes(other["eval_time"]) < minutes(case["eval_time"])]
            assert silent_before, f"{name}: not shown silent before it fires"
            # Silent one evaluation before, firing at the next: the alert waited `for:` (at least) in between.
            assert minutes(case["eval_time"]) - max(silent_before) <= 1, name
            assert minutes(case["eval_time"]) >= hold, f"{name}: fires in its test before its for: {rule['for']}"
        firing_groups = {index for index, _ in firing}
        healthy = [case for index, case in cases if index not in firing_groups and not case["exp_alerts"]]
        assert healthy, f"{name}: no unit test with a healthy series in which it stays silent"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_runbook_link_leads_to_a_section_of_the_operations_doc() -> None:
    anchors = {github_anchor(line.lstrip("#")) for line in OPERATIONS.read_text().splitlines()
               if line.startswith("#")}
    for name, rule in alerts().items():
        document, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert (REPO_ROOT / document) == OPERATIONS, f"{name}: runbook {document}"
        assert anchor in anchors, f"{name}: docs/operations.md has no section #{anchor}"
