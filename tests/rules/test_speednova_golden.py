"""Speednova's golden playthroughs: 2 players, 4 players in teams, each solo variant (Tagesspiel plays Rekordjagd).

``python -m tests.rules.test_speednova_golden`` writes them to ``tests/rules/golden/`` (the shared
``make_golden`` plays every config with three seats, which Speednova's team and solo configs refuse). Once
``speednova@1`` is registered, ``tests/rules/test_golden.py`` replays them like every other game's; here they are
replayed through an Engine around the module itself, and the recording is checked to replay without drift.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.engine import Engine
from libs.rules.protocol import Json
from libs.rules.speednova import MODULE
from tests.rules.helpers import sha256_json
from tests.rules.make_golden import GOLDEN_DIR, GOLDEN_SEED, golden_name, play_golden, views_hash

GOLDEN_GAMES: tuple[tuple[Json, int], ...] = (
    ({}, 2),
    ({"teams": "mit"}, 4),
    ({"solo": "klassisch"}, 1),
    ({"solo": "rekordjagd"}, 1),
)
"""(config, seats) of every golden game; the file name follows ``make_golden.golden_name``."""
ENGINE = Engine(MODULE)


def golden_path(config: Json, directory: Path = GOLDEN_DIR) -> Path:
    """Return where the golden game of this config lives."""
    return directory / golden_name(MODULE, config)


def write_golden(directory: Path = GOLDEN_DIR) -> list[Path]:
    """Play and write every golden game; return the paths written."""
    directory.mkdir(exist_ok=True)
    written = []
    for config, seats in GOLDEN_GAMES:
        record = play_golden(ENGINE, config, GOLDEN_SEED, seats)
        path = golden_path(config, directory)
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def replay(record: Json) -> None:
    """Replay a golden record and assert nothing drifted (effects, every view, the outcome)."""
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
    assert list(outcome.scores) == record["final_scores"] and list(outcome.places) == record["final_places"]
    assert sha256_json(outcome.to_json()) == record["outcome_sha256"]


def test_the_golden_names_are_distinct_and_cover_every_config() -> None:
    names = [golden_name(MODULE, config) for config, _seats in GOLDEN_GAMES]
    assert names == ["speednova.json", "speednova_teams-mit.json", "speednova_solo-klassisch.json",
                     "speednova_solo-rekordjagd.json"]
    assert {json.dumps(c, sort_keys=True) for c in MODULE.valid_configs()} <= {
        json.dumps(c, sort_keys=True) for c, _s in GOLDEN_GAMES}


def test_a_golden_recording_replays_without_drift(tmp_path: Path) -> None:
    for path in write_golden(tmp_path):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["moves"], path
        replay(record)


@pytest.mark.parametrize(("config", "seats"), GOLDEN_GAMES, ids=lambda value: json.dumps(value))
def test_the_stored_golden_playthroughs_replay(config: Json, seats: int) -> None:
    path = golden_path(config)
    registered = any(module.rules_id == MODULE.rules_id for module in registry.all_modules())
    if not path.exists():
        assert not registered, f"{path.name} missing: run python -m tests.rules.test_speednova_golden"
        pytest.skip("speednova@1 is not registered yet: its golden files are written when it is")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["seats"] == seats and record["config"] == MODULE.normalize_config(config, seats)
    replay(record)


if __name__ == "__main__":
    for written in write_golden():
        print(f"wrote {written}")
