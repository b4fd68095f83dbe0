"""Speedkoi's golden playthroughs: classic and Laternenfest, three seats each (as ``make_golden`` plays them).

``python -m tests.rules.test_speedkoi_golden`` writes them. While ``speedkoi@1`` is not registered they live
in ``tests/rules/golden/unregistered/`` (``test_golden.py`` replays every file of ``golden/`` through the
registry and would not find the rules); registering the module moves them up into ``golden/``, where
``test_golden.py`` replays them like every other game's. Here they are replayed through an Engine around the
module itself, wherever they are.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.engine import Engine
from libs.rules.protocol import Json
from libs.rules.speedkoi import MODULE
from tests.rules.helpers import sha256_json
from tests.rules.make_golden import GOLDEN_DIR, GOLDEN_SEATS, GOLDEN_SEED, golden_name, play_golden, views_hash

CONFIGS: tuple[Json, ...] = ({"spielart": "klassisch"}, {"spielart": "laternenfest"})
ENGINE = Engine(MODULE)


def golden_dir() -> Path:
    """Return where the golden files live: ``golden/`` once the rules are registered, else ``golden/unregistered/``."""
    registered = any(module.rules_id == MODULE.rules_id for module in registry.all_modules())
    return GOLDEN_DIR if registered else GOLDEN_DIR / "unregistered"


def golden_path(config: Json, directory: Path | None = None) -> Path:
    """Return the golden file of this config: ``speedkoi.json``, ``speedkoi_spielart-laternenfest.json``."""
    return (directory or golden_dir()) / golden_name(MODULE, config)


def write_golden(directory: Path | None = None) -> list[Path]:
    """Play and write every golden game; return the paths written."""
    directory = directory or golden_dir()
    directory.mkdir(exist_ok=True)
    written = []
    for config in CONFIGS:
        record = play_golden(ENGINE, config, GOLDEN_SEED, GOLDEN_SEATS)
        path = golden_path(config, directory)
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: str(config["spielart"]))
def test_golden_playthrough_replays_without_drift(config: Json) -> None:
    record: Json = json.loads(golden_path(config).read_text(encoding="utf-8"))
    assert record["rules"] == "speedkoi@1" and record["config"] == config
    position = ENGINE.start(record["config"], record["seats"], bytes.fromhex(record["seed"]))
    assert views_hash(ENGINE, position) == record["start_views_sha256"]
    for number, move in enumerate(record["moves"], start=1):
        assert move["seat"] in ENGINE.must_act(position), f"move {number}: wrong seat"
        step = ENGINE.apply(position, move["seat"], move["move"])
        position = step.position
        assert sha256_json(step.effects) == move["effects_sha256"], f"move {number}: effects drifted"
        assert views_hash(ENGINE, position) == move["views_sha256"], f"move {number}: view drifted"
    assert ENGINE.is_over(position)
    outcome = ENGINE.outcome(position)
    assert list(outcome.scores) == record["final_scores"]
    assert list(outcome.places) == record["final_places"]
    assert sha256_json(outcome.to_json()) == record["outcome_sha256"]


if __name__ == "__main__":
    for written in write_golden():
        print(f"wrote {written}")
