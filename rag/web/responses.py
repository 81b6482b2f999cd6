"""Response bodies, as pydantic models: what /openapi.json promises each endpoint answers (what clients
send, WebSocket frames included, is rag/web/schemas.py's: the validators themselves).

Most handlers build their JSON by hand and these models describe it (the OpenAPI generator turns them
into schemas, and the schemathesis fuzz in tests/test_fuzz_http.py checks every response against them).
The chat's frames (rag.chat.events) and a tool call (connectors.tools ToolOutcome) are the models the
code sends, handed on here from where they are made.
Models keep pydantic's default of ignoring extra keys, so a key added to a body does not break clients
that follow the description: only a missing or mistyped key does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

from connectors.tools import ToolOutcome as ToolOutcome
from connectors.tools import ToolResult as ToolResult
from rag.chat.events import ChatAnswer as ChatAnswer
from rag.chat.events import ChatSource, ChatToolCall, Event
from rag.chat.events import WsCancelled as WsCancelled
from rag.chat.events import WsChunk as WsChunk
from rag.chat.events import WsProgress as WsProgress
from rag.errors import WayfarerError
from rag.web.middleware import _HTTP_CODES

# WebSocket error frames reuse the error body with these codes, which no HTTP response gives.
WS_ERROR_CODES = ("invalid_frame", "invalid_json", "unknown_frame_type", "validation_error")


def subtree(cls: type[WayfarerError]) -> list[type[WayfarerError]]:
    """``cls`` and every class below it in the exception tree."""
    out = [cls]
    for sub in cls.__subclasses__():
        out.extend(subtree(sub))
    return out


def error_classes() -> list[type[WayfarerError]]:
    """Every class of the exception tree, the root first."""
    return subtree(WayfarerError)


def error_codes() -> list[str]:
    """Every stable ``error.code``: the exception tree's and the HTTP-level ones of the middleware."""
    codes = {cls.code for cls in error_classes()}
    codes.update(_HTTP_CODES.values())
    codes.update(("http_error", "internal_error", *WS_ERROR_CODES))
    return sorted(codes)


_CODES: list[JsonValue] = [*error_codes()]


class ErrorDetail(BaseModel):
    code: str = Field(
        description="Stable machine-readable code (rag/errors.py)", json_schema_extra={"enum": _CODES}
    )
    message: str = Field(description="What went wrong, for a person")
    retry_after: int | None = Field(
        None,
        description="Seconds to wait before trying again (overloaded; over HTTP also the Retry-After header)",
        exclude_if=lambda value: value is None,
    )


class ErrorBody(BaseModel):
    """Every 4xx and 5xx body, and the body of WebSocket error frames (with ``"type": "error"``)."""

    error: ErrorDetail


class Status(BaseModel):
    status: str


class ReadyChecks(BaseModel):
    model: bool
    index: bool
    kv: bool


class Readiness(BaseModel):
    status: str = Field(json_schema_extra={"enum": ["ready", "not_ready"]})
    checks: ReadyChecks


class SearchHit(BaseModel):
    id: str
    text: str
    score: float
    metadata: dict[str, Any]


class SearchResponse(BaseModel):
    results: list[SearchHit]


class ProviderOption(BaseModel):
    name: str
    current: bool = Field(description="Whether this provider serves the tool now")
    configured: bool = Field(description="Whether its key (if it needs one) is set")
    keys: list[str] = Field(description="The environment variables holding its key (none: keyless)")
    settings: list[str] = Field(description="Its other settings (base URLs)")
    signup: str | None = Field(description="Where a developer gets a key")
    about: str


class ToolDescription(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any] = Field(description="The tool's parameters as a JSON schema")
    provider: str = Field(description="The provider serving the tool now")
    sandbox: bool = Field(description="Whether it answers from the offline sandbox (synthetic data)")
    why: str = Field(description="Why this provider: named in settings, first configured, or none configured")
    providers: list[ProviderOption] = Field(description="Every provider that could serve the tool")


class ToolList(BaseModel):
    tools: list[ToolDescription]


class RecallHit(BaseModel):
    id: str
    kind: str | None
    text: str
    fetched_at: str | None
    sandbox: bool
    result: Any


class RecallResponse(BaseModel):
    recall: bool = Field(description="Whether the message asks about earlier results at all")
    results: list[RecallHit]


class RoutedTool(BaseModel):
    name: str
    params: dict[str, Any]
    confidence: float
    via: str = Field(
        description="command, keyword, semantic or llm; with a user_id also conversation (completed from "
        "the trip) or followup (the conversation's last calls, changed as the message says)"
    )
    assumed: list[str] = Field(
        default_factory=list, description="With a user_id: the parameters taken from the conversation"
    )


