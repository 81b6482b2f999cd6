"""Build the tool runner from settings: a provider per tool (connectors/providers.py chooses), the
offline sandbox when a tool goes to it, one HTTP session.

It reads the ``connectors`` section, two limits and today's date (``ToolSettings``), which the service's
settings have; the sandbox, a test double at the edge, is imported only when a tool goes to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from connectors.base import Provider
from connectors.errors import ConfigError
from connectors.http import RetryPolicy
from connectors.params import ToolParams
from connectors.places import LocationCatalogue
from connectors.providers import BuildContext, Choice, choose, is_online
from connectors.settings import ConnectorSettings
from connectors.tools import ToolRunner

logger = logging.getLogger(__name__)


class ToolLimits(Protocol):
    """The limits building the tools reads: a provider's body size and a tool call's deadline."""

    @property
    def provider_max_bytes(self) -> int: ...

    @property
    def tool_deadline_seconds(self) -> float: ...


class ToolSettings(Protocol):
    """What building the tools reads of the settings it is given (the service's have all of it)."""

    @property
    def connectors(self) -> ConnectorSettings: ...

    @property
    def limits(self) -> ToolLimits: ...

    def today(self) -> dt.date: ...


def create_providers(
    settings: ToolSettings,
    tools: Iterable[str],
    session: aiohttp.ClientSession,
    sandbox_url: str | None = None,
    catalogue: LocationCatalogue | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> dict[str, Provider]:
    """Tool name to provider, as chosen (``choices``, else ``choose``); a tool that goes to the sandbox
    talks to ``sandbox_url``. One provider serving several tools is built once."""
    c = settings.connectors
    chosen = choices if choices is not None else choose(c, tools)
    policy = RetryPolicy(retries=c.retries, backoff=c.backoff_seconds, timeout=c.timeout_seconds)
    places = catalogue or LocationCatalogue.load()
    built: dict[tuple[str, bool], Provider] = {}
    providers: dict[str, Provider] = {}
    for tool, choice in chosen.items():
        key = (choice.provider.name, choice.sandbox)
        if key not in built:
            if choice.sandbox and sandbox_url is None:
                raise ConfigError(f"{tool} goes to the offline sandbox, which is not running")
            ctx = BuildContext(
                session,
                c,
                sandbox_url if choice.sandbox else None,
                policy,
                settings.limits.provider_max_bytes,
                places,
                choice.provider.config,
            )
            try:
                built[key] = choice.provider.build(ctx)
            except ConfigError as exc:
                raise ConfigError(f"{exc.message} (needed by the {choice.provider.name} provider)") from exc
        providers[tool] = built[key]
    return providers


def describe(choices: Mapping[str, Choice], settings: ToolSettings) -> dict[str, dict[str, Any]]:
    """Per tool: its provider now, why, and every provider that could serve it (configured or not)."""
    c = settings.connectors
    online = is_online(c)
    return {
        tool: {
            "why": ch.why,
            "providers": [
                {
                    "name": o.name,
                    "current": o.name == ch.provider.name,
                    "configured": o.configured(c, online=online),
                    "keys": [f"WAYFARER_CONNECTORS__{k.upper()}" for k in o.keys],
                    "settings": [f"WAYFARER_CONNECTORS__{k.upper()}" for k in o.settings],
                    "signup": o.signup,
                    "about": o.about,
                }
                for o in ch.options
            ],
        }
        for tool, ch in choices.items()
    }


@contextlib.asynccontextmanager
async def open_tools(
    settings: ToolSettings, tools: Mapping[str, type[ToolParams]]
) -> AsyncIterator[ToolSession]:
    """The runner of ``tools`` (name -> parameter model) with its HTTP session, and the in-process
    sandbox if any tool goes to it."""
    choices = choose(settings.connectors, tools)
    sandbox: web.AppRunner | None = None
    url: str | None = None
    if any(ch.sandbox for ch in choices.values()):
        from connectors.sandbox.app import start_sandbox

        sandbox, url = await start_sandbox(faults=settings.connectors.sandbox_faults)
        offline = sorted(t for t, ch in choices.items() if ch.sandbox)
        logger.info("offline travel sandbox on %s (synthetic data) for %s", url, ", ".join(offline))
    session = aiohttp.ClientSession(headers={"User-Agent": "wayfarer/0.1"})
    try:
        catalogue = await asyncio.to_thread(LocationCatalogue.load)
        runner = ToolRunner(
            create_providers(settings, tools, session, url, catalogue, choices),
            catalogue,
            tools,
            today=settings.today,
            max_results=settings.connectors.max_results,
            deadline=settings.limits.tool_deadline_seconds,
        )
        yield ToolSession(runner, url, sandbox, describe(choices, settings))
    finally:
        await session.close()
        if sandbox is not None:
            from connectors.sandbox.app import stop_sandbox

            await stop_sandbox(sandbox)


@dataclass
class ToolSession:
    tools: ToolRunner
    sandbox_url: str | None
    sandbox_runner: web.AppRunner | None
    # Per tool: why its provider was chosen and the providers that could serve it (for /v1/tools).
    options: dict[str, dict[str, Any]]

    def providers(self) -> dict[str, dict[str, Any]]:
        """Per tool: its provider now, whether it is the sandbox, why, and every provider that could
        serve it (what /v1/tools and ``wayfarer tools list`` show beside each tool's declaration)."""
        return {
            name: {
                "provider": self.tools.provider(name).name,
                "sandbox": self.tools.provider(name).sandbox,
                **self.options.get(name, {}),
            }
            for name in self.tools.tools
        }
