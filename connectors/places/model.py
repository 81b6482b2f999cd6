"""The places package's values, pure: a destination ``City`` of the catalogue, a resolved ``Place``, a
``Region`` (a state, a province, a well-known region), and what a text names (``PlaceMention``,
``Mentions``, ``Roles``). Routing, the dialogue, the tools and the sandbox all use these."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class City:
    """A city with hotels and activities: a destination of seed_data/sandbox/cities.json, or (the
    sandbox's cities beyond them) a gazetteer city, then with its geonames id."""

    name: str
    country: str
    country_code: str
    city_code: str  # the IATA code its hotels are filed under
    airports: tuple[str, ...]
    latitude: float
    longitude: float
    timezone: str
    population: int
    currency: str
    cost_level: int
    aliases: tuple[str, ...] = ()
    geoname_id: int = 0  # gazetteer cities only: the key the sandbox draws their activities from


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
    population: int = 0
    # For a town without an airport of its own: how far the airport its code names is.
    airport_km: float = 0.0
    known: bool = True  # a destination city of the catalogue (cities.json), with a travel guide's fame
    # The airports a trip to it can use: a destination city's, or the airport itself.
    airports: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.code})" if self.kind == "airport" else f"{self.city_name} ({self.code})"


@dataclass(frozen=True, slots=True)
class Region:
    """A state, province or territory ("Maine", "New South Wales"), or a well-known region of a country
    ("Tuscany"): it says which of several same-named cities is meant, and alone it is no city."""

    code: str  # ISO 3166-2: "US-ME", "AU-NSW", "IT-52"
    name: str  # its English name
    country_code: str
    admin1: str  # the gazetteer's first-level division code of its cities ("ME", "02"); "" if several


@dataclass(frozen=True, slots=True)
class PlaceMention:
    place: Place
    text: str
    start: int
    end: int
    role: str | None  # "origin", "destination" or None
    # A district, neighbourhood or borough named ("Roma Norte", "Shinjuku"): ``place`` is its city.
    district: str | None = None


@dataclass
class Mentions:
    places: list[PlaceMention] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)  # ISO alpha-2 codes, in order
    unknown: list[str] = field(default_factory=list)  # place-like text that names nothing we know
    # Names several comparable places share, with nothing to settle which ("Springfield").
    ambiguous: dict[str, list[Place]] = field(default_factory=dict)
    # States and regions named alone ("hotels in Maine"): a region, not a town of that name; which
    # city there is still to ask.
    regions: list[Region] = field(default_factory=list)


@dataclass(frozen=True)
class Roles:
    """The places of a message with their roles (``assign_roles``), and where the trip goes."""

    places: list[PlaceMention]
    origin: PlaceMention | None
    destination: PlaceMention | None
    compared: bool  # places set side by side ("Rome or Paris?"): neither has a role
    route_pair: bool  # an origin and a destination written as a route ("Boston to Denver")
