"""The table's Ed25519 signatures (libs/platform/signing.py): the specification's test vector, key ids, key
files, rotation, where the keys come from, and that the signature stays outside the event hash."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from libs.audit.signatures import check_signatures, check_team_signatures
from libs.audit.team_logs import TeamLog
from libs.platform.envelope import GENESIS, Event, compute_hash, new_event, verify_chain
from libs.platform.settings import Settings
from libs.platform.signing import (
    KEYS_FORMAT,
    Keyring,
    PublicKey,
    UnusableKey,
    configured_keyring,
    ensure_key_file,
    key_id,
    public_keys,
    rotated,
    signed_message,
)
from services.table.app import create_app
from tools.speed.cli import main as speed

# The test vector of docs/audit.md, "Signatures and receipts": private key 00 01 02 … 1f.
VECTOR_PRIVATE = bytes(range(32)).hex()
VECTOR_PUBLIC = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
VECTOR_KID = "56475aa75463474c"
VECTOR_GAME, VECTOR_N = "0123456789abcdef0123456789abcdef", 7
VECTOR_HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
VECTOR_SIG = ("95da5c4378e329c46a632d5107fe0e14ac3b75a985ac90689a362fa8bf74328e"
              "162b129234fce12c900d5b875bd4a9a5ba119ba95394963dba8b6bbb6139fb0d")
# The team-log entry's vector: the same key, game and hash, entry 3 of team 1's log.
VECTOR_TEAM, VECTOR_ENTRY = 1, 3
VECTOR_TEAM_SIG = ("7e2e51b843a16625ea86a126cac8b94fc410a014de9a8b09c66c2151bb0d07f8"
                   "1db082fd2dc7e75d2a3a61198128b77e5cb01c0ed225772758a4aeb486841c03")


def vector_keyring() -> Keyring:
    return Keyring.from_json({"format": KEYS_FORMAT, "active": VECTOR_KID, "keys": [
        {"kid": VECTOR_KID, "public_key": VECTOR_PUBLIC, "private_key": VECTOR_PRIVATE}]})


def test_the_specifications_test_vector() -> None:
    assert key_id(bytes.fromhex(VECTOR_PUBLIC)) == VECTOR_KID
    message = signed_message(VECTOR_GAME, VECTOR_N, VECTOR_HASH)
    assert message == f"speed-event/1:{VECTOR_GAME}:7:{VECTOR_HASH}".encode()
    keyring = vector_keyring()
    assert keyring.sign(VECTOR_GAME, VECTOR_N, VECTOR_HASH) == {"kid": VECTOR_KID, "sig": VECTOR_SIG}  # deterministic
    key = PublicKey.from_json({"kid": VECTOR_KID, "alg": "Ed25519", "public_key": VECTOR_PUBLIC})
    assert key.verifies(message, VECTOR_SIG)
    assert not key.verifies(signed_message(VECTOR_GAME, VECTOR_N + 1, VECTOR_HASH), VECTOR_SIG)  # another event
    assert not key.verifies(signed_message("other", VECTOR_N, VECTOR_HASH), VECTOR_SIG)  # another game
    assert not key.verifies(message, "zz" + VECTOR_SIG[2:]) and not key.verifies(message, None)
    assert keyring.published() == [{"kid": VECTOR_KID, "alg": "Ed25519", "public_key": VECTOR_PUBLIC, "active": True}]


def test_the_specifications_test_vector_of_a_team_log_entry() -> None:
    message = signed_message(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH, VECTOR_TEAM)
    assert message == f"speed-event/1:{VECTOR_GAME}:team1:3:{VECTOR_HASH}".encode()
    keyring = vector_keyring()
    assert keyring.sign(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH, VECTOR_TEAM) == {"kid": VECTOR_KID,
                                                                                  "sig": VECTOR_TEAM_SIG}
    key = keyring.keys[VECTOR_KID]
    assert key.verifies(message, VECTOR_TEAM_SIG)
    # Never confused with a game event's signature of the same numbers and hash, nor with another team's entry.
    assert not key.verifies(signed_message(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH), VECTOR_TEAM_SIG)
    assert not key.verifies(message, keyring.sign(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH)["sig"])
    assert not key.verifies(signed_message(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH, 0), VECTOR_TEAM_SIG)
    assert not key.verifies(signed_message(VECTOR_GAME, VECTOR_ENTRY + 1, VECTOR_HASH, VECTOR_TEAM), VECTOR_TEAM_SIG)
    for bad in (-1, True, "1"):
        with pytest.raises(ValueError):
            signed_message(VECTOR_GAME, VECTOR_ENTRY, VECTOR_HASH, bad)  # type: ignore[arg-type]


def _game_and_team(keyring: Keyring, signed_game: tuple[int, ...], signed_team: tuple[int, ...],
                   afters: tuple[int, ...] = (1, 2)) -> tuple[list[Event], TeamLog]:
    """Game events 1–3 and team 0's entries (after `afters`), those numbered in `signed_*` signed."""
    game: list[Event] = []
    for n in (1, 2, 3):
        event = new_event(game_id="g", n=n, type="MoveMade", actor="p", rules="r@1", data={},
                          prev=game[-1].hash if game else GENESIS)
        game.append(keyring.signed(event) if n in signed_game else event)
    entries: list[Event] = []
    for n, after in enumerate(afters, start=1):
        entry = new_event(game_id="g", n=n, type="SideMoveMade", actor="p", rules="r@1",
                          data={"team": 0, "after": after}, prev=entries[-1].hash if entries else GENESIS)
        entries.append(keyring.signed(entry, 0) if n in signed_team else entry)
    return game, TeamLog(team=0, seats=(0, 2), events=entries)


