"""Pooling, fusion and metrics: pure functions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.retrieval.fusion import fuse_chunks, fuse_documents, rrf
from rag.retrieval.metrics import ndcg_at, percentile, recall_at, reciprocal_rank
from rag.retrieval.pooling import Pooling, pool_by_document, pooled_score, rank_documents
from rag.store.base import Hit


def hit(doc: str, score: float, n: int = 0, chunks: int = 10) -> Hit:
    return Hit(f"{doc}-{n}", score, {"document_id": doc, "chunk_count": chunks})


HITS = [hit("a", 0.9), hit("b", 0.8), hit("a", 0.7, 1), hit("c", 0.6), hit("b", 0.5, 1), hit("b", 0.45, 2)]


def test_max_pooling_keeps_one_chunk_per_document() -> None:
    assert [h.id for h in pool_by_document(HITS, 5)] == ["a-0", "b-0", "c-0"]
    assert [h.id for h in pool_by_document(HITS, 2)] == ["a-0", "b-0"]


def test_sum_pooling_lifts_documents_with_many_hits() -> None:
    assert [h.id for h in pool_by_document(HITS, 5, pooling="sum")] == ["b-0", "a-0", "c-0"]


def test_several_chunks_per_document() -> None:
    got = [h.id for h in pool_by_document(HITS, 3, per_document=2)]
    assert got == ["a-0", "a-1", "b-0", "b-1", "c-0"][: len(got)] and len(got) == 3


def test_metrics() -> None:
    assert recall_at(["x", "a", "b"], {"a", "c"}, 2) == 0.5
    assert reciprocal_rank(["x", "y", "a"], {"a"}) == 1 / 3
    assert reciprocal_rank(["x"], {"a"}) == 0.0
    assert percentile([5, 1, 3, 2, 4], 0.5) == 3 and percentile([1, 2, 3, 4, 100], 0.99) == 100


def test_ndcg() -> None:
    assert ndcg_at(["a", "b", "x"], {"a", "b"}, 10) == 1.0
    assert ndcg_at(["x", "a"], {"a"}, 10) == 1 / math.log2(3)
    assert ndcg_at(["a", "a", "x"], {"a", "b"}, 10) == 1 / (1 + 1 / math.log2(3))  # a repeat counts once
    assert ndcg_at(["x"] * 10 + ["a"], {"a"}, 10) == 0.0 and ndcg_at(["a"], set(), 10) == 0.0


def test_rrf_scores_as_the_index_does() -> None:
    # Qdrant's RRF with k=3 scores the first of a ranking 1/3 and the second 1/4.
    fused = rrf([["a", "b"], ["b", "c"]], 3)
    assert list(fused) == ["b", "a", "c"]
    assert fused["b"] == 1 / 4 + 1 / 3 and fused["a"] == 1 / 3
    # A weight scales a ranking's votes.
    weighted = rrf([["a", "b"], ["b", "c"]], 3, weights=[6.0, 1.0])
    assert list(weighted) == ["a", "b", "c"] and weighted["a"] == 2.0
    assert list(rrf([["a", "b"], ["b", "a"]], 3, weights=[1.0, 1.5])) == ["b", "a"]
    with pytest.raises(ValueError, match="one weight per ranking"):
        rrf([["a"]], 3, weights=[1.0, 2.0])


def test_rank_documents_by_best_or_summed_chunks() -> None:
    assert rank_documents(HITS) == ["a", "b", "c"]
    assert rank_documents(HITS, "sum") == ["b", "a", "c"]
    # Only a document's best pool_chunks count: b's third passage no longer lifts it over a.
    assert rank_documents(HITS, "sum", pool_chunks=2) == ["a", "b", "c"]
    assert [h.id for h in pool_by_document(HITS, 5, pooling="sum", pool_chunks=2)] == ["a-0", "b-0", "c-0"]
    assert rank_documents(HITS, "sum", pool_chunks=1) == rank_documents(HITS, "max")


def test_sum_pooling_does_not_sink_short_documents() -> None:
    # A one-chunk note (or a live result, which has no chunk count) that matches well stands as if
    # its missing chunks matched as well; a long guide's three weaker passages do not bury it.
    guide = [hit("guide", 0.5, 0), hit("guide", 0.45, 1), hit("guide", 0.4, 2)]
    for note in (hit("note", 0.6, chunks=1), Hit("live-1", 0.6, {"document_id": "live:1"})):
        assert rank_documents([note, *guide], "sum") == [note.payload["document_id"], "guide"]
    two = [hit("short", 0.55, 0, chunks=2), hit("short", 0.3, 1, chunks=2)]
    assert pooled_score(two, 3) == (0.55 + 0.3) * 3 / 2
    assert rank_documents([*guide, *two], "sum") == ["guide", "short"]


# The dense retriever finds A through one passage, BM25 through another; B through the same passage.
DENSE = [hit("A", 0.9, 1), hit("B", 0.8, 1), hit("X", 0.7)]
SPARSE = [hit("A", 9.0, 2), hit("C", 8.0), hit("B", 7.0, 1)]


def test_chunk_fusion_credits_only_the_same_chunk() -> None:
    fused = fuse_chunks([DENSE, SPARSE], 2)
    assert [h.id for h in fused][:1] == ["B-1"]  # 1/3 + 1/4 beats A's two chunks at 1/2 each
    assert rank_documents(fused) == ["B", "A", "C", "X"]


def test_document_fusion_credits_a_document_found_through_different_chunks() -> None:
    got = fuse_documents([DENSE, SPARSE], k=2, limit=10)
    assert [h.payload["document_id"] for h in got] == ["A", "B", "C", "X"]
    assert got[0].id in {"A-1", "A-2"} and got[0].score == 1 / 2 + 1 / 2
    assert [h.score for h in got] == sorted((h.score for h in got), reverse=True)
    assert len(fuse_documents([DENSE, SPARSE], k=2, limit=2)) == 2


def test_document_fusion_weights_and_chunks_per_document() -> None:
    # Weighting BM25 five times lifts C (its second) over B (dense second, BM25 third).
    got = fuse_documents([DENSE, SPARSE], k=2, weights=[1.0, 5.0], limit=10)
    assert [h.payload["document_id"] for h in got][:3] == ["A", "C", "B"]
    two = fuse_documents([DENSE, SPARSE], k=2, limit=3, per_document=2)
    assert [h.id for h in two] == ["A-1", "A-2", "B-1"]


ranked_hits = st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 3)), unique=True, max_size=12).map(
    lambda keys: [hit(d, 1.0 / (i + 1), n) for i, (d, n) in enumerate(keys)]
)


@given(
    ranked_hits,
    ranked_hits,
    st.integers(1, 60),
    st.integers(1, 8),
    st.integers(1, 3),
    st.sampled_from(["max", "sum"]),
)
def test_document_fusion_invariants(
    dense: list[Hit], sparse: list[Hit], k: int, limit: int, per_document: int, pooling: Pooling
) -> None:
    got = fuse_documents([dense, sparse], k=k, limit=limit, per_document=per_document, pooling=pooling)
    docs = [h.payload["document_id"] for h in got]
    assert len(got) <= limit and len({h.id for h in got}) == len(got)
    assert all(docs.count(d) <= per_document for d in docs)
    assert {h.id for h in got} <= {h.id for h in dense + sparse}
    chunks: dict[str, set[str]] = {}
    for h in dense + sparse:
        chunks.setdefault(h.payload["document_id"], set()).add(h.id)
    assert len(got) == min(limit, sum(min(per_document, len(ids)) for ids in chunks.values()))
    assert [h.score for h in got] == sorted((h.score for h in got), reverse=True)
