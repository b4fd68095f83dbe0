"""Who reads a finished game's log: one of its players (their seat), an operator (everything), or nobody known."""

from __future__ import annotations

from dataclasses import dataclass

from libs.platform.auth import InvalidToken, Operator, verify_operator_token
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime, bearer_token, identity_of
from services.table.records import Seat


@dataclass(frozen=True)
class Viewer:
    """The reader of a log: `seat` for one of the game's players, `operator` for an operator, neither else."""

    seat: int | None = None
    operator: Operator | None = None

    @property
    def is_operator(self) -> bool:
        return self.operator is not None

    @property
    def scope(self) -> str:
        """"operator" (whole), "seat" (own private parts, the others' as digests) or "public"."""
        return "operator" if self.operator else "seat" if self.seat is not None else "public"


def viewer_of(runtime: Runtime, seats: tuple[Seat, ...], authorization: str | None) -> Viewer:
    """Return who the `Authorization` header names: an operator token, a player token (their seat in this
    game, if any), or no header at all (public). A header that is no valid token is refused (401)."""
    if not authorization:
        return Viewer()
    token = bearer_token(authorization) or authorization
    try:
        return Viewer(operator=verify_operator_token(runtime.settings.auth_secret, token))
    except InvalidToken:
        pass
    identity = identity_of(runtime, token)
    return Viewer(seat=next((seat.index for seat in seats if seat.player_id == identity.player_id), None))


def require_player_or_operator(viewer: Viewer) -> None:
    """Refuse (403) a reader who neither played this game nor runs the platform."""
    if viewer.seat is None and not viewer.is_operator:
        raise CommandRefused(403, "Nur wer an dieser Partie saß, und der Betrieb dürfen sie so lesen.",
                             "not_seated")
