"""Synthetic daily weather, pure: a climate from latitude, season and continentality, plus hashed daily draws.

The same rounded point and date always give the same day, whatever else the request asks for. Values are
plausible, not forecasts: warm tropics, cold high latitudes, big seasonal swings inland, dry deserts,
Mediterranean dry summers, WMO weather codes consistent with the precipitation.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

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


def _box(lat: float, lon: float, lat_range: tuple[float, float], lon_range: tuple[float, float]) -> bool:
    return lat_range[0] <= lat <= lat_range[1] and lon_range[0] <= lon <= lon_range[1]


def continentality(lat: float, lon: float) -> float:
    """How far the seasons swing: low on western coasts and in the southern hemisphere, high inland."""
    if _box(lat, lon, (35, 72), (40, 135)):
        return 1.25  # Eurasian interior
    if _box(lat, lon, (30, 65), (-115, -80)):
        return 1.2  # North American interior
    if _box(lat, lon, (35, 65), (-80, -60)):
        return 1.05  # North American east coast
    if _box(lat, lon, (55, 72), (-25, 9)):
        return 0.45  # North Atlantic
    if _box(lat, lon, (35, 55), (-25, 9)) or _box(lat, lon, (30, 60), (-130, -117)):
        return 0.65  # Atlantic Europe, Pacific North America
    if lat < 0:
        return 0.6
    return 0.9


def aridity(lat: float, lon: float) -> bool:
    return (
        _box(lat, lon, (15, 33), (-17, 60))  # Sahara and Arabia
        or _box(lat, lon, (28, 38), (-118, -104))  # US south-west
        or _box(lat, lon, (-32, -18), (118, 145))  # Australian interior
        or cold_coast_desert(lat, lon)
    )


def cold_coast_desert(lat: float, lon: float) -> bool:
    """The Peruvian and Atacama coasts: rainless but cooled by the Humboldt current."""
    return _box(lat, lon, (-18, -4), (-81.5, -76)) or _box(lat, lon, (-30, -18), (-71.5, -69.5))


# Zonal mean sea-level temperature (°C) by latitude.
_ZONAL = (
    (0, 27.0),
    (20, 25.5),
    (30, 20.0),
    (40, 14.5),
    (50, 9.0),
    (60, 3.0),
    (70, -5.0),
    (80, -15.0),
    (90, -20.0),
)


def zonal_mean(abs_lat: float) -> float:
    for (lat0, t0), (lat1, t1) in zip(_ZONAL, _ZONAL[1:], strict=False):
        if abs_lat <= lat1:
            return t0 + (t1 - t0) * (abs_lat - lat0) / (lat1 - lat0)
    return _ZONAL[-1][1]


def mediterranean(lat: float, lon: float) -> bool:
    return (
        _box(lat, lon, (30, 45), (-10, 40))
        or _box(lat, lon, (32, 40), (-124, -117))
        or _box(lat, lon, (-36, -30), (-72, -70))
    )


def _season(lat: float, day: dt.date) -> float:
    """+1 at the height of local summer, -1 in deep winter."""
    peak = 200 if lat >= 0 else 18
    return math.cos(2 * math.pi * (day.timetuple().tm_yday - peak) / 365.25)


def _noise(lat: float, lon: float, day: dt.date) -> float:
    return rng_for("weather-anomaly", f"{lat:.1f}", f"{lon:.1f}", day.isoformat()).gauss(0, 1)


def day_weather(lat: float, lon: float, elevation_m: float, day: dt.date) -> Day:
    abs_lat = abs(lat)
    season = _season(lat, day)
    arid = aridity(lat, lon)
    cold_coast = cold_coast_desert(lat, lon)
    mean = zonal_mean(abs_lat) - 5.0 * elevation_m / 1000
    mean += (
        -6.0
        if cold_coast
        else 2.5
        if arid
        else (5.0 if lat > 55 else 3.0)
        if _box(lat, lon, (35, 72), (-25, 9))
        else 0.0
    )
    amplitude = max(1.0, 0.27 * abs_lat * continentality(lat, lon))
    climate = mean + amplitude * season
    spread = 3.0 if abs_lat > 25 else 1.2
    anomaly = spread * sum(
        w * _noise(lat, lon, day - dt.timedelta(days=k)) for k, w in enumerate((0.55, 0.3, 0.15))
    )
    day_range = (
        7.0
        if cold_coast
        else 14.0
        if arid
        else 7.0
        if abs_lat < 15
        else 9.0 * min(1.3, continentality(lat, lon) + 0.2)
    )

    rng = rng_for("weather-day", f"{lat:.1f}", f"{lon:.1f}", day.isoformat())
    if arid:
        p_wet, mean_mm = 0.04, 3.0
    elif abs_lat < 10:
        p_wet, mean_mm = 0.45 + 0.1 * season, 11.0  # equatorial: rain all year
    elif abs_lat < 23:
        p_wet, mean_mm = 0.3 + 0.25 * season, 11.0  # a wet season in local summer
    elif mediterranean(lat, lon):
        p_wet, mean_mm = 0.2 - 0.15 * season, 6.0  # dry summers, wet winters
    else:
        p_wet, mean_mm = 0.38, 4.5
    wet = rng.random() < p_wet
    precip = round(rng.expovariate(1 / mean_mm) + 0.2, 1) if wet else 0.0

    t_max = round(climate + anomaly + day_range / 2 - (1.5 if wet else 0.0), 1)
    t_min = round(climate + anomaly - day_range / 2 + (1.0 if wet else 0.0), 1)
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
    sun = 90 - abs(lat - 23.44 * math.sin(2 * math.pi * (day.timetuple().tm_yday - 81) / 365.25))
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
