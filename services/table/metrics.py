"""What operators watch on the table service."""

from prometheus_client import Counter, Gauge, Histogram

GAMES_STARTED = Counter("speed_table_games_started_total", "Games started", ["game"])
GAMES_ENDED = Counter("speed_table_games_ended_total", "Games ended", ["game"])
MOVES = Counter("speed_table_moves_total", "Moves appended to the log", ["game", "chosen_by"])
MOVES_REFUSED = Counter("speed_table_moves_refused_total", "Moves refused", ["reason"])
MOVES_REFUSED.labels("illegal")  # from the start, at 0: the panel has a series before the first refusal
APPEND_CONFLICTS = Counter("speed_table_append_conflicts_total",
                           "Appends that lost a race to another replica and were decided again")
APPEND_SECONDS = Histogram("speed_table_append_seconds", "Time to append one event to the log",
                           buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0))
REPLAY_SECONDS = Histogram("speed_table_replay_seconds", "Time to rebuild a game from its log",
                           buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0))
SNAPSHOT_LOADS = Counter("speed_table_snapshot_loads_total",
                         "Cold games a snapshot was looked up for, by outcome (used, missing, behind_log, "
                         "other_code, unreadable, unreachable)", ["outcome"])
SNAPSHOTS_WRITTEN = Counter("speed_table_snapshots_written_total", "Snapshots of folded games stored")
FOLLOWUP_HINTS = Counter("speed_table_followup_hints_total",
                         "Events the follow-up handled, by what their hint from the table did (used: acted on "
                         "without folding; overtaken: a later event was acted on already; none: no hint, folded; "
                         "redelivered: folded whatever its hint; unknown_key, bad_mac, too_old, malformed: refused, "
                         "folded)", ["outcome"])
for _outcome in ("used", "overtaken", "none", "redelivered", "unknown_key", "bad_mac", "too_old", "malformed"):
    FOLLOWUP_HINTS.labels(_outcome)  # every series from the start, at 0: a refused hint is a rise from 0
CACHED_GAMES = Gauge("speed_table_cached_games", "Games held in this replica's cache")
LIVE_STREAMS = Gauge("speed_table_live_streams", "Open live-update connections")
BOT_TURNS = Counter("speed_table_bot_turns_requested_total", "Decisions handed to the computer players")
CLOCKS_STARTED = Counter("speed_table_clocks_started_total", "Think-time clocks started (one per human decision)")
MOVES_REPEATED = Counter("speed_table_moves_repeated_total",
                         "Move commands sent again after their first sending was stored, answered with its receipt")
CLOCKS_FENCED = Counter("speed_table_clocks_fenced_total",
                        "Clock schedules not stored: the seat's clock was set from a later event of the game")
TIMEOUT_MOVES = Counter("speed_table_timeout_moves_total",
                        "Decisions the computer made for a human whose think time ran out")
ADVICE = Counter("speed_table_advice_total", "Rat des Meisters requests", ["answer"])
for _answer in ("given", "refused"):  # both series from the start, at 0: a dashboard sees them before the first
    ADVICE.labels(_answer)
# The archive (docs/archive.md).
ARCHIVED_EVENTS = Counter("speed_table_archived_events_total",
                          "Events the archive consumer stored in PostgreSQL (redeliveries included, stored once)")
ARCHIVE_PENDING = Gauge("speed_table_archive_pending_events",
                        "Events on the GAMES stream not yet handed to the archive consumer (its lag)")
ARCHIVE_BATCH_SECONDS = Histogram("speed_table_archive_batch_seconds", "Time to store one fetched batch of events",
                                  buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0))
PURGED_GAMES = Counter("speed_table_purged_games_total", "Finished, archived games purged from the GAMES stream")
ARCHIVE_PURGE_DUE = Gauge("speed_table_archive_purge_due_games",
                          "Games past their grace period found by the last purge sweep (at most one batch)")
ARCHIVE_READ_SECONDS = Histogram("speed_table_archive_read_seconds",
                                 "Time to read a game from the archive (a purged or unknown game)",
                                 buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5))
# Game affinity (docs/architecture.md, "Game affinity").
PARTITIONS_HELD = Gauge("speed_table_partitions_held", "Command partitions this replica holds a lease for")
GAME_COMMANDS = Counter("speed_table_game_commands_total",
                        "Commands about one game answered, by the partition they came in on ('shared': the "
                        "subject every replica serves, taken while nobody holds the game's partition, or "
                        "with TABLE_AFFINITY off; 'any': a partition's subject with TABLE_AFFINITY off)",
                        ["partition"])
ARCHIVE_MONTHS_AHEAD = Gauge("speed_table_archive_months_ahead",
                             "Months after the current one whose archive partitions are ready (docs/archive.md)")
