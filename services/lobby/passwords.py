"""Password hashing with scrypt and a random salt per password."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_N, _R, _P, _LENGTH = 2**14, 8, 1, 32


def hash_password(password: str) -> str:
    """Return a self-describing scrypt hash `scrypt$n$r$p$salt$hash` of `password`."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=_LENGTH)
    return "$".join(["scrypt", str(_N), str(_R), str(_P), _b64(salt), _b64(digest)])


def verify_password(password: str, stored: str) -> bool:
    """Return whether `password` matches the stored hash (constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    expected = base64.b64decode(digest)
    actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                            dklen=len(expected))
    return hmac.compare_digest(actual, expected)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()
