"""The places package on what real traveller conversations got wrong: lodging words read as cities ("a
riad" as Riyadh), districts read as other cities ("Roma Norte" as Rome), states and regions ("Sydney,
NSW", "Maine"), reactions read as cities ("Nice."), names in our other languages, airports by name.
Pure: the real catalogue (gazetteer, districts, regions), no model."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pycountry
import pytest
import yaml
from aiohttp.test_utils import TestClient

import connectors.sandbox.data as sandbox_data
from connectors.places import City, LocationCatalogue, Mentions, Place, find_places
from connectors.places.airports import AIRPORTS_PATH
from connectors.places.districts import DISTRICTS_PATH, GUIDE_DISTRICTS_PATH
from connectors.places.regions import REGIONS_PATH
from rag.routing.extract import extract
from scripts.guide_districts import GUIDES, guide_districts, render

CAT = LocationCatalogue.load()
TODAY = dt.date(2026, 11, 22)


def found(text: str, country: str | None = None, near: str | None = None) -> Mentions:
    return find_places(text, CAT, [], country, near=near)


def codes(text: str, country: str | None = None, near: str | None = None) -> list[str]:
    return [p.place.city_code for p in found(text, country, near).places]


# 1. Where one sleeps is not where one goes.


@pytest.mark.parametrize(
    ("message", "cities"),
    [
        ("Find me a riad there from the 3rd to the 8th of June", []),
        ("a riad in Marrakech, please", ["RAK"]),
        ("Stay at Riad Yasmine in Marrakech", ["RAK"]),
        ("I'd love a ryokan in Kyoto", ["UKY"]),
        ("We need a flat for four", []),
        ("a house near the beach", []),
        ("cheapest hostel you can find", []),
        ("is there a B&B nearby?", []),
        ("Busco un piso en Madrid", ["MAD"]),
        ("Wir suchen eine Ferienwohnung in Berlin", ["BER"]),
        ("Cerco un appartamento a Firenze", ["FLR"]),
        ("Queremos uma casa perto da praia", []),
        ("On cherche un gîte pour le week-end", []),
        ("Reservar una pousada", []),
        ("Quero uma pousada em Lisboa", ["LIS"]),
        ("Find Me A Riad There", []),
    ],
)
def test_lodging_words_are_not_places(message: str, cities: list[str]) -> None:
    assert codes(message) == cities


def test_a_lodging_word_written_as_a_place_after_a_locative_is_one() -> None:
    assert codes("flights to Riad next week") == ["RUH"]  # Riyadh's Spanish and German name
    assert codes("I fly from Casa tomorrow") == ["CAS"]
    assert codes("book a Riad in Fes") == ["FEZ"]


def test_lodging_words_are_no_unknown_places_through_the_extractor() -> None:
    slots = extract("Find me a riad there from the 3rd to the 8th of June", CAT, TODAY)
    assert slots.places == [] and slots.unknown_places == []
    assert slots.start_date is not None


# 2. Districts resolve to their city, their name kept.


@pytest.mark.parametrize(
    ("message", "city", "district"),
    [
        ("Hotel in Roma Norte", "MEX", "Roma Norte"),
        ("Somewhere to stay in Shinjuku", "TYO", "Shinjuku"),
        ("Hotels in Kowloon", "HKG", "Kowloon"),
        ("a room in Manhattan", "NYC", "Manhattan"),
        ("Hotel in Ipanema", "RIO", "Ipanema"),
        ("near the V&A Waterfront", "CPT", "V&A Waterfront"),
        ("something in Trastevere", "ROM", "Trastevere"),
        ("a flat in Kreuzberg", "BER", "Kreuzberg"),
        ("staying in Le Marais", "PAR", "Le Marais"),
        ("hotel in Alfama", "LIS", "Alfama"),
        ("Busco hotel en Palermo Soho", "BUE", "Palermo Soho"),
        ("Ein Hotel in Schwabing", "MUC", "Schwabing"),
        ("Un hôtel dans le Marais", "PAR", "Le Marais"),
        ("Um hotel em Copacabana", "RIO", "Copacabana"),
        ("Un albergo a Trastevere", "ROM", "Trastevere"),
        ("Hotel in Gangnam", "SEL", "Gangnam"),
    ],
)
def test_districts_are_their_city(message: str, city: str, district: str) -> None:
    mentions = found(message)
    assert [(p.place.city_code, p.district) for p in mentions.places] == [(city, district)]
    assert mentions.unknown == []


def test_districts_that_are_everyday_words_count_written_as_names() -> None:
    assert codes("a room in the Mission") == ["SFO"]
    assert codes("we are on a mission in the mission district of our lives") == []
    assert codes("spend a day at the lido") == []


def test_a_district_mention_holds_its_citys_place() -> None:
    mention = found("Hotel in Roma Norte").places[0]
    assert mention.place == CAT.resolve("Mexico City")
    assert mention.text == "Roma Norte" and mention.place.kind == "city"


def test_a_name_a_city_and_a_district_share_is_the_city_unless_the_trip_is_there() -> None:
    assert codes("A hotel in Palermo") == ["PMO"]
    assert codes("A hotel in Palermo", near="BUE") == ["BUE"]
    assert codes("A hotel in Palermo", country="AR") == ["BUE"]
    assert codes("Palermo, Buenos Aires") == ["BUE"]
    assert codes("A hotel in Palermo", near="ROM") == ["PMO"]
    assert codes("Hotel in Roma") == ["ROM"]
    assert codes("Hotel in Roma", near="MEX") == ["MEX"]
    assert codes("vuelos a Praga") == ["PRG"]  # Prague, though Warsaw has a Praga


def test_districts_of_two_cities_are_asked_about_until_the_trip_settles_which() -> None:
    mentions = found("a room in Soho")
    assert {p.city_code for p in mentions.ambiguous["Soho"]} == {"LON", "NYC"}
    assert codes("a room in Soho", near="NYC") == ["NYC"]
    settled = found("a room in Soho, London")
    assert [p.place.city_code for p in settled.places] == ["LON"] and settled.ambiguous == {}


def test_the_catalogue_resolves_districts_for_the_tools() -> None:
    place = CAT.resolve("Roma Norte")
    assert place is not None and place.city_code == "MEX"
    place = CAT.resolve("Palermo", near="BUE")
    assert place is not None and place.city_code == "BUE"
    place = CAT.resolve("Westminster, Colorado")
    assert place is not None and place.country_code == "US"


def test_the_extractor_reads_the_trips_city() -> None:
    slots = extract("A hotel in Palermo from the 3rd to the 8th of June", CAT, TODAY, near="BUE")
    assert slots.destination is not None and slots.destination.place.city_code == "BUE"
    assert slots.destination.district == "Palermo"


# 3. States and regions say which city, and alone are no town.


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Portland, Maine", "PWM"),
        ("Portland ME", "PWM"),
        ("Sydney, NSW", "SYD"),
        ("Sydney NSW", "SYD"),
        ("Washington DC", "WAS"),
        ("Washington, D.C.", "WAS"),
        ("Paris, Texas", "PRX"),
        ("Perth, WA", "PER"),
        ("London, Ontario", "YXU"),
        ("Melbourne, VIC", "MEL"),
        ("Florence, Tuscany", "FLR"),
    ],
)
def test_a_state_or_region_after_a_name_says_which(text: str, code: str) -> None:
    place = CAT.resolve(text)
    assert place is not None and place.city_code == code, place
    mentions = found(f"hotels in {text} next week")
    assert [(p.place.city_code, p.text) for p in mentions.places] == [(code, text)]


def test_washington_dc_is_the_capital_with_its_airports() -> None:
    place = CAT.resolve("Washington, D.C.")
    assert place is not None and place.code == "WAS" and {"IAD", "DCA"} <= set(place.airports)
    assert codes("Washington") == ["WAS"]


@pytest.mark.parametrize(
    ("message", "region"),
    [
        ("Hotels in Maine", "US-ME"),
        ("a road trip through Texas", "US-TX"),
        ("Washington State in May", "US-WA"),
        ("a week in Tasmania", "AU-TAS"),
        ("hotels in Tuscany", "IT-52"),
        ("vacances en Toscane", "IT-52"),
        ("Urlaub in Bayern", "DE-BY"),
        ("vacaciones en Andalucía", "ES-AN"),
        ("férias na Sicília", "IT-82"),
        ("Kalifornien im Sommer", "US-CA"),
    ],
)
def test_a_region_alone_is_a_region_not_a_town(message: str, region: str) -> None:
    mentions = found(message)
    assert mentions.places == [] and [r.code for r in mentions.regions] == [region]
    assert mentions.unknown == []


def test_a_region_is_no_place_for_the_tools() -> None:
    assert CAT.resolve("Maine") is None  # not Des Plaines, which some gazetteer lists as "Maine"
    assert CAT.resolve("Tuscany") is None  # not a suburb of Calgary


def test_georgia_is_the_country_unless_the_trip_is_american() -> None:
    assert found("a trip to Georgia in spring").countries == ["GE"]
    us = found("a trip to Georgia in spring", country="US")
    assert us.countries == [] and [r.code for r in us.regions] == ["US-GA"]


def test_cities_named_like_states_stay_cities() -> None:
    assert codes("flights to Quebec") == ["YQB"]
    assert codes("New York in December") == ["NYC"]


# 4. A reaction is no answer unless a place was asked for.


@pytest.mark.parametrize("message", ["Nice.", "Nice!", "Great, nice", "nice", "Nice!!"])
def test_nice_alone_is_a_reaction(message: str) -> None:
    assert codes(message) == []
    assert extract(message, CAT, TODAY, lang="fr").places == []  # the rules alone, as in French


def test_nice_answers_when_a_place_was_asked_for() -> None:
    assert [p.place.code for p in find_places("Nice.", CAT, [], expecting=True).places] == ["NCE"]
    slots = extract("Nice!", CAT, TODAY, asked=["destination"])
    assert [p.place.code for p in slots.places] == ["NCE"]
    assert codes("flights to Nice") == ["NCE"]
    assert codes("Cambiamo: Nizza, stesse date") == ["NCE"]
    assert codes("Porto") == ["OPO"]  # a name alone that is no reaction still answers "which city?"


# 5. Names in our other languages.


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Le Caire", "CAI"),
        ("Nizza", "NCE"),
        ("Cidade do Cabo", "CPT"),
        ("Nueva York", "NYC"),
        ("Londra", "LON"),
        ("Parigi", "PAR"),
        ("Tokio", "TYO"),
        ("Istambul", "IST"),
        ("Ciudad de México", "MEX"),
        ("Bruxelles", "BRU"),
        ("Genève", "GVA"),
        ("Zürich", "ZRH"),
        ("Málaga", "AGP"),
        ("Sevilla", "SVQ"),
        ("Nápoles", "NAP"),
        ("Napoli", "NAP"),
        ("Wien", "VIE"),
    ],
)
def test_other_language_names(name: str, code: str) -> None:
    place = CAT.resolve(name)
    assert place is not None and place.city_code == code
    slots = extract(f"voy a {name} en mayo", CAT, TODAY, lang="es")
    assert [p.place.city_code for p in slots.places] == [code]


# The IATA cities travellers' conversations named.


@pytest.mark.parametrize(
    ("text", "code", "city_code"),
    [
        ("Washington DC", "WAS", "WAS"),
        ("New York", "NYC", "NYC"),
        ("NYC", "NYC", "NYC"),
        ("São Paulo", "SAO", "SAO"),
        ("Sao Paulo", "SAO", "SAO"),
        ("Zanzibar", "ZNZ", "ZNZ"),
        ("Cusco", "CUZ", "CUZ"),
        ("Cancún", "CUN", "CUN"),
        ("Eindhoven", "EIN", "EIN"),
        ("Jakarta", "JKT", "JKT"),
        ("Brisbane", "BNE", "BNE"),
        ("Kansai airport", "KIX", "OSA"),
        ("Haneda", "HND", "TYO"),
        ("Heathrow", "LHR", "LON"),
        ("aeropuerto de Barajas", "MAD", "MAD"),
        ("JFK", "JFK", "NYC"),
    ],
)
def test_iata_cities(text: str, code: str, city_code: str) -> None:
    place = CAT.resolve(text)
    assert place is not None and (place.code, place.city_code) == (code, city_code), place
    mentions = found(f"from {text} on Monday")
    assert [(p.place.code, p.place.city_code) for p in mentions.places] == [(code, city_code)]


def test_queenstown_is_new_zealands_on_a_trip_there() -> None:
    place = CAT.resolve("Queenstown", country="NZ")
    assert place is not None and place.code == "ZQN"
    assert codes("Queenstown", near="AKL") == ["ZQN"]
    assert [p.place.code for p in found("Queenstown, New Zealand").places] == ["ZQN"]


# The data the package reads.


def test_every_districts_city_is_in_the_catalogue() -> None:
    cities: dict[str, dict[str, object]] = yaml.safe_load(DISTRICTS_PATH.read_text(encoding="utf-8"))
    cities |= json.loads(GUIDE_DISTRICTS_PATH.read_text(encoding="utf-8"))["cities"]
    assert len(cities) >= 100
    for code, row in cities.items():
        place = CAT.city_place(code, str(row["city"]))
        assert place is not None, code
        assert place.city_code == code or place.city_name == CAT.resolve(str(row["city"])).city_name  # type: ignore[union-attr]


def test_the_guides_neighbourhoods_are_current() -> None:
    """Run scripts/guide_districts.py after changing a guide's "## Neighbourhoods"."""
    assert GUIDE_DISTRICTS_PATH.read_text(encoding="utf-8") == render(guide_districts(GUIDES, CAT))


