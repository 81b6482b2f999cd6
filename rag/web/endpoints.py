"""Every endpoint the app serves, as a table (``endpoints``): its method and path, what it takes (a
body model, parameters, WebSocket frames), what it answers, who may call it and which errors of
rag/errors.py it can raise. GET /openapi.json (rag/web/openapi.py) is built from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from rag import errors
from rag.chat.sessions import HISTORY_LIMIT, PAGE_TURNS
from rag.tools.catalog import ToolCatalogue
from rag.web import responses as r
from rag.web import schemas as s
from rag.web.params import MAX_CURSOR

Auth = Literal["none", "user", "admin"]
JSON = "application/json"

# What every endpoint that reads a JSON body can answer: bad JSON, too large, invalid.
_BODY = (errors.RequestError,)
_USER = (errors.UnauthorizedError,)
_BACKEND = (errors.BackendError,)
# What the sessions routes can answer besides: a bad user or conversation id, a path that names none.
_SESSION = (*_USER, errors.ValidationError, errors.NotFoundError, *_BACKEND)


@dataclass(frozen=True)
class Answer:
    status: int
    body: type[BaseModel]
    description: str
    headers: tuple[str, ...] = ()  # headers it always has


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    summary: str
    tag: str
    auth: Auth = "none"
    body: type[BaseModel] | dict[str, Any] | None = None
    body_required: bool = True
    ok: type[BaseModel] | dict[str, Any] | None = None
    ok_media: str = JSON
    raises: tuple[type[errors.WayfarerError], ...] = ()
    params: tuple[dict[str, Any], ...] = ()
    more: tuple[Answer, ...] = ()  # other success answers
    # A WebSocket: the frames a client sends and those the server answers with (x-websocket).
    client_frames: tuple[type[BaseModel], ...] = ()
    server_frames: tuple[type[BaseModel], ...] = ()


def _param(
    where: str, name: str, description: str, schema: dict[str, Any], required: bool = False
) -> dict[str, Any]:
    required = required or where == "path"
    return {"name": name, "in": where, "required": required, "description": description, "schema": schema}


def _path_param(name: str, description: str) -> dict[str, Any]:
    return _param("path", name, description, {"type": "string", "minLength": 1})


USER_ID_SCHEMA: dict[str, Any] = s.USER_ID.json_schema()
USER_ID_QUERY = _param(
    "query",
    "user_id",
    "Whose call this is (with a chat secret set, the token's user); empty: nobody's",
    {"anyOf": [USER_ID_SCHEMA, {"const": ""}]},
)


CONVERSATION_QUERY = _param(
    "query",
    "conversation_id",
    "Which of the user's conversations (GET /v1/sessions/{user_id}/conversations lists them); 'main' "
    "when left out",
    s.CONVERSATION_ID.json_schema(),
)
SESSION_PAGE_QUERY = (
    _param(
        "query",
        "before",
        "A turn's seq: the page of turns before it (a page's own `before` gets the one before that); "
        "none: the latest turns",
        {"type": "integer", "minimum": 0, "maximum": MAX_CURSOR},
    ),
    _param(
        "query",
        "limit",
        f"How many turns a page holds at most (the history keeps {HISTORY_LIMIT})",
        {"type": "integer", "minimum": 1, "maximum": HISTORY_LIMIT, "default": PAGE_TURNS},
    ),
)


def _needs_body(params: type[BaseModel]) -> bool:
    """Whether a tool's parameters need a body: some are required, or its schema asks for one of
    several (activity_search: a city, or latitude and longitude)."""
    required = any(f.is_required() for f in params.model_fields.values())
    return required or "anyOf" in params.model_json_schema()


def _tool_endpoints(tools: ToolCatalogue) -> list[Endpoint]:
    raises = (*_USER, *_BODY, errors.RateLimitedError, errors.ToolError, *_BACKEND)
    out = [
        Endpoint(
            "post",
            f"/v1/tools/{name}",
            spec.description,
            "tools",
            "user",
            body=spec.params,
            # An empty body is an empty object: enough for a tool whose parameters all have defaults.
            body_required=_needs_body(spec.params),
            ok=r.ToolOutcome,
            raises=raises,
            params=(USER_ID_QUERY,),
        )
        for name, spec in tools.items()
    ]
    out.append(
        Endpoint(
            "post",
            "/v1/tools/{name}",
            "Call any tool by name (the paths above describe each tool's parameters)",
            "tools",
            "user",
            body={"type": "object", "description": "The tool's parameters (see GET /v1/tools)"},
            body_required=False,
            ok=r.ToolOutcome,
            raises=(*raises, errors.NotFoundError),
            params=(
                _param(
                    "path", "name", "A tool name from GET /v1/tools", {"type": "string", "enum": [*tools]}
                ),
                USER_ID_QUERY,
            ),
        )
    )
    return out


def endpoints(tools: ToolCatalogue | None = None) -> list[Endpoint]:
    """Every HTTP endpoint the app serves, with what it takes and what it can answer."""
    session_id = _param("path", "user_id", "The conversation's user id", USER_ID_SCHEMA)
    return [
        Endpoint("get", "/", "The chat page", "page", ok_media="text/html"),
        Endpoint(
            "get",
            "/static/{name}",
            "The chat page's script, style and vendored libraries (markdown-it, DOMPurify)",
            "page",
            ok_media="text/javascript",
            raises=(errors.NotFoundError,),
            params=(_path_param("name", "A file of the page, e.g. chat.js or vendor/purify.min.js"),),
        ),
        Endpoint("get", "/openapi.json", "This description", "meta", ok={"type": "object"}),
        Endpoint("get", "/metrics", "Prometheus metrics", "meta", ok_media="text/plain"),
        Endpoint("get", "/healthz", "Liveness", "meta", ok=r.Status),
        Endpoint(
            "get", "/readyz", "Readiness of the model, the index and the KV store", "meta", ok=r.Readiness
        ),
        Endpoint(
            "post",
            "/v1/search",
            "Search the documents",
            "search",
            "user",
            body=s.SearchRequest,
            ok=r.SearchResponse,
            raises=(*_USER, *_BODY, *_BACKEND),
        ),
        Endpoint("get", "/v1/tools", "The tool catalogue", "tools", ok=r.ToolList),
        *_tool_endpoints(tools if tools is not None else ToolCatalogue.builtin()),
        Endpoint(
            "post",
            "/v1/recall",
            "A user's earlier tool results that a message asks about",
            "search",
            "user",
            body=s.RecallRequest,
            ok=r.RecallResponse,
            raises=(*_USER, *_BODY, *_BACKEND),
        ),
        Endpoint(
            "post",
            "/v1/route",
            "Which tools a message asks for, and what is missing (with a user_id, in its conversation)",
            "chat",
            "user",
            body=s.RouteRequest,
            ok=r.RouteResponse,
            raises=(*_USER, *_BODY, errors.RateLimitedError, errors.OverloadedError, *_BACKEND),
        ),
        Endpoint(
            "post",
            "/v1/chat",
            "One chat message, answered whole",
            "chat",
            "user",
            body=s.ChatRequest,
            ok=r.ChatAnswer,
            raises=(
                *_USER,
                *_BODY,
                errors.RateLimitedError,
                errors.OverloadedError,
                errors.ProviderTimeoutError,
                *_BACKEND,
            ),
        ),
        Endpoint(
            "get",
            "/v1/sessions/{user_id}",
            "A conversation's trip and a page of its turns: the latest, or those before a turn",
            "chat",
            "user",
            ok=r.SessionView,
            raises=_SESSION,
            params=(session_id, CONVERSATION_QUERY, *SESSION_PAGE_QUERY),
        ),
        Endpoint(
            "delete",
            "/v1/sessions/{user_id}",
            "Forget a conversation: its turns, its trip and its place in the list",
            "chat",
            "user",
            ok=r.Forgotten,
            raises=_SESSION,
            params=(session_id, CONVERSATION_QUERY),
        ),
        Endpoint(
            "get",
            "/v1/sessions/{user_id}/conversations",
            "A user's conversations, the one written last first, titled by their first message",
            "chat",
            "user",
            ok=r.ConversationList,
            raises=_SESSION,
            params=(session_id,),
        ),
        Endpoint(
            "delete",
            "/v1/sessions/{user_id}/trip",
            "Start a conversation's trip over (places, dates, travellers, searches); its turns stay",
            "chat",
            "user",
            ok=r.Forgotten,
            raises=_SESSION,
            params=(session_id, CONVERSATION_QUERY),
        ),
        Endpoint(
            "get",
            "/v1/ws",
            "The chat over a WebSocket (an upgrade, not a JSON endpoint)",
            "chat",
            "user",
            raises=(errors.UnauthorizedError, errors.ValidationError, errors.WebSocketRequiredError),
            params=(
                _param("query", "user_id", "Whose conversation this is", USER_ID_SCHEMA, required=True),
                CONVERSATION_QUERY,
                _param("query", "token", "The user token (browsers cannot set headers)", {"type": "string"}),
            ),
            client_frames=(s.MessageFrame, s.CancelFrame, s.ResumeFrame),
            server_frames=(r.WsProgress, r.WsChunk, r.ChatAnswer, r.WsCancelled, r.WsError),
        ),
        Endpoint(
            "post",
            "/v1/documents",
            "Add or update documents",
            "admin",
            "admin",
            body=s.DocumentsRequest,
            ok=r.IngestCounts,
            raises=(*_USER, *_BODY, errors.IngestError, *_BACKEND),
            params=(
                _param(
                    "query",
                    "wait",
                    "false: always answer 202 with a job to poll (large uploads always do)",
                    {"type": "string", "enum": ["true", "false"]},
                ),
            ),
            more=(Answer(202, r.DocumentJob, "Accepted: a job to poll at its Location", ("Location",)),),
        ),
        Endpoint(
            "get",
            "/v1/uploads/{job_id}",
            "A document upload job's status",
            "admin",
            "admin",
            ok=r.DocumentJob,
            raises=(*_USER, errors.NotFoundError, *_BACKEND),
            params=(_path_param("job_id", "The id POST /v1/documents answered"),),
        ),
        Endpoint(
            "delete",
            "/v1/documents/{document_id}",
            "Delete a document (the id may contain '/')",
            "admin",
            "admin",
            ok=r.Deleted,
            raises=(*_USER, errors.NotFoundError, *_BACKEND),
            params=(_path_param("document_id", "The document id"),),
        ),
        Endpoint(
            "get",
            "/v1/admin/jobs",
            "The re-indexing jobs and their last runs",
            "admin",
            "admin",
            ok=r.JobList,
            raises=(*_USER, *_BACKEND),
        ),
        Endpoint(
            "post",
            "/v1/admin/reindex",
            "Run one job now, or every scheduled job; waits for it",
            "admin",
            "admin",
            body=s.ReindexRequest,
            ok=r.ReindexResponse,
            raises=(
                *_USER,
                *_BODY,
                errors.NotFoundError,
                errors.JobRunningError,
                errors.IngestError,
                *_BACKEND,
            ),
        ),
    ]
