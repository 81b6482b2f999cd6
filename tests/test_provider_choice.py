"""Which provider serves each tool (connectors/providers.py ``choose``), from settings alone: the
first configured provider per tool in auto mode, else the sandbox; forced ones; live and sandbox modes."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from connectors.providers import Choice, choose
from rag.errors import ConfigError
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

Make = Callable[..., Settings]


def chosen(settings: Settings) -> dict[str, tuple[str, bool]]:
    """tool -> (provider, through the sandbox)."""
    choices: dict[str, Choice] = choose(settings.connectors, TOOLS)
    return {tool: (c.provider.name, c.sandbox) for tool, c in choices.items()}


def test_with_no_keys_every_networked_tool_is_offline_in_its_new_providers_dialect(
    make_settings: Make,
) -> None:
    assert chosen(make_settings()) == {
        "flight_search": ("duffel", True),
        "hotel_search": ("liteapi", True),
        "activity_search": ("opentripmap", True),
        "location_search": ("catalogue", False),  # offline data, never the sandbox
        "flight_inspiration": ("travelpayouts", True),
        "cheapest_dates": ("travelpayouts", True),
        "weather_forecast": ("open_meteo", True),
    }


def test_a_key_switches_on_its_provider_and_takes_the_service_online(make_settings: Make) -> None:
    got = chosen(make_settings(WAYFARER_CONNECTORS__DUFFEL_TOKEN="duffel_test_x"))
    assert got["flight_search"] == ("duffel", False)
    assert got["hotel_search"] == ("liteapi", True)  # no LiteAPI key: still the sandbox
    assert got["weather_forecast"] == ("open_meteo", False)  # keyless, and the service is now online


def test_amadeus_keys_serve_what_no_newer_provider_is_configured_for(make_settings: Make) -> None:
    got = chosen(
        make_settings(
            WAYFARER_CONNECTORS__AMADEUS_CLIENT_ID="id",
            WAYFARER_CONNECTORS__AMADEUS_CLIENT_SECRET="secret",
            WAYFARER_CONNECTORS__LITEAPI_KEY="sand_x",
        )
    )
    assert got["flight_search"] == ("amadeus", False)
    assert got["hotel_search"] == ("liteapi", False)  # preferred over Amadeus when both are configured
    assert got["location_search"] == ("catalogue", False)


def test_a_named_provider_wins_and_goes_offline_without_its_key(make_settings: Make) -> None:
    got = chosen(make_settings(WAYFARER_CONNECTORS__PROVIDERS=json.dumps({"flight_search": "amadeus"})))
    assert got["flight_search"] == ("amadeus", True)


def test_live_mode_names_the_key_a_tool_needs(make_settings: Make) -> None:
    with pytest.raises(ConfigError, match="WAYFARER_CONNECTORS__DUFFEL_TOKEN"):
        choose(make_settings(WAYFARER_CONNECTORS__MODE="real").connectors, TOOLS)


def test_sandbox_mode_keeps_configured_providers_offline(make_settings: Make) -> None:
    got = chosen(make_settings(WAYFARER_CONNECTORS__MODE="sandbox", WAYFARER_CONNECTORS__DUFFEL_TOKEN="x"))
    assert got["flight_search"] == ("duffel", True) and got["weather_forecast"] == ("open_meteo", True)


@pytest.mark.parametrize(
    ("providers", "error"),
    [
        ({"flight_search": "skyscanner"}, "unknown provider 'skyscanner'"),
        ({"weather_forecast": "duffel"}, "duffel does not serve weather_forecast"),
        ({"flight_search": "tests.no_such_module"}, "cannot import tests.no_such_module"),
        ({"flight_search": "json"}, "unknown provider 'json'"),
    ],
)
def test_a_wrong_provider_name_is_a_start_up_error(
    make_settings: Make, providers: dict[str, str], error: str
) -> None:
    with pytest.raises(ConfigError, match=error):
        choose(make_settings(WAYFARER_CONNECTORS__PROVIDERS=json.dumps(providers)).connectors, TOOLS)


def test_the_earlier_name_of_real_mode_is_still_read(make_settings) -> None:  # type: ignore[no-untyped-def]
    """``live`` now names stored tool results; a configuration written with MODE=live still means real."""
    assert make_settings(WAYFARER_CONNECTORS__MODE="live").connectors.mode == "real"
    with pytest.raises(ConfigError, match="WAYFARER_CONNECTORS__MODE=real"):
        choose(make_settings(WAYFARER_CONNECTORS__MODE="live").connectors, TOOLS)
