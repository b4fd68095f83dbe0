"""Check (f): every event carries the table's Ed25519 signature of its hash, by a key the export publishes.

The hash chain proves only that nobody changed a copy after it was written, and the replay only that the
history is a legal one: whoever holds the rules can write another legal history and hash it anew. The
signature proves the table wrote this one (docs/audit.md, "Signatures and receipts"). Logs written before
the table signed carry no signatures: such a prefix is reported as unsigned (a warning, not a pass claimed
as signed); an unsigned event after a signed one is a difference, since a table that signs never stops.

Which keys count: only keys pinned outside the export (`libs.audit.pins`: a saved ``GET /keys`` answer, key ids on
the command line, the player's receipts) prove the table signed; each signature must then also lie in its key's
period (from ``activated`` to ``retired``, when the pin says). With no pin the export's own ``signing_keys`` are used,
which proves only that the export is consistent, never its origin: the verdict says so. An unsigned log passes only
for a game the table did not yet sign (`libs.platform.signing.signatures_required`), and the verdict says that too.

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
from libs.audit.pins import Pins, trusted_pins
from libs.audit.replay import Progress
from libs.audit.report import AuditReport, Difference
from libs.audit.team_logs import TeamLog, TeamLogProblem, read_team_logs
from libs.platform.envelope import Event
from libs.platform.signing import (
    SIGNED_SINCE,
    KeyPeriod,
    PublicKey,
    UnusableKey,
    public_keys,
    signatures_required,
    signed_message,
)

TrustedKeys = Mapping[str, PublicKey]
"""Keys to verify with instead of the export's own (by key id)."""


def audit(document: Any, progress: Progress | None = None, trusted_keys: TrustedKeys | None = None,
          require_signatures: bool = False, pins: Pins | None = None) -> AuditReport:
    """Audit an export document (``speed-game-export/1``) and return the report (``libs.audit.audit``).

    The log's checks first (``libs.audit.check.audit``: chain, seed, replay, who did what, outcome, timeouts),
    then, when they held, (f) every event's signature: with the keys `pins` pins outside the export (and
    `trusted_keys`, public keys pinned as a saved ``GET /keys`` answer's), each within its period; with no pin, with
    the keys the export names, which proves consistency only (the report says so). Unsigned events are a warning for
    a game begun before the table signed, else a difference (with `require_signatures` always a difference). Raises
    UnusableDocument when ``document`` is no export at all.
    """
    if trusted_keys is not None:
        pins = trusted_pins(trusted_keys).merged(pins)
    report = audit_log(document, progress)
    if report.passed:  # last: what was changed is the more useful verdict (docs/audit.md, "Signatures and receipts")
        signature_check(report, read_document(document), pins, require_signatures)
    return report


def signature_check(report: AuditReport, export: ExportDocument, pins: Pins | None = None,
                    require_signatures: bool = False) -> None:
    """Run check (f) on a log that passed the others: note the keys that signed, the unsigned events and the pins
    in `report` (`signed_by`, `unsigned`, `pin`: reported apart from the log's `checks`, in the verdict and its own
    lines), and the first difference; unsigned events are a warning only for a game begun before the table signed
    (`signatures_required`) and without `require_signatures`."""
    report.pin = pins.to_json() if pins else None
    keys, periods, difference = verification_keys(export.header, pins)
    required = bool(export.events) and signatures_required(export.events[0].rules, export.events[0].at)
    if difference is None:
        findings = check_signatures(export.events, keys, periods, pins)
        difference = findings.difference
        report.signed_by, report.unsigned = findings.signed_by, findings.unsigned
        if difference is None and "team_logs" in export.header:
            difference = _team_signatures(report, export, keys, periods, pins)
        if difference is None and required and findings.unsigned:
            first = findings.unsigned[0]
            difference = Difference("signature", first, "sig", "eine Signatur des Tisches", None,
                                    f"Ereignis {first} ist nicht signiert, aber {_signed_games(export)}: die "
                                    "Signaturen wurden entfernt, oder der Tisch hat diese Partie nicht geschrieben.")
        if difference is None and required and report.team_unsigned:
            team = min(report.team_unsigned)
            difference = _team_difference(team, report.team_unsigned[team][0], "sig", "eine Signatur des Tisches",
                                          None, f"Der Eintrag ist nicht signiert, aber {_signed_games(export)}.")
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
        report.unsigned_before_signing = True
        report.warnings.append(unsigned_warning(report.unsigned, len(export.events)))
    for team, entries in sorted(report.team_unsigned.items()):
        report.warnings.append(team_unsigned_warning(team, entries, report.team_lengths.get(team, len(entries))))


def _signed_games(export: ExportDocument) -> str:
    """Why this game must be signed, in German (the clause after "aber")."""
    first = export.events[0]
    if signatures_required(first.rules, "1970-01-01T00:00:00Z"):
        return f"der Tisch signiert jede Partie mit den Regeln {first.rules} (neuer als die Signaturen)"
    return (f"der Tisch signiert jede Partie, die seit {SIGNED_SINCE} begann, und diese begann laut Protokoll "
            f"am {first.at}")


def _team_signatures(report: AuditReport, export: ExportDocument, keys: Mapping[str, PublicKey],
                     periods: Mapping[str, KeyPeriod], pins: Pins | None) -> Difference | None:
    """Check the signatures of the export's team-log entries (after the game's events held); note them in
    `report` (`team_entries`, `team_signed_by`, `team_unsigned`) and return the first difference."""
    try:
        logs = read_team_logs(export.header.get("team_logs"))
    except TeamLogProblem as problem:  # the log checks read them already: only a caller skipping those gets here
        return problem.difference
    findings = check_team_signatures(logs, export.events, keys, periods, pins)
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


