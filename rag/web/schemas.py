"""Request bodies, validated strictly: wrong types are errors, not coerced."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pydantic
from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError
from multidict import MultiMapping
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationInfo

from rag.chat.sessions import HISTORY_LIMIT, PAGE_TURNS
from rag.errors import InvalidJSONError, PayloadTooLargeError, ValidationError
from rag.ingest.documents import check_metadata
from rag.settings import LimitsSettings
from rag.web import jsonio, keys

SHARED_SCOPE = "*"  # the scope of results every user's search reads: no user may take it as an id


def user_id_rule(value: str) -> str:
    """A user id: 1 to 200 characters, no control characters, and not the shared scope."""
    value = value.strip()
    if not 1 <= len(value) <= 200:
        raise ValueError("a user id is 1 to 200 characters")
    if value == SHARED_SCOPE:
        raise ValueError(f"{SHARED_SCOPE!r} is reserved for results shared by every user")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError("a user id has no control characters")
    return value


UserId = Annotated[str, AfterValidator(user_id_rule)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
DocId = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=256, pattern=r"^[^\x00-\x1f]+$")
]


def timezone_rule(value: str) -> str:
    """An IANA time zone name ("Europe/Lisbon"), the traveller's: what "today" and "this weekend" mean."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {value[:64]!r}; send an IANA name like 'Europe/Lisbon'") from exc
    return value


TimeZoneName = Annotated[str, StringConstraints(max_length=64), AfterValidator(timezone_rule)]
AnswerId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SearchFilters(_Strict):
    city: Name | None = None
    country: Name | None = None
    kind: Name | None = None
    source: Name | None = None


class SearchRequest(_Strict):
    query: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    top_k: int = Field(5, ge=1, le=50)
    filters: SearchFilters = SearchFilters()
    mode: Annotated[str, StringConstraints(pattern="^(hybrid|dense)$")] | None = None
    user_id: UserId | None = None


class ChatRequest(_Strict):
    user_id: UserId
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    id: AnswerId | None = None
    timezone: TimeZoneName | None = None


class _Frame(BaseModel):
    """A WebSocket frame from a client: strict types, unknown keys ignored."""

    model_config = ConfigDict(extra="ignore", strict=True)


class MessageFrame(_Frame):
    type: Literal["message"]
    text: str
    id: AnswerId | None = None
    timezone: TimeZoneName | None = None


class CancelFrame(_Frame):
    type: Literal["cancel"]
    id: AnswerId | None = None


class ResumeFrame(_Frame):
    type: Literal["resume"]
    id: AnswerId


FRAMES: dict[str, type[_Frame]] = {"message": MessageFrame, "cancel": CancelFrame, "resume": ResumeFrame}


class RecallRequest(_Strict):
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    user_id: UserId | None = None
    limit: int = Field(5, ge=1, le=50)


class RouteRequest(_Strict):
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    user_id: UserId | None = Field(
        None,
        description=(
            "Whose conversation the message continues: its trip state completes missing parameters "
            "(tools[].assumed names them) and follow-ups ('what about Porto?', 'the day after instead') "
            "change the conversation's last calls. Nothing is called and the conversation is not changed. "
            "Without it, the message is routed on its own."
        ),
    )
    timezone: TimeZoneName | None = Field(
        None, description="The traveller's IANA time zone: what 'today' and 'this weekend' mean"
    )


class ReindexRequest(_Strict):
    # A job name (seed-sync, purge-expired, refresh-popular, rebuild); none: every enabled scheduled job.
    job: Annotated[str, StringConstraints(min_length=1, max_length=100)] | None = None


