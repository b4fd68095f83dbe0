"""One reading of the specification (issue 36, point 2): docs/audit.md, "Reading an export", answers how an
export's JSON is read, which members an event and a team-log entry have, where private parts may stand, and how
``signing_keys`` and receipts of ``null`` read; these tests hold the audit and ``speed audit`` to those answers.

Each works on a golden export (tests/audit/golden/), changed as a forger or a careless tool would change it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from libs.audit import UnusableDocument, audit
from libs.audit import document as reading
from libs.audit.receipts import read_receipts
from libs.platform.envelope import EventType
from libs.platform.private import PRIVATE
from tests.audit.forgery import rehash
from tools.speed.cli import main as speed

GOLDEN = Path(__file__).resolve().parent / "golden"


def golden(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    return document


def text_of(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False)


def first_move(document: dict[str, Any]) -> dict[str, Any]:
    return next(event for event in document["events"] if event["type"] == EventType.MOVE_MADE)


def audit_file(tmp_path: Path, text: str | bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`speed audit FILE` on ``text``: its exit status and everything it printed."""
    path = tmp_path / "export.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    status = speed(["audit", str(path)])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


# ---- reading JSON ---------------------------------------------------------------------------------------------
def test_a_duplicate_key_makes_the_export_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two readers must not see two different exports: one member written twice (the first the table's, the last a
    forger's) is refused, not read as the last (Python, JavaScript) or the first (some streaming readers)."""
    text = text_of(golden("speedmosaik_v1.json"))
    doubled = text.replace('"scope":', '"scope": "seat", "scope":', 1)
    status, printed = audit_file(tmp_path, doubled, capsys)
    assert status == 2, printed
    assert "der Schlüssel 'scope' steht zweimal im selben Objekt" in printed
    with pytest.raises(UnusableDocument, match="zweimal"):
        reading.read_json('{"events": [{"n": 1, "n": 2}]}')


def test_nan_and_infinity_are_no_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = golden("speedmosaik_v1.json")
    first_move(document)["data"]["chosen_by"] = "MARK"
    text = text_of(document).replace('"MARK"', "NaN")
    status, printed = audit_file(tmp_path, text, capsys)
    assert status == 2 and "NaN ist keine JSON-Zahl" in printed, printed
    for constant in ("Infinity", "-Infinity"):
        with pytest.raises(UnusableDocument, match="keine JSON-Zahl"):
            reading.read_json(f'{{"x": {constant}}}')


def test_numbers_are_read_by_their_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``1.0`` is no integer, even though its value is whole: in an event's data the chain check names it, as an
    envelope field it has the wrong type. An integer is read exactly, however long; beyond ±(2^53-1) it is no
    canonical data."""
    assert reading.read_json('[1, -0, 12345678901234567890, 1.0, 1e2]') == [1, 0, 12345678901234567890, 1.0, 100.0]
    assert [type(value) for value in reading.read_json('[1, 1.0, 1e2, 1E2]')] == [int, float, float, float]
    document = golden("speedmosaik_v1.json")
    seat = first_move(document)["data"]["seat"]
    changed = copy.deepcopy(document)
    first_move(changed)["data"]["seat"] = "MARK"
    status, printed = audit_file(tmp_path, text_of(changed).replace('"MARK"', f"{seat}.0"), capsys)
    assert status == 1, printed
    assert "Hash-Kette" in printed and "data.seat" in printed and "kanonische JSON-Daten" in printed
    numbered = copy.deepcopy(document)
    numbered["events"][0]["n"] = "MARK"
    status, printed = audit_file(tmp_path, text_of(numbered).replace('"MARK"', "1.0"), capsys)
    assert status == 2 and "Feld n hat einen falschen Typ" in printed, printed
    huge = copy.deepcopy(document)
    first_move(huge)["data"]["seat"] = 2**53
    report = audit(huge)
    assert report.difference is not None and report.difference.check == "chain"
    assert report.difference.field == "data.seat"


def test_a_lone_surrogate_or_a_byte_order_mark_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = golden("speedmosaik_v1.json")
    document["events"][0]["data"]["seats"][0]["name"] = "MARK"
    status, printed = audit_file(tmp_path, text_of(document).replace('"MARK"', '"\\ud800"'), capsys)
    assert status == 2 and "einzelnes Surrogat" in printed, printed
    status, printed = audit_file(tmp_path, b"\xef\xbb\xbf" + text_of(golden("speedmosaik_v1.json")).encode(), capsys)
    assert status == 2 and "Bytereihenfolgemarke" in printed, printed
    with pytest.raises(UnusableDocument, match="kein UTF-8"):
        reading.read_json(b'{"a": "\xff"}')


# ---- the envelope: exactly its members ------------------------------------------------------------------------
def test_an_unknown_member_of_an_event_makes_the_export_unusable() -> None:
    """A member the hash does not cover (anything beside the eight hashed fields, ``hash`` and ``sig``) could say
    anything without touching a hash: refused, whatever it holds."""
    document = golden("speedkoi_v1.json")
    document["events"][3]["bemerkung"] = "vom Tisch geprüft"
    with pytest.raises(UnusableDocument, match="Eintrag 4 der Ereignisse hat unbekannte Felder: bemerkung"):
        audit(document)


def test_an_unknown_member_of_a_team_log_entry_makes_the_export_unusable() -> None:
    document = golden("speednova_v2.json")
    document["team_logs"][0]["events"][0]["bemerkung"] = "vom Tisch geprüft"
    with pytest.raises(UnusableDocument, match="Teamprotokoll 1, Eintrag 1 hat unbekannte Felder: bemerkung"):
        audit(document)
    document = golden("speednova_v2.json")
    document["team_logs"][0]["bemerkung"] = "x"
    with pytest.raises(UnusableDocument, match="genau den Feldern team, seats, events"):
        audit(document)
    document = golden("speednova_v2.json")
    del document["team_logs"][1]["events"][0]["prev"]
    with pytest.raises(UnusableDocument, match="Teamprotokoll 2, Eintrag 1 hat fehlende Felder: prev"):
        audit(document)


def test_a_signature_of_null_is_refused_not_read_as_unsigned() -> None:
    """An unsigned event has no ``sig`` member; ``"sig": null`` is neither form."""
    document = golden("speedkoi_v1.json")
    document["events"][0]["sig"] = None
    with pytest.raises(UnusableDocument, match="Feld sig ist keine Signatur"):
        audit(document)
    document = golden("speedkoi_v1.json")
    document["events"][0]["sig"] = {"kid": "56475aa75463474c", "sig": "00", "von": "Tisch"}
    with pytest.raises(UnusableDocument, match="Feld sig ist keine Signatur"):
        audit(document)


def test_signing_keys_absent_and_empty_read_alike_and_null_is_refused() -> None:
    absent = golden("speedmosaik_v1.json")
    assert "signing_keys" not in absent
    empty = {**copy.deepcopy(absent), "signing_keys": []}
    assert audit(absent).to_json() == audit(empty).to_json()
    with pytest.raises(UnusableDocument, match="signing_keys ist keine Liste"):
        audit({**copy.deepcopy(absent), "signing_keys": None})


# ---- private parts: only where the table writes them ----------------------------------------------------------
def sealed_move(document: dict[str, Any]) -> dict[str, Any]:
    return next(event for event in document["events"] if event["type"] == EventType.MOVE_MADE
                and any(isinstance(effect, dict) and PRIVATE in effect for effect in event["data"]["effects"]))


def test_a_private_part_nested_in_an_effect_is_a_difference() -> None:
    """The salt index is defined for the move and whole effects only: a part deeper inside has none."""
    document = golden("speedkoi_v1.json")
    event = sealed_move(document)
    index = next(i for i, effect in enumerate(event["data"]["effects"]) if PRIVATE in effect)
    event["data"]["effects"][index] = {"text": "verdeckt", "teil": event["data"]["effects"][index]}
    rehash(document, event["n"])
    report = audit(document)
    assert report.difference is not None and report.difference.check == "chain", report.lines()
    assert report.difference.field == f"data.effects[{index}].teil"
    assert "Salz-Index" in report.difference.reason


def test_a_private_part_in_game_ended_is_a_difference() -> None:
    document = golden("speedkoi_v1.json")
    ended = document["events"][-1]
    ended["data"]["outcome"]["summary"] = copy.deepcopy(document["events"][0]["data"]["seed"])
    rehash(document, ended["n"])
    report = audit(document)
    assert report.difference is not None and report.difference.check == "chain", report.lines()
    assert report.difference.field == "data.outcome.summary"


def test_a_member_inside_a_private_part_that_the_hash_does_not_cover_is_a_difference() -> None:
    """Redaction keeps ``to`` and ``digest`` only, so anything else inside ``$private`` escapes the hash: refused."""
    document = golden("speedkoi_v1.json")
    event = sealed_move(document)
    part = next(effect for effect in event["data"]["effects"] if PRIVATE in effect)
    part[PRIVATE]["hinweis"] = "Karte 7"
    report = audit(document)
    assert report.difference is not None and report.difference.check == "chain", report.lines()
    assert report.difference.field.endswith("]") and "to, digest" in report.difference.reason


def test_the_seed_is_sealed_for_nobody() -> None:
    document = golden("speedkoi_v1.json")
    document["events"][0]["data"]["seed"][PRIVATE]["to"] = [0]
    rehash(document, 1)
    report = audit(document)
    assert report.difference is not None and report.difference.check == "chain", report.lines()
    assert report.difference.field == "data.seed.$private.to"


# ---- receipts ----------------------------------------------------------------------------------------------
def test_a_receipt_of_null_makes_the_receipts_file_unusable() -> None:
    for data in ([None], [{"receipt": None}], None):
        with pytest.raises(UnusableDocument, match="Quittung 1 ist null"):
            read_receipts(data)


def test_a_receipt_with_team_null_is_a_game_events_receipt() -> None:
    receipt = {"game_id": "g", "n": 3, "hash": "a" * 64, "kid": "b" * 16, "sig": "c" * 128}
    assert read_receipts([{**receipt, "team": None}])[0].get("team") is None


# ---- who left with other humans: from the log alone -----------------------------------------------------------
def test_left_with_other_humans_follows_from_the_seats_and_the_player_left_events() -> None:
    """Seat 0's human leaves while seat 1's plays on (the vector speedkoi_two_humans_signed.json): PlayerLeft says
    so, GameEnded lists seat 0; either written otherwise (and re-hashed) is a difference."""
    vectors = Path(__file__).resolve().parent / "vectors"
    document = json.loads((vectors / "speedkoi_two_humans_signed.json").read_text(encoding="utf-8"))
    left = next(event for event in document["events"] if event["type"] == EventType.PLAYER_LEFT)
    assert left["data"]["with_other_humans"] is True
    assert document["events"][-1]["data"]["left_with_other_humans"] == [0]
    assert audit(document).passed
    forged = copy.deepcopy(document)
    forged["events"][-1]["data"]["left_with_other_humans"] = []
    rehash(forged, len(forged["events"]))
    report = audit(forged)
    assert report.difference is not None and report.difference.check == "outcome", report.lines()
    assert report.difference.field == "data.left_with_other_humans"
    forged = copy.deepcopy(document)
    forged["events"][left["n"] - 1]["data"]["with_other_humans"] = False
    rehash(forged, left["n"])
    report = audit(forged)
    assert report.difference is not None and report.difference.field == "data.with_other_humans", report.lines()
