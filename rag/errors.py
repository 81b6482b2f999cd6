"""Wayfarer's one exception tree.

Adapters catch library exceptions at the boundary and re-raise one of these
(``raise IndexUnavailableError(...) from exc``); a single aiohttp middleware
turns them into ``{"error": {"code", "message"}}`` with the class's HTTP status.

The root, ``ConfigError`` and ``ToolError`` with all below it (marked *) are the connectors' own: they live
in connectors/errors.py, beside the code that raises them, with their codes and statuses as data, and are
re-exported here. ``WayfarerError`` is that root (connectors.errors.CodedError), so the one middleware maps
the whole tree and every ``except WayfarerError`` catches a tool's error too.

    WayfarerError *                    500 internal_error
    ├── ConfigError *                  500 config_error       (bad settings, found at start)
    │   ├── DataDirError               500 data_dir_unusable  (read-only, not a folder, corrupt)
    │   └── PortInUseError             500 port_in_use        (another process listens on the port)
    ├── RequestError                   400 bad_request
    │   ├── InvalidJSONError           400 invalid_json
    │   ├── ValidationError            422 validation_error
    │   ├── UnknownFilterValueError    422 unknown_filter_value
    │   ├── UnknownFrameError          400 unknown_frame_type (a WebSocket frame that is not a message)
    │   ├── WebSocketRequiredError     400 websocket_required (a plain HTTP request to /v1/ws)
    │   ├── PayloadTooLargeError       413 payload_too_large
    │   └── UnsupportedContentEncodingError  415 unsupported_content_encoding
    ├── UnauthorizedError              401 unauthorized
    ├── NotFoundError                  404 not_found
    │   └── UnknownAnswerError         404 unknown_answer     (a WebSocket resume or cancel of an answer never asked)
    ├── ConflictError                  409 conflict
    │   ├── BusyError                  409 busy               (a message while the previous one is answered)
    │   └── NothingToCancelError       409 nothing_to_cancel  (a cancel with no answer being written)
    ├── RateLimitedError               429 rate_limited       (with Retry-After)
    ├── OverloadedError                503 overloaded         (no slot for chat or route work soon enough; Retry-After)
    ├── JobRunningError                409 job_running
    ├── BackendError                   503 backend_unavailable
    │   ├── IndexUnavailableError      503 index_unavailable
    │   ├── IndexLockedError           503 index_locked
    │   ├── KVUnavailableError         503 kv_unavailable
    │   └── EmbeddingError             503 embedding_unavailable
    ├── IngestError                    422 ingest_failed
    │   └── ReservedDocumentIdError    422 reserved_document_id (an id of the service's seed corpus)
    └── ToolError *                    502 tool_error
        ├── ToolNotStartedError        504 tool_not_started   (the answer's deadline was spent before the call)
        ├── ToolNotFoundError          404 unknown_tool
        ├── ToolValidationError        422 invalid_tool_params
        │   └── UnknownLocationError   422 unknown_location
        └── ProviderError              502 provider_error
            ├── ProviderUnavailableError   503 provider_unavailable  (5xx or timeouts after retries)
            ├── ProviderRateLimitedError   429 provider_rate_limited (quota, or 429 after retries)
            ├── ProviderAuthError          502 provider_auth_failed
            ├── ProviderRejectedError      422 provider_rejected     (a 4xx, with the provider's detail)
            ├── ProviderResponseError      502 provider_bad_response (malformed, misshapen or oversized body)
            └── ProviderTimeoutError       504 provider_timeout      (past the tool call's or chat's deadline)
"""

from __future__ import annotations

from typing import Any

from connectors.errors import CodedError as WayfarerError
from connectors.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    ProviderRateLimitedError,
    ProviderRejectedError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    ToolError,
    ToolNotFoundError,
    ToolValidationError,
    UnknownLocationError,
)

