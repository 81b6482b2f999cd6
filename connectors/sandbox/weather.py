"""Synthetic daily weather, pure: the place's climate normals (climate.py) plus hashed daily draws.

The same rounded point and date always give the same day, whatever else the request asks for. Values are
plausible, not forecasts: a day near the normal high and low for the city and season (Rome in late
November about 8 to 16 °C), dry deserts, monsoon rains, Mediterranean dry summers, WMO weather codes
consistent with the precipitation.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from connectors.sandbox import climate
from connectors.sandbox.rng import rng_for

DAILY_UNITS = {
    "temperature_2m_max": "°C", "temperature_2m_min": "°C", "temperature_2m_mean": "°C",
    "precipitation_sum": "mm", "rain_sum": "mm", "snowfall_sum": "cm", "precipitation_hours": "h",
    "precipitation_probability_max": "%", "weather_code": "wmo code", "wind_speed_10m_max": "km/h",
    "wind_gusts_10m_max": "km/h", "uv_index_max": "",
}  # fmt: skip
# Names the real API still accepts from its first versions.
LEGACY = {
    "weathercode": "weather_code",
    "windspeed_10m_max": "wind_speed_10m_max",
    "windgusts_10m_max": "wind_gusts_10m_max",
}


@dataclass(frozen=True, slots=True)
class Day:
    temperature_2m_max: float
    temperature_2m_min: float
    precipitation_sum: float
    snowfall_cm: float
    precipitation_hours: float
    precipitation_probability_max: int
    weather_code: int
    wind_speed_10m_max: float
    wind_gusts_10m_max: float
    uv_index_max: float


def _noise(lat: float, lon: float, day: dt.date) -> float:
    return rng_for("weather-anomaly", f"{lat:.1f}", f"{lon:.1f}", day.isoformat()).gauss(0, 1)


def _wet_chance(n: climate.Normals, lat: float, lon: float, yday: int) -> tuple[float, float]:
    """The chance of a wet day and the mean rain of a wet day (mm), from the climate type and season."""
    season = n.season(yday)
    if n.kind in (climate.Kind.DESERT, climate.Kind.COLD_COAST):
        return 0.04, 3.0
    if n.kind is climate.Kind.MONSOON:  # dry winters, a drenching July and August
        return max(0.03, 0.35 + 0.4 * climate.monsoon_rains(yday)), 14.0
    if abs(lat) < 10:
        return 0.45 + 0.1 * season, 11.0  # equatorial: rain all year
    if abs(lat) < 23:
        return 0.3 + 0.25 * season, 11.0  # a wet season in local summer
    if climate.mediterranean(lat, lon):
        return 0.2 - 0.15 * season, 6.0  # dry summers, wet winters
    if n.kind is climate.Kind.HUMID:
        return 0.35 + 0.15 * season, 8.0  # the East Asian summer rains
    return 0.38, 4.5


def day_weather(lat: float, lon: float, elevation_m: float, day: dt.date) -> Day:
    """One day's weather at the point: its climate normal for the date, a daily anomaly, rain and wind."""
    abs_lat = abs(lat)
    n = climate.normals(round(lat, 1), round(lon, 1), round(elevation_m))
    yday = day.timetuple().tm_yday
    season = n.season(yday)
    # Day-to-day swings: small in the tropics, larger at high latitudes, largest in continental winters.
    spread = (0.8 + 1.8 * min(1.0, max(0.0, (abs_lat - 10) / 30))) * (
        1 + 0.3 * max(0.0, -season) * min(1.0, n.winter_continentality)
    )
    anomaly = spread * sum(
        w * _noise(lat, lon, day - dt.timedelta(days=k)) for k, w in enumerate((0.55, 0.3, 0.15))
    )
    mean, day_range = n.mean(yday), n.range_on(yday)

    rng = rng_for("weather-day", f"{lat:.1f}", f"{lon:.1f}", day.isoformat())
    p_wet, mean_mm = _wet_chance(n, lat, lon, yday)
    wet = rng.random() < p_wet
    precip = round(rng.expovariate(1 / mean_mm) + 0.2, 1) if wet else 0.0

    # Clouds narrow the day-night gap; centred on the chance of rain so the normals stay the means.
    cloud_shift = (1 - p_wet) if wet else -p_wet
    t_max = round(mean + anomaly + day_range / 2 - 1.5 * cloud_shift, 1)
    t_min = round(mean + anomaly - day_range / 2 + 1.0 * cloud_shift, 1)
    snow = wet and t_max < 1.5
    cloud = rng.random()
    if not wet:
        code = 0 if cloud < 0.35 else 1 if cloud < 0.6 else 2 if cloud < 0.8 else 3
        probability = int(rng.uniform(0, 30 if p_wet > 0.2 else 12))
    else:
        probability = min(100, int(50 + precip * 4 + rng.uniform(0, 10)))
        if snow:
            code = 71 if precip < 2 else 73 if precip < 8 else 75
        elif precip > 8 and t_max > 24:
            code = 95
        elif t_max > 18:
            code = 80 if precip < 2 else 81 if precip < 10 else 82
        else:
            code = 51 if precip < 1 else 61 if precip < 3 else 63 if precip < 10 else 65

    wind = max(3.0, 9 + 0.25 * abs_lat + rng.gauss(0, 5) + (7 if wet else 0))
    sun = 90 - abs(lat - 23.44 * math.sin(2 * math.pi * (yday - 81) / 365.25))
    uv = 12.5 * max(0.0, math.sin(math.radians(sun))) ** 2.5 * (0.55 if wet else 1 - 0.35 * (code / 3))
    return Day(
        temperature_2m_max=t_max,
        temperature_2m_min=min(t_min, t_max),
        precipitation_sum=precip,
        snowfall_cm=round(precip * 0.7, 2) if snow else 0.0,
        precipitation_hours=float(min(24, round(1 + precip * 0.7))) if wet else 0.0,
        precipitation_probability_max=probability,
        weather_code=code,
        wind_speed_10m_max=round(wind, 1),
        wind_gusts_10m_max=round(wind * 1.7 + rng.uniform(0, 8), 1),
        uv_index_max=round(uv, 2),
    )


