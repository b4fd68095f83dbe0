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
