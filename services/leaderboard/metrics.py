"""The leaderboard's Prometheus counters."""

from prometheus_client import Counter

EVENTS_PROCESSED = Counter(
    "speed_leaderboard_events_processed_total", "GameEnded events projected into the lists", ["game"]
)
DUPLICATES_SKIPPED = Counter(
    "speed_leaderboard_duplicates_skipped_total", "GameEnded events already projected, delivered again"
)
EVENTS_IGNORED = Counter(
    "speed_leaderboard_events_ignored_total",
    "Game log messages the leaderboard does not project (other types, or malformed)",
    ["reason"],
)
IGNORED_REASONS = ("other_type", "malformed")
"""Why a message is not projected; each reason's series exists from the start, at 0."""
for _reason in IGNORED_REASONS:
    EVENTS_IGNORED.labels(_reason)
