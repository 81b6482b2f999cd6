"""The offline sandbox: one aiohttp app serving Amadeus Self-Service and Open-Meteo paths with canned data.

Fault settings live under ``app[FAULTS]`` and are read on every request, so tests can change them while
the sandbox runs (``client.app[FAULTS].too_many_requests = 2``). Amadeus API paths need a bearer token
from POST /v1/security/oauth2/token; Open-Meteo paths (/v1/search, /v1/forecast) need nothing.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from aiohttp import web

from connectors.sandbox import (
    amadeus,
    amadeus_flights,
    duffel_api,
    geocoding,
    liteapi_api,
    open_meteo,
    opentripmap_api,
    travelpayouts_api,
)
from connectors.sandbox.auth import TokenStore
from connectors.sandbox.common import malformed, tamper
from connectors.sandbox.data import DEFAULT_CITIES_PATH, load_catalogue
from connectors.sandbox.errors import (
    INTERNAL_ERROR,
    QUOTA_EXCEEDED,
    RESOURCE_NOT_FOUND,
    TOO_MANY_REQUESTS,
    AmadeusError,
    OpenMeteoError,
    TokenError,
)
from connectors.sandbox.faults import FaultDice, SandboxFaults
from connectors.sandbox.keys import CATALOGUE, DICE, FAULTS, GUARDS, TOKENS, Handler

__all__ = ["FAULTS", "create_sandbox_app", "start_sandbox", "stop_sandbox"]

logger = logging.getLogger(__name__)

TOKEN_PATH = "/v1/security/oauth2/token"
OPEN_METEO_PATHS = frozenset({"/v1/search", "/v1/forecast"})


async def _open_meteo(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    if request.app[DICE].roll(faults, faults.error_rate):
        return web.json_response({"error": True, "reason": "Internal server error"}, status=500)
    try:
        response = await handler(request)
    except OpenMeteoError as exc:
        return web.json_response(exc.body(), status=exc.status)
    except web.HTTPException as exc:
        return web.json_response({"error": True, "reason": exc.reason}, status=exc.status)
    if response.status == 200 and request.app[DICE].roll(faults, faults.malformed_rate):
        return malformed(response)
    return tamper(response, faults)


async def _amadeus(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    try:
        request.app[TOKENS].check(request.headers.get("Authorization"))
        if faults.quota_exceeded:
            raise QUOTA_EXCEEDED
        if faults.too_many_requests > 0:
            faults.too_many_requests -= 1
            raise TOO_MANY_REQUESTS
        if request.app[DICE].roll(faults, faults.error_rate):
            raise INTERNAL_ERROR
        response = await handler(request)
    except AmadeusError as exc:
        return amadeus.respond(exc.body(), exc.status)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        return amadeus.respond(RESOURCE_NOT_FOUND.body(), RESOURCE_NOT_FOUND.status)
    if response.status == 200 and request.app[DICE].roll(faults, faults.malformed_rate):
        return malformed(response)
    return tamper(response, faults)


@web.middleware
async def sandbox_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Latency everywhere; auth, rate limits and failures on API paths; provider-shaped error bodies."""
    faults = request.app[FAULTS]
    if faults.latency_ms > 0:
        await asyncio.sleep(faults.latency_ms / 1000)
    try:
        if request.path == TOKEN_PATH:
            try:
                return tamper(await handler(request), faults)
            except TokenError as exc:
                return web.json_response(exc.body(), status=exc.status)
        if request.path in OPEN_METEO_PATHS:
            return await _open_meteo(request, handler, faults)
        for prefix, guard in request.app[GUARDS].items():
            if request.path.startswith(prefix):
                return await guard(request, handler, faults)
        return await _amadeus(request, handler, faults)
    except web.HTTPException:
        raise
    except Exception:
        logger.exception("sandbox handler failed: %s %s", request.method, request.path_qs)
        if request.path in OPEN_METEO_PATHS:
            return web.json_response({"error": True, "reason": "Internal server error"}, status=500)
        return amadeus.respond(INTERNAL_ERROR.body(), INTERNAL_ERROR.status)


def create_sandbox_app(
    faults: SandboxFaults | None = None, cities_path: Path | None = None
) -> web.Application:
    """The sandbox application; ``faults`` defaults to none, ``cities_path`` to seed_data/sandbox/cities.json."""
    app = web.Application(middlewares=[sandbox_middleware])
    app[FAULTS] = faults if faults is not None else SandboxFaults()
    app[DICE] = FaultDice()
    app[CATALOGUE] = load_catalogue((cities_path or DEFAULT_CITIES_PATH).resolve())
    geocoding.warm()  # built here, off the loop, not in the first request's handler
    app[TOKENS] = TokenStore()
    app[GUARDS] = {}  # provider dialects beyond Amadeus and Open-Meteo, by path prefix
    app.router.add_post(TOKEN_PATH, amadeus.token)
    app.router.add_get("/v2/shopping/flight-offers", amadeus_flights.flight_offers)
    app.router.add_get("/v1/shopping/flight-destinations", amadeus_flights.flight_destinations)
    app.router.add_get("/v1/shopping/flight-dates", amadeus_flights.flight_dates)
    app.router.add_get("/v1/reference-data/locations", amadeus.location_search)
    app.router.add_get("/v1/reference-data/locations/hotels/by-city", amadeus.hotels_by_city)
    app.router.add_get("/v1/reference-data/locations/{location_id}", amadeus.location_by_id)
    app.router.add_get("/v3/shopping/hotel-offers", amadeus.hotel_offers)
    app.router.add_get("/v1/shopping/activities", amadeus.activity_search)
    app.router.add_get("/v1/shopping/activities/{activity_id}", amadeus.activity_by_id)
    app.router.add_get("/v1/search", open_meteo.geocoding_search)
    app.router.add_get("/v1/forecast", open_meteo.forecast)
    # Each further provider's dialect installs its routes and its guard here: <module>.install(app)
    liteapi_api.install(app)
    travelpayouts_api.install(app)
    duffel_api.install(app)
    opentripmap_api.install(app)
    return app


async def start_sandbox(
    host: str = "127.0.0.1", port: int = 0, faults: SandboxFaults | None = None
) -> tuple[web.AppRunner, str]:
    """Serve the sandbox on ``host:port`` (0 picks a free port); returns the runner and the base URL."""
    app = await asyncio.to_thread(create_sandbox_app, faults)
    runner = web.AppRunner(app, handler_cancellation=True)  # a request whose client left stops
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    # runner.addresses reads the listening sockets of the started site: the real port when 0 was asked.
    actual_port = runner.addresses[0][1]
    base_url = f"http://{host}:{actual_port}"
    logger.info("sandbox listening on %s", base_url)
    return runner, base_url


async def stop_sandbox(runner: web.AppRunner) -> None:
    await runner.cleanup()
