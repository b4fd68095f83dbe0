"""Ed25519 signatures over the hashes of a game's events, and the keys that make them.

The table signs every event it appends (issue 24, point 3; specification in docs/audit.md, "Signatures and
receipts"). What is signed is the UTF-8 message

    speed-event/1:<game_id>:<n>:<hash>

(`signed_message`): the event's hash, which covers every other field of the envelope, bound to the game and
the event's number, so a signature (and a receipt, which is the same four values and the signature) says on
its own which event of which game it vouches for. An entry of a team log (side moves, libs/platform/team_log.py)
is signed over

    speed-event/1:<game_id>:team<k>:<n>:<hash>

(k: the team's index): the part ``team<k>`` is never a number, so no signature of a team-log entry ever passes
for a game event's, nor one of team k's for team j's. The signature sits beside `hash` in the envelope as
``"sig": {"kid": <key id>, "sig": <128 hex digits>}`` and, like `hash`, is not part of what the hash covers.

Keys: an Ed25519 key pair per key id; the key id is the first 16 hex digits of SHA-256 over the raw 32-byte
public key (`key_id`). A `Keyring` holds every key the platform ever signed with (their public halves stay
published so old games verify) and signs with its one active key. Keys are read from JSON
(`speed-signing-keys/1`, `Keyring.from_json`): ``{"format", "active": kid, "keys": [{"kid", "public_key",
"private_key"?, "created"?}]}``, all binary as lowercase hex; a retired key keeps only its public half.

Verifying needs nothing but the public keys (`PublicKey`), so `libs.audit` uses this module without I/O.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from libs.platform.envelope import Event

SIGNATURE_CONTEXT = "speed-event/1"
"""The first part of every signed message: a signature made for anything else never verifies as an event's."""
KEYS_FORMAT = "speed-signing-keys/1"
"""The `format` of a key file (the secret the table signs with)."""
ALGORITHM = "Ed25519"
KEY_ID_HEX = 16
"""Hex digits of SHA-256(public key) that make a key id."""


class UnusableKey(ValueError):
    """A key file or a published key that cannot be used (the message says why)."""


def signed_message(game_id: str, n: int, event_hash: str, team: int | None = None) -> bytes:
    """Return the bytes an event's signature is made over: ``speed-event/1:<game_id>:<n>:<hash>`` in UTF-8; for
    entry `n` of team `team`'s log ``speed-event/1:<game_id>:team<team>:<n>:<hash>``."""
    if team is None:
        return f"{SIGNATURE_CONTEXT}:{game_id}:{n}:{event_hash}".encode()
    if isinstance(team, bool) or not isinstance(team, int) or team < 0:
        raise ValueError(f"a team index is a non-negative integer, not {team!r}")
    return f"{SIGNATURE_CONTEXT}:{game_id}:team{team}:{n}:{event_hash}".encode()


def key_id(public_raw: bytes) -> str:
    """Return the key id of a raw 32-byte Ed25519 public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_raw).hexdigest()[:KEY_ID_HEX]


@dataclass(frozen=True)
class PublicKey:
    """A published verification key: its id and the raw public key (32 bytes)."""

    kid: str
    raw: bytes

    @staticmethod
    def from_json(data: Any) -> PublicKey:
        """Read ``{"kid", "public_key": hex}`` (``alg``, if given, must be Ed25519); the kid must be the key's."""
        if not isinstance(data, Mapping):
            raise UnusableKey("Ein Schlüssel ist kein JSON-Objekt.")
        if data.get("alg", ALGORITHM) != ALGORITHM:
            raise UnusableKey(f"Schlüssel {data.get('kid')!r}: Verfahren {data.get('alg')!r} statt {ALGORITHM}.")
        try:
            raw = bytes.fromhex(str(data["public_key"]))
        except (KeyError, ValueError):
            raise UnusableKey(f"Schlüssel {data.get('kid')!r}: kein öffentlicher Schlüssel in Hex.") from None
        if len(raw) != 32:
            raise UnusableKey(f"Schlüssel {data.get('kid')!r}: ein Ed25519-Schlüssel hat 32 Bytes, nicht {len(raw)}.")
        if data.get("kid") != key_id(raw):
            raise UnusableKey(f"Schlüssel {data.get('kid')!r}: die Kennung ist nicht {key_id(raw)} "
                            "(die ersten 16 Hex-Ziffern von SHA-256 des Schlüssels).")
        return PublicKey(kid=key_id(raw), raw=raw)

    @cached_property
    def _key(self) -> Ed25519PublicKey:
        return Ed25519PublicKey.from_public_bytes(self.raw)

    def to_json(self) -> dict[str, str]:
        """The key as published: ``{"kid", "alg": "Ed25519", "public_key": hex}``."""
        return {"kid": self.kid, "alg": ALGORITHM, "public_key": self.raw.hex()}

    def verifies(self, message: bytes, signature_hex: Any) -> bool:
        """True if `signature_hex` (128 hex digits) is this key's Ed25519 signature of `message`."""
        if not isinstance(signature_hex, str):
            return False
        try:
            signature = bytes.fromhex(signature_hex)
            self._key.verify(signature, message)
        except (ValueError, InvalidSignature):
            return False
        return True


