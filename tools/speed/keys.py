"""Make and rotate the table's Ed25519 signing keys (a key file, `speed-signing-keys/1`; docs/operations.md).

`new` prints a key file with one fresh active key; `add FILE` the file with a fresh key added, not yet active;
`activate FILE KID` the file with that key active (the other keys' private halves dropped unless
--keep-private: their public halves stay, so every game they signed still verifies); `public FILE` the
published form (what the table's GET /keys answers). Key files hold private keys: keep them secret (0600, a
Kubernetes Secret).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from libs.platform.signing import Keyring, UnusableKey, activated, new_key_file, with_new_key


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The action and the key file it reads."""
    parser.add_argument("action", choices=("new", "add", "activate", "public"),
                        help="new: neue Schlüsseldatei; add: Schlüssel hinzufügen (nicht aktiv); "
                             "activate: Schlüssel KID aktiv setzen; public: die öffentlichen Schlüssel")
    parser.add_argument("file", nargs="?", help="die Schlüsseldatei (für add, activate, public)")
    parser.add_argument("kid", nargs="?", help="die Kennung des Schlüssels (für activate)")
    parser.add_argument("--keep-private", action="store_true",
                        help="bei activate die privaten Teile der anderen Schlüssel behalten")


def run(args: argparse.Namespace) -> int:
    """Print the resulting key file (or the public keys) on stdout; 2 for unusable input."""
    try:
        result = _result(args)
    except (OSError, ValueError) as error:
        print(f"Nicht möglich: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


def _result(args: argparse.Namespace) -> dict[str, Any]:
    if args.action == "new":
        return new_key_file()
    if not args.file:
        raise UnusableKey(f"{args.action} braucht die Schlüsseldatei.")
    current = json.loads(Path(args.file).read_text())
    Keyring.from_json(current)  # refuse a file the table could not use
    if args.action == "add":
        return with_new_key(current)
    if args.action == "activate":
        if not args.kid:
            raise UnusableKey("activate braucht die Kennung des Schlüssels.")
        return activated(current, args.kid, drop_old_private=not args.keep_private)
    keyring = Keyring.from_json(current)
    return {"active": keyring.active, "keys": keyring.published()}
