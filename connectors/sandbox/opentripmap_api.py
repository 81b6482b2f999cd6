"""OpenTripMap Places API 0.1 in the sandbox: places around a point and one place's card, with its key and errors.

Followed: https://dev.opentripmap.org/docs (GET /0.1/{lang}/places/radius?radius=<m>&lon&lat[&kinds][&rate]
[&limit<=500][&format=geojson|json|count]&apikey=KEY, answered by default as a GeoJSON FeatureCollection
whose features' properties hold xid, name, dist, rate, osm, wikidata and kinds; GET
/0.1/{lang}/places/xid/{xid}?apikey=KEY, one object with xid, name, kinds, rate, otm, url, point,
wikipedia_extracts and preview). Errors are ``{"error": "<message>"}``; the key is the ``apikey``
query parameter.

Places come from the Amadeus activity generator (activities.py): the same city has the same tours
through either dialect; an xid is "N" and the activity id, stable across searches. A place's ``kinds``
are its branch of OpenTripMap's category tree, root first; ``kinds=`` keeps the places with any of the
categories named (a category stands for everything under it, as each place lists its whole branch).
"""

from __future__ import annotations

import math
import re
from typing import Any

from aiohttp import web

from connectors.opentripmap import SANDBOX_KEY as API_KEY
from connectors.sandbox import activities
from connectors.sandbox.amadeus import ACTIVITY_REACH_KM
from connectors.sandbox.common import malformed, tamper
from connectors.sandbox.faults import SandboxFaults
from connectors.sandbox.geo import haversine_km
from connectors.sandbox.keys import CATALOGUE, DICE, GUARDS, Handler

PREFIX = "/0.1/"
LANGS = frozenset({"en", "ru"})
MAX_LIMIT = 500
MAX_RADIUS_M = 50_000
CARD_URL = "https://opentripmap.sandbox.wayfarer.invalid/en/card/"
_KIND = re.compile(r"^[a-z_]{2,40}$")


class OpenTripMapError(Exception):
    """An OpenTripMap error answer: its HTTP status and its ``{"error": "..."}`` body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def response(self, headers: dict[str, str] | None = None) -> web.Response:
        return web.json_response({"error": self.message}, status=self.status, headers=headers)


def install(app: web.Application) -> None:
    app.router.add_get("/0.1/{lang}/places/radius", places_radius)
    app.router.add_get("/0.1/{lang}/places/xid/{xid}", place_card)
    app[GUARDS][PREFIX] = guard


async def guard(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    """OpenTripMap's dialect: apikey in the query, 429 with its wait, 500s, ``{"error": ...}`` bodies."""
    try:
        key = request.query.get("apikey")
        if key != API_KEY:
            raise OpenTripMapError(401, "Unknown API key")
        if key in faults.revoked_keys:
            raise OpenTripMapError(401, "API key revoked")
        if faults.quota_exceeded:
            raise OpenTripMapError(429, "Daily request limit exceeded for this API key")
        if faults.too_many_requests > 0:
            faults.too_many_requests -= 1
            return OpenTripMapError(429, "Too Many Requests").response(faults.rate_limit_hint())
        if request.app[DICE].roll(faults, faults.error_rate):
            raise OpenTripMapError(500, "Internal Server Error")
        response = await handler(request)
    except OpenTripMapError as exc:
        return exc.response()
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        return OpenTripMapError(404, f"Not found: {request.method} {request.path}").response()
    if response.status == 200 and request.app[DICE].roll(faults, faults.malformed_rate):
        return malformed(response)
    return tamper(response, faults)


def _number(request: web.Request, name: str, lo: float, hi: float, default: float | None = None) -> float:
    raw = request.query.get(name)
    if raw is None:
        if default is None:
            raise OpenTripMapError(400, f"Parameter '{name}' is required")
        return default
    try:
        value = float(raw)
    except ValueError:
        raise OpenTripMapError(400, f"Parameter '{name}' must be a number") from None
    if not math.isfinite(value) or not lo <= value <= hi:
        raise OpenTripMapError(400, f"Parameter '{name}' must be between {lo:g} and {hi:g}")
    return value


