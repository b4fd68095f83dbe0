"""The export document (``speed-game-export/1``, see docs/audit.md) as the audit reads it.

Reading is one step before every check (docs/audit.md, "Reading an export"): the JSON text (``read_json``:
duplicate keys, NaN and lone surrogates refused, numbers read by their text) and the document's shape
(``read_document``: the envelope of every event and team-log entry has exactly its nine members, plus ``sig``
when signed). A document that breaks either is unusable (``UnusableDocument``, exit 2), never a difference.
"""

from __future__ import annotations

import json
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
_SIG_FIELDS = ("kid", "sig")
_TEAM_LOG_FIELDS = ("team", "seats", "events")


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


def read_json(text: bytes | str, what: str = "Das Exportdokument") -> Any:
    """Return the JSON value of ``text`` as the specification reads it; UnusableDocument (German reason, naming
    ``what``) when it is no such JSON.

    UTF-8 without a byte order mark; RFC 8259 JSON with no duplicate key in any object, no ``NaN`` or
    ``Infinity``, no string holding a lone surrogate (an escaped ``\\ud800`` included). A number written
    without fraction and exponent is read as the exact integer its digits say (``-0`` is 0), whatever its
    size; one with a fraction or an exponent (``1.0``, ``1e2``) as a non-integer, never as an integer, even
    when its value is whole: canonical data has none, so an event holding one fails the chain check and an
    envelope field holding one has the wrong type.
    """
    if isinstance(text, bytes):
        if text.startswith(b"\xef\xbb\xbf"):
            raise UnusableDocument(f"{what} beginnt mit einer Bytereihenfolgemarke (BOM); erwartet ist UTF-8 ohne.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnusableDocument(f"{what} ist kein UTF-8 (Byte {error.start}).") from None
    elif text.startswith("\ufeff"):
        raise UnusableDocument(f"{what} beginnt mit einer Bytereihenfolgemarke (BOM); erwartet ist UTF-8 ohne.")
    try:
        value = json.loads(text, object_pairs_hook=_unique_members, parse_constant=_no_constant)
    except _Refused as refused:
        raise UnusableDocument(f"{what} ist kein gültiges JSON: {refused}") from None
    except ValueError as error:
        raise UnusableDocument(f"{what} ist kein JSON ({error}).") from None
    surrogate = _lone_surrogate(value)
    if surrogate is not None:
        raise UnusableDocument(f"{what} ist kein gültiges JSON: die Zeichenkette {surrogate!r} enthält ein "
                               "einzelnes Surrogat, kein Unicode-Zeichen.")
    return value


class _Refused(ValueError):
    """JSON that the specification refuses (the message says why, in German)."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for key, value in pairs:
        if key in members:
            raise _Refused(f"der Schlüssel {key!r} steht zweimal im selben Objekt.")
        members[key] = value
    return members


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} ist keine JSON-Zahl.")


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in ``value`` holding a lone surrogate, None if there is none."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= char <= "\udfff" for char in item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def read_document(document: Any) -> ExportDocument:
    """Return the document's header and events; raise UnusableDocument (German reason) if it is no export:
    not an object, another format, no events, an event or team-log entry that is no envelope (a member missing,
    unknown or of the wrong type), ``signing_keys`` or ``team_logs`` present but not a list of their shape."""
    if not isinstance(document, dict):
        raise UnusableDocument("Das Exportdokument ist kein JSON-Objekt.")
    if document.get("format") != EXPORT_FORMAT:
        raise UnusableDocument(f"Unbekanntes Exportformat {document.get('format')!r} (erwartet {EXPORT_FORMAT!r}).")
    raw_events = document.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise UnusableDocument("Das Exportdokument enthält keine Ereignisse.")
    events = [read_envelope(raw, f"Eintrag {index} der Ereignisse") for index, raw in enumerate(raw_events, start=1)]
    if "signing_keys" in document and not isinstance(document["signing_keys"], list):
        raise UnusableDocument("Das Feld signing_keys ist keine Liste (ohne Schlüssel: [] oder kein Feld).")
    if "team_logs" in document:
        read_team_log_shapes(document["team_logs"])
    header = {key: value for key, value in document.items() if key != "events"}
    return ExportDocument(header=header, events=events)


def read_team_log_shapes(raw: Any) -> list[tuple[int, tuple[int, ...], list[Event]]]:
    """Return each team log of ``team_logs`` as (team, seats, entries); UnusableDocument unless it is a list of
    ``{"team", "seats", "events"}`` (exactly these members; team and seats integers) whose entries are envelopes."""
    if not isinstance(raw, list):
        raise UnusableDocument("Das Feld team_logs ist keine Liste.")
    logs = []
    for position, log in enumerate(raw, start=1):
        where = f"Teamprotokoll an Stelle {position}"
        if not isinstance(log, dict) or sorted(log) != sorted(_TEAM_LOG_FIELDS):
            raise UnusableDocument(f"{where} ist kein Objekt mit genau den Feldern team, seats, events.")
        team, seats, entries = log["team"], log["seats"], log["events"]
        if not _is_int(team) or team < 0 or not isinstance(seats, list) or not all(map(_is_int, seats)) \
                or not isinstance(entries, list):
            raise UnusableDocument(f"{where}: team, seats oder events haben einen falschen Typ.")
        logs.append((team, tuple(seats), [read_envelope(entry, f"Teamprotokoll {team + 1}, Eintrag {index}")
                                          for index, entry in enumerate(entries, start=1)]))
    return logs


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_envelope(raw: Any, where: str) -> Event:
    """Return one event (or team-log entry) of the document; raise UnusableDocument (naming ``where``) unless it
    has exactly the nine members of an envelope, each of its type, and, when signed, ``sig`` as
    ``{"kid", "sig"}`` (two strings; an unsigned event has no ``sig`` member, not ``null``)."""
    if not isinstance(raw, dict):
        raise UnusableDocument(f"{where} ist kein JSON-Objekt.")
    missing = [name for name in _EVENT_FIELDS if name not in raw]
    extra = [name for name in raw if name not in _EVENT_FIELDS and name not in _OPTIONAL_FIELDS]
    if missing or extra:
        names = ", ".join(missing or extra)
        raise UnusableDocument(f"{where} hat {'fehlende' if missing else 'unbekannte'} Felder: {names}.")
    for name, kind in _FIELD_TYPES.items():
        value = raw[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise UnusableDocument(f"{where}: Feld {name} hat einen falschen Typ.")
    if "sig" in raw:
        sig = raw["sig"]
        if not isinstance(sig, dict) or sorted(sig) != sorted(_SIG_FIELDS) \
                or not all(isinstance(sig[name], str) for name in _SIG_FIELDS):
            raise UnusableDocument(f"{where}: Feld sig ist keine Signatur {{kid, sig}} (ein unsigniertes Ereignis "
                                   "hat kein Feld sig).")
    return Event(**raw)
