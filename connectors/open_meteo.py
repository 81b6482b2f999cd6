"""Open-Meteo for weather_forecast: geocoding the place name, then the daily forecast. No key needed."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import aiohttp

from connectors.base import Terms
from connectors.errors import ProviderResponseError, ProviderUnavailableError, UnknownLocationError
from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import Result, WeatherDay
from connectors.params import ToolParams, WeatherForecastParams
from connectors.places import fold
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items, obj

DAILY = (
    "weather_code",
    "temperature_2m_max",
    "temperature_2m_min",
    "precipitation_sum",
    "precipitation_probability_max",
    "wind_speed_10m_max",
)


def describe_error(status: int, body: Any) -> ErrorInfo:
    """Open-Meteo errors: {"error": true, "reason": "..."}."""
    if isinstance(body, dict) and body.get("reason"):
        return ErrorInfo("", str(body["reason"]))
    return ErrorInfo("", f"HTTP {status}")


# Open-Meteo's data is CC BY 4.0: every answer built on it credits Open-Meteo.com.
TERMS = Terms(attribution="Weather data by Open-Meteo.com (CC BY 4.0)")


class OpenMeteoConnector:
    name = "open_meteo"
    terms = TERMS
    tools = frozenset({"weather_forecast"})

    def __init__(
        self,
        session: aiohttp.ClientSession,
        geocoding_url: str,
        forecast_url: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        sandbox: bool = False,
        max_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self._geocoding = geocoding_url.rstrip("/")
        self._forecast = forecast_url.rstrip("/")
        self._http = JsonHttp(session, "Open-Meteo", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        if not isinstance(params, WeatherForecastParams):
            raise ProviderUnavailableError(f"Open-Meteo does not serve {tool}")
        try:
            place = await self._geocode(params.city)
            return list(await self._daily(place, params))
        except UNREADABLE as exc:
            raise ProviderResponseError("Open-Meteo sent a response we cannot read", repr(exc)) from exc

    async def _geocode(self, text: str) -> dict[str, Any]:
        # The geocoder takes a bare name; "Lisbon, Portugal" narrows by country afterwards.
        name, _, qualifier = (part.strip() for part in text.partition(","))
        body = await self._http.request(
            "GET",
            self._geocoding + "/v1/search",
            params={"name": name, "count": "10", "language": "en", "format": "json"},
        )
        results = [r for r in items(body.get("results") or [], "Open-Meteo", "places") if isinstance(r, dict)]
        located = [r for r in results if _located(r)]
        if results and not located:  # NaN, infinite or out-of-range coordinates: never sent on
            raise ProviderResponseError(
                "Open-Meteo sent a response we cannot read: places without valid coordinates"
            )
        results = located
        if qualifier:
            q = fold(qualifier)
            results = [
                r
                for r in results
                if q
                in (
                    fold(str(r.get("country", ""))),
                    fold(str(r.get("country_code", ""))),
                    fold(str(r.get("admin1", ""))),
                )
            ]
        if not results:
            raise UnknownLocationError(f"no place called {text!r} was found for the weather forecast")
        return results[0]

    async def _daily(self, place: dict[str, Any], p: WeatherForecastParams) -> list[WeatherDay]:
        assert p.start_date is not None
        end = p.start_date + dt.timedelta(days=p.days - 1)
        body = await self._http.request(
            "GET",
            self._forecast + "/v1/forecast",
            params={
                "latitude": f"{float(place['latitude']):.4f}",
                "longitude": f"{float(place['longitude']):.4f}",
                "daily": ",".join(DAILY),
                "timezone": "auto",
                "start_date": p.start_date.isoformat(),
                "end_date": end.isoformat(),
            },
        )
        daily = obj(body.get("daily"))
        label = ", ".join(str(x) for x in (place.get("name"), place.get("country")) if x)
        now = dt.datetime.now(dt.UTC)

        def value(key: str, i: int) -> Any:
            column = daily.get(key)
            return column[i] if isinstance(column, list) and i < len(column) else None

        def weather_day(pair: tuple[int, Any]) -> list[WeatherDay]:
            i, day = pair
            code = value("weather_code", i)
            return [
                WeatherDay(
                    provider=self.name,
                    sandbox=self.sandbox,
                    fetched_at=now,
                    place=label,
                    latitude=float(place["latitude"]),
                    longitude=float(place["longitude"]),
                    date=dt.date.fromisoformat(day),
                    temperature_max=value("temperature_2m_max", i),
                    temperature_min=value("temperature_2m_min", i),
                    precipitation_mm=value("precipitation_sum", i),
                    precipitation_probability=value("precipitation_probability_max", i),
                    weather_code=int(code) if code is not None else None,
                    wind_max_kmh=value("wind_speed_10m_max", i),
                )
            ]

        days = items(daily.get("time"), "Open-Meteo", "forecast days")
        return each(enumerate(days), weather_day, "Open-Meteo", "forecast days")


def _build(ctx: BuildContext) -> OpenMeteoConnector:
    c = ctx.settings
    return OpenMeteoConnector(
        ctx.session,
        ctx.sandbox_url or c.open_meteo_geocoding_url,
        ctx.sandbox_url or c.open_meteo_forecast_url,
        policy=ctx.policy,
        sandbox=ctx.sandbox,
        max_bytes=ctx.max_bytes,
    )


PROVIDER = ProviderSpec(
    name="open_meteo",
    tools=OpenMeteoConnector.tools,
    build=_build,
    settings=("open_meteo_geocoding_url", "open_meteo_forecast_url"),
    signup="https://open-meteo.com (no key for non-commercial use)",
    about="daily forecasts up to 16 days ahead",
)


def _located(place: dict[str, Any]) -> bool:
    """Whether a geocoder result has finite coordinates on the globe."""
    try:
        lat, lon = float(place["latitude"]), float(place["longitude"])
    except (KeyError, TypeError, ValueError):
        return False
    return math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180
