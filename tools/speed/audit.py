"""Audit a finished game's export (a file, or a game fetched from the table): chain, seed, replay, outcome, signatures.

With --receipts, a player's kept move receipts are proved against the export too (libs/audit/receipts.py).
The signatures prove the table wrote the log only against keys pinned outside the export (libs/audit/pins.py):
--keys (a saved GET /keys answer), --key-id (repeatable), or the key ids of the receipts. Without a pin a signed
export that is consistent passes (exit 0) with the warning that its origin is not proven.
Exit status: 0 the audit (and every receipt) passed, 1 it found a difference, 2 the input is unusable (no
file, no export, an unusable key file or key id, the table refused or cannot be reached).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

import httpx

from libs.audit import UnusableDocument, audit
from libs.audit.document import read_document, read_json
from libs.audit.pins import Pins, key_id_pins, keys_answer_pins, receipt_pins
from libs.audit.receipts import check_receipts, read_receipts
from libs.devservers.processes import DEFAULT_PORTS
from libs.platform.signing import PublicKey, UnusableKey

PASSED, FAILED, UNUSABLE = 0, 1, 2
DEFAULT_TABLE_URL = f"http://127.0.0.1:{DEFAULT_PORTS['table']}"
"""The table's API as `make run` starts it (TABLE_URL overrides it)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The export (file or game id), where the table is, the token, progress and JSON output."""
    parser.add_argument("source", metavar="FILE|GAME_ID",
                        help="Pfad zu einem Export (JSON) oder die Id einer beendeten Partie")
    parser.add_argument("--table-url", default=os.environ.get("TABLE_URL", DEFAULT_TABLE_URL),
                        help=f"Adresse des Tisches (Vorgabe: $TABLE_URL oder {DEFAULT_TABLE_URL})")
    parser.add_argument("--token", default=os.environ.get("SPEED_TOKEN"),
                        help="Bearer-Token (Spieler oder Betrieb); ohne: ein Betriebs-Token aus AUTH_SECRET")
    parser.add_argument("--progress", action="store_true",
                        help="Fortschritt auf stderr zeigen (ohnehin, wenn stderr ein Terminal ist)")
    parser.add_argument("--json", action="store_true", help="den Bericht als JSON ausgeben")
    parser.add_argument("--save", metavar="FILE", help="den vom Tisch geholten Export hier speichern")
    parser.add_argument("--receipts", metavar="FILE",
                        help="gespeicherte Quittungen (JSON-Liste) gegen den Export prüfen")
    parser.add_argument("--keys", metavar="FILE",
                        help="festgelegte Schlüssel des Tisches (gespeicherte Antwort von GET /keys): nur mit ihnen "
                             "prüfen, jede Signatur in der Gültigkeit ihres Schlüssels")
    parser.add_argument("--key-id", metavar="KID", action="append", default=[],
                        help="Kennung eines Tischschlüssels festlegen (16 Hex-Ziffern; mehrfach möglich); den "
                             "öffentlichen Teil darf der Export liefern, wenn die Kennung sein Hash ist")
    parser.add_argument("--signed", action="store_true",
                        help="jedes Ereignis muss signiert sein (sonst nur ein Hinweis auf unsignierte Ereignisse)")


def run(args: argparse.Namespace) -> int:
    """Audit the export; print the verdict, the first difference and the timeout moves; return the exit status."""
    try:
        document = _load(args)
    except UnusableInput as error:
        print(f"Prüfung nicht möglich: {error}", file=sys.stderr)
        return UNUSABLE
    show_progress = args.progress or sys.stderr.isatty()
    try:
        trusted, receipts = receipt_inputs(args)
        pins = audit_pins(args, document, receipts)
        report = audit(document, progress=_progress_printer(sys.stderr) if show_progress else None,
                       require_signatures=args.signed, pins=pins)
        proved = None if receipts is None else check_receipts(document, receipts, trusted)
    except UnusableDocument as error:
        print(f"Prüfung nicht möglich: {error}", file=sys.stderr)
        return UNUSABLE
    if show_progress and sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        body = report.to_json()
        if proved is not None:
            body["receipts"] = proved.to_json()
        print(json.dumps(body, ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.lines() + ([] if proved is None else proved.lines())))
    return PASSED if report.passed and (proved is None or proved.passed) else FAILED