__all__ = [
    "BackendError",
    "BusyError",
    "ConfigError",
    "ConflictError",
    "DataDirError",
    "EmbeddingError",
    "IndexLockedError",
    "IndexUnavailableError",
    "IngestError",
    "InvalidJSONError",
    "JobRunningError",
    "KVUnavailableError",
    "NotFoundError",
    "NothingToCancelError",
    "OverloadedError",
    "PayloadTooLargeError",
    "PortInUseError",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRateLimitedError",
    "ProviderRejectedError",
    "ProviderResponseError",
    "ProviderTimeoutError",
    "ProviderUnavailableError",
    "RateLimitedError",
    "RequestError",
    "ReservedDocumentIdError",
    "ToolError",
    "ToolNotFoundError",
    "ToolNotStartedError",
    "ToolValidationError",
    "UnauthorizedError",
    "UnknownAnswerError",
    "UnknownFilterValueError",
    "UnknownFrameError",
    "UnknownLocationError",
    "UnsupportedContentEncodingError",
    "ValidationError",
    "WayfarerError",
    "WebSocketRequiredError",
    "error_json",
]


class DataDirError(ConfigError):
    code = "data_dir_unusable"


class PortInUseError(ConfigError):
    code = "port_in_use"


class RequestError(WayfarerError):
    status = 400
    code = "bad_request"


class InvalidJSONError(RequestError):
    code = "invalid_json"


class ValidationError(RequestError):
    status = 422
    code = "validation_error"


class UnknownFilterValueError(RequestError):
    status = 422
    code = "unknown_filter_value"


class UnknownFrameError(RequestError):
    code = "unknown_frame_type"


class WebSocketRequiredError(RequestError):
    code = "websocket_required"


class PayloadTooLargeError(RequestError):
    status = 413
    code = "payload_too_large"


class UnsupportedContentEncodingError(RequestError):
    """A body in a Content-Encoding the service does not decode (or several, one over another)."""

    status = 415
    code = "unsupported_content_encoding"


class UnauthorizedError(WayfarerError):
    status = 401
    code = "unauthorized"


class NotFoundError(WayfarerError):
    status = 404
    code = "not_found"


class UnknownAnswerError(NotFoundError):
    code = "unknown_answer"


class ConflictError(WayfarerError):
    status = 409
    code = "conflict"


class BusyError(ConflictError):
    code = "busy"


class NothingToCancelError(ConflictError):
    code = "nothing_to_cancel"


class RateLimitedError(WayfarerError):
    """``retry_after``: whole seconds until the call would be taken (the answer's Retry-After)."""

    status = 429
    code = "rate_limited"

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OverloadedError(WayfarerError):
    """The service is saturated: a message or route request would wait longer than allowed for a slot
    (rag.chat.admission). Refused at once, with when to come back (the Retry-After header; a WebSocket's
    error frame says it as ``retry_after``), rather than answered after a long queue."""

    status = 503
    code = "overloaded"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # whole seconds


class ToolNotStartedError(ToolError):
    """A tool call the answer never made: its deadline was spent before the tools' turn came (a queue,
    a slow search). Not the provider's doing, so not a provider_timeout."""

    status = 504
    code = "tool_not_started"


class JobRunningError(WayfarerError):
    status = 409
    code = "job_running"


class BackendError(WayfarerError):
    status = 503
    code = "backend_unavailable"


class IndexUnavailableError(BackendError):
    code = "index_unavailable"


class IndexLockedError(BackendError):
    code = "index_locked"


class KVUnavailableError(BackendError):
    code = "kv_unavailable"


class EmbeddingError(BackendError):
    code = "embedding_unavailable"


class IngestError(WayfarerError):
    status = 422
    code = "ingest_failed"


class ReservedDocumentIdError(IngestError):
    code = "reserved_document_id"


def error_json(exc: WayfarerError, message: str | None = None) -> dict[str, dict[str, Any]]:
    """The error body of ``exc`` (its message, or ``message``), with ``retry_after`` (seconds) when it
    says when to come back: what an HTTP answer and a WebSocket error frame both carry."""
    body: dict[str, dict[str, Any]] = {"error": {"code": exc.code, "message": message or exc.message}}
    retry_after = getattr(exc, "retry_after", None)  # RateLimitedError, OverloadedError
    if retry_after is not None:
        body["error"]["retry_after"] = retry_after
    return body
