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
from connectors.locations import LocationCatalogue
from connectors.models import Result
from connectors.params import ToolParams
from rag.errors import ProviderTimeoutError, ToolNotFoundError, ToolValidationError, UnknownLocationError

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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": self.tool,
            "provider": self.provider,
            "sandbox": self.sandbox,
            "params": self.params.model_dump(mode="json", exclude_none=True),
            "results": [
                {"kind": r.kind, "id": r.identity, "text": r.render(), "data": r.model_dump(mode="json")}
                for r in self.results
            ],
        }
        if self.sandbox:
            out["notice"] = SANDBOX_NOTICE
        attribution = next((r.attribution for r in self.results if r.attribution), None)
        if attribution:
            out["attribution"] = attribution
        return out


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
        not an integer and "true" not a boolean; ISO date strings are still dates. Parameters an LLM or
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
                    text = json.dumps(raw, allow_nan=False)
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
