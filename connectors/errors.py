"""The errors connectors raise, beside the code that raises them (as httpx keeps its own).

Each class carries its stable ``code`` and the HTTP ``status`` it stands for as data; the service that
uses connectors maps them to its answers once, at its edge, and re-exports them in its own tree.

    CodedError                         500 internal_error     (the root: a code and a status)
    ├── ConfigError                    500 config_error       (bad settings, found at start)
    └── ToolError                      502 tool_error
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

from typing import ClassVar

from connectors.text import ERROR_CHARS, clean_text


class CodedError(Exception):
    """An error raised on purpose, with a stable ``code`` and an HTTP ``status``: the root of this tree
    and of the tree of the service that uses connectors."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


class ConfigError(CodedError):
    code = "config_error"


class ToolError(CodedError):
    status = 502
    code = "tool_error"


class ToolNotFoundError(ToolError):
    status = 404
    code = "unknown_tool"


class ToolValidationError(ToolError):
    status = 422
    code = "invalid_tool_params"


class UnknownLocationError(ToolValidationError):
    code = "unknown_location"


class ProviderError(ToolError):
    """A provider failed. ``message`` is ours, what the traveller and API clients see (the tool's error,
    the chat answer, the stored history); the provider's own words (its error text and code, a body we
    could not read) go in ``detail``, which is logged where the call fails and shown to no one. Both are
    cleaned and capped however the error was raised (a connector declared outside the package included),
    with the one sanitiser for provider text."""

    code = "provider_error"

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(clean_text(message, ERROR_CHARS))
        self.detail = clean_text(detail, ERROR_CHARS)


class ProviderUnavailableError(ProviderError):
    status = 503
    code = "provider_unavailable"


class ProviderRateLimitedError(ProviderError):
    status = 429
    code = "provider_rate_limited"


class ProviderAuthError(ProviderError):
    code = "provider_auth_failed"


class ProviderRejectedError(ProviderError):
    status = 422
    code = "provider_rejected"


class ProviderResponseError(ProviderError):
    code = "provider_bad_response"


class ProviderTimeoutError(ProviderError):
    status = 504
    code = "provider_timeout"
