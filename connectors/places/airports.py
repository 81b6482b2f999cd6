"""Airports by name, pure: "Haneda", "Heathrow", "Kansai airport", "aeropuerto de Barajas". A name of
airports.yaml counts alone; any commercial airport's own name (airportsdata's, without "International
Airport" and without its city's name) counts with the word for an airport beside it, in our six
languages. A name that is a city's ("Tokyo airport") is left to the city."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from connectors.places import gazetteer
from connectors.places.gazetteer import Gazetteer, GeoCity, fold, read_yaml

AIRPORTS_PATH = Path(__file__).with_name("airports.yaml")

_WORDS = r"(?:airport|airports|aeropuerto|aeroporto|aeroport|flughafen|airfield|aerodrome)"
_LEAD = re.compile(
    rf"^(?:the |l |el |o |der |il )?{_WORDS}(?: (?:de|del|do|da|di|du|d|of|von|internacional))? "
)
_TRAIL = re.compile(rf" (?:international |intl |internacional |internazionale |international du )?{_WORDS}$")
_GENERIC = frozenset(
    "international intl intercontinental internacional airport aeropuerto aeroporto aerodrome airfield "
    "airpark regional municipal national ntl field".split()
)
MIN_NAME = 4


def bare(folded: str) -> str:
    """A folded name without the words for an airport: "kansai airport" -> "kansai"."""
    return _TRAIL.sub("", _LEAD.sub("", folded))


@dataclass(frozen=True)
class AirportNames:
    alone: dict[str, str]  # folded name that counts alone ("haneda") -> IATA code
    official: dict[str, str]  # folded official name, counted beside "airport" ("kansai") -> IATA code

    def find(self, folded: str) -> str | None:
        """The IATA code of the airport a folded name names, or None."""
        code = self.alone.get(folded)
        if code is not None:
            return code
        stripped = bare(folded)
        if stripped == folded:
            return None
        return self.alone.get(stripped) or self.official.get(stripped)


def build(gaz: Gazetteer, is_city: Callable[[str], bool], path: Path = AIRPORTS_PATH) -> AirportNames:
    """``is_city``: whether a folded name is a city's, which an airport's name then does not take."""
    curated: dict[str, list[str]] = read_yaml(path) or {}
    alone = {fold(name): code for code, names in curated.items() for name in names}
    official: dict[str, str] = {}
    ranked = sorted(gaz.airports.values(), key=lambda a: (not gazetteer.international(a.name), a.iata))
    for a in ranked:
        if not a.commercial:
            continue
        city = fold(a.city_name)
        for part in re.split(r"\s+-\s+|/|\(|\)", a.name):
            words = [w for w in fold(part).split() if w not in _GENERIC]
            name = " ".join(words)
            for candidate in (name, name[len(city) + 1 :] if city and name.startswith(city + " ") else ""):
                if len(candidate) >= MIN_NAME and not candidate.isdigit() and not is_city(candidate):
                    official.setdefault(candidate, a.iata)
    return AirportNames(alone, official)


def rank(name: str) -> int:
    """How much an airport's name says it is the city's main one: international 2, an airport 1."""
    return 2 if gazetteer.international(name) else 1 if "airport" in name.casefold() else 0


def serving(gaz: Gazetteer, geo: GeoCity) -> tuple[str, float]:
    """The airport a city's flights use, and how far it is (0 when it is the city's own): its own
    airports first (named after it, international ones first), else the nearest major one."""
    own = fold(geo.name)
    near = gaz.commercial.within(geo.latitude, geo.longitude, 60)

    def serves(a: gazetteer.Airport) -> bool:
        served = fold(a.city_name)
        return geo.geoname_id in gaz.names.get(served, ()) or f" {own} " in f" {served} "

    mine = [(a, km) for a, km in near if a.country_code == geo.country_code and serves(a)]
    if mine:
        mine.sort(key=lambda p: (not gazetteer.international(p[0].name), own not in fold(p[0].name), p[1]))
        return mine[0][0].iata, 0.0
    for max_km in (250.0, 800.0):
        found = gaz.nearest_airports(geo.latitude, geo.longitude, 1, max_km)
        if found:
            return found[0][0].iata, round(found[0][1], 1)
    return "", 0.0
