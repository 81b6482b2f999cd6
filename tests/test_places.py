"""The place catalogue and place extraction, pure: the real gazetteer data, no model."""

from __future__ import annotations

import datetime as dt

import pytest

from connectors.places import LocationCatalogue
from rag.routing.extract import extract

CAT = LocationCatalogue.load()
TODAY = dt.date(2026, 11, 22)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Lisboa", "LIS"),
        ("München", "MUC"),
        ("Köln", "CGN"),
        ("Cologne", "CGN"),
        ("Firenze", "FLR"),
        ("Kansas City", "MCI"),
        ("Salt Lake City", "SLC"),
        ("Nairobi", "NBO"),
        ("Nueva York", "NYC"),
        ("Paris", "PAR"),
        ("Paris, Texas", "PRX"),
        ("Portland Maine", "PWM"),
        ("Portland", "PDX"),  # the bigger Portland
        ("Dallas", "DFW"),  # its international airport, not the nearest airfield
        ("Houston", "IAH"),
        ("Barcelonna", "BCN"),
    ],
)
def test_names_anywhere_resolve(text: str, code: str) -> None:
    place = CAT.resolve(text)
    assert place is not None and place.code == code, place


def test_a_town_without_an_airport_flies_from_the_nearest_commercial_one() -> None:
    place = CAT.resolve("Hounslow")
    assert place is not None and place.city_name == "Hounslow" and place.code == "LHR"
    assert 0 < place.airport_km < 30


def test_shared_names_follow_the_conversation_country_or_are_asked_about() -> None:
    spain = CAT.resolve("Valencia", country="ES")
    assert spain is not None and spain.country_code == "ES" and spain.code == "VLC"
    assert len(CAT.ambiguous("springfield")) >= 2
    assert CAT.ambiguous("paris") == []  # Paris, France, by far
    assert CAT.ambiguous("springfield", country="US") == []  # then the biggest in the country


def where(message: str) -> tuple[list[str], list[str], list[str]]:
    s = extract(message, CAT, TODAY)
    return [p.place.city_name for p in s.places], s.countries, s.unknown_places


@pytest.mark.parametrize(
    ("message", "cities"),
    [
        ("kansas city to las vegas economy", ["Kansas City", "Las Vegas"]),
        ("what is the least expensive fare from boston to salt lake city", ["Boston", "Salt Lake City"]),
        ("¿Qué puedo hacer en Lisboa con niños?", ["Lisbon"]),
        ("Wetter in München morgen", ["Munich"]),
        ("voos de Lisboa para Madrid amanhã", ["Lisbon", "Madrid"]),
        ("meteo a Firenze domani", ["Florence"]),
        ("what's on in Lisbon's old town", ["Lisbon"]),
        ("flights to Nice", ["Nice"]),
        ("weather in reading tomorrow", ["Reading"]),
        ("Lisbon or Porto?", ["Lisbon", "Porto"]),
        ("paris, texas weather", ["Paris"]),
    ],
)
def test_places_in_messages(message: str, cities: list[str]) -> None:
    assert where(message)[0] == cities


@pytest.mark.parametrize(
    "message",
    [
        "that's nice, thanks",
        "split the bill",
        "I like reading books",
        "¿Cómo estás?",
        "play a song by jackson",
        "Find Me A Cheap Hotel",
        "hotel en Lisboa del 12 al 15 de mayo",  # "del" is not Delhi, "mayo" no airport town
    ],
)
def test_everyday_words_are_not_places(message: str) -> None:
    cities = where(message)[0]
    assert cities in ([], ["Lisbon"]), cities


def test_unknown_places_after_a_locative_are_reported_by_name() -> None:
    assert where("hotels in Zzyzx next week")[2] == ["Zzyzx"]
    assert where("what will the weather be in Lagunitas")[2] == ["Lagunitas"]
    assert where("hotel in the centre")[2] == []  # everyday words are not unknown places


def test_countries_in_our_languages() -> None:
    assert where("What's nice to do in Portugal?")[1] == ["PT"]
    assert where("viaje a Alemania")[1] == ["DE"]
    assert where("vacances en Allemagne")[1] == ["DE"]


def test_texas_qualifies_paris() -> None:
    s = extract("weather in Paris, Texas tomorrow", CAT, TODAY)
    assert [p.place.country_code for p in s.places] == ["US"]


def test_a_name_alone_answers_which_city_and_seasons_are_not_towns() -> None:
    assert where("London")[0] == ["London"]
    assert where("Porto")[0] == ["Porto"]
    assert where("Is Porto nice in spring?")[0] == ["Porto"]


def test_short_names_are_folded_once_and_long_texts_every_time() -> None:
    from connectors.places import gazetteer

    gazetteer._fold_kept.cache_clear()
    for _ in range(3):
        assert gazetteer.fold("São-Paulo") == "sao paulo"
    assert gazetteer._fold_kept.cache_info().misses == 1 and gazetteer._fold_kept.cache_info().hits == 2
    long = "Rua Augusta, São Paulo. " * 10  # a message's text: folded as before, not kept
    assert gazetteer.fold(long) == " ".join(["rua augusta, sao paulo"] * 10)
    assert gazetteer._fold_kept.cache_info().currsize == 1
