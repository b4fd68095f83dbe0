"""Speedspore's golden playthroughs: 3 and 4 players on both island kinds, every setting value in some game,
for each registered rules version (``speedspore@1`` and ``speedspore@2``, the files of version 2 named
``speedspore_v2_…``).

``python -m tests.rules.test_speedspore_golden`` writes the files that do not exist yet to
``tests/rules/golden/`` (a written file is never regenerated: it pins its version for ever). The moves are the
computer players' at level "normal" (a random mover would mostly chatter offers through thousands of moves);
the files hold only the moves, so ``test_golden.py`` replays them through the rules alone, like every other
game's, and here each is checked to be the game it is named for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from libs.rules.engine import UNDO_KEY, Engine
from libs.rules.protocol import Json, RuleModule
from libs.rules.rng import SeededRng
from libs.rules.speedspore import MODULE, MODULE_V1
from services.bot.policies import decide
from tests.rules.helpers import sha256_json
from tests.rules.make_golden import GOLDEN_DIR, GOLDEN_SEED, golden_name, replay_golden, views_hash

GOLDEN_GAMES: tuple[tuple[Json, int], ...] = (
    ({"siegpunkte": 10, "wuerfel": "zufall", "insel": "zufall"}, 4),
    ({"siegpunkte": 12, "wuerfel": "ausgeglichen", "insel": "zufall"}, 3),
    ({"siegpunkte": 8, "wuerfel": "zufall", "insel": "einsteiger"}, 3),
    ({"siegpunkte": 10, "wuerfel": "ausgeglichen", "insel": "einsteiger"}, 4),
)
"""(config, seats): 3 and 4 players on both islands; every value of every setting appears."""
MODULES: tuple[RuleModule, ...] = (MODULE_V1, MODULE)
"""Every registered version: each has its own golden games."""
ENGINE = Engine(MODULE)
LEVEL = "normal"


def golden_path(config: Json, directory: Path | None = None, module: RuleModule = MODULE) -> Path:
    """Return where the golden game of this config and rules version lives."""
    return (directory or GOLDEN_DIR) / golden_name(module, config)


def play_bot_golden(config: Json, seats: int, seed: bytes = GOLDEN_SEED, module: RuleModule = MODULE) -> Json:
    """Play a game of computer players and return its golden record (the format of ``make_golden``)."""
    engine = Engine(module)
    normalized = engine.normalize_config(config, seats)
    position = engine.start(normalized, seats, seed)
    rng = SeededRng(seed, "golden-bots")
    record: Json = {"rules": engine.rules_id, "config": normalized, "seats": seats, "seed": seed.hex(),
                    "start_views_sha256": views_hash(engine, position), "moves": []}
    decision = 0
    while not engine.is_over(position):
        seat = engine.must_act(position)[0]
        move = decide(engine.rules_id, engine.view(position, seat), seat, LEVEL, rng.derive(str(decision)))
        decision += 1
        assert move is not None and UNDO_KEY not in move
        step = engine.apply(position, seat, move)
        position = step.position
        record["moves"].append({"seat": seat, "move": move, "effects_sha256": sha256_json(step.effects),
                                "views_sha256": views_hash(engine, position)})
    outcome = engine.outcome(position)
    record["final_scores"] = list(outcome.scores)
    record["final_places"] = list(outcome.places)
    record["outcome_sha256"] = sha256_json(outcome.to_json())
    return record


def write_golden(directory: Path | None = None) -> list[Path]:
    """Play and write every golden game that has no file yet (of every version); return the paths written."""
    directory = directory or GOLDEN_DIR
    directory.mkdir(exist_ok=True)
    written = []
    for module in MODULES:
        for config, seats in GOLDEN_GAMES:
            path = golden_path(config, directory, module)
            if path.exists():
                continue
            record = play_bot_golden(config, seats, module=module)
            path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(path)
    return written


def test_the_golden_games_cover_both_islands_at_three_and_four_and_every_setting_value() -> None:
    assert {module.rules_id for module in MODULES} == {"speedspore@1", "speedspore@2"}
    names = {golden_name(module, config) for module in MODULES for config, _seats in GOLDEN_GAMES}
    assert len(names) == len(MODULES) * len(GOLDEN_GAMES)  # each version its own files
    names = {golden_name(MODULE, config) for config, _seats in GOLDEN_GAMES}
    assert len(names) == len(GOLDEN_GAMES)
    assert {(config["insel"], seats) for config, seats in GOLDEN_GAMES} == {
        (island, seats) for island in ("zufall", "einsteiger") for seats in (3, 4)}
    for key, choice in MODULE.settings_options().items():
        assert {value["value"] for value in choice["values"]} == {config[key] for config, _s in GOLDEN_GAMES}


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.rules_id)
def test_each_golden_file_is_the_game_it_is_named_for(module: RuleModule) -> None:
    for config, seats in GOLDEN_GAMES:
        record = json.loads(golden_path(config, module=module).read_text(encoding="utf-8"))
        assert (record["config"], record["seats"], record["rules"]) == (config, seats, module.rules_id)
        places = record["final_places"]
        assert places.count(1) == 1 and len(places) == seats  # one winner: the one who reached the target
        assert max(record["final_scores"]) >= config["siegpunkte"]


def test_a_bot_golden_recording_replays_without_drift(tmp_path: Path) -> None:
    config, seats = GOLDEN_GAMES[2]  # the shortest: 8 points
    record = play_bot_golden(config, seats, seed=b"golden-probe")
    assert record["moves"]
    replay_golden(ENGINE, record)


if __name__ == "__main__":
    for written in write_golden():
        print(f"wrote {written}")
