"""Commands between services over NATS request/reply: each subject's request and reply type, and the envelope.

A `Command` binds a subject to its queue group, request contract and reply contract. The serving service
answers it with `libs.platform.rpc.answer(nc, COMMAND, handler)`, every caller uses
`libs.platform.rpc.call(nc, COMMAND, request)`; both go through these types, so nobody reads another
service's JSON by hand. A request that does not fit is refused with 422 and a German reason before the
handler runs.

On the wire a reply is `{"ok": true, "result": …}` or `{"ok": false, "status", "reason", "code"}`
(`Accepted` / `Refused`): refusals travel as data, so a player reads the same German reason whichever
service they talked to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

from libs.platform.contracts import subjects
from libs.platform.contracts.base import Contract
from libs.platform.contracts.events import GameMode, PlatformSettings

__all__ = [
    "ADVISE",
    "BALANCE",
    "DECIDE",
    "GAME_POT",
    "HOLD_STAKE",
    "LEAVE_GAME",
    "MAKE_MOVE",
    "PLAY_MOVE",
    "RATINGS",
    "READ_GAME_STARTED",
    "RELEASE_STAKE",
    "START_GAME",
    "VIEW_GAME",
    "Accepted",
    "Advice",
    "AdviseRequest",
    "Balance",
    "BalanceQuery",
    "Command",
    "DecideRequest",
    "Decision",
    "GameStartedQuery",
    "GameViewReply",
    "HoldStake",
    "MakeMove",
    "MoveMadeReply",
    "Pot",
    "PotQuery",
    "PotShare",
    "RatingOf",
    "Ratings",
    "RatingsQuery",
    "Receipt",
    "Refused",
    "ReleaseStake",
    "ReplyEnvelope",
    "StakeHeld",
    "StakeReleased",
    "StartGame",
    "StartSeat",
    "StartedReply",
    "ViewGame",
]

Req = TypeVar("Req", bound=Contract)
Rep = TypeVar("Rep")


@dataclass(frozen=True)
class Command(Generic[Req, Rep]):
    """One request/reply subject: who serves it (queue group), what it is asked and what it answers."""

    subject: str
    queue: str
    request: type[Req]
    reply: type[Rep]
    by_game: bool = False
    """The request names one game (`game_id`): `call` sends it to `<subject>.<game_id>`, which nats-server maps
    onto the game's partition, so it reaches the replica holding that game warm; with nobody serving the
    partition (a handover) it is sent once more on `subject`, which every replica serves."""


# ---- Reply envelope -----------------------------------------------------------------------------------
class Accepted(msgspec.Struct, kw_only=True, frozen=True):
    """A command's answer: `{"ok": true, "result": …}`."""

    ok: bool = True
    result: Any


class Refused(msgspec.Struct, kw_only=True, frozen=True):
    """A command's refusal: `{"ok": false, "status", "reason", "code"}` (HTTP-like status, German reason)."""

    ok: bool = False
    status: int
    reason: str
    code: str = "refused"


class ReplyEnvelope(msgspec.Struct, kw_only=True, frozen=True):
    """Either reply as the caller reads it; `result` is decoded afterwards into the command's reply type."""

    ok: bool
    result: msgspec.Raw = msgspec.Raw(b"null")
    status: int = 500
    reason: str = ""
    code: str = "refused"


# ---- table.cmd.start (lobby → table) -------------------------------------------------------------------
class StartSeat(Contract, frozen=True, kw_only=True):
    """A seat the table is asked to fill; the table checks kind, level and player (German refusals)."""

    WHAT: ClassVar[str] = "Ein Platz der Anfrage table.cmd.start"

    kind: str
    """"human" or "bot"."""
    name: str | None = None
    player_id: str | None = None
    level: str | None = None
    account: str | None = None


