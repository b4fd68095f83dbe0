"""The specification of docs/audit.md ("Specification: canonical JSON, hashes, digests, commitment") is complete
(issue 24, point 4): its test vectors (tests/audit/vectors/, a real export and every intermediate value) hold for
the project's code, and an independent reimplementation that follows only the specification — a hand-written
canonical encoder, ``hashlib`` and ``hmac`` — recomputes every one of them."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from libs.audit import audit
from libs.audit.seeds import commitment
from libs.platform.canonical import MAX_INTEGER, NotCanonical, canonical_json, check_canonical
from libs.platform.envelope import GENESIS, Event, compute_hash, new_event
from libs.platform.private import digest_of, redact, salt_for
from tests.audit.forgery import rehash

VECTORS = Path(__file__).resolve().parent / "vectors"
EXPORT: dict[str, Any] = json.loads((VECTORS / "speednova_rekordjagd.json").read_text(encoding="utf-8"))
DIGESTS: dict[str, Any] = json.loads((VECTORS / "digests.json").read_text(encoding="utf-8"))


# ---- the independent reimplementation: nothing but the specification, hashlib and hmac ----------------------
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def spec_string(text: str) -> str:
    """A string as the specification writes it: quotes, backslash and U+0000-U+001F escaped, all else raw."""
    out = []
    for char in text:
        if char in _SHORT:
            out.append(_SHORT[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            raise ValueError("a lone surrogate is no Unicode scalar value")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def spec_json(value: Any) -> str:
    """The canonical JSON text of ``value`` by the specification (the caller encodes it as UTF-8)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if abs(value) > 2**53 - 1:
            raise ValueError("integer out of range")
        return str(value)
    if isinstance(value, str):
        return spec_string(value)
    if isinstance(value, list):
        return "[" + ",".join(spec_json(item) for item in value) + "]"
    if isinstance(value, dict):
        # Members ordered by their keys' Unicode code points: the keys' UTF-8 bytes compare the same way.
        keys = sorted(value, key=lambda key: key.encode("utf-8"))
        return "{" + ",".join(spec_string(key) + ":" + spec_json(value[key]) for key in keys) + "}"
    raise ValueError(f"{type(value).__name__} is not canonical data")


def spec_bytes(value: Any) -> bytes:
    return spec_json(value).encode("utf-8")


