"""Who may publish and subscribe to what on NATS: one user per service, declared once, from `contracts.subjects`.

Without this anything that reaches NATS could hold another player's Taler (`ledger.cmd.hold`) or log a
move for any seat (`table.cmd.move`). Every service connects as its own user (its name), whose permissions
allow exactly the subjects the table in docs/architecture.md ("Commands between services") gives it:

- the commands it sends (publish) and serves (subscribe, with its queue group);
- the stream subjects it appends to;
- JetStream's API narrowed to what it does: STREAM.INFO on the streams it uses; STREAM.CREATE/UPDATE only
  on the streams it owns (the one service that writes them creates them at startup, see `STREAM_OWNERS`);
  its own durable consumers (INFO, CREATE, MSG.NEXT, and `$JS.ACK.<stream>.<durable>.>` for acks);
  direct or plain message gets on the streams it reads; never DELETE, PURGE or another's consumer;
  (the one exception is not a service: the table's archive role connects as `archive`, below, which may
  purge a finished game's subject from GAMES and cannot append to it);
- replies to requests it received (`allow_responses`), and replies to its own requests and JetStream
  API calls on `_INBOX.<user>.>` only (each user connects with that inbox prefix, so no user can read
  another's replies).

The `admin` user may do everything: the operator, the tests' "another service would" connection, tools
such as the bench and the demo. Nothing in a service connects as admin.

The same declaration becomes the dev server's config (`libs/devservers/nats_server.py`), the Kubernetes
NATS config (`deploy/k8s`, checked against this module by tests/deploy) and is proven by
tests/platform/test_nats_permissions.py. To add a subject: add it to `contracts/subjects.py`, then to the
users below that send or receive it (see docs/operations.md, "NATS users and permissions").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from libs.platform.contracts import subjects as s

ADMIN = "admin"
"""The operator's user: every subject, every JetStream API (tests, tools, stream maintenance)."""

ARCHIVE_USER = "archive"
"""The table's archive role (not a service of its own): the only user that may purge GAMES (a game's subject)."""

JS_API = "$JS.API"


@dataclass(frozen=True)
class NatsUser:
    """One NATS user: what it may publish and subscribe to (subject patterns), and the streams it creates."""

    name: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    owns_streams: tuple[str, ...] = field(default=())

    @property
    def inbox_prefix(self) -> str:
        """The prefix of this user's reply subjects (`_INBOX.<user>`); only this user may subscribe below it."""
        return inbox_prefix(self.name)

    def server_permissions(self) -> dict[str, Any]:
        """The `permissions` block of this user in a nats-server config."""
        if self.name == ADMIN:
            return {"publish": {"allow": [">"]}, "subscribe": {"allow": [">"]}}
        return {"publish": {"allow": list(self.publish)},
                "subscribe": {"allow": [*self.subscribe, f"{self.inbox_prefix}.>"]},
                # Answering a request this user received: publish once to its reply subject.
                "allow_responses": True}


def inbox_prefix(user: str) -> str:
    """The inbox prefix a connection as `user` uses (nats-py's `inbox_prefix`)."""
    return f"_INBOX.{user}"


# ---- JetStream API, narrowed ---------------------------------------------------------------------------
def _owns(stream: str) -> tuple[str, ...]:
    """Create and update `stream` (the owner does so at startup: `libs.platform.streams.ensure_streams`)."""
    return (f"{JS_API}.STREAM.INFO.{stream}", f"{JS_API}.STREAM.CREATE.{stream}",
            f"{JS_API}.STREAM.UPDATE.{stream}")


def _knows(stream: str) -> tuple[str, ...]:
    """Read a stream's configuration and state."""
    return (f"{JS_API}.STREAM.INFO.{stream}",)


def _durable(stream: str, durable: str) -> tuple[str, ...]:
    """Create (or find) the shared durable pull consumer `durable` on `stream`, fetch from it and ack."""
    consumer = f"{stream}.{durable}"
    return (f"{JS_API}.CONSUMER.INFO.{consumer}", f"{JS_API}.CONSUMER.CREATE.{consumer}",
            f"{JS_API}.CONSUMER.CREATE.{consumer}.>", f"{JS_API}.CONSUMER.DURABLE.CREATE.{consumer}",
            f"{JS_API}.CONSUMER.MSG.NEXT.{consumer}", f"$JS.ACK.{consumer}.>")


def _ephemeral(stream: str) -> tuple[str, ...]:
    """Ordered (ephemeral, flow-controlled) consumers on `stream`: the table's live updates."""
    return (f"{JS_API}.STREAM.NAMES", f"{JS_API}.CONSUMER.CREATE.{stream}", f"{JS_API}.CONSUMER.CREATE.{stream}.>",
            f"{JS_API}.CONSUMER.INFO.{stream}.>", f"{JS_API}.CONSUMER.DELETE.{stream}.>", f"$JS.FC.{stream}.>")


