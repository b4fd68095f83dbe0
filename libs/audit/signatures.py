"""Check (f): every event carries the table's Ed25519 signature of its hash, by a key the export publishes.

The hash chain proves only that nobody changed a copy after it was written, and the replay only that the
history is a legal one: whoever holds the rules can write another legal history and hash it anew. The
signature proves the table wrote this one (docs/audit.md, "Signatures and receipts"). Logs written before
the table signed carry no signatures: such a prefix is reported as unsigned (a warning, not a pass claimed
as signed); an unsigned event after a signed one is a difference, since a table that signs never stops.

The entries of the team logs an export carries (side moves) are checked the same way, with the same keys, each
over its team's message (``speed-event/1:<game_id>:team<k>:<n>:<hash>``): an entry is written after the game
event it follows (``after``) and before the next one, so an unsigned entry after a signed entry of its log or
after a signed game event, and an unsigned game event after a signed entry, are differences too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from libs.audit.check import audit as audit_log
from libs.audit.document import ExportDocument, read_document
from libs.audit.replay import Progress
from libs.audit.report import AuditReport, Difference
from libs.audit.team_logs import TeamLog, TeamLogProblem, read_team_logs
from libs.platform.envelope import Event
from libs.platform.signing import PublicKey, UnusableKey, public_keys, signed_message

TrustedKeys = Mapping[str, PublicKey]
"""Keys to verify with instead of the export's own (by key id)."""


def audit(document: Any, progress: Progress | None = None, trusted_keys: TrustedKeys | None = None,
          require_signatures: bool = False) -> AuditReport:
    """Audit an export document (``speed-game-export/1``) and return the report (``libs.audit.audit``).

    The log's checks first (``libs.audit.check.audit``: chain, seed, replay, who did what, outcome, timeouts),
    then, when they held, (f) every event's signature, with the keys the export publishes or, when given, only
    with `trusted_keys` (e.g. a saved ``GET /keys`` answer); unsigned events are a warning, or with
    `require_signatures` a difference. Raises UnusableDocument when ``document`` is no export at all.
    """
    report = audit_log(document, progress)
    if report.passed:  # last: what was changed is the more useful verdict (docs/audit.md, "Signatures and receipts")
        signature_check(report, read_document(document), trusted_keys, require_signatures)
    return report


def signature_check(report: AuditReport, export: ExportDocument, trusted: TrustedKeys | None = None,
                    require_signatures: bool = False) -> None:
    """Run check (f) on a log that passed the others: note the keys that signed and the unsigned events in
    `report` (`signed_by`, `unsigned`: reported apart from the log's `checks`, in the verdict and its own
    lines), and the first difference; unsigned events are a warning unless `require_signatures`."""
    keys, difference = export_keys(export.header, trusted)
    if difference is None:
        findings = check_signatures(export.events, keys)
        difference = findings.difference
        report.signed_by, report.unsigned = findings.signed_by, findings.unsigned
        if difference is None and "team_logs" in export.header:
            difference = _team_signatures(report, export, keys)
        if difference is None and require_signatures and findings.unsigned:
            first = findings.unsigned[0]
            difference = Difference("signature", first, "sig", "eine Signatur des Tisches", None,
                                    f"Ereignis {first} ist nicht signiert; verlangt war, dass jedes Ereignis "
                                    "signiert ist.")
        if difference is None and require_signatures and report.team_unsigned:
            team = min(report.team_unsigned)
            first = report.team_unsigned[team][0]
            difference = _team_difference(team, first, "sig", "eine Signatur des Tisches", None,
                                          "Der Eintrag ist nicht signiert; verlangt war, dass jedes Ereignis und "
                                          "jeder Teameintrag signiert ist.")
    if difference is not None:
        report.difference = difference
        return
    if report.unsigned:
        report.warnings.append(unsigned_warning(report.unsigned, len(export.events)))
    for team, entries in sorted(report.team_unsigned.items()):
        report.warnings.append(team_unsigned_warning(team, entries, report.team_lengths.get(team, len(entries))))


def _team_signatures(report: AuditReport, export: ExportDocument, keys: Mapping[str, PublicKey]) -> Difference | None:
    """Check the signatures of the export's team-log entries (after the game's events held); note them in
    `report` (`team_entries`, `team_signed_by`, `team_unsigned`) and return the first difference."""
    try:
        logs = read_team_logs(export.header.get("team_logs"))
    except TeamLogProblem as problem:  # the log checks read them already: only a caller skipping those gets here
        return problem.difference
    findings = check_team_signatures(logs, export.events, keys)
    report.team_entries = sum(len(log.events) for log in logs)
    report.team_lengths = {log.team: len(log.events) for log in logs}
    report.team_signed_by, report.team_unsigned = findings.signed_by, findings.unsigned
    return findings.difference