def public_keys(entries: Any) -> dict[str, PublicKey]:
    """Return published keys (a list of ``{"kid", "public_key"}``) by key id; UnusableKey for an unusable one."""
    if not isinstance(entries, list):
        raise UnusableKey("Die Schlüssel sind keine Liste.")
    keys = [PublicKey.from_json(entry) for entry in entries]
    return {key.kid: key for key in keys}


@dataclass
class Keyring:
    """The table's signing keys: every known key (public halves always, private ones where kept) and the
    active one, which signs. Old keys stay in the ring, public only, so every game signed with them verifies."""

    active: str
    keys: dict[str, PublicKey]
    _signers: dict[str, Ed25519PrivateKey] = field(default_factory=dict, repr=False)
    _derived: dict[tuple[str, bytes], bytes] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.active not in self._signers:
            raise UnusableKey(f"Der aktive Schlüssel {self.active!r} hat keinen privaten Teil im Schlüsselbund.")
        self._active_key = self._signers[self.active]

    # ---- reading and writing --------------------------------------------------------------------------
    @staticmethod
    def from_json(data: Any) -> Keyring:
        """Read a key file (``speed-signing-keys/1``); UnusableKey says what is wrong."""
        if not isinstance(data, Mapping) or data.get("format") != KEYS_FORMAT:
            raise UnusableKey(f"Die Schlüsseldatei hat nicht das Format {KEYS_FORMAT}.")
        entries = data.get("keys")
        if not isinstance(entries, list) or not entries:
            raise UnusableKey("Die Schlüsseldatei nennt keine Schlüssel.")
        keys: dict[str, PublicKey] = {}
        signers: dict[str, Ed25519PrivateKey] = {}
        for entry in entries:
            public = PublicKey.from_json(entry)
            keys[public.kid] = public
            if entry.get("private_key"):
                try:
                    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(str(entry["private_key"])))
                except ValueError:
                    raise UnusableKey(f"Schlüssel {public.kid}: der private Teil ist kein Ed25519-Schlüssel.") from None
                if private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) != public.raw:
                    raise UnusableKey(f"Schlüssel {public.kid}: privater und öffentlicher Teil gehören nicht zusammen.")
                signers[public.kid] = private
        return Keyring(active=str(data.get("active")), keys=keys, _signers=signers)

    @staticmethod
    def load(path: str | Path) -> Keyring:
        """Read a key file from `path`."""
        try:
            return Keyring.from_json(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as error:
            if isinstance(error, UnusableKey):
                raise
            raise UnusableKey(f"Die Schlüsseldatei {path} lässt sich nicht lesen ({error}).") from None

    @staticmethod
    def generate() -> Keyring:
        """A ring with one fresh key, active."""
        return Keyring.from_json(new_key_file())

    def to_json(self) -> dict[str, Any]:
        """The key file of this ring (private halves included: a secret)."""
        entries = []
        for kid, public in self.keys.items():
            entry: dict[str, Any] = {"kid": kid, "public_key": public.raw.hex()}
            if kid in self._signers:
                entry["private_key"] = _private_hex(self._signers[kid])
            entries.append(entry)
        return {"format": KEYS_FORMAT, "active": self.active, "keys": entries}

    # ---- using -----------------------------------------------------------------------------------------
    def published(self) -> list[dict[str, Any]]:
        """Every key's public half as published (``GET /keys``), the active one marked."""
        return [{**key.to_json(), "active": kid == self.active} for kid, key in self.keys.items()]

    def published_for(self, kids: Iterable[str]) -> list[dict[str, str]]:
        """The published keys among `kids` (an export's: the keys that signed its events), in the ring's order."""
        wanted = set(kids)
        return [key.to_json() for kid, key in self.keys.items() if kid in wanted]

    def sign(self, game_id: str, n: int, event_hash: str, team: int | None = None) -> dict[str, str]:
        """Return the envelope's ``sig``: the active key's id and its signature of the event's hash, hex (`team`:
        the entry is team `team`'s log's, `signed_message`)."""
        signature = self._active_key.sign(signed_message(game_id, n, event_hash, team))
        return {"kid": self.active, "sig": signature.hex()}

    def derived_key(self, kid: str, purpose: bytes) -> bytes | None:
        """Return a 32-byte secret for `purpose`, derived (HKDF-SHA256) from the private half of key `kid`; None when
        the ring holds no private half of that key. Every table replica with that key derives the same secret, and
        nothing derived for one purpose tells anything about the key or another purpose's secret."""
        derived = self._derived.get((kid, purpose))
        if derived is None:
            signer = self._signers.get(kid)
            if signer is None:
                return None
            seed = signer.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
            derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(seed)
            self._derived[(kid, purpose)] = derived
        return derived

    def signed(self, event: Event, team: int | None = None) -> Event:
        """Return `event` with its signature (``sig``) beside its hash (`team`: an entry of that team's log)."""
        return Event(game_id=event.game_id, n=event.n, type=event.type, at=event.at, actor=event.actor,
                     rules=event.rules, data=event.data, prev=event.prev, hash=event.hash,
                     sig=self.sign(event.game_id, event.n, event.hash, team))


def _private_hex(key: Ed25519PrivateKey) -> str:
    raw: bytes = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return raw.hex()


def new_key_entry(now: datetime | None = None) -> dict[str, str]:
    """A fresh Ed25519 key as a key file entry: ``{"kid", "public_key", "private_key", "created"}``."""
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    created = (now or datetime.now(UTC)).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"kid": key_id(raw), "public_key": raw.hex(), "private_key": _private_hex(private), "created": created}


