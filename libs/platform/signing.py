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
"private_key"?, "created"?, "activated"?, "retired"?}]}``, all binary as lowercase hex; a retired key keeps only its
public half. Each key's history (`KeyPeriod`) is append-only: ``activated`` (when it became the active key, from when
it may sign) and ``retired`` (from when it signs no more) are written once and never moved or dropped, and a key
without ``activated`` is one of unknown period (key files written before issue 36).

Which games must be signed (`signatures_required`): every game of a rules version newer than signing, and every game
of the older versions begun from `SIGNED_SINCE` on; only older games may be unsigned.

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
HISTORY_FIELDS = ("created", "activated", "retired")
"""A key's history in a key file and in ``GET /keys``: UTC timestamps (ISO 8601, ``Z``), each written once."""

SIGNED_SINCE = "2026-12-03T00:00:00Z"
"""From this instant on the table signs every event of every game (issue 24 in production from 2 December 2026; the
day after, so that no game begun unsigned that day is refused): a game begun later without signatures was stripped."""
RULES_OLDER_THAN_SIGNING = frozenset({"speedmosaik@1", "speedkoi@1", "speednova@1", "speednova@2", "speedspore@1",
                                      "speedspore@2"})
"""The rules versions that were played before the table signed: only their games begun before `SIGNED_SINCE` may be
unsigned. Every later version is signed from its first game (a new version is not added here)."""


