"""What tracing costs per turn with export off: `python -m tools.tracing_cost [--whole ROUNDS]`.

Pieces (always): CPU time (`time.process_time`) of exactly what a turn adds, as the services run it, the median of
seven passes of 20,000: the table API's turn over NATS (the spans of `table.cmd.view` and `table.cmd.play`, which the
bench sends without a trace context, and the `traceparent` on the append), `table-followup`'s event (reading the
append's `traceparent`, its span) and the table API's turn over HTTP (two request spans, the append's header).

Whole (`--whole N`): the table (API and follow-up) and a client playing 20 two-seat games over real NATS (the
platform bench's turn) in this one process, CPU per turn with tracing as it is and with tracing patched out (no
spans, no headers), alternating N rounds of 5 s each (the order flipped every round). On a shared machine the
rounds scatter by ±10 %; compare medians of many rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from opentelemetry.trace import SpanKind

from libs.platform import consumers, rpc
from libs.platform.logging import configure_logging, debug_enabled, get_logger
from libs.platform.tracing import Traced, parent_of, parent_of_asgi, with_trace

APPEND_HEADERS = {"Nats-Msg-Id": "0123456789abcdef:12", "Nats-Expected-Last-Subject-Sequence": "1234"}
QUIET = open(os.devnull, "w")  # noqa: SIM115  # where log lines go while measuring, open while the process runs
HTTP_HEADERS = [(b"host", b"table"), (b"authorization", b"Bearer abc"), (b"content-type", b"application/json"),
                (b"content-length", b"20")]


def _append() -> None:
    with_trace(dict(APPEND_HEADERS))
    if debug_enabled():
        get_logger().debug("event_appended")


def nats_turn() -> None:
    """The table API's part of a turn over NATS: two command spans (no trace context came), the append's header."""
    with Traced("process table.cmd.view", SpanKind.SERVER, parent_of(None)):
        pass
    with Traced("process table.cmd.play", SpanKind.SERVER, parent_of(None)):
        _append()


def http_turn() -> None:
    """The table API's part of a turn over HTTP: two request spans, the append's header."""
    for _ in range(2):
        with Traced("GET", SpanKind.SERVER, parent_of_asgi(HTTP_HEADERS)):
            pass
    _append()


def followup_event() -> Callable[[], None]:
    """`table-followup`'s part of an event: read the append's `traceparent`, run the handler in its span."""
    with Traced("process table.cmd.play", SpanKind.SERVER, None):
        headers = with_trace(dict(APPEND_HEADERS))

    def event() -> None:
        with Traced("process table-followup", SpanKind.CONSUMER, parent_of(headers)):
            pass

    return event


def pieces() -> dict[str, float]:
    """Microseconds of CPU per turn or event for each piece: the median of seven passes."""
    stdout, sys.stdout = sys.stdout, QUIET
    try:
        configure_logging("table", "info")  # its handlers write to QUIET from now on
    finally:
        sys.stdout = stdout
    timings = {}
    for name, work in (("table API, turn over NATS", nats_turn), ("table-followup, event", followup_event()),
                       ("table API, turn over HTTP", http_turn)):
        passes = [timeit.Timer(work, timer=time.process_time).timeit(number=20_000) / 20_000 * 1e6 for _ in range(7)]
        timings[name] = statistics.median(passes)
    return timings


class _NoSpan:
    __slots__ = ()

    def __init__(self, *_: Any) -> None:
        pass

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: Any) -> None:
        return None


def _patches() -> tuple[dict[tuple[ModuleType, str], Any], dict[tuple[ModuleType, str], Any]]:
    """The names that trace in the services, as they are and patched out."""
    from services.table import event_store, followup

    def nothing(_: Any) -> None:
        return None

    def same(headers: Any) -> Any:
        return headers

    names = [(rpc, "Traced"), (rpc, "parent_of"), (rpc, "with_trace"), (consumers, "Traced"),
             (consumers, "parent_of"), (event_store, "with_trace"), (followup, "with_trace")]
    traced = {(module, name): getattr(module, name) for module, name in names}
    untraced = {(rpc, "Traced"): _NoSpan, (rpc, "parent_of"): nothing, (rpc, "with_trace"): same,
                (consumers, "Traced"): _NoSpan, (consumers, "parent_of"): nothing,
                (event_store, "with_trace"): same, (followup, "with_trace"): same}
    return traced, untraced


def whole(rounds: int) -> dict[str, list[float]]:
    """CPU per turn (client, table API and follow-up in this process) with and without tracing, per round."""
    import uvloop

    from libs.devservers.servers import start_servers
    from libs.platform import nats_client
    from libs.platform.settings import Settings
    from services.table.app import create_app
    from tools import platform_bench

    servers = start_servers(Path(tempfile.mkdtemp(prefix="tracing-cost-")), throwaway=True)
    traced, untraced = _patches()
    results: dict[str, list[float]] = {"with tracing": [], "without": []}

    async def measure() -> None:
        settings = Settings(nats_url=servers.nats_url, database_url=servers.database_url,
                            nats_credentials=servers.nats_credentials,
                            table_signing_keys_file=servers.signing_keys_file, auth_secret="x" * 40,
                            table_roles="api,followup", rate_limit_per_second=0)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            nc = await nats_client.connect(servers.nats_url)

            class Window:
                stopping = False
                running: list[str] = []  # noqa: RUF012  # the bench's window: games still running at its end
                turns = 0

                def record(self, *_: Any) -> None:
                    self.turns += 1

            async def play(seconds: float) -> float:
                window = Window()

                async def player() -> None:
                    while not window.stopping:
                        await platform_bench.play_over_nats(nc, window)  # type: ignore[arg-type]

                players = [asyncio.create_task(player()) for _ in range(20)]
                await asyncio.sleep(1.0)
                window.turns, started = 0, time.process_time()
                await asyncio.sleep(seconds)
                spent, turns = time.process_time() - started, window.turns
                window.stopping = True
                await asyncio.gather(*players, return_exceptions=True)
                return spent / max(turns, 1) * 1e6

            sides = [("without", untraced), ("with tracing", traced)]
            for round_ in range(rounds):
                for side, names in sides if round_ % 2 == 0 else sides[::-1]:
                    for (module, name), value in names.items():
                        setattr(module, name, value)
                    results[side].append(await play(5.0))
                    print(f"round {round_ + 1}: {side}: {results[side][-1]:.0f} µs per turn", file=sys.stderr)
            for (module, name), value in traced.items():
                setattr(module, name, value)
            await nc.close()

    stdout, sys.stdout = sys.stdout, QUIET  # the services' log lines
    try:
        uvloop.run(measure())
    finally:
        sys.stdout = stdout
        servers.stop()
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Tracing's CPU per turn with export off.")
    parser.add_argument("--whole", type=int, default=0, metavar="ROUNDS",
                        help="also measure whole turns in-process with and without tracing, alternating")
    options = parser.parse_args(argv)
    for name, micros in pieces().items():
        print(f"{name}: {micros:.1f} µs of CPU")
    if options.whole:
        results = whole(options.whole)
        for side, values in results.items():
            print(f"whole turn {side}: median {statistics.median(values):.0f} µs of CPU "
                  f"(rounds {', '.join(f'{value:.0f}' for value in values)})")


if __name__ == "__main__":
    main()
