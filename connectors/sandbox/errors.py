"""The two providers' error bodies, raised as exceptions by handlers and rendered by the middleware.

Amadeus: {"errors": [{"status", "code", "title", "detail", "source": {"parameter"}}]} (source only when a
parameter is at fault, as the real API does); token endpoint: {"error", "error_description", "code", "title"}.
Open-Meteo: {"error": true, "reason": "..."}.
"""

from __future__ import annotations

from typing import Any

AMADEUS_JSON = "application/vnd.amadeus+json"

# Real Amadeus codes and titles.
INVALID_FORMAT = (477, "INVALID FORMAT")
MANDATORY_DATA_MISSING = (32171, "MANDATORY DATA MISSING")
INVALID_DATE = (425, "INVALID DATE")
INVALID_OPTION = (572, "INVALID OPTION")
INVALID_DATA = (4926, "INVALID DATA RECEIVED")
NOTHING_FOUND_FOR_CITY = (895, "NOTHING FOUND FOR REQUESTED CITY")
INVALID_PROPERTY_CODE = (1257, "INVALID PROPERTY CODE")


def amadeus_error(
    status: int, code: int, title: str, detail: str | None = None, parameter: str | None = None
) -> dict[str, Any]:
    err: dict[str, Any] = {"status": status, "code": code, "title": title}
    if detail is not None:
        err["detail"] = detail
    if parameter is not None:
        err["source"] = {"parameter": parameter}
    return err


class AmadeusError(Exception):
    """An Amadeus error response: an HTTP status and one or more error objects."""

    def __init__(self, status: int, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors[0].get("detail") or errors[0].get("title"))
        self.status = status
        self.errors = errors

    @classmethod
    def bad(cls, kind: tuple[int, str], detail: str, parameter: str | None = None) -> AmadeusError:
        code, title = kind
        return cls(400, [amadeus_error(400, code, title, detail, parameter)])

    def body(self) -> dict[str, Any]:
        return {"errors": self.errors}


INVALID_ACCESS_TOKEN = AmadeusError(
    401, [{"code": 38190, "title": "Invalid access token", "detail": "The access token provided in the Authorization header is invalid", "status": 401}]
)  # fmt: skip
INVALID_HTTP_HEADER = AmadeusError(
    401, [{"code": 38191, "title": "Invalid HTTP header", "detail": "Missing or invalid format for mandatory Authorization header", "status": 401}]
)  # fmt: skip
ACCESS_TOKEN_EXPIRED = AmadeusError(
    401,
    [
        {
            "code": 38192,
            "title": "Access token expired",
            "detail": "The access token is expired",
            "status": 401,
        }
    ],
)
TOO_MANY_REQUESTS = AmadeusError(
    429, [{"code": 38194, "title": "Too many requests", "detail": "The network rate limit is exceeded, please try again later", "status": 429}]
)  # fmt: skip
QUOTA_EXCEEDED = AmadeusError(
    429,
    [
        {
            "code": 38195,
            "title": "Quota limit exceeded",
            "detail": "The quota limit is exceeded.",
            "status": 429,
        }
    ],
)
INTERNAL_ERROR = AmadeusError(
    500, [{"code": 38189, "title": "Internal error", "detail": "An internal error occured, please contact your administrator", "status": 500}]
)  # fmt: skip
RESOURCE_NOT_FOUND = AmadeusError(
    404,
    [
        {
            "code": 38196,
            "title": "Resource not found",
            "detail": "The targeted resource doesn't exist",
            "status": 404,
        }
    ],
)


class TokenError(Exception):
    """An error of the OAuth2 token endpoint, which has its own flat body."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description

    def body(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "error_description": self.description,
            "code": 38187,
            "title": "Invalid parameters",
        }


class OpenMeteoError(Exception):
    """An Open-Meteo error: HTTP 400 (or 429/500) with {"error": true, "reason": ...}."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status

    def body(self) -> dict[str, Any]:
        return {"error": True, "reason": self.reason}
