"""The typed contracts between services: every subject, event payload, command and reply, defined once.

- `subjects`: stream, subject, queue-group and durable-consumer names.
- `events`: the payloads of a game's log (GameStarted, MoveMade, PlayerLeft, GameEnded) and lobby facts.
- `commands`: request/reply commands (`Command`: subject, queue, request and reply type) and the envelope.
- `messages`: work items on streams (bot turns, think-time deadlines).

Every contract is a msgspec Struct with `encode`/`decode` (JSON bytes) and `to_data`/`from_data` (plain
dicts); a message that does not fit raises `ContractError` with a German reason.
"""

from libs.platform.contracts.base import Contract, ContractError

__all__ = ["Contract", "ContractError"]