def spec_redact(value: Any) -> Any:
    """Every private part (an object whose only key is "$private") reduced to its recipients and digest."""
    if isinstance(value, dict):
        if list(value) == ["$private"]:
            return {"$private": {"to": value["$private"]["to"], "digest": value["$private"]["digest"]}}
        return {key: spec_redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [spec_redact(item) for item in value]
    return value


def spec_event_hash(event: dict[str, Any]) -> str:
    body = {key: event[key] for key in ("game_id", "n", "type", "at", "actor", "rules", "prev")}
    body["data"] = spec_redact(event["data"])
    return hashlib.sha256(spec_bytes(body)).hexdigest()


def spec_salt(seed: bytes, game_id: str, n: int, index: int) -> str:
    return hmac.new(seed, f"{game_id}:{n}:{index}".encode(), hashlib.sha256).hexdigest()


def spec_digest(value: Any, salt: str) -> str:
    return hashlib.sha256(spec_bytes({"salt": salt, "value": value})).hexdigest()


def part_at(event: dict[str, Any], path: str) -> dict[str, Any]:
    """The sealed part at ``path`` ("data.seed", "data.move", "data.effects[3]") of an exported event."""
    head, _, index = path.partition("[")
    part = event["data"][head.removeprefix("data.")]
    if index:
        part = part[int(index.rstrip("]"))]
    inner: dict[str, Any] = part["$private"]
    return inner


def sealed_rows() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    events = {event["n"]: event for event in EXPORT["events"]}
    return [(events[row["n"]], part) for row in DIGESTS["events"] for part in row.get("sealed", [])]


# ---- the vectors -------------------------------------------------------------------------------------------
def test_the_vectors_are_a_real_finished_game_with_german_text_and_private_parts() -> None:
    report = audit(EXPORT)
    assert report.passed, report.lines()
    text = json.dumps(EXPORT, ensure_ascii=False)
    assert "Jörg Größe" in text and "ä" in text
    assert len(sealed_rows()) > 30 and len(DIGESTS["events"]) == len(EXPORT["events"])
    assert {row["type"] for row in DIGESTS["events"] if "canonical" in row} == {
        "GameStarted", "MoveMade", "PlayerLeft", "GameEnded"}


def test_the_project_code_gives_every_vector() -> None:
    seed = bytes.fromhex(DIGESTS["seed"])
    assert commitment(seed) == DIGESTS["seed_commitment"] == EXPORT["events"][0]["data"]["seed_commitment"]
    for case in DIGESTS["encoding"]:
        assert canonical_json(case["value"]) == bytes.fromhex(case["canonical_hex"]) == case["canonical"].encode()
    prev = GENESIS
    for raw, row in zip(EXPORT["events"], DIGESTS["events"], strict=True):
        event = Event(**raw)
        assert compute_hash(event) == row["hash"] == raw["hash"] and raw["prev"] == row["prev"] == prev
        prev = raw["hash"]
        if "canonical" in row:
            body = {key: value for key, value in raw.items() if key != "hash"}
            body["data"] = redact(raw["data"])
            assert canonical_json(body) == bytes.fromhex(row["canonical_hex"]) == row["canonical"].encode()
            assert hashlib.sha256(canonical_json(body)).hexdigest() == row["canonical_sha256"] == row["hash"]
    for exported, part in sealed_rows():
        assert salt_for(seed, DIGESTS["game_id"], exported["n"], part["index"]) == part["salt"]
        inner = part_at(exported, part["path"])
        assert inner["salt"] == part["salt"] and inner["to"] == part["to"]
        assert digest_of(inner["value"], part["salt"]) == part["digest"] == inner["digest"]
        assert canonical_json({"salt": part["salt"], "value": inner["value"]}) == part["digest_input"].encode()


def test_an_independent_implementation_of_the_specification_recomputes_every_vector() -> None:
    seed = bytes.fromhex(EXPORT["seed"])
    assert hashlib.sha256(seed).hexdigest() == DIGESTS["seed_commitment"]
    for case in DIGESTS["encoding"]:
        assert spec_bytes(case["value"]) == bytes.fromhex(case["canonical_hex"]), case["about"]
    prev = GENESIS
    for event, row in zip(EXPORT["events"], DIGESTS["events"], strict=True):
        assert event["prev"] == prev
        assert spec_event_hash(event) == event["hash"] == row["hash"]
        if "canonical" in row:
            body = {key: value for key, value in event.items() if key != "hash"}
            body["data"] = spec_redact(event["data"])
            assert spec_bytes(body) == bytes.fromhex(row["canonical_hex"])
        prev = event["hash"]
    for event, part in sealed_rows():
        assert spec_salt(seed, EXPORT["game_id"], event["n"], part["index"]) == part["salt"]
        inner = part_at(event, part["path"])
        assert spec_bytes({"salt": part["salt"], "value": inner["value"]}) == part["digest_input"].encode()
        assert spec_digest(inner["value"], part["salt"]) == part["digest"] == inner["digest"]
    # The seed sealed for nobody in GameStarted is its hex text, salted with index 0.
    started = EXPORT["events"][0]["data"]["seed"]["$private"]
    assert started["value"] == EXPORT["seed"] and started["to"] == []
    assert spec_digest(EXPORT["seed"], spec_salt(seed, EXPORT["game_id"], 1, 0)) == started["digest"]


def test_what_the_specification_rules_out_does_not_recompute() -> None:
    """The traps an implementer falls into: escaping non-ASCII, whitespace, UTF-16 key order."""
    events = EXPORT["events"]

    def with_dumps(event: dict[str, Any], **options: Any) -> str:
        body = {key: event[key] for key in ("game_id", "n", "type", "at", "actor", "rules", "prev")}
        body["data"] = spec_redact(event["data"])
        return hashlib.sha256(json.dumps(body, sort_keys=True, **options).encode()).hexdigest()

    escaped = sum(with_dumps(event, separators=(",", ":")) != event["hash"] for event in events)
    spaced = sum(with_dumps(event, ensure_ascii=False) != event["hash"] for event in events)
    assert escaped >= len(events) // 2 and spaced == len(events)
    assert all(with_dumps(event, separators=(",", ":"), ensure_ascii=False) == event["hash"] for event in events)
    keys = DIGESTS["encoding"][0]["value"]
    utf16 = sorted(keys, key=lambda key: key.encode("utf-16-be"))
    assert utf16 != sorted(keys) and list(json.loads(DIGESTS["encoding"][0]["canonical"])) == sorted(keys)


# ---- the code enforces the specification ---------------------------------------------------------------------
@pytest.mark.parametrize("value", [1.5, 1.0, float("nan"), float("inf"), MAX_INTEGER + 1, -MAX_INTEGER - 1,
                                   {1: "a"}, b"bytes", {"set": {1, 2}}])
def test_the_log_refuses_what_canonical_json_does_not_have(value: Any) -> None:
    with pytest.raises(NotCanonical):
        check_canonical({"x": [value]})
    with pytest.raises(ValueError):
        new_event(game_id="g1", n=1, type="GameStarted", actor="system", rules="speednova@1",
                  data={"x": [value]}, prev=GENESIS)
    check_canonical({"x": [MAX_INTEGER, -MAX_INTEGER, (1, "ä"), True, None]})  # the limits are in


def test_the_audit_names_a_float_in_a_rehashed_event() -> None:
    document = copy.deepcopy(EXPORT)
    document["events"][1]["data"]["effects"][0]["params"]["bonus"] = 0.5
    rehash(document, 2)
    report = audit(document)
    assert report.difference is not None and report.difference.check == "chain" and report.difference.n == 2
    assert report.difference.field == "data.effects[0].params.bonus"
    assert "Gleitkommazahl" in report.difference.reason


# ---- the signed, player's, daily and team vectors (issue 36, point 2) -----------------------------------------
INDEX: dict[str, Any] = json.loads((VECTORS / "index.json").read_text(encoding="utf-8"))


def load_vector(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return document


def test_the_script_writes_every_derived_vector_byte_for_byte() -> None:
    """The derived vectors are pure functions of committed files (exports and the test key): make_vectors writes
    exactly the files that are there, so nobody can have edited one by hand."""
    from tests.audit.make_vectors import derived_vectors

    written = derived_vectors()
    assert set(written) >= {"index.json", "speednova_v2_team0_receipts.json",
                            *(entry["file"] for entry in INDEX["vectors"] if "from" in entry)}
    for name, text in written.items():
        assert (VECTORS / name).read_text(encoding="utf-8") == text, name


@pytest.mark.parametrize("entry", INDEX["vectors"], ids=lambda entry: entry["file"])
def test_the_audit_gives_each_vector_its_verdict(entry: dict[str, Any], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The library's verdict (with the test key pinned) and ``speed audit FILE --keys`` exit status, per vector."""
    from libs.audit.receipts import check_receipts, read_receipts
    from libs.platform.signing import public_keys
    from tests.audit.make_vectors import verdict_of
    from tools.speed.cli import main as speed

    text = (VECTORS / entry["file"]).read_text(encoding="utf-8")
    trusted = public_keys([INDEX["test_key"]])
    assert verdict_of(text, trusted) == entry["verdict"]
    assert entry["verdict"]["exit"] == (2 if entry["file"].startswith("refused_") and "unusable" in entry["verdict"]
                                        else 1 if entry["file"].startswith("refused_") else 0)
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [INDEX["test_key"]]}), encoding="utf-8")
    assert speed(["audit", str(VECTORS / entry["file"]), "--keys", str(keys)]) == entry["verdict"]["exit"]
    printed = capsys.readouterr()
    if "unusable" in entry["verdict"]:
        # the command names the file where the library says "Das Exportdokument"
        assert entry["verdict"]["unusable"].removeprefix("Das Exportdokument ") in printed.err
    if "receipts" in entry:
        receipts = read_receipts(load_vector(entry["receipts"]["file"]))
        proved = check_receipts(load_vector(entry["file"]), receipts, trusted).to_json()
        assert {key: proved[key] for key in entry["receipts"] if key != "file"} == \
            {key: value for key, value in entry["receipts"].items() if key != "file"}
        assert proved["passed"] and proved["proven"] and proved["team_proven"]


