"""Each provider's terms (connectors.base.Terms) drive what is stored, for how long, and what answers
credit: with the real model, real embedded Qdrant, real SQLite and the sandbox over real HTTP."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from connectors.base import Terms
from connectors.http import RetryPolicy
from connectors.models import CheapestDate, Result
from connectors.open_meteo import OpenMeteoConnector
from connectors.params import CheapestDatesParams
from connectors.places import LocationCatalogue
from connectors.sandbox.app import start_sandbox, stop_sandbox
from connectors.tools import ToolCall, ToolRunner
from connectors.travelpayouts import TERMS as TRAVELPAYOUTS
from rag.chat.citations import label, live_source
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.kv.sqlite import SQLiteKV
from rag.live.ingest import LiveIngestor, request_key
from rag.settings import LiveSettings
from rag.store.base import Filter
from rag.store.edge import EdgeStore
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

CATALOGUE = LocationCatalogue.load()
OPEN_METEO = "Weather data by Open-Meteo.com (CC BY 4.0)"


@pytest.fixture
async def sandbox_url() -> AsyncIterator[str]:
    runner, url = await start_sandbox()
    yield url
    await stop_sandbox(runner)


async def forecast(url: str, *, sandbox: bool) -> ToolCall:
    async with aiohttp.ClientSession() as session:
        # The same connector the factory builds, pointed at the sandbox as if it were the real service.
        meteo = OpenMeteoConnector(session, url, url, policy=RetryPolicy(0, 0, 5), sandbox=sandbox)
        runner = ToolRunner(dict.fromkeys(TOOLS, meteo), CATALOGUE, TOOLS.params_models())
        return await runner.call("weather_forecast", {"city": "Lisbon", "days": 2})


async def test_open_meteo_data_carries_its_attribution_into_the_answer(sandbox_url: str) -> None:
    call = await forecast(sandbox_url, sandbox=False)
    assert call.results and all(r.attribution == OPEN_METEO for r in call.results)
    assert call.to_json()["attribution"] == OPEN_METEO
    source = live_source(call.results[0])
    assert source["attribution"] == OPEN_METEO
    assert label("en", source, TOOLS).startswith("weather forecast, open_meteo, fetched ")
    assert label("en", source, TOOLS).endswith(OPEN_METEO)


async def test_synthetic_sandbox_data_credits_no_one(sandbox_url: str) -> None:
    call = await forecast(sandbox_url, sandbox=True)
    assert call.results and all(r.attribution is None for r in call.results)
    assert "attribution" not in call.to_json()


@pytest.fixture
async def ingestor(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> AsyncIterator[LiveIngestor]:
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    store = EdgeStore(tmp_path / "index", "live", embedder.dimension, 3, 40)
    await store.open()
    yield LiveIngestor(store, embedder, Bm25Encoder(), kv, CATALOGUE, TOOLS, LiveSettings())
    await store.close()
    await kv.close()


def fares(found_hours_ago: list[float]) -> list[Result]:
    now = dt.datetime.now(dt.UTC)
    day = now.date() + dt.timedelta(days=30)
    return [
        CheapestDate(
            provider="travelpayouts",
            fetched_at=now - dt.timedelta(hours=hours),
            origin="PAR",
            destination="ROM",
            departure_date=day + dt.timedelta(days=i),
            price=80 + i,
            currency="EUR",
        )
        for i, hours in enumerate(found_hours_ago)
    ]


def params() -> CheapestDatesParams:
    return CheapestDatesParams.model_validate(
        {"origin": "PAR", "destination": "ROM"}, context={"catalogue": CATALOGUE, "today": dt.date.today()}
    )


async def test_cached_fares_are_stored_only_while_the_terms_allow(ingestor: LiveIngestor) -> None:
    # Travelpayouts keeps a cached fare 3 hours from when it was found: the 5-hour-old one is shown but
    # never stored, and the request is not answered from the index (one of its fares is missing).
    call = ToolCall("cheapest_dates", "travelpayouts", False, params(), fares([0.5, 5]), 1.0, TRAVELPAYOUTS)
    key = request_key("*", "cheapest_dates", call.params)
    counts = await ingestor.ingest(call, "*", key)
    assert (counts.added, counts.skipped) == (1, 1)
    [stored] = await ingestor.recall("*", ["cheapest_date"])
    assert stored.payload["indicative"] is True
    left = stored.payload["valid_until"] - dt.datetime.now(dt.UTC).timestamp()
    assert 2 * 3600 < left <= 2.5 * 3600  # found 30 minutes ago: 2.5 hours left, not the tool's 6
    assert await ingestor.cached(key) is None

    fresh = ToolCall(
        "cheapest_dates", "travelpayouts", False, params(), fares([0.1, 0.2]), 1.0, TRAVELPAYOUTS
    )
    await ingestor.ingest(fresh, "*", key)
    assert [r.identity for r in await ingestor.cached(key) or []] == [r.identity for r in fresh.results]


async def test_results_whose_terms_forbid_storing_are_never_ingested(ingestor: LiveIngestor) -> None:
    call = ToolCall("cheapest_dates", "x", False, params(), fares([0.1, 0.1]), 1.0, Terms(store=False))
    counts = await ingestor.ingest(call, "*", request_key("*", "cheapest_dates", call.params))
    assert (counts.added, counts.updated, counts.skipped) == (0, 0, 2)
    assert await ingestor._store.count(Filter(equals={"source": "live"})) == 0
