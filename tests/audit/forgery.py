"""What a forger with the whole log would do after changing it: hash the chain again."""

from __future__ import annotations

from typing import Any

from libs.platform.envelope import GENESIS, Event, compute_hash


def rehash(document: dict[str, Any], start: int) -> None:
    """Re-hash the export's chain from event ``start`` on (n counts from 1), as a forger with the whole log would."""
    events = document["events"]
    for index in range(start - 1, len(events)):
        event = events[index]
        event["prev"] = events[index - 1]["hash"] if index else GENESIS
        event["hash"] = compute_hash(Event(**event))
    rebind_team_logs(document)


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