def test_team_log_entries_verify_over_their_teams_message_and_an_unsigned_one_after_a_signed_is_caught() -> None:
    keyring = vector_keyring()
    game, log = _game_and_team(keyring, (1, 2, 3), (1, 2))
    findings = check_team_signatures([log], game, keyring.keys)
    assert findings.difference is None and findings.signed_by == {VECTOR_KID: 2} and not findings.unsigned
    # Signed as a game event (no team in the message): it does not verify as a team entry.
    forged = Event(**{**log.events[1].to_json(), "sig": keyring.sign("g", 2, log.events[1].hash)})
    findings = check_team_signatures([TeamLog(0, (0, 2), [log.events[0], forged])], game, keyring.keys)
    assert findings.difference is not None and findings.difference.field == "team_logs[0].events[2].sig.sig"
    # Verified with another team's message: it does not verify either.
    findings = check_team_signatures([TeamLog(1, (1, 3), log.events)], game, keyring.keys)
    assert findings.difference is not None and findings.difference.field == "team_logs[1].events[1].sig.sig"
    # An unknown key proves nothing.
    findings = check_team_signatures([log], game, {})
    assert findings.difference is not None and findings.difference.field == "team_logs[0].events[1].sig.kid"
    # Unsigned after a signed entry of its log, or after the signed game event it follows: stripped.
    game, log = _game_and_team(keyring, (1, 2, 3), (1,))
    findings = check_team_signatures([log], game, keyring.keys)
    assert findings.difference is not None and findings.difference.field == "team_logs[0].events[2].sig"
    game, log = _game_and_team(keyring, (2, 3), (), afters=(1, 2))
    findings = check_team_signatures([log], game, keyring.keys)
    assert findings.difference is not None and findings.difference.field == "team_logs[0].events[2].sig"
    assert "Ereignis 2 des Spielprotokolls" in findings.difference.reason
    # A game event after a signed entry, unsigned: stripped too.
    game, log = _game_and_team(keyring, (3,), (1,), afters=(1, 1))
    findings = check_team_signatures([log], game, keyring.keys)
    assert findings.difference is not None and (findings.difference.n, findings.difference.field) == (2, "sig")
    # A log written before the table signed: reported unsigned, no difference.
    game, log = _game_and_team(keyring, (3,), (), afters=(1, 2))
    findings = check_team_signatures([log], game, keyring.keys)
    assert findings.difference is None and findings.unsigned == {0: [1, 2]} and not findings.signed_by


