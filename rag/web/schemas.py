"""Request bodies and parameters, validated strictly: wrong types are errors, not coerced.

These models are the validators, and GET /openapi.json is generated from them (rag/web/openapi.py), so
what the description promises and what the server takes cannot drift: every string has its length,
characters are refused by patterns JSON Schema states too, and what a pattern cannot say (a reserved
id, a known time zone) is stated beside the check that enforces it. Lengths count the text as sent;
surrounding spaces are stripped once it is valid.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, TypeVar, cast
from zoneinfo import available_timezones

import pydantic
from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationInfo,
)

from connectors.params import whole_numbers
from rag.errors import InvalidJSONError, PayloadTooLargeError, ValidationError
from rag.ingest.documents import check_metadata
from rag.settings import LimitsSettings
from rag.web import jsonio, keys

logger = logging.getLogger(__name__)

SHARED_SCOPE = "*"  # the scope of results every user's search reads: no user may take it as an id
# What str.strip() strips (str.isspace), as a character class that JSON Schema's ECMA-262 patterns and
# pydantic's regex engine read alike (their own \s differ from Python's and from each other).
SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
CONTROL = r"\x00-\x1f\x7f"
NOT_BLANK = f"[^{SPACE}]"  # some character that is not a space
USER_ID_PATTERN = f"^[^{CONTROL}]*[^{CONTROL}{SPACE}][^{CONTROL}]*$"
DOC_ID_PATTERN = f"^[^\\x00-\\x1f]*[^\\x00-\\x1f{SPACE}][^\\x00-\\x1f]*$"
ANSWER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
# What a failed pattern means, for the error message (pydantic's names the pattern).
PATTERN_HELP = {
    NOT_BLANK: "send some text, not only spaces",
    USER_ID_PATTERN: "a user id is 1 to 200 characters without control characters",
    DOC_ID_PATTERN: "a document id is 1 to 256 characters without control characters",
    ANSWER_ID_PATTERN: "1 to 64 of A-Z a-z 0-9 _ -",
}
ECHO_CHARS = 100  # how much of a value a client sent an error message repeats
DEFAULT_MESSAGE_CHARS: int = LimitsSettings.model_fields["max_message_chars"].default


def clip(value: str, chars: int = ECHO_CHARS) -> str:
    """``value``, or its first ``chars`` characters and "…": what an error message may repeat of it."""
    return value if len(value) <= chars else value[:chars] + "…"


def _strip(value: str) -> str:
    return value.strip()


def text(max_chars: int) -> Any:
    """Free text (a message, a query, a name): 1 to ``max_chars`` characters, not only spaces."""
    return Annotated[
        str,
        StringConstraints(min_length=1, max_length=max_chars, pattern=NOT_BLANK),
        AfterValidator(_strip),
    ]


class _MessageChars:
    """Marks text whose length is WAYFARER_LIMITS__MAX_MESSAGE_CHARS (see ``sized``)."""


MESSAGE = _MessageChars()
# text(...) spelt out, so that type checkers read them as types.
MessageText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=DEFAULT_MESSAGE_CHARS, pattern=NOT_BLANK),
    AfterValidator(_strip),
    MESSAGE,
]
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=200, pattern=NOT_BLANK), AfterValidator(_strip)
]
RecallText = Annotated[
    str, StringConstraints(min_length=1, max_length=2000, pattern=NOT_BLANK), AfterValidator(_strip)
]


def user_id_rule(value: str) -> str:
    """A user id, once its length and characters are checked: stripped, and not the shared scope."""
    value = value.strip()
    if value == SHARED_SCOPE:
        raise ValueError(f"{SHARED_SCOPE!r} is reserved for results shared by every user")
    return value


UserId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=200, pattern=USER_ID_PATTERN),
    AfterValidator(user_id_rule),
    Field(json_schema_extra={"not": {"pattern": f"^[{SPACE}]*\\*[{SPACE}]*$"}}),
]
USER_ID = TypeAdapter(UserId)
DocId = Annotated[
    str, StringConstraints(min_length=1, max_length=256, pattern=DOC_ID_PATTERN), AfterValidator(_strip)
]
TIME_ZONES = frozenset(available_timezones())


def timezone_rule(value: str) -> str:
    """An IANA time zone name ("Europe/Lisbon"), the traveller's: what "today" and "this weekend" mean."""
    if value not in TIME_ZONES:
        raise ValueError(f"unknown time zone {value!r}; send an IANA name like 'Europe/Lisbon'")
    return value


