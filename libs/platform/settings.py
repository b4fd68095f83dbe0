"""Configuration from environment variables, with defaults that run on a laptop."""

from __future__ import annotations

from functools import lru_cache

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_AUTH_SECRET = "dev-only-secret-change-me-0123456789abcdef"


class Settings(BaseSettings):
    """Everything a service reads from its environment; production refuses the development defaults."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    environment: str = "dev"
    nats_url: str = "nats://127.0.0.1:4222"
    database_url: str = "postgresql://postgres@127.0.0.1:5432/speed"
    auth_secret: str = DEV_AUTH_SECRET
    auth_token_days: int = 30
    log_level: str = "info"
    host: str = "127.0.0.1"
    port: int = 0
    # Ledger: what a newly registered player's wallet starts with (Taler).
    starting_balance: int = 1000
    # JetStream: copies of every stream (3 on a 3-node cluster; 1 on a single server such as `make run`).
    stream_replicas: int = 1
    # Table: the wall clock runs this many seconds behind (end-to-end tests let a 30 s think time end in
    # seconds without waiting); refused in production.
    clock_lag_seconds: float = 0.0
    # Extra rule modules to load, comma-separated dotted names exposing MODULE (e.g. "tests.rules.tinygame").
    rule_plugins: str = ""
    # Bot service: how many turn requests one replica works on at once.
    bot_concurrency: int = 4
    # Bot service: pause before a bot's move, so humans can follow (seconds; 0 in tests and demos).
    bot_move_delay: float = 0.0

    @model_validator(mode="after")
    def _refuse_unsafe_defaults(self) -> Settings:
        if self.environment == "production" and self.auth_secret == DEV_AUTH_SECRET:
            raise ValueError("AUTH_SECRET must be set in production")
        if self.environment == "production" and self.clock_lag_seconds:
            raise ValueError("CLOCK_LAG_SECONDS is for tests only")
        if len(self.auth_secret) < 32:
            raise ValueError("AUTH_SECRET must have at least 32 characters")
        return self

    @property
    def sqlalchemy_url(self) -> str:
        """The database URL with the psycopg 3 driver, as SQLAlchemy wants it."""
        url = self.database_url
        for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix):]
        return url


@lru_cache
def get_settings() -> Settings:
    """Return the process-wide settings (read once from the environment)."""
    return Settings()