class DocumentIn(_Strict):
    id: DocId
    text: Annotated[str, StringConstraints(min_length=1)]
    metadata: dict[str, Any] = Field(default_factory=dict)

    @pydantic.field_validator("metadata")
    @classmethod
    def _metadata_within_limits(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        limits = (info.context or {}).get("limits") or LimitsSettings()
        check_metadata(value, limits.max_metadata_depth, limits.max_metadata_keys, limits.max_metadata_bytes)
        return value


class DocumentsRequest(_Strict):
    documents: list[DocumentIn] = Field(min_length=1, max_length=1000)


M = TypeVar("M", bound=BaseModel)


def json_limits(request: web.Request) -> jsonio.JSONLimits:
    limits = request.app[keys.SETTINGS].limits
    return jsonio.JSONLimits(limits.max_json_depth, limits.max_int_digits)


async def read_raw(request: web.Request) -> bytes:
    """The request body, or a 4xx error: too large, or not decodable by its Content-Encoding."""
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge as exc:
        limit = request.app[keys.SETTINGS].limits.max_body_bytes
        raise PayloadTooLargeError(f"request body is larger than the limit of {limit} bytes") from exc
    except RequestPayloadError as exc:
        encoding = request.headers.get("Content-Encoding", "none")
        raise InvalidJSONError(
            f"request body cannot be read (Content-Encoding: {encoding}): send it as declared"
        ) from exc


def parse_json(raw: bytes | str, request: web.Request, what: str = "request body") -> Any:
    """JSON within the configured limits, or invalid_json / validation_error naming what is wrong."""
    try:
        return jsonio.loads(raw, json_limits(request))
    except jsonio.JSONSyntaxError as exc:
        raise InvalidJSONError(f"{what} is not valid JSON: {exc}") from exc
    except jsonio.JSONLimitError as exc:
        raise ValidationError(f"{what}: {exc}") from exc


async def read_body(request: web.Request, model: type[M]) -> M:
    """Parse and validate a JSON body, or raise a 4xx error that says what is wrong."""
    raw = await read_raw(request)
    if not raw.strip():
        raise InvalidJSONError("request body is empty; send a JSON object")
    value = parse_json(raw, request)
    return validate(model, value, request)


def validate(model: type[M], value: Any, request: web.Request) -> M:
    """``value`` as ``model`` (strict: wrong types are errors), or validation_error naming the fields."""
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object")
    try:
        return model.model_validate(value, context={"limits": request.app[keys.SETTINGS].limits})
    except pydantic.ValidationError as exc:
        raise ValidationError(_describe(exc.errors(include_url=False))) from exc


async def read_json_object(request: web.Request) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a 4xx error."""
    raw = await read_raw(request)
    if not raw.strip():
        return {}
    value = parse_json(raw, request)
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object of parameters")
    return value


def user_id_param(value: str, where: str = "user_id") -> str:
    """A user id from a query string or path, checked like the ones in bodies."""
    try:
        return user_id_rule(value)
    except ValueError as exc:
        raise ValidationError(f"{where}: {exc}") from exc


# A history page's cursor: a turn's seq, a whole number JavaScript reads exactly.
MAX_CURSOR = 2**53 - 1


def session_page_params(query: MultiMapping[str]) -> tuple[int | None, int]:
    """GET /v1/sessions/{user_id}'s ``before`` (a turn's seq; none: the latest page) and ``limit``
    (1 to HISTORY_LIMIT turns, PAGE_TURNS by default), or validation_error naming the parameter."""
    before = _whole_number(query, "before", 0, MAX_CURSOR, "a turn's seq (the page's `before`)")
    limit = _whole_number(query, "limit", 1, HISTORY_LIMIT, "a number of turns")
    return before, PAGE_TURNS if limit is None else limit


def _whole_number(query: MultiMapping[str], name: str, low: int, high: int, what: str) -> int | None:
    given = query.getall(name, [])
    if not given:
        return None
    rule = f"{name}: {what}, a whole number from {low} to {high}"
    if len(given) > 1:
        raise ValidationError(f"{rule}, given once")
    value = given[0]
    # ASCII digits only (str.isdigit takes "²" and "٣"), and few enough that int() is instant.
    if (
        not (value.isascii() and value.isdigit())
        or len(value) > len(str(high))
        or not low <= int(value) <= high
    ):
        raise ValidationError(f"{rule}; got {value[:32]!r}")
    return int(value)


def _describe(errors: list[Any]) -> str:
    parts = []
    for err in errors[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "body"
        msg = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more
