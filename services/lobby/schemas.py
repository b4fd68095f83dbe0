"""Request and response bodies of the lobby's HTTP API."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class NameBody(BaseModel):
    """`POST /guests`."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class CredentialsBody(BaseModel):
    """`POST /players` and `POST /sessions`."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class PlayerOut(BaseModel):
    """Who a token belongs to."""

    player_id: str
    name: str
    kind: str


class SignedInOut(PlayerOut):
    """A player with a bearer token for the `Authorization` header."""

    token: str


class SoloBody(BaseModel):
    """`POST /tables/solo`: you against 1–3 computers, started at once."""

    model_config = ConfigDict(extra="forbid")
    game: str = "speedmosaik"
    settings: dict[str, Any] = Field(default_factory=dict)
    opponents: int = 1
    bot_level: str = "normal"


class OpenTableBody(BaseModel):
    """`POST /tables`: a table for 2–4 players that others can join."""

    model_config = ConfigDict(extra="forbid")
    game: str = "speedmosaik"
    settings: dict[str, Any] = Field(default_factory=dict)
    player_count: int = 4
    bot_level: str = "normal"
    fill_with_bots: bool = True


class ModeSoloBody(BaseModel):
    """`POST /solo`: a game in one of the game's solo modes (daily, campaign, free), started at once."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(max_length=200)
    mode: str = Field(max_length=200)
    settings: dict[str, Any] = Field(default_factory=dict)
    opponents: int | None = None
    bot_level: str | None = Field(default=None, max_length=200)
    stage: int | None = None
    give_up_unfinished: bool = False


class ChatBody(BaseModel):
    """`POST /games/{game_id}/chat`: only the text; who writes comes from the token and the seat record."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=2000)


class MatchBody(BaseModel):
    """`POST /match`: "Schnell spielen" – wait for players of like strength, optionally filled with computers."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(max_length=200)
    variant: str | None = Field(default=None, max_length=200)
    """The rating list (a Speedmosaik workshop, Speedkoi's spielart); default: the game's default."""
    seats: int | str = Field(default=2)
    """2, 3 or 4 (as the game allows), or "2-4" / "2–4" for any of them."""
    stake: int = 0
    """0, or 10, 25, 50, 100 Taler (registered players pay; held while waiting)."""
    fill_after: int | None = None
    """Seconds of waiting after which computers fill the table (0–600); null: never."""
