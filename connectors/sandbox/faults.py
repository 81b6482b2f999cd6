"""Fault injection settings for the sandbox, changeable while it runs (mutate the instance under app[FAULTS])."""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

BodyShape = Literal["list", "string", "number", "null", "nested"]
RateLimitHeaders = Literal["retry-after", "ratelimit"]


class SandboxFaults(BaseModel):
    """What goes wrong, and how often. Assignments are validated, so tests can flip fields at run time:
    ``client.app[FAULTS].error_rate = 1.0``.
    """

    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    latency_ms: int = Field(
        default=0, ge=0, description="added to every response, the token endpoint included"
    )
    error_rate: float = Field(default=0.0, ge=0.0, le=1.0, description="share of API requests answered 500")
    too_many_requests: int = Field(
        default=0, ge=0, description="the next N API requests answer 429, in each provider's words"
    )
    retry_after_seconds: float = Field(
        default=1.0,
        ge=0,
        le=3600,
        description="how long each 429 asks the client to wait (whole seconds as the RFCs write them; a "
        "fraction is sent as a decimal, which keeps tests short)",
    )
    rate_limit_headers: RateLimitHeaders = Field(
        default="retry-after",
        description="how a 429 says when to come back: Retry-After, or the RateLimit-Limit, -Remaining "
        "and -Reset fields (Duffel's reset is an HTTP date). Amadeus and Open-Meteo send neither, as the "
        "real ones do not",
    )
    revoked_keys: list[str] = Field(
        default_factory=list,
        description="API keys, tokens and Amadeus client ids refused as revoked: each dialect's 401 "
        "(an Amadeus client gets no token; tokens already issued run until they expire)",
    )
    quota_exceeded: bool = Field(default=False, description="every Amadeus API request answers 429 (38195)")
    malformed_rate: float = Field(
        default=0.0, ge=0.0, le=1.0, description="share of 200s with a truncated body"
    )
    body_shape: BodyShape | None = Field(
        default=None,
        description="every 200 JSON body (token included) is sent as this shape instead: a list holding "
        "it, a string, a number, null, or 'nested' (the object with each value of the wrong type)",
    )
    rewrite: dict[str, Any] = Field(
        default_factory=dict,
        description="in every 200 JSON body, the value of each key so named, at any depth, is replaced "
        "(hostile text, 'NaN' prices, junk codes)",
    )
    token_ttl_seconds: int = Field(default=1799, ge=0, description="expires_in of newly issued tokens")
    seed: int = Field(default=0, description="seeds the error_rate / malformed_rate draws")

    def rate_limit_hint(self) -> dict[str, str]:
        """The headers of a 429 that say when to come back, as ``rate_limit_headers`` chooses."""
        wait = f"{self.retry_after_seconds:g}"
        if self.rate_limit_headers == "ratelimit":
            return {"RateLimit-Limit": "60", "RateLimit-Remaining": "0", "RateLimit-Reset": wait}
        return {"Retry-After": wait}


class FaultDice:
    """The draws for error_rate and malformed_rate: a private RNG seeded from faults.seed.

    Reseeded whenever the seed (or the SandboxFaults instance) changes, so a test that sets a seed gets the
    same sequence of failures every run.
    """

    def __init__(self) -> None:
        self._owner: tuple[int, int] | None = None
        self._rng = random.Random(0)

    def roll(self, faults: SandboxFaults, rate: float) -> bool:
        if rate <= 0.0:
            return False
        owner = (id(faults), faults.seed)
        if owner != self._owner:
            self._owner = owner
            self._rng = random.Random(faults.seed)
        return self._rng.random() < rate