def parse_time(text: Any) -> datetime | None:
    """Return an ISO 8601 timestamp with offset (``2026-12-03T00:00:00Z``, ``…:14.377Z``) as an aware datetime;
    None when it is no such timestamp."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def signatures_required(rules_id: str, started_at: str) -> bool:
    """True if a game of `rules_id` begun at `started_at` (its GameStarted's ``at``) was signed by the table: its
    version is newer than signing, or it began from `SIGNED_SINCE` on (an unreadable time counts as late)."""
    if rules_id not in RULES_OLDER_THAN_SIGNING:
        return True
    started = parse_time(started_at)
    since = parse_time(SIGNED_SINCE)
    return started is None or since is None or started >= since


def _now_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class KeyPeriod:
    """A key's history: when it was made, from when it signed (``activated``) and from when it signs no more
    (``retired``). An unknown bound (None) is open: a key without ``activated`` is one of unknown period, valid at
    any time as far as its history tells."""

    created: str | None = None
    activated: str | None = None
    retired: str | None = None

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> KeyPeriod:
        """Read the history fields of a key entry (absent or null: unknown); UnusableKey for an unreadable time or a
        key retired before it was activated."""
        values: dict[str, str | None] = {}
        for name in HISTORY_FIELDS:
            value = data.get(name)
            if value is not None and parse_time(value) is None:
                raise UnusableKey(f"Schlüssel {data.get('kid')!r}: {name} ist kein Zeitpunkt (ISO 8601 mit Zone): "
                                  f"{value!r}.")
            values[name] = value
        period = KeyPeriod(**values)
        start, end = parse_time(period.activated), parse_time(period.retired)
        if start is not None and end is not None and end < start:
            raise UnusableKey(f"Schlüssel {data.get('kid')!r}: ausgemustert ({period.retired}) vor seiner Aktivierung "
                              f"({period.activated}).")
        return period

    def to_json(self) -> dict[str, str]:
        """The known history fields (unknown ones left out)."""
        return {name: value for name in HISTORY_FIELDS if (value := getattr(self, name)) is not None}

    @property
    def known(self) -> bool:
        """True when the history says from when the key signed."""
        return self.activated is not None

    def covers(self, at: str) -> bool:
        """True if a signature made at `at` lies in the period (bounds included; an unknown bound is open; an
        unreadable `at` lies in no known period)."""
        if self.activated is None and self.retired is None:
            return True
        moment = parse_time(at)
        if moment is None:
            return False
        start, end = parse_time(self.activated), parse_time(self.retired)
        return (start is None or moment >= start) and (end is None or moment <= end)

    def shown(self) -> str:
        """The period in German: "von 2026-12-03T10:00:00Z bis 2027-01-01T00:00:00Z", "seit …", "unbekannt"."""
        if self.activated and self.retired:
            return f"von {self.activated} bis {self.retired}"
        if self.activated:
            return f"seit {self.activated}"
        if self.retired:
            return f"bis {self.retired}"
        return "unbekannt"


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


def published_history(entries: Any) -> dict[str, tuple[PublicKey, KeyPeriod]]:
    """Return published keys with their history (a ``GET /keys`` answer's ``keys``, or a key file's) by key id; every
    key id must be its key's digest. UnusableKey for an unusable key or history."""
    if not isinstance(entries, list):
        raise UnusableKey("Die Schlüssel sind keine Liste.")
    history: dict[str, tuple[PublicKey, KeyPeriod]] = {}
    for entry in entries:
        key = PublicKey.from_json(entry)
        history[key.kid] = (key, KeyPeriod.from_json(entry))
    return history


@dataclass
class Keyring:
    """The table's signing keys: every known key (public halves always, private ones where kept) and the
    active one, which signs. Old keys stay in the ring, public only, so every game signed with them verifies."""

    active: str
    keys: dict[str, PublicKey]
    _signers: dict[str, Ed25519PrivateKey] = field(default_factory=dict, repr=False)
    _derived: dict[tuple[str, bytes], bytes] = field(default_factory=dict, repr=False)
    periods: dict[str, KeyPeriod] = field(default_factory=dict)
    """Key id -> its history (`KeyPeriod`; missing: unknown)."""

    def __post_init__(self) -> None:
        if self.active not in self._signers:
            raise UnusableKey(f"Der aktive Schlüssel {self.active!r} hat keinen privaten Teil im Schlüsselbund.")
        retired = self.period(self.active).retired
        if retired is not None:
            raise UnusableKey(f"Der aktive Schlüssel {self.active!r} ist seit {retired} ausgemustert und signiert "
                              "nicht mehr.")
        self._active_key = self._signers[self.active]

    def period(self, kid: str) -> KeyPeriod:
        """The history of key `kid` (unknown when the key file names none)."""
        return self.periods.get(kid) or KeyPeriod()

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
        periods: dict[str, KeyPeriod] = {}
        for entry in entries:
            public = PublicKey.from_json(entry)
            keys[public.kid] = public
            periods[public.kid] = KeyPeriod.from_json(entry)
            if entry.get("private_key"):
                try:
                    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(str(entry["private_key"])))
                except ValueError:
                    raise UnusableKey(f"Schlüssel {public.kid}: der private Teil ist kein Ed25519-Schlüssel.") from None
                if private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) != public.raw:
                    raise UnusableKey(f"Schlüssel {public.kid}: privater und öffentlicher Teil gehören nicht zusammen.")
                signers[public.kid] = private
        return Keyring(active=str(data.get("active")), keys=keys, _signers=signers, periods=periods)

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
            entries.append({**entry, **self.period(kid).to_json()})
        return {"format": KEYS_FORMAT, "active": self.active, "keys": entries}

    # ---- using -----------------------------------------------------------------------------------------
    def published(self) -> list[dict[str, Any]]:
        """Every key's public half as published (``GET /keys``), the active one marked, with its known history
        (``created``, ``activated``, ``retired``; ``GET /keys`` shows an unknown one as null)."""
        return [{**key.to_json(), "active": kid == self.active, **self.period(kid).to_json()}
                for kid, key in self.keys.items()]

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


def new_key_entry(now: datetime | None = None, private: Ed25519PrivateKey | None = None) -> dict[str, str]:
    """A fresh Ed25519 key (or `private`'s) as a key file entry: ``{"kid", "public_key", "private_key", "created"}``."""
    private = private or Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {"kid": key_id(raw), "public_key": raw.hex(), "private_key": _private_hex(private),
            "created": _now_stamp(now)}


def new_key_file(now: datetime | None = None, private: Ed25519PrivateKey | None = None) -> dict[str, Any]:
    """A key file with one fresh key (or `private`), active since `now`."""
    entry = new_key_entry(now, private)
    return {"format": KEYS_FORMAT, "active": entry["kid"], "keys": [{**entry, "activated": entry["created"]}]}


