"""The ingestion pipeline with the real model, real embedded Qdrant and real SQLite."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.ingest.documents import SourceDocument
from rag.ingest.pipeline import Ingestor
from rag.ingest.seeding import load_documents, seed_directory
from rag.kv.sqlite import SQLiteKV
from rag.retrieval.service import Retriever
from rag.store.base import Filter
from rag.store.edge import EdgeStore


@pytest.fixture
async def parts(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, sparse: Bm25Encoder
) -> AsyncIterator[tuple[Ingestor, EdgeStore, Retriever]]:
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    store = EdgeStore(tmp_path / "index", "docs", embedder.dimension, 60, 40)
    await store.open()
    yield (
        Ingestor(store, embedder, sparse, kv, max_tokens=120, overlap=20),
        store,
        Retriever(store, embedder, sparse),
    )
    await store.close()
    await kv.close()


async def doc_ids(retriever: Retriever, query: str, k: int = 5) -> list[str]:
    return [h.payload["document_id"] for h in await retriever.search(query, k)]


async def test_seed_then_reseed_skips_unchanged(parts, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    first = await seed_directory(ingestor, small_seed)
    assert (first.added, first.updated, first.skipped, first.deleted) == (4, 0, 0, 0)
    points = await store.count()
    assert points == first.chunks > 4
    second = await seed_directory(ingestor, small_seed)
    assert (second.added, second.updated, second.skipped, second.chunks) == (0, 0, 4, 0)
    assert await store.count() == points
    assert (await doc_ids(retriever, "Which Tokyo neighbourhood is best for nightlife?"))[0] == "guides/tokyo"


async def test_edited_document_replaces_its_chunks(parts, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    await seed_directory(ingestor, small_seed)
    paris = Filter(equals={"document_id": "guides/paris"})
    before = await store.count(paris)
    (small_seed / "guides" / "paris.md").write_text(
        "---\ntitle: Paris City Guide\ncity: Paris\ncountry: France\n---\n## Tip\n\n"
        "Zorblax passes give unlimited rides on the Paris funicular.\n"
    )
    counts = await seed_directory(ingestor, small_seed)
    assert (counts.updated, counts.skipped) == (1, 3)
    assert before > 1 and await store.count(paris) == 1  # the stale tail is gone
    hits = await retriever.search("zorblax funicular", 1)
    assert hits[0].payload["document_id"] == "guides/paris" and "Zorblax" in hits[0].payload["text"]


async def test_full_run_deletes_removed_documents(parts, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    await ingestor.ingest([SourceDocument("api-doc", "Lisbon ferry timetable notes", {"source": "api"})])
    await seed_directory(ingestor, small_seed)
    (small_seed / "guides" / "lisbon.md").unlink()
    counts = await seed_directory(ingestor, small_seed)
    assert counts.deleted == 1
    assert await store.count(Filter(equals={"document_id": "guides/lisbon"})) == 0
    assert "guides/lisbon" not in await doc_ids(retriever, "Lisbon trams and the Alfama", 4)
    # Documents from other sources are not touched by a seed run.
    assert await store.count(Filter(equals={"document_id": "api-doc"})) == 1


async def test_interrupted_run_finishes_without_duplicates(parts, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, _ = parts
    docs = load_documents([small_seed])
    first_written = asyncio.Event()
    task = asyncio.create_task(ingestor.ingest(docs, progress=lambda _: first_written.set()))
    await first_written.wait()  # cancel as soon as the first document is written
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    again = await ingestor.ingest(docs)
    assert again.added + again.updated + again.skipped == 4 and again.skipped >= 1
    total = 0
    for d in docs:
        n = await store.count(Filter(equals={"document_id": d.id}))
        assert n > 0
        total += n
    assert await store.count() == total


async def test_large_document_and_metadata(parts) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    big = "\n\n".join(
        f"Paragraph {i}: the night bus N{i} leaves Rossio square at {i % 24}:15." for i in range(3000)
    )
    doc = SourceDocument(
        "big", big, {"title": "Night buses", "city": "Lisbon", "country": "Portugal", "x": [1, 2]}
    )
    counts = await ingestor.ingest([doc])
    assert counts.added == 1 and counts.chunks == await store.count() > 100
    hits = await retriever.search("night bus N2718", 3, {"country_code": "PT"})
    assert hits and hits[0].payload["title"] == "Night buses" and hits[0].payload["x"] == [1, 2]
    assert "N2718" in hits[0].payload["text"]


async def test_concurrent_ingest_of_the_same_document(parts) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, _ = parts
    doc = SourceDocument("same", "Kyoto temples at dawn. " * 200, {"title": "Kyoto"})
    results = await asyncio.gather(*(ingestor.ingest([doc]) for _ in range(5)))
    chunks = results[0].chunks or max(r.chunks for r in results)
    assert await store.count() == chunks


def test_seed_corpus_is_complete() -> None:
    from rag.settings import SEED_DIR

    docs = load_documents([SEED_DIR])
    guides = [d for d in docs if d.id.startswith("guides/")]
    assert len(docs) >= 40 and len(guides) >= 25
    assert all(d.metadata.get("city") and d.metadata.get("country") for d in guides)
    assert all(isinstance(d.metadata.get("topics"), list) for d in docs)
    assert len({d.id for d in docs}) == len(docs)
    shutil.disk_usage(SEED_DIR)  # the corpus is on disk where settings point
