"""Speednova's two rules versions side by side: ``speednova@1`` logs (signals in the game's log) still audit with
version 1, while ``speednova@2`` games (signals in team logs) audit with version 2, every signal replayed from
the operator's export and none needed from an opponent's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from libs.audit import audit
from libs.rules import registry

GOLDEN = Path(__file__).resolve().parent / "golden"


def load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    return document


def test_speednova_1_logs_still_audit_with_version_1_while_new_games_take_2() -> None:
    assert registry.latest("speednova").rules_id == "speednova@2"
    old = load("speednova_v1.json")
    report = audit(old)
    assert report.passed and report.rules == "speednova@1" and "team" not in report.checks, report.lines()
    assert "team_logs" not in old and any("signal" in json.dumps(event["data"]) for event in old["events"])


def test_speednova_2_signals_are_only_in_the_team_logs_and_every_copy_audits() -> None:
    new = load("speednova_v2.json")
    report = audit(new)
    assert report.passed and report.rules == "speednova@2" and "team" in report.checks, report.lines()
    assert [log["team"] for log in new["team_logs"]] == [0, 1]
    assert sum(len(log["events"]) for log in new["team_logs"]) > 0
    assert not any("signal" in json.dumps(event["data"]) for event in new["events"])
    for team in (0, 1):  # an operator's export cut down to what one team's players get
        copy = {**new, "team_logs": [log for log in new["team_logs"] if log["team"] == team]}
        assert audit(copy).passed
    without = {key: value for key, value in new.items() if key != "team_logs"}
    assert audit(without).passed  # the game's log holds on its own: nothing in it depends on a signal