def test_regions_and_airports_data() -> None:
    for code, row in yaml.safe_load(REGIONS_PATH.read_text(encoding="utf-8"))["regions"].items():
        assert pycountry.subdivisions.get(code=code) is not None, code
        assert CAT.regions.regions[code].admin1, (code, row)
    for code in yaml.safe_load(AIRPORTS_PATH.read_text(encoding="utf-8")):
        assert CAT.airport(code) is not None, code


def test_the_sandbox_uses_the_packages_cities_and_places() -> None:
    assert sandbox_data.City is City and sandbox_data.Place is Place
    place = sandbox_data.load_catalogue().resolve("KIX")
    assert place is not None and place.city_code == "OSA" and place.airports == ("KIX",)


# Through the real app: the conversation's trip is the hint.


async def _post(client: TestClient, path: str, user: str, message: str) -> dict[str, Any]:
    resp = await client.post(path, json={"user_id": user, "message": message})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


@pytest.mark.asyncio(loop_scope="module")
async def test_in_a_conversation_the_trips_city_settles_districts_and_lodging(
    shared_tools_client: TestClient,
) -> None:
    start = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=40)
    end = start + dt.timedelta(days=3)
    dates = f"from {start:%B} {start.day} to {end:%B} {end.day}"
    await _post(shared_tools_client, "/v1/chat", "pia", f"I'm flying to Buenos Aires {dates}")
    routed = await _post(shared_tools_client, "/v1/route", "pia", "Find me a hotel in Palermo")
    assert [t["params"].get("city") for t in routed["tools"]] == ["BUE"], routed
    await _post(shared_tools_client, "/v1/chat", "rui", f"I'm flying to Marrakech {dates}")
    routed = await _post(shared_tools_client, "/v1/route", "rui", "Find me a riad there")
    # No Riyadh: "riad" is where to sleep ("there", Marrakech); whether it asks for a hotel search is
    # the routing's vocabulary, not the places'.
    assert [t["params"].get("city") for t in routed["tools"]] in ([], ["RAK"]), routed
    assert "RUH" not in json.dumps(routed)
