"""Golden playthroughs: a replay that drifts from the recorded game fails (new rules need a new version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.protocol import Json
from tests.rules.helpers import configs_of, sha256_json
from tests.rules.make_golden import GOLDEN_DIR, golden_name, views_hash

GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.json"))


def test_every_registered_game_and_workshop_has_a_golden_file() -> None:
    missing = [
        golden_name(module, config)
        for module in registry.all_modules()
        for config in configs_of(module)
        if not (GOLDEN_DIR / golden_name(module, config)).exists()
    ]
    assert not missing, f"no golden playthrough for {missing}: run python -m tests.rules.make_golden"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.name)
def test_golden_playthrough_replays_without_drift(path: Path) -> None:
    record: Json = json.loads(path.read_text(encoding="utf-8"))
    engine = registry.engine(record["rules"])
    position = engine.start(record["config"], record["seats"], bytes.fromhex(record["seed"]))
    assert views_hash(engine, position) == record["start_views_sha256"]
    for number, move in enumerate(record["moves"], start=1):
        assert move["seat"] in engine.must_act(position), f"move {number}: wrong seat"
        step = engine.apply(position, move["seat"], move["move"])
        position = step.position
        assert sha256_json(step.effects) == move["effects_sha256"], f"move {number}: effects drifted"
        assert views_hash(engine, position) == move["views_sha256"], f"move {number}: view drifted"
    assert engine.is_over(position)
    outcome = engine.outcome(position)
    assert list(outcome.scores) == record["final_scores"]
    assert list(outcome.places) == record["final_places"]
    assert sha256_json(outcome.to_json()) == record["outcome_sha256"]
