"""Write the golden exports (tests/audit/golden/): one finished game per rules version, signed
(``<game>_v<N>_signed.json``, by a table holding the test key tests/audit/signing_test_key.json), for every version
that has none yet; and the daily game the test vectors derive from (tests/audit/make_vectors.py).

The unsigned ``<game>_v<N>.json`` were written by a table without keys before the table signed (issue 24); every
rules version registered today was played unsigned then, so they stay beside the signed ones. A new rules version
gets only a signed golden export: a table signs every event, so an unsigned log of a version newer than signing is
no log a table writes.

Run once, when a golden log is first needed (``.venv/bin/python -m tests.audit.make_golden``: it plays only the
games whose newest version has no file, e.g. ``speedspore_v2.json`` once ``speedspore@2`` shipped, and never
overwrites a file); never to make a failing golden audit pass. A golden log is what a game written by that rules
version looks like for ever: ``test_rule_versions.py`` audits each on every run, so a change to a module that would
replay an old log differently fails there and must ship as a new version instead (docs/audit.md, "Rule versions").
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nats

from libs.audit import audit
from libs.devservers.servers import start_servers
from libs.platform.settings import get_settings
from libs.rules import RuleModule, registry
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from tests.audit.games import KINDS, FixedSeeds, bearer, play, play_daily, player
from tests.clocks import ShiftedClock
from tests.conftest import Infrastructure, running_app

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
TEST_KEY_FILE = HERE / "signing_test_key.json"
"""The test key (public in the repository, never a production key) that signs the golden exports and vectors."""
DAILY_SOURCE = HERE / "vectors" / "daily_speedmosaik.json"
"""A daily game (Speedmosaik's Tageswerkstatt), the operator's export after the day's end; make_vectors derives the
player's copy from it."""
DAY_SEED = bytes(range(100, 132))


def golden_path(game: str, version: int, signed: bool) -> Path:
    """Where the golden export of ``game`` version ``version`` lives (signed or written before signing)."""
    return GOLDEN / f"{game}_v{version}{'_signed' if signed else ''}.json"


@contextmanager
def newest(module: RuleModule) -> Iterator[None]:
    """New games of ``module.game`` take ``module`` while inside (the later versions unregistered for the while), as
    a table did when ``module`` was the newest version."""
    later = [other for other in registry.all_modules() if other.game == module.game and other.version > module.version]
    for other in later:
        registry.unregister(other.rules_id)
    try:
        yield
    finally:
        for other in later:
            registry.register(other)


def export_text(document: dict[str, Any]) -> str:
    """An export as written to a file: one event per line (compact, yet a diff shows which event changed)."""
    header = {key: value for key, value in document.items() if key != "events"}
    lines = [json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
             for event in document["events"]]
    text = json.dumps(header, ensure_ascii=False, indent=1)[:-2] + ',\n "events": [\n' + ",\n".join(lines) + "\n]}\n"
    assert json.loads(text) == document
    return text


def write_export(path: Path, document: dict[str, Any]) -> None:
    """Write an export as ``export_text`` spells it."""
    path.write_text(export_text(document), encoding="utf-8")


async def generate(infra: Infrastructure) -> None:
    """Play one game per rules version on an in-process table signing with the test key and write each operator
    export that is missing; then the daily game, if missing."""
    settings = infra.settings(table_signing_keys_file=str(TEST_KEY_FILE))
    nc = await nats.connect(infra.nats_url)
    clock = ShiftedClock()
    try:
        async with running_app(create_app(settings, seeds=FixedSeeds(), clock=clock)) as table, \
                running_app(bot_app(settings)):
            for name, kind in KINDS.items():
                for module in [module for module in registry.all_modules() if module.game == kind.game]:
                    path = golden_path(name, module.version, signed=True)
                    if path.exists():
                        continue  # a golden log is written once and kept for ever
                    with newest(module):
                        game_id = await play(table, nc, settings, kind, player("Anna"))
                    document = await _export(table, game_id, bearer(settings))
                    assert document["rules"]["id"] == module.rules_id, document["rules"]
                    write_export(path, document)
            if not DAILY_SOURCE.exists():
                dora = player("Dora")
                game_id = await play_daily(table, nc, settings, dora, DAY_SEED)
                clock.advance(days=2)  # the day is over: its seed is revealed
                write_export(DAILY_SOURCE, await _export(table, game_id, bearer(settings)))
    finally:
        await nc.drain()


async def _export(table: Any, game_id: str, auth: dict[str, str]) -> dict[str, Any]:
    """The game's export as ``auth`` may read it; it must pass the audit."""
    answer = await table.get(f"/games/{game_id}/export", headers=auth)
    answer.raise_for_status()
    document: dict[str, Any] = answer.json()
    report = audit(document)
    assert report.passed and report.signed_by, report.lines()
    print(f"{document['rules']['id']}: {len(document['events'])} Ereignisse, {report.verdict()}")
    return document


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="golden-") as root:
        servers = start_servers(Path(root), throwaway=True)
        try:
            infra = Infrastructure(nats_url=servers.nats_url, database_url=servers.database_url,
                                   nats_credentials=servers.nats_credentials)
            os.environ.update(infra.env())
            get_settings.cache_clear()
            GOLDEN.mkdir(exist_ok=True)
            asyncio.run(generate(infra))
        finally:
            servers.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