def daily_value(d: Day, variable: str) -> float | int:
    """A canonical daily variable's value in metric units (°C, mm, cm, km/h)."""
    if variable == "temperature_2m_mean":
        return round((d.temperature_2m_max + d.temperature_2m_min) / 2, 1)
    if variable == "rain_sum":
        return 0.0 if d.snowfall_cm else d.precipitation_sum
    if variable == "snowfall_sum":
        return d.snowfall_cm
    value: float | int = getattr(d, variable)
    return value


def convert(
    value: float | int, unit: str, temperature_unit: str, wind_unit: str, precip_unit: str
) -> float | int:
    if unit == "°C" and temperature_unit == "fahrenheit":
        return round(value * 9 / 5 + 32, 1)
    if unit == "km/h":
        factor = {"kmh": 1.0, "ms": 1 / 3.6, "mph": 1 / 1.609344, "kn": 1 / 1.852}[wind_unit]
        return round(value * factor, 1)
    if unit in ("mm", "cm") and precip_unit == "inch":
        return round(value / (25.4 if unit == "mm" else 2.54), 3)
    return value


def unit_label(unit: str, temperature_unit: str, wind_unit: str, precip_unit: str) -> str:
    if unit == "°C" and temperature_unit == "fahrenheit":
        return "°F"
    if unit == "km/h":
        return {"kmh": "km/h", "ms": "m/s", "mph": "mp/h", "kn": "kn"}[wind_unit]
    if unit in ("mm", "cm") and precip_unit == "inch":
        return "inch"
    return unit
