"""Speedspore's golden playthroughs: 3 and 4 players on both island kinds, every setting value in some game.

``python -m tests.rules.test_speedspore_golden`` writes them to ``tests/rules/golden/``. The moves are the
computer players' at level "normal" (a random mover would mostly chatter offers through thousands of moves);
the files hold only the moves, so ``test_golden.py`` replays them through the rules alone, like every other
game's, and here each is checked to be the game it is named for.
"""

from __future__ import annotations

import json
from pathlib import Path

from libs.rules.engine import UNDO_KEY, Engine
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedspore import MODULE
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
ENGINE = Engine(MODULE)
LEVEL = "normal"


def golden_path(config: Json, directory: Path | None = None) -> Path:
    """Return where the golden game of this config lives."""
    return (directory or GOLDEN_DIR) / golden_name(MODULE, config)


def play_bot_golden(config: Json, seats: int, seed: bytes = GOLDEN_SEED) -> Json:
    """Play a game of computer players and return its golden record (the format of ``make_golden``)."""
    normalized = ENGINE.normalize_config(config, seats)
    position = ENGINE.start(normalized, seats, seed)
    rng = SeededRng(seed, "golden-bots")
    record: Json = {"rules": ENGINE.rules_id, "config": normalized, "seats": seats, "seed": seed.hex(),
                    "start_views_sha256": views_hash(ENGINE, position), "moves": []}
    decision = 0
    while not ENGINE.is_over(position):
        seat = ENGINE.must_act(position)[0]
        move = decide(ENGINE.rules_id, ENGINE.view(position, seat), seat, LEVEL, rng.derive(str(decision)))
        decision += 1
        assert move is not None and UNDO_KEY not in move
        step = ENGINE.apply(position, seat, move)
        position = step.position
        record["moves"].append({"seat": seat, "move": move, "effects_sha256": sha256_json(step.effects),
                                "views_sha256": views_hash(ENGINE, position)})
    outcome = ENGINE.outcome(position)
    record["final_scores"] = list(outcome.scores)
    record["final_places"] = list(outcome.places)
    record["outcome_sha256"] = sha256_json(outcome.to_json())
    return record


def write_golden(directory: Path | None = None) -> list[Path]:
    """Play and write every golden game; return the paths written."""
    directory = directory or GOLDEN_DIR
    directory.mkdir(exist_ok=True)
    written = []
    for config, seats in GOLDEN_GAMES:
        path = golden_path(config, directory)
        record = play_bot_golden(config, seats)
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def test_the_golden_games_cover_both_islands_at_three_and_four_and_every_setting_value() -> None:
    names = {golden_name(MODULE, config) for config, _seats in GOLDEN_GAMES}
    assert len(names) == len(GOLDEN_GAMES)
    assert {(config["insel"], seats) for config, seats in GOLDEN_GAMES} == {
        (island, seats) for island in ("zufall", "einsteiger") for seats in (3, 4)}
    for key, choice in MODULE.settings_options().items():
        assert {value["value"] for value in choice["values"]} == {config[key] for config, _s in GOLDEN_GAMES}


def test_each_golden_file_is_the_game_it_is_named_for() -> None:
    for config, seats in GOLDEN_GAMES:
        record = json.loads(golden_path(config).read_text(encoding="utf-8"))
        assert (record["config"], record["seats"], record["rules"]) == (config, seats, ENGINE.rules_id)
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
