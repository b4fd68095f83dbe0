"""Keys pinned outside the export: what the audit verifies signatures with (docs/audit.md, "Keys: published,
rotated, kept").

An export names the keys that signed it (``signing_keys``), but whoever rewrote the export can rename them too: the
audit takes a key as the table's only when it is pinned by something the export does not control:

- ``keys_file``: a saved answer of the table's ``GET /keys`` (``speed audit --keys FILE``): public halves and each
  key's history (from when it signed, from when it signs no more), so every signature is checked against its
  key's period too;
- ``key_id``: a key id given on the command line (``--key-id KID``); the export may supply that key's public half,
  which counts only because a key id is the SHA-256 digest of its public key (checked wherever keys are read);
- ``receipts``: the key ids of the player's own receipts (``--receipts FILE``), received from the table itself;
- ``table``: the table's own keys, when the table audits a game it holds (``GET /games/{id}/audit``).

Key ids pinned without their public half or history (``key_id``, ``receipts``) are of unknown period.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from libs.platform.signing import KeyPeriod, PublicKey, UnusableKey, published_history

PIN_SOURCES = {
    "keys_file": "gespeicherte Schlüsselliste des Tisches",
    "key_id": "Schlüsselkennung auf der Befehlszeile",
    "receipts": "Quittungen des Spielers",
    "table": "die Schlüssel des Tisches selbst",
}
"""Each way of pinning keys and its German name (the verdict names the ones used)."""

_KID = re.compile(r"^[0-9a-f]{16}$")

HOW_TO_PIN = ("Die Signaturen sind nur mit den Schlüsseln geprüft, die der Export selbst nennt: sie belegen, dass er "
              "in sich stimmig ist, nicht, dass der Tisch ihn schrieb. Die Herkunft belegt erst ein festgelegter "
              "Schlüssel: --keys DATEI (gespeicherte Antwort von GET /keys), --key-id KENNUNG (die Kennung des "
              "Tischschlüssels) oder --receipts DATEI (die eigenen Quittungen).")
"""The German warning of an audit whose signatures held with no pinned key."""


@dataclass(frozen=True)
class PinnedKey:
    """A key pinned outside the export: its id, its public half and history when the pin gave them."""

    kid: str
    key: PublicKey | None = None
    """None: only the id is pinned (the export must supply the public half, whose digest the id is)."""
    period: KeyPeriod = field(default_factory=KeyPeriod)
    sources: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kid": self.kid, "sources": list(self.sources), "public_key": self.key.raw.hex() if self.key else None,
                **{"activated": None, "retired": None}, **self.period.to_json()}


@dataclass
class Pins:
    """The keys pinned for one audit, by key id, and the ways they were pinned (``PIN_SOURCES``)."""

    keys: dict[str, PinnedKey] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.sources)

    def add(self, pinned: PinnedKey) -> None:
        """Pin one more key (a key pinned twice keeps the public half and history the richer pin gave)."""
        for source in pinned.sources:
            if source not in self.sources:
                self.sources.append(source)
        known = self.keys.get(pinned.kid)
        if known is None:
            self.keys[pinned.kid] = pinned
            return
        richer = known if known.key is not None else pinned
        self.keys[pinned.kid] = PinnedKey(pinned.kid, richer.key, richer.period,
                                          tuple(dict.fromkeys([*known.sources, *pinned.sources])))

    def merged(self, other: Pins | None) -> Pins:
        """These pins and `other`'s together."""
        result = Pins(dict(self.keys), list(self.sources))
        for pinned in (other.keys.values() if other else ()):
            result.add(pinned)
        for source in (other.sources if other else ()):
            if source not in result.sources:
                result.sources.append(source)
        return result

    def to_json(self) -> dict[str, Any]:
        return {"sources": list(self.sources), "keys": [pinned.to_json() for pinned in self.keys.values()]}

    def shown(self) -> str:
        """The ways of pinning used, in German: "gespeicherte Schlüsselliste des Tisches, Quittungen des Spielers"."""
        return ", ".join(PIN_SOURCES.get(source, source) for source in self.sources)


def keys_answer_pins(data: Any, source: str = "keys_file") -> Pins:
    """Pins from a saved ``GET /keys`` answer (or its ``keys`` list, or a key file): every key with its history (no
    history: a key of unknown period). UnusableKey when a key is unusable or its id is not its key's digest."""
    entries = data.get("keys") if isinstance(data, Mapping) else data
    pins = Pins(sources=[source])
    for kid, (key, period) in published_history(entries).items():
        pins.add(PinnedKey(kid, key, period, (source,)))
    return pins


def trusted_pins(trusted: Mapping[str, PublicKey], source: str = "keys_file") -> Pins:
    """Pins from public keys alone (no history: each of unknown period)."""
    pins = Pins(sources=[source])
    for kid, key in trusted.items():
        pins.add(PinnedKey(kid, key, KeyPeriod(), (source,)))
    return pins


def key_id_pins(kids: Iterable[str], source: str = "key_id") -> Pins:
    """Pins from key ids alone (``--key-id``; the export supplies the public halves); none for no ids. UnusableKey
    for anything but 16 lowercase hex digits."""
    pins = Pins()
    for kid in kids:
        if not isinstance(kid, str) or not _KID.match(kid):
            raise UnusableKey(f"{kid!r} ist keine Schlüsselkennung (16 Hex-Ziffern, klein geschrieben).")
        pins.add(PinnedKey(kid, None, KeyPeriod(), (source,)))
    return pins


def receipt_pins(receipts: Iterable[Mapping[str, Any]], game_id: str) -> Pins:
    """Pins from a player's receipts (``libs.audit.receipts.read_receipts``) of game `game_id`: the key ids that
    signed them (the receipts themselves are proved against the export apart); none without a receipt of it."""
    return key_id_pins([str(receipt["kid"]) for receipt in receipts if receipt.get("game_id") == game_id], "receipts")
