"""What a forger with the whole log would do after changing it: hash the chain again, sign it again (with a key
of their own, or the platform's), drop the signatures, or pass another game's history off as this one's.

`rehash` is the strongest forger, the platform itself: it re-hashes and signs anew with the table's own key (the
test session's, TABLE_SIGNING_KEYS_FILE), so what it forges must be caught by the log's own checks (replay, who
did what, outcome, timeouts), which a signature cannot replace; signatures and receipts are tested with the other
helpers (tests/audit/test_signatures.py)."""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from libs.platform.envelope import GENESIS, Event, EventType, compute_hash
from libs.platform.private import PRIVATE, is_sealed, salt_for, seal
from libs.platform.signing import Keyring


def rehash(document: dict[str, Any], start: int) -> None:
    """Re-hash the export's chain from event ``start`` on (n counts from 1), as a forger with the whole log would,
    and sign each signed event anew with the table's own key when the test session holds it (the platform
    forging; an event signed by another key keeps its old signature, which then no longer verifies)."""
    keyring = _table_keyring()
    events = _rehash_chain(document, start)
    rebind_team_logs(document)
    for event in events:
        kid = (event.get("sig") or {}).get("kid")
        if keyring is not None and kid == keyring.active:
            event["sig"] = keyring.sign(event["game_id"], event["n"], event["hash"])
    if keyring is not None:
        sign_team_logs(document, keyring, only_kid=keyring.active)


def _rehash_chain(document: dict[str, Any], start: int) -> list[dict[str, Any]]:
    """Re-hash the chain from event `start` on, signatures left as they were; return the events re-hashed."""
    events = document["events"]
    for index in range(start - 1, len(events)):
        event = events[index]
        event["prev"] = events[index - 1]["hash"] if index else GENESIS
        event["hash"] = compute_hash(Event(**event))
    return list(events[start - 1:])


def rebind_team_logs(document: dict[str, Any]) -> None:
    """Bind the export's team logs (Speednova's signals) to the game's re-hashed events again and re-hash their
    chains, as a forger with the whole export would: each entry names the hash of the event it follows."""
    hashes = {event["n"]: event["hash"] for event in document["events"]}
    for log in document.get("team_logs") or []:
        entries = log["events"]
        for index, entry in enumerate(entries):
            entry["data"]["after_hash"] = hashes.get(entry["data"]["after"], entry["data"]["after_hash"])
            entry["prev"] = entries[index - 1]["hash"] if index else GENESIS
            entry["hash"] = compute_hash(Event(**entry))


def sign_team_logs(document: dict[str, Any], keyring: Keyring, only_kid: str | None = None) -> None:
    """Sign every team-log entry's hash anew with `keyring` (over its team's message; `only_kid`: only entries
    that key had signed)."""
    for log in document.get("team_logs") or []:
        for entry in log["events"]:
            if only_kid is None or (entry.get("sig") or {}).get("kid") == only_kid:
                entry["sig"] = keyring.sign(entry["game_id"], entry["n"], entry["hash"], log["team"])


@cache
def _table_keyring() -> Keyring | None:
    """The test session's table keys (tests/conftest.py puts their file into the environment), if any."""
    path = os.environ.get("TABLE_SIGNING_KEYS_FILE")
    return Keyring.load(path) if path else None


def unsign(document: dict[str, Any]) -> None:
    """Drop every event's and team-log entry's signature and the export's keys: the log as written before the table
    signed (or as a forger without the table's key would have to hand it in)."""
    document["signing_keys"] = []
    for event in document["events"]:
        event.pop("sig", None)
    for log in document.get("team_logs") or []:
        for entry in log["events"]:
            entry.pop("sig", None)


def resign(document: dict[str, Any], keyring: Keyring) -> None:
    """Sign every event's and team-log entry's hash anew with `keyring` and publish its active key in the export (a
    forger with a key of their own, or the platform itself signing a second history)."""
    for event in document["events"]:
        event["sig"] = keyring.sign(event["game_id"], event["n"], event["hash"])
    sign_team_logs(document, keyring)
    document["signing_keys"] = keyring.published_for([keyring.active])


def relabel(document: dict[str, Any], game_id: str) -> None:
    """Make an operator's whole export of one game pass for another game `game_id` played on the same seed: every
    private part sealed anew with that game's salts, the chain re-hashed; the signatures stay as they were.

    With it a forger turns any other legal history (a second game on the same seed, the same seats) into a
    complete, legal, re-hashed history of `game_id` that chain, seed, replay and outcome all accept."""
    seed = bytes.fromhex(document["seed"])
    document["game_id"] = game_id
    for event in document["events"]:
        event["game_id"] = game_id
        data, n = event["data"], event["n"]
        if n == 1 and is_sealed(data.get("seed")):
            data["seed"] = _resealed(data["seed"], seed, game_id, n, 0)
        if event["type"] == EventType.MOVE_MADE:
            index = 0
            parts = [data["move"], *data.get("effects", [])]
            for position, part in enumerate(parts):
                if is_sealed(part):
                    index += 1
                    parts[position] = _resealed(part, seed, game_id, n, index)
            data["move"], data["effects"] = parts[0], parts[1:]
    _rehash_chain(document, 1)
    rebind_team_logs(document)


def _resealed(part: dict[str, Any], seed: bytes, game_id: str, n: int, index: int) -> dict[str, Any]:
    """A whole private part sealed again with the salt of event `n`, part `index` of game `game_id`."""
    inner = part[PRIVATE]
    return seal(inner["value"], tuple(inner["to"]), salt_for(seed, game_id, n, index))
