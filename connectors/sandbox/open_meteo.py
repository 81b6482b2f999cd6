"""Open-Meteo endpoints: geocoding search (/v1/search) and the daily forecast (/v1/forecast)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any
from zoneinfo import ZoneInfoNotFoundError

from aiohttp import web
from multidict import MultiMapping

from connectors.sandbox import geocoding, weather
from connectors.sandbox.errors import OpenMeteoError
from connectors.sandbox.geo import zone
from connectors.sandbox.keys import FAULTS
from connectors.sandbox.params import parse_date
from connectors.sandbox.rng import unit

MAX_FORECAST_DAYS = 16
MAX_PAST_DAYS = 92


def generation_ms(request: web.Request) -> float:
    """Deterministic: the same request reports the same generation time."""
    return round(0.05 + unit("generationtime", request.path, request.query_string) * 1.5, 7)


def _float(query: MultiMapping[str], key: str, lo: float, hi: float, label: str) -> float:
    raw = query.get(key)
    if raw is None or raw.strip() == "":
        raise OpenMeteoError(f"Value of type 'Float' required for key '{key}'.")
    try:
        value = float(raw)
    except ValueError as exc:
        raise OpenMeteoError(
            f"Cannot initialize Float from invalid String value {raw} for key {key}"
        ) from exc
    if not lo <= value <= hi:
        raise OpenMeteoError(f"{label} must be in range of {lo:g} to {hi:g}°. Given: {value}.")
    return value


def _int(query: MultiMapping[str], key: str, default: int, lo: int, hi: int, message: str) -> int:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise OpenMeteoError(f"Cannot initialize Int from invalid String value {raw} for key {key}") from exc
    if not lo <= value <= hi:
        raise OpenMeteoError(message)
    return value


def _choice(query: MultiMapping[str], keys: tuple[str, ...], options: tuple[str, ...], default: str) -> str:
    for key in keys:
        raw = query.get(key)
        if raw:
            if raw not in options:
                raise OpenMeteoError(f"Cannot initialize {key} from invalid String value {raw} for key {key}")
            return raw
    return default


def _rate_limit(request: web.Request) -> None:
    """Open-Meteo's 429: its usual body, no Retry-After (the real API sends none either).

    Checked by the handlers because the middleware's Open-Meteo branch (app.py) has no rate limits.
    """
    faults = request.app[FAULTS]
    if faults.too_many_requests > 0:
        faults.too_many_requests -= 1
        raise OpenMeteoError("Minutely API request limit exceeded. Please try again in one minute.", 429)


async def geocoding_search(request: web.Request) -> web.Response:
    _rate_limit(request)
    q = request.query
    name = q.get("name", "")
    count = _int(q, "count", 10, 1, 100, "Parameter count must be between 1 and 100.")
    if q.get("format", "json") != "json":
        raise OpenMeteoError("The sandbox only serves format=json")
    found = await asyncio.to_thread(geocoding.search, name, count)
    results = await asyncio.to_thread(lambda: [geocoding.result(c) for c in found])
    body: dict[str, Any] = {"results": results} if results else {}
    body["generationtime_ms"] = generation_ms(request)
    return web.json_response(body)


def _timezone(raw: str | None, lat: float, lon: float) -> str:
    if raw is None or raw.upper() in ("", "GMT", "UTC"):
        return "GMT"
    if raw.lower() == "auto":
        return geocoding.timezone_at(lat, lon) or "GMT"
    try:
        zone(raw)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise OpenMeteoError("Invalid timezone") from exc
    return raw


def _dates(q: MultiMapping[str], local_today: dt.date) -> list[dt.date]:
    first_allowed = local_today - dt.timedelta(days=MAX_PAST_DAYS)
    last_allowed = local_today + dt.timedelta(days=MAX_FORECAST_DAYS - 1)
    start_raw, end_raw = q.get("start_date"), q.get("end_date")
    if start_raw is None and end_raw is None:
        days = _int(
            q,
            "forecast_days",
            7,
            0,
            MAX_FORECAST_DAYS,
            f"Forecast days is invalid. Allowed range 0 to {MAX_FORECAST_DAYS}.",
        )
        past = _int(
            q, "past_days", 0, 0, MAX_PAST_DAYS, f"Past days is invalid. Allowed range 0 to {MAX_PAST_DAYS}."
        )
        return [local_today + dt.timedelta(days=n) for n in range(-past, days)]
    if start_raw is None or end_raw is None:
        raise OpenMeteoError("Parameter 'start_date' and 'end_date' must be set both or none")
    bounds: list[dt.date] = []
    for key, raw in (("start_date", start_raw), ("end_date", end_raw)):
        parsed = parse_date(raw)
        if parsed is None:
            raise OpenMeteoError(f"Invalid date format. Make sure to use 'YYYY-MM-DD' for key {key}")
        if not first_allowed <= parsed <= last_allowed:
            raise OpenMeteoError(
                f"Parameter '{key}' is out of allowed range from {first_allowed} to {last_allowed}"
            )
        bounds.append(parsed)
    start, end = bounds
    if end < start:
        raise OpenMeteoError("End-date must be larger or equals than start-date")
    return [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]


async def forecast(request: web.Request) -> web.Response:
    _rate_limit(request)
    q = request.query
    lat = _float(q, "latitude", -90, 90, "Latitude")
    lon = _float(q, "longitude", -180, 180, "Longitude")
    requested = [v.strip() for raw in q.getall("daily", []) for v in raw.split(",") if v.strip()]
    for variable in requested:
        if weather.LEGACY.get(variable, variable) not in weather.DAILY_UNITS:
            raise OpenMeteoError(
                f"Cannot initialize WeatherVariable from invalid String value {variable} for key daily"
            )
    for key in ("hourly", "current", "minutely_15"):
        if q.get(key):
            raise OpenMeteoError(f"The sandbox serves daily variables only, not {key}")
    t_unit = _choice(q, ("temperature_unit",), ("celsius", "fahrenheit"), "celsius")
    w_unit = _choice(q, ("wind_speed_unit", "windspeed_unit"), ("kmh", "ms", "mph", "kn"), "kmh")
    p_unit = _choice(q, ("precipitation_unit",), ("mm", "inch"), "mm")
    tz_name = await asyncio.to_thread(_timezone, q.get("timezone"), lat, lon)
    now = dt.datetime.now(dt.UTC).astimezone(zone("UTC" if tz_name == "GMT" else tz_name))
    dates = _dates(q, now.date())
    elevation_raw = q.get("elevation")
    elevation = (
        _float(q, "elevation", -500, 9000, "Elevation")
        if elevation_raw
        else await asyncio.to_thread(geocoding.elevation, lat, lon)
    )

    def build() -> dict[str, Any]:
        days = [weather.day_weather(lat, lon, elevation, d) for d in dates]
        units: dict[str, str] = {"time": "iso8601"}
        daily: dict[str, list[Any]] = {"time": [d.isoformat() for d in dates]}
        for variable in requested:
            canonical = weather.LEGACY.get(variable, variable)
            metric = weather.DAILY_UNITS[canonical]
            units[variable] = weather.unit_label(metric, t_unit, w_unit, p_unit)
            daily[variable] = [
                weather.convert(weather.daily_value(day, canonical), metric, t_unit, w_unit, p_unit)
                for day in days
            ]
        body: dict[str, Any] = {
            "latitude": round(lat, 4),
            "longitude": round(lon, 4),
            "generationtime_ms": generation_ms(request),
            "utc_offset_seconds": int((now.utcoffset() or dt.timedelta(0)).total_seconds()),
            "timezone": tz_name,
            "timezone_abbreviation": "GMT" if tz_name == "GMT" else (now.tzname() or tz_name),
            "elevation": elevation,
        }
        if requested:
            body["daily_units"] = units
            body["daily"] = daily
        return body

    return web.json_response(await asyncio.to_thread(build))
