"""Bearer tokens: a checked token is remembered, but never past its expiry and never for another secret."""

from __future__ import annotations

import pytest

from libs.platform.auth import Identity, InvalidToken, PlayerKind, issue_token, verify_token

SECRET = "a-test-secret-0123456789abcdef0123456789"
ANNA = Identity(player_id="anna-1", name="Anna", kind=PlayerKind.GUEST)


def test_a_token_verifies_again_and_again_with_its_own_secret_only() -> None:
    token = issue_token(SECRET, ANNA)
    assert verify_token(SECRET, token) == ANNA
    assert verify_token(SECRET, token) == ANNA
    with pytest.raises(InvalidToken):
        verify_token(SECRET[::-1], token)
    with pytest.raises(InvalidToken):
        verify_token(SECRET, token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1])


def test_an_expired_token_is_refused() -> None:
    expired = issue_token(SECRET, ANNA, days=-1)
    with pytest.raises(InvalidToken):
        verify_token(SECRET, expired)
