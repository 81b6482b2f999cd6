"""Retrieval focused on the conversation's places, with the real model and embedded Qdrant Edge.

The focus is part of the index query: passages come from the named cities' guides (or the named
countries' cities) and from topic documents, never from another city's guide.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.ingest.pipeline import Ingestor
from rag.ingest.seeding import seed_directory
from rag.kv.sqlite import SQLiteKV
from rag.retrieval.fusion import Fusion
from rag.retrieval.service import Retriever
from rag.settings import SEED_DIR, EmbeddingSettings, Settings
from rag.store.base import Hit
from rag.store.edge import EdgeStore

SEED = [
    "guides/lisbon.md",
    "guides/barcelona.md",
    "guides/paris.md",
    "guides/rome.md",
    "guides/seoul.md",
    "topics/travel-with-children.md",
    "topics/budget-travel.md",
]
FUSIONS: list[Fusion] = ["chunk", "document"]


Parts = tuple[EdgeStore, SentenceTransformerEmbedder, Bm25Encoder]
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def parts(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Parts]:
    """A few real guides and topics, seeded once for the module (the tests only read)."""
    tmp = tmp_path_factory.mktemp("focus")
    for rel in SEED:
        (tmp / "seed" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SEED_DIR / rel, tmp / "seed" / rel)
    index = Settings().index
    embedder = await SentenceTransformerEmbedder.load(EmbeddingSettings())
    kv = SQLiteKV(tmp / "kv.db")
    await kv.open()
    store = EdgeStore(tmp / "index", "focus", embedder.dimension, index.rrf_k, index.prefetch_limit)
    await store.open()
    sparse = Bm25Encoder()
    try:
        ingestor = Ingestor(
            store, embedder, sparse, kv, max_tokens=index.chunk_tokens, overlap=index.chunk_overlap
        )
        await seed_directory(ingestor, tmp / "seed")
        yield store, embedder, sparse
    finally:
        await store.close()
        await kv.close()
        await embedder.close()


def retriever(parts: Parts, fusion: Fusion) -> Retriever:
    store, embedder, sparse = parts
    return Retriever.from_settings(
        store, embedder, sparse, Settings().index.model_copy(update={"fusion": fusion})
    )


def cities(hits: list[Hit]) -> set[str | None]:
    return {h.payload.get("city_norm") for h in hits}


@pytest.mark.timeout(300)
async def test_a_city_question_stays_in_that_city(parts: Parts) -> None:
    for fusion in FUSIONS:
        r = retriever(parts, fusion)
        question = "¿Qué puedo hacer en Lisboa con niños?"
        anywhere = await r.search(question, 8)
        assert cities(anywhere) - {"lisbon", None}, "without a focus other cities' guides come back"
        hits = await r.search(question, 8, places=["Lisbon"])
        # One passage a document: the Lisbon guide and both topic documents, nothing else.
        assert {h.payload["document_id"] for h in hits} == {
            "guides/lisbon",
            "topics/travel-with-children",
            "topics/budget-travel",
        }, (fusion, hits)

        hits = await r.search("Which neighbourhoods are good for nightlife?", 6, places=["barcelona"])
        assert cities(hits) <= {"barcelona", None} and "barcelona" in cities(hits), (fusion, cities(hits))


@pytest.mark.timeout(300)
async def test_countries_and_compared_places(parts: Parts) -> None:
    for fusion in FUSIONS:
        r = retriever(parts, fusion)
        hits = await r.search("what to see in two days", 8, countries=["pt"])
        assert cities(hits) <= {"lisbon", None} and "lisbon" in cities(hits), (fusion, cities(hits))
        hits = await r.search("Lisbon or Rome for a long weekend of food?", 10, places=["lisbon", "rome"])
        assert {"lisbon", "rome"} <= cities(hits) <= {"lisbon", "rome", None}, (fusion, cities(hits))