TimeZoneName = Annotated[
    str,
    StringConstraints(max_length=64),
    AfterValidator(timezone_rule),
    Field(json_schema_extra={"enum": sorted(TIME_ZONES)}),
]
AnswerId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=ANSWER_ID_PATTERN)]
# One of a user's conversations (rag.chat.sessions): "main" is the one of clients that name none.
ConversationId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=64, pattern=ANSWER_ID_PATTERN),
    Field(
        description="Which of the user's conversations (each has its own trip and history); 'main' "
        "when left out"
    ),
]
CONVERSATION_ID = TypeAdapter(ConversationId)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SearchFilters(_Strict):
    city: Name | None = None
    country: Name | None = None
    kind: Name | None = None
    source: Name | None = None


class SearchRequest(_Strict):
    query: MessageText
    top_k: int = Field(5, ge=1, le=50)
    filters: SearchFilters = SearchFilters()
    mode: Literal["hybrid", "dense"] | None = None
    user_id: UserId | None = None


class ChatRequest(_Strict):
    user_id: UserId
    message: MessageText
    conversation_id: ConversationId | None = None
    id: AnswerId | None = None
    timezone: TimeZoneName | None = None


class _Frame(BaseModel):
    """A WebSocket frame from a client: strict types, unknown keys ignored."""

    model_config = ConfigDict(extra="ignore", strict=True)


class MessageFrame(_Frame):
    """A message to answer."""

    type: Literal["message"]
    text: MessageText
    id: AnswerId | None = Field(None, description="The answer's id, for cancel and resume")
    timezone: TimeZoneName | None = Field(
        None, description='The traveller\'s IANA time zone ("Europe/Lisbon"): what "this weekend" means'
    )


class CancelFrame(_Frame):
    """Stop the answer this connection is receiving (its saved turn is marked stopped)."""

    type: Literal["cancel"]
    id: AnswerId | None = None


class ResumeFrame(_Frame):
    """After a reconnect: the answer ``id`` again, what was written so far and then the rest."""

    type: Literal["resume"]
    id: AnswerId


FRAMES: dict[str, type[_Frame]] = {"message": MessageFrame, "cancel": CancelFrame, "resume": ResumeFrame}


class RecallRequest(_Strict):
    message: RecallText
    user_id: UserId | None = None
    limit: int = Field(5, ge=1, le=50)


class RouteRequest(_Strict):
    message: MessageText
    user_id: UserId | None = Field(
        None,
        description=(
            "Whose conversation the message continues: its trip state completes missing parameters "
            "(tools[].assumed names them) and follow-ups ('what about Porto?', 'the day after instead') "
            "change the conversation's last calls. Nothing is called and the conversation is not changed. "
            "Without it, the message is routed on its own."
        ),
    )
    conversation_id: ConversationId | None = Field(
        None, description="With user_id: which of the user's conversations ('main' when left out)"
    )
    timezone: TimeZoneName | None = Field(
        None, description="The traveller's IANA time zone: what 'today' and 'this weekend' mean"
    )


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class ReindexRequest(_Strict):
    # A job name (seed-sync, purge-expired, refresh-popular, rebuild); left out: every enabled scheduled
    # job. Not null: only the documented {} runs them all.
    job: Annotated[str, StringConstraints(min_length=1, max_length=100)] = Field(
        "", json_schema_extra=_no_default
    )