def verification_keys(header: Mapping[str, Any], pins: Pins | None
                      ) -> tuple[dict[str, PublicKey], dict[str, KeyPeriod], Difference | None]:
    """Return the keys to verify with and their periods: with no pin the export's ``signing_keys`` (periods unknown),
    else only the pinned keys, each with the public half the pin gave or, for a key id pinned alone, the one the
    export publishes under it (its id is its digest, checked on reading). An export publishing a pinned key id with
    another public key than the pin's is a difference; an unusable export key too."""
    try:
        named = public_keys(header.get("signing_keys") or [])
    except UnusableKey as error:
        return {}, {}, Difference("document", None, "signing_keys", "veröffentlichte Ed25519-Schlüssel",
                                  header.get("signing_keys"), f"Ein Schlüssel des Exportdokuments ist unbrauchbar: "
                                                              f"{error}")
    if not pins:
        return named, {}, None
    keys: dict[str, PublicKey] = {}
    periods: dict[str, KeyPeriod] = {}
    for kid, pinned in pins.keys.items():
        published = named.get(kid)
        if pinned.key is not None and published is not None and pinned.key.raw != published.raw:
            return {}, {}, Difference("document", None, f"signing_keys[{kid}]", pinned.key.raw.hex(),
                                      published.raw.hex(), f"Das Exportdokument veröffentlicht den Schlüssel {kid} "
                                                           "anders als die festgelegten Schlüssel.")
        key = pinned.key or published
        if key is not None:
            keys[kid] = key
            periods[kid] = pinned.period
    return keys, periods, None


def _unknown_key_reason(what: str, kid: str, pins: Pins | None) -> str:
    """Why a signature by key `kid` proves nothing, in German (`what`: "Ereignis 7", "Der Eintrag")."""
    if pins and kid in pins.keys:
        return (f"{what} ist mit dem festgelegten Schlüssel {kid} signiert, dessen öffentlichen Teil weder die "
                "festgelegten Schlüssel noch das Exportdokument nennen: die Signatur lässt sich nicht prüfen.")
    if pins:
        return (f"{what} ist mit dem Schlüssel {kid} signiert, der nicht unter den festgelegten Schlüsseln des "
                f"Tisches ist ({pins.shown()}): die Signatur belegt nicht, dass der Tisch es schrieb.")
    return (f"{what} ist mit dem Schlüssel {kid} signiert, der weder veröffentlicht noch vertraut ist: "
            "die Signatur belegt nichts.")


def _outside_period(what: str, kid: str, at: str, period: KeyPeriod) -> str:
    """Why a signature made outside its key's period proves nothing, in German."""
    return (f"{what} (Zeitpunkt {at}) ist mit dem Schlüssel {kid} signiert, der nur {period.shown()} gültig ist: "
            "außerhalb seines Zeitraums signiert der Tisch mit ihm nicht.")


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


def check_signatures(events: list[Event], keys: Mapping[str, PublicKey],
                     periods: Mapping[str, KeyPeriod] | None = None, pins: Pins | None = None) -> SignatureFindings:
    """Check every event's signature with `keys`, each made within its key's period (`periods`); stop at the first
    difference (`pins`: what pinned the keys, for its German reason)."""
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
            findings.difference = Difference("signature", event.n, "sig.kid", sorted(keys), kid,
                                             _unknown_key_reason(f"Ereignis {event.n}", kid, pins))
            return findings
        if not key.verifies(signed_message(event.game_id, event.n, event.hash), sig["sig"]):
            findings.difference = Difference(
                "signature", event.n, "sig.sig", f"Ed25519-Signatur von Schlüssel {kid} über den Hash", sig["sig"],
                f"Die Signatur von Ereignis {event.n} passt nicht zu seinem Hash: dieses Ereignis hat der "
                "Tisch so nicht signiert (nachträglich geändert oder neu geschrieben).")
            return findings
        period = (periods or {}).get(kid)
        if period is not None and not period.covers(event.at):
            findings.difference = Difference("signature", event.n, "at", {"kid": kid, **period.to_json()}, event.at,
                                             _outside_period(f"Ereignis {event.n}", kid, event.at, period))
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


def check_team_signatures(logs: list[TeamLog], game: list[Event], keys: Mapping[str, PublicKey],
                          periods: Mapping[str, KeyPeriod] | None = None,
                          pins: Pins | None = None) -> TeamSignatureFindings:
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
                findings.difference = _team_difference(log.team, entry.n, "sig.kid", sorted(keys), kid,
                                                       _unknown_key_reason("Der Eintrag", kid, pins))
                return findings
            if not key.verifies(signed_message(entry.game_id, entry.n, entry.hash, log.team), sig["sig"]):
                findings.difference = _team_difference(
                    log.team, entry.n, "sig.sig", f"Ed25519-Signatur von Schlüssel {kid} über den Hash", sig["sig"],
                    "Die Signatur des Eintrags passt nicht zu seinem Hash: diesen Eintrag hat der Tisch so nicht "
                    "signiert (nachträglich geändert oder neu geschrieben).")
                return findings
            period = (periods or {}).get(kid)
            if period is not None and not period.covers(entry.at):
                findings.difference = _team_difference(log.team, entry.n, "at", {"kid": kid, **period.to_json()},
                                                       entry.at, _outside_period("Der Eintrag", kid, entry.at, period))
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
        return ("Die Ereignisse dieser Partie sind nicht signiert (die Partie begann, bevor der Tisch signierte: "
                f"Regeln von vor den Signaturen, Beginn vor {SIGNED_SINCE}): sie belegen nur Hash-Kette, Saat und "
                "Regeln, nicht, dass der Tisch genau diesen Verlauf schrieb.")
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
