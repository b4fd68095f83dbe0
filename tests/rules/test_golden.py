"""Golden playthroughs: a replay that drifts from the recorded game fails (new rules need a new version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.protocol import Json
from tests.rules.helpers import FULL_PRODUCT_UP_TO, configs_of, playable
from tests.rules.make_golden import GOLDEN_DIR, golden_name, replay_golden

GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.json"))


def test_every_registered_game_and_workshop_has_a_golden_file() -> None:
    """Every config has its golden file; a game with more cases than the conformance suite plays in full
    (Speedspore's 12 configs) has golden files in which every value of every setting appears."""
    recorded: dict[str, list[Json]] = {}
    for path in GOLDEN_FILES:
        record = json.loads(path.read_text(encoding="utf-8"))
        recorded.setdefault(record["rules"], []).append(record["config"])
    missing = []
    for module in registry.all_modules():
        if len(list(playable(module))) <= FULL_PRODUCT_UP_TO:
            missing += [golden_name(module, config) for config in configs_of(module)
                        if not (GOLDEN_DIR / golden_name(module, config)).exists()]
            continue
        seen = {(key, json.dumps(value))
                for config in recorded.get(module.rules_id, []) for key, value in config.items()}
        missing += [f"{module.rules_id} {key}={value}"
                    for config in configs_of(module) for key, value in config.items()
                    if (key, json.dumps(value)) not in seen]
    assert not missing, f"no golden playthrough for {sorted(set(missing))}: run python -m tests.rules.make_golden"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.name)
def test_golden_playthrough_replays_without_drift(path: Path) -> None:
    record: Json = json.loads(path.read_text(encoding="utf-8"))
    replay_golden(registry.engine(record["rules"]), record)
