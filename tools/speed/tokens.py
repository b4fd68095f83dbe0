"""Mint an operator token (signed with AUTH_SECRET) for reading and exporting any ended game whole."""

from __future__ import annotations

import argparse

from libs.platform.auth import issue_operator_token
from libs.platform.settings import get_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The operator's name and the token's lifetime."""
    parser.add_argument("name", help="wer den Schlüssel benutzt (steht in jedem Zugriff)")
    parser.add_argument("--hours", type=int, default=12, help="gültig für so viele Stunden (Vorgabe 12)")


def run(args: argparse.Namespace) -> int:
    """Print the token on stdout."""
    print(issue_operator_token(get_settings().auth_secret, args.name, hours=args.hours))
    return 0
