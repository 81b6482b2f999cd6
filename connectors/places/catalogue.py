"""The place catalogue: what a traveller writes ("new york", "Lisboa", "LHR", "Zurik", "Paris, Texas") to
a place with an IATA code; "Roma Norte" to Mexico City, "Haneda" to Tokyo's airport, "Sydney, NSW" to Sydney.

Built on the gazetteer (connectors.places.gazetteer: every city of 15,000 people or more, every airport,
every country) with the destination cities of seed_data/sandbox/cities.json on top (their metropolitan
codes, currencies and price levels). A city without an airport of its own gets its nearest commercial
airport's code, for flights. Ambiguous names go to the bigger city, or to one in the conversation's
country. Districts (connectors.places.districts) resolve to their city, airports' names
(connectors.places.airports) to the airport, a city's name with its state or country
(connectors.places.regions) to that one. Pure look-ups over in-memory data, loaded once.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from rapidfuzz import fuzz, process

from connectors.geo import haversine_km
from connectors.places import airports, gazetteer, regions
from connectors.places.districts import Districts, load_index
from connectors.places.gazetteer import Gazetteer, GeoCity, fold
from connectors.places.model import City, Place, Region

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


PROMINENT_POPULATION = 250_000  # a city this big is a place even when its name is a word
FUZZY_MIN_POPULATION = 300_000  # misspellings are matched against these cities' names only
REGION_CITY_POPULATION = 100_000  # a city this big bears its name before a state does ("Quebec")


class LocationCatalogue:
    def __init__(
        self, cities: list[City], gaz: Gazetteer, region_index: regions.RegionIndex | None = None
    ) -> None:
        self.cities = cities
        self.gazetteer = gaz
        self.regions = region_index if region_index is not None else regions.load()
        self._by_code = {c.city_code: c for c in cities}
        self._airport_city: dict[str, City] = {}
        for c in sorted(cities, key=lambda c: -c.population):
            for code in c.airports:
                current = self._airport_city.get(code)
                # An airport two cities share (KIX: Osaka and Kyoto) is the one's it is named after.
                named = gaz.airports.get(code)
                if current is None or (named is not None and fold(named.city_name) == fold(c.name)):
                    self._airport_city[code] = c
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
            codes.sort(key=lambda code: -airports.rank(gaz.airports[code].name))
        self._airports_named = by_city
        self._geo_places: dict[int, Place] = {}
        fuzzy = set(names) | {
            fold(c.name) for c in gaz.cities.values() if c.population >= FUZZY_MIN_POPULATION
        }
        self.fuzzy_names = tuple(sorted(k for k in fuzzy if len(k) >= 5))
        self.airport_names = airports.build(gaz, lambda k: k in names or k in gaz.names)
        self.districts = Districts(load_index(), self)

    @classmethod
    def load(cls, path: Path = CITIES_PATH) -> LocationCatalogue:
        return _load(path)

    # Names

    def is_name(self, folded: str) -> bool:
        """Whether a folded name (see ``fold``) names a city, a town with an airport, a district or an
        airport. A state's or a country's name ("Maine", "Mexico") names a city only when it is that
        city's own name."""
        folded = ABBREVIATIONS.get(folded, folded)
        if folded in self._names or folded in self.districts:
            return True
        if folded in self.regions.names or folded in self.gazetteer.country_names:
            return any(self.gazetteer.is_primary(folded, c) for c in self.gazetteer.candidates(folded))
        return (
            folded in self.gazetteer.names
            or folded in self._airports_named
            or self.airport_names.find(folded) is not None
        )

    def is_destination_name(self, folded: str) -> bool:
        """Whether a folded name is a name or alias of one of the catalogue's destination cities."""
        return folded in self._names

    def destination(self, folded: str) -> City | None:
        """The destination city a folded name or alias names, or None."""
        return self._names.get(ABBREVIATIONS.get(folded, folded))

    def country_code(self, folded: str) -> str | None:
        """The ISO code of the country a folded name names, in any of our six languages."""
        return self.gazetteer.country_names.get(folded)

    def region(self, folded: str, country: str | None = None) -> Region | None:
        """The state or region a folded name names alone ("maine", "toscana", "new south wales"), or
        None when it is first a city's: a destination's name, or the own name of a city of 100,000
        people or more ("Quebec", "Washington", "New York"). ``country`` settles names two share."""
        found = self.regions.named(folded)
        if not found or folded in self._names:
            return None
        own = [c for c in self.gazetteer.candidates(folded) if self.gazetteer.is_primary(folded, c)]
        if any(c.population >= REGION_CITY_POPULATION for c in own):
            return None
        return next((r for r in found if country and r.country_code == country.upper()), found[0])

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
            add(self.geo_place(geo))
        towns = self._airports_named.get(folded, [])
        if not out and towns:
            add(self._airport_place(towns[0]))
        if country:
            country = country.upper()
            # A town too small for the gazetteer, known by its airport ("Queenstown", New Zealand), is
            # the one of the conversation's country, unless the name's first place is famous.
            if out and all(p.country_code != country for p in out) and not _famous(out[0]):
                local = [c for c in towns if self.gazetteer.airports[c].country_code == country]
                if local:
                    out.insert(0, self._airport_place(local[0]))
            # The conversation's country settles names comparable places share ("Valencia" after Madrid),
            # not one a far bigger city bears ("Vancouver" is in Canada, even on a trip to Portland).
            biggest = max((p.population for p in out), default=0)
            out.sort(key=lambda p: p.country_code != country or 0 < p.population * 5 < biggest)
        return out

    def resolve(
        self, text: str, country: str | None = None, near: str | None = None, *, districts: bool = True
    ) -> Place | None:
        """The city or airport ``text`` names, or None. Codes first, then districts ("Roma Norte"),
        names ("Paris, Texas" and "Portland Maine" too), airports' names ("Haneda"), then misspellings
        of well-known cities. ``country``: the conversation's; ``near``: its city's IATA code;
        ``districts``: False for a caller that has read the districts itself (find_places)."""
        raw = text.strip()
        if not raw:
            return None
        if len(raw) == 3 and raw.isalpha():
            place = self._by_iata(raw.upper())
            if place:
                return place
        country = country or self.country_of(near)
        key = fold(raw)
        district = self.districts.choose(key, country, near) if districts else None
        if district is not None:
            return district.place
        if self.region(key, country) is not None:
            return None  # "Maine" is a state: which city there is the traveller's to say
        found = self.lookup(key, country)
        if found:
            return found[0]
        qualified = self._qualified(key)
        if qualified is not None:
            return qualified
        airport = self.airport_names.find(key)
        if airport is not None:
            return self._airport_place(airport)
        match = process.extractOne(key, self.fuzzy_names, scorer=fuzz.ratio, score_cutoff=85)
        if match:
            found = self.lookup(match[0], country)
            return found[0] if found else None
        return None

    def country_of(self, code: str | None) -> str | None:
        """The country of an IATA city or airport code (the conversation's city), or None."""
        place = self._by_iata(code.upper()) if code else None
        return place.country_code if place else None

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

    def qualified(self, name: str, qualifier: str, any_case: bool = True) -> Place | None:
        """The place a folded name means in the state, province or country a qualifier names ("paris",
        "texas"; "sydney", "NSW"; "washington", "D.C."; "london", "canada"). Abbreviations count in
        any case unless ``any_case`` is False (free text, where "or" and "me" are words)."""
        states = self.regions.qualifier(qualifier, any_case)
        country = self.gazetteer.country_names.get(fold(qualifier))
        if not states and country is None:
            return None
        for geo in self.gazetteer.candidates(name):
            if any(geo.country_code == r.country_code and geo.admin1_code == r.admin1 for r in states) or (
                country and geo.country_code == country
            ):
                return self.geo_place(geo)
        for code in self._airports_named.get(name, []):  # a town known by its airport ("Queenstown")
            a = self.gazetteer.airports[code]
            if a.country_code == country or (
                not country and any(a.country_code == r.country_code for r in states)
            ):
                return self._airport_place(code)
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

    def place(self, code: str) -> Place | None:
        """The place an IATA code names: a destination city (its airports), or an airport (its city's
        code when it serves a destination city)."""
        return self._by_iata(code.upper())

    def city_place(self, code: str, name: str) -> Place | None:
        """The city an IATA city code and its name stand for: the destination city of that code, else
        the city of that name whose flights use that code, else (a metropolitan code the catalogue does
        not use: "BUH", Bucharest) the city the name means."""
        city = self._by_code.get(code.upper())
        if city is not None:
            return self._city_place(city)
        found = self.lookup(fold(name))
        return next((p for p in found if p.city_code == code.upper()), found[0] if found else None)

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
            airports=c.airports,
        )

    def geo_place(self, geo: GeoCity) -> Place:
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
            code, km = airports.serving(self.gazetteer, geo)
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
                airports=(code,) if code else (),
            )
        self._geo_places[geo.geoname_id] = place
        return place

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
            airports=(code,),
        )


def _famous(place: Place) -> bool:
    return place.known or place.population >= PROMINENT_POPULATION


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
