"""Configuration from environment variables, with defaults that run on a laptop."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_AUTH_SECRET = "dev-only-secret-change-me-0123456789abcdef"
TABLE_ROLES = ("api", "followup", "timers", "archive")
"""What a table process may do (docs/architecture.md, "Table roles"): `api` answers the HTTP routes and NATS
commands, `followup` runs the follow-up consumer (game ends, computer turns, clocks), `timers` acts on fired
think-time deadlines, `archive` copies every event into PostgreSQL and purges archived games from the
stream (docs/archive.md)."""


class Settings(BaseSettings):
    """Everything a service reads from its environment; production refuses the development defaults."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    environment: str = "dev"
    nats_url: str = "nats://127.0.0.1:4222"
    # NATS credentials (docs/operations.md, "NATS users and permissions"). In production each service gets
    # its own user and password from its Secret (NATS_USER, NATS_PASSWORD). `make run` and the tests instead
    # point NATS_CREDENTIALS at the dev server's JSON file of user -> password, and each service connects as
    # the user named after itself. Credentials inside NATS_URL (nats://user:password@host) are the fallback.
    nats_user: str = ""
    nats_password: str = ""
    nats_credentials: str = ""
    database_url: str = "postgresql://postgres@127.0.0.1:5432/speed"
    auth_secret: str = DEV_AUTH_SECRET
    auth_token_days: int = 30
    log_level: str = "info"
    host: str = "127.0.0.1"
    port: int = 0
    # Ledger: what a newly registered player's wallet starts with (Taler).
    starting_balance: int = 1000
    # Ledger: a stake held for a seat goes back to the wallet this long after it was held unless its game
    # started (a table never started, a hold whose reply was lost); the lobby closes a stake table that stayed
    # open for half of it. At least ten minutes, so a table has time to fill (docs/services/ledger.md).
    hold_ttl_seconds: int = Field(default=7200, ge=600)
    # JetStream: copies of every stream (3 on a 3-node cluster; 1 on a single server such as `make run`).
    stream_replicas: int = 1
    # Table: the wall clock runs this many seconds behind (end-to-end tests let a 30 s think time end in
    # seconds without waiting); refused in production.
    clock_lag_seconds: float = 0.0
    # Table: which roles this process runs, comma-separated (TABLE_ROLES above); all of them by default, so one
    # `python -m services.table` does everything. `make run`, the bench and the Kubernetes manifests run "api"
    # and "followup,timers,archive" as separate processes, so the follow-up never waits behind the commands.
    table_roles: str = ",".join(TABLE_ROLES)
    # Table, archive role (docs/archive.md): a finished game's subject leaves the GAMES stream this long after
    # its GameEnded (once every event of it is archived); the sweep looks for such games this often. The
    # archive connects to NATS as the user `archive` with this password (production; `make run` and the
    # tests read it from NATS_CREDENTIALS).
    archive_purge_grace_seconds: float = Field(default=3600.0, ge=0)
    archive_sweep_seconds: float = Field(default=30.0, gt=0)
    archive_nats_password: str = ""
    # Table, archive (docs/archive.md, "Retention"): the archive keeps the current month and this many months
    # before it online; `speed archive detach` refuses a newer month.
    archive_retention_months: int = Field(default=12, ge=1)
    # Table: the Ed25519 keys it signs every event's hash with (libs/platform/signing.py, docs/audit.md
    # "Signatures and receipts"): the key file's JSON itself (Kubernetes: from the Secret `speed-table-signing`)
    # or a path to it (`make run`: .data/keys/table-signing.json, the tests: one per session). Neither: the table
    # writes unsigned events (refused in production).
    table_signing_keys: str = ""
    table_signing_keys_file: str = ""
    # Table: serve GET /games/{id}/view and POST /games/{id}/moves by their lean path (services/table/
    # fast_routes.py: same answers, less CPU); false sends them through FastAPI like every other route.
    table_hot_routes: bool = True
    # Table API replicas: game affinity (docs/architecture.md, "Game affinity"). On, each replica serves the
    # command partitions it holds a lease for (renewed every third of TABLE_LEASE_SECONDS; a dead replica's
    # partitions go to the living ones once its leases run out); off, every replica takes any game's commands
    # from the shared queue group, as before (correct either way: the log refuses a stale append).
    table_affinity: bool = True
    table_lease_seconds: int = Field(default=6, ge=2)
    # Extra rule modules to load, comma-separated dotted names exposing MODULE (e.g. "tests.rules.tinygame").
    rule_plugins: str = ""
    # Bot service: how many turn requests one replica works on at once.
    bot_concurrency: int = 4
    # Bot service: pause before a bot's move, so humans can follow (seconds; 0 in tests and demos).
    bot_move_delay: float = 0.0
    # Rate limits (docs/architecture.md, "Limits"); 0 turns a limit off. A client is the connection's peer
    # address, or, when that peer is one of TRUSTED_PROXIES (addresses or networks, comma-separated), the
    # address its X-Forwarded-For names. Per replica unless said otherwise.
    trusted_proxies: str = ""
    rate_limit_per_second: float = 50.0  # every service: requests per client, sustained ...
    rate_limit_burst: int = 200  # ... and at once
    login_attempts_per_minute: float = 10.0  # lobby, per client; a failed attempt costs three
    login_failures_per_account: int = 5  # lobby, per account name within the window, over all replicas
    login_failure_window_seconds: int = 300
    signups_per_hour: float = 30.0  # lobby: guests and registrations per client ...
    signup_burst: int = 10  # ... and at once (`make demo` signs up three guests a run)
    live_streams_per_client: int = 20  # table: open live streams per client address
    live_streams_per_account: int = 4  # table: open live streams per player
    live_streams_anonymous: int = 500  # table: spectators' streams (no token) in all
    # Web front end (services/web): the public HTTP APIs it builds its pages from (it has no NATS user and no
    # database), and whether its cookies are marked Secure: "auto" when the request came over TLS (directly or
    # as a trusted proxy's X-Forwarded-Proto says), "true" always, "false" never.
    lobby_url: str = "http://127.0.0.1:8101"
    table_url: str = "http://127.0.0.1:8102"
    leaderboard_url: str = "http://127.0.0.1:8105"
    bot_url: str = "http://127.0.0.1:8103"
    web_cookie_secure: str = "auto"
    # Web front end: offer the games the lobby marks `test_game` (the conformance suite's tiny game, loaded
    # through RULE_PLUGINS) on the start page, "Meine Seite" and Zuschauen; for development and the browser tests.
    web_show_test_games: bool = False

    @model_validator(mode="after")
    def _refuse_unsafe_defaults(self) -> Settings:
        if self.environment == "production" and self.auth_secret == DEV_AUTH_SECRET:
            raise ValueError("AUTH_SECRET must be set in production")
        if self.environment == "production" and self.clock_lag_seconds:
            raise ValueError("CLOCK_LAG_SECONDS is for tests only")
        if len(self.auth_secret) < 32:
            raise ValueError("AUTH_SECRET must have at least 32 characters")
        roles = self.table_role_set
        if not roles or not roles <= set(TABLE_ROLES):
            # A typo would otherwise start a table that silently does nothing (or never follows up).
            raise ValueError(f"TABLE_ROLES must name some of {', '.join(TABLE_ROLES)}: {self.table_roles!r}")
        if self.environment == "production" and self.nats_url and not (self.nats_user and self.nats_password):
            # Without its own user a service would connect with whatever NATS allows anonymously. An empty
            # NATS_URL is a service without NATS (the web front end).
            raise ValueError("NATS_USER and NATS_PASSWORD must be set in production")
        return self

    def nats_login(self, service: str) -> tuple[str | None, str | None]:
        """The NATS user and password `service` connects with: NATS_USER/NATS_PASSWORD if set, else the
        service's own entry in the NATS_CREDENTIALS file, else those inside NATS_URL (None, None: none)."""
        if self.nats_user:
            return self.nats_user, self.nats_password
        if self.nats_credentials:
            passwords: dict[str, str] = json.loads(Path(self.nats_credentials).read_text())
            if service in passwords:
                return service, passwords[service]
        url = urlsplit(self.nats_url.split(",")[0])
        if url.username:
            return unquote(url.username), unquote(url.password) if url.password is not None else None
        return None, None

    @property
    def table_role_set(self) -> frozenset[str]:
        """The roles TABLE_ROLES names (blanks and empty entries ignored)."""
        return frozenset(role.strip() for role in self.table_roles.split(",") if role.strip())

    @property
    def sqlalchemy_url(self) -> str:
        """The database URL with the psycopg 3 driver, as SQLAlchemy wants it."""
        return sqlalchemy_url(self.database_url)


def sqlalchemy_url(url: str) -> str:
    """Return a PostgreSQL URL with the psycopg 3 driver, as SQLAlchemy wants it."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


@lru_cache
def get_settings() -> Settings:
    """Return the process-wide settings (read once from the environment)."""
    return Settings()