class StartGame(Contract, frozen=True, kw_only=True):
    """Start a game (the lobby for its tables; the table's own solo route builds the same command)."""

    WHAT: ClassVar[str] = "Die Anfrage table.cmd.start"

    game: str
    game_id: str | None = None
    """Chosen by the caller so a retried start names the same game (None: the table picks one)."""
    table_id: str | None = None
    settings: dict[str, Any] | None = None
    """The game's settings; the rule module normalises them."""
    seats: list[StartSeat]
    platform: PlatformSettings | None = None
    mode: GameMode | None = None
    """The solo mode the lobby starts the game in (None: an ordinary game)."""
    seed: str | None = None
    """A daily game's seed (64 hex digits): the day's, the same for everyone (None: the table draws one)."""
    seed_reveal_at: str | None = None
    """With `seed`: when the seed may be revealed (the day's end, ISO in UTC)."""


class StartedReply(Contract, frozen=True, kw_only=True):
    """The started game: its id, rule module id and event count (1)."""

    WHAT: ClassVar[str] = "Die Antwort auf table.cmd.start"

    game_id: str
    rules: str
    n: int


START_GAME = Command(subjects.TABLE_START, subjects.TABLE_QUEUE, StartGame, StartedReply, by_game=True)


# ---- table.cmd.move (bot → table) ----------------------------------------------------------------------
class MakeMove(Contract, frozen=True, kw_only=True):
    """Make a move for a seat (a computer's decision); with `expected_n` only on that very position."""

    WHAT: ClassVar[str] = "Die Anfrage table.cmd.move"

    game_id: str
    seat: int
    move: dict[str, Any]
    actor: str = "system"
    chosen_by: str = "bot"
    expected_n: int | None = None


class Receipt(Contract, frozen=True, kw_only=True, omit_defaults=True):
    """The table's signed receipt of a move's event (docs/audit.md, "Signatures and receipts"): the Ed25519
    signature (hex) by key `kid` of ``speed-event/1:<game_id>:<n>:<hash>``; of a side move (`team` set), of
    entry `n` of that team's log, ``speed-event/1:<game_id>:team<team>:<n>:<hash>``.

    `team` is left out on the wire when None (a game event's receipt), so such a receipt reads and writes exactly
    as before the field existed."""

    WHAT: ClassVar[str] = "Die Quittung eines Zuges"

    game_id: str
    n: int
    hash: str
    kid: str
    sig: str
    team: int | None = None


class MoveMadeReply(Contract, frozen=True, kw_only=True):
    """The game after the move: its id and event count, and the move's signed receipt (None: the table signs
    nothing, which production refuses). A side move leaves `n` where it was (the game's log did not move); its
    receipt is its team-log entry's (`Receipt.team`)."""

    WHAT: ClassVar[str] = "Die Antwort auf table.cmd.move"

    game_id: str
    n: int
    receipt: Receipt | None = None


MAKE_MOVE = Command(subjects.TABLE_MOVE, subjects.TABLE_QUEUE, MakeMove, MoveMadeReply, by_game=True)
PLAY_MOVE = Command(subjects.TABLE_PLAY, subjects.TABLE_QUEUE, MakeMove, MoveMadeReply, by_game=True)
"""table.cmd.play (the operator's tools only): the same request, a move in a human's seat in the name of `actor`, the
seat's player; written with `chosen_by` "operator" whatever the request says, so the audit tells it from the
player's own move (docs/audit.md, "Who did what")."""


# ---- table.cmd.view (any service → table) --------------------------------------------------------------
class ViewGame(Contract, frozen=True, kw_only=True):
    """Read a game as seat `seat` sees it (None: as a spectator)."""

    WHAT: ClassVar[str] = "Die Anfrage table.cmd.view"

    game_id: str
    seat: int | None = None


GameViewReply = dict[str, Any]
"""The game view, as `GET /games/{id}/view` answers it (its board is the rule module's view)."""

VIEW_GAME: Command[ViewGame, GameViewReply] = Command(subjects.TABLE_VIEW, subjects.TABLE_QUEUE, ViewGame, dict,
                                                      by_game=True)


# ---- table.cmd.started (ledger → table) ----------------------------------------------------------------
class GameStartedQuery(Contract, frozen=True, kw_only=True):
    """Read a game's first event, its GameStarted, as the log holds it (also once it was purged into the archive)."""

    WHAT: ClassVar[str] = "Die Anfrage table.cmd.started"

    game_id: str


LoggedEvent = dict[str, Any]
"""An event's envelope as stored (``Event.to_json``; ``Event.decode`` of its JSON gives the event back, hash intact)."""