def receipt_inputs(args: argparse.Namespace) -> tuple[dict[str, PublicKey] | None, list[dict[str, Any]] | None]:
    """The keys of --keys (a saved `GET /keys` answer, or its list of keys), the receipts are verified with, and the
    receipts (--receipts); None for either not given. UnusableDocument when a file cannot be read."""
    trusted = None
    if args.keys:
        trusted = {kid: pinned.key for kid, pinned in _keys_file_pins(args.keys).keys.items()
                   if pinned.key is not None}
    receipts = read_receipts(_json_file(args.receipts, "Quittungsdatei")) if args.receipts else None
    return trusted, receipts


def audit_pins(args: argparse.Namespace, document: Any, receipts: list[dict[str, Any]] | None) -> Pins | None:
    """The keys pinned outside the export: --keys (with each key's history), --key-id, and the key ids of the
    receipts of this game; None when nothing pins a key. UnusableDocument for an unusable key file or key id."""
    pins = Pins()
    if args.keys:
        pins = pins.merged(_keys_file_pins(args.keys))
    try:
        pins = pins.merged(key_id_pins(args.key_id))
    except UnusableKey as error:
        raise UnusableDocument(f"--key-id: {error}") from None
    if receipts is not None:
        pins = pins.merged(receipt_pins(receipts, read_document(document).game_id))
    return pins or None


def _keys_file_pins(path: str) -> Pins:
    try:
        return keys_answer_pins(_json_file(path, "Schlüsseldatei"))
    except UnusableKey as error:
        raise UnusableDocument(f"Die Schlüsseldatei {path} ist unbrauchbar: {error}") from None


def _json_file(path: str, what: str) -> Any:
    try:
        return read_json(Path(path).read_bytes(), f"Die {what} {path}")
    except OSError as error:
        raise UnusableDocument(f"Die {what} {path} lässt sich nicht lesen ({error.strerror}).") from None


class UnusableInput(Exception):
    """The export could not be read or fetched (German reason)."""


def _load(args: argparse.Namespace) -> Any:
    """Return the export document from the file named, or fetched from the table for a game id."""
    path = Path(args.source)
    if path.exists() or os.sep in args.source or args.source.endswith(".json"):
        try:
            return read_json(path.read_bytes(), f"Die Datei {args.source}")
        except OSError as error:
            raise UnusableInput(f"Die Datei {args.source} lässt sich nicht lesen ({error.strerror}).") from None
        except UnusableDocument as error:
            raise UnusableInput(str(error)) from None
    document = _fetch(args.table_url.rstrip("/"), args.source, args.token or _operator_token())
    if args.save:
        Path(args.save).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return document


def _operator_token() -> str:
    """Return an operator token minted from AUTH_SECRET (as `speed operator-token` does)."""
    from libs.platform.auth import issue_operator_token
    from libs.platform.settings import get_settings

    try:
        return issue_operator_token(get_settings().auth_secret, "speed-audit", hours=1)
    except Exception as error:  # no usable secret configured
        raise UnusableInput(f"Ohne --token braucht es AUTH_SECRET für ein Betriebs-Token ({error}).") from None


def _fetch(table_url: str, game_id: str, token: str) -> Any:
    """Return the export of ``game_id`` from the table; raise UnusableInput with the table's reason."""
    url = f"{table_url}/games/{game_id}/export"
    try:
        answer = httpx.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
    except httpx.HTTPError as error:
        raise UnusableInput(f"Der Tisch unter {table_url} ist nicht erreichbar ({error}).") from None
    if answer.status_code != 200:
        try:
            reason = answer.json().get("detail")
        except ValueError:
            reason = answer.text[:200]
        raise UnusableInput(f"Der Tisch verweigert den Export ({answer.status_code}): {reason}")
    try:
        return read_json(answer.content, "Der Export des Tisches")
    except UnusableDocument as error:
        raise UnusableInput(str(error)) from None


def _progress_printer(stream: TextIO) -> Any:
    """Return a progress callback: on a terminal one line rewritten ("Ereignis 120/480"), elsewhere a line
    per tenth of the log and one at its end."""
    is_terminal = stream.isatty()
    shown = [0]

    def show(done: int, total: int) -> None:
        if is_terminal:
            stream.write(f"\rEreignis {done}/{total}")
        elif done == total or done * 10 // total > shown[0] * 10 // total:
            stream.write(f"Ereignis {done}/{total}\n")
            shown[0] = done
        else:
            return
        stream.flush()

    return show
