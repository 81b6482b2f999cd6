"""OpenTripMap for activity_search: sights and things to do around a point, with a free self-serve key.

Chosen because anyone can sign up at https://dev.opentripmap.org/register and get a key at once (free
tier, no card, no partner approval), its places cover the whole world (OpenStreetMap and Wikidata, under
ODbL: attribution required), and its API is two plain GETs. What it lacks, next to Amadeus's tours: no
prices, no durations, no booking; its places are sights to visit, with a description and a link.

Followed https://dev.opentripmap.org/docs: GET /0.1/{lang}/places/radius?radius=<metres>&lon&lat
&kinds&rate&limit&apikey (the default GeoJSON answer: a FeatureCollection, properties {xid, name, dist,
rate, kinds}, geometry [lon, lat]), then GET /0.1/{lang}/places/xid/{xid}?apikey for the first few
places' cards (wikipedia_extracts.text, url, otm). Errors are ``{"error": "..."}``.

Identity: the place's ``xid`` (OSM or Wikidata based: "N123", "W456", "Q789"), the same in every search.

A ``category`` asks for its branches of OpenTripMap's category tree (https://opentripmap.io/catalog:
``kinds`` takes any category of the tree, several joined by commas, and a category takes everything under
it): CATEGORY_KINDS below. OpenTripMap knows no entry fees or ages, so there is no "free" or "for
children" filter.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Any

import aiohttp

from connectors.base import Terms
from connectors.errors import ProviderError, ProviderResponseError, ProviderUnavailableError
from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import Activity, Result, is_safe_link
from connectors.params import ActivitySearchParams, ToolParams
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items, obj, text

logger = logging.getLogger(__name__)

# The key the offline sandbox accepts for this dialect (connectors/sandbox/ imports it).
SANDBOX_KEY = "sandbox-opentripmap-key"
KINDS = "interesting_places"  # the root of OpenTripMap's category tree: sights, culture, nature, food
# Our categories (connectors.params.ActivityCategory) as branches of OpenTripMap's tree.
CATEGORY_KINDS: dict[str, str] = {
    "museum": "museums",  # cultural > museums: art galleries, science, history and other museums
    "park": "gardens_and_parks,nature_reserves",  # urban_environment > gardens; natural > nature_reserves
    "religious": "religion",  # churches, cathedrals, mosques, synagogues, temples, monasteries
    "historic": "historic,historic_architecture",  # sites, monuments, fortifications; palaces, castles
    "performing_arts": "theatres_and_entertainments",  # theatres, concert halls, opera houses
    "amusement": "amusements,zoos,aquariums",  # amusement and water parks, rides; zoos; aquariums
    "sports": "sport",  # stadiums, pools and other sports grounds
    "landmark": "architecture,view_points,monuments_and_memorials",  # buildings, towers, viewpoints
}
MIN_RATE = "2"  # popularity 1-3: 2 and up leaves out the unnamed benches and minor memorials
CARD_ERRORS: tuple[type[Exception], ...] = (ProviderError, *UNREADABLE)
XID = re.compile(r"[A-Za-z0-9]{1,32}")  # a place's id, as it goes back into the card's URL
ATTRIBUTION = "Places © OpenTripMap, data © OpenStreetMap contributors (ODbL) and Wikidata"


def describe_error(status: int, body: Any) -> ErrorInfo:
    """OpenTripMap errors: {"error": "message"}. A spent daily allowance is a quota refusal."""
    if isinstance(body, dict) and isinstance(body.get("error"), str | dict):
        message = str(body["error"])
        return ErrorInfo("", message, quota="limit" in message.lower() and status in (403, 429))
    return ErrorInfo("", f"HTTP {status}")


# OpenStreetMap's ODbL and Wikidata: answers built on the places must say where they come from.
TERMS = Terms(attribution=ATTRIBUTION)


class OpenTripMapConnector:
    name = "opentripmap"
    terms = TERMS
    tools = frozenset({"activity_search"})

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        api_key: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        sandbox: bool = False,
        max_bytes: int = 8 * 1024 * 1024,
        lang: str = "en",
        cards: int = 3,
    ) -> None:
        self._base = f"{base_url.rstrip('/')}/0.1/{lang}/places"
        self._key = api_key
        self._http = JsonHttp(session, "OpenTripMap", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox
        self._cards = cards

    @property
    def attempts(self) -> int:
        return self._http.attempts

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        if not isinstance(params, ActivitySearchParams):
            raise ProviderUnavailableError(f"OpenTripMap does not serve {tool}")
        try:
            return list(await self._places(params, limit))
        except UNREADABLE as exc:
            raise ProviderResponseError("OpenTripMap sent a response we cannot read", repr(exc)) from exc

    async def _places(self, p: ActivitySearchParams, limit: int) -> list[Activity]:
        assert p.latitude is not None and p.longitude is not None
        body = await self._http.request(
            "GET",
            self._base + "/radius",
            params={
                "radius": str(p.radius_km * 1000),
                "lon": f"{p.longitude:.6f}",
                "lat": f"{p.latitude:.6f}",
                "kinds": CATEGORY_KINDS[p.category] if p.category else KINDS,
                "rate": MIN_RATE,
                "limit": str(min(500, max(3 * limit, 20))),  # unnamed places are dropped below
                "apikey": self._key,
            },
        )
        now = dt.datetime.now(dt.UTC)

        def place(feature: dict[str, Any]) -> list[tuple[float, float, Activity]]:
            props = obj(feature.get("properties"))
            name = str(props.get("name") or "").strip()
            if not name:
                return []
            lon, lat = feature["geometry"]["coordinates"][:2]
            activity = Activity(
                provider=self.name,
                sandbox=self.sandbox,
                fetched_at=now,
                activity_id=text(props["xid"]),
                name=name,
                latitude=float(lat),
                longitude=float(lon),
            )
            return [(-_rate(props.get("rate")), float(props.get("dist") or 0), activity)]

        ranked = each(items(body.get("features"), "OpenTripMap", "features"), place, "OpenTripMap", "places")
        ranked.sort(key=lambda r: (r[0], r[1]))  # most popular first, then nearest
        out: list[Activity] = []
        seen: set[str] = set()
        for _, _, a in ranked:
            if a.activity_id not in seen:
                seen.add(a.activity_id)
                out.append(a)
        out = out[:limit]
        for i, a in enumerate(out[: self._cards]):
            out[i] = await self._with_card(a)
        return out

    async def _with_card(self, activity: Activity) -> Activity:
        """The place's description and link from its card; a card that fails costs only those. The xid
        goes into the card's URL: one not shaped like an xid ("N123", "W456", "Q789") is not asked for."""
        if not XID.fullmatch(activity.activity_id):
            return activity
        try:
            card = await self._http.request(
                "GET", f"{self._base}/xid/{activity.activity_id}", params={"apikey": self._key}
            )
            text = obj(card.get("wikipedia_extracts")).get("text") or obj(card.get("info")).get("descr")
            link = next(
                (u for u in (card.get("url"), card.get("otm"), card.get("wikipedia")) if _link(u)), None
            )
            return activity.model_copy(
                update={
                    "description": str(text)[:2000] if isinstance(text, str) and text.strip() else None,
                    "booking_link": link,
                }
            )
        except CARD_ERRORS as exc:
            logger.info("OpenTripMap card for %s left out: %s", activity.activity_id, exc)
            return activity


def _link(value: Any) -> bool:
    return isinstance(value, str) and is_safe_link(value)


def _rate(value: Any) -> int:
    """Popularity as a number: 3, "3" and "3h" (heritage) are all 3; anything else 0."""
    text = str(value or "")
    return int(text[0]) if text[:1].isdigit() else 0


def _build(ctx: BuildContext) -> OpenTripMapConnector:
    base, key = ctx.credentials("opentripmap_key", "opentripmap_base_url", SANDBOX_KEY)
    return OpenTripMapConnector(
        ctx.session, base, key, policy=ctx.policy, sandbox=ctx.sandbox, max_bytes=ctx.max_bytes
    )


PROVIDER = ProviderSpec(
    name="opentripmap",
    tools=OpenTripMapConnector.tools,
    build=_build,
    keys=("opentripmap_key",),
    settings=("opentripmap_base_url",),
    signup="https://dev.opentripmap.org/register (free key at once)",
    about="sights and attractions (OpenStreetMap, Wikidata), no prices or booking",
)
