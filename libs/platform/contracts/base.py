"""What every contract shares: a msgspec Struct base with one encode/decode pair, and German refusals.

A contract is the one typed definition of a message between services: the sender builds it, every
receiver decodes into it. Decoding never guesses: a message that does not fit raises `ContractError`,
whose `reason` is German (commands answer it as a 422 refusal; consumers log it and skip the message).
Unknown fields are ignored on decoding, so a sender may add optional fields without breaking older
readers; fields are never renamed or removed (old logs must still decode).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self

import msgspec

__all__ = ["Contract", "ContractError", "german_reason"]

_TYPE_NAMES = {
    "int": "eine ganze Zahl",
    "float": "eine Zahl",
    "str": "ein Text",
    "bool": "wahr oder falsch",
    "object": "ein JSON-Objekt",
    "array": "eine Liste",
    "null": "nichts",
}
_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]+)`")
_EXPECTED = re.compile(r"^Expected `(?P<expected>[^`]+)`(?P<constraint>[^,]*)(?:, got `(?P<got>[^`]+)`)?")


class ContractError(ValueError):
    """A message that does not fit its contract; `reason` is the German sentence a caller reads."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _type_name(name: str) -> str:
    return " oder ".join(_TYPE_NAMES.get(part.strip(), part.strip()) for part in name.split("|"))


def german_reason(error: msgspec.DecodeError, what: str) -> str:
    """Translate msgspec's (English) decoding error about `what` into a German sentence."""
    if not isinstance(error, msgspec.ValidationError):
        return f"{what} ist kein gültiges JSON."
    message = str(error)
    path = ""
    at = _AT.search(message)
    if at is not None:
        path = at.group("path").lstrip(".")
        message = message[: at.start()]
    missing = _MISSING.match(message)
    if missing is not None:
        field = f"{path}.{missing.group('field')}" if path else missing.group("field")
        return f"{what} ist unvollständig: „{field}“ fehlt."
    expected = _EXPECTED.match(message)
    if expected is not None:
        wanted = _type_name(expected.group("expected"))
        if not path and expected.group("expected") == "object":
            return f"{what} muss ein JSON-Objekt sein."
        constraint = expected.group("constraint").strip()
        detail = f"erwartet: {wanted}" + (f" ({constraint})" if constraint else "")
        return f"{what} ist ungültig: „{path or 'die Nachricht'}“ hat die falsche Form ({detail})."
    return f"{what} ist ungültig: „{path or 'die Nachricht'}“ stimmt nicht."


class Contract(msgspec.Struct, kw_only=True, frozen=True):
    """Base of every contract type: `encode`/`decode` for the wire, `to_data`/`from_data` for plain dicts.

    `WHAT` names the message in German refusals ("Die Anfrage table.cmd.move", "Das Ereignis MoveMade").
    """

    WHAT: ClassVar[str] = "Die Nachricht"

    def encode(self) -> bytes:
        """Return the message as JSON bytes (for NATS)."""
        return msgspec.json.encode(self)

    def to_data(self) -> dict[str, Any]:
        """Return the message as plain JSON data (dicts, lists, str, int, float, bool, None)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        return data

    @classmethod
    def decode(cls, raw: bytes | str) -> Self:
        """Parse JSON bytes into this contract, or raise ContractError with a German reason."""
        try:
            decoded: Self = _decoder(cls).decode(raw)
        except msgspec.DecodeError as error:
            raise ContractError(german_reason(error, cls.WHAT)) from error
        except RecursionError as error:  # msgspec's nesting limit: a hostile message, not a fault of ours
            raise ContractError(f"{cls.WHAT} ist zu tief verschachtelt.") from error
        return decoded

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | Any) -> Self:
        """Read plain JSON data (e.g. an event's `data`) into this contract, or raise ContractError."""
        try:
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as error:
            raise ContractError(german_reason(error, cls.WHAT)) from error


_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def _decoder(kind: type[Any]) -> msgspec.json.Decoder[Any]:
    decoder = _DECODERS.get(kind)
    if decoder is None:
        decoder = _DECODERS[kind] = msgspec.json.Decoder(kind)
    return decoder