def with_new_key(key_file: Mapping[str, Any], now: datetime | None = None,
                 private: Ed25519PrivateKey | None = None) -> dict[str, Any]:
    """Return `key_file` with a fresh key (or `private`) added, not yet active (step 1 of a rotation: every table
    replica learns and publishes the new key before any signs with it)."""
    return {"format": KEYS_FORMAT, "active": key_file.get("active"),
            "keys": [*(dict(item) for item in key_file.get("keys") or []), new_key_entry(now, private)]}


def activated(key_file: Mapping[str, Any], kid: str, *, drop_old_private: bool = True,
              now: datetime | None = None) -> dict[str, Any]:
    """Return `key_file` with key `kid` active (step 2 of a rotation) and ``activated`` at `now` unless it was
    activated before; the other keys stay, public halves and history always (their games verify), private halves
    only with `drop_old_private` False. A retired key is never activated again. The key active before keeps signing
    on the replicas not yet restarted: its end is recorded by `retired` once the rollout is done (step 3)."""
    keys = [dict(item) for item in key_file.get("keys") or []]
    chosen = next((item for item in keys if item.get("kid") == kid and item.get("private_key")), None)
    if chosen is None:
        raise UnusableKey(f"Der Schlüssel {kid!r} ist nicht mit privatem Teil in der Schlüsseldatei.")
    if chosen.get("retired"):
        raise UnusableKey(f"Der Schlüssel {kid!r} ist seit {chosen['retired']} ausgemustert und wird nicht wieder "
                          "aktiv.")
    if not chosen.get("activated"):
        chosen["activated"] = _now_stamp(now)
    if drop_old_private:
        for item in keys:
            if item.get("kid") != kid:
                item.pop("private_key", None)
    return {"format": KEYS_FORMAT, "active": kid, "keys": keys}


def retired(key_file: Mapping[str, Any], kid: str, now: datetime | None = None) -> dict[str, Any]:
    """Return `key_file` with key `kid`'s end recorded (``retired`` at `now`, step 3 of a rotation, once no replica
    signs with it any more) and its private half dropped: from then on a signature by it is outside its period. The
    active key is never retired, and a recorded end is never moved."""
    keys = [dict(item) for item in key_file.get("keys") or []]
    chosen = next((item for item in keys if item.get("kid") == kid), None)
    if chosen is None:
        raise UnusableKey(f"Der Schlüssel {kid!r} ist nicht in der Schlüsseldatei.")
    if kid == key_file.get("active"):
        raise UnusableKey(f"Der Schlüssel {kid!r} ist der aktive; erst einen anderen aktivieren.")
    if chosen.get("retired"):
        raise UnusableKey(f"Der Schlüssel {kid!r} ist schon seit {chosen['retired']} ausgemustert.")
    chosen["retired"] = _now_stamp(now)
    chosen.pop("private_key", None)
    KeyPeriod.from_json(chosen)
    return {"format": KEYS_FORMAT, "active": key_file.get("active"), "keys": keys}


def kept_history(before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    """Raise UnusableKey unless key file `after` keeps every key of `before` with the same public half and history
    (a bound unknown before may become known; none that was known may change or go): key history is append-only."""
    now = {item.get("kid"): item for item in after.get("keys") or [] if isinstance(item, Mapping)}
    for item in before.get("keys") or []:
        kid = item.get("kid")
        kept = now.get(kid)
        if kept is None or kept.get("public_key") != item.get("public_key"):
            raise UnusableKey(f"Der Schlüssel {kid!r} fehlte danach oder hätte einen anderen öffentlichen Teil: "
                              "die Schlüsselgeschichte wird nur ergänzt.")
        for name in HISTORY_FIELDS:
            if item.get(name) is not None and kept.get(name) != item.get(name):
                raise UnusableKey(f"Schlüssel {kid!r}: {name} ({item.get(name)}) würde geändert: die "
                                  "Schlüsselgeschichte wird nur ergänzt.")


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