def private_parts(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value] if "$private" in value else [part for item in value.values() for part in private_parts(item)]
    if isinstance(value, list):
        return [part for item in value for part in private_parts(item)]
    return []


def redacted(part: Any) -> bool:
    return isinstance(part, dict) and list(part) == ["$private"] and sorted(part["$private"]) == ["digest", "to"]


def test_the_vectors_show_what_they_are_named_for() -> None:
    """Each vector holds the case it stands for in the conformance list (docs/audit.md), not just any export."""
    operator = load_vector("speednova_rekordjagd_signed.json")
    assert operator["scope"] == "operator" and all("sig" in event for event in operator["events"])
    assert operator["signing_keys"] == [{key: INDEX["test_key"][key] for key in ("kid", "alg", "public_key")}]
    player = load_vector("speedkoi_seat0_signed.json")
    assert (player["scope"], player["viewer_seat"]) == ("seat", 0)
    seed = player["events"][0]["data"]["seed"]
    assert redacted(seed) and seed["$private"]["to"] == []
    parts = [part for event in player["events"] for part in private_parts(event["data"])]
    assert any(redacted(part) and part["$private"]["to"] == [1] for part in parts)
    assert any(not redacted(part) and part["$private"]["to"] == [0] for part in parts)
    daily = load_vector("daily_speedmosaik_seat0.json")
    started, ended = daily["events"][0]["data"], daily["events"][-1]["data"]
    assert started["mode"]["key"] and started["seed_reveal_at"] and ended["seed"] == ""
    assert commitment(bytes.fromhex(daily["seed"])) == started["seed_commitment"] and redacted(started["seed"])
    team = load_vector("speednova_v2_team0_signed.json")
    assert [log["team"] for log in team["team_logs"]] == [0] and team["team_logs"][0]["seats"] == [0, 2]
    receipts: list[dict[str, Any]] = json.loads((VECTORS / "speednova_v2_team0_receipts.json").read_text("utf-8"))
    assert any("receipt" in item and item["receipt"].get("team") == 0 for item in receipts)
    assert any(item.get("team", 0) is None for item in receipts)