class RoutedAction(BaseModel):
    """What the chat would do with the message: one action, chosen by the dialogue's policy."""

    kind: str = Field(
        json_schema_extra={
            "enum": ["search", "ask", "guide", "plan", "compare", "recall", "no_guide", "general", "reply"]
        }
    )
    why: str = Field(description="The rule that chose it")
    city: str | None = Field(None, description="guide, plan, no_guide: the place answered about")
    topics: list[str] | None = Field(None, description="guide: the topics asked about")
    days: int | None = Field(None, description="plan: its days")
    places: list[str] | None = Field(None, description="compare: the places compared")
    tool: str | None = Field(None, description="recall: the tool whose results are read back")
    pick: str | int | None = Field(None, description="recall: cheapest, dearest, or the n-th shown")
    reply: str | None = Field(None, description="reply: thanks, bye, hello, no or nothing_pending")


class Understood(BaseModel):
    """What the router read in the message on its own, before the conversation was weighed."""

    tools: list[str] = Field(description="The tools the message asks for by its words and meaning")
    keywords: list[str] = Field(description="The tools whose keywords it holds")


class RouteResponse(BaseModel):
    use_rag: bool
    tools: list[RoutedTool]
    action: RoutedAction
    understood: Understood
    later: list[str] | None = Field(
        None, description="Tools asked for whose days are beyond their reach (a forecast months ahead)"
    )
    missing: dict[str, list[str]] = Field(description="Tool name -> the required parameters not given")
    clarify: str | None = Field(None, description="A question that asks for what is missing")
    followup: bool | None = Field(
        None, description="With a user_id: whether the message changes the conversation's last calls"
    )
    assumed: str | None = Field(
        None, description="With a user_id: the note saying what was taken from the conversation"
    )


class IngestCounts(BaseModel):
    added: int
    updated: int
    skipped: int
    deleted: int
    chunks: int


class DocumentJob(BaseModel):
    """A document upload job (202 from POST /v1/documents, and its polls)."""

    id: str
    status: str = Field(json_schema_extra={"enum": ["running", "done", "failed", "interrupted"]})
    documents: int
    done: int = Field(description="Documents written so far")
    chars: int
    started_at: float = Field(description="Unix time")
    finished_at: float | None = None
    counts: IngestCounts | None = Field(None, description="When done")
    error: ErrorDetail | None = Field(None, description="When failed")


class Deleted(BaseModel):
    deleted: int = Field(ge=0, le=1)


class JobStatus(BaseModel):
    name: str
    enabled: bool
    every_minutes: float | None
    next_run: str | None
    running_here: bool
    last: dict[str, Any] | None


class JobList(BaseModel):
    jobs: list[JobStatus]


class JobRun(BaseModel):
    job: str
    outcome: str
    counts: dict[str, Any]
    seconds: float


class ReindexResponse(BaseModel):
    runs: list[JobRun]


class WsError(Event):
    """An error frame: the error body, typed; the connection stays open."""

    type: Literal["error"]
    id: str | None = Field(None, exclude_if=lambda value: value is None)
    error: ErrorDetail


class Turn(BaseModel):
    role: str
    text: str
    at: str
    seq: int = Field(
        ge=0,
        description=(
            "The turn's place in the conversation (0, 1, 2, ...; gaps where old turns were dropped): "
            "it never changes, and is the cursor `before` takes. A question and its answer share `id`."
        ),
    )
    id: str | None = None
    sources: list[ChatSource] | None = Field(None, description="An answer's cited items")
    tool_calls: list[ChatToolCall] | None = None
    cancelled: bool = Field(False, description="An answer stopped by the traveller")


class SessionView(BaseModel):
    user_id: str
    conversation_id: str = Field(description="Which of the user's conversations; 'main' when none was named")
    trip: dict[str, Any] = Field(description="What the conversation has settled about the trip so far")
    history: list[Turn] = Field(
        description="A page of turns, oldest first: the latest ones, or those before the turn `before` names"
    )
    more: bool = Field(description="Earlier turns exist: ask for them with this page's `before`")
    before: int | None = Field(
        description="With `more`: the value of `?before=` that gets the page before this one (its first "
        "turn's seq); else null"
    )


class ConversationItem(BaseModel):
    id: str = Field(description="The conversation_id that reopens it")
    title: str = Field(description="Its first message, on one line and cut to 80 characters")
    started: str = Field(description="When its first message came (UTC, ISO 8601)")
    updated: str = Field(description="When its last turn was written (UTC, ISO 8601)")


class ConversationList(BaseModel):
    user_id: str
    conversations: list[ConversationItem] = Field(description="The one written last first")


class Forgotten(BaseModel):
    forgotten: bool
