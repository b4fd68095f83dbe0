"""Every NATS name of the platform, defined once: streams, subjects, queue groups and durable consumers.

Who sends and who receives what is listed in docs/architecture.md ("Commands between services"); the
message on each subject is a contract in `events`, `commands` or `messages` beside this module.
"""

from __future__ import annotations

from libs.platform.envelope import EventType

# ---- JetStream streams --------------------------------------------------------------------------------
GAMES_STREAM = "GAMES"
"""Every game's event log (the source of truth); one subject per game."""
BOT_TURNS_STREAM = "BOT_TURNS"
"""Work queue of "a computer must decide" requests; one shared consumer."""
TIMERS_STREAM = "TIMERS"
"""Durable think-time deadlines: schedules on timer.set.*, fired onto timer.fire.*."""
LOBBY_STREAM = "LOBBY"
"""Facts from the lobby (players registered)."""
GAME_FACTS_STREAM = "GAME_FACTS"
"""Copies of every game's GameStarted and GameEnded, for the services that care only about those."""
GAME_SNAPSHOTS_STREAM = "GAME_SNAPSHOTS"
"""The latest snapshot of each folded game (a shortcut for cold replicas, never a source of truth)."""

# ---- Subjects on the streams --------------------------------------------------------------------------
GAME_EVENTS = "game.*.events"
"""Every game's log (filter subject of the consumers that follow all games)."""
GAME_TEAM_LOGS = "game.*.team.*"
"""Every game's team logs: side moves (Speednova's team signals from speednova@2) that only one team may learn
of, kept beside the game's log on GAMES (docs/architecture.md, "Side moves: team logs beside the game's log")."""
GAME_SNAPSHOTS = "snapshot.game.*"
"""Every game's snapshot subject (one kept per game)."""
BOT_TURNS = "bot.turn.*"
"""Every game's "your turn" requests for computers."""
TIMER_SETS = "timer.set.*.*"
TIMER_FIRES = "timer.fire.*.*"
"""Deadlines as JetStream delivers them when they are reached."""
GAME_FACTS = "facts.game.>"
"""Every game's start and end (the ledger's filter subject: it needs both)."""
GAME_STARTED_FACT = "facts.game.started"
"""Copies of `GameStarted`, the exact stored bytes of the log's event, published by the table's follow-up."""
GAME_ENDED_FACT = "facts.game.ended"
"""Copies of `GameEnded` (the filter subject of lobby and leaderboard, which need only the ends)."""
LOBBY_EVENTS = "lobby.events.>"
PLAYER_REGISTERED = "lobby.events.player_registered"
"""A player registered (the ledger opens their wallet)."""


def game_subject(game_id: str) -> str:
    """The subject of one game's event log."""
    return f"game.{game_id}.events"


def team_subject(game_id: str, team: int) -> str:
    """The subject of one team's log of a game (team: its index in the rule module's ``side_teams``)."""
    return f"game.{game_id}.team.{team}"


def game_subjects(game_id: str) -> str:
    """Every subject of one game on GAMES (its log and its team logs): what the archive purges."""
    return f"game.{game_id}.>"


def snapshot_subject(game_id: str) -> str:
    """The subject of one game's latest snapshot."""
    return f"snapshot.game.{game_id}"


def bot_turn_subject(game_id: str) -> str:
    """The work-queue subject of "a bot must decide in this game" requests."""
    return f"bot.turn.{game_id}"


def timer_set_subject(game_id: str, seat: int) -> str:
    """Where a seat's think-time deadline is scheduled (a new schedule replaces the old one)."""
    return f"timer.set.{game_id}.{seat}"


def chat_subject(game_id: str) -> str:
    """Where the lobby announces a stored chat message of one game to its live chat streams."""
    return f"lobby.chat.{game_id}"


def timer_fire_subject(game_id: str, seat: int) -> str:
    """Where JetStream delivers a seat's deadline when it is reached."""
    return f"timer.fire.{game_id}.{seat}"


# ---- Request/reply subjects and their queue groups ----------------------------------------------------
TABLE_QUEUE = "table"
TABLE_START = "table.cmd.start"
TABLE_MOVE = "table.cmd.move"
"""A computer's move (the bot service): for a computer's seat, or the seat of a human who left."""
TABLE_PLAY = "table.cmd.play"
"""A human's move in their own name, from a trusted front end (only the operator's user may send it;
players move over HTTP with their token). Kept apart from ``TABLE_MOVE`` so the bot's NATS user can never move
in a human's name."""
TABLE_VIEW = "table.cmd.view"
TABLE_LEAVE = "table.cmd.leave"
TABLE_STARTED = "table.cmd.started"
"""A game's GameStarted as logged (the ledger, when a game's end comes before its start and the game's subject
was already purged from GAMES into the table's archive)."""
CHAT_POSTED = "lobby.chat.*"
"""A table chat message, after the lobby stored it: core NATS, one subject per game (``chat_subject``), so
every lobby replica's live chat streams hear it."""
"""The lobby gives up a player's unfinished solo game (a new game in the same mode replaces it)."""

