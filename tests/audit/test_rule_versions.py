"""Rule versions (issue 13, point 6): a log written by rules version N still audits after version N+1 ships.

The golden exports (``golden/<game>_v<N>.json``, written once by ``make_golden.py`` before the table signed, and
``golden/<game>_v<N>_signed.json``, signed by a table holding the test key) are audited on every run with the version
they name. A synthetic version 2 of Speedmosaik (one changed rule: a point more for
everyone at the end) shows that new games get the latest version while the old log keeps its own.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from libs.audit import audit
from libs.platform.signing import Keyring, public_keys
from libs.rules import SPEEDMOSAIK, Outcome, registry
from libs.rules.speedmosaik.module import SPEC, Speedmosaik
from tests.audit.forgery import rehash
from tests.audit.make_golden import TEST_KEY_FILE, golden_path

GOLDEN = Path(__file__).resolve().parent / "golden"
GOLDEN_LOGS = sorted(GOLDEN.glob("*_v*.json"))


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


@pytest.mark.parametrize("path", GOLDEN_LOGS, ids=lambda path: path.stem)
def test_every_golden_log_audits_with_the_version_it_names(path: Path) -> None:
    document = load(path)
    report = audit(document)
    assert report.passed, report.lines()
    assert report.rules == document["rules"]["id"] == f"{document['game']}@{document['rules']['version']}"
    assert report.moves > 20


def test_golden_logs_cover_every_module_and_private_parts() -> None:
    assert {load(path)["game"] for path in GOLDEN_LOGS} == {"speedmosaik", "speedkoi", "speednova", "speedspore"}
    assert any('"$private"' in path.read_text(encoding="utf-8") and '"signal"' in path.read_text(encoding="utf-8")
               for path in GOLDEN_LOGS)


def test_every_registered_rules_version_has_its_golden_log() -> None:
    """A version that ships gets its golden log (``make_golden`` writes the missing ones), so its logs are held
    to it from the first day; ``speedspore@1`` keeps its log beside ``speedspore@2``'s."""
    logged = {load(path)["rules"]["id"] for path in GOLDEN_LOGS}
    shipped = {"speedmosaik", "speedkoi", "speednova", "speedspore"}  # not a test's own game (tinygame)
    assert logged == {module.rules_id for module in registry.all_modules() if module.game in shipped}
    assert {"speedspore@1", "speedspore@2"} <= logged


def test_every_registered_rules_version_has_a_golden_log_signed_by_the_table() -> None:
    """Signatures on real games (issue 36): each version's signed golden export has every event and team-log entry
    signed by the test key, and passes the audit with that key pinned and every signature required."""
    keyring = Keyring.load(TEST_KEY_FILE)
    trusted = public_keys(keyring.published_for([keyring.active]))
    shipped = {"speedmosaik", "speedkoi", "speednova", "speedspore"}
    for module in [module for module in registry.all_modules() if module.game in shipped]:
        document = load(golden_path(module.game, module.version, signed=True))
        assert document["rules"]["id"] == module.rules_id
        entries = [entry for log in document.get("team_logs") or [] for entry in log["events"]]
        assert all(item["sig"]["kid"] == keyring.active for item in [*document["events"], *entries])
        report = audit(document, trusted_keys=trusted, require_signatures=True)
        assert report.passed and report.signed_by == {keyring.active: len(document["events"])}, report.lines()
        assert report.team_signed_by == ({keyring.active: len(entries)} if entries else {})


def test_speedspore_1_logs_still_audit_with_speedspore_1_while_new_games_take_2() -> None:
    assert registry.latest("speedspore").rules_id == "speedspore@2"
    assert registry.get("speedspore@1").version == 1
    for version in (1, 2):
        document = load(GOLDEN / f"speedspore_v{version}.json")
        report = audit(document)
        assert report.passed and report.rules == f"speedspore@{version}", report.lines()


class SpeedmosaikV2(Speedmosaik):
    """A made-up version 2: the same game, but everyone gets one point more at the end."""

    spec = dataclasses.replace(SPEC, version=2)

    def outcome(self, state: Any) -> Outcome:
        """Version 1's outcome with one point more per seat (the changed rule)."""
        before = super().outcome(state)
        return dataclasses.replace(before, scores=tuple(score + 1 for score in before.scores))


@pytest.fixture
def version_2() -> Iterator[SpeedmosaikV2]:
    module = SpeedmosaikV2()
    registry.register(module)
    try:
        yield module
    finally:
        registry.unregister(module.rules_id)


def test_new_games_get_version_2_while_the_golden_version_1_log_still_audits(version_2: SpeedmosaikV2) -> None:
    assert registry.latest("speedmosaik") is version_2  # what the table starts new games with
    assert registry.get("speedmosaik@1") is SPEEDMOSAIK  # the old version stays registered beside it
    document = load(GOLDEN / "speedmosaik_v1.json")
    report = audit(document)
    assert report.passed and report.rules == "speedmosaik@1", report.lines()

    # The same moves named as version 2 (re-hashed) do not give the recorded outcome: the version matters.
    relabelled = copy.deepcopy(document)
    relabelled["rules"] = {"id": "speedmosaik@2", "game": "speedmosaik", "version": 2}
    for event in relabelled["events"]:
        event["rules"] = "speedmosaik@2"
        if "rules" in event["data"]:
            event["data"]["rules"] = "speedmosaik@2"
    rehash(relabelled, 1)
    report = audit(relabelled)
    assert report.difference is not None and report.difference.field == "data.outcome.scores[0]", report.lines()
    assert report.difference.found + 1 == report.difference.expected


def test_without_version_2_registered_its_log_cannot_be_replayed() -> None:
    document = load(GOLDEN / "speedmosaik_v1.json")
    ghost = copy.deepcopy(document)
    ghost["rules"] = {"id": "speedmosaik@2", "game": "speedmosaik", "version": 2}
    ghost["events"][0]["rules"] = ghost["events"][0]["data"]["rules"] = "speedmosaik@2"
    rehash(ghost, 1)
    report = audit(ghost)
    assert report.difference is not None and report.difference.field == "rules"
    assert "unbekannt" in report.difference.reason
