"""Climate normals for any point, pure: the mean daily high and low by day of year, from geography alone.

The synthetic forecast (weather.py) adds daily weather to these normals. The sandbox has no climate data,
so the normals come from what shapes a climate: latitude and hemisphere (tables below), continentality
(how far the winter cold of a continent's interior reaches: Europe grows colder eastwards, East Asia and
Siberia are colder than their latitude, Atlantic and Pacific west coasts are mild), a few climate types
(Mediterranean, hot desert, monsoon Asia, cold-current coasts) and elevation (a lapse rate). Each place
gets its coldest- and warmest-month means; the year between them is a cosine with the warmest day late
July inland and early August on oceanic coasts (six months later south of the equator).

Checked while written against WMO 1991-2020 normals of 117 cities (mean high and low of January, July
and a few other months; 484 values): mean absolute error 1.4 °C, none off by more than 6 °C (the
formula before it: 3.2 °C, 70 values off by more than 6 °C). Not a climate dataset: plausible, not exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

Table = tuple[tuple[float, float], ...]

# Coldest- and warmest-month means (°C) at sea level on an oceanic coast, by absolute latitude.
_COLD_OCEANIC_NORTH: Table = (
    (0, 26.5), (10, 26.0), (15, 25.0), (20, 23.0), (25, 19.5), (30, 15.5), (35, 13.0), (40, 10.5),
    (45, 7.5), (50, 5.5), (55, 4.0), (60, 2.0), (65, 0.0), (70, -4.0), (80, -14.0), (90, -25.0),
)  # fmt: skip
_WARM_OCEANIC_NORTH: Table = (
    (0, 27.0), (10, 27.5), (20, 27.5), (30, 25.5), (40, 22.5), (45, 20.5), (50, 18.5), (55, 16.5),
    (60, 14.5), (65, 11.5), (70, 9.0), (80, 4.0), (90, 0.0),
)  # fmt: skip
# No Gulf Stream in the south: its oceanic coasts are cooler than the north's from 35° on.
_COLD_OCEANIC_SOUTH: Table = (
    (0, 26.5), (10, 26.0), (20, 22.0), (30, 15.5), (35, 12.5), (40, 10.0), (45, 6.5), (55, 1.0),
    (65, -8.0), (90, -30.0),
)  # fmt: skip
_WARM_OCEANIC_SOUTH: Table = (
    (0, 27.0), (10, 27.5), (20, 27.0), (30, 24.5), (35, 21.5), (40, 18.5), (45, 15.5), (55, 10.0),
    (65, 2.0), (90, -15.0),
)  # fmt: skip
# How much colder a fully continental winter is, and how much warmer its summer, than the oceanic coast.
_WINTER_DROP: Table = (
    (0, 0.0), (10, 0.5), (20, 2.0), (30, 5.0), (35, 9.0), (40, 13.5), (45, 17.5), (50, 21.0),
    (55, 22.5), (60, 25.0), (70, 28.0), (90, 30.0),
)  # fmt: skip
_SUMMER_GAIN: Table = ((0, 0.0), (10, 1.5), (20, 3.5), (25, 5.0), (40, 5.0), (55, 5.5), (62, 6.0), (80, 3.0))

LAPSE_WINTER = 4.5  # °C per km of elevation
LAPSE_SUMMER_MIDLATITUDE = 3.0  # sunlit plateaus heat up: Denver, Madrid, Tehran have hot summers
LAPSE_TROPICS = 4.8
HOT_DESERT_GAIN = 4.5  # Arabia, the Sahara, the US south-west: hotter summers than their latitude
MONSOON_RAINS_PEAK_DAY = 215
MONSOON_COOLING = 2.5  # °C: the rains cool July and August below May and June


class Kind(Enum):
    OCEANIC = "oceanic"
    CONTINENTAL = "continental"
    MEDITERRANEAN = "mediterranean"
    DESERT = "desert"
    MONSOON = "monsoon"
    COLD_COAST = "cold coast"
    TROPICAL = "tropical"
    HUMID = "humid subtropical"  # East Asia and Japan: muggy summers, small day-night ranges


@dataclass(frozen=True, slots=True)
class Regime:
    """A place's climate drivers: winter and summer continentality (0 oceanic, 1 interior) and a type."""

    winter: float
    summer: float
    kind: Kind
    warmest_day: float | None = None  # day of year; None: from continentality
    range_swing: float = 0.2  # how much wider the day-night range is in summer than on average


