"""The refusals the lobby gives, each with the German reason a player reads."""

from __future__ import annotations

from libs.platform.rpc import CommandRefused


def table_not_found() -> CommandRefused:
    """The table id is unknown (or the table was dissolved)."""
    return CommandRefused(404, "Diesen Tisch gibt es nicht (mehr).", "table_not_found")


def invalid(reason: str, code: str = "invalid") -> CommandRefused:
    """Input that is well-formed but not allowed (422)."""
    return CommandRefused(422, reason, code)


def conflict(reason: str, code: str) -> CommandRefused:
    """A command that does not fit the table's or player's current state (409)."""
    return CommandRefused(409, reason, code)
