"""GET /openapi.json: an OpenAPI 3.1 description of every endpoint, built from the models handlers use.

Request bodies, WebSocket client frames and user ids come from the validators themselves
(rag/web/schemas.py, and the tools' parameter models), at the service's limits: a message's
maxLength is its WAYFARER_LIMITS__MAX_MESSAGE_CHARS, and an integer without bounds of its own gets
those of the JSON reader (WAYFARER_LIMITS__MAX_INT_DIGITS), so the description and the checks cannot
drift. Response bodies come from rag/web/responses.py, and each endpoint's error responses from the
classes of rag/errors.py it can raise (a class stands for its whole subtree), so a new error class
shows up here by itself. The document depends only on code and limits, so it is built once. What
each endpoint takes, answers and raises is the table in rag/web/endpoints.py.
"""

from __future__ import annotations

import functools
import json
from importlib import metadata
from typing import Any

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from rag import errors
from rag.settings import LimitsSettings
from rag.tools.catalog import ToolCatalogue
from rag.web import keys
from rag.web import responses as r
from rag.web import schemas as s
from rag.web.endpoints import JSON, Auth, Endpoint, endpoints
from rag.web.middleware import _HTTP_CODES

REF = "#/components/schemas/{model}"

_BUILTIN = ToolCatalogue.builtin()  # what a document without a catalogue of its own describes
routes = web.RouteTableDef()


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
            **({"headers": _RETRY_AFTER} if "rate_limited" in codes else {}),
        }
        for status, codes in sorted(by_status.items())
    }


# What a rate_limited answer says besides its body (a provider_rate_limited one may not say it).
_RETRY_AFTER = {
    "Retry-After": {
        "description": "rate_limited: whole seconds until the call would be taken",
        "schema": {"type": "string"},
    }
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
