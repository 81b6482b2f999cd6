"""GET /openapi.json: an OpenAPI 3.1 description of every endpoint, built from the models handlers use.

Request bodies, WebSocket client frames and user ids come from the validators themselves
(rag/web/schemas.py, and the tools' parameter models), at the service's limits: a message's
maxLength is its WAYFARER_LIMITS__MAX_MESSAGE_CHARS, and an integer without bounds of its own gets
those of the JSON reader (WAYFARER_LIMITS__MAX_INT_DIGITS), so the description and the checks cannot
drift. Response bodies come from rag/web/responses.py, and each endpoint's error responses from the
classes of rag/errors.py it can raise (a class stands for its whole subtree), so a new error class
shows up here by itself. The document depends only on code and limits, so it is built once.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Literal

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from rag import errors
from rag.chat.sessions import HISTORY_LIMIT, PAGE_TURNS
from rag.settings import LimitsSettings
from rag.tools.catalog import ToolCatalogue
from rag.web import keys
from rag.web import responses as r
from rag.web import schemas as s
from rag.web.middleware import _HTTP_CODES

REF = "#/components/schemas/{model}"
Auth = Literal["none", "user", "admin"]
JSON = "application/json"

_BUILTIN = ToolCatalogue.builtin()  # what a document without a catalogue of its own describes
routes = web.RouteTableDef()

# What every endpoint that reads a JSON body can answer: bad JSON, too large, invalid.
_BODY = (errors.RequestError,)
_USER = (errors.UnauthorizedError,)
_BACKEND = (errors.BackendError,)


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


SESSION_PAGE_QUERY = (
    _param(
        "query",
        "before",
        "A turn's seq: the page of turns before it (a page's own `before` gets the one before that); "
        "none: the latest turns",
        {"type": "integer", "minimum": 0, "maximum": s.MAX_CURSOR},
    ),
    _param(
        "query",
        "limit",
        f"How many turns a page holds at most (the history keeps {HISTORY_LIMIT})",
        {"type": "integer", "minimum": 1, "maximum": HISTORY_LIMIT, "default": PAGE_TURNS},
    ),
)


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
            body_required=False,  # an empty body is an empty object
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
            raises=(*_USER, *_BODY, errors.RateLimitedError, *_BACKEND),
        ),
        Endpoint(
            "post",
            "/v1/chat",
            "One chat message, answered whole",
            "chat",
            "user",
            body=s.ChatRequest,
            ok=r.ChatAnswer,
            raises=(*_USER, *_BODY, errors.RateLimitedError, errors.ProviderTimeoutError, *_BACKEND),
        ),
        Endpoint(
            "get",
            "/v1/sessions/{user_id}",
            "A conversation's trip and a page of its turns: the latest, or those before a turn",
            "chat",
            "user",
            ok=r.SessionView,
            raises=(*_USER, errors.ValidationError, errors.NotFoundError, *_BACKEND),
            params=(session_id, *SESSION_PAGE_QUERY),
        ),
        Endpoint(
            "delete",
            "/v1/sessions/{user_id}",
            "Forget a conversation",
            "chat",
            "user",
            ok=r.Forgotten,
            raises=(*_USER, errors.ValidationError, errors.NotFoundError, *_BACKEND),
            params=(session_id,),
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
                _param("query", "token", "The user token (browsers cannot set headers)", {"type": "string"}),
            ),
            client_frames=(s.MessageFrame, s.CancelFrame, s.ResumeFrame),
            server_frames=(r.WsChunk, r.ChatAnswer, r.WsCancelled, r.WsError),
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


def request_schema(model: type[BaseModel], limits: LimitsSettings | None = None) -> dict[str, Any]:
    """The JSON schema of what a client sends as ``model``, at ``limits`` (the defaults if None): the
    model as the service validates it (rag.web.schemas.sized), its integers bounded by the JSON reader."""
    limits = limits or LimitsSettings()
    sized = s.sized(model, limits.max_message_chars)
    return sized.model_json_schema(ref_template=REF, schema_generator=_reader_bounds(limits.max_int_digits))


@functools.lru_cache(maxsize=8)
def _reader_bounds(max_int_digits: int) -> type[GenerateJsonSchema]:
    top = 10**max_int_digits - 1

    class RequestSchema(GenerateJsonSchema):
        """Every client body goes through rag.web.jsonio, which refuses an integer of more digits
        than WAYFARER_LIMITS__MAX_INT_DIGITS: an integer without bounds of its own has those."""

        def int_schema(self, schema: core_schema.IntSchema) -> JsonSchemaValue:
            out = super().int_schema(schema)
            if "maximum" not in out and "exclusiveMaximum" not in out:
                out["maximum"] = top
            if "minimum" not in out and "exclusiveMinimum" not in out:
                out["minimum"] = -top
            return out

    return RequestSchema


class _Components:
    """Model schemas collected under components/schemas, their $defs lifted beside them; what clients
    send at the service's ``limits``."""

    def __init__(self, limits: LimitsSettings) -> None:
        self.schemas: dict[str, Any] = {}
        self.limits = limits

    def add(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        defs = schema.pop("$defs", {})
        for def_name, definition in {**defs, name: schema}.items():
            known = self.schemas.setdefault(def_name, definition)
            if known != definition:
                raise ValueError(f"two different schemas named {def_name}")
        return {"$ref": REF.format(model=name)}

    def model(self, model: type[BaseModel]) -> dict[str, str]:
        return self.add(model.__name__, model.model_json_schema(ref_template=REF))

    def request(self, model: type[BaseModel]) -> dict[str, str]:
        return self.add(model.__name__, request_schema(model, self.limits))


def _error_responses(
    raises: tuple[type[errors.WayfarerError], ...], error_ref: dict[str, str]
) -> dict[str, Any]:
    by_status: dict[int, set[str]] = {500: {"internal_error"}}
    for base in raises:
        for cls in r.subtree(base):
            by_status.setdefault(cls.status, set()).add(cls.code)
    for status, codes in by_status.items():
        if status in _HTTP_CODES:
            codes.add(_HTTP_CODES[status])
    return {
        str(status): {
            "description": "codes: " + ", ".join(sorted(codes)),
            "content": {JSON: {"schema": error_ref}},
        }
        for status, codes in sorted(by_status.items())
    }


def _security(auth: Auth) -> list[dict[str, list[str]]] | None:
    if auth == "admin":
        return [{"adminToken": []}]
    if auth == "user":  # a user token only when WAYFARER_CHAT_SECRET is set
        return [{}, {"userToken": []}, {"adminToken": []}]
    return None


def _operation(ep: Endpoint, comps: _Components, error_ref: dict[str, str]) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": (ep.method + ep.path).replace("/", "_").replace("{", "").replace("}", "").strip("_"),
        "summary": ep.summary,
        "tags": [ep.tag],
    }
    if ep.params:
        op["parameters"] = list(ep.params)
    if ep.body is not None:
        schema = comps.request(ep.body) if isinstance(ep.body, type) else ep.body
        op["requestBody"] = {"required": ep.body_required, "content": {JSON: {"schema": schema}}}
    if ep.client_frames:
        ok: dict[str, Any] = {"101": {"description": "Switching Protocols: frames as in x-websocket"}}
    else:
        if ep.ok is None:
            schema = {"type": "string"}
        else:
            schema = comps.model(ep.ok) if isinstance(ep.ok, type) else ep.ok
        ok = {"200": {"description": "OK", "content": {ep.ok_media: {"schema": schema}}}}
    for answer in ep.more:
        ok[str(answer.status)] = {
            "description": answer.description,
            "content": {JSON: {"schema": comps.model(answer.body)}},
            **(
                {"headers": {h: {"required": True, "schema": {"type": "string"}} for h in answer.headers}}
                if answer.headers
                else {}
            ),
        }
    op["responses"] = {**ok, **_error_responses(ep.raises, error_ref)}
    security = _security(ep.auth)
    if security is not None:
        op["security"] = security
    if ep.client_frames:
        op["x-websocket"] = {
            "client": {"oneOf": [comps.request(m) for m in ep.client_frames]},
            "server": {"oneOf": [comps.model(m) for m in ep.server_frames]},
        }
    return op


