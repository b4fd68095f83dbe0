"""``audit``: the checks in their order, stopping at the first difference."""

from __future__ import annotations

from typing import Any

from libs.audit.chain import chain_difference
from libs.audit.document import ExportDocument, read_document
from libs.audit.replay import Progress, Stop, replay_log
from libs.audit.report import AuditReport, Difference
from libs.audit.seeds import commitment
from libs.platform.envelope import EventType
from libs.platform.private import PRIVATE, digest_of, is_sealed, salt_for


def audit(document: Any, progress: Progress | None = None) -> AuditReport:
    """Audit an export document (``speed-game-export/1``) and return the report.

    In order: (a) the hash chain, (b) the seed against its commitment, (c) the replay of every move with
    the named rule version, (d) the final outcome, (e) the list of timeout moves. The report names the
    first difference found (the checks after it do not run). Raises UnusableDocument when ``document`` is
    no export at all. ``progress(done, total)`` is called while the moves are replayed.
    """
    export = read_document(document)
    report = AuditReport(game_id=export.game_id, events=len(export.events),
                         scope=str(export.header.get("scope", "")),
                         rules=str(export.events[0].rules))
    difference = chain_difference(export.events, export.game_id)
    if difference is not None:
        report.difference = difference
        return report
    report.checks.append("chain")
    seed, difference = _seed(export)
    if difference is not None or seed is None:
        report.difference = difference
        return report
    report.checks.append("seed")
    difference = _header(export)
    if difference is not None:
        report.difference = difference
        return report
    try:
        replay_log(export.events, seed, report, progress)
    except Stop as stop:
        report.difference = stop.difference
        return report
    report.checks.extend(["replay", "outcome", "timeout"])
    early = [move.n for move in report.timeouts if move.early]
    if early:
        report.warnings.append("Zeitüberschreitung laut Zeitstempel vor Ablauf der Bedenkzeit in Ereignis "
                               + ", ".join(map(str, early))
                               + " (die Uhr des schreibenden Tisches kann abweichen).")
    return report


def _seed(export: ExportDocument) -> tuple[bytes | None, Difference | None]:
    """Return the revealed seed, or the difference: it must match GameStarted's commitment and its seal."""
    started, last = export.events[0], export.events[-1]
    ended_seed = last.data.get("seed") if last.type == EventType.GAME_ENDED else None
    given = export.header.get("seed")
    if ended_seed and given and given != ended_seed:
        return None, Difference("document", None, "seed", ended_seed, given,
                                "Die Saat im Kopf des Dokuments ist nicht die aus GameEnded.")
    revealed = ended_seed or given
    if not isinstance(revealed, str) or not revealed:
        return None, Difference("seed", last.n, "data.seed", "die offengelegte Saat", revealed,
                                "Die Saat ist nicht offengelegt: ohne sie lässt sich nichts nachspielen.")
    try:
        seed = bytes.fromhex(revealed)
    except ValueError:
        return None, Difference("seed", last.n, "data.seed", "Hex-Zeichen", revealed, "Die Saat ist kein Hex.")
    committed, expected_commitment = started.data.get("seed_commitment"), commitment(seed)
    if expected_commitment != committed:
        return None, Difference("seed", 1, "data.seed_commitment", expected_commitment, committed,
                                "Die offengelegte Saat passt nicht zu ihrer Festlegung (SHA-256) in GameStarted.")
    sealed: Any = started.data.get("seed")
    if is_sealed(sealed):
        expected = digest_of(revealed, salt_for(seed, started.game_id, 1, 0))
        if sealed[PRIVATE].get("digest") != expected:
            return None, Difference("seed", 1, "data.seed", expected, sealed[PRIVATE].get("digest"),
                                    "Die offengelegte Saat passt nicht zur versiegelten Saat in GameStarted.")
    elif sealed is not None and sealed != revealed:  # logs before seeds were sealed carry it in plain
        return None, Difference("seed", 1, "data.seed", revealed, sealed,
                                "Die offengelegte Saat ist nicht die aus GameStarted.")
    return seed, None


def _header(export: ExportDocument) -> Difference | None:
    """The document's header names what its log says (rules, commitment); the log decides."""
    started = export.events[0]
    rules = export.header.get("rules")
    named = rules.get("id") if isinstance(rules, dict) else rules
    if named is not None and named != started.rules:
        return Difference("document", None, "rules.id", started.rules, named,
                          "Der Kopf des Dokuments nennt eine andere Regelversion als das Protokoll.")
    for key in ("game", "settings"):
        if key in export.header and export.header[key] != started.data.get(key):
            return Difference("document", None, key, started.data.get(key), export.header[key],
                              f"Der Kopf des Dokuments nennt andere Angaben ({key}) als GameStarted.")
    committed = export.header.get("seed_commitment")
    if committed is not None and committed != started.data.get("seed_commitment"):
        return Difference("document", None, "seed_commitment", started.data.get("seed_commitment"), committed,
                          "Der Kopf des Dokuments nennt eine andere Festlegung der Saat als das Protokoll.")
    return None