def test_the_signature_sits_beside_the_hash_and_outside_it() -> None:
    keyring = vector_keyring()
    event = new_event(game_id="g1", n=1, type="GameStarted", actor="system", rules="speedmosaik@1",
                      data={"x": "ä"}, prev="0" * 64)
    signed = keyring.signed(event)
    assert signed.hash == event.hash == compute_hash(signed)
    assert "sig" not in event.to_json() and signed.to_json()["sig"] == signed.sig
    stored = Event.decode(signed.encode())  # the stored bytes keep it (and the archive stores those bytes)
    assert stored == signed and stored.sig is not None and set(stored.sig) == {"kid", "sig"}
    verify_chain([stored])
    assert check_signatures([stored], keyring.keys).signed_by == {VECTOR_KID: 1}


def test_key_files_are_checked_when_read() -> None:
    good = vector_keyring().to_json()
    with pytest.raises(UnusableKey, match="Format"):
        Keyring.from_json({**good, "format": "x"})
    with pytest.raises(UnusableKey, match="Kennung"):
        Keyring.from_json({**good, "keys": [{**good["keys"][0], "kid": "0" * 16}]})
    other = Keyring.generate().to_json()["keys"][0]
    with pytest.raises(UnusableKey, match="gehören nicht zusammen"):
        Keyring.from_json({**good, "keys": [{**good["keys"][0], "private_key": other["private_key"]}]})
    with pytest.raises(UnusableKey, match="aktive Schlüssel"):
        Keyring.from_json({**good, "keys": [{"kid": VECTOR_KID, "public_key": VECTOR_PUBLIC}]})
    with pytest.raises(UnusableKey, match="32 Bytes"):
        public_keys([{"kid": "x", "public_key": "abcd"}])
    with pytest.raises(UnusableKey, match="Verfahren"):
        public_keys([{"kid": VECTOR_KID, "alg": "RS256", "public_key": VECTOR_PUBLIC}])


def test_rotation_signs_with_the_new_key_and_keeps_the_old_ones_published() -> None:
    old = Keyring.generate()
    before = old.signed(new_event(game_id="g", n=1, type="GameStarted", actor="system", rules="r@1", data={},
                                  prev="0" * 64))
    file = rotated(old.to_json())
    new = Keyring.from_json(file)
    assert new.active != old.active and set(new.keys) == {old.active, new.active}
    assert "private_key" not in next(entry for entry in file["keys"] if entry["kid"] == old.active)
    after = new.signed(new_event(game_id="g", n=2, type="MoveMade", actor="p", rules="r@1", data={},
                                 prev=before.hash))
    assert after.sig is not None and after.sig["kid"] == new.active
    published = public_keys(new.published())  # an old game (and one spanning the rotation) verifies
    findings = check_signatures([before, after], published)
    assert findings.difference is None and findings.signed_by == {old.active: 1, new.active: 1}
    assert [key["active"] for key in new.published()] == [False, True]
    kept = Keyring.from_json(rotated(old.to_json(), drop_old_private=False))
    assert kept.to_json()["keys"][0]["private_key"] == old.to_json()["keys"][0]["private_key"]


def test_every_replica_with_a_key_derives_the_same_secret_per_purpose_and_none_without_its_private_half() -> None:
    ring = Keyring.generate()
    replica = Keyring.from_json(ring.to_json())  # another table process reading the same key file
    secret = ring.derived_key(ring.active, b"speed-followup-hint/1")
    assert secret is not None and len(secret) == 32
    assert replica.derived_key(ring.active, b"speed-followup-hint/1") == secret
    assert ring.derived_key(ring.active, b"another purpose") != secret
    assert Keyring.generate().derived_key(ring.active, b"speed-followup-hint/1") is None  # a key it does not know
    retired = Keyring.from_json(rotated(ring.to_json()))  # the old key keeps its public half only
    assert retired.derived_key(ring.active, b"speed-followup-hint/1") is None
    assert secret.hex() not in json.dumps(ring.to_json())  # not the private key: the secret tells nothing of it


