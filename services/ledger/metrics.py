"""The ledger's Prometheus counters."""

from collections.abc import Iterable

from prometheus_client import Counter

TRANSACTIONS_BOOKED = Counter(
    "speed_ledger_transactions_booked_total", "Ledger transactions booked", ["kind"]
)
DUPLICATES_IGNORED = Counter(
    "speed_ledger_duplicates_ignored_total",
    "Transactions whose idempotency key was already booked (returned the first booking)",
    ["kind"],
)


def count_from_zero(kinds: Iterable[str]) -> None:
    """Export both counters for every kind from the start, at 0: a dashboard and `rate()` see a kind before
    its first booking (a labelled counter appears only once its label value is used)."""
    for kind in kinds:
        TRANSACTIONS_BOOKED.labels(kind)
        DUPLICATES_IGNORED.labels(kind)
