"""Map settings to providers: each tool to the provider configured for it; imports load per branch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from connectors.base import Provider
from connectors.http import RateLimiter, RetryPolicy
from connectors.locations import LocationCatalogue
from connectors.tools import TOOLS, ToolRunner
from rag.errors import ConfigError
from rag.settings import Settings

logger = logging.getLogger(__name__)

SANDBOX_CLIENT = ("wayfarer-sandbox", "wayfarer-sandbox")


def create_providers(
    settings: Settings,
    session: aiohttp.ClientSession,
    sandbox_url: str | None = None,
    catalogue: LocationCatalogue | None = None,
) -> dict[str, Provider]:
    """Tool name to provider. With ``sandbox_url`` every provider talks to the offline sandbox (with
    its sandbox key); otherwise each needs its own key, named by its setting."""
    c = settings.connectors
    policy = RetryPolicy(retries=c.retries, backoff=c.backoff_seconds, timeout=c.timeout_seconds)
    built: dict[str, Provider] = {}

    def build(name: str) -> Provider:
        if name in built:
            return built[name]
        provider: Provider
        if name == "amadeus":
            from connectors.amadeus import AmadeusConnector

            if sandbox_url:
                client_id, secret, base = SANDBOX_CLIENT[0], SANDBOX_CLIENT[1], sandbox_url
            else:
                assert c.amadeus_client_id and c.amadeus_client_secret
                client_id, secret, base = (
                    c.amadeus_client_id,
                    c.amadeus_client_secret.get_secret_value(),
                    c.amadeus_base_url,
                )
            provider = AmadeusConnector(
                session,
                base,
                client_id,
                secret,
                policy=policy,
                limiter=RateLimiter(c.rate_limit_per_second, c.min_interval_ms / 1000),
                sandbox=sandbox_url is not None,
                hotel_candidates=c.hotel_candidates,
                max_bytes=settings.limits.provider_max_bytes,
            )
        elif name == "open_meteo":
            from connectors.open_meteo import OpenMeteoConnector

            provider = OpenMeteoConnector(
                session,
                sandbox_url or c.open_meteo_geocoding_url,
                sandbox_url or c.open_meteo_forecast_url,
                policy=policy,
                sandbox=sandbox_url is not None,
                max_bytes=settings.limits.provider_max_bytes,
            )
        elif name == "catalogue":
            from connectors.locations import LocationCatalogue
            from connectors.offline_locations import OfflineLocationsConnector

            provider = OfflineLocationsConnector(catalogue or LocationCatalogue.load())
        elif name in KEYED:
            provider = _keyed(name, settings, session, sandbox_url, policy, catalogue)
        else:
            raise ConfigError(
                f"WAYFARER_CONNECTORS__PROVIDERS: unknown provider {name!r} "
                f"(amadeus, open_meteo, catalogue, {', '.join(KEYED)})"
            )
        built[name] = provider
        return provider

    providers: dict[str, Provider] = {}
    for tool in TOOLS:
        name = c.providers.get(tool)
        if name is None:
            raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: no provider for {tool}")
        provider = build(name)
        if tool not in provider.tools:
            raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: {name} does not serve {tool}")
        providers[tool] = provider
    return providers


# Providers with one key each: the setting that holds it, and the sandbox's own key for them.
KEYED = {
    "duffel": ("duffel_token", "connectors.sandbox.duffel_api", "SANDBOX_TOKEN"),
    "liteapi": ("liteapi_key", "connectors.sandbox.liteapi_api", "API_KEY"),
    "travelpayouts": ("travelpayouts_token", "connectors.sandbox.travelpayouts_api", "SANDBOX_TOKEN"),
    "opentripmap": ("opentripmap_key", "connectors.sandbox.opentripmap_api", "API_KEY"),
}


def _keyed(
    name: str,
    settings: Settings,
    session: aiohttp.ClientSession,
    sandbox_url: str | None,
    policy: RetryPolicy,
    catalogue: LocationCatalogue | None,
) -> Provider:
    """A provider that takes a base URL and one key: the sandbox's, or the one configured."""
    import importlib

    c = settings.connectors
    field, sandbox_module, sandbox_key = KEYED[name]
    if sandbox_url:
        base, key = sandbox_url, str(getattr(importlib.import_module(sandbox_module), sandbox_key))
    else:
        secret = getattr(c, field)
        if secret is None:
            raise ConfigError(f"WAYFARER_CONNECTORS__{field.upper()} is needed for the {name} provider")
        base, key = getattr(c, f"{name}_base_url"), secret.get_secret_value()
    common: dict[str, Any] = {
        "policy": policy,
        "sandbox": sandbox_url is not None,
        "max_bytes": settings.limits.provider_max_bytes,
    }
    if name == "duffel":
        from connectors.duffel import DuffelConnector

        return DuffelConnector(session, base, key, **common)
    if name == "liteapi":
        from connectors.liteapi import LiteApiConnector

        return LiteApiConnector(
            session, base, key, hotel_candidates=c.hotel_candidates, places=catalogue, **common
        )
    if name == "travelpayouts":
        from connectors.travelpayouts import TravelpayoutsConnector

        return TravelpayoutsConnector(session, base, key, **common)
    from connectors.opentripmap import OpenTripMapConnector

    return OpenTripMapConnector(session, base, key, **common)


@contextlib.asynccontextmanager
async def open_tools(settings: Settings) -> AsyncIterator[ToolSession]:
    """The tool runner with its HTTP session, and the in-process sandbox when no provider keys are set."""
    from connectors.locations import LocationCatalogue

    runner: web.AppRunner | None = None
    url: str | None = None
    if settings.use_sandbox:
        from connectors.sandbox.app import start_sandbox

        runner, url = await start_sandbox(faults=settings.connectors.sandbox_faults)
        logger.info("offline travel sandbox on %s (synthetic data)", url)
    session = aiohttp.ClientSession(headers={"User-Agent": "wayfarer/0.1"})
    try:
        catalogue = await asyncio.to_thread(LocationCatalogue.load)
        tools = ToolRunner(
            create_providers(settings, session, url, catalogue),
            catalogue,
            today=settings.today,
            max_results=settings.connectors.max_results,
            deadline=settings.limits.tool_deadline_seconds,
        )
        yield ToolSession(tools, url, runner)
    finally:
        await session.close()
        if runner is not None:
            from connectors.sandbox.app import stop_sandbox

            await stop_sandbox(runner)


@dataclass
class ToolSession:
    tools: ToolRunner
    sandbox_url: str | None
    sandbox_runner: web.AppRunner | None
