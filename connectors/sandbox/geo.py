"""Geography and time helpers: distances, time-zone offsets, ISO 8601 durations."""

from __future__ import annotations

import datetime as dt
import math
from functools import lru_cache
from zoneinfo import ZoneInfo

from connectors.geo import EARTH_RADIUS_KM, haversine_km

__all__ = ["EARTH_RADIUS_KM", "haversine_km"]


def offset_point(lat: float, lon: float, distance_km: float, bearing_deg: float) -> tuple[float, float]:
    """The point ``distance_km`` away from (lat, lon) on the given bearing (small distances)."""
    dlat = distance_km * math.cos(math.radians(bearing_deg)) / 111.32
    dlon = (
        distance_km * math.sin(math.radians(bearing_deg)) / (111.32 * max(0.05, math.cos(math.radians(lat))))
    )
    return lat + dlat, lon + dlon


@lru_cache(maxsize=512)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def utc_offset(tz: str, when: dt.datetime | None = None) -> dt.timedelta:
    moment = when or dt.datetime.now(dt.UTC)
    offset = moment.astimezone(zone(tz)).utcoffset()
    return offset or dt.timedelta(0)


def format_offset(offset: dt.timedelta) -> str:
    """'+01:00' / '-03:30', as Amadeus writes timeZoneOffset."""
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}"


def iso_duration(minutes: int) -> str:
    """'PT2H10M', 'PT14H', 'PT45M': how Amadeus writes flight durations (hours never roll into days)."""
    hours, mins = divmod(minutes, 60)
    out = "PT"
    if hours:
        out += f"{hours}H"
    if mins or not hours:
        out += f"{mins}M"
    return out


def parse_iso_duration(value: str) -> int:
    """Minutes in a 'PT..H..M' duration; the inverse of iso_duration."""
    body = value.removeprefix("PT")
    hours = mins = 0
    if "H" in body:
        h, body = body.split("H", 1)
        hours = int(h)
    if body.endswith("M"):
        mins = int(body[:-1])
    return hours * 60 + mins
