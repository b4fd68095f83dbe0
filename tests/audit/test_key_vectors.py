"""The key vectors (tests/audit/vectors/key_rotation.json, forgery_<kind>.json; issue 36, point 1) are what
``make_key_vectors.py`` writes, byte for byte, and `speed audit` gives each case the verdict the vector holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.audit.make_key_vectors import VECTORS, build, encoded, run_audit

NAMES = ["key_rotation.json", "forgery_foreign_key.json", "forgery_stripped.json", "forgery_key_id_mismatch.json",
         "forgery_outside_period.json"]


def _load(name: str) -> dict[str, Any]:
    vector: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return vector


def test_the_script_reproduces_every_key_vector() -> None:
    built = build()
    assert sorted(built) == sorted(NAMES)
    for name, vector in built.items():
        assert (VECTORS / name).read_text(encoding="utf-8") == encoded(vector), name


@pytest.mark.parametrize("name", NAMES)
def test_speed_audit_gives_each_case_its_verdict(name: str) -> None:
    vector = _load(name)
    assert vector["cases"]
    for case in vector["cases"]:
        assert run_audit(vector["export"], case["pins"]) == case["verdict"], (name, case["pins"])


def test_every_forgery_is_refused_once_pinned_and_never_proven_unpinned() -> None:
    for name in NAMES:
        for case in _load(name)["cases"]:
            pinned = case["pins"]["keys_file"] is not None or case["pins"]["key_ids"] or case["pins"]["receipts"]
            verdict = case["verdict"]
            if not pinned:
                assert verdict["origin_proven"] is False, (name, verdict)
            if name.startswith("forgery_") and case["pins"]["keys_file"] is not None:
                assert verdict["exit_status"] == 1 and not verdict["passed"], (name, verdict)


def test_the_vectors_are_real_games_after_signing_began() -> None:
    rotation = _load("key_rotation.json")
    export = rotation["export"]
    assert export["rules"]["id"] == "speedmosaik@1" and export["events"][0]["at"] > "2026-12-03"
    keys = {key["kid"]: key for key in rotation["cases"][0]["pins"]["keys_file"]["keys"]}
    old, new = (export["events"][0]["sig"]["kid"], export["events"][-1]["sig"]["kid"])
    assert old != new and keys[old]["retired"] and keys[new]["activated"] and not keys[new].get("retired")


def test_the_vector_files_are_no_larger_than_needed() -> None:
    assert all((VECTORS / name).stat().st_size < 200_000 for name in NAMES)


def test_the_base_game_is_the_golden_speedmosaik_game() -> None:
    golden = json.loads((Path(__file__).parent / "golden" / "speedmosaik_v1.json").read_text(encoding="utf-8"))
    export = _load("key_rotation.json")["export"]
    assert [event["data"] for event in export["events"]] == [event["data"] for event in golden["events"]]