def new_key_file() -> dict[str, Any]:
    """A key file with one fresh key, active."""
    entry = new_key_entry()
    return {"format": KEYS_FORMAT, "active": entry["kid"], "keys": [entry]}


def with_new_key(key_file: Mapping[str, Any]) -> dict[str, Any]:
    """Return `key_file` with a fresh key added, not yet active (step 1 of a rotation: every table replica learns
    and publishes the new key before any signs with it)."""
    return {"format": KEYS_FORMAT, "active": key_file.get("active"),
            "keys": [*(dict(item) for item in key_file.get("keys") or []), new_key_entry()]}


def activated(key_file: Mapping[str, Any], kid: str, *, drop_old_private: bool = True) -> dict[str, Any]:
    """Return `key_file` with key `kid` active (step 2 of a rotation); the other keys stay, public halves always
    (their games verify), private halves only with `drop_old_private` False."""
    keys = [dict(item) for item in key_file.get("keys") or []]
    if not any(item.get("kid") == kid and item.get("private_key") for item in keys):
        raise UnusableKey(f"Der Schlüssel {kid!r} ist nicht mit privatem Teil in der Schlüsseldatei.")
    if drop_old_private:
        for item in keys:
            if item.get("kid") != kid:
                item.pop("private_key", None)
    return {"format": KEYS_FORMAT, "active": kid, "keys": keys}


def rotated(key_file: Mapping[str, Any], *, drop_old_private: bool = True) -> dict[str, Any]:
    """Return `key_file` with a fresh key added and made active at once (`with_new_key`, then `activated`)."""
    added = with_new_key(key_file)
    return activated(added, str(added["keys"][-1]["kid"]), drop_old_private=drop_old_private)


def configured_keyring(keys_json: str, keys_file: str) -> Keyring | None:
    """The ring the settings name (TABLE_SIGNING_KEYS, the JSON itself, before TABLE_SIGNING_KEYS_FILE, a path);
    None when neither is set. UnusableKey when the one named cannot be used."""
    if keys_json.strip():
        try:
            return Keyring.from_json(json.loads(keys_json))
        except ValueError as error:
            if isinstance(error, UnusableKey):
                raise
            raise UnusableKey(f"TABLE_SIGNING_KEYS ist kein JSON ({error}).") from None
    if keys_file:
        return Keyring.load(keys_file)
    return None


def ensure_key_file(path: Path) -> Path:
    """Return `path`, a key file with one fresh key written there first (mode 0600) unless it exists: `make run`
    and the tests keep their table's keys in their data folder, so a restart signs with the same key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            json.dump(new_key_file(), out, indent=2)
    return path