class DocumentIn(_Strict):
    id: DocId
    text: Annotated[str, StringConstraints(min_length=1)]
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Free-form JSON kept with the document, within the service's limits (settings "
        "limits.max_metadata_depth, max_metadata_keys and max_metadata_bytes): nested that deep at most, "
        "that many keys in all, that many bytes as JSON, integers within 64 bits; `source`, when given, a "
        "non-empty string other than the service's own; keys the service sets itself are refused",
    )

    @pydantic.field_validator("metadata")
    @classmethod
    def _metadata_within_limits(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        limits = (info.context or {}).get("limits") or LimitsSettings()
        check_metadata(value, limits.max_metadata_depth, limits.max_metadata_keys, limits.max_metadata_bytes)
        return value


class DocumentsRequest(_Strict):
    documents: list[DocumentIn] = Field(min_length=1, max_length=1000)


M = TypeVar("M", bound=BaseModel)
_SIZED: dict[tuple[type[BaseModel], int], type[BaseModel]] = {}


def sized(model: type[M], max_message_chars: int) -> type[M]:
    """``model`` with its message text (``MessageText``) at most ``max_message_chars`` long: the
    validator of a service with that limit, and what its /openapi.json describes."""
    if max_message_chars == DEFAULT_MESSAGE_CHARS:
        return model
    key = (model, max_message_chars)
    if key not in _SIZED:
        fields: dict[str, Any] = {
            name: (Annotated[text(max_message_chars), MESSAGE], Field(description=info.description))
            for name, info in model.model_fields.items()
            if any(m is MESSAGE for m in info.metadata)
        }
        _SIZED[key] = (
            pydantic.create_model(model.__name__, __base__=model, __module__=model.__module__, **fields)
            if fields
            else model
        )
    return cast(type[M], _SIZED[key])


# Room for the spaces and line breaks JSON allows between values, past a body's largest compact form.
BODY_SLACK = 4096
_BODY_LIMITS: dict[tuple[type[BaseModel], int, int, int], int] = {}


def body_limit(model: type[BaseModel], limits: LimitsSettings) -> int:
    """The most bytes a body of ``model`` may take: its largest valid value with every character of it
    escaped, and BODY_SLACK; a body no schema bounds (document uploads) gets max_body_bytes."""
    key = (model, limits.max_message_chars, limits.max_int_digits, limits.max_body_bytes)
    if key not in _BODY_LIMITS:
        schema = sized(model, limits.max_message_chars).model_json_schema()
        largest = jsonio.largest(schema, jsonio.JSONLimits(limits.max_json_depth, limits.max_int_digits))
        _BODY_LIMITS[key] = (
            limits.max_body_bytes if largest is None else min(limits.max_body_bytes, largest + BODY_SLACK)
        )
    return _BODY_LIMITS[key]


def json_limits(request: web.Request) -> jsonio.JSONLimits:
    limits = request.app[keys.SETTINGS].limits
    return jsonio.JSONLimits(limits.max_json_depth, limits.max_int_digits)


async def read_raw(request: web.Request, limit: int | None = None) -> bytes:
    """The request body, or a 4xx error: larger than ``limit`` bytes (by default, and at most,
    max_body_bytes), refused by its Content-Length before any of it is read, else as soon as what has
    arrived (decoded) passes it; or not decodable as its Content-Encoding says."""
    most = request.app[keys.SETTINGS].limits.max_body_bytes
    limit = most if limit is None else min(limit, most)
    declared = request.content_length
    if declared is not None and declared > limit:
        raise PayloadTooLargeError(_too_large(request, limit))
    body = bytearray()
    try:
        async for chunk in request.content.iter_any():
            body += chunk
            if len(body) > limit:
                raise PayloadTooLargeError(_too_large(request, limit))
    except RequestPayloadError as exc:
        encoding = clip(request.headers.get("Content-Encoding", "none"), 40)
        reason = " ".join(str(exc).split())
        # A client's mistake, said once: no traceback, and aiohttp is told the body is over, so that it
        # does not read it again at the end of the request and log the same failure as a crash.
        logger.warning("%s %s: body not decodable as %s: %s", request.method, request.path, encoding, reason)
        request.content.feed_eof()
        raise InvalidJSONError(
            f"request body cannot be read (Content-Encoding: {encoding}): send it as declared"
        ) from exc
    return bytes(body)


def _too_large(request: web.Request, limit: int) -> str:
    resource = request.match_info.route.resource
    where = resource.canonical if resource is not None else request.path
    return f"request body is larger than the limit of {limit} bytes for {request.method} {where}"


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
    raw = await read_raw(request, body_limit(model, request.app[keys.SETTINGS].limits))
    if not raw.strip():
        raise InvalidJSONError("request body is empty; send a JSON object")
    value = parse_json(raw, request)
    return validate(model, value, request)


def validate(model: type[M], value: Any, request: web.Request) -> M:
    """``value`` as ``model`` (strict: wrong types are errors, but 30.0 is the integer JSON Schema says
    it is: connectors.params.whole_numbers), or validation_error naming the fields."""
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object")
    limits = request.app[keys.SETTINGS].limits
    try:
        checked = sized(model, limits.max_message_chars)
        return checked.model_validate(whole_numbers(model, value), context={"limits": limits})
    except pydantic.ValidationError as exc:
        raise ValidationError(describe(exc.errors(include_url=False))) from exc


async def read_json_object(request: web.Request, model: type[BaseModel] | None = None) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a 4xx error; ``model``: what the body
    will be validated as, whose largest value limits its size."""
    limits = request.app[keys.SETTINGS].limits
    raw = await read_raw(request, None if model is None else body_limit(model, limits))
    if not raw.strip():
        return {}
    value = parse_json(raw, request)
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object of parameters")
    return value


def describe(errors: list[Any]) -> str:
    """Pydantic's errors for a person: the first five, each naming its field; a value the client sent
    (an unknown key, a bad name) is repeated ECHO_CHARS characters at most."""
    parts = []
    for err in errors[:5]:
        where = ".".join(clip(str(p)) for p in err["loc"]) or "body"
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err.get("type") == "string_pattern_mismatch":
            msg = PATTERN_HELP.get(str((err.get("ctx") or {}).get("pattern")), msg)
        parts.append(f"{where}: {clip(msg, 300)}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more