def openapi_document(
    tools: ToolCatalogue | None = None, limits: LimitsSettings | None = None
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for a tool catalogue (the built-in one by default) and the service's
    limits (the defaults by default), built once for each; shared, so don't change it."""
    limits = limits or LimitsSettings()
    return _document(
        tools if tools is not None else _BUILTIN, limits.max_message_chars, limits.max_int_digits
    )


@functools.lru_cache(maxsize=8)
def _document(tools: ToolCatalogue, max_message_chars: int, max_int_digits: int) -> dict[str, Any]:
    limits = LimitsSettings(max_message_chars=max_message_chars, max_int_digits=max_int_digits)
    comps = _Components(limits)
    error_ref = comps.model(r.ErrorBody)
    paths: dict[str, dict[str, Any]] = {}
    for ep in endpoints(tools):
        paths.setdefault(ep.path, {})[ep.method] = _operation(ep, comps, error_ref)
    try:
        version = metadata.version("wayfarer")
    except metadata.PackageNotFoundError:
        version = "0.0.0"
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Wayfarer",
            "version": version,
            "description": 'Errors are {"error": {"code", "message"}} with a stable code (rag/errors.py).',
        },
        "paths": paths,
        "components": {
            "schemas": dict(sorted(comps.schemas.items())),
            "securitySchemes": {
                "adminToken": {"type": "http", "scheme": "bearer", "description": "WAYFARER_ADMIN_TOKEN"},
                "userToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "hex HMAC-SHA256 of the user_id under WAYFARER_CHAT_SECRET",
                },
            },
        },
    }


@functools.lru_cache(maxsize=8)
def _document_bytes(tools: ToolCatalogue, max_message_chars: int, max_int_digits: int) -> bytes:
    return json.dumps(_document(tools, max_message_chars, max_int_digits), separators=(",", ":")).encode()


@routes.get("/openapi.json")
async def openapi_json(request: web.Request) -> web.Response:
    settings = request.app.get(keys.SETTINGS)
    limits = settings.limits if settings is not None else LimitsSettings()
    body = _document_bytes(request.app[keys.CATALOGUE], limits.max_message_chars, limits.max_int_digits)
    return web.Response(body=body, content_type=JSON)
