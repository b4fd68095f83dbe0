"""Speedkoi's golden playthroughs: classic and Laternenfest, three seats each (as ``make_golden`` plays them).

``python -m tests.rules.test_speedkoi_golden`` writes them to ``tests/rules/golden/``, where ``test_golden.py``
replays them like every other game's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules.engine import Engine
from libs.rules.protocol import Json
from libs.rules.speedkoi import MODULE
from tests.rules.make_golden import GOLDEN_DIR, GOLDEN_SEATS, GOLDEN_SEED, golden_name, play_golden

CONFIGS: tuple[Json, ...] = ({"spielart": "klassisch"}, {"spielart": "laternenfest"})
ENGINE = Engine(MODULE)


def golden_path(config: Json, directory: Path | None = None) -> Path:
    """Return the golden file of this config: ``speedkoi.json``, ``speedkoi_spielart-laternenfest.json``."""
    return (directory or GOLDEN_DIR) / golden_name(MODULE, config)


def write_golden(directory: Path | None = None) -> list[Path]:
    """Play and write every golden game; return the paths written."""
    directory = directory or GOLDEN_DIR
    directory.mkdir(exist_ok=True)
    written = []
    for config in CONFIGS:
        record = play_golden(ENGINE, config, GOLDEN_SEED, GOLDEN_SEATS)
        path = golden_path(config, directory)
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: str(config["spielart"]))
def test_the_stored_golden_playthroughs_are_the_games_they_are_named_for(config: Json) -> None:
    record: Json = json.loads(golden_path(config).read_text(encoding="utf-8"))
    assert record["rules"] == "speedkoi@1" and record["config"] == config
    # test_golden.py replays it move by move, as every stored golden file.


if __name__ == "__main__":
    for written in write_golden():
        print(f"wrote {written}")