def test_the_key_file_is_generated_once_for_its_owner_only(tmp_path: Path) -> None:
    path = ensure_key_file(tmp_path / "keys" / "table-signing.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    first = path.read_text()
    assert ensure_key_file(path).read_text() == first  # kept: a restart signs with the same key
    assert Keyring.load(path).active == json.loads(first)["active"]


def test_the_keys_come_from_the_settings_and_production_needs_them(tmp_path: Path) -> None:
    path = ensure_key_file(tmp_path / "k.json")
    inline = vector_keyring().to_json()
    assert configured_keyring("", "") is None
    assert configured_keyring("", str(path)) is not None
    keyring = configured_keyring(json.dumps(inline), str(path))  # the JSON itself before a file
    assert keyring is not None and keyring.active == VECTOR_KID
    with pytest.raises(UnusableKey, match="kein JSON"):
        configured_keyring("{", "")
    with pytest.raises(UnusableKey, match="lässt sich nicht lesen"):
        configured_keyring("", str(tmp_path / "fehlt.json"))

    def production(keys: str) -> Settings:
        # Both key settings named: the test session's own key file is in the environment (tests/conftest.py).
        return Settings(environment="production", auth_secret="s" * 40, nats_user="table", nats_password="p",
                        archive_nats_password="a", table_signing_keys=keys, table_signing_keys_file="")

    with pytest.raises(ValueError, match="TABLE_SIGNING_KEYS"):
        create_app(production(""))
    create_app(production(json.dumps(inline)))


def test_speed_signing_keys_makes_and_rotates_key_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def speed_keys(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        status = speed(["signing-keys", *args])
        return status, capsys.readouterr().out

    status, out = speed_keys("new")
    assert status == 0
    (tmp_path / "keys.json").write_text(out)
    first = Keyring.load(tmp_path / "keys.json")
    status, out = speed_keys("add", str(tmp_path / "keys.json"))
    (tmp_path / "added.json").write_text(out)
    added = Keyring.load(tmp_path / "added.json")
    assert added.active == first.active and len(added.keys) == 2  # published first, active later
    [new] = set(added.keys) - {first.active}
    status, out = speed_keys("activate", str(tmp_path / "added.json"), new)
    (tmp_path / "active.json").write_text(out)
    assert Keyring.load(tmp_path / "active.json").active == new
    status, out = speed_keys("public", str(tmp_path / "active.json"))
    published = json.loads(out)
    assert published["active"] == new and all("private_key" not in key for key in published["keys"])
    assert speed_keys("activate", str(tmp_path / "active.json"), first.active)[0] == 2  # its private half is gone


def test_the_openapi_schema_documents_the_keys_and_the_receipt() -> None:
    schema = create_app(Settings(table_signing_keys=json.dumps(vector_keyring().to_json()))).openapi()
    keys = schema["paths"]["/keys"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert keys == {"$ref": "#/components/schemas/PublishedKeys"}
    answer = schema["paths"]["/games/{game_id}/moves"]["post"]["responses"]["200"]
    assert "receipt" in answer["description"]
    assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/MoveAnswer"}
    receipt = schema["components"]["schemas"]["ReceiptOut"]
    assert set(receipt["properties"]) == {"game_id", "n", "hash", "kid", "sig", "team"}
    assert receipt["required"] == ["game_id", "n", "hash", "kid", "sig"]  # `team` only for a side move's receipt
    assert "speed-event/1:<game_id>:<n>:<hash>" in receipt["properties"]["sig"]["description"]