def _direct_get(stream: str) -> tuple[str, ...]:
    """Read messages of `stream` by direct get (batched, or the last of a subject)."""
    return (f"{JS_API}.DIRECT.GET.{stream}", f"{JS_API}.DIRECT.GET.{stream}.>")


def _msg_get(stream: str) -> tuple[str, ...]:
    """Read one message of `stream` through the stream leader."""
    return (f"{JS_API}.STREAM.MSG.GET.{stream}",)


def _serves(*subjects: str) -> tuple[str, ...]:
    return subjects


def _sends_by_game(subject: str) -> tuple[str, ...]:
    """Send a command about one game: on its shared subject, by game (`<subject>.<game>`), and on the partition
    nats-server maps that onto. The server checks a publish against the subject after its mapping, so the
    partition's subject is what it allows; `<subject>.<game>` is what passes on a server without the mapping
    (nobody serves it there, so the sender falls back to the shared subject at once)."""
    return (subject, s.by_game_subject(subject, "*"), s.partition_subject(subject, "*"))


def _serves_by_game(subject: str) -> tuple[str, ...]:
    """Serve a command about one game: its shared subject and every partition's (the replica subscribes to the
    partitions it holds a lease for)."""
    return (subject, s.partition_subject(subject, "*"))


def _key_value(stream: str, subjects: str) -> tuple[str, ...]:
    """Create and use a key-value bucket: its stream, its keys, and direct reads of them."""
    return (*_owns(stream), subjects, *_direct_get(stream))


# ---- the users -----------------------------------------------------------------------------------------
TABLE = NatsUser(
    name="table",
    publish=(
        s.GAME_EVENTS, s.GAME_TEAM_LOGS, s.GAME_FACTS, s.BOT_TURNS, s.TIMER_SETS, s.GAME_SNAPSHOTS,  # appends
        s.BOT_DECIDE, s.BOT_ADVISE,  # asks the computer (think time ran out; Rat des Meisters)
        *_owns(s.GAMES_STREAM), *_owns(s.BOT_TURNS_STREAM), *_owns(s.TIMERS_STREAM), *_owns(s.GAME_FACTS_STREAM),
        *_msg_get(s.TIMERS_STREAM),  # a clock's schedule is set only after the seat's last one (its fence)
        *_durable(s.GAMES_STREAM, s.TABLE_FOLLOWUP_DURABLE), *_durable(s.TIMERS_STREAM, s.TABLE_TIMERS_DURABLE),
        *_ephemeral(s.GAMES_STREAM), *_direct_get(s.GAMES_STREAM), *_msg_get(s.GAMES_STREAM),
        *_owns(s.GAME_SNAPSHOTS_STREAM), *_direct_get(s.GAME_SNAPSHOTS_STREAM),
        *_key_value(s.TABLE_LEASES_STREAM, s.TABLE_LEASE_SUBJECTS),  # the API replicas' partition leases
        # Tests and tools purge a game's stale "your turn" requests only as admin; the table never does.
    ),
    # Nobody but the operator sends PLAY; only the lobby sends START and LEAVE.
    subscribe=(*(subject for command in s.TABLE_PARTITIONED for subject in _serves_by_game(command)),
               *_serves(s.TABLE_STARTED)),
    owns_streams=(s.GAMES_STREAM, s.BOT_TURNS_STREAM, s.TIMERS_STREAM, s.GAME_FACTS_STREAM, s.GAME_SNAPSHOTS_STREAM,
                  s.TABLE_LEASES_STREAM),
)

LOBBY = NatsUser(
    name="lobby",
    publish=(
        *_sends_by_game(s.TABLE_START), *_sends_by_game(s.TABLE_LEAVE),  # starts/gives up games
        s.LEDGER_HOLD, s.LEDGER_RELEASE,  # holds stakes
        s.LEDGER_BALANCE,  # the player's own balance (GET /me/wallet), shown beside a stake
        s.LEDGER_POT,  # a finished game's Taler per player (GET /pots/{game_id}), on the end table
        s.LEADERBOARD_RATINGS,  # players' skill ratings, for seating players of like strength (quick match)
        s.PLAYER_REGISTERED, *_owns(s.LOBBY_STREAM),  # its facts
        *_knows(s.GAME_FACTS_STREAM), *_durable(s.GAME_FACTS_STREAM, s.LOBBY_GAME_ENDS_DURABLE),
        s.CHAT_POSTED,  # a stored chat message, to every replica's live chat streams
    ),
    subscribe=(s.CHAT_POSTED,),
    owns_streams=(s.LOBBY_STREAM,),
)

