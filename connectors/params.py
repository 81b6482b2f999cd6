"""Tool parameters: pydantic models whose JSON schema is what an LLM sees.

Validation needs a context: ``{"catalogue": LocationCatalogue, "today": date}``. Locations are
resolved to IATA codes during validation (a name, a code, or a misspelling of a name), so a valid
model always holds codes the providers accept.
"""

from __future__ import annotations

import datetime as dt
import functools
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pycountry
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from connectors.airlines import resolve_airline
from connectors.places import LocationCatalogue, Place

MAX_DAYS_AHEAD = 361
# The longest place a parameter names ("Llanfairpwllgwyngyll, Wales" and "Lisbon, Portugal" fit): a
# longer value is refused by its length, before any lookup, and never repeated whole in the error.
PLACE_CHARS = 100


# Some text once its ends are stripped (JSON Schema patterns search: one character that is not a space).
SOME_TEXT = r"\S"
TWO_CHARACTERS = r"\S[\s\S]*\S"  # two characters, once stripped


def _takes_int(annotation: Any) -> bool:
    if annotation is int:
        return True
    args = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else ()
    return int in args and float not in args


@functools.cache
def _int_fields(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for name, f in model.model_fields.items() if _takes_int(f.annotation))


def whole_numbers(model: type[BaseModel], data: Any) -> Any:
    """``data`` with JSON's whole numbers written with a fraction (``30.0``) as integers where ``model``
    takes an integer: JSON Schema's "integer" is any number without a fractional part, so a document
    that says "integer" accepts them. Nothing else is coerced. (Applied before validation, not as a
    model validator: one would make a strict JSON validation read its dates as Python values.)"""
    if not isinstance(data, dict):
        return data
    ints = _int_fields(model)
    return {k: int(v) if k in ints and type(v) is float and v.is_integer() else v for k, v in data.items()}


class ToolParams(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, allow_inf_nan=False)


def _context(info: ValidationInfo) -> tuple[LocationCatalogue, dt.date]:
    ctx = info.context or {}
    return ctx["catalogue"], ctx["today"]


def resolve_place(value: str, info: ValidationInfo) -> Place:
    catalogue, _ = _context(info)
    place = catalogue.resolve(value)
    if place is None:
        raise PydanticCustomError("unknown_location", "unknown city or airport: {value}", {"value": value})
    return place


def check_future(day: dt.date, info: ValidationInfo, field: str) -> dt.date:
    _, today = _context(info)
    if day < today:
        raise PydanticCustomError(
            "date_in_past", "{field} {day} is in the past", {"field": field, "day": str(day)}
        )
    if (day - today).days > MAX_DAYS_AHEAD:
        raise PydanticCustomError(
            "date_too_far",
            "{field} {day} is more than {n} days ahead",
            {"field": field, "day": str(day), "n": MAX_DAYS_AHEAD},
        )
    return day


def check_currency(value: str | None) -> str | None:
    if value is None:
        return None
    code = value.upper()
    if pycountry.currencies.get(alpha_3=code) is None:
        raise PydanticCustomError("unknown_currency", "unknown currency code: {value}", {"value": value})
    return code


Currency = Annotated[Annotated[str, StringConstraints(max_length=3)] | None, AfterValidator(check_currency)]
Cabin = Literal["ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"]
# Kinds of place an activity search can ask for; each provider maps them onto what it can filter on.
ActivityCategory = Literal[
    "museum", "park", "religious", "historic", "performing_arts", "amusement", "sports", "landmark"
]
CATEGORY_HELP = (
    "Only one kind of place: museum (museums, galleries); park (parks, gardens, nature reserves); "
    "religious (churches, temples, mosques, places of worship); historic (historical sites, monuments, "
    "castles); performing_arts (theatres, concert halls, opera); amusement (theme parks, zoos, "
    "aquariums); sports (stadiums, sports venues); landmark (sights, viewpoints, architecture)"
)
LOCATION = "a city or airport: a name ('London') or an IATA code ('LON', 'LHR')"
# A place as a parameter names it: some text, once stripped, no longer than PLACE_CHARS.
PlaceText = Annotated[str, StringConstraints(min_length=1, max_length=PLACE_CHARS, pattern=SOME_TEXT)]


