"""Speednova's two rules versions side by side: ``speednova@1`` logs (signals in the game's log) still audit with
version 1, while ``speednova@2`` games (signals in team logs) audit with version 2, every signal replayed from
the operator's export and none needed from an opponent's."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from libs.audit import audit
from libs.rules import registry
from tests.audit.forgery import rebind_team_logs

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



def test_a_signal_relabelled_to_another_actor_or_as_a_timeout_fails_the_audit_naming_the_entry() -> None:
    whole = load("speednova_v2.json")
    log = next(log for log in whole["team_logs"] if log["team"] == 0)
    computer = next(index for index, entry in enumerate(log["events"]) if entry["data"]["chosen_by"] == "bot")
    cases = {  # the entry's field, its forged value, and what the verdict must say
        "actor": ("anna-3e4b414e", "Auf Platz 3 spielt der Computer der Stufe „easy“"),
        "data.chosen_by": ("timeout", "wählt keine abgelaufene Bedenkzeit"),
    }
    for name, (value, reason) in cases.items():
        forged = copy.deepcopy(whole)
        entry = next(log for log in forged["team_logs"] if log["team"] == 0)["events"][computer]
        if name == "actor":
            entry["actor"] = value
        else:
            entry["data"]["chosen_by"] = value
        rebind_team_logs(forged)
        report = audit(forged)
        difference = report.difference
        assert difference is not None and difference.check == "team", report.lines()
        assert difference.field == f"team_logs[0].events[{computer + 1}].{name}", report.lines()
        assert reason in difference.reason, report.lines()
