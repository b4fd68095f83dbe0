"""Bearer tokens: the lobby issues them, every service verifies them with the shared secret."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

import jwt

_ALGORITHM = "HS256"
_ISSUER = "speed-lobby"


class PlayerKind(StrEnum):
    """Guests play without an account and without stakes; registered players have a wallet."""

    GUEST = "guest"
    REGISTERED = "registered"


@dataclass(frozen=True)
class Identity:
    """Who a verified token belongs to."""

    player_id: str
    name: str
    kind: PlayerKind


class InvalidToken(Exception):
    """The token is missing, malformed, expired or not signed by us."""


def issue_token(secret: str, identity: Identity, days: int = 30) -> str:
    """Return a signed bearer token for `identity`, valid for `days`."""
    now = datetime.now(UTC)
    claims = {
        "sub": identity.player_id,
        "name": identity.name,
        "kind": identity.kind.value,
        "iss": _ISSUER,
        "iat": now,
        "exp": now + timedelta(days=days),
    }
    return jwt.encode(claims, secret, algorithm=_ALGORITHM)


def verify_token(secret: str, token: str) -> Identity:
    """Return the identity of a valid token, or raise InvalidToken."""
    try:
        claims = jwt.decode(token, secret, algorithms=[_ALGORITHM], issuer=_ISSUER,
                            options={"require": ["sub", "exp", "iss"]})
        return Identity(player_id=claims["sub"], name=claims["name"], kind=PlayerKind(claims["kind"]))
    except (jwt.PyJWTError, KeyError, ValueError) as error:
        raise InvalidToken(str(error)) from error
