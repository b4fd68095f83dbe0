"""Bearer tokens: the lobby issues them, every service verifies them with the shared secret."""

from __future__ import annotations

import time
from collections import OrderedDict
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


_VERIFIED: OrderedDict[tuple[str, str], tuple[Identity, float]] = OrderedDict()
_VERIFIED_MAX = 10_000
"""Tokens whose signature was checked, with their expiry: a player sends the same token with every request,
and checking its signature again each time cost more than the table's work on a view."""


def verify_token(secret: str, token: str) -> Identity:
    """Return the identity of a valid token, or raise InvalidToken (an expired one even if seen before)."""
    key = (secret, token)
    known = _VERIFIED.get(key)
    if known is not None:
        identity, expires = known
        if time.time() < expires:
            _VERIFIED.move_to_end(key)
            return identity
        del _VERIFIED[key]
    try:
        claims = jwt.decode(token, secret, algorithms=[_ALGORITHM], issuer=_ISSUER,
                            options={"require": ["sub", "exp", "iss"]})
        identity = Identity(player_id=claims["sub"], name=claims["name"], kind=PlayerKind(claims["kind"]))
    except (jwt.PyJWTError, KeyError, ValueError) as error:
        raise InvalidToken(str(error)) from error
    _VERIFIED[key] = (identity, float(claims["exp"]))
    if len(_VERIFIED) > _VERIFIED_MAX:
        _VERIFIED.popitem(last=False)
    return identity


_OPERATOR_ISSUER = "speed-operator"
"""Operators' tokens carry their own issuer: a player token is never an operator's, nor the other way round."""


@dataclass(frozen=True)
class Operator:
    """Someone who runs the platform (support, dispute handling): may read any game whole once it has ended."""

    name: str


def issue_operator_token(secret: str, name: str, hours: int = 12) -> str:
    """Return a signed operator token for `name`, valid for `hours` (minted by `speed operator-token`)."""
    now = datetime.now(UTC)
    claims = {"sub": name, "iss": _OPERATOR_ISSUER, "iat": now, "exp": now + timedelta(hours=hours)}
    return jwt.encode(claims, secret, algorithm=_ALGORITHM)


def verify_operator_token(secret: str, token: str) -> Operator:
    """Return the operator of a valid operator token, or raise InvalidToken (player tokens included)."""
    try:
        claims = jwt.decode(token, secret, algorithms=[_ALGORITHM], issuer=_OPERATOR_ISSUER,
                            options={"require": ["sub", "exp", "iss"]})
    except jwt.PyJWTError as error:
        raise InvalidToken(str(error)) from error
    return Operator(name=str(claims["sub"]))