BOT = NatsUser(
    name="bot",
    publish=(
        *_sends_by_game(s.TABLE_MOVE),  # a computer's move (the table checks the seat is the computer's)
        *_knows(s.BOT_TURNS_STREAM), *_durable(s.BOT_TURNS_STREAM, s.BOT_TURNS_DURABLE),
    ),
    subscribe=_serves(s.BOT_DECIDE, s.BOT_ADVISE),
)

LEDGER = NatsUser(
    name="ledger",
    publish=(
        *_knows(s.LOBBY_STREAM), *_durable(s.LOBBY_STREAM, s.LEDGER_REGISTRATIONS_DURABLE),
        *_knows(s.GAME_FACTS_STREAM), *_durable(s.GAME_FACTS_STREAM, s.LEDGER_GAMES_DURABLE),
        *_knows(s.GAMES_STREAM), *_msg_get(s.GAMES_STREAM), *_direct_get(s.GAMES_STREAM),  # a game's start
        s.TABLE_STARTED,  # ... or, once its subject was purged, from the table's archive
    ),
    subscribe=_serves(s.LEDGER_BALANCE, s.LEDGER_HOLD, s.LEDGER_RELEASE, s.LEDGER_POT),
)

LEADERBOARD = NatsUser(
    name="leaderboard",
    publish=(*_knows(s.GAME_FACTS_STREAM), *_durable(s.GAME_FACTS_STREAM, s.LEADERBOARD_DURABLE)),
    subscribe=_serves(s.LEADERBOARD_RATINGS),
)

ARCHIVE = NatsUser(
    name=ARCHIVE_USER,
    publish=(
        # The table's archive role (services/table/archive.py, docs/archive.md): reads every event through its
        # durable consumer, and purges a game's subject once the game is archived and its grace has passed.
        # Its own user, so the table's API pods (the service user `table`) can never purge a log.
        *_knows(s.GAMES_STREAM), *_durable(s.GAMES_STREAM, s.TABLE_ARCHIVE_DURABLE),
        *_durable(s.GAMES_STREAM, s.TABLE_ARCHIVE_TEAMS_DURABLE),  # the team logs (side moves) too
        f"{JS_API}.STREAM.PURGE.{s.GAMES_STREAM}",
    ),
    subscribe=(),
)

ADMIN_USER = NatsUser(name=ADMIN, publish=(">",), subscribe=(">",))

SERVICE_USERS: dict[str, NatsUser] = {user.name: user for user in (LOBBY, TABLE, BOT, LEDGER, LEADERBOARD)}
"""The user of each service, by service name."""

USERS: dict[str, NatsUser] = {**SERVICE_USERS, ARCHIVE_USER: ARCHIVE, ADMIN: ADMIN_USER}
"""Every NATS user of the platform."""

STREAM_OWNERS: dict[str, str] = {stream: user.name for user in SERVICE_USERS.values() for stream in user.owns_streams}
"""The one service that creates and updates each stream (the one that writes it)."""


def streams_owned_by(user: str | None) -> frozenset[str] | None:
    """The streams `user` creates and updates at startup; None (all of them) for the admin, a user not
    declared here, or a connection without a user (a server without authentication)."""
    known = SERVICE_USERS.get(user or "")
    return None if known is None else frozenset(known.owns_streams)


def server_authorization(passwords: dict[str, str]) -> dict[str, Any]:
    """The `authorization` block of a nats-server config: every user with its password and permissions."""
    return {"users": [{"user": user.name, "password": passwords[user.name],
                       "permissions": user.server_permissions()} for user in USERS.values()]}


def password_variable(user: str) -> str:
    """The environment variable (and key of the Secret speed-nats-users) holding `user`'s password."""
    return f"NATS_PASSWORD_{user.upper()}"


def authorization_conf() -> str:
    """The `authorization` block in nats-server's config syntax, each password read from the server's
    environment (`$NATS_PASSWORD_<USER>`, from the Secret speed-nats-users): deploy/k8s/base/nats/users.conf."""
    lines = ["# Generated from libs/platform/nats_permissions.py by `python -m libs.platform.nats_permissions`;",
             "# do not edit (tests/deploy checks it is current). Passwords: the Secret speed-nats-users.",
             "authorization {", "  users: ["]
    for user in USERS.values():
        permissions = user.server_permissions()
        lines += ["    {", f'      user: "{user.name}"', f"      password: ${password_variable(user.name)}",
                  "      permissions: {"]
        for direction in ("publish", "subscribe"):
            allowed = ", ".join(f'"{subject}"' for subject in permissions[direction]["allow"])
            lines.append(f"        {direction}: {{ allow: [{allowed}] }}")
        if permissions.get("allow_responses"):
            lines.append("        allow_responses: true")
        lines += ["      }", "    }"]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(authorization_conf(), end="")
