"""Speednova's golden playthroughs, per rules version: 2 players, 4 players in teams, each solo variant (Tagesspiel
plays Rekordjagd).

``python -m tests.rules.test_speednova_golden`` writes the missing ones to ``tests/rules/golden/`` (the shared
``make_golden`` plays every config with three seats, which Speednova's team and solo configs refuse); an existing
file is never rewritten. ``test_golden.py`` replays them like every other game's, and here each is checked to be
the game it is named for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules.engine import Engine
from libs.rules.protocol import Json, RuleModule
from libs.rules.speednova import MODULE, MODULE_V2
from tests.rules.make_golden import GOLDEN_DIR, GOLDEN_SEED, golden_name, play_golden, replay_golden

GOLDEN_GAMES: tuple[tuple[Json, int], ...] = (
    ({}, 2),
    ({"teams": "mit"}, 4),
    ({"solo": "klassisch"}, 1),
    ({"solo": "rekordjagd"}, 1),
)
"""(config, seats) of every golden game; the file name follows ``make_golden.golden_name``."""
ENGINE = Engine(MODULE)
VERSIONS: tuple[RuleModule, ...] = (MODULE, MODULE_V2)
"""Every registered version of Speednova: each keeps golden games of its own."""


def golden_path(config: Json, directory: Path | None = None, module: RuleModule = MODULE) -> Path:
    """Return where the golden game of this config and version lives."""
    return (directory or GOLDEN_DIR) / golden_name(module, config)


def write_golden(directory: Path | None = None, module: RuleModule = MODULE, *,
                 missing_only: bool = False) -> list[Path]:
    """Play and write every golden game of one version (with ``missing_only``, those without a file); return the
    paths written."""
    directory = directory or GOLDEN_DIR
    directory.mkdir(exist_ok=True)
    written = []
    for config, seats in GOLDEN_GAMES:
        path = golden_path(config, directory, module)
        if missing_only and path.exists():
            continue
        record = play_golden(Engine(module), config, GOLDEN_SEED, seats)
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


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
        replay_golden(ENGINE, record)


@pytest.mark.parametrize("module", VERSIONS, ids=lambda module: module.rules_id)
@pytest.mark.parametrize(("config", "seats"), GOLDEN_GAMES, ids=lambda value: json.dumps(value))
def test_the_stored_golden_playthroughs_are_the_games_they_are_named_for(config: Json, seats: int,
                                                                         module: RuleModule) -> None:
    path = golden_path(config, module=module)
    assert path.exists(), f"{path} missing: run python -m tests.rules.test_speednova_golden"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["rules"] == module.rules_id
    assert record["seats"] == seats and record["config"] == module.normalize_config(config, seats)
    # test_golden.py replays it move by move, as every stored golden file.


if __name__ == "__main__":
    for version in VERSIONS:
        for written in write_golden(module=version, missing_only=True):
            print(f"wrote {written}")
