"""What operators watch on the computer players."""

from prometheus_client import Counter, Histogram

DECISIONS = Counter("speed_bot_decisions_total", "Decisions made by computer players", ["rules", "level"])
DECISION_SECONDS = Histogram("speed_bot_decision_seconds", "Time to decide one move", ["level"],
                             buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
STALE_TURNS = Counter("speed_bot_stale_turns_total", "Turn requests that the game had already moved past")
ADVICE = Counter("speed_bot_advice_total", "Rat des Meisters answered")
