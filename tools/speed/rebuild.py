"""(being built) the `speed rebuild` subcommand."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments yet."""


def run(args: argparse.Namespace) -> int:
    """Not built yet: exits 2."""
    print("noch nicht gebaut")
    return 2
