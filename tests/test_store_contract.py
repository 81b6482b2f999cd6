"""One contract, two backends: embedded Qdrant Edge and qdrant-client (local mode stands in for a server)."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rag.embedding.sparse import Bm25Encoder
from rag.errors import IndexLockedError
from rag.retrieval.fusion import rrf
from rag.store.base import Filter, Point, VectorStore
from rag.store.edge import EdgeStore
from rag.store.qdrant import QdrantStore

DIM = 8
BM25 = Bm25Encoder()


def axis(i: int, lean: float = 0.0) -> list[float]:
    v = [0.0] * DIM
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = lean
    return v


def point(key: str, i: int, text: str, **payload: object) -> Point:
    return Point(
        str(uuid.uuid5(uuid.NAMESPACE_URL, key)),
        axis(i),
        BM25.encode_document(text),
        {"text": text, "document_id": key, **payload},
    )


DOCS = [
    point(
        "paris", 0, "Paris metro tickets and museum passes", city_norm="paris", kind="document", source="seed"
    ),
    point(
        "tokyo", 1, "Tokyo rail passes and sushi counters", city_norm="tokyo", kind="document", source="seed"
    ),
    point("rome", 2, "Rome ruins, pasta and scooters", city_norm="rome", kind="document", source="seed"),
    point("lisbon", 3, "Lisbon trams and custard tarts", city_norm="lisbon", kind="document", source="seed"),
]


# Guides carry city_norm and country_code; topic documents neither.
FOCUS_DOCS = [
    point("paris", 0, "Paris trams and city metro", city_norm="paris", country_code="FR", kind="document"),
    point("tokyo", 1, "Tokyo trams and rail passes", city_norm="tokyo", country_code="JP", kind="document"),
    point("lisbon", 3, "Lisbon trams up the hills", city_norm="lisbon", country_code="PT", kind="document"),
    point("porto", 4, "Porto port wine cellars", city_norm="porto", country_code="PT", kind="document"),
    point("topic-transit", 5, "Trams and buses in any city", kind="document"),
    point("topic-money", 6, "Cards and cash abroad", kind="document"),
]


class StoreContract:
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[VectorStore]:
        raise NotImplementedError
        yield

    async def test_upsert_get_count(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        assert await store.count() == 4
        got = await store.get([DOCS[0].id, str(uuid.uuid4())])
        assert [h.id for h in got] == [DOCS[0].id]
        assert got[0].payload["text"] == DOCS[0].payload["text"]

    async def test_upsert_same_id_replaces(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        changed = Point(DOCS[0].id, DOCS[0].dense, DOCS[0].sparse, {**DOCS[0].payload, "price": 99})
        await store.upsert([changed])
        assert await store.count() == 4
        assert (await store.get([DOCS[0].id]))[0].payload["price"] == 99

    async def test_dense_search_ranks_nearest_first(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        hits = await store.search(axis(2, 0.1), None, 3, mode="dense")
        assert hits[0].payload["document_id"] == "rome"
        assert hits[0].score > hits[1].score

    async def test_hybrid_search_uses_words(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        # The dense vector points at Paris; the words point at Lisbon; both rank in the fused list.
        hits = await store.search(axis(0), BM25.encode_query("custard tarts"), 4, mode="hybrid")
        top2 = {h.payload["document_id"] for h in hits[:2]}
        assert top2 == {"paris", "lisbon"}

    async def test_filter_by_keyword(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        hits = await store.search(
            axis(0), BM25.encode_query("passes"), 4, Filter(equals={"city_norm": "tokyo"})
        )
        assert [h.payload["document_id"] for h in hits] == ["tokyo"]
        hits = await store.search(
            axis(0), None, 4, Filter(equals={"city_norm": ["rome", "lisbon"]}), mode="dense"
        )
        assert {h.payload["document_id"] for h in hits} == {"rome", "lisbon"}

    async def test_hybrid_scores_are_the_rrf_of_dense_and_sparse(self, store: VectorStore) -> None:
        # One k means the same in the index's fusion and in the retriever's per-document fusion.
        await store.upsert(DOCS)
        # No ties in either ranking, so both searches order the points the same way every time.
        dense = [1.0, 0.4, 0.2, 0.1, 0.0, 0.0, 0.0, 0.0]
        words = BM25.encode_query("museum passes tarts")
        ranks = [
            [h.id for h in await store.search(dense, words, 4, mode=mode)] for mode in ("dense", "sparse")
        ]
        expected = rrf(ranks, store.rrf_k)  # type: ignore[attr-defined]
        hybrid = {h.id: h.score for h in await store.search(dense, words, 4)}
        assert hybrid == pytest.approx(expected)

    async def test_search_reads_only_the_fields_asked_for(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        for mode in ("dense", "sparse", "hybrid"):
            hits = await store.search(
                axis(3), BM25.encode_query("tarts"), 4, mode=mode, fields=["document_id"]
            )
            assert hits and all(h.payload == {"document_id": h.payload["document_id"]} for h in hits), mode
        whole = await store.search(axis(3), None, 1, mode="dense")
        assert whole[0].payload["text"] == "Lisbon trams and custard tarts"

    async def test_sparse_mode_ranks_by_words_alone(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        # The dense vector points at Paris; sparse mode ignores it.
        hits = await store.search(axis(0), BM25.encode_query("custard tarts"), 4, mode="sparse")
        assert [h.payload["document_id"] for h in hits] == ["lisbon"]
        assert await store.search(axis(0), None, 4, mode="sparse") == []

    async def test_place_focus_keeps_that_city_and_topics(self, store: VectorStore) -> None:
        await store.upsert(FOCUS_DOCS)
        focus = Filter(places=("lisbon",))
        for mode in ("dense", "hybrid", "sparse"):
            # The query leans to Paris in both vectors: without the focus Paris comes first.
            hits = await store.search(axis(0), BM25.encode_query("trams city"), 10, focus, mode)
            ids = {h.payload["document_id"] for h in hits}
            assert "lisbon" in ids and "paris" not in ids, (mode, ids)
            assert ids <= {"lisbon", "topic-transit", "topic-money"}, (mode, ids)
        everything = await store.search(axis(0), None, 10, mode="dense")
        assert everything[0].payload["document_id"] == "paris" and len(everything) == len(FOCUS_DOCS)
        hits = await store.search(axis(5), None, 10, focus, "dense")
        assert {h.payload["document_id"] for h in hits} == {"lisbon", "topic-transit", "topic-money"}
        assert await store.count(focus) == 3

    async def test_country_focus_admits_that_country_s_cities(self, store: VectorStore) -> None:
        await store.upsert(FOCUS_DOCS)
        hits = await store.search(axis(0), None, 10, Filter(countries=("PT",)), "dense")
        assert {h.payload["document_id"] for h in hits} == {"lisbon", "porto", "topic-transit", "topic-money"}
        hits = await store.search(axis(0), None, 10, Filter(places=("lisbon",), countries=("PT",)), "dense")
        assert {h.payload["document_id"] for h in hits} == {"lisbon", "porto", "topic-transit", "topic-money"}

    async def test_two_places_admit_both(self, store: VectorStore) -> None:
        await store.upsert(FOCUS_DOCS)
        flt = Filter(places=("lisbon", "paris"), equals={"kind": "document"})
        hits = await store.search(axis(1), BM25.encode_query("trams"), 10, flt)
        ids = {h.payload["document_id"] for h in hits}
        assert ids == {"lisbon", "paris", "topic-transit", "topic-money"}, ids

    async def test_expired_points_are_invisible(self, store: VectorStore) -> None:
        now = time.time()
        stale = point("stale", 0, "Paris hotel offer", valid_until=now - 60, kind="hotel_offer")
        fresh = point("fresh", 0, "Paris hotel offer", valid_until=now + 3600, kind="hotel_offer")
        await store.upsert([*DOCS, stale, fresh])
        hits = await store.search(axis(0), BM25.encode_query("Paris hotel"), 10, Filter(fresh_at=now))
        ids = {h.payload["document_id"] for h in hits}
        assert "stale" not in ids and "fresh" in ids and "paris" in ids  # seed documents never expire
        assert await store.count(Filter(expired_at=now)) == 1
        await store.delete_where(Filter(expired_at=now))
        assert await store.count() == 5

    async def test_user_scope(self, store: VectorStore) -> None:
        mine = point("mine", 0, "Paris hotel offer", user_scope="alice", kind="hotel_offer")
        theirs = point("theirs", 0, "Paris hotel offer", user_scope="bob", kind="hotel_offer")
        shared = point("shared", 0, "Paris hotel offer", user_scope="*", kind="hotel_offer")
        await store.upsert([*DOCS, mine, theirs, shared])
        hits = await store.search(axis(0), BM25.encode_query("Paris hotel"), 10, Filter(scope=("*", "alice")))
        ids = {h.payload["document_id"] for h in hits}
        assert {"mine", "shared", "paris"} <= ids and "theirs" not in ids
        assert await store.count(Filter(scope=("*",))) == 5

    async def test_no_scope_is_the_documents_alone(self, store: VectorStore) -> None:
        """``scope=()``: the points without a user_scope, whoever's results the others are."""
        results = [
            point(f"r-{who}", 0, "Paris hotel offer", user_scope=who, kind="hotel_offer", source="live")
            for who in ("alice", "bob", "anonymous")
        ]
        await store.upsert([*DOCS, *results])
        hits = await store.search(axis(0), BM25.encode_query("Paris hotel"), 10, Filter(scope=()))
        assert {h.payload["document_id"] for h in hits} == {"paris", "tokyo", "rome", "lisbon"}
        assert await store.count(Filter(scope=())) == 4
        assert await store.count(Filter(scope=("bob",))) == 5

    async def test_delete_and_delete_where(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        await store.delete([DOCS[0].id])
        await store.delete_where(Filter(equals={"document_id": "tokyo"}))
        assert await store.count() == 2
        assert await store.get([DOCS[0].id]) == []

    async def test_scroll_pages_through_everything(self, store: VectorStore) -> None:
        await store.upsert(DOCS)
        seen: list[str] = []
        offset = None
        while True:
            page, offset = await store.scroll(None, 3, offset)
            seen.extend(h.id for h in page)
            if offset is None:
                break
        assert sorted(seen) == sorted(p.id for p in DOCS)

    async def test_a_bulk_load_writes_as_ever(self, store: VectorStore) -> None:
        async with store.bulk():
            await store.upsert(DOCS[:2])
            async with store.bulk():  # runs may overlap (two seeding runs at once)
                await store.upsert(DOCS[2:])
            hits = await store.search(axis(1), BM25.encode_query("sushi"), 1)
            assert hits[0].payload["document_id"] == "tokyo"  # searchable at once
            await store.delete([DOCS[0].id])
        assert await store.count() == 3

    async def test_ping(self, store: VectorStore) -> None:
        assert await store.ping() is True


class TestEdgeStore(StoreContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[VectorStore]:
        s = EdgeStore(tmp_path / "index", "test", DIM, rrf_k=60, prefetch_limit=20)
        await s.open()
        yield s
        await s.close()

    async def test_data_survives_restart(self, tmp_path: Path) -> None:
        first = EdgeStore(tmp_path / "i", "c", DIM, 60, 20)
        await first.open()
        await first.upsert(DOCS)
        await first.close()
        second = EdgeStore(tmp_path / "i", "c", DIM, 60, 20)
        await second.open()
        assert await second.count() == 4
        hits = await second.search(
            axis(1), BM25.encode_query("sushi"), 1, Filter(equals={"city_norm": "tokyo"})
        )
        assert hits[0].payload["document_id"] == "tokyo"
        await second.close()

    async def test_second_opener_gets_a_clear_error(self, tmp_path: Path) -> None:
        first = EdgeStore(tmp_path / "i", "c", DIM, 60, 20)
        await first.open()
        try:
            with pytest.raises(IndexLockedError, match="open in another process"):
                await EdgeStore(tmp_path / "i", "c", DIM, 60, 20).open()
        finally:
            await first.close()

    async def test_churn_does_not_grow_the_shard(self, tmp_path: Path) -> None:
        """Points written and deleted over and over (tool results expiring) leave the files flat."""
        store = EdgeStore(tmp_path / "i", "c", DIM, 60, 20, compact_every=1_000)
        await store.open()
        text = "a hotel near the river with a pool " * 60  # about 2 KB of payload a point
        sizes = []
        try:
            for round_ in range(5):
                batch = [point(f"r{round_}-{i}", i, text) for i in range(1_500)]
                for start in range(0, len(batch), 100):
                    await store.upsert(batch[start : start + 100])
                await store.delete([p.id for p in batch])
                sizes.append(_size(tmp_path / "i" / "c" / "segments"))
            assert await store.count() == 0
            assert store.compactions >= 10
        finally:
            await store.close()
        # 7,500 points of 2 KB passed through: without compaction the segments keep all of them (the
        # write-ahead log is bounded by its own segment files once flushed).
        assert sizes[-1] <= sizes[0] * 1.5, sizes

    @pytest.mark.parametrize(("threshold_kb", "graphs"), [(0, False), (1, True)])
    async def test_a_search_graph_only_past_a_threshold(
        self, tmp_path: Path, threshold_kb: int, graphs: bool
    ) -> None:
        """By default (0) an optimisation builds no search graph, however large a segment; with a
        threshold, a segment past it gets one."""
        store = EdgeStore(
            tmp_path / "i", "c", DIM, 60, 20, compact_every=100, graph_threshold_kb=threshold_kb
        )
        await store.open()
        try:
            await store.upsert([point(f"p{i}", i, f"text {i}") for i in range(400)])  # 12.5 KB of vectors
            assert store.compactions >= 1
            built = list((tmp_path / "i" / "c" / "segments").glob("*/vector_index-*/graph.bin"))
            assert bool(built) is graphs, built
            hits = await store.search(axis(3), None, 4, Filter(), "dense")
            assert len(hits) == 4 and all(
                h.payload["document_id"] in {f"p{i}" for i in range(3, 400, 8)} for h in hits
            )
        finally:
            await store.close()

    async def test_a_bulk_load_optimises_once_at_its_end(self, tmp_path: Path) -> None:
        """A seeding run builds the search graph once, not every ``compact_every`` points as it grows."""
        store = EdgeStore(tmp_path / "i", "c", DIM, 60, 20, compact_every=1_000)
        await store.open()
        try:
            async with store.bulk():
                for start in range(0, 3_500, 100):
                    await store.upsert([point(f"b{i}", i, "a quiet room") for i in range(start, start + 100)])
                assert (store.compactions, store.flushes) == (0, 3)  # the log is flushed all the same
                assert await store.count() == 3_500
            assert store.compactions == 1
            await store.upsert([point("after", 0, "a room")])  # counting starts again after it
            assert store.compactions == 1
        finally:
            await store.close()

    async def test_a_growing_index_is_optimised_once_a_quarter_of_it_changed(self, tmp_path: Path) -> None:
        """Written a little at a time (uploads, tool results), an index that grows is optimised once per
        ``compact_every`` points while small, then once per quarter of its size: each optimisation
        rebuilds the graph of what it merges, so optimising every ``compact_every`` points would cost
        the square of the index's size."""
        store = EdgeStore(tmp_path / "i", "c", DIM, 60, 20, compact_every=1_000)
        await store.open()
        try:
            for start in range(0, 20_000, 200):
                await store.upsert([point(f"g{i}", i, "a room") for i in range(start, start + 200)])
            # At 1,000 to 5,000 points, then a quarter on: 6,400, 8,000, 10,000, 12,600, 15,800, 19,800
            # (20 before); flushed every 1,000 points written in between.
            assert store.compactions == 11, store.compactions
            assert store.flushes == 11, store.flushes
            assert await store.count() == 20_000
        finally:
            await store.close()

    async def test_a_bulk_load_cut_short_leaves_the_optimising_to_the_next_write(
        self, tmp_path: Path
    ) -> None:
        store = EdgeStore(tmp_path / "i", "c", DIM, 60, 20, compact_every=1_000)
        await store.open()
        try:
            with pytest.raises(RuntimeError, match="stopped"):
                async with store.bulk():
                    await store.upsert([point(f"b{i}", i, "a quiet room") for i in range(1_200)])
                    raise RuntimeError("stopped")
            assert store.compactions == 0
            await store.upsert([point("next", 0, "a room")])
            assert store.compactions == 1
        finally:
            await store.close()


def _size(directory: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in directory.rglob("*") if f.is_file())  # bytes written


class TestQdrantClientStore(StoreContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[VectorStore]:
        s = QdrantStore("test", DIM, rrf_k=60, prefetch_limit=20, location=":memory:")
        await s.open()
        yield s
        await s.close()

    async def test_the_serving_name_is_an_alias_onto_a_generation(self, store: VectorStore) -> None:
        assert isinstance(store, QdrantStore)
        assert store.physical_name.startswith("test@")  # a rebuild can switch the alias atomically
        p = point("a", 0, "alpha")
        await store.upsert([p])
        assert len(await store.get([p.id])) == 1
        await store.promote("also")
        aliases = {a.alias_name: a.collection_name for a in (await store._client.get_aliases()).aliases}
        assert aliases == {"test": store.physical_name, "also": store.physical_name}
        assert await store.drop_siblings("test") == []
