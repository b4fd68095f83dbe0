"""Make and rotate the table's Ed25519 signing keys (a key file, `speed-signing-keys/1`; docs/operations.md).

`new` prints a key file with one fresh active key; `add FILE` the file with a fresh key added, not yet active;
`activate FILE KID` the file with that key active since now (the other keys' private halves dropped unless
--keep-private: their public halves stay, so every game they signed still verifies); `retire FILE KID` the file
with that key's end recorded (once no replica signs with it); `public FILE` the published form (what the table's
GET /keys answers). Key history is append-only: no action drops a key's public half or changes a recorded
``created``/``activated``/``retired`` (`kept_history` checks every result). Key files hold private keys: keep them
secret (0600, a Kubernetes Secret).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from libs.platform.signing import (
    HISTORY_FIELDS,
    Keyring,
    UnusableKey,
    activated,
    kept_history,
    new_key_file,
    retired,
    with_new_key,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The action and the key file it reads."""
    parser.add_argument("action", choices=("new", "add", "activate", "retire", "public"),
                        help="new: neue Schlüsseldatei; add: Schlüssel hinzufügen (nicht aktiv); "
                             "activate: Schlüssel KID aktiv setzen; retire: Ende von Schlüssel KID festhalten "
                             "(signiert nicht mehr); public: die öffentlichen Schlüssel mit ihrer Geschichte")
    parser.add_argument("file", nargs="?", help="die Schlüsseldatei (für add, activate, public)")
    parser.add_argument("kid", nargs="?", help="die Kennung des Schlüssels (für activate und retire)")
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
    if args.action == "public":
        keyring = Keyring.from_json(current)
        return {"active": keyring.active,  # as GET /keys shows it: an unknown time as null
                "keys": [{**dict.fromkeys(HISTORY_FIELDS), **key} for key in keyring.published()]}
    if args.action == "add":
        result = with_new_key(current)
    else:
        if not args.kid:
            raise UnusableKey(f"{args.action} braucht die Kennung des Schlüssels.")
        result = (activated(current, args.kid, drop_old_private=not args.keep_private) if args.action == "activate"
                  else retired(current, args.kid))
    kept_history(current, result)
    Keyring.from_json(result)
    return result
