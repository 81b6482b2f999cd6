"""The location catalogue: cities (seed_data/sandbox/cities.json) and every IATA airport (airportsdata).

Resolves what a traveller writes ("new york", "Lisbon", "LHR", "Zurik") to an IATA city or airport
code, with fuzzy matching on spelling. Pure lookups over in-memory data, loaded once.
"""

from __future__ import annotations

import functools
import json
import math
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rapidfuzz import fuzz, process

CITIES_PATH = Path(__file__).resolve().parent.parent / "seed_data" / "sandbox" / "cities.json"


def fold(text: str) -> str:
    """Case-, accent- and space-insensitive form of a name."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.replace("-", " ").replace(".", " ").split())


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

    @property
    def label(self) -> str:
        return f"{self.name} ({self.code})" if self.kind == "airport" else f"{self.city_name} ({self.code})"


class LocationCatalogue:
    def __init__(self, cities: list[City], airports: dict[str, dict[str, Any]]) -> None:
        self.cities = cities
        self._by_code = {c.city_code: c for c in cities}
        self._airports = airports
        self._airport_city = {a: c for c in cities for a in c.airports}
        names: dict[str, City] = {}
        for c in sorted(cities, key=lambda c: c.population):  # bigger cities win shared names
            for n in (c.name, *c.aliases):
                names[fold(n)] = c
        self._names = names
        self._name_keys = list(names)
        # Airport cities outside the city list ("Nice", "Bergen"): name -> best airport code.
        by_city: dict[str, str] = {}
        for code, a in airports.items():
            key = fold(str(a.get("city") or ""))
            if (
                key
                and key not in names
                and (key not in by_city or _airport_rank(a) > _airport_rank(airports[by_city[key]]))
            ):
                by_city[key] = code
        self._airport_by_city = by_city
        self.single_word_names = tuple(k for k in self._name_keys if " " not in k and len(k) >= 5)

    @classmethod
    def load(cls, path: Path = CITIES_PATH) -> LocationCatalogue:
        return _load(path)

    def is_name(self, folded: str) -> bool:
        """Whether a folded name (see ``fold``) is a catalogue city's name or alias."""
        return folded in self._names

    def is_airport_city(self, folded: str) -> bool:
        """Whether a folded name is a city known only through its airport ("bergen")."""
        return folded in self._airport_by_city

    def city(self, code: str) -> City | None:
        return self._by_code.get(code.upper())

    def city_of_airport(self, code: str) -> City | None:
        return self._airport_city.get(code.upper())

    def airport(self, code: str) -> dict[str, Any] | None:
        return self._airports.get(code.upper())

    def resolve(self, text: str) -> Place | None:
        """The city or airport ``text`` names, or None. Codes first, then names, then fuzzy names."""
        raw = text.strip()
        if not raw:
            return None
        if len(raw) == 3 and raw.isalpha():
            place = self._by_iata(raw.upper())
            if place:
                return place
        key = fold(raw)
        if key in self._names:
            return self._city_place(self._names[key])
        if key in self._airport_by_city:
            return self._airport_place(self._airport_by_city[key])
        match = process.extractOne(key, self._name_keys, scorer=fuzz.ratio, score_cutoff=85)
        if match:
            return self._city_place(self._names[match[0]])
        return None

    def nearest_city(self, latitude: float, longitude: float) -> tuple[City, float]:
        """The catalogue city closest to a point, and its distance in km."""
        best = min(self.cities, key=lambda c: haversine_km(latitude, longitude, c.latitude, c.longitude))
        return best, haversine_km(latitude, longitude, best.latitude, best.longitude)

    def _by_iata(self, code: str) -> Place | None:
        if code in self._by_code:
            return self._city_place(self._by_code[code])
        if code in self._airports:
            return self._airport_place(code)
        return None

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
        )

    def _airport_place(self, code: str) -> Place:
        a = self._airports[code]
        city = self._airport_city.get(code)
        return Place(
            code,
            "airport",
            str(a["name"]),
            city.name if city else str(a.get("city") or a["name"]),
            city.city_code if city else code,
            str(a["country"]),
            float(a["lat"]),
            float(a["lon"]),
            str(a["tz"]),
        )


def _airport_rank(a: dict[str, Any]) -> int:
    name = str(a.get("name", ""))
    return 2 if "International" in name else 1 if "Airport" in name else 0


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> LocationCatalogue:
    import airportsdata

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
    airports = {code: dict(a) for code, a in airportsdata.load("IATA").items() if code}
    return LocationCatalogue(cities, airports)


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))
