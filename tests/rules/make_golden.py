"""Write the golden playthrough of every registered game and config: ``python -m tests.rules.make_golden``.

A golden file pins a whole seeded game played through the Engine: the moves (chosen by a SeededRng), the
final scores and the SHA-256 of the canonical JSON of every view after each move. Regenerate only for a
new rules version.
"""

from __future__ import annotations

import json
from pathlib import Path

from libs.rules import registry
from libs.rules.engine import Engine, Position
from libs.rules.protocol import Json, RuleModule
from libs.rules.rng import SeededRng
from tests.rules.helpers import configs_of, sha256_json

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_SEED = bytes.fromhex("5eed00000000000000000000000000000000000000000000000000000000cafe")
GOLDEN_SEATS = 3


def golden_name(module: RuleModule, config: Json) -> str:
    """Return the golden file name: ``<game>_<workshop>.json``, plus ``_<key>-<value>`` per non-default; from
    rules version 2 on the version follows the game (``speedspore_v2_insel-einsteiger.json``), so each version
    keeps its own files (version 1's names stay as they always were)."""
    defaults = configs_of(module)[0]
    parts = [module.game] if module.version == 1 else [module.game, f"v{module.version}"]
    if "workshop" in config:
        parts.append(str(config["workshop"]))
    parts += [f"{key}-{value}" for key, value in config.items() if key != "workshop" and defaults.get(key) != value]
    return "_".join(parts) + ".json"


def views_hash(engine: Engine, position: Position) -> str:
    """Return the SHA-256 of the canonical JSON of all views (spectator, then every seat)."""
    return sha256_json([engine.view(position, viewer) for viewer in (None, *range(position.seats))])


def play_golden(engine: Engine, config: Json, seed: bytes, seats: int) -> Json:
    """Play the golden game and return its record (a seat chosen among those that must act, then a move)."""
    normalized = engine.normalize_config(config, seats)
    position = engine.start(normalized, seats, seed)
    rng = SeededRng(seed, "golden-moves")
    record: Json = {
        "rules": engine.rules_id,
        "config": normalized,
        "seats": seats,
        "seed": seed.hex(),
        "start_views_sha256": views_hash(engine, position),
        "moves": [],
    }
    while not engine.is_over(position):
        seat = rng.choice(engine.must_act(position))
        move = rng.choice(engine.legal_moves(position, seat))
        step = engine.apply(position, seat, move)
        position = step.position
        record["moves"].append(
            {
                "seat": seat,
                "move": move,
                "effects_sha256": sha256_json(step.effects),
                "views_sha256": views_hash(engine, position),
            }
        )
    outcome = engine.outcome(position)
    record["final_scores"] = list(outcome.scores)
    record["final_places"] = list(outcome.places)
    record["outcome_sha256"] = sha256_json(outcome.to_json())
    return record


def replay_golden(engine: Engine, record: Json) -> None:
    """Replay a golden record and assert nothing drifted: the seat of every move, its effects, every view after
    it, and the outcome."""
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


def main() -> None:
    """Write the golden file of every registered version and config that has none yet. An existing golden file is
    never rewritten: it guards a version against drift, so a failing replay is fixed in the code, never here."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    for module in registry.all_modules():
        for config in configs_of(module):
            path = GOLDEN_DIR / golden_name(module, config)
            if path.exists():
                continue
            record = play_golden(registry.engine(module.rules_id), config, GOLDEN_SEED, GOLDEN_SEATS)
            path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path} ({len(record['moves'])} moves, scores {record['final_scores']})")


if __name__ == "__main__":
    main()
