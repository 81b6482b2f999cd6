"""The place catalogue: what a traveller writes ("new york", "Lisboa", "LHR", "Zurik", "Paris, Texas") to
a place with an IATA code.

Built on the gazetteer (connectors.places.gazetteer: every city of 15,000 people or more, every airport,
every country) with the destination cities of seed_data/sandbox/cities.json on top (their metropolitan
codes, currencies and price levels). A city without an airport of its own gets its nearest commercial
airport's code, for flights. Ambiguous names go to the bigger city, or to one in the conversation's
country. Pure look-ups over in-memory data, loaded once.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rapidfuzz import fuzz, process

from connectors.geo import haversine_km
from connectors.places import gazetteer
from connectors.places.gazetteer import Gazetteer, GeoCity, fold

CITIES_PATH = Path(__file__).resolve().parents[2] / "seed_data" / "sandbox" / "cities.json"


__all__ = ["City", "LocationCatalogue", "Place", "fold", "haversine_km"]

# Short names travellers write for big cities, beside those the destination catalogue lists.
ABBREVIATIONS = {
    "ny": "new york",
    "nyc": "new york",
    "sd": "san diego",
    "sf": "san francisco",
    "dc": "washington",
    "philly": "philadelphia",
    "cdmx": "mexico city",
    "kl": "kuala lumpur",
    "hk": "hong kong",
}


@dataclass(frozen=True, slots=True)
class City:
    name: str
    country: str
    country_code: str
    city_code: str
    airports: tuple[str, ...]
    latitude: float
    longitude: float
    timezone: str
    population: int
    currency: str
    cost_level: int
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved location: an IATA code and where it is."""

    code: str
    kind: Literal["city", "airport"]
    name: str
    city_name: str
    city_code: str
    country_code: str
    latitude: float
    longitude: float
    timezone: str
    population: int = 0
    # For a town without an airport of its own: how far the airport its code names is.
    airport_km: float = 0.0
    known: bool = True  # a destination city of the catalogue (cities.json), with a travel guide's fame

    @property
    def label(self) -> str:
        return f"{self.name} ({self.code})" if self.kind == "airport" else f"{self.city_name} ({self.code})"


PROMINENT_POPULATION = 250_000  # a city this big is a place even when its name is a word
FUZZY_MIN_POPULATION = 300_000  # misspellings are matched against these cities' names only


