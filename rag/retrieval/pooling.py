"""Pool chunk hits into documents. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rag.store.base import Hit

Pooling = Literal["max", "sum"]


def document_key(hit: Hit) -> str:
    return str(hit.payload.get("document_id", hit.id))


def group_by_document(hits: Sequence[Hit]) -> dict[str, list[Hit]]:
    """Each document's hits in their order, documents in the order of their first hit."""
    by_doc: dict[str, list[Hit]] = {}
    for hit in hits:
        by_doc.setdefault(document_key(hit), []).append(hit)
    return by_doc


def chunk_count(hit: Hit) -> int:
    """Chunks in the hit's document; a point without a count (a live result) is a document of one."""
    count = hit.payload.get("chunk_count")
    return count if isinstance(count, int) and count > 0 else 1


def pooled_score(doc_hits: Sequence[Hit], pool_chunks: int) -> float:
    """The sum of a document's best ``pool_chunks`` hit scores; a document shorter than that is
    scaled up as if each of its missing chunks matched as well as its own do on average, so a short
    document (a live result, a one-paragraph note) that matches fully is not outweighed by a long
    guide that matches in three weaker places."""
    n = min(pool_chunks, chunk_count(doc_hits[0]))
    return sum(h.score for h in doc_hits[:n]) * pool_chunks / n


def rank_documents(hits: Sequence[Hit], pooling: Pooling = "max", pool_chunks: int = 3) -> list[str]:
    """Document ids best first, from chunk hits that arrive best first.

    ``max`` ranks a document by its best chunk; ``sum`` by ``pooled_score``, the sum of its best
    ``pool_chunks`` chunk scores among the hits, so a document that answers with several passages
    rises over one with a single lucky passage, while a long document's many weak mentions do not
    pile up.
    """
    by_doc = group_by_document(hits)
    if pooling == "max":
        return list(by_doc)  # first appearance is the best chunk
    totals = {doc: pooled_score(hs, pool_chunks) for doc, hs in by_doc.items()}
    return sorted(by_doc, key=lambda doc: -totals[doc])


def pool_by_document(
    hits: Sequence[Hit], limit: int, per_document: int = 1, pooling: Pooling = "max", pool_chunks: int = 3
) -> list[Hit]:
    """Best first, at most ``per_document`` chunks of any one document, ``limit`` in all.

    Documents rank as ``rank_documents`` ranks them; the hits of a document keep their own order
    and scores.
    """
    by_doc = group_by_document(hits)
    order = [by_doc[doc] for doc in rank_documents(hits, pooling, pool_chunks)]
    out: list[Hit] = []
    for rank in range(per_document):
        for doc_hits in order:
            if rank < len(doc_hits):
                out.append(doc_hits[rank])
    if per_document > 1:  # interleaved by rank above; present best first overall
        keep = {id(h) for h in out[: limit * per_document]}
        out = [h for hs in order for h in hs[:per_document] if id(h) in keep]
    return out[:limit]
