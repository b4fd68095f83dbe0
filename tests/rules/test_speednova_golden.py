"""Speednova's golden playthroughs: 2 players, 4 players in teams, each solo variant (Tagesspiel plays Rekordjagd).

``python -m tests.rules.test_speednova_golden`` writes them (the shared ``make_golden`` plays every config with
three seats, which Speednova's team and solo configs refuse) to ``tests/rules/golden/unregistered/`` while
``speednova@1`` is not registered (``test_golden.py`` replays every file of ``golden/`` through the registry), and
to ``tests/rules/golden/`` once it is: then ``test_golden.py`` replays them like every other game's. Here they are
replayed through an Engine around the module itself.
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


def registered() -> bool:
    """True once ``speednova@1`` is in the registry."""
    return any(module.rules_id == MODULE.rules_id for module in registry.all_modules())


def golden_dir() -> Path:
    """Return where the golden files live: ``golden/`` once the rules are registered, else ``golden/unregistered/``."""
    return GOLDEN_DIR if registered() else GOLDEN_DIR / "unregistered"


def golden_path(config: Json, directory: Path | None = None) -> Path:
    """Return where the golden game of this config lives."""
    return (directory or golden_dir()) / golden_name(MODULE, config)


def write_golden(directory: Path | None = None) -> list[Path]:
    """Play and write every golden game; return the paths written."""
    directory = directory or golden_dir()
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
    assert path.exists(), f"{path} missing: run python -m tests.rules.test_speednova_golden"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["seats"] == seats and record["config"] == MODULE.normalize_config(config, seats)
    replay(record)


if __name__ == "__main__":
    for written in write_golden():
        print(f"wrote {written}")
