"""The `speed` command: one entry point, one subcommand per job, each in its own module (loaded on use)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS = {
    "audit": "tools.speed.audit",
    "rebuild": "tools.speed.rebuild",
    "operator-token": "tools.speed.tokens",
    "signing-keys": "tools.speed.keys",
    "archive": "tools.speed.archive",
}
"""Subcommand -> module with `add_arguments(parser)` and `run(args) -> int` (the exit status)."""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser with every subcommand's arguments."""
    parser = argparse.ArgumentParser(prog="speed", description="Werkzeuge der Speed-Plattform für Betrieb und Prüfung.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        sub = commands.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0])
        module.add_arguments(sub)
        sub.set_defaults(module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the subcommand named on the command line; return its exit status."""
    args = build_parser().parse_args(argv)
    status: int = args.module.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
