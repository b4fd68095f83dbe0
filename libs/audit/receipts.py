"""A player's kept receipts against an export (``speed audit FILE --receipts RECEIPTS``).

A receipt is what every answer to a move carries: ``{"game_id", "n", "hash", "kid", "sig"}``, the table's
Ed25519 signature (key `kid`) of ``speed-event/1:<game_id>:<n>:<hash>`` (docs/audit.md, "Signatures and
receipts"). Each receipt of the export's game must verify with a published key, and the export's event `n`
must have exactly that hash. Since every event's hash covers the hash before it (`prev`), a receipt for
event n pins every event up to n: the export cannot have changed, dropped or reordered any of them.

A side move's receipt (a team signal's) carries ``team`` (k) too: it is the signature of entry `n` of team k's log,
``speed-event/1:<game_id>:team<k>:<n>:<hash>``, and is proved against that team log in the export (which must
carry it: without it the receipt cannot be proved, which is reported, never passed). The entry's hash covers its
``prev`` and its ``after_hash``, so it pins the team log up to it and the game's log up to the event it follows.

The receipts file is a JSON list; each entry is a receipt, or an object holding one under ``receipt`` (a
saved move answer, live update or ``table.cmd.play`` reply). A single object (not a list) is read as a list
of one. Receipts of other games are passed over and counted. A receipt of ``null`` (an entry, or its ``receipt``)
makes the file unusable; ``"team": null`` reads as no ``team`` (a game event's receipt).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from libs.audit.document import UnusableDocument, read_document
from libs.audit.report import CHECK_NAMES, Difference
from libs.audit.signatures import TrustedKeys, export_keys
from libs.audit.team_logs import TeamLogProblem, read_team_logs
from libs.platform.envelope import Event
from libs.platform.signing import signed_message

_RECEIPT_FIELDS: dict[str, type] = {"game_id": str, "n": int, "hash": str, "kid": str, "sig": str}


@dataclass
class ReceiptReport:
    """What the receipts proved: the events each verified receipt pins, the first difference, the others'."""

    game_id: str = ""
    proven: list[int] = field(default_factory=list)
    """The event numbers of the receipts that verified and match the export, ascending."""
    team_proven: dict[int, list[int]] = field(default_factory=dict)
    """Team -> the entry numbers of its log whose receipts verified and match the export, ascending."""
    other_games: int = 0
    """Receipts of other games, passed over."""
    differences: list[Difference] = field(default_factory=list)
    """Every receipt that does not hold (signature, missing event, other hash), in the file's order."""

    @property
    def passed(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        body = {"passed": self.passed, "game_id": self.game_id, "proven": list(self.proven),
                "pinned_up_to": max(self.proven, default=None), "other_games": self.other_games,
                "differences": [difference.to_json() for difference in self.differences]}
        if self.team_proven:
            body["team_proven"] = {str(team): list(entries) for team, entries in sorted(self.team_proven.items())}
        return body

    @property
    def count(self) -> int:
        """How many receipts of this game held (game events and team-log entries)."""
        return len(self.proven) + sum(len(entries) for entries in self.team_proven.values())

    def _pinned(self) -> str:
        """What the receipts that held pin, in German: "Ereignis 1–12", "Eintrag 1–3 von Teamprotokoll 1"."""
        parts = [f"Ereignis 1–{max(self.proven)}"] if self.proven else []
        parts += [f"Eintrag 1–{max(entries)} von Teamprotokoll {team + 1}"
                  for team, entries in sorted(self.team_proven.items())]
        return " und ".join(parts)

    def lines(self) -> list[str]:
        """The German lines: the verdict, then each receipt that does not hold."""
        name = CHECK_NAMES["receipt"]
        if self.passed and not self.count:
            lines = [f"{name}: keine Quittung dieser Partie."]
        elif self.passed:
            lines = [f"{name} bestanden: {self.count} Quittungen passen zum Export; sie belegen {self._pinned()} "
                     "(jede Quittung sichert über die Hash-Kette alle Ereignisse bis zu ihrer)."]
        else:
            lines = [f"{name} fehlgeschlagen: {len(self.differences)} von "
                     f"{len(self.differences) + self.count} Quittungen passen nicht zum Export."]
            for difference in self.differences:
                lines.append(f"  {difference.line()}")
                lines.extend(f"    {line}" for line in difference.values())
        if self.other_games:
            lines.append(f"{self.other_games} Quittungen anderer Partien übergangen.")
        return lines


def read_receipts(data: Any) -> list[dict[str, Any]]:
    """Return the receipts of a receipts file's JSON; UnusableDocument (German reason) if it holds none readable."""
    entries = data if isinstance(data, list) else [data]
    receipts = []
    for position, entry in enumerate(entries, start=1):
        receipt = entry.get("receipt") if isinstance(entry, Mapping) and "receipt" in entry else entry
        if receipt is None:
            raise UnusableDocument(f"Quittung {position} ist null: eine Antwort ohne Quittung (von einem Tisch "
                                   "ohne Schlüssel) belegt nichts und gehört nicht in die Quittungsdatei.")
        if not isinstance(receipt, Mapping):
            raise UnusableDocument(f"Quittung {position} ist kein JSON-Objekt.")
        for name, kind in _RECEIPT_FIELDS.items():
            value = receipt.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise UnusableDocument(f"Quittung {position}: Feld {name} fehlt oder hat einen falschen Typ.")
        team = receipt.get("team")
        if team is not None and (not isinstance(team, int) or isinstance(team, bool) or team < 0):
            raise UnusableDocument(f"Quittung {position}: Feld team hat einen falschen Typ.")
        receipts.append(dict(receipt))
    return receipts


def check_receipts(document: Any, receipts: list[dict[str, Any]],
                   trusted_keys: TrustedKeys | None = None) -> ReceiptReport:
    """Check `receipts` (`read_receipts`) against an export; every one that does not hold is a difference."""
    export = read_document(document)
    report = ReceiptReport(game_id=export.game_id)
    keys, difference = export_keys(export.header, trusted_keys)
    if difference is not None:
        report.differences.append(difference)
        return report
    by_n = {event.n: event for event in export.events}
    try:
        team_logs = {log.team: {entry.n: entry for entry in log.events}
                     for log in read_team_logs(export.header.get("team_logs"))}
    except TeamLogProblem:  # the audit reports that; its team receipts are then unprovable here
        team_logs = {}
    proven: set[int] = set()
    team_proven: dict[int, set[int]] = {}
    for receipt in receipts:
        if receipt["game_id"] != export.game_id:
            report.other_games += 1
            continue
        if receipt.get("team") is not None:
            difference = _team_receipt_difference(receipt, keys, team_logs)
            if difference is None:
                team_proven.setdefault(receipt["team"], set()).add(receipt["n"])
            else:
                report.differences.append(difference)
            continue
        n, kid = receipt["n"], receipt["kid"]
        key = keys.get(kid)
        if key is None:
            report.differences.append(Difference(
                "receipt", n, "kid", sorted(keys), kid,
                f"Die Quittung für Ereignis {n} ist mit dem Schlüssel {kid} signiert, den das Exportdokument "
                "nicht veröffentlicht (mit --keys lassen sich gespeicherte Schlüssel des Tisches angeben)."))
            continue
        if not key.verifies(signed_message(receipt["game_id"], n, receipt["hash"]), receipt["sig"]):
            report.differences.append(Difference(
                "receipt", n, "sig", f"Ed25519-Signatur von Schlüssel {kid}", receipt["sig"],
                f"Die Signatur der Quittung für Ereignis {n} ist ungültig: diese Quittung hat der Tisch so nicht "
                "ausgestellt."))
            continue
        event = by_n.get(n)
        if event is None:
            report.differences.append(Difference(
                "receipt", n, "n", n, max(by_n, default=0),
                f"Ereignis {n} fehlt im Export, obwohl der Tisch es quittiert hat: das Protokoll wurde gekürzt."))
            continue
        if event.hash != receipt["hash"]:
            report.differences.append(Difference(
                "receipt", n, "hash", receipt["hash"], event.hash,
                f"Ereignis {n} des Exports hat einen anderen Hash als quittiert: der Verlauf bis Ereignis {n} "
                "wurde nach der Quittung geändert."))
            continue
        proven.add(n)
    report.proven = sorted(proven)
    report.team_proven = {team: sorted(entries) for team, entries in sorted(team_proven.items())}
    return report


def _team_receipt_difference(receipt: dict[str, Any], keys: Mapping[str, Any],
                             team_logs: dict[int, dict[int, Event]]) -> Difference | None:
    """Why a side move's receipt (entry `n` of team `team`'s log) does not hold against the export, or None."""
    team, n, kid = receipt["team"], receipt["n"], receipt["kid"]
    where = f"team_logs[{team}].events[{n}]"
    label = f"Teamprotokoll {team + 1}, Eintrag {n}"
    key = keys.get(kid)
    if key is None:
        return Difference("receipt", None, f"{where}.kid", sorted(keys), kid,
                          f"{label}: die Quittung ist mit dem Schlüssel {kid} signiert, den das Exportdokument nicht "
                          "veröffentlicht (mit --keys lassen sich gespeicherte Schlüssel des Tisches angeben).")
    if not key.verifies(signed_message(receipt["game_id"], n, receipt["hash"], team), receipt["sig"]):
        return Difference("receipt", None, f"{where}.sig", f"Ed25519-Signatur von Schlüssel {kid}", receipt["sig"],
                          f"{label}: die Signatur der Quittung ist ungültig: diese Quittung hat der Tisch so nicht "
                          "ausgestellt.")
    entries = team_logs.get(team)
    if entries is None:
        return Difference("receipt", None, f"team_logs[{team}]", f"das Teamprotokoll {team + 1}", None,
                          f"{label}: der Export enthält das Teamprotokoll {team + 1} nicht, also lässt sich diese "
                          "Quittung nicht belegen (nur der Export des Betriebs oder eines Teammitglieds enthält es).")
    entry = entries.get(n)
    if entry is None:
        return Difference("receipt", None, f"{where}.n", n, max(entries, default=0),
                          f"{label} fehlt im Export, obwohl der Tisch ihn quittiert hat: das Teamprotokoll wurde "
                          "gekürzt.")
    if entry.hash != receipt["hash"]:
        return Difference("receipt", None, f"{where}.hash", receipt["hash"], entry.hash,
                          f"{label} des Exports hat einen anderen Hash als quittiert: das Teamprotokoll bis zu "
                          "diesem Eintrag wurde nach der Quittung geändert.")
    return None
