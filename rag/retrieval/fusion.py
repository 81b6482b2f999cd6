"""Fusing the dense and the sparse (BM25) rankings into one. Pure.

Chunk-level fusion (what Qdrant's RRF query does) gives a chunk a vote from each retriever that ranks
that very chunk; a document that the dense retriever finds through one passage and BM25 through
another gets no more than either alone. Fusing per document pools each retriever's chunk hits into a
ranking of documents first (by the best chunk, or the sum of its best few chunks' scores), then
fuses the document rankings, so both votes count. On a corpus of 774 city guides that generalises
better (see the README's retrieval figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rag.retrieval.pooling import Pooling, document_key, rank_documents
from rag.store.base import Hit

Fusion = Literal["chunk", "document"]


def rrf(
    rankings: Sequence[Sequence[str]], k: int, weights: Sequence[float] | None = None
) -> dict[str, float]:
    """Weighted reciprocal rank fusion: the key at position ``p`` (from 0) of a ranking of weight ``w``
    scores ``w / (k + p)``.

    Positions count from 0 as in Qdrant's RRF query, so unweighted this scores exactly as the index's
    hybrid query and one ``k`` means the same in both fusions. (Qdrant weights positions instead,
    ``1 / ((p + 1) / w + k - 1)``, which flattens the heavier ranking; a weight here scales its votes.)
    Keys come out in the order of their fused score, best first (ties: first seen first).
    """
    if weights is not None and len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for position, key in enumerate(ranking):
            scores[key] = scores.get(key, 0.0) + w / (k + position)
    return dict(sorted(scores.items(), key=lambda kv: -kv[1]))


def fuse_chunks(
    rankings: Sequence[Sequence[Hit]], k: int, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Chunk-level RRF: the chunks of all rankings, best fused first, scored by their fused score."""
    by_id: dict[str, Hit] = {}
    for ranking in rankings:
        for h in ranking:
            by_id.setdefault(h.id, h)
    fused = rrf([[h.id for h in ranking] for ranking in rankings], k, weights)
    return [Hit(i, score, by_id[i].payload) for i, score in fused.items()]


def fuse_documents(
    rankings: Sequence[Sequence[Hit]],
    *,
    k: int,
    weights: Sequence[float] | None = None,
    pooling: Pooling = "max",
    pool_chunks: int = 3,
    limit: int,
    per_document: int = 1,
) -> list[Hit]:
    """Per-document fusion of several retrievers' chunk hits (each best first).

    Documents rank by the RRF of each retriever's document ranking (``rank_documents``). A document
    is represented by up to ``per_document`` of its chunks, in the order of chunk-level RRF; every
    returned hit carries its document's fused score. At most ``limit`` hits, grouped by document.
    """
    documents = rrf([rank_documents(r, pooling, pool_chunks) for r in rankings], k, weights)
    chunks: dict[str, list[Hit]] = {}
    for h in fuse_chunks(rankings, k, weights):
        chunks.setdefault(document_key(h), []).append(h)
    out: list[Hit] = []
    for doc, score in documents.items():
        for h in chunks[doc][:per_document]:
            if len(out) == limit:
                return out
            out.append(Hit(h.id, score, h.payload))
    return out
