"""Write the golden playthrough of every registered game and config: ``python -m tests.rules.make_golden``.

A golden file pins a whole seeded game: the moves (chosen by a SeededRng), the final scores and the
SHA-256 of the canonical JSON of every view after each move. Regenerate only for a new rules version.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from libs.rules import registry
from libs.rules.protocol import Json, RuleModule
from libs.rules.rng import SeededRng
from tests.rules.helpers import configs_of, sha256_json

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_SEED = bytes.fromhex("5eed00000000000000000000000000000000000000000000000000000000cafe")
GOLDEN_SEATS = 3


def golden_name(module: RuleModule, config: Json) -> str:
    """Return the golden file name: ``<game>_<workshop>.json``, plus ``_<key>-<value>`` per non-default."""
    defaults = configs_of(module)[0]
    parts = [module.game]
    if "workshop" in config:
        parts.append(str(config["workshop"]))
    parts += [f"{key}-{value}" for key, value in config.items() if key != "workshop" and defaults.get(key) != value]
    return "_".join(parts) + ".json"


def views_hash(module: RuleModule, state: Any, seats: int) -> str:
    """Return the SHA-256 of the canonical JSON of all views (spectator, then every seat)."""
    return sha256_json([module.view(state, viewer) for viewer in (None, *range(seats))])


def play_golden(module: RuleModule, config: Json, seed: bytes, seats: int) -> Json:
    """Play the golden game and return its record."""
    state = module.setup(config, seats, seed)
    rng = SeededRng(seed, "golden-moves")
    record: Json = {
        "rules": module.rules_id,
        "config": module.normalize_config(config, seats),
        "seats": seats,
        "seed": seed.hex(),
        "start_views_sha256": views_hash(module, state, seats),
        "moves": [],
    }
    while not module.is_over(state):
        seat = rng.choice(module.to_move(state))
        move = rng.choice(module.legal_moves(state, seat))
        state, effects = module.apply(state, seat, move)
        record["moves"].append(
            {
                "seat": seat,
                "move": move,
                "effects_sha256": sha256_json(effects),
                "views_sha256": views_hash(module, state, seats),
            }
        )
    outcome = module.outcome(state)
    record["final_scores"] = list(outcome.scores)
    record["final_places"] = list(outcome.places)
    record["outcome_sha256"] = sha256_json(outcome.to_json())
    return record


def main() -> None:
    """Regenerate every golden file."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    for module in registry.all_modules():
        for config in configs_of(module):
            record = play_golden(module, config, GOLDEN_SEED, GOLDEN_SEATS)
            path = GOLDEN_DIR / golden_name(module, config)
            path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path} ({len(record['moves'])} moves, scores {record['final_scores']})")


if __name__ == "__main__":
    main()