class FlightSearchParams(ToolParams):
    origin: PlaceText = Field(description=f"Where the trip starts: {LOCATION}")
    destination: PlaceText = Field(description=f"Where the trip goes: {LOCATION}")
    departure_date: dt.date = Field(description="Outbound date, YYYY-MM-DD")
    return_date: dt.date | None = Field(None, description="Return date for a round trip, YYYY-MM-DD")
    adults: int = Field(1, ge=1, le=9, description="Travellers aged 12 or over")
    children: int = Field(0, ge=0, le=8, description="Travellers aged 2 to 11")
    infants: int = Field(0, ge=0, le=9, description="Infants under 2 on a lap; at most one per adult")
    cabin: Cabin = Field("ECONOMY", description="Cabin class")
    nonstop: bool = Field(False, description="Only direct flights")
    max_price: int | None = Field(None, gt=0, description="Highest total price")
    currency: Currency = Field(None, description="ISO 4217 currency code for prices, e.g. EUR")
    airline: str | None = Field(
        None,
        min_length=2,
        max_length=60,
        description="Only flights of this airline: its name ('United Airlines', 'KLM') or IATA code ('UA')",
    )

    @field_validator("origin", "destination")
    @classmethod
    def _place(cls, v: str, info: ValidationInfo) -> str:
        return resolve_place(v, info).code

    @field_validator("airline")
    @classmethod
    def _airline(cls, v: str | None) -> str | None:
        if v is None:
            return None
        code = resolve_airline(v)
        if code is None:
            raise PydanticCustomError("unknown_airline", "unknown airline: {value}", {"value": v})
        return code

    @field_validator("departure_date")
    @classmethod
    def _departure(cls, v: dt.date, info: ValidationInfo) -> dt.date:
        return check_future(v, info, "departure_date")

    @model_validator(mode="after")
    def _combination(self, info: ValidationInfo) -> FlightSearchParams:
        if self.return_date is not None and self.return_date < self.departure_date:
            raise PydanticCustomError("return_before_departure", "return_date is before departure_date")
        if self.adults + self.children > 9:
            raise PydanticCustomError(
                "too_many_travellers", "at most 9 seated travellers (adults + children)"
            )
        if self.infants > self.adults:
            raise PydanticCustomError("too_many_infants", "at most one infant per adult")
        catalogue, _ = _context(info)
        a, b = catalogue.resolve(self.origin), catalogue.resolve(self.destination)
        if a and b and a.city_code == b.city_code:
            raise PydanticCustomError("same_place", "origin and destination are the same place")
        return self


class HotelSearchParams(ToolParams):
    city: PlaceText = Field(description=f"Where to stay: {LOCATION}")
    check_in: dt.date = Field(description="Check-in date, YYYY-MM-DD")
    check_out: dt.date | None = Field(None, description="Check-out date, YYYY-MM-DD (or give nights)")
    nights: int | None = Field(None, ge=1, le=30, description="Number of nights (or give check_out)")
    adults: int = Field(1, ge=1, le=9, description="Guests per room")
    rooms: int = Field(1, ge=1, le=9, description="Number of rooms")
    max_price: int | None = Field(None, gt=0, description="Highest total price for the stay")
    currency: Currency = Field(None, description="ISO 4217 currency code for prices")

    @field_validator("city")
    @classmethod
    def _place(cls, v: str, info: ValidationInfo) -> str:
        return resolve_place(v, info).city_code

    @field_validator("check_in")
    @classmethod
    def _check_in(cls, v: dt.date, info: ValidationInfo) -> dt.date:
        return check_future(v, info, "check_in")

    @model_validator(mode="after")
    def _stay(self) -> HotelSearchParams:
        if self.check_out is None:
            self.check_out = self.check_in + dt.timedelta(days=self.nights or 1)
        elif self.nights is not None and (self.check_out - self.check_in).days != self.nights:
            raise PydanticCustomError("nights_mismatch", "check_out and nights disagree")
        if self.check_out <= self.check_in:
            raise PydanticCustomError("check_out_before_check_in", "check_out must be after check_in")
        if (self.check_out - self.check_in).days > 30:
            raise PydanticCustomError("stay_too_long", "a stay can be at most 30 nights")
        self.nights = (self.check_out - self.check_in).days
        return self


