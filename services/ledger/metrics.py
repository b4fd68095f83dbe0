"""The ledger's Prometheus counters."""

from prometheus_client import Counter

TRANSACTIONS_BOOKED = Counter(
    "speed_ledger_transactions_booked_total", "Ledger transactions booked", ["kind"]
)
DUPLICATES_IGNORED = Counter(
    "speed_ledger_duplicates_ignored_total",
    "Transactions whose idempotency key was already booked (returned the first booking)",
    ["kind"],
)