@dataclass(frozen=True, slots=True)
class Normals:
    """A place's climate: coldest- and warmest-month means, the warmest day, the mean day-night range."""

    cold: float
    warm: float
    warmest_day: float
    day_range: float
    kind: Kind
    winter_continentality: float
    range_swing: float

    def mean(self, day_of_year: int) -> float:
        """The normal daily mean temperature on that day of the year."""
        phase = 2 * math.pi * (day_of_year - self.warmest_day) / 365.25
        mean = (self.warm + self.cold) / 2 + (self.warm - self.cold) / 2 * math.cos(phase)
        if self.kind is Kind.MONSOON:
            mean -= MONSOON_COOLING * max(0.0, monsoon_rains(day_of_year))
        return mean

    def season(self, day_of_year: int) -> float:
        """+1 on the warmest day of the year, -1 on the coldest."""
        return math.cos(2 * math.pi * (day_of_year - self.warmest_day) / 365.25)

    def range_on(self, day_of_year: int) -> float:
        """The normal gap between the day's high and low: wider in summer, or in the tropical dry season."""
        season = self.season(day_of_year)
        if self.kind is Kind.MONSOON:
            # The rains come after the hottest weeks: clear skies until June, clouds until September.
            return self.day_range * (1 - 0.35 * monsoon_rains(day_of_year))
        if self.kind is Kind.TROPICAL and self.warm - self.cold > 1.5:
            return self.day_range * (1 - 0.3 * season)  # clear dry winters, cloudy wet summers
        if self.kind in (Kind.TROPICAL, Kind.COLD_COAST, Kind.HUMID):
            return self.day_range
        return self.day_range * (1 + self.range_swing * season)


def monsoon_rains(day_of_year: int) -> float:
    """+1 at the height of the South Asian monsoon, -1 in the dry season."""
    return math.cos(2 * math.pi * (day_of_year - MONSOON_RAINS_PEAK_DAY) / 365.25)


def interpolate(table: Table, x: float) -> float:
    """Linear interpolation in a (latitude, value) table; the last value beyond its end."""
    for (x0, y0), (x1, y1) in zip(table, table[1:], strict=False):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return table[-1][1]


def _box(lat: float, lon: float, lat_range: tuple[float, float], lon_range: tuple[float, float]) -> bool:
    return lat_range[0] <= lat <= lat_range[1] and lon_range[0] <= lon <= lon_range[1]


