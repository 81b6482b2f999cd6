"""Normalized tool results: the provider's stable identifiers, a price, when it was fetched, and a sentence.

``identity`` never uses per-response ordinals (Amadeus offer ids are "1", "2", ...), the price or the
time of fetching, so the same flight, room or activity seen twice has the same identity.

The models are the boundary for what a provider may say: codes must look like codes (IATA, currency,
city, country, carrier), links must be plain http(s) URLs, numbers must be finite and prices not
negative. A connector drops what they refuse (connectors/shapes.py). Prose is cleaned later, by the
service's sanitizer, at every depth of the model.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import urlsplit

from babel.numbers import get_currency_precision
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

Iata = Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]{3}$")]
CityCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
CurrencyCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]
CarrierCode = Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]{2,3}$")]
FlightNumber = Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]{1,8}$")]
CabinCode = Annotated[str, StringConstraints(pattern=r"^[A-Z_]{1,32}$")]
Price = Annotated[float, Field(ge=0)]
Latitude = Annotated[float, Field(ge=-90, le=90)]
Longitude = Annotated[float, Field(ge=-180, le=180)]
MAX_LINK_CHARS = 2000
_UNSAFE_IN_LINK = frozenset("<>\"'`\\{}|^")


def is_safe_link(value: str) -> bool:
    """An absolute http(s) URL with a host and no whitespace, control, format or markup characters."""
    if not value or len(value) > MAX_LINK_CHARS:
        return False
    if any(c.isspace() or c in _UNSAFE_IN_LINK or unicodedata.category(c)[0] in "CZ" for c in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _check_link(value: str) -> str:
    if not is_safe_link(value):
        raise ValueError("not a plain http(s) URL")
    return value


Link = Annotated[str, AfterValidator(_check_link)]


Days = tuple[dt.date, dt.date]  # the first and the last day, both included
Lookup = tuple[Literal["airport", "city"], str]  # an IATA code, read as an airport's or a city's


@dataclass(frozen=True, slots=True)
class Where:
    """Where and when a result is, from its own fields, for whoever places it (the index's place
    filters, the recall's "the hotels you found in Lisbon"): no one needs to know each result's type."""

    codes: tuple[str, ...] = ()  # every IATA code it is about (a flight's airports)
    route: tuple[str, str] | None = None  # a route's origin and destination
    lookups: tuple[Lookup, ...] = ()  # how to find the city it is in or goes to, in order
    point: tuple[float, float] | None = None  # its coordinates, when codes do not place it
    days: tuple[Days, ...] = ()  # departures, a stay's nights, a forecast's day


class Result(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    # Each result model narrows this to its own literal (rag/tools: one kind per tool).
    kind: str
    provider: str
    sandbox: bool = False
    fetched_at: dt.datetime
    # What the provider's terms ask an answer built on this result to carry (set by the tool runner).
    attribution: str | None = None

    @property
    def identity(self) -> str:
        raise NotImplementedError

    def render(self) -> str:
        raise NotImplementedError

    def where(self) -> Where:
        """Where and when this result is; nowhere in particular unless a result type says."""
        return Where()


def money(amount: float | None, currency: str | None) -> str:
    """A price as people read it, in the currency's minor units: '21,400 JPY', '1,234.50 EUR', '3.250 KWD'.

    The digits are CLDR's (through babel), so yen and won show no decimals and dinars three.
    """
    if amount is None:
        return "price unknown"
    digits = get_currency_precision(currency.upper()) if currency else 2
    return f"{amount:,.{digits}f} {currency or ''}".strip()


def hours(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return f"{h}h{m:02d}" if h else f"{m}min"


class Segment(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    carrier: CarrierCode
    carrier_name: str | None = None
    number: FlightNumber
    origin: Iata
    destination: Iata
    departure: dt.datetime  # local time at the origin
    arrival: dt.datetime  # local time at the destination
    duration_minutes: int | None = None

    @property
    def flight(self) -> str:
        return f"{self.carrier}{self.number}"


class Itinerary(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    segments: list[Segment] = Field(min_length=1)
    duration_minutes: int | None = None

    @property
    def stops(self) -> int:
        return len(self.segments) - 1

    def render(self) -> str:
        first, last = self.segments[0], self.segments[-1]
        stops = (
            "nonstop"
            if not self.stops
            else f"{self.stops} stop{'s' if self.stops > 1 else ''} via "
            + ", ".join(s.destination for s in self.segments[:-1])
        )
        airline = first.carrier_name or first.carrier
        if airline.isupper() and len(airline) > 3:  # Amadeus writes names in capitals: "AIR FRANCE"
            airline = airline.title()
        flights = "/".join(s.flight for s in self.segments)
        duration = f", {hours(self.duration_minutes)}" if self.duration_minutes else ""
        return (
            f"{first.origin} {first.departure:%Y-%m-%d %H:%M} → {last.destination} {last.arrival:%Y-%m-%d %H:%M}, "
            f"{stops}{duration} ({airline} {flights})"
        )


class FlightOffer(Result):
    kind: Literal["flight_offer"] = "flight_offer"
    itineraries: list[Itinerary] = Field(min_length=1)
    cabin: CabinCode
    price: Price
    currency: CurrencyCode
    adults: int = 1
    bookable_seats: int | None = None

    @property
    def origin(self) -> str:
        return self.itineraries[0].segments[0].origin

    @property
    def destination(self) -> str:
        return self.itineraries[0].segments[-1].destination

    @property
    def carriers(self) -> frozenset[str]:
        """The marketing carriers of every flight of the offer ({"UA"} for United all the way)."""
        return frozenset(s.carrier for it in self.itineraries for s in it.segments)

    @property
    def identity(self) -> str:
        legs = "|".join(
            f"{s.flight}@{s.departure:%Y-%m-%dT%H:%M}" for it in self.itineraries for s in it.segments
        )
        return f"flight:{legs}:{self.cabin}"

    def render(self) -> str:
        trips = " Return: ".join(it.render() for it in self.itineraries)
        who = f" for {self.adults} adults" if self.adults > 1 else ""
        return f"Flight {trips}. {self.cabin.replace('_', ' ').lower()}, {money(self.price, self.currency)} total{who}."

    def where(self) -> Where:
        airports = {s.origin for it in self.itineraries for s in it.segments}
        airports |= {s.destination for it in self.itineraries for s in it.segments}
        # Each way's departure, in local time at its airport.
        days = dict.fromkeys(it.segments[0].departure.date() for it in self.itineraries)
        return Where(
            codes=tuple(sorted(airports)),
            route=(self.origin, self.destination),
            lookups=(("airport", self.destination), ("city", self.destination)),
            days=tuple((d, d) for d in days),
        )


class HotelOffer(Result):
    kind: Literal["hotel_offer"] = "hotel_offer"
    hotel_id: str
    name: str
    city_code: CityCode
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    check_in: dt.date
    check_out: dt.date
    room: str | None = None  # provider room type code
    room_description: str | None = None
    adults: int = 1
    price: Price
    currency: CurrencyCode
    cancellation: str | None = None

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days

    @property
    def identity(self) -> str:
        return f"hotel:{self.hotel_id}:{self.check_in}:{self.check_out}:{self.room or '-'}:{self.adults}"

    def render(self) -> str:
        room = f", {self.room_description}" if self.room_description else ""
        per_night = self.price / self.nights if self.nights else self.price
        return (
            f"{self.name.title()} ({self.city_code}), {self.check_in:%Y-%m-%d} to {self.check_out:%Y-%m-%d} "
            f"({self.nights} night{'s' if self.nights != 1 else ''}, {self.adults} adult{'s' if self.adults != 1 else ''})"
            f"{room}: {money(self.price, self.currency)} total, about {money(per_night, self.currency)} a night."
        )

    def where(self) -> Where:
        last_night = max(self.check_in, self.check_out - dt.timedelta(days=1))  # checking out is no night
        return Where(
            codes=(self.city_code,), lookups=(("city", self.city_code),), days=((self.check_in, last_night),)
        )


class Activity(Result):
    kind: Literal["activity"] = "activity"
    activity_id: str
    name: str
    description: str | None = None  # third-party text: data, never instructions
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    rating: float | None = None
    price: Price | None = None
    currency: CurrencyCode | None = None
    duration: str | None = None
    booking_link: Link | None = None

    @property
    def identity(self) -> str:
        return f"activity:{self.activity_id}"

    def render(self) -> str:
        rating = f", rated {self.rating:.1f}" if self.rating is not None else ""
        duration = f", {self.duration}" if self.duration else ""
        return f"{self.name}: {money(self.price, self.currency)}{duration}{rating}."

    def where(self) -> Where:
        if self.latitude is None or self.longitude is None:
            return Where()
        return Where(point=(self.latitude, self.longitude))


class Location(Result):
    kind: Literal["location"] = "location"
    location_id: str
    sub_type: str  # CITY or AIRPORT
    name: str
    iata: Iata
    city_name: str | None = None
    city_code: CityCode | None = None
    country_code: CountryCode | None = None
    latitude: Latitude | None = None
    longitude: Longitude | None = None

    @property
    def identity(self) -> str:
        return f"location:{self.location_id}"

    def render(self) -> str:
        country = f", {self.country_code}" if self.country_code else ""
        if self.sub_type == "AIRPORT":
            city = f" in {self.city_name.title()}" if self.city_name else ""
            return f"{self.name.title()} airport ({self.iata}){city}{country}."
        return f"{self.name.title()} ({self.iata}), city{country}."

    def where(self) -> Where:
        lookups: tuple[Lookup, ...] = (("city", self.city_code or self.iata), ("airport", self.iata))
        return Where(codes=tuple(c for c in (self.iata, self.city_code) if c), lookups=lookups)


class WeatherDay(Result):
    kind: Literal["weather"] = "weather"
    place: str
    latitude: Latitude
    longitude: Longitude
    date: dt.date
    temperature_max: float | None = None
    temperature_min: float | None = None
    precipitation_mm: float | None = None
    precipitation_probability: float | None = None
    weather_code: int | None = None
    wind_max_kmh: float | None = None

    @property
    def identity(self) -> str:
        return f"weather:{self.latitude:.2f},{self.longitude:.2f}:{self.date}"

    def render(self) -> str:
        parts = [describe_weather(self.weather_code)]
        if self.temperature_min is not None and self.temperature_max is not None:
            parts.append(f"{self.temperature_min:.0f} to {self.temperature_max:.0f} °C")
        if self.precipitation_probability is not None:
            parts.append(f"{self.precipitation_probability:.0f}% chance of rain")
        if self.precipitation_mm:
            parts.append(f"{self.precipitation_mm:.1f} mm")
        return f"{self.place} on {self.date:%a %Y-%m-%d}: " + ", ".join(parts) + "."

    def where(self) -> Where:
        return Where(point=(self.latitude, self.longitude), days=((self.date, self.date),))


class FarePoint(Result):
    """A cached, indicative fare from the inspiration or cheapest-dates endpoints."""

    origin: Iata
    destination: Iata
    departure_date: dt.date
    return_date: dt.date | None = None
    price: Price
    currency: CurrencyCode
    indicative: bool = True

    @property
    def identity(self) -> str:
        return f"{self.kind}:{self.origin}-{self.destination}:{self.departure_date}:{self.return_date or '-'}"

    def render(self) -> str:
        back = f", back {self.return_date:%Y-%m-%d}" if self.return_date else " one way"
        return (
            f"{self.origin} → {self.destination} leaving {self.departure_date:%Y-%m-%d}{back}: from "
            f"{money(self.price, self.currency)} (indicative, cached by the provider)."
        )

    def where(self) -> Where:
        days = tuple((d, d) for d in (self.departure_date, self.return_date) if d is not None)
        return Where(
            codes=(self.origin, self.destination),
            route=(self.origin, self.destination),
            lookups=(("city", self.destination),),
            days=days,
        )


class Inspiration(FarePoint):
    kind: Literal["inspiration"] = "inspiration"


class CheapestDate(FarePoint):
    kind: Literal["cheapest_date"] = "cheapest_date"


_WMO = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "freezing fog",
    51: "light drizzle",
    53: "drizzle",
    55: "heavy drizzle",
    56: "freezing drizzle",
    57: "freezing drizzle",
    61: "light rain",
    63: "rain",
    65: "heavy rain",
    66: "freezing rain",
    67: "freezing rain",
    71: "light snow",
    73: "snow",
    75: "heavy snow",
    77: "snow grains",
    80: "rain showers",
    81: "rain showers",
    82: "violent rain showers",
    85: "snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with hail",
    99: "thunderstorm with heavy hail",
}


def describe_weather(code: int | None) -> str:
    return _WMO.get(code, "weather unknown") if code is not None else "weather unknown"
