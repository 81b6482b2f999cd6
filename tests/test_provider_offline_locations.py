"""location_search from the place catalogue, offline: names, codes, misspellings, other languages, airport
vs city, unknown keywords, and the same identities (and sentences) the Amadeus results have through the
sandbox for the same keywords. Stable identities, limits and refused tools: tests/test_provider_contract.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from connectors.amadeus import SANDBOX_CLIENT, AmadeusConnector
from connectors.http import RetryPolicy
from connectors.models import Location
from connectors.offline_locations import OfflineLocationsConnector, airport_name
from connectors.params import LocationSearchParams
from connectors.places import LocationCatalogue
from connectors.sandbox.app import create_sandbox_app


@pytest.fixture(scope="module")
def provider() -> OfflineLocationsConnector:
    return OfflineLocationsConnector(LocationCatalogue.load())


async def search(
    provider: OfflineLocationsConnector, keyword: str, kind: str = "ANY", limit: int = 10
) -> list[Location]:
    params = LocationSearchParams.model_validate({"keyword": keyword, "kind": kind})
    results = await provider.call("location_search", params, limit)
    assert all(isinstance(r, Location) for r in results)
    return [r for r in results if isinstance(r, Location)]


def ids(results: list[Location]) -> list[str]:
    return [r.location_id for r in results]


async def test_codes(provider: OfflineLocationsConnector) -> None:
    (lhr,) = await search(provider, "LHR")
    assert (lhr.sub_type, lhr.iata, lhr.city_code, lhr.country_code) == ("AIRPORT", "LHR", "LON", "GB")
    assert lhr.render() == "London Heathrow airport (LHR) in London, GB."
    london = await search(provider, "lon")
    assert ids(london)[:6] == ["CLON", "ALHR", "ALGW", "ASTN", "ALTN", "ALCY"]
    assert london[0].render() == "London (LON), city, GB."
    assert (await search(provider, "CDG"))[0].city_code == "PAR"


async def test_names_and_prefixes(provider: OfflineLocationsConnector) -> None:
    paris = await search(provider, "paris")
    assert ids(paris)[:3] == ["CPAR", "ACDG", "AORY"]
    assert "CPRX" in ids(paris)  # Paris, Texas: another place of that very name, after France's
    assert ids(await search(provider, "Paris, Texas"))[0] == "CPRX"
    assert ids(await search(provider, "new york"))[:4] == ["CNYC", "AJFK", "AEWR", "ALGA"]
    assert ids(await search(provider, "lisb"))[:2] == ["CLIS", "ALIS"]  # a keyword is a prefix
    assert ids(await search(provider, "heathrow")) == ["ALHR"]  # an airport by a word of its name
    assert ids(await search(provider, "charles de gaulle")) == ["ACDG"]
    assert ids(await search(provider, "Kansas City"))[:2] == ["CMCI", "AMCI"]  # not a destination city


@pytest.mark.parametrize(
    ("keyword", "first"),
    [("Pariss", "CPAR"), ("Barcelna", "CBCN"), ("Amsterdm", "CAMS"), ("Zurik", "CZRH")],
)
async def test_misspellings(provider: OfflineLocationsConnector, keyword: str, first: str) -> None:
    assert ids(await search(provider, keyword))[0] == first


@pytest.mark.parametrize(
    ("keyword", "first"),
    [
        ("Lisboa", "CLIS"),
        ("München", "CMUC"),
        ("Londres", "CLON"),
        ("Tokio", "CTYO"),
        ("Nueva York", "CNYC"),
        ("Kobenhavn", "CCPH"),
        ("Pekin", "CBJS"),
    ],
)
async def test_other_languages(provider: OfflineLocationsConnector, keyword: str, first: str) -> None:
    found = await search(provider, keyword)
    assert found[0].location_id == first and found[0].name.isascii()  # the English name


async def test_airport_or_city(provider: OfflineLocationsConnector) -> None:
    cities = await search(provider, "london", "CITY")
    assert cities and all(c.sub_type == "CITY" for c in cities) and cities[0].location_id == "CLON"
    assert {c.country_code for c in cities} >= {"GB", "CA"}  # London, Ontario too
    airports = await search(provider, "london", "AIRPORT")
    assert airports and all(a.sub_type == "AIRPORT" for a in airports)
    assert ids(airports)[:5] == ["ALHR", "ALGW", "ASTN", "ALTN", "ALCY"]
    assert all(a.city_code == "LON" for a in airports[:5])
    # A town without an airport of its own is no CITY with a code: the airport it flies from is found.
    assert ids(await search(provider, "Sintra")) == ["ALIS"]
    assert await search(provider, "Sintra", "CITY") == []


async def test_unknown_is_empty(provider: OfflineLocationsConnector) -> None:
    # As Amadeus answers an unknown keyword: no results, not an error (the tool's params take any text).
    assert await search(provider, "Qwzxqv") == []
    assert await search(provider, "zz") == []


async def test_identities_name_the_place(provider: OfflineLocationsConnector) -> None:
    assert (await search(provider, "rome"))[0].identity == "location:CROM"
    assert airport_name("Charles de Gaulle International Airport") == "Charles de Gaulle"
    assert airport_name("Airport") == "Airport"


@pytest.fixture
async def amadeus() -> AsyncIterator[AmadeusConnector]:
    async with TestServer(create_sandbox_app()) as server, aiohttp.ClientSession() as session:
        yield AmadeusConnector(
            session,
            str(server.make_url("")),
            *SANDBOX_CLIENT,
            policy=RetryPolicy(retries=0, timeout=10),
            limiter=None,
            sandbox=True,
        )


@pytest.mark.parametrize(
    "keyword", ["LHR", "LON", "CDG", "lisbon", "Lisboa", "paris", "new york", "tokyo", "heathrow", "zurich"]
)
async def test_same_places_as_amadeus(
    provider: OfflineLocationsConnector, amadeus: AmadeusConnector, keyword: str
) -> None:
    """The same keyword names the same places, with the same identities and the same sentence."""
    params = LocationSearchParams.model_validate({"keyword": keyword})
    theirs = [r for r in await amadeus.call("location_search", params, 6) if isinstance(r, Location)]
    ours = await search(provider, keyword, limit=6)
    assert ours[0].identity == theirs[0].identity and ours[0].render() == theirs[0].render()
    mine = {r.identity for r in ours if r.city_code == ours[0].city_code}
    assert mine <= {r.identity for r in theirs}  # the city and its airports: places Amadeus knows too
    for a, b in zip(ours, theirs, strict=False):
        if a.identity == b.identity:
            assert (a.iata, a.city_code, a.country_code) == (b.iata, b.city_code, b.country_code)
