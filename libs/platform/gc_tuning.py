"""How often CPython's cycle collector runs in a service process."""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Net allocations of container objects between two collections of the youngest generation (CPython: 700)."""


def tune_collector() -> None:
    """Collect reference cycles less often than CPython's default (700, 10, 10).

    A request allocates hundreds of containers (a view is a tree of dicts and lists, a move's state a tree
    of tuples), so with the default a table serving 200 games collected about 100 times a second, and a
    full collection (walking every cached game) every few hundred milliseconds: 12 % of the table's CPU
    (measured in-process, docs/benchmarks.md, "NATS hot path"). Almost all of it is freed by reference
    counting as soon as the request ends; the collector only ever finds cycles (asyncio's tasks and
    exceptions), and those now wait a little longer. The older generations keep their default ratios.
    """
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