def _lang(request: web.Request) -> str:
    lang = request.match_info["lang"]
    if lang not in LANGS:
        raise OpenTripMapError(400, f"Unsupported language '{lang}', use one of: en, ru")
    return lang


def _kinds(request: web.Request) -> set[str] | None:
    """The categories asked for (``kinds=museums,religion``), or None for every place."""
    raw = request.query.get("kinds")
    if raw is None:
        return None
    names = {k.strip() for k in raw.split(",")}
    bad = sorted(k for k in names if not _KIND.match(k))
    if bad:
        raise OpenTripMapError(400, f"Unknown category name: {bad[0][:40]}")
    return names


def _rate(activity: dict[str, Any]) -> int:
    """OpenTripMap's popularity 1-3 from the generator's 3.8-5.0 rating."""
    return 1 + min(2, int((float(activity["rating"]) - 3.8) / 0.4))


def _place(activity: dict[str, Any]) -> dict[str, Any]:
    aid = activity["id"]
    return {
        "xid": f"N{aid}",
        "name": activity["name"],
        "rate": _rate(activity),
        "osm": f"node/{aid}",
        "kinds": activity[activities.KINDS],
    }


async def places_radius(request: web.Request) -> web.Response:
    _lang(request)
    radius = _number(request, "radius", 1, MAX_RADIUS_M)
    lat = _number(request, "lat", -90, 90)
    lon = _number(request, "lon", -180, 180)
    limit = int(_number(request, "limit", 1, MAX_LIMIT, default=MAX_LIMIT))
    min_rate = request.query.get("rate", "1").rstrip("h") or "1"
    if min_rate not in ("1", "2", "3"):
        raise OpenTripMapError(400, "Parameter 'rate' must be one of: 1, 2, 3, 1h, 2h, 3h")
    wanted = _kinds(request)
    fmt = request.query.get("format", "geojson")
    if fmt not in ("geojson", "json", "count"):
        raise OpenTripMapError(400, "Parameter 'format' must be one of: json, geojson, count")
    city = request.app[CATALOGUE].city_near(lat, lon, radius / 1000 + ACTIVITY_REACH_KM)
    found = []
    for a in activities.activities_for_city(city) if city is not None else ():
        plat, plon = float(a["geoCode"]["latitude"]), float(a["geoCode"]["longitude"])
        dist = haversine_km(lat, lon, plat, plon) * 1000
        kinds = set(a[activities.KINDS].split(","))
        if dist <= radius and _rate(a) >= int(min_rate) and (wanted is None or kinds & wanted):
            found.append((dist, plat, plon, a))
    found.sort(key=lambda f: f[0])
    found = found[:limit]
    if fmt == "count":
        return web.json_response({"count": len(found)})
    if fmt == "json":  # a bare list, as the real API sends it
        return web.json_response(
            [{**_place(a), "dist": round(d, 2), "point": {"lon": lo, "lat": la}} for d, la, lo, a in found]
        )
    features = [
        {
            "type": "Feature",
            "id": str(a["id"]),
            "geometry": {"type": "Point", "coordinates": [lo, la]},
            "properties": {**_place(a), "dist": round(d, 2)},
        }
        for d, la, lo, a in found
    ]
    return web.json_response({"type": "FeatureCollection", "features": features})


async def place_card(request: web.Request) -> web.Response:
    _lang(request)
    xid = request.match_info["xid"]
    found = activities.find_activity(request.app[CATALOGUE], xid[1:]) if xid.startswith("N") else None
    if found is None:
        raise OpenTripMapError(404, f"Object with xid={xid} not found")
    lat, lon = float(found["geoCode"]["latitude"]), float(found["geoCode"]["longitude"])
    return web.json_response(
        {
            **_place(found),
            "sources": {"geometry": "osm", "attributes": ["osm"]},
            "otm": CARD_URL + xid,
            "url": found["bookingLink"],
            "preview": {"source": found["pictures"][0], "height": 300, "width": 400},
            "wikipedia_extracts": {
                "title": f"en:{found['name']}",
                "text": found["description"],
                "html": f"<p>{found['description']}</p>",
            },
            "point": {"lon": lon, "lat": lat},
        }
    )
