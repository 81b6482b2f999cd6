"""The connectors' settings: the ``connectors`` section of the service's settings, owned here.

The service reads it from ``WAYFARER_CONNECTORS__<FIELD>`` (its settings nest this model as ``connectors``);
connectors read only this section, never the service's settings.

The fields below are the general ones and the built-in providers' keys and base URLs. A provider declared
outside the package brings its own settings model (``ProviderSpec.config``): its fields are read from the
same section by name (``WAYFARER_CONNECTORS__ACME_KEY`` is ``acme_key``), which is why the section keeps
variables it does not declare, hidden as secrets until the provider's model reads them (``section``).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

import pydantic
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from connectors.errors import ConfigError

M = TypeVar("M", bound=BaseModel)

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


class ConnectorSettings(BaseModel):
    # A provider declared outside the package reads its own settings from this section (``section``).
    model_config = ConfigDict(extra="allow")

    # auto: per tool, the first configured provider, else the offline sandbox; sandbox: every tool
    # offline; real: every tool needs a configured provider (connectors/providers.py). "live", its
    # earlier name, is still read as "real" ("live" now means stored tool results: rag/live).
    mode: Literal["auto", "sandbox", "real"] = "auto"

    @field_validator("mode", mode="before")
    @classmethod
    def _earlier_name(cls, value: object) -> object:
        return "real" if value == "live" else value

    amadeus_client_id: str | None = None
    amadeus_client_secret: SecretStr | None = None
    amadeus_base_url: str = "https://test.api.amadeus.com"
    open_meteo_geocoding_url: str = "https://geocoding-api.open-meteo.com"
    open_meteo_forecast_url: str = "https://api.open-meteo.com"
    # Providers a developer can sign up for today (Amadeus Self-Service closed in July 2026).
    duffel_token: SecretStr | None = None
    duffel_base_url: str = "https://api.duffel.com"
    liteapi_key: SecretStr | None = None
    liteapi_base_url: str = "https://api.liteapi.travel"
    travelpayouts_token: SecretStr | None = None
    travelpayouts_base_url: str = "https://api.travelpayouts.com"
    opentripmap_key: SecretStr | None = None
    opentripmap_base_url: str = "https://api.opentripmap.com"
    # Which provider serves a tool, by name or module path ({"flight_search": "duffel"}); a tool not named
    # here gets the first configured provider that serves it (connectors/providers.py), else the sandbox.
    providers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(10.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    backoff_seconds: float = Field(0.25, ge=0)
    # Amadeus test environment: 10 requests/s and at least 100 ms apart.
    rate_limit_per_second: float = Field(10.0, gt=0)
    min_interval_ms: float = Field(100.0, ge=0)
    max_results: int = Field(10, ge=1, le=50)
    # Hotels whose offers are asked for per hotel_search (hotel-offers v3 takes hotel ids).
    hotel_candidates: int = Field(20, ge=1, le=50)
    sandbox_faults: SandboxFaults = SandboxFaults()

    @model_validator(mode="after")
    def _hide_undeclared(self) -> ConnectorSettings:
        """Variables this section does not declare belong to an outside provider and may be its key:
        kept as secrets, so no repr or log of the settings shows them."""
        extra = self.__pydantic_extra__
        if extra:
            for name, value in extra.items():
                if isinstance(value, str):
                    extra[name] = SecretStr(value)
        return self

    def section(self, model: type[M]) -> M:
        """A provider's own settings (its ``ProviderSpec.config``), each field read from this section by
        its name: a field declared here, or a ``WAYFARER_CONNECTORS__<FIELD>`` variable it keeps. A bad
        value is a ConfigError naming the variable."""
        extra = self.model_extra or {}
        values: dict[str, Any] = {}
        for name in model.model_fields:
            if name in type(self).model_fields:
                values[name] = getattr(self, name)
            elif name in extra:
                value = extra[name]
                values[name] = value.get_secret_value() if isinstance(value, SecretStr) else value
        try:
            return model.model_validate(values)
        except pydantic.ValidationError as exc:
            errors = exc.errors(include_url=False)
            raise ConfigError(
                "; ".join(
                    f"WAYFARER_CONNECTORS__{'__'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
                    for e in errors
                )
            ) from exc