READ_GAME_STARTED: Command[GameStartedQuery, LoggedEvent] = Command(
    subjects.TABLE_STARTED, subjects.TABLE_QUEUE, GameStartedQuery, dict)


# ---- table.cmd.leave (lobby → table) -------------------------------------------------------------------
class LeaveGame(Contract, frozen=True, kw_only=True):
    """Let `player_id` leave a running game (the computer plays on for the seat)."""

    WHAT: ClassVar[str] = "Die Anfrage table.cmd.leave"

    game_id: str
    player_id: str


class LeftReply(Contract, frozen=True, kw_only=True):
    """The game after leaving: its event count, and whether the player had already left or it had ended."""

    WHAT: ClassVar[str] = "Die Antwort auf table.cmd.leave"

    game_id: str
    n: int
    already: bool = False


LEAVE_GAME = Command(subjects.TABLE_LEAVE, subjects.TABLE_QUEUE, LeaveGame, LeftReply, by_game=True)


# ---- bot.cmd.decide (table → bot) ----------------------------------------------------------------------
class DecideRequest(Contract, frozen=True, kw_only=True):
    """Decide one move for `seat` from its view (the computer stepping in when a think time ran out)."""

    WHAT: ClassVar[str] = "Die Anfrage bot.cmd.decide"

    rules: str
    seat: int
    view: dict[str, Any]
    level: str = "normal"
    game_id: str = ""
    n: int = 0
    """With `game_id` and `seat`: what the decision's random generator is seeded from."""


class Decision(Contract, frozen=True, kw_only=True):
    """The move the computer chose."""

    WHAT: ClassVar[str] = "Die Antwort auf bot.cmd.decide"

    move: dict[str, Any]


DECIDE = Command(subjects.BOT_DECIDE, subjects.BOT_QUEUE, DecideRequest, Decision)


# ---- bot.cmd.advise (table → bot) ----------------------------------------------------------------------
class AdviseRequest(Contract, frozen=True, kw_only=True):
    """"Rat des Meisters": the strong computer's move for `seat` from its view, with a reason."""

    WHAT: ClassVar[str] = "Die Anfrage bot.cmd.advise"

    rules: str
    seat: int
    view: dict[str, Any]
    game_id: str = ""
    n: int = 0


class Advice(Contract, frozen=True, kw_only=True):
    """The advised move (None: the strong computer would not act now) and its German reason."""

    WHAT: ClassVar[str] = "Die Antwort auf bot.cmd.advise"

    move: dict[str, Any] | None
    reason: dict[str, Any]


ADVISE = Command(subjects.BOT_ADVISE, subjects.BOT_QUEUE, AdviseRequest, Advice)


# ---- ledger.cmd.balance (any service → ledger) ---------------------------------------------------------
class BalanceQuery(Contract, frozen=True, kw_only=True):
    """A player's wallet balance (404 `no_wallet` for guests and unknown players)."""

    WHAT: ClassVar[str] = "Die Anfrage ledger.cmd.balance"

    player_id: str


class Balance(Contract, frozen=True, kw_only=True):
    """Taler in the wallet."""

    WHAT: ClassVar[str] = "Die Antwort auf ledger.cmd.balance"

    balance: int


BALANCE = Command(subjects.LEDGER_BALANCE, subjects.LEDGER_QUEUE, BalanceQuery, Balance)


# ---- leaderboard.cmd.ratings (lobby's matchmaker → leaderboard) -------------------------------------------
class RatingsQuery(Contract, frozen=True, kw_only=True):
    """Players' ratings in one list (game and variant as `GameEnded` names them, e.g. speedmosaik/kachelwand)."""

    WHAT: ClassVar[str] = "Die Anfrage leaderboard.cmd.ratings"

    game: str
    variant: str
    player_ids: list[str] = msgspec.field(default_factory=list)
    """At most 500."""


class RatingOf(Contract, frozen=True, kw_only=True):
    """One rating: openskill's μ and σ, the shown rating (round(60 · μ)) and uncertainty (round(60 · σ)), and how
    many rated games it rests on (0: a player new to the list, at the starting 1500 ± 500)."""

    WHAT: ClassVar[str] = "Eine Wertung"

    key: str
    """The player id, or the computer level ("easy", "normal", "strong")."""
    mu: float
    sigma: float
    rating: int
    uncertainty: int
    games: int


