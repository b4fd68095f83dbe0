"""What an audit found, as structured data, and the German verdict built from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from libs.audit.pins import HOW_TO_PIN, PIN_SOURCES
from libs.platform.canonical import canonical_json

CHECK_NAMES = {
    "document": "Exportdokument",
    "signature": "Signaturen",  # the table's signatures: checked after the log's checks, reported apart
    "receipt": "Quittungen",  # a player's receipts against the export (`speed audit --receipts`)
    "chain": "Hash-Kette",
    "seed": "Saat",
    "replay": "Nachspielen",
    "actors": "Beteiligte",
    "outcome": "Ergebnis",
    "timeout": "Zeitüberschreitung",
    "team": "Teamprotokolle",
}
"""Each check's German name, in the order the audit runs them."""

_SHOWN = 160
"""How many characters of an expected or found value a verdict line shows (the report keeps them whole)."""


def shown(value: Any) -> str:
    """Return a value as compact JSON for a verdict line, shortened with "…" past ``_SHOWN`` characters."""
    try:
        text = canonical_json(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"


@dataclass(frozen=True)
class Difference:
    """The first thing that does not hold: which check, which event, which field, expected against found."""

    check: str
    """One of ``CHECK_NAMES``."""
    n: int | None
    """The event it was found at (None: the document's header, not an event)."""
    field: str
    """The field inside the event (``hash``, ``prev``, ``data.effects[2]``, ``data.outcome.scores[1]``)."""
    expected: Any
    found: Any
    reason: str
    """A German sentence saying what is wrong."""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "n": self.n, "field": self.field, "expected": self.expected,
                "found": self.found, "reason": self.reason}

    def line(self) -> str:
        """Return the difference as one German line."""
        where = f"Ereignis {self.n}, " if self.n is not None else ""
        return f"{CHECK_NAMES.get(self.check, self.check)}: {where}Feld {self.field}: {self.reason}"

    def values(self) -> list[str]:
        """Return what was expected and what was found, one German line each (long values shortened)."""
        return [f"erwartet: {shown(self.expected)}", f"gefunden: {shown(self.found)}"]


@dataclass(frozen=True)
class TimeoutMove:
    """A move the computer made for a seat whose think time ran out (``chosen_by: "timeout"``)."""

    n: int
    seat: int
    at: str
    decision_began: int | None
    """The event the seat's decision began with (None: the seat had no running decision)."""
    deadline: str | None
    """When the think time ran out by the log's timestamps (without the table's grace); None without a clock."""
    early: bool = False
    """The move's timestamp lies past the deadline but within the table's grace (the table moves only after
    it; another table process's clock may differ: a warning only)."""
    premature: bool = False
    """The move's timestamp lies before the deadline: no think time had run out (a difference)."""

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "seat": self.seat, "at": self.at, "decision_began": self.decision_began,
                "deadline": self.deadline, "early": self.early, "premature": self.premature}

    def line(self) -> str:
        """Return the timeout move as one German line."""
        since = f", Entscheidung seit Ereignis {self.decision_began}" if self.decision_began is not None else ""
        until = f", Bedenkzeit bis {self.deadline}" if self.deadline else ""
        note = (" – laut Zeitstempel VOR Ablauf der Bedenkzeit" if self.premature
                else " – laut Zeitstempel vor Ablauf der Nachfrist" if self.early else "")
        return (f"Ereignis {self.n}: Platz {self.seat + 1}, Computerzug nach Zeitüberschreitung um {self.at}"
                f"{since}{until}{note}")


