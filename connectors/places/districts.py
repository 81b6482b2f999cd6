"""Districts, neighbourhoods and boroughs: "Roma Norte" is in Mexico City, "Shinjuku" in Tokyo, "Palermo"
in Buenos Aires on a trip there and in Sicily otherwise. Pure look-ups over districts.yaml (compiled by
hand) and guide_districts.json (the seed guides' neighbourhoods, scripts/guide_districts.py).

A district resolves to its city's place, its own name kept on the mention. A name that a city elsewhere
bears too (of 100,000 people or more, or a destination of the catalogue) means that city, unless the
conversation is in the district's city (``near``) or its country, or the district wins by declaration
(``over_cities``). Districts of several cities that share a name ("Soho", "Chelsea") are ambiguous
until the conversation settles which.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from connectors.geo import haversine_km
from connectors.places.gazetteer import Gazetteer, GeoCity, fold, read_yaml
from connectors.places.model import City, Place

logger = logging.getLogger(__name__)


DISTRICTS_PATH = Path(__file__).with_name("districts.yaml")
GUIDE_DISTRICTS_PATH = Path(__file__).with_name("guide_districts.json")
CITY_OVER_DISTRICT_POPULATION = 100_000  # a city this big, elsewhere, is what its own name means
# A city's other names ("Praga" is Prague's) outrank a district's only when the city is this big: the
# gazetteer's aliases are noisy ("Taito" for Taitung, "Graca" for Graz).
ALIAS_OVER_DISTRICT_POPULATION = 1_000_000
SAME_CITY_KM = 50  # a "city" this close to the district's city is the district itself (Kowloon, Giza)


@dataclass(frozen=True, slots=True)
class District:
    name: str  # as travellers write it ("Roma Norte")
    city_code: str  # its city's IATA city code
    city_name: str
    over_cities: bool = False  # means the district even where a city elsewhere bears the name


@dataclass(frozen=True, slots=True)
class DistrictChoice:
    district: District
    place: Place  # the district's city
    options: tuple[Place, ...] = ()  # the cities of same-named districts, when nothing settles which


@lru_cache(maxsize=4)
def load_index(
    path: Path = DISTRICTS_PATH, guides: Path = GUIDE_DISTRICTS_PATH
) -> dict[str, tuple[District, ...]]:
    """Folded name -> the districts it names, from the hand-compiled list and the guides' one."""
    cities: dict[str, Any] = dict(read_yaml(path) or {})
    if guides.exists():
        for code, row in json.loads(guides.read_text(encoding="utf-8"))["cities"].items():
            mine = cities.setdefault(code, {"city": row["city"], "districts": []})
            mine["districts"] = [*mine["districts"], *row["districts"]]
    out: dict[str, list[District]] = {}
    for code, row in cities.items():
        over = {fold(n) for n in row.get("over_cities") or ()}
        for name in row["districts"]:
            key = fold(str(name))
            entries = out.setdefault(key, [])
            if all(d.city_code != code for d in entries):
                entries.append(District(str(name), code, str(row["city"]), key in over))
    return {k: tuple(v) for k, v in out.items()}


class CityPlaces(Protocol):
    """What the districts need of the place catalogue (connectors.places.catalogue, which builds them):
    a city's place by its code and name, a destination by its name, a gazetteer city as a place, and
    the gazetteer."""

    gazetteer: Gazetteer

    def city_place(self, code: str, name: str) -> Place | None: ...

    def destination(self, folded: str) -> City | None: ...

    def geo_place(self, geo: GeoCity) -> Place: ...


class Districts:
    """The districts of the world's most visited cities over a place catalogue."""

    def __init__(self, index: dict[str, tuple[District, ...]], catalogue: CityPlaces) -> None:
        self._index = index
        self._catalogue = catalogue
        self._places: dict[str, Place | None] = {}
        self._competing: dict[str, Place | None] = {}

    def __contains__(self, folded: str) -> bool:
        return folded in self._index

    def names(self) -> list[str]:
        return list(self._index)

    def get(self, folded: str) -> tuple[District, ...]:
        return self._index.get(folded, ())

    def city_place(self, district: District) -> Place | None:
        """The place of a district's city: the catalogue's destination city of that code, else the
        city of that name whose code it is."""
        code = district.city_code
        if code not in self._places:
            self._places[code] = self._catalogue.city_place(code, district.city_name)
            if self._places[code] is None:
                logger.warning("districts: no city %s (%s) in the catalogue", district.city_name, code)
        return self._places[code]

    def competing(self, folded: str) -> Place | None:
        """A city elsewhere that a district's name means first: a destination of the catalogue, a city of
        100,000 people or more whose own name it is, or a city of a million that goes by it ("Praga",
        "Roma"); neither the district's own city nor right next to it (Kowloon, Giza). Sizes are the
        cities' own, not those of the destinations they lie next to."""
        if folded not in self._competing:
            mine = [p for d in self.get(folded) if (p := self.city_place(d)) is not None]
            cat = self._catalogue

            def elsewhere(latitude: float, longitude: float) -> bool:
                return all(
                    haversine_km(latitude, longitude, m.latitude, m.longitude) > SAME_CITY_KM for m in mine
                )

            found: Place | None = None
            city = cat.destination(folded)
            if city is not None and elsewhere(city.latitude, city.longitude):
                found = cat.city_place(city.city_code, city.name)
            for geo in cat.gazetteer.candidates(folded) if found is None else ():
                own = cat.gazetteer.is_primary(folded, geo)
                big = geo.population >= (
                    CITY_OVER_DISTRICT_POPULATION if own else ALIAS_OVER_DISTRICT_POPULATION
                )
                if big and elsewhere(geo.latitude, geo.longitude):
                    found = cat.geo_place(geo)
                    break
            self._competing[folded] = found
        return self._competing[folded]

    def choose(
        self, folded: str, country: str | None = None, near: str | None = None
    ) -> DistrictChoice | None:
        """The district a folded name means, or None when it means a city (or no district at all).
        ``near``: the IATA city code of the conversation's city; ``country``: its country."""
        found = [(d, p) for d in self.get(folded) if (p := self.city_place(d)) is not None]
        if not found:
            return None
        found.sort(key=lambda dp: -dp[1].population)
        hinted = [dp for dp in found if near and near.upper() in (dp[0].city_code, dp[1].city_code)]
        competing = self.competing(folded)
        if not hinted and country and (competing is None or competing.country_code != country.upper()):
            hinted = [dp for dp in found if dp[1].country_code == country.upper()]
        if hinted:
            return DistrictChoice(hinted[0][0], hinted[0][1])
        if competing is not None and not any(d.over_cities for d, _ in found):
            return None
        options = tuple({p.city_code: p for _, p in found}.values())
        return DistrictChoice(found[0][0], found[0][1], options if len(options) > 1 else ())
