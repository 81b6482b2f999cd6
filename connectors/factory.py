"""Map settings to providers: each tool to the provider configured for it; imports load per branch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from connectors.base import Provider
from connectors.http import RateLimiter, RetryPolicy
from connectors.tools import TOOLS, ToolRunner
from rag.errors import ConfigError
from rag.settings import Settings

logger = logging.getLogger(__name__)

SANDBOX_CLIENT = ("wayfarer-sandbox", "wayfarer-sandbox")


def create_providers(
    settings: Settings, session: aiohttp.ClientSession, sandbox_url: str | None = None
) -> dict[str, Provider]:
    """Tool name to provider. With ``sandbox_url`` every provider talks to the offline sandbox."""
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
        else:
            raise ConfigError(
                f"WAYFARER_CONNECTORS__PROVIDERS: unknown provider {name!r} (amadeus, open_meteo)"
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
            create_providers(settings, session, url),
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
