"""Request bodies, validated strictly: wrong types are errors, not coerced."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

import pydantic
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from rag.errors import InvalidJSONError, PayloadTooLargeError, ValidationError

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
DocId = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=256, pattern=r"^[^\x00-\x1f]+$")
]


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
    user_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None


class ChatRequest(_Strict):
    user_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class RecallRequest(_Strict):
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    user_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    limit: int = Field(5, ge=1, le=50)


class RouteRequest(_Strict):
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    user_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None


class ReindexRequest(_Strict):
    # A job name (seed-sync, purge-expired, refresh-popular, rebuild); none: every enabled scheduled job.
    job: Annotated[str, StringConstraints(min_length=1, max_length=100)] | None = None


class DocumentIn(_Strict):
    id: DocId
    text: Annotated[str, StringConstraints(min_length=1)]
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentsRequest(_Strict):
    documents: list[DocumentIn] = Field(min_length=1, max_length=1000)


M = TypeVar("M", bound=BaseModel)


async def read_body(request: web.Request, model: type[M]) -> M:
    """Parse and validate a JSON body, or raise a 4xx error that says what is wrong."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge as exc:
        raise PayloadTooLargeError(
            f"request body is larger than the limit of {request.app._client_max_size} bytes"
        ) from exc
    if not raw.strip():
        raise InvalidJSONError("request body is empty; send a JSON object")
    try:
        return model.model_validate_json(raw)
    except pydantic.ValidationError as exc:
        errors = exc.errors(include_url=False)
        if errors and errors[0]["type"] in ("json_invalid", "json_type"):
            raise InvalidJSONError(f"request body is not valid JSON: {errors[0]['msg']}") from exc
        raise ValidationError(_describe(errors)) from exc


async def read_json_object(request: web.Request) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a 4xx error."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge as exc:
        raise PayloadTooLargeError("request body is too large") from exc
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidJSONError(f"request body is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object of parameters")
    return value


def _describe(errors: list[Any]) -> str:
    parts = []
    for err in errors[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "body"
        parts.append(f"{where}: {err['msg']}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more
