"""Write the key vectors of docs/audit.md (tests/audit/vectors/key_rotation.json, forgery_<kind>.json): a real game
signed with a key that rotates mid-game, the table's published key history, and the forgeries the audit refuses,
each with the pins given and the verdict `speed audit` must give (issue 36, point 1).

Deterministic: the game is the golden Speedmosaik export (tests/audit/golden/speedmosaik_v1.json, a real game),
moved 14 days later (every ``at`` and ``exported_at``; the chain hashed anew) so that it began after the table signs
every game (``SIGNED_SINCE``); the keys are Ed25519 keys from fixed seeds and Ed25519 signatures are deterministic,
so every run writes the same bytes (``test_key_vectors.py`` checks that, and that the audit gives each verdict).

Each file: ``{"description", "export", "cases": [{"pins", "verdict"}]}``; ``pins``: ``{"keys_file"`` (a saved
``GET /keys`` answer, or null), ``"key_ids"`` (``--key-id``), ``"receipts"`` (``--receipts``, or null)``}``;
``verdict``: ``{"exit_status", "passed", "check", "n", "field"`` (the first difference's; null when passed),
``"origin_proven", "pinned_by"}``. Run ``.venv/bin/python -m tests.audit.make_key_vectors``.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from libs.platform.signing import (
    SIGNATURE_CONTEXT,
    Keyring,
    activated,
    key_id,
    new_key_file,
    parse_time,
    retired,
    signed_message,
    with_new_key,
)
from tests.audit.forgery import _rehash_chain

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors"
BASE = HERE / "golden" / "speedmosaik_v1.json"
SHIFT = timedelta(days=14)
ROTATE_AFTER = 20
"""Events 1–20 are signed by the first table key, the rest by the second (the rotation mid-game)."""


def _private(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"speed key vector: {label}".encode()).digest())


TABLE_OLD, TABLE_NEW, FORGER = _private("table key 1"), _private("table key 2"), _private("forger")


def _raw(private: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def kid_of(private: Ed25519PrivateKey) -> str:
    return key_id(_raw(private))


def _stamp(text: str, shift: timedelta = SHIFT) -> str:
    moment = parse_time(text)
    assert moment is not None
    return (moment + shift).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def base_export() -> dict[str, Any]:
    """The golden Speedmosaik game, begun 14 days later (after `SIGNED_SINCE`), chain hashed anew, unsigned."""
    document: dict[str, Any] = json.loads(BASE.read_text(encoding="utf-8"))
    for event in document["events"]:
        event["at"] = _stamp(event["at"])
    document["exported_at"] = _stamp(document["exported_at"])
    _rehash_chain(document, 1)
    return document


def key_history(export: dict[str, Any]) -> dict[str, Any]:
    """The table's ``GET /keys`` answer after the rotation, made with the key-file tools: key 1 made and active a
    week before the game, key 2 added the day before, activated at the first event it signs, key 1 retired at the
    last event it signed."""
    events = export["events"]
    first_new, last_old = parse_time(events[ROTATE_AFTER]["at"]), parse_time(events[ROTATE_AFTER - 1]["at"])
    start = parse_time(events[0]["at"])
    assert first_new is not None and last_old is not None and start is not None
    file = new_key_file(start - timedelta(days=7), TABLE_OLD)
    file = with_new_key(file, start - timedelta(days=1), TABLE_NEW)
    file = activated(file, kid_of(TABLE_NEW), now=first_new)
    file = retired(file, kid_of(TABLE_OLD), now=last_old)
    keyring = Keyring.from_json(file)
    return {"signed_message": f"{SIGNATURE_CONTEXT}:<game_id>:<n>:<hash>",
            "team_signed_message": f"{SIGNATURE_CONTEXT}:<game_id>:team<k>:<n>:<hash>",
            "active": keyring.active, "keys": keyring.published()}


def _published(private: Ed25519PrivateKey, kid: str | None = None) -> dict[str, str]:
    return {"kid": kid or kid_of(private), "alg": "Ed25519", "public_key": _raw(private).hex()}


def signed(export: dict[str, Any], signer: Callable[[int], Ed25519PrivateKey],
           named_kid: Callable[[Ed25519PrivateKey], str] = kid_of) -> dict[str, Any]:
    """`export` with every event signed by ``signer(n)`` under key id ``named_kid(key)``, ``signing_keys`` naming
    those keys (under those ids)."""
    document = copy.deepcopy(export)
    used: dict[str, Ed25519PrivateKey] = {}
    for event in document["events"]:
        private = signer(event["n"])
        kid = named_kid(private)
        used[kid] = private
        event["sig"] = {"kid": kid, "sig": private.sign(signed_message(event["game_id"], event["n"],
                                                                         event["hash"])).hex()}
    document["signing_keys"] = [_published(private, kid) for kid, private in used.items()]
    return document


def _rotating(n: int) -> Ed25519PrivateKey:
    return TABLE_OLD if n <= ROTATE_AFTER else TABLE_NEW


def receipts_of(document: dict[str, Any], numbers: list[int]) -> list[dict[str, Any]]:
    """The receipts a player kept of events `numbers` (as every answer to a move carries them)."""
    events = {event["n"]: event for event in document["events"]}
    return [{"game_id": events[n]["game_id"], "n": n, "hash": events[n]["hash"], "kid": events[n]["sig"]["kid"],
             "sig": events[n]["sig"]["sig"]} for n in numbers]


def pins(keys_file: dict[str, Any] | None = None, key_ids: list[str] | None = None,
         receipts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"keys_file": keys_file, "key_ids": list(key_ids or []), "receipts": receipts}


def run_audit(export: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """Run ``speed audit FILE --json`` with the pins `given` as a user would (files in a temporary folder) and
    return the verdict as the vectors hold it."""
    from tools.speed.cli import main as speed

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        (path / "export.json").write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
        argv = ["audit", str(path / "export.json"), "--json"]
        if given["keys_file"] is not None:
            (path / "keys.json").write_text(json.dumps(given["keys_file"]), encoding="utf-8")
            argv += ["--keys", str(path / "keys.json")]
        for kid in given["key_ids"]:
            argv += ["--key-id", kid]
        if given["receipts"] is not None:
            (path / "receipts.json").write_text(json.dumps(given["receipts"]), encoding="utf-8")
            argv += ["--receipts", str(path / "receipts.json")]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = speed(argv)
    report = json.loads(out.getvalue())
    difference = report["difference"] or {}
    pinned = report["signatures"]["pinned"]
    return {"exit_status": status, "passed": report["passed"], "check": difference.get("check"),
            "n": difference.get("n"), "field": difference.get("field"),
            "origin_proven": report["signatures"]["origin_proven"],
            "pinned_by": [] if pinned is None else pinned["sources"]}


def _expect(verdict: dict[str, Any], status: int, difference: tuple[str, int | None, str] | None = None,
            origin: bool | None = None) -> None:
    assert verdict["exit_status"] == status, verdict
    found = None if verdict["passed"] else (verdict["check"], verdict["n"], verdict["field"])
    assert found == difference, verdict
    if origin is not None:
        assert verdict["origin_proven"] is origin, verdict


def build() -> dict[str, dict[str, Any]]:
    """Every key vector by file name; each case's verdict computed by `speed audit` and checked against what the
    vector is meant to show (a vector that would not show it is never written)."""
    export = base_export()
    history = key_history(export)
    old, new, forger = kid_of(TABLE_OLD), kid_of(TABLE_NEW), kid_of(FORGER)
    rotation = signed(export, _rotating)
    kept = receipts_of(rotation, [3, len(rotation["events"])])
    undated = {**history, "keys": [{name: value for name, value in key.items()
                                    if name not in ("created", "activated", "retired")} for key in history["keys"]]}
    vectors: dict[str, tuple[str, dict[str, Any], list[tuple[dict[str, Any], tuple[Any, ...]]]]] = {
        "key_rotation": (
            f"A game whose table key rotates mid-game: events 1–{ROTATE_AFTER} signed by key {old} (retired at "
            f"event {ROTATE_AFTER}'s time), the rest by key {new} (activated at event {ROTATE_AFTER + 1}'s time). "
            "Pinned by the saved key history, by both key ids, or by a receipt of each key it passes with its origin "
            "proven; a key history of an older table without periods too (keys of unknown period); unpinned it "
            "passes as consistent only; pinned by the new key alone, event 1's key is not the table's.",
            rotation,
            [(pins(history), (0, None, True)), (pins(key_ids=[old, new]), (0, None, True)),
             (pins(receipts=kept), (0, None, True)), (pins(undated), (0, None, True)), (pins(), (0, None, False)),
             (pins(key_ids=[new]), (1, ("signature", 1, "sig.kid"), False))]),
        "forgery_foreign_key": (
            f"Every event re-signed by a key the table never had ({forger}) and signing_keys replaced by it: refused "
            "as soon as any pin is given; unpinned it passes only as consistent, its origin unproven.",
            signed(export, lambda n: FORGER),
            [(pins(history), (1, ("signature", 1, "sig.kid"), False)),
             (pins(key_ids=[old, new]), (1, ("signature", 1, "sig.kid"), False)),
             (pins(receipts=kept), (1, ("signature", 1, "sig.kid"), False)), (pins(), (0, None, False))]),
        "forgery_stripped": (
            "Every signature stripped and signing_keys emptied from a game of a signed rules version begun after "
            "the table signs every game: refused with or without pins (only games begun before signing may be "
            "unsigned).",
            {**copy.deepcopy(export), "signing_keys": []},
            [(pins(), (1, ("signature", 1, "sig"), False)), (pins(history), (1, ("signature", 1, "sig"), False))]),
        "forgery_key_id_mismatch": (
            f"Events signed by the forger's key under the table's key id {old}, signing_keys publishing the forger's "
            f"public key under that id: a key id is the digest of its public key, so the export's keys are refused "
            "before any signature, with or without pins.",
            signed(export, lambda n: FORGER, lambda private: old),
            [(pins(), (1, ("document", None, "signing_keys"), False)),
             (pins(key_ids=[old]), (1, ("document", None, "signing_keys"), False)),
             (pins(history), (1, ("document", None, "signing_keys"), False))]),
        "forgery_outside_period": (
            f"Every event signed by the table's first key {old}, also after it was retired (event "
            f"{ROTATE_AFTER + 1} on): against the published key history the first signature outside its period is "
            "refused (field at); pinned by key id alone (no period known) or unpinned it passes.",
            signed(export, lambda n: TABLE_OLD),
            [(pins(history), (1, ("signature", ROTATE_AFTER + 1, "at"), False)),
             (pins(key_ids=[old]), (0, None, True)), (pins(), (0, None, False))]),
    }
    built: dict[str, dict[str, Any]] = {}
    for name, (description, document, cases) in vectors.items():
        written = []
        for given, (status, difference, origin) in cases:
            verdict = run_audit(document, given)
            _expect(verdict, status, difference, origin)
            written.append({"pins": given, "verdict": verdict})
        built[f"{name}.json"] = {"description": description, "export": document, "cases": written}
    return built


def encoded(vector: dict[str, Any]) -> str:
    """A vector file's text (UTF-8, one event per line would be longer: indented JSON, a newline at the end)."""
    return json.dumps(vector, ensure_ascii=False, indent=1) + "\n"


def main() -> None:
    VECTORS.mkdir(exist_ok=True)
    for name, vector in build().items():
        (VECTORS / name).write_text(encoded(vector), encoding="utf-8")
        print(f"{VECTORS / name}: {len(vector['cases'])} cases")


if __name__ == "__main__":
    main()
