"""A one-degree grid for nearest-point look-ups (airports near a town, cities for time zones). Pure."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Generic, TypeVar

from connectors.geo import haversine_km

T = TypeVar("T")


class GridIndex(Generic[T]):
    def __init__(self, points: Iterable[tuple[float, float, T]]) -> None:
        self._cells: dict[tuple[int, int], list[tuple[float, float, T]]] = defaultdict(list)
        for lat, lon, item in points:
            self._cells[(math.floor(lat), math.floor(lon))].append((lat, lon, item))

    def nearest(self, lat: float, lon: float, max_km: float) -> tuple[T, float] | None:
        """The closest item within ``max_km``, searching rings of cells outwards."""
        best: tuple[T, float] | None = None
        cy, cx = math.floor(lat), math.floor(lon)
        # A degree of longitude shrinks towards the poles: widen the search there.
        shrink = max(math.cos(math.radians(min(89.0, abs(lat) + max_km / 111 + 1))), 0.02)
        max_ring = min(180, int(max_km / (111 * shrink)) + 2)
        for ring in range(max_ring + 1):
            # Every point outside ring r-1 is at least (r-1) cell widths away.
            if best is not None and best[1] < (ring - 1) * 111 * shrink:
                break
            for dy in range(-ring, ring + 1):
                for dx in range(-ring, ring + 1):
                    if max(abs(dy), abs(dx)) != ring:
                        continue
                    cell = (cy + dy, (cx + dx + 180) % 360 - 180)
                    for plat, plon, item in self._cells.get(cell, ()):
                        km = haversine_km(lat, lon, plat, plon)
                        if km <= max_km and (best is None or km < best[1]):
                            best = (item, km)
        return best

    def within(self, lat: float, lon: float, max_km: float) -> list[tuple[T, float]]:
        """Every item within ``max_km``, nearest first."""
        shrink = max(math.cos(math.radians(min(89.0, abs(lat) + max_km / 111 + 1))), 0.02)
        reach_y = int(max_km / 111) + 1
        reach_x = min(180, int(max_km / (111 * shrink)) + 1)
        cy, cx = math.floor(lat), math.floor(lon)
        out: list[tuple[T, float]] = []
        for dy in range(-reach_y, reach_y + 1):
            for dx in range(-reach_x, reach_x + 1):
                for plat, plon, item in self._cells.get((cy + dy, (cx + dx + 180) % 360 - 180), ()):
                    km = haversine_km(lat, lon, plat, plon)
                    if km <= max_km:
                        out.append((item, km))
        out.sort(key=lambda pair: pair[1])
        return out
