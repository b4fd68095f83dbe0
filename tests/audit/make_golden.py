"""Write the golden exports (tests/audit/golden/<game>_v<N>.json): one finished game of each module's newest
rules version, for every version that has none yet.

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
from pathlib import Path
from typing import Any

import nats

from libs.audit import audit
from libs.devservers.servers import start_servers
from libs.platform.settings import get_settings
from libs.rules import registry
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from tests.audit.games import KINDS, FixedSeeds, bearer, play, player
from tests.conftest import Infrastructure, running_app

GOLDEN = Path(__file__).resolve().parent / "golden"


def write_export(path: Path, document: dict[str, Any]) -> None:
    """Write an export with one event per line (compact, yet a diff shows which event changed)."""
    header = {key: value for key, value in document.items() if key != "events"}
    lines = [json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
             for event in document["events"]]
    text = json.dumps(header, ensure_ascii=False, indent=1)[:-2] + ',\n "events": [\n' + ",\n".join(lines) + "\n]}\n"
    assert json.loads(text) == document
    path.write_text(text, encoding="utf-8")


async def generate(infra: Infrastructure) -> None:
    """Play one game per module on an in-process table and write each operator export."""
    settings = infra.settings()
    nc = await nats.connect(infra.nats_url)
    try:
        async with running_app(create_app(settings, seeds=FixedSeeds())) as table, running_app(bot_app(settings)):
            for name, kind in KINDS.items():
                if (GOLDEN / f"{name}_v{registry.latest(kind.game).version}.json").exists():
                    continue  # a golden log is written once and kept for ever
                game_id = await play(table, nc, settings, kind, player("Anna"))
                answer = await table.get(f"/games/{game_id}/export", headers=bearer(settings))
                answer.raise_for_status()
                document = answer.json()
                report = audit(document)
                assert report.passed, report.lines()
                write_export(GOLDEN / f"{name}_v{document['rules']['version']}.json", document)
                print(f"{name}: {len(document['events'])} Ereignisse, {report.verdict()}")
    finally:
        await nc.drain()


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
