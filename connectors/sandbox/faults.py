"""Fault injection settings for the sandbox, changeable while it runs (mutate the instance under app[FAULTS])."""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

BodyShape = Literal["list", "string", "number", "null", "nested"]


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
        default=0, ge=0, description="the next N Amadeus API requests answer 429 (38194)"
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