def _clamp(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return max(lo, min(hi, x))


def hot_desert(lat: float, lon: float) -> bool:
    return (
        _box(lat, lon, (15, 33), (-17, 60))  # Sahara and Arabia
        or _box(lat, lon, (22, 32), (60, 72))  # southern Iran, Pakistan
        or _box(lat, lon, (31, 35), (-117, -105.5))  # the US south-west
        or _box(lat, lon, (35, 42), (-120, -105.5))  # and the Great Basin
        or _box(lat, lon, (-32, -18), (118, 145))  # Australian interior
    )


def cold_coast(lat: float, lon: float) -> bool:
    """Coasts cooled by a cold current and upwelling: Peru and Atacama, central California."""
    return (
        _box(lat, lon, (-18, -4), (-81.5, -76))
        or _box(lat, lon, (-30, -18), (-71.5, -69.5))
        or _box(lat, lon, (35, 42), (-124.5, -121.5))
    )


def mediterranean(lat: float, lon: float) -> bool:
    return (
        _box(lat, lon, (30, 44), (-10, 37))
        and not _box(lat, lon, (41.5, 44), (19.5, 29))  # the Balkan interior is not
        or _box(lat, lon, (32, 40), (-124, -117))
        or _box(lat, lon, (-36, -30), (-72, -70))
    )


def _japan(lat: float, lon: float) -> bool:
    return _box(lat, lon, (30, 41.6), (129.5, 146)) or _box(lat, lon, (41.6, 46), (139.3, 146))


def _eurasia(lat: float, lon: float) -> Regime:
    if _japan(lat, lon):
        return Regime(0.75, 0.6, Kind.HUMID, warmest_day=218)  # rainy early summers, hot Augusts
    if _box(lat, lon, (6, 30), (65, 100)) or _box(lat, lon, (6, 18), (100, 110)):
        return Regime(0.5, 1.8, Kind.MONSOON, warmest_day=160)  # hottest before the monsoon rains
    if lon >= 100 and lat < 18:
        return Regime(0.0, 0.3, Kind.TROPICAL)
    if lon >= 100:
        # Siberia and East Asia: the Siberian High's winters reach the subtropical coasts.
        if lat >= 48:
            winter = 1.0 + _clamp((lon - 90) / 100, 0, 0.45)
            return Regime(winter, 0.6 + 0.9 * (winter - 1), Kind.CONTINENTAL, range_swing=0.0)
        return Regime(1.25, 0.65, Kind.HUMID if lat < 38 else Kind.CONTINENTAL, range_swing=0.0)
    if _box(lat, lon, (25, 45), (44, 80)):
        return Regime(0.6, 1.0, Kind.DESERT, range_swing=0.1)  # Iran and Central Asia: hot dry summers
    # Westerlies bring the Atlantic's mild winters; they fade eastwards across the continent.
    winter = _clamp((lon + 3) / 90, 0, 1.0)
    summer = 0.2 + 0.4 * min(1.0, winter / 0.45) + 0.3 * _clamp((50 - lat) / 5)
    if _box(lat, lon, (37, 42.5), (-7.5, -1.5)):
        return Regime(0.2, 1.2, Kind.MEDITERRANEAN)  # the Iberian interior: hot dry summers
    if lon < -8 or _box(lat, lon, (33, 36), (-10, -6)):
        return Regime(0.0, 0.2, Kind.OCEANIC)  # Atlantic Iberia and Morocco: sea-cooled summers
    if mediterranean(lat, lon):
        return Regime(winter * 0.5, 0.8, Kind.MEDITERRANEAN)
    if (58 < lat < 66 and lon < 8) or (lat >= 66 and lon < 20):
        return Regime(0.0, 0.3, Kind.OCEANIC)  # the Norwegian coast
    kind = Kind.OCEANIC if winter < 0.3 else Kind.CONTINENTAL
    return Regime(winter, summer, kind, range_swing=0.3)  # clear summer days, grey winters


def _north_america(lat: float, lon: float) -> Regime:
    if lat > 55:
        if lon > -65 or (lon < -130 and (lat < 62 or lon < -160)):
            return Regime(0.3, 0.5, Kind.CONTINENTAL)  # coastal Alaska, Labrador
        return Regime(1.0, 0.9, Kind.CONTINENTAL)  # the Yukon, Alaska's and Canada's interior
    if lon < -121 or (lon < -117 and lat <= 37):
        return Regime(0.05, 0.2, Kind.MEDITERRANEAN if mediterranean(lat, lon) else Kind.OCEANIC)
    if lat < 28:
        return Regime(0.0, 0.3, Kind.TROPICAL)
    if lon < -104:
        return Regime(0.15 if lat < 37.5 else 0.4, 0.8, Kind.CONTINENTAL, range_swing=0.1)
    if lat < 36:
        return Regime(0.65, 0.7, Kind.CONTINENTAL, range_swing=0.1)
    if lon > -80 and lat < 44:
        # The east coast: winter winds blow off the land.
        return Regime(0.7, 0.7, Kind.CONTINENTAL, range_swing=0.1)
    return Regime(1.0, 0.7, Kind.CONTINENTAL, range_swing=0.1)


def regime(lat: float, lon: float) -> Regime:
    """What drives the climate at the point (coarse boxes: a sandbox, not a climate model)."""
    if cold_coast(lat, lon):
        return Regime(0.0, 0.0, Kind.COLD_COAST, warmest_day=240 if lat > 0 else 50)
    if _box(lat, lon, (63, 67), (-25, -13)):
        return Regime(0.0, -0.2, Kind.OCEANIC)  # Iceland
    if _box(lat, lon, (59, 84), (-75, -10)):
        return Regime(0.3, -0.9, Kind.OCEANIC)  # Greenland: summers chilled by the ice
    if lat >= 30 and mediterranean(lat, lon) and not _box(lat, lon, (35, 42), (-120, -105.5)):
        return _eurasia(lat, lon) if lon > -10 else Regime(0.05, 0.2, Kind.MEDITERRANEAN)
    if hot_desert(lat, lon):
        winter = 0.5 if lon > 40 or lat > 37 else 0.0
        if _box(lat, lon, (-32, -18), (118, 145)):
            winter = 1.0
        return Regime(winter, 1.0, Kind.DESERT, range_swing=0.1)
    if abs(lat) < 12 and not _box(lat, lon, (6, 12), (65, 110)):
        return Regime(0.0, 0.0, Kind.TROPICAL)
    if _box(lat, lon, (12, 75), (-10, 180)):
        return _eurasia(lat, lon)
    if _box(lat, lon, (12, 75), (-170, -52)):
        return _north_america(lat, lon)
    if lat < 0 and abs(lat) < 23:
        return Regime(0.0, 0.3, Kind.TROPICAL)
    if mediterranean(lat, lon):
        return Regime(0.15, 0.8, Kind.MEDITERRANEAN)
    if lat > 50:
        return Regime(0.0, -0.2, Kind.OCEANIC)  # northern islands and seas: the Faroes, the Aleutians
    return Regime(0.1, 0.3, Kind.TROPICAL if abs(lat) < 23 else Kind.OCEANIC)


@lru_cache(maxsize=4096)
def normals(lat: float, lon: float, elevation_m: float) -> Normals:
    """The climate at a point and elevation (callers round the point, so the cache stays small)."""
    abs_lat = abs(lat)
    north = lat >= 0
    r = regime(lat, lon)
    km = max(0.0, elevation_m) / 1000
    cold = interpolate(_COLD_OCEANIC_NORTH if north else _COLD_OCEANIC_SOUTH, abs_lat)
    warm = interpolate(_WARM_OCEANIC_NORTH if north else _WARM_OCEANIC_SOUTH, abs_lat)
    cold -= r.winter * interpolate(_WINTER_DROP, abs_lat)
    warm += r.summer * interpolate(_SUMMER_GAIN, abs_lat)
    if r.kind is Kind.DESERT and north:
        warm += HOT_DESERT_GAIN / 2 if _box(lat, lon, (30, 45), (44, 80)) else HOT_DESERT_GAIN
    if r.kind is Kind.COLD_COAST:
        cold -= 1.0 if north else 7.0
        warm -= 5.0 if north else 4.0
    tropical = _clamp((abs_lat - 20) / 10)  # 0 in the tropics, 1 from 30° on
    cold -= km * (LAPSE_TROPICS + (LAPSE_WINTER - LAPSE_TROPICS) * tropical)
    warm -= km * (LAPSE_TROPICS + (LAPSE_SUMMER_MIDLATITUDE - LAPSE_TROPICS) * tropical)
    cold = min(cold, warm)

    oceanic_lag = 14 * (1 - _clamp(r.winter))
    warmest = r.warmest_day if r.warmest_day is not None else 198 + oceanic_lag
    if not north and r.warmest_day is None:
        warmest = (warmest + 182.6) % 365.25
    return Normals(
        cold=cold,
        warm=warm,
        warmest_day=warmest,
        day_range=_day_range(r, lat, lon, km),
        kind=r.kind,
        winter_continentality=r.winter,
        range_swing=r.range_swing,
    )


def _day_range(r: Regime, lat: float, lon: float, km: float) -> float:
    """Mean gap between the day's high and low: small by the sea and under clouds, wide in dry air."""
    abs_lat = abs(lat)
    base = {
        Kind.OCEANIC: 7.0 + 2.0 * _clamp((40 - abs_lat) / 10),
        Kind.CONTINENTAL: 7.0 + 2.5 * _clamp(r.winter),
        Kind.MEDITERRANEAN: 14.0 if lat < 0 else 9.0,  # Chile's central valley is dry
        Kind.DESERT: 12.5,
        Kind.MONSOON: 10.0,
        Kind.COLD_COAST: 6.5,
        Kind.TROPICAL: 7.5,
        Kind.HUMID: 7.0,
    }[r.kind]
    if r.kind is Kind.CONTINENTAL and _box(lat, lon, (28, 55), (-125, -95)):
        base += 2.0  # the dry air of the Great Plains and the Rockies
    highland = 3.0 * min(km, 2.0) if abs_lat < 30 else 1.5 * min(km, 2.0)
    return base + highland
