"""The lobby's database sessions, kept on the runtime."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from libs.platform.database import session_factory
from libs.platform.service import Runtime

Sessions = async_sessionmaker[AsyncSession]


async def open_sessions(runtime: Runtime) -> None:
    """Startup step: make a session factory on the runtime's engine."""
    assert runtime.engine is not None
    runtime.extras["sessions"] = session_factory(runtime.engine)


def sessions_of(runtime: Runtime) -> Sessions:
    """Return the session factory made at startup."""
    sessions: Sessions = runtime.extras["sessions"]
    return sessions
