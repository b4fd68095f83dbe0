"""Where a turn's CPU goes in the table, without NATS: `python -m tools.table_hot_path [games]`.

Plays two-seat Speedmosaik games in-process through the table's own code as a turn over NATS runs it
(`table.cmd.view` then `table.cmd.play`): decode the view command, build the view, encode its reply, decode the
move command, apply the move (the engine checks it), seal its data, build and hash the event, sign its hash
(Ed25519, libs/platform/signing.py), encode it for the log, fold it onto the record, encode the reply with
its receipt. Prints microseconds per turn for each part, the median of
five passes over the same games (the machine is shared: the median of repeated passes is what compares).
What this leaves out is the transport: nats-py's messages (a turn is eight on the table's side) and the event
loop, which `tools.platform_bench` measures with everything else.
"""

from __future__ import annotations

import hashlib
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from libs.platform.contracts.commands import PLAY_MOVE, VIEW_GAME, Accepted, MakeMove, MoveMadeReply, Receipt
from libs.platform.contracts.events import GameSeat, GameStarted, PlatformSettings
from libs.platform.envelope import GENESIS, EventType, new_event
from libs.platform.private import salt_for, seal
from libs.platform.signing import Keyring
from libs.rules import registry
from libs.rules.rng import SeededRng
from services.table.event_store import StoredEvent
from services.table.games import _sealed_move_data
from services.table.records import GameRecord, begin
from services.table.seeds import commitment
from services.table.views import game_view
from tools.platform_bench import choose

GAME = "speedmosaik"
T = TypeVar("T")
KEYRING = Keyring.generate()


class Parts:
    """Seconds spent per part of a turn."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def timed(self, part: str, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        started = time.perf_counter()
        result = work(*args, **kwargs)
        self.seconds[part] += time.perf_counter() - started
        return result


def started_game(index: int) -> GameRecord:
    """Return the record of a fresh two-seat game (fixed seed per index, so every pass plays the same games)."""
    game_id = f"hot-path-{index}"
    module = registry.latest(GAME)
    engine = registry.engine(module.rules_id)
    seed_bytes = hashlib.sha256(game_id.encode()).digest()
    seats = [GameSeat(name=f"Spieler {seat + 1}", kind="human", player_id=f"p{seat}", account="guest")
             for seat in range(2)]
    event = new_event(
        game_id=game_id, n=1, type=EventType.GAME_STARTED, actor="system", rules=module.rules_id, prev=GENESIS,
        data=GameStarted(game=module.game, rules=module.rules_id, settings=engine.normalize_config({}, 2),
                         seats=seats, platform=PlatformSettings(), table_id=None,
                         seed=seal(seed_bytes.hex(), (), salt_for(seed_bytes, game_id, 1, 0)),
                         seed_commitment=commitment(seed_bytes)).to_data())
    return begin(StoredEvent(seq=1, event=event))


def play(record: GameRecord, parts: Parts) -> int:
    """Play the game to its end as the bench's players do (seeded choice, avoiding the floor); return its turns."""
    rng = SeededRng(record.game_id.encode(), "bench")
    encode = msgspec.json.encode
    seat, turns, seq = 0, 0, record.last_seq
    while record.is_running:
        parts.timed("decode view command", VIEW_GAME.request.decode, encode({"game_id": record.game_id, "seat": seat}))
        view = parts.timed("game_view", game_view, record, seat)
        if seat not in view["to_move"]:  # a new round begins with whoever took the first tile
            seat = view["to_move"][0]
            view = parts.timed("game_view", game_view, record, seat)
        parts.timed("encode view reply", encode, Accepted(result=view))
        move = choose(view["legal_moves"], rng)
        raw = encode(MakeMove(game_id=record.game_id, seat=seat, move=move, actor=f"p{seat}", chosen_by="player",
                              expected_n=record.n))
        command = parts.timed("decode move command", PLAY_MOVE.request.decode, raw)
        step = parts.timed("engine.apply (check + move)", record.engine.apply, record.position, seat, command.move)
        data = parts.timed("sealed move data", _sealed_move_data, record, seat, command.move, "player", step)
        event = parts.timed("new_event (hash)", new_event, game_id=record.game_id, n=record.n + 1,
                            type=EventType.MOVE_MADE, actor=f"p{seat}", rules=record.module.rules_id,
                            prev=record.last_hash, data=data)
        event = parts.timed("sign the hash (Ed25519)", KEYRING.signed, event)
        parts.timed("encode event for the log", event.encode)
        seq += 1
        record = parts.timed("fold onto the record", record.fold, StoredEvent(seq=seq, event=event), step)
        sig = event.sig or {}
        receipt = Receipt(game_id=event.game_id, n=event.n, hash=event.hash, kid=sig["kid"], sig=sig["sig"])
        parts.timed("encode move reply", encode, Accepted(result=MoveMadeReply(game_id=record.game_id, n=record.n,
                                                                                receipt=receipt)))
        turns += 1
        seat = 1 - seat
    return turns


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 20
    for index in range(3):  # warm up: imports, caches, the allocator
        play(started_game(index), Parts())
    passes: list[tuple[int, dict[str, float]]] = []
    for _ in range(5):
        parts = Parts()
        turns = sum(play(started_game(index), parts) for index in range(games))
        passes.append((turns, dict(parts.seconds)))
    turns = passes[0][0]
    per_part = {part: statistics.median(seconds[part] for _, seconds in passes) * 1e6 / turns
                for part in passes[0][1]}
    print(f"{games} games, {turns} turns; microseconds per turn (median of 5 passes):")
    for part, micros in sorted(per_part.items(), key=lambda item: -item[1]):
        print(f"  {part:30s} {micros:7.1f}")
    print(f"  {'total':30s} {sum(per_part.values()):7.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