@dataclass
class AuditReport:
    """The audit's result: passed when no difference was found; the timeout moves are listed either way."""

    game_id: str = ""
    rules: str = ""
    scope: str = ""
    events: int = 0
    moves: int = 0
    """MoveMade events replayed (all of them when the audit passed)."""
    difference: Difference | None = None
    timeouts: list[TimeoutMove] = field(default_factory=list)
    undone: list[int] = field(default_factory=list)
    """The events that took a step back ("Zurück"); they stay in the log and replay as undone."""
    warnings: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    """The checks of the log that held, in the order they ran (the signatures are reported apart: `signed_by`,
    `unsigned`)."""
    outcome: Any = None
    """The outcome the rules compute for the replayed game (set once the replay reached GameEnded)."""
    signed_by: dict[str, int] = field(default_factory=dict)
    """Key id -> events whose signature it made and that verified (check "signature")."""
    unsigned: list[int] = field(default_factory=list)
    """Events without a signature (written before the table signed; reported, never passed as signed)."""
    team_entries: int | None = None
    """The entries of the export's team logs whose signatures were checked (None: the export has no team logs,
    or the signatures were not reached)."""
    team_lengths: dict[int, int] = field(default_factory=dict)
    """Team -> entries of its log in the export."""
    team_signed_by: dict[str, int] = field(default_factory=dict)
    """Key id -> team-log entries (all teams) whose signature it made and that verified."""
    team_unsigned: dict[int, list[int]] = field(default_factory=dict)
    """Team -> its log's entries without a signature."""
    pin: dict[str, Any] | None = None
    """The keys pinned outside the export the signatures were checked with (``libs.audit.pins.Pins.to_json``:
    ``sources``, ``keys``); None: none was, so the signatures prove consistency, not origin."""
    unsigned_before_signing: bool = False
    """The unsigned events passed because the game began before the table signed (a warning says so)."""

    @property
    def origin_note(self) -> str | None:
        """The German note of a log that passed with signatures checked by the export's own keys only (no pin):
        they prove consistency, not origin, and how to pin; None otherwise. Apart from `warnings`, which are about
        the log."""
        if self.passed and self.pin is None and (self.signed_by or self.team_signed_by):
            return HOW_TO_PIN
        return None

    @property
    def origin_proven(self) -> bool:
        """True when the signatures held against pinned keys (the table wrote this log), not only the export's."""
        return self.passed and self.pin is not None and bool(self.signed_by or self.team_signed_by)

    def _pin_names(self) -> str:
        return ", ".join(PIN_SOURCES.get(source, source) for source in (self.pin or {}).get("sources", []))

    @property
    def passed(self) -> bool:
        return self.difference is None

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "game_id": self.game_id, "rules": self.rules, "scope": self.scope,
                "events": self.events, "moves": self.moves, "checks": list(self.checks),
                "difference": self.difference.to_json() if self.difference else None,
                "timeouts": [move.to_json() for move in self.timeouts], "undone": list(self.undone),
                "warnings": list(self.warnings), "verdict": self.verdict(),
                "signatures": self._signatures_json()}

    def _signatures_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"signed_by": dict(self.signed_by), "unsigned": list(self.unsigned),
                                "pinned": self.pin, "origin_proven": self.origin_proven,
                                "origin_note": self.origin_note,
                                "unsigned_before_signing": self.unsigned_before_signing}
        if self.team_entries is not None:
            body["team_logs"] = {"entries": self.team_entries, "signed_by": dict(self.team_signed_by),
                                 "unsigned": {str(team): list(entries)
                                              for team, entries in sorted(self.team_unsigned.items())}}
        return body

    def verdict(self) -> str:
        """Return the German verdict in one line."""
        if self.difference is None:
            checked = ", ".join(CHECK_NAMES[check] for check in self.checks)
            return (f"Prüfung bestanden: Partie {self.game_id} ({self.rules}), {self.events} Ereignisse, "
                    f"{self.moves} Züge nachgespielt; geprüft: {checked}{self._signatures_clause()}.")
        return f"Prüfung fehlgeschlagen: {self.difference.line()}"

    def _by(self) -> str:
        """Who the signatures show wrote the log: the table (pinned keys) or nobody in particular (the export's)."""
        return "vom Tisch" if self.pin is not None else "stimmig"

    def _whose(self) -> str:
        """What the verdict adds on the keys: which pin proved the origin, or that none did."""
        if self.pin is not None:
            return f"; festgelegt durch: {self._pin_names()}"
        return ", nur vom Export genannt: Herkunft nicht belegt"

    def _unsigned_clause(self) -> str:
        return ("keine (nicht signiert: die Partie begann, bevor der Tisch signierte)" if self.unsigned_before_signing
                else "keine (nicht signiert)")

    def _signatures_clause(self) -> str:
        """The verdict's word on signatures (check "signature", reported apart from the log's `checks`): "vom Tisch
        signiert" only with keys pinned outside the export, else "stimmig signiert … Herkunft nicht belegt"."""
        if self.team_entries:
            return self._team_signatures_clause()
        if self.signed_by and not self.unsigned:
            return (f"; {CHECK_NAMES['signature']}: alle {self.events} Ereignisse {self._by()} signiert "
                    f"(Schlüssel {', '.join(self.signed_by)}{self._whose()})")
        if self.signed_by:
            return (f"; {CHECK_NAMES['signature']}: {self.events - len(self.unsigned)} Ereignisse {self._by()} "
                    f"signiert, {len(self.unsigned)} nicht (Schlüssel {', '.join(self.signed_by)}{self._whose()})")
        if self.unsigned:
            return f"; {CHECK_NAMES['signature']}: {self._unsigned_clause()}"
        return ""

    def _team_signatures_clause(self) -> str:
        """The verdict's word on signatures when the export carries team-log entries (side moves) too."""
        entries = self.team_entries or 0
        team_unsigned = sum(len(numbers) for numbers in self.team_unsigned.values())
        name = CHECK_NAMES["signature"]
        if not self.signed_by and not self.team_signed_by:
            return f"; {name}: {self._unsigned_clause()}"
        kids = ", ".join(dict.fromkeys([*self.signed_by, *self.team_signed_by]))
        if not self.unsigned and not team_unsigned:
            return (f"; {name}: alle {self.events} Ereignisse und alle {entries} Teameinträge {self._by()} signiert "
                    f"(Schlüssel {kids}{self._whose()})")
        return (f"; {name}: {self.events - len(self.unsigned)} von {self.events} Ereignissen und "
                f"{entries - team_unsigned} von {entries} Teameinträgen {self._by()} signiert "
                f"(Schlüssel {kids}{self._whose()})")

    def lines(self) -> list[str]:
        """Return the whole report as German lines: the verdict, the timeout moves, steps taken back, warnings."""
        lines = [self.verdict()]
        if self.difference is not None:
            lines.extend(f"  {line}" for line in self.difference.values())
        if self.signed_by:
            lines.append("Signiert (Ed25519): " + ", ".join(f"{count} Ereignisse mit Schlüssel {kid}"
                                                            for kid, count in self.signed_by.items()))
        if self.pin is not None:
            lines.append(f"Festgelegte Schlüssel ({self._pin_names()}): "
                         + (", ".join(key["kid"] for key in self.pin.get("keys", [])) or "keiner"))
        if self.unsigned:
            lines.append(f"Nicht signiert: {len(self.unsigned)} von {self.events} Ereignissen")
        if self.team_signed_by:
            lines.append("Teameinträge signiert (Ed25519): " + ", ".join(
                f"{count} mit Schlüssel {kid}" for kid, count in self.team_signed_by.items()))
        for team, numbers in sorted(self.team_unsigned.items()):
            lines.append(f"Nicht signiert: {len(numbers)} von {self.team_lengths.get(team, len(numbers))} Einträgen "
                         f"von Teamprotokoll {team + 1}")
        lines.append(f"Computerzüge nach Zeitüberschreitung: {len(self.timeouts)}")
        lines.extend(f"  {move.line()}" for move in self.timeouts)
        if self.undone:
            lines.append("Zurückgenommene Schritte („Zurück“) in Ereignis " + ", ".join(map(str, self.undone)))
        lines.extend(f"Hinweis: {warning}" for warning in self.warnings)
        if self.origin_note:
            lines.append(f"Hinweis: {self.origin_note}")
        return lines
