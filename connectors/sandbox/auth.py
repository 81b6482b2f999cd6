"""OAuth2 client credentials, Amadeus style: issue opaque bearer tokens and check them on every API call."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from connectors.sandbox.errors import (
    ACCESS_TOKEN_EXPIRED,
    INVALID_ACCESS_TOKEN,
    INVALID_HTTP_HEADER,
    TokenError,
)
from connectors.sandbox.rng import token


@dataclass
class TokenStore:
    """Issued tokens and when they expire (monotonic clock). Tokens are unique per issue, derived by hash."""

    expiries: dict[str, float] = field(default_factory=dict)
    issued: int = 0

    def issue(self, client_id: str, ttl_seconds: int) -> str:
        self.issued += 1
        value = token(client_id, self.issued)
        self.expiries[value] = time.monotonic() + ttl_seconds
        return value

    def check(self, authorization: str | None) -> None:
        """Raise the Amadeus 401 for a missing/malformed header, an unknown token, or an expired one."""
        if not authorization:
            raise INVALID_HTTP_HEADER
        scheme, _, value = authorization.strip().partition(" ")
        if scheme != "Bearer" or not value.strip():
            raise INVALID_HTTP_HEADER
        expires = self.expiries.get(value.strip())
        if expires is None:
            raise INVALID_ACCESS_TOKEN
        if time.monotonic() >= expires:
            raise ACCESS_TOKEN_EXPIRED


def validate_grant(form: dict[str, str]) -> tuple[str, str]:
    """client_id and client_secret of a valid client_credentials request, or the token endpoint's error."""
    if form.get("grant_type") != "client_credentials":
        raise TokenError(
            400,
            "unsupported_grant_type",
            "Only client_credentials value is allowed for the body parameter grant_type",
        )
    client_id, secret = form.get("client_id", "").strip(), form.get("client_secret", "").strip()
    if not client_id or not secret:
        raise TokenError(401, "invalid_client", "Client credentials are invalid")
    return client_id, secret
