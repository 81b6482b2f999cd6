"""One provider contract, seven providers: each class only says how to build its provider, what to ask
it, and what its wire format names; the tests are in tests/provider_contract.py (semantics, every
provider) and tests/provider_faults.py (failures, every provider behind HTTP).

Provider-specific behaviour stays in tests/test_provider_<name>.py and tests/test_connectors.py.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import aiohttp
import pytest

from connectors.amadeus import SANDBOX_CLIENT, AmadeusConnector
from connectors.duffel import CABINS, DuffelConnector
from connectors.http import RetryPolicy
from connectors.liteapi import LiteApiConnector
from connectors.models import Result
from connectors.offline_locations import OfflineLocationsConnector
from connectors.open_meteo import OpenMeteoConnector
from connectors.opentripmap import OpenTripMapConnector
from connectors.params import ToolParams
from connectors.sandbox import duffel_api, liteapi_api, opentripmap_api, travelpayouts_api
from connectors.travelpayouts import TravelpayoutsConnector
from rag.settings import LimitsSettings
from tests.provider_contract import (
    CATALOGUE,
    POLICY,
    TODAY,
    Connect,
    Dialect,
    Enum,
    Filter,
    ProviderContract,
    Raw,
    ahead,
    ahead_on,
    flown_by,
    named,
    params,
)
from tests.provider_faults import HttpProviderContract

MAX_BYTES = LimitsSettings().provider_max_bytes


def cabin_known(r: Result) -> bool:
    return getattr(r, "cabin", None) in CABINS


def no_cancellation_terms(r: Result) -> bool:
    return getattr(r, "cancellation", "") is None


class TestAmadeus(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            client_id, secret = (key or SANDBOX_CLIENT[0]), SANDBOX_CLIENT[1]
            return AmadeusConnector(
                session,
                base,
                client_id,
                secret,
                policy=policy,
                limiter=None,
                sandbox=True,
                max_bytes=max_bytes,
            )

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {
            "flight_search": {"origin": "London", "destination": "New York", "departure_date": ahead(30)},
            "hotel_search": {"city": "Lisbon", "check_in": ahead(20), "nights": 3},
            "activity_search": {"city": "Barcelona"},
            "location_search": {"keyword": "lis"},
            "flight_inspiration": {"origin": "Madrid", "departure_date": ahead(30)},
            "cheapest_dates": {"origin": "PAR", "destination": "Rome", "departure_date": ahead(30)},
        }

    @pytest.fixture
    def narrower(self, searches: dict[str, Raw]) -> tuple[str, Raw]:
        return "flight_search", searches["flight_search"] | {"nonstop": True}

    @pytest.fixture
    def filters(self) -> tuple[Filter, ...]:
        # Flight Offers Search filters on includedAirlineCodes; Tours and Activities by its words.
        return (
            Filter("flight_search", {"airline": "United Airlines"}, flown_by("UA")),
            Filter("activity_search", {"category": "religious"}, named("cathedral", "worship")),
            Filter("activity_search", {"category": "museum"}, named("museum")),
        )

    @pytest.fixture
    def dialect(self) -> Dialect:
        return Dialect(
            key=SANDBOX_CLIENT[0],
            identity_key="number",
            enums=(
                Enum("flight_search", {"cabin": "SPACESHIP"}, cabin_known),
                Enum("location_search", {"subType": "SPACEPORT"}, None),
            ),
            hints=False,
            any_key_accepted=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        lukla = params("hotel_search", {"city": "Lukla", "check_in": ahead(5)})
        return "hotel_search", lukla, "NOTHING FOUND FOR REQUESTED CITY"


class TestDuffel(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            token = key or duffel_api.SANDBOX_TOKEN
            return DuffelConnector(session, base, token, policy=policy, sandbox=True, max_bytes=max_bytes)

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        # A Thursday: Japan Airlines (the filter below) flies London-Tokyo on it in the sandbox.
        return {
            "flight_search": {"origin": "London", "destination": "Tokyo", "departure_date": ahead_on(40, 3)}
        }

    @pytest.fixture
    def narrower(self, searches: dict[str, Raw]) -> tuple[str, Raw]:
        return "flight_search", searches["flight_search"] | {"nonstop": True}

    @pytest.fixture
    def filters(self) -> tuple[Filter, ...]:
        return (Filter("flight_search", {"airline": "Japan Airlines"}, flown_by("JL")),)

    @pytest.fixture
    def dialect(self) -> Dialect:
        return Dialect(
            key=duffel_api.SANDBOX_TOKEN,
            identity_key="marketing_carrier_flight_number",
            enums=(Enum("flight_search", {"cabin_class": "spaceship"}, cabin_known),),
            hints=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        flight = params(
            "flight_search", {"origin": "London", "destination": "Tokyo", "departure_date": ahead(9)}
        )
        unknown = flight.model_copy(update={"destination": "QQQ"})
        return (
            "flight_search",
            unknown,
            "'QQQ' is not a valid IATA airport or city code [/data/slices/0/destination]",
        )


class TestLiteApi(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            return LiteApiConnector(
                session,
                base,
                key or liteapi_api.API_KEY,
                policy=policy,
                sandbox=True,
                max_bytes=max_bytes,
                places=CATALOGUE,
            )

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {"hotel_search": {"city": "Paris", "check_in": ahead(40), "nights": 3}}

    @pytest.fixture
    def narrower(self, searches: dict[str, Raw]) -> tuple[str, Raw]:
        return "hotel_search", searches["hotel_search"] | {"max_price": 600}

    @pytest.fixture
    def dialect(self) -> Dialect:
        return Dialect(
            key=liteapi_api.API_KEY,
            identity_key="hotelId",
            enums=(Enum("hotel_search", {"refundableTag": "SOMETIMES"}, no_cancellation_terms),),
            hints=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        gold = params("hotel_search", {"city": "Paris", "check_in": ahead(40), "currency": "XAU"})
        return "hotel_search", gold, "currency XAU is not supported (4002)"


class TestTravelpayouts(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            token = key or travelpayouts_api.SANDBOX_TOKEN
            return TravelpayoutsConnector(
                session, base, token, policy=policy, sandbox=True, max_bytes=max_bytes
            )

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {
            "cheapest_dates": {"origin": "PAR", "destination": "Rome", "departure_date": ahead(40)},
            "flight_inspiration": {"origin": "London", "departure_date": ahead(60)},
        }

    @pytest.fixture
    def narrower(self, searches: dict[str, Raw]) -> tuple[str, Raw]:
        return "flight_inspiration", searches["flight_inspiration"] | {"max_price": 150}

    @pytest.fixture
    def dialect(self) -> Dialect:
        # The Data API's one documented enum, trip_class (0-2), is not read: a new value changes nothing.
        return Dialect(
            key=travelpayouts_api.SANDBOX_TOKEN,
            identity_key="depart_date",
            enums=(Enum("cheapest_dates", {"trip_class": 7}, lambda r: True),),
            hints=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        dates = params("cheapest_dates", {"origin": "PAR", "destination": "Rome"})
        return "cheapest_dates", dates.model_copy(update={"origin": "QQQ"}), "origin: unknown IATA code QQQ"


class TestOpenTripMap(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            api_key = key or opentripmap_api.API_KEY
            return OpenTripMapConnector(
                session, base, api_key, policy=policy, sandbox=True, max_bytes=max_bytes
            )

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {"activity_search": {"city": "Barcelona"}}

    @pytest.fixture
    def narrower(self) -> tuple[str, Raw]:
        return "activity_search", {"city": "Barcelona", "radius_km": 2}

    @pytest.fixture
    def filters(self) -> tuple[Filter, ...]:
        return (
            Filter("activity_search", {"category": "museum"}, named("museum")),
            Filter("activity_search", {"category": "religious"}, named("cathedral", "worship")),
            Filter("activity_search", {"category": "amusement"}, named("zoo", "aquarium", "theme park")),
        )

    @pytest.fixture
    def dialect(self) -> Dialect:
        # "rate" is 1-3, "h" for heritage: an unknown one ranks a place last and keeps it.
        return Dialect(
            key=opentripmap_api.API_KEY,
            identity_key="xid",
            enums=(Enum("activity_search", {"rate": "9z"}, lambda r: True),),
            hints=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        wide = params("activity_search", {"city": "Barcelona"}).model_copy(update={"radius_km": 100})
        return "activity_search", wide, "Parameter 'radius' must be between 1 and 50000"


class TestOpenMeteo(HttpProviderContract):
    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        def make(
            base: str, *, policy: RetryPolicy = POLICY, key: str | None = None, max_bytes: int = MAX_BYTES
        ) -> Any:
            return OpenMeteoConnector(session, base, base, policy=policy, sandbox=True, max_bytes=max_bytes)

        return make

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {"weather_forecast": {"city": "Oslo", "days": 5}}

    @pytest.fixture
    def limited(self) -> bool:
        # A forecast is as long as its days; ToolRunner's max_results (10) must not cut a 16-day one.
        return False

    @pytest.fixture
    def narrower(self) -> tuple[str, Raw]:
        return "weather_forecast", {"city": "Oslo", "days": 3}

    @pytest.fixture
    def dialect(self) -> Dialect:
        return Dialect(
            key=None,
            identity_key="latitude",
            enums=(
                Enum(
                    "weather_forecast",
                    {"weather_code": [1234] * 16},
                    lambda r: "weather unknown" in r.render(),
                ),
            ),
            hints=False,
            single_item=True,
        )

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        next_year = TODAY + dt.timedelta(days=365)  # forecasts reach 16 days
        far = params("weather_forecast", {"city": "Oslo"}).model_copy(update={"start_date": next_year})
        return "weather_forecast", far, "out of allowed range"


@functools.cache
def offline() -> OfflineLocationsConnector:
    return OfflineLocationsConnector(CATALOGUE)


class TestOfflineLocations(ProviderContract):
    """No HTTP, so no failures to inject: the semantics only."""

    @pytest.fixture
    def provider(self) -> OfflineLocationsConnector:
        return offline()

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        return {"location_search": {"keyword": "paris"}}

    @pytest.fixture
    def narrower(self) -> tuple[str, Raw]:
        return "location_search", {"keyword": "paris", "kind": "CITY"}

    @pytest.fixture
    def synthetic(self) -> bool:
        return False  # real places from the catalogue