class LocationCatalogue:
    def __init__(self, cities: list[City], gaz: Gazetteer) -> None:
        self.cities = cities
        self.gazetteer = gaz
        self._by_code = {c.city_code: c for c in cities}
        self._airport_city = {a: c for c in cities for a in c.airports}
        names: dict[str, City] = {}
        for c in sorted(cities, key=lambda c: c.population):  # bigger cities win shared names
            for n in (c.name, *c.aliases):
                names[fold(n)] = c
        self._names = names
        # Airports by the folded name of the city they serve; towns below the gazetteer's size included.
        by_city: dict[str, list[str]] = {}
        for code, a in gaz.airports.items():
            key = fold(a.city_name)
            if key and a.commercial:
                by_city.setdefault(key, []).append(code)
        for codes in by_city.values():
            codes.sort(key=lambda code: -_airport_rank(gaz.airports[code].name))
        self._airports_named = by_city
        self._geo_places: dict[int, Place] = {}
        fuzzy = set(names) | {
            fold(c.name) for c in gaz.cities.values() if c.population >= FUZZY_MIN_POPULATION
        }
        self.fuzzy_names = tuple(sorted(k for k in fuzzy if len(k) >= 5))

    @classmethod
    def load(cls, path: Path = CITIES_PATH) -> LocationCatalogue:
        return _load(path)

    # Names

    def is_name(self, folded: str) -> bool:
        """Whether a folded name (see ``fold``) names a city or a town with an airport. A state's or a
        country's name ("Maine", "Mexico") names a city only when it is that city's own name."""
        folded = ABBREVIATIONS.get(folded, folded)
        if folded in self._names:
            return True
        if folded in self.gazetteer.us_states or folded in self.gazetteer.country_names:
            return any(self.gazetteer.is_primary(folded, c) for c in self.gazetteer.candidates(folded))
        return folded in self.gazetteer.names or folded in self._airports_named

    def is_destination_name(self, folded: str) -> bool:
        """Whether a folded name is a name or alias of one of the catalogue's destination cities."""
        return folded in self._names

    def country_code(self, folded: str) -> str | None:
        """The ISO code of the country a folded name names, in any of our six languages."""
        return self.gazetteer.country_names.get(folded)

    def lookup(self, folded: str, country: str | None = None) -> list[Place]:
        """The places an exact folded name can mean, best first: in ``country`` when one is, then the
        catalogue's destination city, then the biggest city (its own name counting double)."""
        folded = ABBREVIATIONS.get(folded, folded)
        out: list[Place] = []
        seen: set[tuple[str, str, int, int]] = set()

        def add(place: Place) -> None:
            key = (place.city_name, place.country_code, round(place.latitude), round(place.longitude))
            if key not in seen:
                seen.add(key)
                out.append(place)

        if folded in self._names:
            add(self._city_place(self._names[folded]))
        for geo in self.gazetteer.candidates(folded):
            add(self._geo_place(geo))
        if not out and folded in self._airports_named:
            add(self._airport_place(self._airports_named[folded][0]))
        if country:
            # The conversation's country settles names comparable places share ("Valencia" after Madrid),
            # not one a far bigger city bears ("Vancouver" is in Canada, even on a trip to Portland).
            biggest = max((p.population for p in out), default=0)
            out.sort(key=lambda p: p.country_code != country.upper() or p.population * 5 < biggest)
        return out

    def resolve(self, text: str, country: str | None = None) -> Place | None:
        """The city or airport ``text`` names, or None. Codes first, then names ("Paris, Texas" and
        "Portland Maine" too), then misspellings of well-known cities."""
        raw = text.strip()
        if not raw:
            return None
        if len(raw) == 3 and raw.isalpha():
            place = self._by_iata(raw.upper())
            if place:
                return place
        key = fold(raw)
        found = self.lookup(key, country)
        if found:
            return found[0]
        qualified = self._qualified(key)
        if qualified is not None:
            return qualified
        match = process.extractOne(key, self.fuzzy_names, scorer=fuzz.ratio, score_cutoff=85)
        if match:
            found = self.lookup(match[0], country)
            return found[0] if found else None
        return None

    def ambiguous(self, folded: str, country: str | None = None) -> list[Place]:
        """Two or more comparably big places a name can mean, when nothing settles which (no destination
        city of ours, no conversation country, neither more than twice the other's size); else []."""
        folded = ABBREVIATIONS.get(folded, folded)
        found = self.lookup(folded, country)
        # A place whose own name it is outranks places that merely list it among other names ("San
        # Diego" is San Diego, not a Madrid that some gazetteer entry also calls so).
        own = [p for p in found if fold(p.city_name) == folded]
        if len(own) == 1:
            return []
        found = own or found
        if len(found) < 2 or found[0].known or (country and found[0].country_code == country.upper()):
            return []
        first, second = found[0], found[1]
        if first.population > 2 * second.population:
            return []
        return [p for p in found[:3] if p.population * 2 >= first.population]

    def qualified(self, name: str, qualifier: str) -> Place | None:
        """The place a folded name means in a folded US state or country ("paris", "texas")."""
        state = self.gazetteer.us_states.get(qualifier)
        country = self.gazetteer.country_names.get(qualifier)
        if state is None and country is None:
            return None
        for geo in self.gazetteer.candidates(name):
            if (state and geo.country_code == "US" and geo.admin1_code == state) or (
                country and geo.country_code == country
            ):
                return self._geo_place(geo)
        return None

    def _qualified(self, key: str) -> Place | None:
        """ "paris texas", "paris, texas", "portland or", "london canada": a name and its state or country."""
        words = key.replace(",", " ").split()
        for cut in range(len(words) - 1, 0, -1):
            place = self.qualified(" ".join(words[:cut]), " ".join(words[cut:]))
            if place is not None:
                return place
        return None

    # Codes

    def city(self, code: str) -> City | None:
        return self._by_code.get(code.upper())

    def city_of_airport(self, code: str) -> City | None:
        return self._airport_city.get(code.upper())

    def airport(self, code: str) -> gazetteer.Airport | None:
        return self.gazetteer.airports.get(code.upper())

    def nearest_city(self, latitude: float, longitude: float) -> tuple[City, float]:
        """The catalogue's destination city closest to a point, and its distance in km."""
        best = min(self.cities, key=lambda c: haversine_km(latitude, longitude, c.latitude, c.longitude))
        return best, haversine_km(latitude, longitude, best.latitude, best.longitude)

    def _by_iata(self, code: str) -> Place | None:
        if code in self._by_code:
            return self._city_place(self._by_code[code])
        if code in self.gazetteer.airports:
            return self._airport_place(code)
        return None

    # Places

    def _city_place(self, c: City) -> Place:
        return Place(
            c.city_code,
            "city",
            c.name,
            c.name,
            c.city_code,
            c.country_code,
            c.latitude,
            c.longitude,
            c.timezone,
            population=c.population,
        )

    def _geo_place(self, geo: GeoCity) -> Place:
        """A gazetteer city as a place: the catalogue's own city when it is one, else the city's own
        airport's code, else (a town without one) its nearest commercial airport's."""
        cached = self._geo_places.get(geo.geoname_id)
        if cached is not None:
            return cached
        own = fold(geo.name)
        for c in self.cities:
            if c.country_code == geo.country_code and (
                own in {fold(n) for n in (c.name, *c.aliases)}
                or haversine_km(geo.latitude, geo.longitude, c.latitude, c.longitude) < 10
            ):
                place = self._city_place(c)
                break
        else:
            code, km = self._airport_for(geo)
            place = Place(
                code,
                "city",
                geo.name,
                geo.name,
                code,
                geo.country_code,
                geo.latitude,
                geo.longitude,
                geo.timezone,
                population=geo.population,
                airport_km=km,
                known=False,
            )
        self._geo_places[geo.geoname_id] = place
        return place

    def _airport_for(self, geo: GeoCity) -> tuple[str, float]:
        """The airport a city's flights use, and how far it is (0 when it is the city's own): its own
        airports first (named after it, international ones first), else the nearest major one."""
        gaz, own = self.gazetteer, fold(geo.name)
        near = gaz.commercial.within(geo.latitude, geo.longitude, 60)

        def serves(a: gazetteer.Airport) -> bool:
            served = fold(a.city_name)
            return geo.geoname_id in gaz.names.get(served, ()) or f" {own} " in f" {served} "

        mine = [(a, km) for a, km in near if a.country_code == geo.country_code and serves(a)]
        if mine:
            mine.sort(
                key=lambda p: (not gazetteer.international(p[0].name), own not in fold(p[0].name), p[1])
            )
            return mine[0][0].iata, 0.0
        for max_km in (250.0, 800.0):
            found = gaz.nearest_airports(geo.latitude, geo.longitude, 1, max_km)
            if found:
                return found[0][0].iata, round(found[0][1], 1)
        return "", 0.0

    def _airport_place(self, code: str) -> Place:
        a = self.gazetteer.airports[code]
        city = self._airport_city.get(code)
        return Place(
            code,
            "airport",
            a.name,
            city.name if city else a.city_name or a.name,
            city.city_code if city else code,
            a.country_code,
            a.latitude,
            a.longitude,
            a.timezone,
            population=city.population if city else 0,
            known=city is not None,
        )


def _airport_rank(name: str) -> int:
    return 2 if gazetteer.international(name) else 1 if "airport" in name.casefold() else 0


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> LocationCatalogue:
    raw = json.loads(path.read_text(encoding="utf-8"))
    cities = [
        City(
            name=c["name"],
            country=c["country"],
            country_code=c["country_code"],
            city_code=c["city_code"],
            airports=tuple(c["airports"]),
            latitude=float(c["latitude"]),
            longitude=float(c["longitude"]),
            timezone=c["timezone"],
            population=int(c.get("population") or 0),
            currency=c["currency"],
            cost_level=int(c.get("cost_level") or 3),
            aliases=tuple(c.get("aliases") or ()),
        )
        for c in raw
    ]
    return LocationCatalogue(cities, gazetteer.load())
