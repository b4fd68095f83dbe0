"""The settings the `speed` command runs with: the services' own (environment), and, on a machine running
`make run`, that platform's NATS passwords, so the command works there without any variable set."""

from __future__ import annotations

from pathlib import Path

from libs.platform.settings import Settings, get_settings

MAKE_RUN_CREDENTIALS = Path(__file__).resolve().parents[2] / ".data" / "nats" / "credentials.json"
"""Where `make run` (libs/devservers/stack.py, data under .data/) keeps every NATS user's password."""


def operator_settings() -> Settings:
    """Return the environment's settings; without NATS credentials of their own, `make run`'s if it has any."""
    settings = get_settings()
    if not settings.nats_credentials and not settings.nats_user and MAKE_RUN_CREDENTIALS.is_file():
        return settings.model_copy(update={"nats_credentials": str(MAKE_RUN_CREDENTIALS)})
    return settings


async def quiet_nats_error(error: Exception) -> None:
    """nats-py's default error callback prints a traceback per failed attempt; the command reports once."""