@dataclass
class SignatureFindings:
    """What check (f) found: the first difference, the events each key signed, the unsigned events."""

    difference: Difference | None = None
    signed_by: dict[str, int] = field(default_factory=dict)
    """Key id -> how many events it signed."""
    unsigned: list[int] = field(default_factory=list)
    keys: dict[str, PublicKey] = field(default_factory=dict)
    """The keys the signatures were checked with (the export's, with any trusted ones)."""


def export_keys(header: Mapping[str, Any],
                trusted: TrustedKeys | None = None) -> tuple[dict[str, PublicKey], Difference | None]:
    """Return the keys to verify with: the export's ``signing_keys``, or, when `trusted` keys are given (a saved
    ``GET /keys`` answer), those alone: a key only the export names then verifies nothing, and one it publishes
    differently from the trusted key with the same id is a difference."""
    try:
        keys = public_keys(header.get("signing_keys") or [])
    except UnusableKey as error:
        return {}, Difference("document", None, "signing_keys", "veröffentlichte Ed25519-Schlüssel",
                              header.get("signing_keys"), f"Ein Schlüssel des Exportdokuments ist unbrauchbar: {error}")
    if trusted is None:
        return keys, None
    for kid, key in keys.items():
        if kid in trusted and trusted[kid].raw != key.raw:
            return {}, Difference("document", None, f"signing_keys[{kid}]", trusted[kid].raw.hex(), key.raw.hex(),
                                  f"Das Exportdokument veröffentlicht den Schlüssel {kid} anders als die "
                                  "vertrauten Schlüssel.")
    return dict(trusted), None


def check_signatures(events: list[Event], keys: Mapping[str, PublicKey]) -> SignatureFindings:
    """Check every event's signature with `keys`; stop at the first difference."""
    findings = SignatureFindings(keys=dict(keys))
    for event in events:
        sig: Any = event.sig
        if sig is None:
            if findings.signed_by:
                findings.difference = Difference(
                    "signature", event.n, "sig", "eine Signatur des Tisches", None,
                    f"Ereignis {event.n} ist nicht signiert, obwohl frühere Ereignisse der Partie es sind: "
                    "der Tisch hat es so nicht geschrieben.")
                return findings
            findings.unsigned.append(event.n)
            continue
        if not isinstance(sig, Mapping) or not isinstance(sig.get("kid"), str) or not isinstance(sig.get("sig"), str):
            findings.difference = Difference("signature", event.n, "sig", {"kid": "…", "sig": "…"}, sig,
                                             f"Die Signatur von Ereignis {event.n} ist unlesbar.")
            return findings
        kid = sig["kid"]
        key = keys.get(kid)
        if key is None:
            findings.difference = Difference(
                "signature", event.n, "sig.kid", sorted(keys), kid,
                f"Ereignis {event.n} ist mit dem Schlüssel {kid} signiert, der weder veröffentlicht noch "
                "vertraut ist: die Signatur belegt nichts.")
            return findings
        if not key.verifies(signed_message(event.game_id, event.n, event.hash), sig["sig"]):
            findings.difference = Difference(
                "signature", event.n, "sig.sig", f"Ed25519-Signatur von Schlüssel {kid} über den Hash", sig["sig"],
                f"Die Signatur von Ereignis {event.n} passt nicht zu seinem Hash: dieses Ereignis hat der "
                "Tisch so nicht signiert (nachträglich geändert oder neu geschrieben).")
            return findings
        findings.signed_by[kid] = findings.signed_by.get(kid, 0) + 1
    return findings


@dataclass
class TeamSignatureFindings:
    """What the signatures of the team logs' entries showed: the first difference, the entries each key signed
    (all teams together), the unsigned entries per team."""

    difference: Difference | None = None
    signed_by: dict[str, int] = field(default_factory=dict)
    unsigned: dict[int, list[int]] = field(default_factory=dict)


def _team_difference(team: int, n: int, name: str, expected: Any, found: Any, reason: str) -> Difference:
    """A difference of a team-log entry's signature, named as the team-log check names its fields."""
    return Difference("signature", None, f"team_logs[{team}].events[{n}].{name}", expected, found,
                      f"Teamprotokoll {team + 1}, Eintrag {n}: {reason}")


