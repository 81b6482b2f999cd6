"""Airport & City Search, pure: match a keyword against the destination cities and every IATA airport."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from connectors.sandbox.data import (
    Airport,
    Catalogue,
    City,
    amadeus_airport_name,
    amadeus_region_code,
    country_name,
    fold,
    plain,
)
from connectors.sandbox.geo import format_offset, utc_offset
from connectors.sandbox.rng import unit


@dataclass(frozen=True, slots=True)
class Entry:
    """One searchable location: a CITY or an AIRPORT, with the folded strings a keyword can match."""

    sub_type: str
    iata: str
    name: str
    city_name: str
    city_code: str
    country_code: str
    latitude: float
    longitude: float
    timezone: str
    score: int
    prefixes: tuple[str, ...]  # a keyword matches when one of these starts with it


def city_score(city: City) -> int:
    return max(1, min(100, round((math.log10(city.population) - 4.5) * 25 + city.cost_level * 3)))


@lru_cache(maxsize=4)
def entries(cat: Catalogue) -> tuple[Entry, ...]:
    out: list[Entry] = []
    for city in cat.cities:
        names = (fold(city.name), *(fold(a) for a in city.aliases))
        out.append(
            Entry(
                "CITY",
                city.city_code,
                city.name.upper(),
                city.name.upper(),
                city.city_code,
                city.country_code,
                city.latitude,
                city.longitude,
                city.timezone,
                city_score(city),
                names,
            )  # fmt: skip
        )
    for airport in cat.airports.values():
        out.append(_airport_entry(cat, airport))
    return tuple(out)


def _airport_entry(cat: Catalogue, airport: Airport) -> Entry:
    owner = cat.airport_city.get(airport.iata)
    words = fold(airport.name).replace("-", " ").replace("/", " ").split()
    prefixes = [fold(airport.name), *words, fold(airport.city_name)]
    if owner is not None:
        rank = owner.airports.index(airport.iata)
        score = max(1, round(city_score(owner) * (0.7, 0.45, 0.3, 0.2, 0.15)[min(rank, 4)]))
        prefixes += [fold(owner.name), *(fold(a) for a in owner.aliases)]
        city_name, city_code = owner.name.upper(), owner.city_code
    else:
        score = 1 + int(unit("airport-score", airport.iata) * 6)
        city_name, city_code = plain(airport.city_name), airport.iata
    return Entry("AIRPORT", airport.iata, amadeus_airport_name(airport.name), city_name, city_code,
                 airport.country_code, airport.latitude, airport.longitude, airport.timezone, score,
                 tuple(dict.fromkeys(p for p in prefixes if p)))  # fmt: skip


def search(cat: Catalogue, keyword: str, sub_types: list[str]) -> list[Entry]:
    """Matches best first: exact IATA code, then traveller score, then name."""
    kw = fold(keyword)
    code = keyword.strip().upper()
    found = [
        e
        for e in entries(cat)
        if e.sub_type in sub_types and (e.iata == code or any(p.startswith(kw) for p in e.prefixes))
    ]
    found.sort(key=lambda e: (e.iata != code, -e.score, e.sub_type != "CITY", e.name))
    return found


def find(cat: Catalogue, location_id: str) -> Entry | None:
    """'CPAR' or 'ACDG': the id Amadeus gives each location."""
    kind = {"C": "CITY", "A": "AIRPORT"}.get(location_id[:1].upper())
    code = location_id[1:].upper()
    return next((e for e in entries(cat) if e.sub_type == kind and e.iata == code), None)


def item(e: Entry, base_url: str) -> dict[str, Any]:
    location_id = ("C" if e.sub_type == "CITY" else "A") + e.iata
    detailed = f"{e.city_name}/{e.country_code}" + ("" if e.sub_type == "CITY" else f":{e.name}")
    return {
        "type": "location",
        "subType": e.sub_type,
        "name": e.name,
        "detailedName": detailed,
        "id": location_id,
        "self": {"href": f"{base_url}/v1/reference-data/locations/{location_id}", "methods": ["GET"]},
        "timeZoneOffset": format_offset(utc_offset(e.timezone)),
        "iataCode": e.iata,
        "geoCode": {"latitude": e.latitude, "longitude": e.longitude},
        "address": {
            "cityName": e.city_name,
            "cityCode": e.city_code,
            "countryName": country_name(e.country_code).upper(),
            "countryCode": e.country_code,
            "regionCode": amadeus_region_code(e.country_code),
        },
        "analytics": {"travelers": {"score": e.score}},
    }
