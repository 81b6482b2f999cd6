"""The sandbox's view of the shared place catalogue (connectors.places: the catalogue over the gazetteer).
Its cities and places are the package's ``City`` and ``Place``; what a code means is the catalogue's.

The destination cities of seed_data/sandbox/cities.json keep their metropolitan codes, currencies and
price levels; every other city of the gazetteer (15,000 people or more) is served too, with its
country's currency and a price level derived from the destinations of its country. Read-only data,
loaded once per process and shared by every sandbox app (one per test) and by the service itself.
"""

from __future__ import annotations

import logging
import re
import statistics
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from connectors.geo import haversine_km
from connectors.places import Airport, City, GeoCity, LocationCatalogue, Place, fold, gazetteer
from connectors.places.catalogue import CITIES_PATH
from connectors.sandbox import money
from connectors.spatial import GridIndex
from connectors.text import fold as fold_accents

__all__ = ["Airport", "Catalogue", "City", "Place", "fold", "load_catalogue"]

logger = logging.getLogger(__name__)

DEFAULT_CITIES_PATH = CITIES_PATH

MIDDLE_EAST = frozenset({"AE", "QA", "SA", "KW", "BH", "OM", "JO", "IL", "LB", "SY", "IQ", "IR", "YE", "PS"})
CENTRAL_AMERICA = frozenset({"GT", "BZ", "SV", "HN", "NI", "CR", "PA"})
CARIBBEAN = frozenset(
    {"CU", "JM", "DO", "HT", "BS", "BB", "TT", "PR", "AW", "CW", "BQ", "SX", "KY", "TC", "VG", "VI", "AG", "DM",
     "GD", "KN", "LC", "VC", "MQ", "GP", "BL", "MF", "AI", "MS"}
)  # fmt: skip
# How the providers write these countries; the gazetteer's everyday names are "USA", "UK", ...
PROVIDER_COUNTRY_NAMES = {
    "US": "United States",
    "GB": "United Kingdom",
    "NL": "Netherlands",
    "AE": "United Arab Emirates",
}
SERVED_KM = 80  # an airport named after a city serves it from this far at most
NEAR_AIRPORT_KM = 30  # else the biggest city this close to the airport
CLOSE_KM = 10  # a gazetteer city this close to a destination city of the same country is that city


def plain(text: str) -> str:
    """Upper case without accents, the way Amadeus writes names."""
    return fold_accents(text).upper().strip()


def amadeus_airport_name(name: str) -> str:
    """'Charles de Gaulle International Airport' -> 'CHARLES DE GAULLE', the way Amadeus names airports."""
    upper = plain(name)
    for suffix in (" INTERNATIONAL AIRPORT", " INTL AIRPORT", " AIRPORT", " AIRPARK", " AERODROME"):
        if upper.endswith(suffix) and len(upper) > len(suffix) + 2:
            return upper[: -len(suffix)]
    return upper


def country_name(cc: str) -> str:
    country = gazetteer.load().countries.get(cc)
    return PROVIDER_COUNTRY_NAMES.get(cc) or (country.name if country else cc)


def region(cc: str) -> str:
    """Coarse airline region: EU, ME, AF, AS, OC, NA, LA."""
    if cc in MIDDLE_EAST:
        return "ME"
    if cc == "MX" or cc in CENTRAL_AMERICA or cc in CARIBBEAN:
        return "LA"
    country = gazetteer.load().countries.get(cc)
    continent = country.continent if country else "EU"
    return {"EU": "EU", "AS": "AS", "AF": "AF", "OC": "OC", "NA": "NA", "SA": "LA", "AN": "OC"}.get(
        continent, "EU"
    )


def amadeus_region_code(cc: str) -> str:
    if cc in CENTRAL_AMERICA:
        return "CAMER"
    if cc in CARIBBEAN:
        return "CARIB"
    return {
        "EU": "EUROP",
        "ME": "MEAST",
        "AF": "AFRIC",
        "AS": "ASIA",
        "OC": "SWPAC",
        "NA": "NAMER",
        "LA": "SAMER",
    }[region(cc)]


