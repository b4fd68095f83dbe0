"""How many live streams (server-sent events) a table replica keeps open: per client address, per player,
and for spectators without a token in all.

Each open stream holds a JetStream consumer and a task until the viewer leaves, so the limits count what
is open now (slots), not requests per second; they are per replica (a stream lives on the replica that
serves it), see docs/services/table.md.
"""

from __future__ import annotations

from collections.abc import Callable

from libs.platform.ratelimit import TOO_MANY_STREAMS, RateLimited, Slots
from libs.platform.settings import Settings

RETRY_SECONDS = 10.0
"""What a refused viewer is told to wait: a slot comes back as soon as one of their streams closes."""

_ALL = "*"


class LiveLimits:
    """The open-stream slots of one table replica."""

    def __init__(self, settings: Settings) -> None:
        self.per_client = Slots(settings.live_streams_per_client)
        self.per_player = Slots(settings.live_streams_per_account)
        self.anonymous = Slots(settings.live_streams_anonymous)

    def open(self, client: str, player_id: str | None) -> Callable[[], None]:
        """Take the slots of one more stream for `client` (and `player_id`, or a spectator's); return what
        gives them back (call it once, when the stream ends). 429 if a limit is reached (nothing taken)."""
        if not self.per_client.acquire(client):
            raise RateLimited(TOO_MANY_STREAMS, RETRY_SECONDS)
        second, key = (self.per_player, player_id) if player_id is not None else (self.anonymous, _ALL)
        if not second.acquire(key):
            self.per_client.release(client)
            raise RateLimited(TOO_MANY_STREAMS, RETRY_SECONDS)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.per_client.release(client)
                second.release(key)

        return release
