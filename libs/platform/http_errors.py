"""Every HTTP refusal in one shape, in German, never echoing user input at length.

A refusal is ``{"detail": "<German sentence>", "code": "<machine code>"}``; a request that does not fit the
route's declared types adds ``errors``, one entry per problem, built from pydantic's structured errors
(``field``, ``key``, ``params``, German ``text``) instead of pydantic's English messages and echoed input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from libs.platform.rpc import UNAVAILABLE, UNAVAILABLE_REASON, CommandRefused

SHOWN_CHARS = 40
"""At most this many characters of a value a client sent appear in an answer."""
DETAIL_CHARS = 300
"""A refusal's sentence is cut here, whatever it quotes (a safety net below `shown`)."""
MAX_ERRORS = 10
"""At most this many field problems are listed (a body can have thousands)."""


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """Return ``value`` as text fit to quote in a German refusal: at most ``limit`` characters, then "…"."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


class FieldProblem(BaseModel):
    """One part of a request that does not fit: where, what kind of problem, its limits, and the German text."""

    field: str
    key: str
    params: dict[str, Any] = {}
    text: str


class Refusal(BaseModel):
    """What every refused request answers (4xx): a German sentence, a code, and for invalid input the fields."""

    detail: str
    code: str | None = None
    errors: list[FieldProblem] | None = None


def refusal(status: int, detail: str, code: str | None, *, errors: Sequence[FieldProblem] = (),
            headers: Mapping[str, str] | None = None) -> JSONResponse:
    """Return the JSON answer of a refusal (the detail cut to DETAIL_CHARS)."""
    body: dict[str, Any] = {"detail": shown(detail, DETAIL_CHARS), "code": code}
    if errors:
        body["errors"] = [problem.model_dump() for problem in errors]
    return JSONResponse(body, status_code=status, headers=dict(headers) if headers else None)


# ---- validation errors: pydantic's error types in German ------------------------------------------------

_TEXTS: dict[str, str] = {
    "missing": "Diese Angabe fehlt.",
    "extra_forbidden": "Diese Angabe ist hier nicht vorgesehen.",
    "string_type": "Erwartet wird ein Text.",
    "string_too_short": "Der Text braucht mindestens {min_length} Zeichen.",
    "string_too_long": "Der Text darf höchstens {max_length} Zeichen haben.",
    "string_pattern_mismatch": "Der Text hat nicht die erwartete Form.",
    "string_unicode": "Der Text ist kein gültiges Unicode.",
    "int_type": "Erwartet wird eine ganze Zahl.",
    "int_parsing": "Erwartet wird eine ganze Zahl.",
    "int_parsing_size": "Die Zahl ist zu groß.",
    "int_from_float": "Erwartet wird eine ganze Zahl ohne Nachkommastellen.",
    "float_type": "Erwartet wird eine Zahl.",
    "float_parsing": "Erwartet wird eine Zahl.",
    "finite_number": "Erwartet wird eine endliche Zahl.",
    "bool_type": "Erwartet wird true oder false.",
    "bool_parsing": "Erwartet wird true oder false.",
    "greater_than": "Der Wert muss größer als {gt} sein.",
    "greater_than_equal": "Der Wert muss mindestens {ge} sein.",
    "less_than": "Der Wert muss kleiner als {lt} sein.",
    "less_than_equal": "Der Wert darf höchstens {le} sein.",
    "dict_type": "Erwartet wird ein JSON-Objekt.",
    "model_type": "Erwartet wird ein JSON-Objekt.",
    "model_attributes_type": "Erwartet wird ein JSON-Objekt.",
    "list_type": "Erwartet wird eine Liste.",
    "too_short": "Die Liste braucht mindestens {min_length} Einträge.",
    "too_long": "Die Liste darf höchstens {max_length} Einträge haben.",
    "json_invalid": "Der Inhalt ist kein gültiges JSON.",
    "json_type": "Erwartet wird JSON.",
    "literal_error": "Erlaubt ist nur: {expected}.",
    "enum": "Erlaubt ist nur: {expected}.",
    "uuid_type": "Erwartet wird eine UUID.",
    "uuid_parsing": "Erwartet wird eine UUID.",
}
_UNKNOWN = "Der Wert ist ungültig."
_PARTS = {"body": "Inhalt", "query": "Parameter", "path": "Adresse", "header": "Kopfzeile", "cookie": "Cookie"}


def field_problem(error: Mapping[str, Any]) -> FieldProblem:
    """Return one pydantic error as a German field problem: its location and limits, never the input."""
    key = str(error.get("type", "value_error"))
    params = {name: value if isinstance(value, bool | int | float) else shown(value)
              for name, value in (error.get("ctx") or {}).items()
              if isinstance(value, bool | int | float | str)}
    if isinstance(params.get("expected"), str):  # pydantic lists choices as "'a', 'b' or 'c'"
        params["expected"] = str(params["expected"]).replace(" or ", " oder ")
    try:
        text = _TEXTS[key].format(**params)
    except (KeyError, IndexError):
        text = _UNKNOWN
    field = ".".join(shown(part) for part in error.get("loc", ()))
    return FieldProblem(field=field, key=key, params=params, text=text)


def validation_refusal(errors: Sequence[Mapping[str, Any]]) -> JSONResponse:
    """Return the 422 answer for input that does not fit the route: one German sentence and the problems."""
    problems = [field_problem(error) for error in errors[:MAX_ERRORS]]
    if not problems:
        return refusal(422, "Die Anfrage ist ungültig.", "invalid_request")
    first = problems[0]
    loc = errors[0].get("loc", ())
    where = _PARTS.get(str(loc[0]), "Anfrage") if loc else "Anfrage"
    name = ".".join(shown(part) for part in loc[1:])
    detail = f"Die Anfrage ist ungültig ({where}{f' „{name}“' if name else ''}): {first.text}"
    if len(errors) > 1:
        detail += f" (und {len(errors) - 1} weitere Angaben)"
    return refusal(422, detail, "invalid_request", errors=problems)


# ---- the platform's default refusals in German ----------------------------------------------------------

_STATUS_TEXTS: dict[int, tuple[str, str]] = {
    400: ("Die Anfrage ist fehlerhaft.", "bad_request"),
    404: ("Diese Adresse gibt es hier nicht.", "not_found"),
    405: ("Diese Methode ist für diese Adresse nicht erlaubt.", "method_not_allowed"),
    413: ("Die Anfrage ist zu groß.", "too_large"),
    415: ("Diese Art von Inhalt wird hier nicht angenommen.", "unsupported_media_type"),
}


def install_error_handlers(app: FastAPI) -> None:
    """Answer every refusal in the shared shape: commands refused, HTTP errors, invalid input, crashes."""

    @app.exception_handler(CommandRefused)
    async def refused(_: Request, error: CommandRefused) -> JSONResponse:
        return refusal(error.status, error.reason, error.code)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return validation_refusal(list(error.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        detail, code = str(error.detail), getattr(error, "code", None)
        default = _STATUS_TEXTS.get(error.status_code)
        if default is not None and detail in _ENGLISH_DEFAULTS:  # Starlette's and FastAPI's own phrases
            detail, code = default
        return refusal(error.status_code, detail, code, headers=error.headers)

    async def unanswered(_: Request, __: Exception) -> JSONResponse:
        # A command to another service found no one or no answer in time (that service is down or busy), or
        # NATS/JetStream is restarting: worth trying again shortly.
        return refusal(503, UNAVAILABLE_REASON, "unavailable")

    for unavailable in UNAVAILABLE:
        app.add_exception_handler(unavailable, unanswered)

    @app.exception_handler(Exception)
    async def crashed(_: Request, __: Exception) -> JSONResponse:
        # Starlette logs the exception itself; the client learns nothing about the inside.
        return refusal(500, "Interner Fehler. Bitte später erneut versuchen.", "internal_error")


_ENGLISH_DEFAULTS = frozenset({"Bad Request", "Not Found", "Method Not Allowed", "Request Entity Too Large",
                               "Content Too Large", "Unsupported Media Type",
                               "There was an error parsing the body"})
"""The English details Starlette and FastAPI give their own refusals; replaced by `_STATUS_TEXTS`."""


# ---- documentation: the refusals in each service's OpenAPI schema -----------------------------------------

_DESCRIPTIONS: dict[int, str] = {
    400: "Die Adresse enthält ein unzulässiges Zeichen (NUL).",
    401: "Anmeldung fehlt oder Token ungültig.",
    403: "Nicht erlaubt.",
    404: "Gibt es nicht.",
    409: "Passt nicht zum aktuellen Stand.",
    413: "Die Anfrage ist zu groß.",
    422: "Ungültige Eingabe (mit den betroffenen Feldern) oder abgelehnter Befehl.",
    429: "Zu viele Anfragen.",
    503: "Gerade nicht bereit.",
}


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Return ``responses=`` documentation of the given refusal statuses for a route or a router."""
    return {status: {"model": Refusal, "description": _DESCRIPTIONS.get(status, "Abgelehnt.")}
            for status in statuses}


EVERY_ROUTE = (400, 413, 422)
"""What any route may answer: a NUL in the address, a body over the limit, input that does not fit."""


def document_refusals(app: FastAPI) -> None:
    """Make the app's OpenAPI schema list the refusals every route may give in the `Refusal` shape (401 for
    the routes that need a bearer token), replacing FastAPI's English validation-error schema."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        refusal_schema = Refusal.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(refusal_schema.pop("$defs", {}))
        components["Refusal"] = refusal_schema
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                statuses = (*EVERY_ROUTE, 401) if operation.get("security") else EVERY_ROUTE
                for status in statuses:
                    described = responses.get(str(status), {}).get("description")
                    responses[str(status)] = {
                        "description": described if described not in (None, "Validation Error")
                        else _DESCRIPTIONS[status],
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refusal"}}},
                    }
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
