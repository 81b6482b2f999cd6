"""Pooling and metrics: pure functions."""

from __future__ import annotations

from rag.retrieval.metrics import percentile, recall_at, reciprocal_rank
from rag.retrieval.pooling import pool_by_document
from rag.store.base import Hit


def hit(doc: str, score: float, n: int = 0) -> Hit:
    return Hit(f"{doc}-{n}", score, {"document_id": doc})


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