class Ratings(Contract, frozen=True, kw_only=True):
    """The players' ratings in the order asked, and each computer level's that played a rated game of the list."""

    WHAT: ClassVar[str] = "Die Antwort auf leaderboard.cmd.ratings"

    players: list[RatingOf]
    computers: list[RatingOf]


RATINGS = Command(subjects.LEADERBOARD_RATINGS, subjects.LEADERBOARD_QUEUE, RatingsQuery, Ratings)


# ---- ledger.cmd.hold / ledger.cmd.release (lobby → ledger) ---------------------------------------------
class HoldStake(Contract, frozen=True, kw_only=True):
    """Hold `amount` Taler of the player's wallet for a seat at a stake table, once per `key`.

    `key` is `hold:<table_id>:<player_id>:<round>`; 409 "Nicht genug Taler …" when the wallet is short.
    With `from_key` (another hold of the same player and amount, e.g. a quick match's while waiting) the stake
    moves from that hold to this one in one booking, never through the wallet; 409 `hold_gone` when that hold
    is no longer held.
    """

    WHAT: ClassVar[str] = "Die Anfrage ledger.cmd.hold"

    player_id: str
    table_id: str
    amount: int
    key: str
    from_key: str | None = None


class StakeHeld(Contract, frozen=True, kw_only=True):
    """What the hold put aside, the wallet's balance after it, and whether the key was booked before."""

    WHAT: ClassVar[str] = "Die Antwort auf ledger.cmd.hold"

    held: int
    balance: int
    duplicate: bool


HOLD_STAKE = Command(subjects.LEDGER_HOLD, subjects.LEDGER_QUEUE, HoldStake, StakeHeld)


class ReleaseStake(Contract, frozen=True, kw_only=True):
    """Give back the hold booked under `key` (as far as it is still held), once.

    `because` says why, for the wallet's history: "left" (the player stood up before the start),
    "table_closed" (the lobby closed a table left open too long without a start), "match_left" (a quick match's
    player cancelled or was dropped from the queue) or "match_seated" (the quick match found a table, where the
    stake is held anew).
    """

    WHAT: ClassVar[str] = "Die Anfrage ledger.cmd.release"

    player_id: str
    table_id: str
    key: str
    because: str = "left"


class StakeReleased(Contract, frozen=True, kw_only=True):
    """How many Taler went back to the wallet, and whether the release was booked before."""

    WHAT: ClassVar[str] = "Die Antwort auf ledger.cmd.release"

    released: int
    duplicate: bool


RELEASE_STAKE = Command(subjects.LEDGER_RELEASE, subjects.LEDGER_QUEUE, ReleaseStake, StakeReleased)


# ---- ledger.cmd.pot (lobby → ledger) -----------------------------------------------------------------
class PotQuery(Contract, frozen=True, kw_only=True):
    """What a game's pot took in and paid out (for the end table's Taler)."""

    WHAT: ClassVar[str] = "Die Anfrage ledger.cmd.pot"

    game_id: str


class PotShare(Contract, frozen=True, kw_only=True):
    """One registered player's Taler in a game's pot: `paid` into it at the start, `won` out of it at the end."""

    WHAT: ClassVar[str] = "Ein Anteil am Topf"

    player_id: str
    paid: int
    won: int


class Pot(Contract, frozen=True, kw_only=True):
    """A game's pot as the ledger booked it.

    `state`: "none" (no stake was collected for this game: played without stake, or nobody had one held),
    "open" (collected, the game not settled yet) or "settled" (paid out). `shares` lists every player who paid
    or won, `house` what went to the house, `memo` the payout's words as the wallets' history shows them.
    """

    WHAT: ClassVar[str] = "Die Antwort auf ledger.cmd.pot"

    state: str
    total: int = 0
    shares: list[PotShare] = msgspec.field(default_factory=list)
    house: int = 0
    memo: str = ""


GAME_POT = Command(subjects.LEDGER_POT, subjects.LEDGER_QUEUE, PotQuery, Pot)
