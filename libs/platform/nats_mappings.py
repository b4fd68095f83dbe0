"""nats-server's subject mappings of the platform: a game's table commands onto the game's partition.

`table.cmd.move.<game>` becomes `table.part.<k>.cmd.move.<game>`, k = partition(TABLE_PARTITIONS, game): the server
hashes the game id (FNV-1a) so every command of one game lands in the same partition, whose lease holder (a table
API replica) has the game warm (docs/architecture.md, "Game affinity"). The mapping belongs to the server (the
account), not to a client, so every sender's commands are mapped alike.

The same declaration becomes the dev server's config (`libs/devservers/nats_server.py`) and the Kubernetes NATS
config (`deploy/k8s/base/nats/mappings.conf`, checked against this module by tests/deploy). A server without it
still works: nobody serves an unmapped `table.cmd.move.<game>`, so every command takes the shared subject.
"""

from __future__ import annotations

from libs.platform.contracts import subjects as s

SUBJECT_MAPPINGS: dict[str, str] = dict(s.partition_mapping(subject) for subject in s.TABLE_PARTITIONED)
"""Source subject -> destination, in nats-server's mapping syntax."""


def mappings_conf() -> str:
    """The `mappings` block in nats-server's config syntax: deploy/k8s/base/nats/mappings.conf."""
    lines = ["# Generated from libs/platform/nats_mappings.py by `python -m libs.platform.nats_mappings`;",
             "# do not edit (tests/deploy checks it is current). A game's table commands onto its partition.",
             "mappings {"]
    lines += [f'  "{source}": "{destination}"' for source, destination in SUBJECT_MAPPINGS.items()]
    lines += ["}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(mappings_conf(), end="")
