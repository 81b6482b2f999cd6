"""The ingestion pipeline with the real model, real embedded Qdrant and real SQLite."""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from connectors.models import HotelOffer
from connectors.params import ToolParams
from connectors.places import LocationCatalogue
from connectors.tools import ToolCall
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.errors import IndexUnavailableError
from rag.ingest.chunking import chunk_markdown
from rag.ingest.documents import SourceDocument, chunk_id, user_id_prefix
from rag.ingest.pipeline import SEED_ORIGIN, Ingestor
from rag.ingest.progress import IngestProgress
from rag.ingest.seeding import load_documents, load_files, seed_directory, seed_files
from rag.kv.sqlite import SQLiteKV
from rag.live.ingest import LiveIngestor
from rag.retrieval.service import Retriever
from rag.settings import LiveSettings
from rag.store.base import Filter
from rag.store.edge import EdgeStore
from rag.tools.catalog import ToolCatalogue


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


async def test_user_paths_are_pruned_only_by_a_seed_of_the_same_path(
    parts, small_seed: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, name, text in [
        (a, "ferry", "The Quoxalind ferry leaves Setubal at dawn."),
        (a, "tram", "The Vexmoor tram climbs to the castle."),
        (b, "bus", "The Drellfast bus runs all night."),
    ]:
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.md").write_text(text)
    ferry, tram, bus = (
        user_id_prefix(str(f.resolve())) + n for f, n in [(a, "ferry"), (a, "tram"), (b, "bus")]
    )
    await seed_directory(ingestor, small_seed)
    seeded = await seed_files(ingestor, load_files([a, b]))
    assert (seeded.added, seeded.deleted) == (3, 0)
    points = await store.scroll(Filter(equals={"document_id": bus}), 5)
    assert points[0][0].payload["source"] == "files"  # never the seed corpus's tag
    # The seed corpus's sync leaves a user's documents alone.
    synced = await seed_directory(ingestor, small_seed)
    assert (synced.skipped, synced.deleted) == (4, 0)
    # A pruning seed of folder a deletes what is gone from a, and nothing from b or the corpus.
    (a / "tram.md").unlink()
    pruned = await seed_files(ingestor, load_files([a]), prune=True)
    assert (pruned.skipped, pruned.deleted) == (1, 1)
    assert await doc_ids(retriever, "Quoxalind ferry", 1) == [ferry]
    assert await doc_ids(retriever, "Drellfast night bus", 1) == [bus]
    assert await store.count(Filter(equals={"document_id": tram})) == 0
    assert await store.count(Filter(equals={"source": "seed"})) > 4


async def test_interrupted_run_finishes_without_duplicates(parts, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, _ = parts
    docs = load_documents([small_seed])
    first_written = asyncio.Event()

    def written(p: IngestProgress) -> None:
        if p.done > p.skipped:
            first_written.set()

    task = asyncio.create_task(
        ingestor.ingest(docs, origin=SEED_ORIGIN, progress=IngestProgress(len(docs), written))
    )
    await first_written.wait()  # cancel as soon as the first document is written
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    again = await ingestor.ingest(docs, origin=SEED_ORIGIN)
    assert again.added + again.updated + again.skipped == 4 and again.skipped >= 1
    total = 0
    for d in docs:
        n = await store.count(Filter(equals={"document_id": d.id}))
        assert n > 0
        total += n
    assert await store.count() == total


@pytest.mark.slow  # embeds 3,000 paragraphs
async def test_large_document_and_metadata(parts) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    # 3,000 near-identical paragraphs and one that differs: ranking among the identical ones is a
    # near-tie (approximate search could pick any), so the one to find has words of its own.
    paragraphs = [
        f"Paragraph {i}: the night bus N{i} leaves Rossio square at {i % 24}:15." for i in range(3000)
    ]
    paragraphs[2718] = "Paragraph 2718: the Quintaflor night ferry N2718 leaves Cais do Sodre at 2:40."
    big = "\n\n".join(paragraphs)
    doc = SourceDocument(
        "big", big, {"title": "Night buses", "city": "Lisbon", "country": "Portugal", "x": [1, 2]}
    )
    counts = await ingestor.ingest([doc])
    assert counts.added == 1 and counts.chunks == await store.count() > 100
    hits = await retriever.search("Quintaflor night ferry", 3, {"country_code": "PT"})
    assert hits and hits[0].payload["title"] == "Night buses" and hits[0].payload["x"] == [1, 2]
    assert "N2718" in hits[0].payload["text"]


async def test_each_chunk_gets_its_own_vector_when_batches_go_by_length(
    parts, embedder: SentenceTransformerEmbedder, sparse: Bm25Encoder, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Chunks are embedded out of document order (like lengths together, over many batches): every
    vector must still land on its own chunk, so each chunk's text finds that very chunk first."""
    _, store, _ = parts
    kv = SQLiteKV(tmp_path / "own.db")  # its own records: an ingestor batching three chunks at a time
    await kv.open()
    ingestor = Ingestor(store, embedder, sparse, kv, max_tokens=60, overlap=10, embed_batch=3)
    topics = ["ferries", "night trains", "street food", "museums", "cycling", "markets", "beaches"]
    text = "\n\n".join(
        f"## {topic.title()}\n\n" + " ".join(f"Note {i} on {topic} in Valdoria." for i in range(1 + 4 * n))
        for n, topic in enumerate(topics)
    )
    doc = SourceDocument("valdoria", text, {"title": "Valdoria"})
    try:
        counts = await ingestor.ingest([doc])
    finally:
        await kv.close()
    chunks = chunk_markdown(
        doc.text, doc.title, max_tokens=60, overlap=10, count_tokens=embedder.count_tokens
    )
    assert counts.chunks == len(chunks) > 6 and len({c.tokens for c in chunks}) > 3
    vectors = await embedder.embed_documents([c.text for c in chunks])
    for c, vector in zip(chunks, vectors, strict=True):
        hits = await store.search(vector, None, 1, mode="dense")
        assert hits[0].id == chunk_id(doc.id, c.index) and hits[0].score > 0.999, c.index


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


def hotel(hotel_id: str, price: float) -> HotelOffer:
    return HotelOffer(
        provider="sandbox",
        sandbox=True,
        fetched_at=dt.datetime.now(dt.UTC),
        hotel_id=hotel_id,
        name=f"Hotel {hotel_id}",
        city_code="LIS",
        check_in=dt.date(2031, 5, 1),
        check_out=dt.date(2031, 5, 3),
        price=price,
        currency="EUR",
    )


def hotel_call(*results: HotelOffer) -> ToolCall:
    return ToolCall("hotel_search", "sandbox", True, ToolParams(), list(results), 1.0)


async def test_a_failed_live_write_leaves_no_key_claiming_an_unwritten_point(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, sparse: Bm25Encoder
) -> None:
    """New claims and updated versions are released when the write fails, so a retry writes the points."""
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    catalogue = LocationCatalogue.load()

    async def ingestor() -> tuple[LiveIngestor, EdgeStore]:
        store = EdgeStore(tmp_path / "index", "live", embedder.dimension, 3, 40)
        await store.open()
        return LiveIngestor(
            store, embedder, sparse, kv, catalogue, ToolCatalogue.builtin(), LiveSettings()
        ), store

    first, store = await ingestor()
    counts = await first.ingest(hotel_call(hotel("A", 100.0)), "ana", "req:1")
    assert (counts.added, counts.updated) == (1, 0)
    await store.close()  # every write through ``first`` now fails for real
    changed = hotel_call(hotel("A", 90.0), hotel("B", 120.0))  # a new price for A, a new result B
    with pytest.raises(IndexUnavailableError):
        await first.ingest(changed, "ana", "req:2")
    # Neither the new claim (B) nor the new version of A was left behind without its point.
    assert await kv.scan_prefix("live:ana:") == {}

    retry, store = await ingestor()
    counts = await retry.ingest(changed, "ana", "req:2")
    assert (counts.added, counts.skipped) == (2, 0)
    prices = {h.payload["identity"]: h.payload["price"] for h in await retry.recall("ana", ["hotel_offer"])}
    assert prices == {hotel("A", 0).identity: 90.0, hotel("B", 0).identity: 120.0}
    await store.close()
    await kv.close()