class Catalogue:
    """The destination cities, every gazetteer city and every airport, with the look-ups the endpoints need."""

    def __init__(self, places: LocationCatalogue) -> None:
        self.places = places
        self.gazetteer = places.gazetteer
        self.cities = sorted(places.cities, key=lambda c: c.name)
        self.airports: dict[str, Airport] = self.gazetteer.airports
        self.by_code = {c.city_code: c for c in self.cities}
        self.airport_city: dict[str, City] = {}
        for city in self.cities:
            for ap in city.airports:
                if ap not in self.airports:
                    raise ValueError(f"{city.name}: unknown airport code {ap}")
                owner = places.city_of_airport(ap)  # KIX, shared by Osaka and Kyoto, is Osaka's
                if owner is not None:
                    self.airport_city[ap] = owner
        self._country_cost, self._continent_cost = _cost_levels(self.cities, self.gazetteer)
        self._by_point = GridIndex((c.latitude, c.longitude, c) for c in self.cities)
        self._code_cities: dict[str, City | None] = {}
        self._geo_cities: dict[int, City] = {}

    def city(self, code: str) -> City | None:
        """The city a code's hotels are in: a destination's city code, the city an airport serves (a
        destination's, or the gazetteer city it is named after or sits next to), or None."""
        code = code.upper()
        if code in self.by_code:
            return self.by_code[code]
        if code not in self._code_cities:
            self._code_cities[code] = self._airport_served(code)
        return self._code_cities[code]

    def geo_city(self, geoname_id: int) -> City | None:
        """A gazetteer city by its geonames id, filed under its nearest major airport's code."""
        if geoname_id not in self._geo_cities:
            geo = self.gazetteer.cities.get(geoname_id)
            if geo is None:
                return None
            near = self.gazetteer.nearest_airports(geo.latitude, geo.longitude, 1)
            self._geo_cities[geoname_id] = self._from_geo(geo, near[0][0].iata if near else "")
        return self._geo_cities[geoname_id]

    def city_near(self, lat: float, lon: float, max_km: float) -> City | None:
        """The destination city nearest a point within ``max_km``, else the gazetteer city that best
        answers for it (a big city a little further away before a small one right there), else the town
        of a commercial airport there (a resort too small for the gazetteer)."""
        near = self._by_point.nearest(lat, lon, max_km)
        if near is not None:
            return near[0]
        around = self.gazetteer.by_point.within(lat, lon, max_km)
        if not around:
            airport = self.gazetteer.commercial.nearest(lat, lon, max_km)
            return self.city(airport[0].iata) if airport else None
        geo = max(around, key=lambda pair: pair[0].population / (pair[1] + 2) ** 2)[0]
        return self.geo_city(geo.geoname_id)

    def resolve(self, code: str) -> Place | None:
        """A city code (its airports) or an airport code (that airport, its city's code when it serves a
        destination city): the place catalogue's reading of the code."""
        return self.places.place(code)

    def _airport_served(self, code: str) -> City | None:
        if code in self.airport_city:
            return self.airport_city[code]
        airport = self.airports.get(code)
        if airport is None:
            return None
        geo = self._served_geo(airport)
        if geo is None and international(airport):
            # A resort town too small for the gazetteer with an international airport (Queenstown, New
            # Zealand): the town its airport is named after, at the airport. An airstrip (Lukla) is no town.
            geo = GeoCity(
                -int.from_bytes(code.encode(), "big"),  # no geonames id: one of its own, by its airport
                airport.city_name or airport.name,
                airport.latitude,
                airport.longitude,
                airport.country_code,
                SMALL_TOWN,
                airport.timezone,
                "",
                False,
            )
        return None if geo is None else self._from_geo(geo, code)

    def _served_geo(self, a: Airport) -> GeoCity | None:
        """The gazetteer city an airport serves: one it is named after, else the biggest one next to it."""
        for geo in self.gazetteer.candidates(fold(a.city_name)):
            if haversine_km(a.latitude, a.longitude, geo.latitude, geo.longitude) <= SERVED_KM:
                return geo
        near = [
            geo
            for geo, _ in self.gazetteer.by_point.within(a.latitude, a.longitude, NEAR_AIRPORT_KM)
            if geo.country_code == a.country_code
        ]
        return max(near, key=lambda geo: geo.population) if near else None

    def _from_geo(self, geo: GeoCity, code: str) -> City:
        """A gazetteer city as a sandbox city (the destination city when it is one), under ``code``."""
        own = fold(geo.name)
        for c in self.cities:
            if c.country_code == geo.country_code and (
                own in {fold(n) for n in (c.name, *c.aliases)}
                or haversine_km(geo.latitude, geo.longitude, c.latitude, c.longitude) < CLOSE_KM
            ):
                return c
        country = self.gazetteer.countries.get(geo.country_code)
        currency = country.currency if country and money.supported(country.currency) else ""
        if not currency:  # no exchange rate for it here: what travel prices there are quoted in
            currency = "EUR" if region(geo.country_code) == "EU" else "USD"
        return City(
            name=geo.name,
            country=country_name(geo.country_code),
            country_code=geo.country_code,
            city_code=code,
            airports=(code,) if code in self.airports else (),
            latitude=geo.latitude,
            longitude=geo.longitude,
            timezone=geo.timezone,
            population=geo.population,
            currency=currency,
            cost_level=self._country_cost.get(geo.country_code)
            or self._continent_cost.get(country.continent if country else "", 3),
            geoname_id=geo.geoname_id,
        )


# The people a town gets when only its airport is known.
SMALL_TOWN = 20_000
_INTERNATIONAL = re.compile(r"\binterna[cz]ional|\binternational|\binternazionale", re.I)


def international(airport: Airport) -> bool:
    """Whether an airport is an international one (its name says so): a town of its own is behind it."""
    return airport.commercial and bool(_INTERNATIONAL.search(airport.name))


def _cost_levels(cities: list[City], gaz: gazetteer.Gazetteer) -> tuple[dict[str, int], dict[str, int]]:
    """Price levels of cities outside the destinations, by country and by continent: a notch below the
    median of the destinations there (the destinations are the famous, dearer places)."""
    by_country: dict[str, list[int]] = defaultdict(list)
    by_continent: dict[str, list[int]] = defaultdict(list)
    for c in cities:
        by_country[c.country_code].append(c.cost_level)
        country = gaz.countries.get(c.country_code)
        if country:
            by_continent[country.continent].append(c.cost_level)

    def notch_below(levels: dict[str, list[int]]) -> dict[str, int]:
        return {key: max(1, round(statistics.median(v)) - 1) for key, v in levels.items()}

    return notch_below(by_country), notch_below(by_continent)


@lru_cache(maxsize=4)
def load_catalogue(path: Path = DEFAULT_CITIES_PATH) -> Catalogue:
    catalogue = Catalogue(LocationCatalogue.load(path))
    logger.info(
        "sandbox catalogue: %d destination cities, %d gazetteer cities, %d airports",
        len(catalogue.cities),
        len(catalogue.gazetteer.cities),
        len(catalogue.airports),
    )
    return catalogue