class ActivitySearchParams(ToolParams):
    # A city, or both coordinates: said in the schema too.
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["city"], "properties": {"city": {"type": "string"}}},
                {
                    "required": ["latitude", "longitude"],
                    "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
                },
            ]
        }
    )
    city: PlaceText | None = Field(None, description=f"Where: {LOCATION} (or give latitude and longitude)")
    latitude: float | None = Field(None, ge=-90, le=90)
    longitude: float | None = Field(None, ge=-180, le=180)
    radius_km: int = Field(5, ge=1, le=20, description="Search radius around the point, km")
    category: ActivityCategory | None = Field(None, description=CATEGORY_HELP)

    @model_validator(mode="after")
    def _where(self, info: ValidationInfo) -> ActivitySearchParams:
        if self.city is not None:
            place = resolve_place(self.city, info)
            self.city = place.city_name
            if self.latitude is None or self.longitude is None:
                self.latitude, self.longitude = place.latitude, place.longitude
        if self.latitude is None or self.longitude is None:
            raise PydanticCustomError("missing_location", "give a city, or latitude and longitude")
        return self


class LocationSearchParams(ToolParams):
    keyword: str = Field(
        min_length=2,
        max_length=60,
        pattern=TWO_CHARACTERS,
        description="Start of a city or airport name, or a code",
    )
    kind: Literal["CITY", "AIRPORT", "ANY"] = Field("ANY", description="What to look for")


class FlightInspirationParams(ToolParams):
    origin: PlaceText = Field(description=f"Where the trip starts: {LOCATION}")
    max_price: int | None = Field(None, gt=0, description="Highest round-trip price")
    departure_date: dt.date | None = Field(None, description="Earliest departure, YYYY-MM-DD")
    one_way: bool = False
    duration_days: int | None = Field(None, ge=1, le=15, description="Trip length in days for round trips")
    nonstop: bool = False

    @field_validator("origin")
    @classmethod
    def _place(cls, v: str, info: ValidationInfo) -> str:
        return resolve_place(v, info).city_code

    @field_validator("departure_date")
    @classmethod
    def _departure(cls, v: dt.date | None, info: ValidationInfo) -> dt.date | None:
        return None if v is None else check_future(v, info, "departure_date")


class CheapestDatesParams(ToolParams):
    origin: PlaceText = Field(description=f"Where the trip starts: {LOCATION}")
    destination: PlaceText = Field(description=f"Where the trip goes: {LOCATION}")
    departure_date: dt.date | None = Field(None, description="Earliest departure, YYYY-MM-DD")
    one_way: bool = False
    duration_days: int | None = Field(None, ge=1, le=15, description="Trip length in days for round trips")
    nonstop: bool = False

    @field_validator("origin", "destination")
    @classmethod
    def _place(cls, v: str, info: ValidationInfo) -> str:
        return resolve_place(v, info).city_code

    @field_validator("departure_date")
    @classmethod
    def _departure(cls, v: dt.date | None, info: ValidationInfo) -> dt.date | None:
        return None if v is None else check_future(v, info, "departure_date")

    @model_validator(mode="after")
    def _different(self) -> CheapestDatesParams:
        if self.origin == self.destination:
            raise PydanticCustomError("same_place", "origin and destination are the same place")
        return self


class WeatherForecastParams(ToolParams):
    city: str = Field(
        min_length=2,
        max_length=PLACE_CHARS,
        pattern=TWO_CHARACTERS,
        description="Place name, e.g. 'Tokyo' or 'Lisbon, Portugal'",
    )
    days: int = Field(7, ge=1, le=16, description="Days of forecast from start_date")
    start_date: dt.date | None = Field(
        None, description="First day, YYYY-MM-DD (default today; forecasts reach 16 days)"
    )

    @model_validator(mode="after")
    def _range(self, info: ValidationInfo) -> WeatherForecastParams:
        _, today = _context(info)
        start = self.start_date or today
        if start < today:
            raise PydanticCustomError("date_in_past", "start_date {day} is in the past", {"day": str(start)})
        if (start - today).days + self.days > 16:
            raise PydanticCustomError("forecast_too_far", "forecasts reach only 16 days ahead")
        self.start_date = start
        return self


def schema_of(model: type[ToolParams]) -> dict[str, Any]:
    return model.model_json_schema()
