"""The location catalogue and tool parameter validation: names to codes, bad requests to clear errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from connectors.places import LocationCatalogue
from connectors.tools import ToolRunner
from rag.errors import ToolNotFoundError, ToolValidationError, UnknownLocationError
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

TODAY = dt.date(2027, 3, 10)
CAT = LocationCatalogue.load()


def runner() -> ToolRunner:
    # Validation only: no provider is called in this module.
    return ToolRunner({t: object() for t in TOOLS}, CAT, TOOLS.params_models(), today=lambda: TODAY)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "code", "kind"),
    [
        ("Paris", "PAR", "city"),
        ("paris", "PAR", "city"),
        ("PAR", "PAR", "city"),
        ("lhr", "LHR", "airport"),
        ("New York", "NYC", "city"),
        ("nyc", "NYC", "city"),
        ("Lisboa", "LIS", "city"),
        ("Barcelonna", "BCN", "city"),  # a typo
        ("São Paulo", "SAO", "city"),
        ("Sao Paulo", "SAO", "city"),
        ("Bombay", "BOM", "city"),
        ("Bergen", "BGO", "city"),  # not a destination city of ours: found in the gazetteer, its own airport
    ],
)
def test_resolve(text: str, code: str, kind: str) -> None:
    place = CAT.resolve(text)
    assert place is not None and place.code == code and place.kind == kind


@pytest.mark.parametrize("text", ["Zzyzxville", "", "   ", "Moscowvillexyz", "QQQ"])
def test_unknown_places(text: str) -> None:
    assert CAT.resolve(text) is None


def test_catalogue_has_real_cities_everywhere() -> None:
    assert len(CAT.cities) >= 60
    continents = {c.timezone.split("/")[0] for c in CAT.cities}
    assert {"Europe", "Asia", "Africa", "America", "Australia"} <= continents
    for c in CAT.cities:
        assert all(CAT.airport(a) for a in c.airports), c
        assert 1 <= c.cost_level <= 5 and len(c.currency) == 3


def test_flight_params_resolve_to_codes() -> None:
    p = runner().validate(
        "flight_search",
        {"origin": "London", "destination": "cdg", "departure_date": "2027-05-05", "adults": 2},
    )
    assert p.model_dump()["origin"] == "LON" and p.model_dump()["destination"] == "CDG"


def good_flight(**changes: Any) -> dict[str, Any]:
    return {"origin": "LON", "destination": "PAR", "departure_date": "2027-05-05", **changes}


@pytest.mark.parametrize(
    ("tool", "params", "fragment"),
    [
        ("flight_search", good_flight(departure_date="2027-03-09"), "in the past"),
        ("flight_search", good_flight(departure_date="2028-06-01"), "days ahead"),
        ("flight_search", good_flight(return_date="2027-05-01"), "return_date is before"),
        ("flight_search", good_flight(adults=10), "adults"),
        ("flight_search", good_flight(adults=5, children=5), "at most 9"),
        ("flight_search", good_flight(adults=1, infants=2), "one infant per adult"),
        ("flight_search", good_flight(destination="LHR"), "same place"),
        ("flight_search", good_flight(departure_date="05/05/2027"), "departure_date"),
        ("flight_search", good_flight(currency="XYZ"), "unknown currency"),
        ("flight_search", good_flight(cabin="LUXURY"), "cabin"),
        ("flight_search", good_flight(pets=1), "pets"),
        ("flight_search", {"origin": "LON"}, "destination"),
        (
            "hotel_search",
            {"city": "Rome", "check_in": "2027-05-05", "check_out": "2027-05-04"},
            "after check_in",
        ),
        ("hotel_search", {"city": "Rome", "check_in": "2027-05-05", "nights": 45}, "nights"),
        (
            "hotel_search",
            {"city": "Rome", "check_in": "2027-05-05", "check_out": "2027-05-08", "nights": 2},
            "disagree",
        ),
        ("activity_search", {}, "city, or latitude"),
        ("activity_search", {"latitude": 95, "longitude": 0}, "latitude"),
        ("weather_forecast", {"city": "Oslo", "start_date": "2027-03-20", "days": 10}, "16 days"),
        ("location_search", {"keyword": "a"}, "keyword"),
        ("cheapest_dates", {"origin": "Paris", "destination": "CDG"}, "same place"),
    ],
)
def test_bad_params_are_clear_errors(tool: str, params: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ToolValidationError) as info:
        runner().validate(tool, params)
    assert fragment in info.value.message and info.value.code == "invalid_tool_params"


def test_unknown_city_has_its_own_code() -> None:
    with pytest.raises(UnknownLocationError) as info:
        runner().validate("hotel_search", {"city": "Zzyzxville", "check_in": "2027-05-05"})
    assert info.value.code == "unknown_location" and "Zzyzxville" in info.value.message


def test_unknown_tool_and_wrong_shape() -> None:
    with pytest.raises(ToolNotFoundError):
        runner().validate("teleport", {})
    with pytest.raises(ToolValidationError):
        runner().validate("flight_search", ["LON", "PAR"])


def test_hotel_nights_and_activity_coordinates_are_filled_in() -> None:
    h = runner().validate("hotel_search", {"city": "Lisbon", "check_in": "2027-05-05", "nights": 3})
    dumped = h.model_dump(mode="json")
    assert dumped["check_out"] == "2027-05-08" and dumped["city"] == "LIS"
    a = runner().validate("activity_search", {"city": "barcelona"}).model_dump()
    assert abs(a["latitude"] - 41.39) < 0.2 and a["city"] == "Barcelona"


def test_schemas_describe_every_parameter() -> None:
    for spec in TOOLS.values():
        schema = spec.params.model_json_schema()
        assert schema["type"] == "object" and schema["properties"]
        assert schema.get("additionalProperties") is False
