"""Golden playthroughs: a replay that drifts from the recorded game fails (new rules need a new version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.protocol import Json
from tests.rules.helpers import configs_of
from tests.rules.make_golden import GOLDEN_DIR, golden_name, replay_golden

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
    replay_golden(registry.engine(record["rules"]), record)
