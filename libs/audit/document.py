"""The export document (``speed-game-export/1``, see docs/audit.md) as the audit reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.platform.envelope import Event

EXPORT_FORMAT = "speed-game-export/1"
"""The ``format`` of the one export document version there is."""

_EVENT_FIELDS = ("game_id", "n", "type", "at", "actor", "rules", "data", "prev", "hash")
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "game_id": str, "n": int, "type": str, "at": str, "actor": str, "rules": str, "data": dict, "prev": str,
    "hash": str}
_OPTIONAL_FIELDS = ("sig",)
"""Fields an event may carry: ``sig``, the table's signature of its hash (unsigned older events lack it)."""


class UnusableDocument(Exception):
    """The input is no export document the audit can read (not the same as a document that fails the audit)."""


@dataclass(frozen=True)
class ExportDocument:
    """An export's header and its events, read but not yet checked."""

    header: dict[str, Any]
    """Every top-level field but ``events``."""
    events: list[Event]

    @property
    def game_id(self) -> str:
        return str(self.header.get("game_id") or (self.events[0].game_id if self.events else ""))


def read_document(document: Any) -> ExportDocument:
    """Return the document's header and events; raise UnusableDocument (German reason) if it is no export."""
    if not isinstance(document, dict):
        raise UnusableDocument("Das Exportdokument ist kein JSON-Objekt.")
    if document.get("format") != EXPORT_FORMAT:
        raise UnusableDocument(f"Unbekanntes Exportformat {document.get('format')!r} (erwartet {EXPORT_FORMAT!r}).")
    raw_events = document.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise UnusableDocument("Das Exportdokument enthält keine Ereignisse.")
    events = [_event(raw, index) for index, raw in enumerate(raw_events, start=1)]
    header = {key: value for key, value in document.items() if key != "events"}
    return ExportDocument(header=header, events=events)


def _event(raw: Any, position: int) -> Event:
    """Return one event of the document; raise UnusableDocument if it lacks a field or has a wrong type."""
    if not isinstance(raw, dict):
        raise UnusableDocument(f"Eintrag {position} der Ereignisse ist kein JSON-Objekt.")
    missing = [name for name in _EVENT_FIELDS if name not in raw]
    extra = [name for name in raw if name not in _EVENT_FIELDS and name not in _OPTIONAL_FIELDS]
    if missing or extra:
        names = ", ".join(missing or extra)
        raise UnusableDocument(f"Eintrag {position} der Ereignisse hat {'fehlende' if missing else 'unbekannte'} "
                               f"Felder: {names}.")
    for name, kind in _FIELD_TYPES.items():
        value = raw[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise UnusableDocument(f"Eintrag {position} der Ereignisse: Feld {name} hat einen falschen Typ.")
    return Event(**raw)
