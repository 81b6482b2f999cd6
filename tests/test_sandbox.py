"""The offline sandbox over real HTTP: Amadeus and Open-Meteo paths, shapes, rejections, determinism, faults,
and the realism a newcomer sees first (temperatures for the season, prices in minor units, airline names)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import statistics
import time
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import airportsdata
import pytest
from aiohttp.test_utils import TestClient
from yarl import URL

from connectors import models
from connectors.sandbox import (
    FAULTS,
    SandboxFaults,
    airlines,
    create_sandbox_app,
    duffel_api,
    geocoding,
    liteapi_api,
    money,
    start_sandbox,
    stop_sandbox,
    weather,
)

TOKEN = "/v1/security/oauth2/token"
OFFERS = "/v2/shopping/flight-offers"
LOCATIONS = "/v1/reference-data/locations"
HOTELS = "/v1/reference-data/locations/hotels/by-city"
HOTEL_OFFERS = "/v3/shopping/hotel-offers"
ACTIVITIES = "/v1/shopping/activities"
DESTINATIONS = "/v1/shopping/flight-destinations"
DATES = "/v1/shopping/flight-dates"
GEOCODING = "/v1/search"
FORECAST = "/v1/forecast"
CREDENTIALS = {"grant_type": "client_credentials", "client_id": "wayfarer", "client_secret": "s3cret"}
AIRPORTS = airportsdata.load("IATA")


def day(offset: int) -> str:
    return (dt.date.today() + dt.timedelta(days=offset)).isoformat()


async def make_client(aiohttp_client: Any, **faults: Any) -> TestClient[Any, Any]:
    client: TestClient[Any, Any] = await aiohttp_client(create_sandbox_app(SandboxFaults(**faults)))
    return client


async def auth(client: TestClient[Any, Any]) -> dict[str, str]:
    resp = await client.post(TOKEN, data=CREDENTIALS)
    assert resp.status == 200
    return {"Authorization": f"Bearer {(await resp.json())['access_token']}"}


async def get_json(
    client: TestClient[Any, Any], path: str, params: dict[str, str], headers: dict[str, str] | None = None
) -> Any:
    resp = await client.get(path, params=params, headers=headers or {})
    assert resp.status == 200, await resp.text()
    return await resp.json(content_type=None)


async def amadeus_error(resp: aiohttp.ClientResponse, status: int, code: int) -> dict[str, Any]:
    assert resp.status == status, await resp.text()
    assert resp.content_type == "application/vnd.amadeus+json"
    body = await resp.json(content_type=None)
    error = body["errors"][0]
    assert {"status", "code", "title", "detail"} <= set(error)
    assert error["status"] == status and error["code"] == code and error["title"]
    return dict(error)


@pytest.fixture
async def sandbox(aiohttp_client: Any) -> TestClient[Any, Any]:
    return await make_client(aiohttp_client)


@pytest.fixture
async def headers(sandbox: TestClient[Any, Any]) -> dict[str, str]:
    return await auth(sandbox)


def flight_params(**extra: str) -> dict[str, str]:
    return {
        "originLocationCode": "PAR",
        "destinationLocationCode": "NYC",
        "departureDate": day(40),
        "adults": "1",
    } | extra


# --- token and authorization -------------------------------------------------------------------------------


async def test_token_has_the_amadeus_shape(sandbox: TestClient[Any, Any]) -> None:
    resp = await sandbox.post(TOKEN, data=CREDENTIALS)
    body = await resp.json()
    assert resp.status == 200
    assert (
        body["type"] == "amadeusOAuth2Token"
        and body["token_type"] == "Bearer"
        and body["state"] == "approved"
    )
    assert body["client_id"] == "wayfarer" and body["expires_in"] == 1799
    assert set(body) == {
        "type",
        "username",
        "application_name",
        "client_id",
        "token_type",
        "access_token",
        "expires_in",
        "state",
        "scope",
    }
    second = await (await sandbox.post(TOKEN, data=CREDENTIALS)).json()
    assert second["access_token"] != body["access_token"]


async def test_token_endpoint_errors(sandbox: TestClient[Any, Any]) -> None:
    resp = await sandbox.post(TOKEN, data=CREDENTIALS | {"grant_type": "password"})
    assert resp.status == 400
    body = await resp.json()
    assert (
        body["error"] == "unsupported_grant_type"
        and body["code"] == 38187
        and body["title"] == "Invalid parameters"
    )
    resp = await sandbox.post(TOKEN, data={"grant_type": "client_credentials", "client_id": "x"})
    assert resp.status == 401
    assert (await resp.json())["error"] == "invalid_client"


async def test_api_calls_need_a_valid_bearer_token(sandbox: TestClient[Any, Any]) -> None:
    await amadeus_error(await sandbox.get(OFFERS, params=flight_params()), 401, 38191)
    await amadeus_error(
        await sandbox.get(OFFERS, params=flight_params(), headers={"Authorization": "Basic abc"}), 401, 38191
    )
    error = await amadeus_error(
        await sandbox.get(OFFERS, params=flight_params(), headers={"Authorization": "Bearer not-a-token"}),
        401,
        38190,
    )
    assert error["title"] == "Invalid access token"


async def test_expired_token(aiohttp_client: Any) -> None:
    client = await make_client(aiohttp_client, token_ttl_seconds=1)
    resp = await client.post(TOKEN, data=CREDENTIALS)
    assert (await resp.json())["expires_in"] == 1
    headers = {"Authorization": f"Bearer {(await resp.json())['access_token']}"}
    assert (await client.get(HOTELS, params={"cityCode": "PAR"}, headers=headers)).status == 200
    # Until its second has passed on the sandbox's clock: the token works, then it is refused as expired.
    deadline = time.monotonic() + 30
    while (resp := await client.get(HOTELS, params={"cityCode": "PAR"}, headers=headers)).status == 200:
        assert time.monotonic() < deadline, "the token never expired"
        await asyncio.sleep(0.05)
    error = await amadeus_error(resp, 401, 38192)
    assert error["title"] == "Access token expired"


async def test_unknown_path_is_an_amadeus_404(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    await amadeus_error(await sandbox.get("/v1/nothing/here", headers=headers), 404, 38196)


# --- flight offers -----------------------------------------------------------------------------------------


async def test_flight_offers_shape(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    params = flight_params(returnDate=day(47), adults="2", children="1", infants="1")
    body = await get_json(sandbox, OFFERS, params, headers)
    assert body["meta"]["count"] == len(body["data"]) and 3 <= len(body["data"]) <= 10
    assert body["meta"]["links"]["self"].startswith(str(sandbox.make_url(OFFERS)))
    totals = [float(o["price"]["grandTotal"]) for o in body["data"]]
    assert totals == sorted(totals)
    for n, offer in enumerate(body["data"], start=1):
        assert offer["type"] == "flight-offer" and offer["id"] == str(n) and offer["source"] == "GDS"
        assert (
            offer["oneWay"] is False
            and offer["instantTicketingRequired"] is False
            and offer["nonHomogeneous"] is False
        )
        assert offer["lastTicketingDate"] <= params["departureDate"] and offer["numberOfBookableSeats"] >= 3
        assert len(offer["itineraries"]) == 2
        segment_ids = []
        for itinerary in offer["itineraries"]:
            assert itinerary["duration"].startswith("PT")
            for seg in itinerary["segments"]:
                assert {
                    "departure",
                    "arrival",
                    "carrierCode",
                    "number",
                    "aircraft",
                    "operating",
                    "duration",
                    "id",
                    "numberOfStops",
                    "blacklistedInEU",
                } <= set(seg)
                assert seg["numberOfStops"] == 0 and seg["blacklistedInEU"] is False
                assert seg["aircraft"]["code"] in body["dictionaries"]["aircraft"]
                assert seg["carrierCode"] in body["dictionaries"]["carriers"]
                for end in (seg["departure"], seg["arrival"]):
                    assert end["iataCode"] in body["dictionaries"]["locations"]
                    dt.datetime.strptime(end["at"], "%Y-%m-%dT%H:%M:%S")
                segment_ids.append(seg["id"])
        assert segment_ids == [str(i) for i in range(1, len(segment_ids) + 1)]
        assert offer["itineraries"][0]["segments"][0]["departure"]["iataCode"] in ("CDG", "ORY")
        assert offer["itineraries"][0]["segments"][-1]["arrival"]["iataCode"] in ("JFK", "EWR")
        price = offer["price"]
        assert price["currency"] == "EUR" and price["total"] == price["grandTotal"]
        assert [f["type"] for f in price["fees"]] == ["SUPPLIER", "TICKETING"]
        assert all(len(v.split(".")[1]) == 2 for v in (price["total"], price["base"]))
        pricings = offer["travelerPricings"]
        assert [t["travelerType"] for t in pricings] == ["ADULT", "ADULT", "CHILD", "HELD_INFANT"]
        assert pricings[3]["associatedAdultId"] == "1"
        assert round(sum(float(t["price"]["total"]) for t in pricings), 2) == float(price["total"])
        adult, child, infant = (float(pricings[i]["price"]["base"]) for i in (0, 2, 3))
        assert adult > child > infant > 0 and child == pytest.approx(0.75 * adult, rel=0.01)
        for detail in pricings[0]["fareDetailsBySegment"]:
            assert detail["cabin"] == "ECONOMY" and {
                "segmentId",
                "fareBasis",
                "class",
                "includedCheckedBags",
            } <= set(detail)
        assert offer["validatingAirlineCodes"] == [offer["itineraries"][0]["segments"][0]["carrierCode"]]
    locations = body["dictionaries"]["locations"]
    assert locations["CDG"] == {"cityCode": "PAR", "countryCode": "FR"}
    assert body["dictionaries"]["currencies"] == {"EUR": "EURO"}


async def test_flight_offers_are_deterministic(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    first = await get_json(sandbox, OFFERS, flight_params(), headers)
    again = await get_json(sandbox, OFFERS, flight_params(), headers)
    assert first == again
    other = await get_json(sandbox, OFFERS, flight_params(departureDate=day(41)), headers)
    assert [o["price"]["total"] for o in first["data"]] != [o["price"]["total"] for o in other["data"]]
    fresh = await auth(sandbox)  # a new token does not change the answer
    assert await get_json(sandbox, OFFERS, flight_params(), fresh) == first


@pytest.mark.parametrize(
    ("origin", "destination"),
    [("NYC", "TYO"), ("LAX", "SYD"), ("LON", "SIN"), ("AKL", "SCL"), ("REK", "HNL"), ("DEL", "KTM")],
)
async def test_flight_times_are_local_and_consistent(
    sandbox: TestClient[Any, Any], headers: dict[str, str], origin: str, destination: str
) -> None:
    body = await get_json(
        sandbox,
        OFFERS,
        flight_params(originLocationCode=origin, destinationLocationCode=destination),
        headers,
    )
    assert body["data"], f"no offers {origin}-{destination}"

    def instant(end: dict[str, str]) -> dt.datetime:
        local = dt.datetime.fromisoformat(end["at"])
        return local.replace(tzinfo=ZoneInfo(AIRPORTS[end["iataCode"]]["tz"]))

    def minutes(iso: str) -> int:
        hours, _, rest = (
            iso.removeprefix("PT").partition("H") if "H" in iso else ("0", "", iso.removeprefix("PT"))
        )
        return int(hours) * 60 + int(rest.removesuffix("M") or 0)

    for offer in body["data"]:
        segments = offer["itineraries"][0]["segments"]
        for seg in segments:
            flown = (instant(seg["arrival"]) - instant(seg["departure"])).total_seconds() / 60
            assert flown == minutes(seg["duration"]) > 30
        for first, second in zip(segments, segments[1:], strict=False):
            assert first["arrival"]["iataCode"] == second["departure"]["iataCode"]
            layover = (instant(second["departure"]) - instant(first["arrival"])).total_seconds() / 60
            assert 60 <= layover <= 6 * 60
        total = (instant(segments[-1]["arrival"]) - instant(segments[0]["departure"])).total_seconds() / 60
        assert total == minutes(offer["itineraries"][0]["duration"])


async def test_flight_offer_filters(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    nonstop = await get_json(sandbox, OFFERS, flight_params(nonStop="true"), headers)
    assert nonstop["data"] and all(len(o["itineraries"][0]["segments"]) == 1 for o in nonstop["data"])
    cheapest = await get_json(sandbox, OFFERS, flight_params(), headers)
    ceiling = int(float(cheapest["data"][1]["price"]["grandTotal"]))
    capped = await get_json(sandbox, OFFERS, flight_params(maxPrice=str(ceiling)), headers)
    assert capped["data"] and all(float(o["price"]["grandTotal"]) <= ceiling for o in capped["data"])
    assert len((await get_json(sandbox, OFFERS, flight_params(max="2"), headers))["data"]) == 2
    business = await get_json(
        sandbox, OFFERS, flight_params(travelClass="BUSINESS", currencyCode="USD"), headers
    )
    assert business["data"] and business["dictionaries"]["currencies"] == {"USD": "US DOLLAR"}
    for offer in business["data"]:
        assert offer["price"]["currency"] == "USD"
        assert {d["cabin"] for d in offer["travelerPricings"][0]["fareDetailsBySegment"]} == {"BUSINESS"}
    assert float(business["data"][0]["price"]["total"]) > 2 * float(cheapest["data"][0]["price"]["total"])
    one_airport = await get_json(
        sandbox, OFFERS, flight_params(originLocationCode="ORY", destinationLocationCode="LIS"), headers
    )
    assert all(
        o["itineraries"][0]["segments"][0]["departure"]["iataCode"] == "ORY" for o in one_airport["data"]
    )
    assert one_airport["dictionaries"]["locations"]["ORY"]["cityCode"] == "PAR"
    assert (
        await get_json(
            sandbox, OFFERS, flight_params(originLocationCode="OSA", destinationLocationCode="UKY"), headers
        )
    )["data"] == []


async def test_flight_offers_of_some_airlines(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    def carriers(body: dict[str, Any]) -> set[str]:
        return {s["carrierCode"] for o in body["data"] for it in o["itineraries"] for s in it["segments"]}

    route = {"originLocationCode": "LON", "destinationLocationCode": "NYC"}
    everyone = carriers(await get_json(sandbox, OFFERS, flight_params(**route), headers))
    assert {"BA", "UA"} < everyone
    united = await get_json(sandbox, OFFERS, flight_params(**route, includedAirlineCodes="UA"), headers)
    assert carriers(united) == {"UA"} and set(united["dictionaries"]["carriers"]) == {"UA"}
    assert all(o["validatingAirlineCodes"] == ["UA"] for o in united["data"])
    both = await get_json(sandbox, OFFERS, flight_params(**route, includedAirlineCodes="UA,BA"), headers)
    assert carriers(both) == {"UA", "BA"}
    others = await get_json(sandbox, OFFERS, flight_params(**route, excludedAirlineCodes="BA,UA"), headers)
    assert others["data"] and not carriers(others) & {"BA", "UA"}
    nobody = await get_json(sandbox, OFFERS, flight_params(**route, includedAirlineCodes="QF"), headers)
    assert nobody["data"] == [] and "dictionaries" not in nobody
    error = await amadeus_error(
        await sandbox.get(
            OFFERS,
            params=flight_params(**route, includedAirlineCodes="UA", excludedAirlineCodes="BA"),
            headers=headers,
        ),
        400,
        4926,
    )
    assert error["source"]["parameter"] == "excludedAirlineCodes"
    malformed = flight_params(**route, includedAirlineCodes="United")
    await amadeus_error(await sandbox.get(OFFERS, params=malformed, headers=headers), 400, 477)


@pytest.mark.parametrize(
    ("params", "code", "parameter"),
    [
        ({"departureDate": day(-1)}, 425, "departureDate"),
        ({"returnDate": day(30)}, 425, "returnDate"),
        ({"adults": "10"}, 4926, "adults"),
        ({"adults": "2", "infants": "3"}, 4926, "infants"),
        ({"adults": "5", "children": "5"}, 4926, "adults"),
        ({"departureDate": "2030/01/01"}, 477, "departureDate"),
        ({"departureDate": day(400)}, 425, "departureDate"),
        ({"destinationLocationCode": "QQQ"}, 4926, "destinationLocationCode"),
        ({"destinationLocationCode": "PARIS"}, 477, "destinationLocationCode"),
        ({"destinationLocationCode": "CDG"}, 4926, "destinationLocationCode"),
        ({"adults": ""}, 32171, "adults"),
        ({"travelClass": "LUXURY"}, 572, "travelClass"),
        ({"nonStop": "yes"}, 477, "nonStop"),
        ({"max": "0"}, 4926, "max"),
    ],
)
async def test_flight_offer_rejections(
    sandbox: TestClient[Any, Any], headers: dict[str, str], params: dict[str, str], code: int, parameter: str
) -> None:
    resp = await sandbox.get(OFFERS, params=flight_params(**params), headers=headers)
    error = await amadeus_error(resp, 400, code)
    assert error["source"]["parameter"] == parameter
    if code == 425 and params.get("departureDate") == day(-1):
        assert error["title"] == "INVALID DATE" and error["detail"] == "Date/Time is in the past"


# --- locations, hotels, activities -------------------------------------------------------------------------


async def test_location_search(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    body = await get_json(sandbox, LOCATIONS, {"subType": "CITY,AIRPORT", "keyword": "PAR"}, headers)
    paris = body["data"][0]
    assert paris["type"] == "location" and paris["subType"] == "CITY" and paris["id"] == "CPAR"
    assert paris["name"] == "PARIS" and paris["detailedName"] == "PARIS/FR" and paris["iataCode"] == "PAR"
    assert paris["self"]["methods"] == ["GET"] and paris["timeZoneOffset"] in ("+01:00", "+02:00")
    assert paris["address"] == {
        "cityName": "PARIS",
        "cityCode": "PAR",
        "countryName": "FRANCE",
        "countryCode": "FR",
        "regionCode": "EUROP",
    }
    assert set(paris["geoCode"]) == {"latitude", "longitude"} and paris["analytics"]["travelers"]["score"] > 0
    cdg = (await get_json(sandbox, LOCATIONS, {"subType": "AIRPORT", "keyword": "cdg"}, headers))["data"][0]
    assert (
        cdg["id"] == "ACDG"
        and cdg["detailedName"] == "PARIS/FR:CHARLES DE GAULLE"
        and cdg["address"]["cityCode"] == "PAR"
    )
    mumbai = (await get_json(sandbox, LOCATIONS, {"subType": "CITY", "keyword": "bombay"}, headers))["data"]
    assert mumbai[0]["iataCode"] == "BOM"
    dallas = (await get_json(sandbox, LOCATIONS, {"subType": "AIRPORT", "keyword": "DFW"}, headers))["data"][
        0
    ]
    assert dallas["iataCode"] == "DFW" and "DALLAS" in dallas["detailedName"]
    page = await get_json(
        sandbox,
        LOCATIONS,
        {"subType": "AIRPORT", "keyword": "lon", "page[limit]": "3", "page[offset]": "3"},
        headers,
    )
    assert len(page["data"]) == 3 and page["meta"]["count"] > 6 and "next" in page["meta"]["links"]
    assert (await get_json(sandbox, LOCATIONS, {"subType": "CITY", "keyword": "zzzzq"}, headers))[
        "data"
    ] == []
    by_id = await get_json(sandbox, f"{LOCATIONS}/CPAR", {}, headers)
    assert by_id["data"]["iataCode"] == "PAR"
    await amadeus_error(await sandbox.get(LOCATIONS, params={"subType": "CITY"}, headers=headers), 400, 32171)
    await amadeus_error(
        await sandbox.get(LOCATIONS, params={"subType": "TOWN", "keyword": "x"}, headers=headers), 400, 572
    )


async def test_hotels_by_city(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    body = await get_json(sandbox, HOTELS, {"cityCode": "LON", "radius": "50"}, headers)
    hotels = body["data"]
    assert 10 <= len(hotels) <= 40 and body["meta"]["count"] == len(hotels)
    assert len({h["name"] for h in hotels}) == len(hotels)
    for hotel in hotels:
        assert {
            "chainCode",
            "iataCode",
            "dupeId",
            "name",
            "hotelId",
            "geoCode",
            "address",
            "distance",
            "rating",
            "lastUpdate",
        } <= set(hotel)
        assert (
            len(hotel["hotelId"]) == 8
            and hotel["hotelId"][:2] == hotel["chainCode"]
            and hotel["hotelId"][2:5] == "LON"
        )
        assert hotel["name"] == hotel["name"].upper() and 1 <= hotel["rating"] <= 5
        assert hotel["address"] == {"countryCode": "GB"} and hotel["distance"]["unit"] == "KM"
    distances = [h["distance"]["value"] for h in hotels]
    assert distances == sorted(distances)
    assert await get_json(sandbox, HOTELS, {"cityCode": "LON", "radius": "50"}, headers) == body
    near = await get_json(sandbox, HOTELS, {"cityCode": "LON", "radius": "2"}, headers)
    assert all(h["distance"]["value"] <= 2 for h in near["data"]) and len(near["data"]) < len(hotels)
    fancy = await get_json(sandbox, HOTELS, {"cityCode": "LON", "radius": "50", "ratings": "4,5"}, headers)
    assert fancy["data"] and all(h["rating"] in (4, 5) for h in fancy["data"])
    error = await amadeus_error(
        await sandbox.get(HOTELS, params={"cityCode": "XYZ"}, headers=headers), 400, 895
    )
    assert error["title"] == "NOTHING FOUND FOR REQUESTED CITY"


async def test_hotel_offers(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    hotels = (await get_json(sandbox, HOTELS, {"cityCode": "PAR", "radius": "50"}, headers))["data"]
    ids = ",".join(h["hotelId"] for h in hotels[:20])
    params = {
        "hotelIds": ids,
        "adults": "2",
        "checkInDate": day(30),
        "checkOutDate": day(33),
        "bestRateOnly": "false",
    }
    body = await get_json(sandbox, HOTEL_OFFERS, params, headers)
    assert len(body["data"]) == 20 and await get_json(sandbox, HOTEL_OFFERS, params, headers) == body
    available = [item for item in body["data"] if item["available"]]
    assert available
    # Some hotels are sold out on some dates (which ones depends on the dates, so look at several windows).
    sold_out = 0
    for offset in range(10, 60, 7):
        window = {**params, "checkInDate": day(offset), "checkOutDate": day(offset + 2)}
        data = (await get_json(sandbox, HOTEL_OFFERS, window, headers))["data"]
        sold_out += sum(1 for item in data if not item["available"])
    assert sold_out > 0
    for item in body["data"]:
        assert item["type"] == "hotel-offers" and item["self"]
        assert {"type", "hotelId", "chainCode", "dupeId", "name", "cityCode", "latitude", "longitude"} <= set(
            item["hotel"]
        )
    for item in available:
        for offer in item["offers"]:
            assert (
                len(offer["id"]) == 10
                and offer["checkInDate"] == day(30)
                and offer["checkOutDate"] == day(33)
            )
            assert offer["guests"] == {"adults": 2} and offer["room"]["description"]["lang"] == "EN"
            assert {"category", "beds", "bedType"} <= set(offer["room"]["typeEstimated"])
            price = offer["price"]
            assert price["currency"] == "EUR" and float(price["total"]) >= float(price["base"]) > 0
            nights = price["variations"]["changes"]
            assert nights[0]["startDate"] == day(30) and nights[-1]["endDate"] == day(33)
            assert "cancellations" in offer["policies"] or "cancellation" in offer["policies"]
            assert offer["policies"]["paymentType"] in ("guarantee", "deposit")
    one_night = await get_json(
        sandbox, HOTEL_OFFERS, params | {"checkOutDate": day(31), "bestRateOnly": "true"}, headers
    )
    assert all(len(i.get("offers", [])) <= 1 for i in one_night["data"])
    mixed = await get_json(
        sandbox,
        HOTEL_OFFERS,
        {"hotelIds": f"{hotels[0]['hotelId']},XXPARZZZ,NOPE", "checkInDate": day(30)},
        headers,
    )
    assert [i["hotel"]["hotelId"] for i in mixed["data"]] == [hotels[0]["hotelId"]]
    await amadeus_error(
        await sandbox.get(HOTEL_OFFERS, params={"hotelIds": "XXPARZZZ"}, headers=headers), 400, 1257
    )
    bad_dates = params | {"checkOutDate": day(29)}
    assert (
        await amadeus_error(await sandbox.get(HOTEL_OFFERS, params=bad_dates, headers=headers), 400, 425)
    )["source"]["parameter"] == "checkOutDate"
    await amadeus_error(
        await sandbox.get(HOTEL_OFFERS, params=params | {"checkInDate": day(-2)}, headers=headers), 400, 425
    )
    await amadeus_error(
        await sandbox.get(HOTEL_OFFERS, params=params | {"adults": "10"}, headers=headers), 400, 4926
    )


async def test_hotel_prices_follow_city_cost(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    async def median_night(city: str) -> float:
        ids = ",".join(
            h["hotelId"]
            for h in (await get_json(sandbox, HOTELS, {"cityCode": city, "radius": "50"}, headers))["data"]
        )
        body = await get_json(
            sandbox,
            HOTEL_OFFERS,
            {"hotelIds": ids, "checkInDate": day(60), "checkOutDate": day(61), "currency": "EUR"},
            headers,
        )
        prices = sorted(float(i["offers"][0]["price"]["total"]) for i in body["data"] if i["available"])
        return prices[len(prices) // 2]

    assert await median_night("ZRH") > 2 * await median_night("HAN")


async def test_activities(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    body = await get_json(
        sandbox, ACTIVITIES, {"latitude": "38.7223", "longitude": "-9.1393", "radius": "5"}, headers
    )
    assert 5 <= len(body["data"]) <= 20 and body["meta"]["count"] == len(body["data"])
    assert len({a["id"] for a in body["data"]}) == len(body["data"])
    for activity in body["data"]:
        assert activity["type"] == "activity" and activity["id"].isdigit() and "Lisbon" in activity["name"]
        assert {
            "self",
            "name",
            "shortDescription",
            "description",
            "geoCode",
            "rating",
            "pictures",
            "bookingLink",
            "price",
            "minimumDuration",
        } <= set(activity)
        assert (
            abs(float(activity["geoCode"]["latitude"]) - 38.72) < 0.1
            and 3.0 <= float(activity["rating"]) <= 5.0
        )
        assert activity["price"]["currencyCode"] == "EUR" and float(activity["price"]["amount"]) > 0
        assert activity["description"].count(".") >= 2
    again = await get_json(sandbox, ACTIVITIES, {"latitude": "38.70", "longitude": "-9.15"}, headers)
    assert [a["id"] for a in again["data"]] == [a["id"] for a in body["data"]]
    single = await get_json(sandbox, f"{ACTIVITIES}/{body['data'][0]['id']}", {}, headers)
    assert single["data"]["name"] == body["data"][0]["name"]
    assert (await get_json(sandbox, ACTIVITIES, {"latitude": "0", "longitude": "-30"}, headers))["data"] == []
    await amadeus_error(
        await sandbox.get(ACTIVITIES, params={"latitude": "95", "longitude": "0"}, headers=headers), 400, 4926
    )
    await amadeus_error(await sandbox.get(ACTIVITIES, params={"longitude": "0"}, headers=headers), 400, 32171)


async def test_a_city_has_a_sight_of_each_kind(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    """Its museum, park, church, castle or palace, stage and viewpoint (a big city's zoo and stadium too),
    as Amadeus lists activities: without OpenTripMap's kinds, which the OpenTripMap dialect serves."""
    body = await get_json(sandbox, ACTIVITIES, {"latitude": "41.3874", "longitude": "2.1686"}, headers)
    names = " ".join(a["name"] for a in body["data"])
    for sight in ("Museum", "Cathedral", "Botanical Garden", "Opera House", "observation deck", "stadium"):
        assert sight in names, sight
    assert not any(key == "kinds" or key.startswith("_") for a in body["data"] for key in a)


# --- any city of the shared place catalogue ----------------------------------------------------------------


async def test_hotels_in_cities_outside_the_destination_list(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    # Kansas City and Salt Lake City are no destination of cities.json: their airports' codes name them.
    body = await get_json(sandbox, HOTELS, {"cityCode": "MCI", "radius": "50"}, headers)
    hotels = body["data"]
    assert 10 <= len(hotels) <= 40
    assert all(h["iataCode"] == "MCI" and h["hotelId"][2:5] == "MCI" for h in hotels)
    assert all(h["address"] == {"countryCode": "US"} for h in hotels)
    assert any("KANSAS CITY" in h["name"] for h in hotels)
    assert await get_json(sandbox, HOTELS, {"cityCode": "MCI", "radius": "50"}, headers) == body
    ids = ",".join(h["hotelId"] for h in hotels)
    params = {"hotelIds": ids, "checkInDate": day(30), "checkOutDate": day(32)}
    offers = await get_json(sandbox, HOTEL_OFFERS, params, headers)
    assert [i["hotel"]["hotelId"] for i in offers["data"]] == [h["hotelId"] for h in hotels]
    priced = [o for i in offers["data"] if i["available"] for o in i["offers"]]
    assert priced and all(o["price"]["currency"] == "USD" for o in priced)  # the country's currency
    assert await get_json(sandbox, HOTEL_OFFERS, params, headers) == offers
    salt_lake = (await get_json(sandbox, HOTELS, {"cityCode": "SLC", "radius": "50"}, headers))["data"]
    assert salt_lake and {h["iataCode"] for h in salt_lake} == {"SLC"}
    cologne = (await get_json(sandbox, HOTELS, {"cityCode": "CGN", "radius": "50"}, headers))["data"]
    cologne_ids = ",".join(h["hotelId"] for h in cologne)
    cologne_offers = await get_json(
        sandbox, HOTEL_OFFERS, {"hotelIds": cologne_ids, "checkInDate": day(30)}, headers
    )
    assert {
        o["price"]["currency"] for i in cologne_offers["data"] if i["available"] for o in i["offers"]
    } == {"EUR"}
    # A destination's airport stands for its city; a village below the gazetteer has no hotel list.
    heathrow = (await get_json(sandbox, HOTELS, {"cityCode": "LHR", "radius": "50"}, headers))["data"]
    assert heathrow and {h["iataCode"] for h in heathrow} == {"LON"}
    error = await amadeus_error(
        await sandbox.get(HOTELS, params={"cityCode": "LUA"}, headers=headers), 400, 895
    )
    assert error["title"] == "NOTHING FOUND FOR REQUESTED CITY"


async def test_flights_to_cities_outside_the_destination_list(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    body = await get_json(
        sandbox, OFFERS, flight_params(originLocationCode="LIS", destinationLocationCode="MCI"), headers
    )
    assert body["data"]
    for offer in body["data"]:
        segments = offer["itineraries"][0]["segments"]
        assert segments[0]["departure"]["iataCode"] == "LIS" and segments[-1]["arrival"]["iataCode"] == "MCI"
    assert body["dictionaries"]["locations"]["MCI"] == {"cityCode": "MCI", "countryCode": "US"}
    domestic = await get_json(
        sandbox, OFFERS, flight_params(originLocationCode="BOS", destinationLocationCode="SLC"), headers
    )
    assert domestic["data"] and all(
        o["itineraries"][0]["segments"][-1]["arrival"]["iataCode"] == "SLC" for o in domestic["data"]
    )


async def test_activities_in_a_city_outside_the_destination_list(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    params = {"latitude": "50.93333", "longitude": "6.95", "radius": "5"}  # Köln: no destination within 30 km
    body = await get_json(sandbox, ACTIVITIES, params, headers)
    assert 5 <= len(body["data"]) <= 20 and all("Köln" in a["name"] for a in body["data"])
    assert len({a["id"] for a in body["data"]}) == len(body["data"])
    assert await get_json(sandbox, ACTIVITIES, params, headers) == body
    single = await get_json(sandbox, f"{ACTIVITIES}/{body['data'][-1]['id']}", {}, headers)
    assert single["data"]["name"] == body["data"][-1]["name"]
    lisbon = await get_json(sandbox, ACTIVITIES, {"latitude": "38.7223", "longitude": "-9.1393"}, headers)
    assert {a["id"] for a in lisbon["data"]}.isdisjoint(a["id"] for a in body["data"])


async def test_geocoding_finds_other_language_names(sandbox: TestClient[Any, Any]) -> None:
    for query, name, country in (
        ("Lisboa", "Lisbon", "PT"),
        ("München", "Munich", "DE"),
        ("Kansas City", "Kansas City", "US"),
    ):
        top = (await get_json(sandbox, GEOCODING, {"name": query, "count": "5"}))["results"][0]
        assert top["name"] == name and top["country_code"] == country, query
    assert (await get_json(sandbox, GEOCODING, {"name": "Kansas City"}))["results"][0]["admin1"] == "Missouri"
    uk = (await get_json(sandbox, GEOCODING, {"name": "London", "count": "1"}))["results"][0]
    assert uk["country"] == "United Kingdom"


# --- inspiration and cheapest dates ------------------------------------------------------------------------


async def test_flight_destinations(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    body = await get_json(sandbox, DESTINATIONS, {"origin": "MAD", "maxPrice": "400"}, headers)
    assert (
        body["data"]
        and body["meta"]["currency"] == "EUR"
        and body["meta"]["defaults"]["viewBy"] == "DESTINATION"
    )
    prices = [float(d["price"]["total"]) for d in body["data"]]
    assert prices == sorted(prices) and prices[-1] <= 400
    for item in body["data"]:
        assert (
            item["type"] == "flight-destination"
            and item["origin"] == "MAD"
            and item["returnDate"] > item["departureDate"]
        )
        assert set(item["links"]) == {"flightDates", "flightOffers"}
        assert body["dictionaries"]["locations"][item["destination"]]["subType"] == "CITY"
    # The price is what flight-offers quotes for the cheapest economy seat for one adult.
    top = body["data"][0]
    link = URL(top["links"]["flightOffers"])
    offers = await get_json(sandbox, OFFERS, dict(link.query), headers)
    assert offers["data"][0]["price"]["grandTotal"] == top["price"]["total"]
    one_way = await get_json(
        sandbox,
        DESTINATIONS,
        {"origin": "MAD", "oneWay": "true", "departureDate": f"{day(10)},{day(20)}"},
        headers,
    )
    assert all("returnDate" not in d and day(10) <= d["departureDate"] <= day(20) for d in one_way["data"])
    await amadeus_error(await sandbox.get(DESTINATIONS, params={"origin": "QQQ"}, headers=headers), 400, 4926)
    await amadeus_error(await sandbox.get(DESTINATIONS, params={}, headers=headers), 400, 32171)


async def test_flight_dates(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    body = await get_json(sandbox, DATES, {"origin": "LON", "destination": "BCN"}, headers)
    assert 170 <= len(body["data"]) <= 181
    for item in body["data"]:
        assert item["type"] == "flight-date" and item["origin"] == "LON" and item["destination"] == "BCN"
        assert (
            set(item["links"]) == {"flightDestinations", "flightOffers"} and float(item["price"]["total"]) > 0
        )
    dates = [d["departureDate"] for d in body["data"]]
    assert dates == sorted(dates) and dates[0] >= day(0)
    assert len({d["price"]["total"] for d in body["data"]}) > 100
    assert {"currencies", "locations"} <= set(body["dictionaries"]) and body["meta"]["currency"] == "EUR"
    await amadeus_error(
        await sandbox.get(DATES, params={"origin": "LON", "destination": "LHR"}, headers=headers), 400, 4926
    )


# --- Open-Meteo --------------------------------------------------------------------------------------------


async def test_geocoding(sandbox: TestClient[Any, Any]) -> None:
    body = await get_json(sandbox, GEOCODING, {"name": "Berlin", "count": "3"})
    top = body["results"][0]
    assert (
        top["name"] == "Berlin"
        and top["country_code"] == "DE"
        and top["country"] == "Germany"
        and top["id"] == 2950159
    )
    assert {"latitude", "longitude", "elevation", "feature_code", "timezone", "population"} <= set(top)
    assert len(body["results"]) <= 3 and isinstance(body["generationtime_ms"], float)
    assert (await get_json(sandbox, GEOCODING, {"name": "Bombay"}))["results"][0]["name"] == "Mumbai"
    assert (await get_json(sandbox, GEOCODING, {"name": "Springfield"}))["results"][0]["admin1"]
    assert "results" not in await get_json(sandbox, GEOCODING, {"name": "B"})
    assert "results" not in await get_json(sandbox, GEOCODING, {"name": "Xqzvvwk"})
    assert await get_json(sandbox, GEOCODING, {"name": "Berlin"}) == await get_json(
        sandbox, GEOCODING, {"name": "Berlin"}
    )


async def test_forecast(sandbox: TestClient[Any, Any]) -> None:
    daily = "temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,weather_code,wind_speed_10m_max"
    params = {
        "latitude": "35.68",
        "longitude": "139.69",
        "daily": daily,
        "timezone": "auto",
        "forecast_days": "10",
    }
    body = await get_json(sandbox, FORECAST, params)
    assert (
        body["timezone"] == "Asia/Tokyo"
        and body["utc_offset_seconds"] == 9 * 3600
        and body["timezone_abbreviation"]
    )
    assert {"latitude", "longitude", "generationtime_ms", "elevation"} <= set(body)
    assert (
        body["daily_units"]["temperature_2m_max"] == "°C"
        and body["daily_units"]["weather_code"] == "wmo code"
    )
    values = body["daily"]
    assert len(values["time"]) == 10 and all(len(values[v]) == 10 for v in daily.split(","))
    for tmax, tmin, rain, code, chance in zip(
        values["temperature_2m_max"],
        values["temperature_2m_min"],
        values["precipitation_sum"],
        values["weather_code"],
        values["precipitation_probability_max"],
        strict=True,
    ):
        assert -30 < tmin <= tmax < 45
        assert (code >= 51) == (rain > 0) and 0 <= chance <= 100
    assert await get_json(sandbox, FORECAST, params) == body
    start, end = day(2), day(4)
    ranged = await get_json(sandbox, FORECAST, params | {"start_date": start, "end_date": end})
    assert ranged["daily"]["time"] == [start, day(3), end]
    by_date = dict(zip(values["time"], values["temperature_2m_max"], strict=True))
    assert ranged["daily"]["temperature_2m_max"] == [by_date[d] for d in ranged["daily"]["time"]]
    fahrenheit = await get_json(sandbox, FORECAST, params | {"temperature_unit": "fahrenheit"})
    assert fahrenheit["daily_units"]["temperature_2m_max"] == "°F"
    gmt = await get_json(
        sandbox, FORECAST, {"latitude": "1.35", "longitude": "103.8", "daily": "temperature_2m_max"}
    )
    polar = await get_json(
        sandbox, FORECAST, {"latitude": "78.2", "longitude": "15.6", "daily": "temperature_2m_max"}
    )
    assert gmt["timezone"] == "GMT" and gmt["utc_offset_seconds"] == 0
    assert min(gmt["daily"]["temperature_2m_max"]) > max(polar["daily"]["temperature_2m_max"])


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        (
            {"daily": "temperature_2m_max,sunshine_hourz"},
            "Cannot initialize WeatherVariable from invalid String value sunshine_hourz for key daily",
        ),
        ({"latitude": "91"}, "Latitude must be in range of -90 to 90°. Given: 91.0."),
        ({"forecast_days": "17"}, "Forecast days is invalid. Allowed range 0 to 16."),
        ({"start_date": day(30), "end_date": day(31)}, "Parameter 'start_date' is out of allowed range"),
        ({"start_date": day(3), "end_date": day(1)}, "End-date must be larger or equals than start-date"),
        ({"timezone": "Mars/Olympus"}, "Invalid timezone"),
    ],
)
async def test_forecast_rejections(
    sandbox: TestClient[Any, Any], params: dict[str, str], reason: str
) -> None:
    base = {"latitude": "48.85", "longitude": "2.35", "daily": "temperature_2m_max"}
    resp = await sandbox.get(FORECAST, params=base | params)
    assert resp.status == 400
    body = await resp.json()
    assert body["error"] is True and body["reason"].startswith(reason)


# --- faults ------------------------------------------------------------------------------------------------


async def test_latency_applies_everywhere(aiohttp_client: Any) -> None:
    client = await make_client(aiohttp_client, latency_ms=300)
    started = time.monotonic()
    headers = await auth(client)
    assert time.monotonic() - started >= 0.28
    started = time.monotonic()
    await get_json(client, FORECAST, {"latitude": "0", "longitude": "0"})
    assert time.monotonic() - started >= 0.28
    client.app[FAULTS].latency_ms = 0
    started = time.monotonic()
    await get_json(client, HOTELS, {"cityCode": "ROM"}, headers)
    assert time.monotonic() - started < 0.25


async def test_error_rate(aiohttp_client: Any) -> None:
    client = await make_client(aiohttp_client, error_rate=1.0)
    headers = await auth(client)  # the token endpoint only gets latency
    error = await amadeus_error(
        await client.get(HOTELS, params={"cityCode": "ROM"}, headers=headers), 500, 38189
    )
    assert error["title"] == "Internal error"
    resp = await client.get(FORECAST, params={"latitude": "0", "longitude": "0"})
    assert resp.status == 500
    body = await resp.json()
    assert body["error"] is True and body["reason"]
    client.app[FAULTS].error_rate = 0.0
    assert (await client.get(HOTELS, params={"cityCode": "ROM"}, headers=headers)).status == 200


async def test_error_rate_is_repeatable_with_a_seed(aiohttp_client: Any) -> None:
    async def statuses() -> list[int]:
        client = await make_client(aiohttp_client, error_rate=0.5, seed=7)
        headers = await auth(client)
        return [
            (await client.get(HOTELS, params={"cityCode": "ROM"}, headers=headers)).status for _ in range(12)
        ]

    first = await statuses()
    assert first == await statuses() and {200, 500} == set(first)


async def test_too_many_requests_counts_down(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    sandbox.app[FAULTS].too_many_requests = 2
    for _ in range(2):
        error = await amadeus_error(
            await sandbox.get(HOTELS, params={"cityCode": "ROM"}, headers=headers), 429, 38194
        )
        assert error["title"] == "Too many requests"
    assert (await sandbox.get(HOTELS, params={"cityCode": "ROM"}, headers=headers)).status == 200
    assert sandbox.app[FAULTS].too_many_requests == 0


async def test_quota_exceeded(sandbox: TestClient[Any, Any], headers: dict[str, str]) -> None:
    sandbox.app[FAULTS].quota_exceeded = True
    for _ in range(3):
        error = await amadeus_error(
            await sandbox.get(HOTELS, params={"cityCode": "ROM"}, headers=headers), 429, 38195
        )
        assert error["title"] == "Quota limit exceeded"
    assert (await sandbox.post(TOKEN, data=CREDENTIALS)).status == 200
    assert (await sandbox.get(FORECAST, params={"latitude": "0", "longitude": "0"})).status == 200
    sandbox.app[FAULTS].quota_exceeded = False
    assert (await sandbox.get(HOTELS, params={"cityCode": "ROM"}, headers=headers)).status == 200


async def test_malformed_bodies(aiohttp_client: Any) -> None:
    client = await make_client(aiohttp_client, malformed_rate=1.0)
    headers = await auth(client)  # token responses stay intact
    for path, params, hdrs in (
        (HOTELS, {"cityCode": "ROM"}, headers),
        (FORECAST, {"latitude": "0", "longitude": "0", "daily": "temperature_2m_max"}, {}),
    ):
        resp = await client.get(path, params=params, headers=hdrs)
        assert resp.status == 200 and "json" in resp.content_type
        with pytest.raises(json.JSONDecodeError):
            json.loads(await resp.text())
    # Errors are never malformed: only otherwise-successful responses are.
    await amadeus_error(await client.get(HOTELS, params={"cityCode": "XYZ"}, headers=headers), 400, 895)


def test_faults_are_validated() -> None:
    faults = SandboxFaults()
    with pytest.raises(ValueError):
        faults.error_rate = 2.0
    with pytest.raises(ValueError):
        SandboxFaults(latency_ms=-1)


# --- running as a server -----------------------------------------------------------------------------------


async def test_start_and_stop_on_a_free_port() -> None:
    runner, base_url = await start_sandbox(port=0, faults=SandboxFaults(latency_ms=10))
    try:
        assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith(":0")
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
            async with session.post(base_url + TOKEN, data=CREDENTIALS) as resp:
                token = (await resp.json())["access_token"]
            async with session.get(
                base_url + HOTELS, params={"cityCode": "TYO"}, headers={"Authorization": f"Bearer {token}"}
            ) as resp:
                assert resp.status == 200 and (await resp.json(content_type=None))["data"]
    finally:
        await stop_sandbox(runner)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(base_url + FORECAST, params={"latitude": "0", "longitude": "0"})


# --- realism: a newcomer's first answers come from here (issue 15) ----------------------------------------

# Normal mean daily high and low (°C) for the month, from the WMO 1991-2020 climate normals (rounded).
CLIMATE_FACTS = [
    ("Rome", "IT", "2025-11-17", 15.5, 6.5),  # late November: mild, never a hard frost
    ("Oslo", "NO", "2026-01-10", 0.0, -5.5),
    ("Singapore", "SG", "2026-01-10", 30.5, 23.5),
    ("Singapore", "SG", "2026-04-10", 32.0, 24.5),
    ("Singapore", "SG", "2026-07-10", 31.0, 25.0),
    ("Singapore", "SG", "2026-10-10", 31.5, 24.5),
    ("Sydney", "AU", "2026-01-10", 26.0, 19.0),  # southern summer
    ("Dubai", "AE", "2026-07-10", 40.5, 30.0),
    ("Reykjavik", "IS", "2026-07-10", 14.0, 9.0),
]


@pytest.mark.parametrize(("name", "country", "first", "high", "low"), CLIMATE_FACTS)
def test_temperatures_are_plausible_for_the_city_and_season(
    name: str, country: str, first: str, high: float, low: float
) -> None:
    """Two weeks of synthetic weather stay near the city's climate normals for the season.

    The fortnight's mean high and low are within 3.5 °C of the normals, and no single day strays further
    than a real cold or hot spell would (9 °C; 4.5 °C in the tropics, where days barely vary).
    """
    city = next(c for c in geocoding.search(name, 5) if c.country_code == country)
    elevation = geocoding.elevation(city.latitude, city.longitude)
    start = dt.date.fromisoformat(first)
    days = [
        weather.day_weather(city.latitude, city.longitude, elevation, start + dt.timedelta(days=n))
        for n in range(14)
    ]
    highs = [d.temperature_2m_max for d in days]
    lows = [d.temperature_2m_min for d in days]
    assert abs(statistics.mean(highs) - high) <= 3.5, highs
    assert abs(statistics.mean(lows) - low) <= 3.5, lows
    spell = 4.5 if abs(city.latitude) < 23 else 9.0
    assert all(abs(h - high) <= spell for h in highs), highs
    assert all(abs(t - low) <= spell for t in lows), lows


def test_money_is_written_in_the_currency_minor_units() -> None:
    assert models.money(21400, "JPY") == "21,400 JPY"
    assert models.money(1234.5, "EUR") == "1,234.50 EUR"
    assert models.money(3.25, "KWD") == "3.250 KWD" and models.money(99.5, "BHD") == "99.500 BHD"
    assert models.money(150000, "KRW") == "150,000 KRW" and models.money(12, "isk") == "12 isk"
    assert models.money(None, "JPY") == "price unknown" and models.money(5, None) == "5.00"
    assert money.fmt(21400.4, "JPY") == "21400" and money.round_minor(99.6, "JPY") == 100
    assert money.fmt(3.25, "KWD") == "3.250" and money.round_minor(12.345678, "BHD") == 12.346


def _amounts(node: Any, keys: frozenset[str]) -> list[Any]:
    """Every value under one of the keys, at any depth."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k in keys and not isinstance(v, dict | list)] + [
            a for v in node.values() for a in _amounts(v, keys)
        ]
    if isinstance(node, list):
        return [a for v in node for a in _amounts(v, keys)]
    return []


PRICE_KEYS = frozenset({"total", "base", "grandTotal", "amount"})


@pytest.mark.parametrize(
    ("currency", "pattern"), [("JPY", r"\d+"), ("EUR", r"\d+\.\d\d"), ("KWD", r"\d+\.\d{3}")]
)
async def test_flight_prices_use_the_currency_minor_units(
    sandbox: TestClient[Any, Any], headers: dict[str, str], currency: str, pattern: str
) -> None:
    params = flight_params(currencyCode=currency, returnDate=day(47), adults="2", children="1")
    body = await get_json(sandbox, OFFERS, params, headers)
    amounts = _amounts(body["data"], PRICE_KEYS)
    assert len(amounts) > 20 and all(re.fullmatch(pattern, a) for a in amounts), amounts
    for offer in body["data"]:  # the travellers' prices still add up to the offer's, to the minor unit
        shares = sum(Decimal(t["price"]["total"]) for t in offer["travelerPricings"])
        assert shares == Decimal(offer["price"]["grandTotal"])


async def test_hotel_prices_use_the_currency_minor_units(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    hotels = (await get_json(sandbox, HOTELS, {"cityCode": "TYO"}, headers))["data"]
    params = {
        "hotelIds": ",".join(h["hotelId"] for h in hotels[:10]),
        "adults": "2",
        "checkInDate": day(30),
        "checkOutDate": day(33),
        "currency": "JPY",
        "bestRateOnly": "false",
    }
    body = await get_json(sandbox, HOTEL_OFFERS, params, headers)
    amounts = _amounts(body["data"], PRICE_KEYS)
    assert amounts and all(re.fullmatch(r"\d+", a) for a in amounts), amounts

    lite = {"X-API-Key": liteapi_api.API_KEY}
    resp = await sandbox.get(
        liteapi_api.HOTELS_PATH, params={"countryCode": "JP", "cityName": "Tokyo"}, headers=lite
    )
    assert resp.status == 200, await resp.text()
    ids = [h["id"] for h in (await resp.json())["data"][:10]]
    rates = {
        "hotelIds": ids,
        "occupancies": [{"adults": 2, "children": []}],
        "currency": "JPY",
        "guestNationality": "GB",
        "checkin": day(30),
        "checkout": day(33),
    }
    resp = await sandbox.post(liteapi_api.RATES_PATH, json=rates, headers=lite)
    assert resp.status == 200, await resp.text()
    amounts = _amounts((await resp.json())["data"], PRICE_KEYS)
    assert amounts and all(isinstance(a, int) for a in amounts), amounts  # whole yen, as JSON integers


async def test_carrier_names_are_written_as_the_airlines_write_them(
    sandbox: TestClient[Any, Any], headers: dict[str, str]
) -> None:
    """Duffel sends 'KLM' and 'easyJet'; Amadeus's dictionaries spell the same names in capitals."""
    duffel = {"Authorization": f"Bearer {duffel_api.SANDBOX_TOKEN}", "Duffel-Version": duffel_api.VERSION}
    request = {
        "data": {
            "slices": [{"origin": "LON", "destination": "AMS", "departure_date": day(40)}],
            "passengers": [{"type": "adult"}],
        }
    }
    resp = await sandbox.post(duffel_api.OFFER_REQUESTS, json=request, headers=duffel)
    assert resp.status == 201, await resp.text()
    offers = (await resp.json())["data"]["offers"]
    names = {o["owner"]["name"] for o in offers} | {
        s[role]["name"]
        for o in offers
        for sl in o["slices"]
        for s in sl["segments"]
        for role in ("marketing_carrier", "operating_carrier")
    }
    assert {"KLM", "easyJet"} <= names and names <= set(airlines.CARRIERS.values()), names
    planes = {s["aircraft"]["name"] for o in offers for sl in o["slices"] for s in sl["segments"]}
    assert planes <= set(airlines.AIRCRAFT.values()), planes

    body = await get_json(
        sandbox, OFFERS, flight_params(destinationLocationCode="AMS", originLocationCode="LON"), headers
    )
    carriers = body["dictionaries"]["carriers"]
    assert carriers["KL"] == "KLM" and carriers["U2"] == "EASYJET"
    assert all(name == name.upper() and name.isascii() for name in carriers.values())
    assert airlines.amadeus_name("Aeroméxico") == "AEROMEXICO"
