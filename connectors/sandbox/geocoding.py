"""Open-Meteo geocoding over the shared gazetteer (connectors.places: cities of 15,000 people or more), pure.

Names and other-language names are folded into one sorted list there, so a prefix search is a bisect
rather than a scan.
"""

from __future__ import annotations

import bisect
import functools
from typing import Any

from connectors.places import GeoCity, fold, gazetteer, regions
from connectors.sandbox.data import country_name, international

ELEVATION_KM = 60  # cities sit near their airports: the nearest one's elevation stands for the city's


def elevation(lat: float, lon: float) -> float:
    """Metres above sea level: the nearest commercial airport's elevation within 60 km, else 0."""
    found = gazetteer.load().commercial.nearest(lat, lon, ELEVATION_KM)
    return found[0].elevation_m if found else 0.0


def timezone_at(lat: float, lon: float) -> str | None:
    found = gazetteer.load().by_point.nearest(lat, lon, 600)
    return found[0].timezone if found else None


def warm() -> None:
    """Build the gazetteer and its name index now, so no request waits for them."""
    _ = gazetteer.load().sorted_names
    regions.load()


def search(name: str, count: int) -> list[GeoCity]:
    """Cities whose name or other-language name equals (2 letters) or starts with (3+) the query, most
    populous first."""
    query = fold(name)
    if len(query) < 2:
        return []
    gaz = gazetteer.load()
    names = gaz.sorted_names
    ids: set[int] = set()
    start = bisect.bisect_left(names, (query, -1))
    for folded, gid in names[start:]:
        if not folded.startswith(query):
            break
        if len(query) >= 3 or folded == query:
            ids.add(gid)

    def rank(city: GeoCity) -> tuple[int, int, str]:
        primary = fold(city.name)
        # Real names before other names: "Paris" finds Paris before Warsaw ("Paris of the North").
        return (0 if primary == query else 1 if primary.startswith(query) else 2, -city.population, city.name)

    found = sorted((gaz.cities[i] for i in ids), key=rank)
    towns = [t for t in _airport_towns(query) if not any(_close(t, c) for c in found)]
    return [*found, *towns][:count]


@functools.cache
def _towns() -> dict[str, list[GeoCity]]:
    """Towns too small for the gazetteer that have a commercial airport named after them ("Queenstown",
    New Zealand), by folded name: a geocoder finds them."""
    out: dict[str, list[GeoCity]] = {}
    for a in gazetteer.load().airports.values():
        if international(a) and a.city_name:
            town = GeoCity(
                -int.from_bytes(a.iata.encode(), "big"),
                a.city_name,
                a.latitude,
                a.longitude,
                a.country_code,
                0,
                a.timezone,
                "",
                False,
            )
            out.setdefault(fold(a.city_name), []).append(town)
    return out


def _airport_towns(query: str) -> list[GeoCity]:
    return list(_towns().get(query, []))


def _close(a: GeoCity, b: GeoCity) -> bool:
    """Whether two places are one town (its airport within 50 km of it)."""
    return abs(a.latitude - b.latitude) < 0.5 and abs(a.longitude - b.longitude) < 0.5


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
    state = regions.load().regions.get(f"US-{city.admin1_code}") if city.country_code == "US" else None
    if state is not None:
        out["admin1"] = state.name
    return out
