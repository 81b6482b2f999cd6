"""Writing tool results at the speed of the requests: each text embedded once, a bounded queue that
says what it does. Real model, real Qdrant Edge, real SQLite, the sandbox over HTTP."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from connectors.factory import ToolSession, open_tools
from rag.background import BackgroundTasks
from rag.embedding.cache import CachedEmbedder
from rag.embedding.onnx import OnnxEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.kv.sqlite import SQLiteKV
from rag.live.ingest import ANONYMOUS_SCOPE, LiveIngestor, request_key
from rag.live.service import ToolService
from rag.observability.metrics import Metrics
from rag.settings import EmbeddingSettings, LiveSettings, Settings
from rag.store.base import Filter
from rag.store.edge import EdgeStore
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


@pytest.fixture
async def parts(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> AsyncIterator[tuple[SQLiteKV, EdgeStore, ToolSession, OnnxEmbedder]]:
    settings = make_settings(WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0")
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    model = await OnnxEmbedder.load(EmbeddingSettings(), background=True)
    store = EdgeStore(tmp_path / "index", "live", model.dimension, 3, 40)
    await store.open()
    async with open_tools(settings, TOOLS.params_models()) as session:
        yield kv, store, session, model
    await store.close()
    await model.close()
    await kv.close()


def service(
    parts: tuple[SQLiteKV, EdgeStore, ToolSession, OnnxEmbedder],
    embedder: CachedEmbedder | OnnxEmbedder,
    settings: LiveSettings,
    metrics: Metrics,
) -> ToolService:
    kv, store, session, _ = parts
    ingestor = LiveIngestor(store, embedder, Bm25Encoder(), kv, session.tools.catalogue, TOOLS, settings)
    return ToolService(session.tools, ingestor, BackgroundTasks(), settings, metrics)


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return value or 0.0


async def test_an_offer_shown_to_many_users_is_embedded_once_and_stored_for_each(parts) -> None:  # type: ignore[no-untyped-def]
    kv, store, _, model = parts
    metrics = Metrics()
    cached = CachedEmbedder(model, 1000, kv, count=lambda how, n: metrics.live_vectors.labels(how).inc(n))
    tools = service(parts, cached, LiveSettings(), metrics)
    hotel = {"city": "Lisbon", "check_in": ahead(20), "nights": 2}
    for user in ("alice", "bob", "carol"):
        await tools.call("hotel_search", hotel, user)
        await tools.tasks.drain()
    assert cached.misses == 5 and cached.hits == 10  # five offers, embedded for alice only
    assert sample(metrics, "wayfarer_live_vectors_total", how="embedded") == 5
    assert sample(metrics, "wayfarer_live_vectors_total", how="cached") == 10
    for user in ("alice", "bob", "carol"):  # each user still has its own copy, as before
        assert await store.count(Filter(equals={"source": "live", "user_scope": user})) == 5
    # The vectors are the model's own.
    text = "Sandbox hotel near the river, 2 nights."
    assert await cached.embed_documents([text]) == await model.embed_documents([text])
    # Another replica (a new process's cache, the same KV store) reads them instead of embedding.
    other = CachedEmbedder(model, 1000, kv)
    await other.embed_documents([text])
    assert other.shared_hits == 1 and other.misses == 0


async def test_a_full_queue_makes_a_user_wait_and_turns_away_calls_without_one(parts) -> None:  # type: ignore[no-untyped-def]
    _, store, session, model = parts
    metrics = Metrics()
    tools = service(parts, model, LiveSettings(queue_max_calls=1), metrics)
    calls = [
        await session.tools.call("hotel_search", {"city": city, "check_in": ahead(20), "nights": 2})
        for city in ("Lisbon", "Porto", "Rome")
    ]
    queue = tools.queue
    key = request_key("alice", "hotel_search", calls[0].params)
    # No await between these: the worker has not taken the first call when the others arrive.
    assert await queue.submit(calls[0], "alice", key)
    assert not await queue.submit(calls[1], ANONYMOUS_SCOPE, key)  # no user: not queued
    waiting = asyncio.create_task(queue.submit(calls[2], "alice", key))  # a user's: waits for room
    assert await waiting
    await tools.tasks.drain()
    assert sample(metrics, "wayfarer_live_queue_full_total", how="no_user") == 1
    assert sample(metrics, "wayfarer_live_queue_full_total", how="waited") == 1
    assert sample(metrics, "wayfarer_live_queue_calls") == 0
    assert sample(metrics, "wayfarer_live_batch_calls_count") >= 1
    assert sample(metrics, "wayfarer_live_queue_wait_seconds_count") == 2
    # Both of alice's calls were written; the anonymous one was not.
    assert await store.count(Filter(equals={"source": "live", "user_scope": "alice"})) == 10
    assert await store.count(Filter(equals={"source": "live", "user_scope": ANONYMOUS_SCOPE})) == 0