# ---- Game affinity: a game's table commands go to the replica that holds its partition --------------------
TABLE_PARTITIONS = 60
"""Partitions of the games' table commands: nats-server maps `table.cmd.<command>.<game>` onto
`table.part.<k>.cmd.<command>.<game>` with k = partition(60, game) (FNV-1a of the game id, modulo 60), and each
table API replica serves the partitions it holds a lease for (docs/architecture.md, "Game affinity"). 60 divides
evenly among 1, 2, 3, 4, 5, 6, 10 and 12 replicas (the HPA allows up to 10). Changing it moves every game to
another partition, so the server's mapping (libs/platform/nats_mappings.py) and every replica change together."""
TABLE_PARTITIONED = (TABLE_START, TABLE_MOVE, TABLE_PLAY, TABLE_VIEW, TABLE_LEAVE)
"""The table commands that name one game and are sent to its partition (`by_game`); each keeps its plain subject
as the shared fallback every replica serves (queue group `table`) while a partition has no holder."""
TABLE_LEASES_BUCKET = "TABLE_LEASES"
"""JetStream key-value bucket of the table API replicas' leases: `replica.<id>` (alive) and `partition.<k>` (who
serves partition k), each written with a per-message TTL and renewed by its holder."""
TABLE_LEASES_STREAM = f"KV_{TABLE_LEASES_BUCKET}"
"""The stream behind the bucket (JetStream's key-value convention)."""
TABLE_LEASE_SUBJECTS = f"$KV.{TABLE_LEASES_BUCKET}.>"


def by_game_subject(subject: str, game_id: str) -> str:
    """Where a command about one game is sent: its subject with the game id appended (nats-server maps it onto the
    game's partition)."""
    return f"{subject}.{game_id}"


def partition_subject(subject: str, partition: int | str, game_id: str = "*") -> str:
    """The subject a command of `subject` about `game_id` arrives on in `partition` (`*`: every game, or every
    partition): `table.cmd.move` in partition 7 is `table.part.7.cmd.move.<game>`."""
    service, rest = subject.split(".", 1)
    return f"{service}.part.{partition}.{rest}.{game_id}"


def game_partition(game_id: str, partitions: int = TABLE_PARTITIONS) -> int:
    """The partition nats-server maps a game's commands onto: `partition(n, 1)` is the 32-bit FNV-1a hash of the
    game id modulo n (where to look for the replica that has a game warm)."""
    value = 0x811C9DC5
    for byte in game_id.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value % partitions


def partition_mapping(subject: str) -> tuple[str, str]:
    """The nats-server subject mapping of a partitioned command: (source, destination)."""
    service, rest = subject.split(".", 1)
    return (f"{subject}.*", f"{service}.part.{{{{partition({TABLE_PARTITIONS},1)}}}}.{rest}.{{{{wildcard(1)}}}}")


BOT_QUEUE = "bots"
BOT_DECIDE = "bot.cmd.decide"
BOT_ADVISE = "bot.cmd.advise"

LEDGER_QUEUE = "ledger"
LEDGER_BALANCE = "ledger.cmd.balance"
LEDGER_HOLD = "ledger.cmd.hold"
LEDGER_RELEASE = "ledger.cmd.release"
LEDGER_POT = "ledger.cmd.pot"

LEADERBOARD_QUEUE = "leaderboard"
LEADERBOARD_RATINGS = "leaderboard.cmd.ratings"
"""Players' (and the computer levels') skill ratings in one game's list, for a matchmaker (issue 28)."""

# ---- Durable consumers (shared by all replicas of their service) --------------------------------------
TABLE_FOLLOWUP_DURABLE = "table-followup"
"""Table: finishes games and asks computers to move, after every event (GAMES, game.*.events)."""
TABLE_ARCHIVE_DURABLE = "table-archive"
TABLE_ARCHIVE_TEAMS_DURABLE = "table-archive-teams"
"""The archive's consumer of the team logs (``game.*.team.*``), beside ``table-archive`` of the games' logs."""
"""Table (its archive role, as NATS user `archive`): copies every event into PostgreSQL (GAMES, game.*.events)."""
TABLE_TIMERS_DURABLE = "table-timers"
"""Table: the computer decides for a player whose deadline passed (TIMERS, timer.fire.*.*)."""
BOT_TURNS_DURABLE = "bots"
"""Bot: works the "your turn" queue (BOT_TURNS, bot.turn.*); KEDA scales the bots on its backlog."""
LEDGER_REGISTRATIONS_DURABLE = "ledger-registrations"
"""Ledger: opens a funded wallet per registration (LOBBY, lobby.events.player_registered)."""
LEDGER_GAMES_DURABLE = "ledger-games"
"""Ledger: collects stake pots at GameStarted and pays them out at GameEnded (GAME_FACTS, facts.game.>)."""
LOBBY_GAME_ENDS_DURABLE = "lobby-game-ends"
"""Lobby: marks a table finished when its game ends (GAME_FACTS, facts.game.ended)."""
LEADERBOARD_DURABLE = "leaderboard"
"""Leaderboard: projects every GameEnded into the lists (GAME_FACTS, facts.game.ended)."""


# ---- De-duplication ids (Nats-Msg-Id) ------------------------------------------------------------------
def bot_turn_msg_id(game_id: str, n: int, seat: int) -> str:
    """One "your turn" request per game, position and seat, however often the follow-up runs."""
    return f"{game_id}:{n}:{seat}"


_FACT_SUBJECTS = {EventType.GAME_STARTED: GAME_STARTED_FACT, EventType.GAME_ENDED: GAME_ENDED_FACT}


def game_fact_subject(event_type: str) -> str | None:
    """Where the copy of an event of `event_type` goes on GAME_FACTS, None for events that are not facts."""
    return _FACT_SUBJECTS.get(event_type)


def game_fact_msg_id(game_id: str, n: int) -> str:
    """One copy per game event, however often the follow-up publishes it."""
    return f"fact:{game_id}:{n}"


def registration_msg_id(player_id: str) -> str:
    """The de-duplication id of a player's registration fact."""
    return f"registered:{player_id}"
