"""location_search answered offline from the place catalogue: no network, no key, real data.

Amadeus Self-Service's Airport & City Search is gone, and a city or airport look-up needs no live
provider: the place catalogue (connectors.places, over its gazetteer: every city of 15,000 people or
more with its names in other languages, every IATA airport, every country) already knows what a
traveller means by "Lisboa", "LHR", "Pariss" or "Paris, Texas". This provider turns a keyword into
Location results with the same identities the Amadeus results carry ("C" or "A" and the IATA code:
CPAR, ALHR), so the same place seen through either provider deduplicates.

What a keyword matches, best first:
1. an IATA code, exactly: the metropolitan city (LON) and the airport (LHR) it names;
2. the place the catalogue resolves it to (a name in any of its languages, "Paris, Texas", a
   misspelling of a well-known city), then that city's airports;
3. other places of exactly that name (Paris, France and Paris, Texas), with an airport of their own;
4. names that start with the keyword (Amadeus's keyword is a prefix): cities, biggest first, and
   commercial airports by a word of their name ("heathrow", "charles");
5. when nothing else matched, close misspellings of big cities' names ("Zurik").
A town without an airport of its own is not a CITY with a code: its nearest airport is returned instead.
Nothing found is an empty list, as Amadeus answers an unknown keyword. Pure look-ups over data loaded once.
"""

from __future__ import annotations

import asyncio
import bisect
import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rapidfuzz import fuzz, process

from connectors.base import Terms
from connectors.errors import ProviderUnavailableError
from connectors.models import Location, Result
from connectors.params import LocationSearchParams, ToolParams
from connectors.places import LocationCatalogue, Place, fold
from connectors.providers import BuildContext, ProviderSpec

PREFIX_MIN_CHARS = 3  # "pa" would list every Pa... town: two letters match the destination cities only
PREFIX_CITIES = 40  # gazetteer cities a prefix may add before ranking (the biggest win)
FUZZY_CUTOFF = 72  # below resolve()'s own 85: only tried when nothing else matched
T = TypeVar("T")
_SUFFIX = re.compile(r"\s+(international\s+airport|intl\.?\s+airport|airport|airpark|aerodrome)$", re.I)


def airport_name(name: str) -> str:
    """'Charles de Gaulle International Airport' -> 'Charles de Gaulle', as Amadeus names airports
    (Location.render adds "airport")."""
    short = _SUFFIX.sub("", name).strip()
    return short if len(short) > 2 else name


@dataclass(frozen=True, slots=True)
class _Hit:
    tier: int  # the numbered rules of the module docstring
    weight: float  # within a tier, bigger first
    location: Location


# GeoNames' cities are CC BY 4.0: answers built on them credit it.
TERMS = Terms(attribution="Places: GeoNames (CC BY 4.0) and airportsdata")


