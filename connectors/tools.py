"""The tool runner: validates a call against its parameter model and calls the tool's provider."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pydantic

from connectors.base import Provider, Terms
from connectors.errors import (
    ProviderError,
    ProviderTimeoutError,
    ToolNotFoundError,
    ToolValidationError,
    UnknownLocationError,
)
from connectors.models import Result
from connectors.params import ToolParams, whole_numbers
from connectors.places import LocationCatalogue

logger = logging.getLogger(__name__)

SANDBOX_NOTICE = "Sandbox data: synthetic offers for trying Wayfarer out, not real fares or availability."


@dataclass(frozen=True, slots=True)
class ToolCall:
    tool: str
    provider: str
    sandbox: bool
    params: ToolParams
    results: list[Result]
    elapsed_ms: float
    terms: Terms = Terms()

    def outcome(
        self, *, from_index: bool = False, ingesting: int = 0, fetched_at: str | None = None
    ) -> ToolOutcome:
        """This call as JSON: from the provider, or as a service that keeps results answered it."""
        return ToolOutcome(
            tool=self.tool,
            provider=self.provider,
            sandbox=self.sandbox,
            params=self.params.model_dump(mode="json", exclude_none=True),
            results=[
                ToolResult(kind=r.kind, id=r.identity, text=r.render(), data=r.model_dump(mode="json"))
                for r in self.results
            ],
            from_index=from_index,
            ingesting=ingesting,
            notice=SANDBOX_NOTICE if self.sandbox else None,
            attribution=next((r.attribution for r in self.results if r.attribution), None),
            fetched_at=fetched_at,
        )

    def to_json(self) -> dict[str, Any]:
        return self.outcome().model_dump(mode="json")


def _none(value: object) -> bool:
    return value is None


class ToolResult(pydantic.BaseModel):
    kind: str
    id: str
    text: str
    data: dict[str, Any]


# A tool call as JSON, the one shape of every answer that shows one: POST /v1/tools/{name} and
# ``wayfarer tools call`` answer it whole; a chat answer's ``tool_calls`` sum it up (rag.chat.events
# ChatToolCall: the results counted, not listed). A service that keeps results (rag.live) says how it
# answered: ``from_index``, ``ingesting``, ``fetched_at``; a call straight from its provider is not
# from an index and writes nothing to one. (A docstring would be its description in /openapi.json.)
class ToolOutcome(pydantic.BaseModel):
    tool: str
    provider: str
    sandbox: bool
    params: dict[str, Any] = pydantic.Field(
        description="The validated parameters (locations resolved to codes)"
    )
    results: list[ToolResult]
    from_index: bool = pydantic.Field(description="Answered from fresh indexed results, not the provider")
    ingesting: int = pydantic.Field(description="How many results are being written to the index")
    notice: str | None = pydantic.Field(
        None, description="Present when the results are sandbox data", exclude_if=_none
    )
    attribution: str | None = pydantic.Field(
        None, description="What the provider's terms ask answers to credit", exclude_if=_none
    )
    fetched_at: str | None = pydantic.Field(
        None, description="When indexed results were fetched (from_index)", exclude_if=_none
    )


class ToolRunner:
    """Validates parameters against the catalogue and today's date, then calls the configured provider.

    ``deadline`` bounds one call as a whole (retries, backoff, waiting for and refreshing the provider's
    token included); past it the call fails with ProviderTimeoutError. None means no overall deadline.
    """

    def __init__(
        self,
        providers: Mapping[str, Provider],
        catalogue: LocationCatalogue,
        params: Mapping[str, type[ToolParams]],
        *,
        today: Callable[[], dt.date] | None = None,
        max_results: int = 10,
        deadline: float | None = None,
    ) -> None:
        missing = set(params) - set(providers)
        if missing:
            raise ValueError(f"no provider for {sorted(missing)}")
        self._providers = dict(providers)
        self._params = dict(params)  # tool name -> its parameter model
        self.catalogue = catalogue
        self._today = today or (lambda: dt.datetime.now(dt.UTC).date())
        self._max_results = max_results
        self._deadline = deadline

    def provider(self, name: str) -> Provider:
        """The provider configured for a tool."""
        return self._providers[name]

    @property
    def tools(self) -> list[str]:
        return list(self._params)

    def validate(
        self, name: str, raw: Any, *, strict: bool = False, today: dt.date | None = None
    ) -> ToolParams:
        """Parameters for ``name`` from JSON-like ``raw``, resolved and checked, or a ToolValidationError.

        ``strict`` is for JSON a client wrote (HTTP, the CLI): types must match as documented, so "2" is
        not an integer and "true" not a boolean (2.0 is one, as JSON Schema says); ISO date strings are still dates. Parameters an LLM or
        the router extracted are validated leniently. ``today``: the traveller's date (their time zone),
        else the service's.
        """
        model = self._params.get(name)
        if model is None:
            raise ToolNotFoundError(f"no tool named {name!r}; tools: {', '.join(self._params)}")
        if not isinstance(raw, dict):
            raise ToolValidationError(f"{name}: parameters must be a JSON object")
        context = {"catalogue": self.catalogue, "today": today or self._today()}
        try:
            if strict:
                try:
                    text = json.dumps(whole_numbers(model, raw), allow_nan=False)
                except (TypeError, ValueError) as exc:
                    raise ToolValidationError(f"{name}: parameters must be plain JSON values") from exc
                return model.model_validate_json(text, strict=True, context=context)
            return model.model_validate(raw, context=context)
        except pydantic.ValidationError as exc:
            errors = exc.errors(include_url=False)
            message = f"{name}: " + "; ".join(_describe(e) for e in errors[:5])
            if any(e["type"] == "unknown_location" for e in errors):
                raise UnknownLocationError(message) from exc
            raise ToolValidationError(message) from exc

    async def call(self, name: str, raw: Any, *, limit: int | None = None, strict: bool = False) -> ToolCall:
        """Validate (unless ``raw`` is already ToolParams) and call the provider within the deadline."""
        params = raw if isinstance(raw, ToolParams) else self.validate(name, raw, strict=strict)
        provider = self._providers[name]
        start = time.perf_counter()
        deadline = asyncio.timeout(self._deadline)
        try:
            async with deadline:
                results = await provider.call(name, params, limit or self._max_results)
        except ProviderError as exc:
            if exc.detail:  # the provider's own words: for whoever runs the service, not the traveller
                logger.warning(
                    "tool %s via %s: %s; the provider said: %s", name, provider.name, exc.message, exc.detail
                )
            raise
        except TimeoutError as exc:
            if not deadline.expired():
                raise
            raise ProviderTimeoutError(
                f"{name} via {provider.name} did not finish within the {self._deadline:g} s deadline"
            ) from exc
        elapsed = (time.perf_counter() - start) * 1000
        logger.info("tool %s via %s: %d results in %.0f ms", name, provider.name, len(results), elapsed)
        # Synthetic sandbox data credits no one: the attribution is for the provider's real data.
        terms = (
            provider.terms if not provider.sandbox else dataclasses.replace(provider.terms, attribution=None)
        )
        for r in results:
            r.attribution = terms.attribution
        return ToolCall(name, provider.name, provider.sandbox, params, results, elapsed, terms)


def _describe(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg
