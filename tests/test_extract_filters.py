"""What a message narrows a search to: the kind of place (activity_search's category) and the airline
(flight_search's airline), read by the extractor in our six languages, and the parameters that take
them. Pure."""

from __future__ import annotations

import datetime as dt
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from connectors.airlines import AIRLINES, resolve_airline
from connectors.params import ActivityCategory, ActivitySearchParams, FlightSearchParams
from connectors.places import LocationCatalogue
from connectors.sandbox.airlines import CARRIERS
from rag.routing.extract import extract
from rag.tools.catalog import ToolCatalogue

TODAY = dt.date(2026, 11, 21)
CAT = LocationCatalogue.load()
CONTEXT: dict[str, Any] = {"catalogue": CAT, "today": TODAY}


@pytest.mark.parametrize(
    ("text", "lang", "category"),
    [
        ("How about a Museum?", "en", "museum"),
        ("any art galleries around there?", "en", "museum"),
        ("¿Y un museo?", "es", "museum"),
        ("Et un musée ?", "fr", "museum"),
        ("Wie wäre es mit einem Museum?", "de", "museum"),
        ("E um museu?", "pt", "museum"),
        ("E un museo?", "it", "museum"),
        ("a park", "en", "park"),
        ("show me some gardens", "en", "park"),
        ("¿Hay algún parque?", "es", "park"),
        ("un jardin botanique", "fr", "park"),
        ("einen schönen Garten", "de", "park"),
        ("um jardim", "pt", "park"),
        ("un parco", "it", "park"),
        ("a place of worship", "en", "religious"),
        ("a church or a temple", "en", "religious"),
        ("any mosques?", "en", "religious"),
        ("una iglesia", "es", "religious"),
        ("une église", "fr", "religious"),
        ("eine Kirche", "de", "religious"),
        ("uma igreja", "pt", "religious"),
        ("una chiesa", "it", "religious"),
        ("a performing arts venue", "en", "performing_arts"),
        ("a theatre or a concert", "en", "performing_arts"),
        ("un teatro", "es", "performing_arts"),
        ("un concert", "fr", "performing_arts"),
        ("ein Konzert", "de", "performing_arts"),
        ("um teatro", "pt", "performing_arts"),
        ("un concerto", "it", "performing_arts"),
        ("a theme park", "en", "amusement"),
        ("an amusement park", "en", "amusement"),
        ("a zoo", "en", "amusement"),
        ("an aquarium for the kids", "en", "amusement"),
        ("un parque de atracciones", "es", "amusement"),
        ("un parc d'attractions", "fr", "amusement"),
        ("einen Freizeitpark", "de", "amusement"),
        ("um aquário", "pt", "amusement"),
        ("un acquario", "it", "amusement"),
        ("a sports venue", "en", "sports"),
        ("what about the stadiums?", "en", "sports"),
        ("un estadio", "es", "sports"),
        ("un stade", "fr", "sports"),
        ("ein Stadion", "de", "sports"),
        ("um estádio", "pt", "sports"),
        ("uno stadio", "it", "sports"),
        ("a historical spot", "en", "historic"),
        ("a historic monument", "en", "historic"),
        ("un castillo", "es", "historic"),
        ("un château", "fr", "historic"),
        ("eine Burg", "de", "historic"),
        ("um castelo", "pt", "historic"),
        ("un castello", "it", "historic"),
        ("famous landmarks", "en", "landmark"),
        ("a viewpoint", "en", "landmark"),
        ("un mirador", "es", "landmark"),
        ("un point de vue", "fr", "landmark"),
        ("einen Aussichtspunkt", "de", "landmark"),
        ("um miradouro", "pt", "landmark"),
        ("un belvedere", "it", "landmark"),
    ],
)
def test_kinds_of_place_in_six_languages(text: str, lang: str, category: str) -> None:
    assert extract(text, CAT, TODAY, lang=lang).category == category


@pytest.mark.parametrize(
    "text",
    [
        "find attractions in London",
        "things to do in Paris",
        "Sehenswürdigkeiten in Berlin",
        "where can I park the car?",
        "a hotel with a car park",
        "something more child friendly",
        "no entrance fee",
        "flights to Rome on December 3",
        "Is this museum child-friendly?",
        "What's the address of the museum?",
        "¿Cuánto cuesta la entrada a este museo?",
    ],
)
def test_general_words_and_places_already_found_name_no_kind(text: str) -> None:
    assert extract(text, CAT, TODAY).category is None


@pytest.mark.parametrize(
    ("text", "lang", "airline"),
    [
        ("I'd rather fly with United Airlines", "en", "UA"),
        ("I'd rather fly with United", "en", "UA"),
        ("find me a flight with American Airlines instead", "en", "AA"),
        ("preferably on Delta Airlines", "en", "DL"),
        ("a Delta flight would be better", "en", "DL"),
        ("I prefer Southwest Airlines", "en", "WN"),
        ("can we fly Southwest?", "en", "WN"),
        ("Alaska Airlines please", "en", "AS"),
        ("on KLM", "en", "KL"),
        ("easyJet to Paris", "en", "U2"),
        ("British Airways from London to Rome", "en", "BA"),
        ("vuelos con Iberia", "es", "IB"),
        ("avec Air France", "fr", "AF"),
        ("mit Lufthansa nach Berlin", "de", "LH"),
        ("com a TAP para Lisboa", "pt", "TP"),
        ("con ITA Airways", "it", "AZ"),
    ],
)
def test_airlines_by_name(text: str, lang: str, airline: str) -> None:
    assert extract(text, CAT, TODAY, lang=lang).airline == airline


@pytest.mark.parametrize(
    "text",
    [
        "flights to Alaska",
        "a trip to the United States",
        "a week in the United Arab Emirates",
        "a lot of museums",
        "I travel with Ana",
        "hotels in the southwest of France",
        "a cruise on the Mekong Delta",
        "American food near the hotel",
    ],
)
def test_everyday_words_are_no_airline(text: str) -> None:
    assert extract(text, CAT, TODAY).airline is None


def test_an_airline_is_no_place() -> None:
    slots = extract("fly with Alaska Airlines from Seattle to Denver on December 3", CAT, TODAY)
    assert slots.airline == "AS" and not slots.unknown_places
    assert slots.origin and slots.origin.place.code == "SEA"
    assert slots.destination and slots.destination.place.code == "DEN"


def test_the_airline_table_knows_every_carrier_the_sandbox_flies() -> None:
    assert set(CARRIERS) <= set(AIRLINES)
    for code, name in CARRIERS.items():
        assert resolve_airline(name) == code, name


@pytest.mark.parametrize(
    ("given", "code"),
    [("United Airlines", "UA"), ("united", "UA"), ("Delta Airlines", "DL"), ("u2", "U2"), ("WY", "WY")],
)
def test_a_flight_search_takes_an_airline_by_name_or_code(given: str, code: str) -> None:
    raw = {"origin": "Boston", "destination": "Denver", "departure_date": "2026-12-03", "airline": given}
    assert FlightSearchParams.model_validate(raw, context=CONTEXT).airline == code


def test_an_unknown_airline_or_kind_of_place_is_refused() -> None:
    raw = {"origin": "Boston", "destination": "Denver", "departure_date": "2026-12-03"}
    with pytest.raises(ValidationError, match="unknown airline: Oceanic Airlines"):
        FlightSearchParams.model_validate(raw | {"airline": "Oceanic Airlines"}, context=CONTEXT)
    with pytest.raises(ValidationError, match="category"):
        ActivitySearchParams.model_validate({"city": "Rome", "category": "nightlife"}, context=CONTEXT)
    offered = str(ActivitySearchParams.model_json_schema()["properties"]["category"])  # what an LLM sees
    assert all(f"'{c}'" in offered for c in get_args(ActivityCategory))


def test_the_tools_read_the_slots_for_one_search_only() -> None:
    tools = ToolCatalogue.builtin()
    assert tools["activity_search"].routing["params"]["category"] == "category"
    assert tools["flight_search"].routing["params"]["airline"] == "airline"
    assert "category" not in tools["activity_search"].from_trip
    assert "airline" not in tools["flight_search"].from_trip