def check_team_signatures(logs: list[TeamLog], game: list[Event],
                          keys: Mapping[str, PublicKey]) -> TeamSignatureFindings:
    """Check every team-log entry's signature (over ``speed-event/1:<game_id>:team<k>:<n>:<hash>``) with `keys`;
    stop at the first difference. An entry follows game event ``after`` and precedes event ``after + 1`` in the
    order the table wrote them, so a signature missing after a signed entry of its log, after a signed game
    event ``after``, or from game event ``after + 1`` after a signed entry, was stripped (or the entry slipped in)."""
    findings = TeamSignatureFindings()
    game_signed = {event.n: event.sig is not None for event in game}
    for log in logs:
        signed_before = False
        for entry in log.events:
            after = entry.data.get("after")
            sig: Any = entry.sig
            if sig is None:
                if signed_before or (isinstance(after, int) and game_signed.get(after)):
                    earlier = ("frühere Einträge des Teamprotokolls es sind" if signed_before
                               else f"Ereignis {after} des Spielprotokolls, dem er folgt, es ist")
                    findings.difference = _team_difference(
                        log.team, entry.n, "sig", "eine Signatur des Tisches", None,
                        f"Der Eintrag ist nicht signiert, obwohl {earlier}: der Tisch hat ihn so nicht geschrieben.")
                    return findings
                findings.unsigned.setdefault(log.team, []).append(entry.n)
                continue
            if not isinstance(sig, Mapping) or not isinstance(sig.get("kid"), str) \
                    or not isinstance(sig.get("sig"), str):
                findings.difference = _team_difference(log.team, entry.n, "sig", {"kid": "…", "sig": "…"}, sig,
                                                       "Die Signatur des Eintrags ist unlesbar.")
                return findings
            kid = sig["kid"]
            key = keys.get(kid)
            if key is None:
                findings.difference = _team_difference(
                    log.team, entry.n, "sig.kid", sorted(keys), kid,
                    f"Der Eintrag ist mit dem Schlüssel {kid} signiert, der weder veröffentlicht noch vertraut ist: "
                    "die Signatur belegt nichts.")
                return findings
            if not key.verifies(signed_message(entry.game_id, entry.n, entry.hash, log.team), sig["sig"]):
                findings.difference = _team_difference(
                    log.team, entry.n, "sig.sig", f"Ed25519-Signatur von Schlüssel {kid} über den Hash", sig["sig"],
                    "Die Signatur des Eintrags passt nicht zu seinem Hash: diesen Eintrag hat der Tisch so nicht "
                    "signiert (nachträglich geändert oder neu geschrieben).")
                return findings
            signed_before = True
            findings.signed_by[kid] = findings.signed_by.get(kid, 0) + 1
            following = after + 1 if isinstance(after, int) else None
            if following is not None and game_signed.get(following) is False:
                findings.difference = Difference(
                    "signature", following, "sig", "eine Signatur des Tisches", None,
                    f"Ereignis {following} ist nicht signiert, obwohl Eintrag {entry.n} von Teamprotokoll "
                    f"{log.team + 1}, der ihm vorausgeht, es ist: der Tisch hat es so nicht geschrieben.")
                return findings
    return findings


def team_unsigned_warning(team: int, unsigned: list[int], total: int) -> str:
    """The German warning for a team log's entries without a signature (written before the table signed them)."""
    if len(unsigned) == total:
        return (f"Die Einträge von Teamprotokoll {team + 1} sind nicht signiert (geschrieben, bevor der Tisch "
                "signierte): sie belegen nur Hash-Kette und Regeln, nicht, dass der Tisch genau diese Signale "
                "schrieb.")
    return (f"Teamprotokoll {team + 1}: Eintrag {_ranges(unsigned)} ist nicht signiert (geschrieben, bevor der Tisch "
            "signierte); die späteren sind es.")


def unsigned_warning(unsigned: list[int], total: int) -> str:
    """The German warning for events without a signature (written before the table signed)."""
    if len(unsigned) == total:
        return ("Die Ereignisse dieser Partie sind nicht signiert (geschrieben, bevor der Tisch signierte): "
                "sie belegen nur Hash-Kette, Saat und Regeln, nicht, dass der Tisch genau diesen Verlauf schrieb.")
    return (f"Ereignis {_ranges(unsigned)} ist nicht signiert (geschrieben, bevor der Tisch signierte); "
            "die späteren sind es.")


def _ranges(numbers: list[int]) -> str:
    """1, 2, 3, 7 -> "1–3, 7"."""
    parts: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}–{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)