class OfflineLocationsConnector:
    """The location_search provider over a LocationCatalogue (connectors.places)."""

    name = "catalogue"
    terms = TERMS
    sandbox = False  # real places, not synthetic data
    tools = frozenset({"location_search"})

    def __init__(self, catalogue: LocationCatalogue) -> None:
        self._catalogue = catalogue
        gaz = catalogue.gazetteer
        # (folded word or whole name, code) for commercial airports, sorted for prefix bisection.
        words: set[tuple[str, str]] = set()
        for code, a in gaz.airports.items():
            if not a.commercial:
                continue
            folded = fold(a.name).replace("/", " ")
            words.add((folded, code))
            words.update((w, code) for w in folded.split() if len(w) >= PREFIX_MIN_CHARS)
        self._airport_words = sorted(words)
        self._destinations = sorted(
            ((fold(n), c.city_code) for c in catalogue.cities for n in (c.name, *c.aliases)),
        )

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        if not isinstance(params, LocationSearchParams):
            raise ProviderUnavailableError(f"the place catalogue does not serve {tool}")
        # The first look-ups of a name fill the catalogue's caches (tens of ms): off the event loop.
        return list(await asyncio.to_thread(self.search, params.keyword, params.kind, limit))

    def search(self, keyword: str, kind: str = "ANY", limit: int = 10) -> list[Location]:
        """Locations for a keyword, best first, at most ``limit``; [] when nothing matches."""
        now = dt.datetime.now(dt.UTC)
        hits = list(self._hits(keyword, now))
        if not hits:
            hits = list(self._fuzzy(keyword, now))
        hits.sort(key=lambda h: (h.tier, -h.weight))  # stable: a city's airports stay behind it
        out: list[Location] = []
        seen: set[str] = set()
        for h in hits:
            loc = h.location
            if (kind != "ANY" and loc.sub_type != kind) or loc.identity in seen:
                continue
            seen.add(loc.identity)
            out.append(loc)
            if len(out) >= limit:
                break
        return out

    # Matching

    def _hits(self, keyword: str, now: dt.datetime) -> Iterable[_Hit]:
        cat = self._catalogue
        raw = keyword.strip()
        key = fold(raw)
        if not key:
            return
        code = raw.upper()
        if len(code) == 3 and code.isalnum():
            city = cat.city(code)
            if city is not None:
                yield _Hit(0, 2, self._city(self._place_of_code(code), now))
            if cat.airport(code) is not None:
                yield _Hit(0, 1, self._airport(code, now))
        place = cat.resolve(raw)
        if place is not None:
            yield from self._place_hits(1, place, now)
        for alt in cat.lookup(key):
            if alt.kind == "city" and alt.airport_km == 0 and fold(alt.city_name) == key:
                yield from self._place_hits(2, alt, now)
        yield from self._prefix(key, now)

    def _place_hits(self, tier: int, place: Place, now: dt.datetime) -> Iterable[_Hit]:
        """A resolved place: the airport it is, or the city with its airports (or, for a town without
        one, the airport it flies from)."""
        if not place.code:
            return
        if place.kind == "airport":
            yield _Hit(tier, place.population, self._airport(place.code, now))
            return
        if place.airport_km == 0:
            yield _Hit(tier, place.population + 1, self._city(place, now))
        for i, code in enumerate(self._airports_of(place)):
            yield _Hit(tier, place.population - i, self._airport(code, now))

    def _prefix(self, key: str, now: dt.datetime) -> Iterable[_Hit]:
        cat = self._catalogue
        for _, city_code in _starting(self._destinations, key):
            city = cat.city(city_code)
            if city is not None:
                yield from self._place_hits(3, self._place_of_code(city_code), now)
        if len(key) < PREFIX_MIN_CHARS:
            return
        gaz = cat.gazetteer
        # Own names only: other languages' names match exactly (rule 2), their prefixes are mostly noise.
        ids = {gid for name, gid in _starting(gaz.sorted_names, key) if (name, gid) in gaz.primary}
        geo = sorted((gaz.cities[i] for i in ids), key=lambda c: -c.population)
        for g in geo[:PREFIX_CITIES]:
            found = [p for p in cat.lookup(fold(g.name)) if p.country_code == g.country_code]
            # A suburb the catalogue files under its big neighbour (Romainville: Paris) is not a match.
            if found and found[0].airport_km == 0 and fold(found[0].city_name).startswith(key):
                yield _Hit(3, g.population, self._city(found[0], now))
        for _, code in _starting(self._airport_words, key):
            owner = cat.city_of_airport(code)
            weight = (owner.population if owner else 0) / 2 + 1
            yield _Hit(3, weight, self._airport(code, now))

    def _fuzzy(self, keyword: str, now: dt.datetime) -> Iterable[_Hit]:
        key = fold(keyword)
        if len(key) < 4:
            return
        cat = self._catalogue
        for name, score, _ in process.extract(
            key, cat.fuzzy_names, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=3
        ):
            for place in cat.lookup(name)[:1]:
                for h in self._place_hits(5, place, now):
                    yield _Hit(h.tier, score * 1e9 + h.weight, h.location)

    # Places

    def _place_of_code(self, city_code: str) -> Place:
        city = self._catalogue.city(city_code)
        assert city is not None
        found = self._catalogue.lookup(fold(city.name), city.country_code)
        mine = [p for p in found if p.code == city_code]
        if mine:
            return mine[0]
        return Place(city.city_code, "city", city.name, city.name, city.city_code, city.country_code,
                     city.latitude, city.longitude, city.timezone, city.population)  # fmt: skip

    def _airports_of(self, place: Place) -> tuple[str, ...]:
        city = self._catalogue.city(place.code) if place.known else None
        if city is not None and city.country_code == place.country_code:
            return city.airports
        return (place.code,) if self._catalogue.airport(place.code) else ()

    def _city(self, place: Place, now: dt.datetime) -> Location:
        return Location(
            provider=self.name,
            sandbox=self.sandbox,
            fetched_at=now,
            location_id=f"C{place.code}",
            sub_type="CITY",
            name=place.city_name,
            iata=place.code,
            city_name=place.city_name,
            city_code=place.code,
            country_code=place.country_code,
            latitude=place.latitude,
            longitude=place.longitude,
        )

    def _airport(self, code: str, now: dt.datetime) -> Location:
        a = self._catalogue.airport(code)
        assert a is not None
        owner = self._catalogue.city_of_airport(code)
        return Location(
            provider=self.name,
            sandbox=self.sandbox,
            fetched_at=now,
            location_id=f"A{code}",
            sub_type="AIRPORT",
            name=airport_name(a.name),
            iata=code,
            city_name=owner.name if owner else a.city_name or None,
            city_code=owner.city_code if owner else code,
            country_code=a.country_code or None,
            latitude=a.latitude,
            longitude=a.longitude,
        )


def _starting(pairs: Sequence[tuple[str, T]], prefix: str) -> Iterable[tuple[str, T]]:
    """The (name, value) pairs of a sorted list whose name starts with ``prefix``."""
    i = bisect.bisect_left(pairs, prefix, key=lambda pair: pair[0])
    while i < len(pairs) and pairs[i][0].startswith(prefix):
        yield pairs[i]
        i += 1


def _build(ctx: BuildContext) -> OfflineLocationsConnector:
    return OfflineLocationsConnector(ctx.catalogue)


PROVIDER = ProviderSpec(
    name="catalogue",
    tools=OfflineLocationsConnector.tools,
    build=_build,
    network=False,
    about="airports and cities shipped with Wayfarer (airportsdata, GeoNames): offline, no key",
)
