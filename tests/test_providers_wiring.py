"""The providers a developer can sign up for today, switched on by settings and called through the
tool runner against the in-process sandbox (each provider's own dialect), as the service would."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable

import pytest

from connectors.factory import create_providers, open_tools
from rag.errors import ConfigError
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

NEW = {
    "flight_search": "duffel",
    "hotel_search": "liteapi",
    "activity_search": "opentripmap",
    "location_search": "catalogue",
    "flight_inspiration": "travelpayouts",
    "cheapest_dates": "travelpayouts",
    "weather_forecast": "open_meteo",
}


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


async def test_every_tool_answers_through_its_new_provider(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(
        WAYFARER_CONNECTORS__PROVIDERS=json.dumps(NEW),
        WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",
    )
    calls = {
        "flight_search": {"origin": "London", "destination": "Lisbon", "departure_date": ahead(30)},
        "hotel_search": {"city": "Lisbon", "check_in": ahead(30), "nights": 2},
        "activity_search": {"city": "Rome"},
        "location_search": {"keyword": "Lisboa"},
        "flight_inspiration": {"origin": "MAD"},
        "cheapest_dates": {"origin": "MAD", "destination": "LIS"},
    }
    async with open_tools(settings, TOOLS.params_models()) as session:
        for tool, params in calls.items():
            call = await session.tools.call(tool, params)
            assert call.provider == NEW[tool], (tool, call.provider)
            assert call.results, tool
            again = await session.tools.call(tool, params)
            assert [r.identity for r in again.results] == [r.identity for r in call.results], tool


async def test_a_provider_without_its_key_is_a_config_error_naming_the_setting(
    make_settings: Callable[..., Settings],
) -> None:
    import aiohttp

    settings = make_settings(
        WAYFARER_CONNECTORS__PROVIDERS=json.dumps(NEW),
        WAYFARER_CONNECTORS__MODE="real",
    )
    async with aiohttp.ClientSession() as session:
        with pytest.raises(ConfigError, match="WAYFARER_CONNECTORS__DUFFEL_TOKEN"):
            create_providers(settings, TOOLS, session)
