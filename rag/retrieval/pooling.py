"""Pool chunk hits into a result list. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rag.store.base import Hit

Pooling = Literal["max", "sum"]


def pool_by_document(
    hits: Sequence[Hit], limit: int, per_document: int = 1, pooling: Pooling = "max"
) -> list[Hit]:
    """Best first, at most ``per_document`` chunks of any one document, ``limit`` in all.

    ``max`` ranks a document by its best chunk; ``sum`` by the sum of its chunks'
    scores among the hits, so a document that answers with several passages rises.
    The hits of a document keep their own order and scores.
    """
    by_doc: dict[str, list[Hit]] = {}
    for hit in hits:  # hits arrive best first
        by_doc.setdefault(str(hit.payload.get("document_id", hit.id)), []).append(hit)
    if pooling == "sum":
        order = sorted(by_doc.values(), key=lambda hs: -sum(h.score for h in hs))
    else:
        order = list(by_doc.values())  # dict order is first appearance, i.e. best chunk
    out: list[Hit] = []
    for rank in range(per_document):
        for doc_hits in order:
            if rank < len(doc_hits):
                out.append(doc_hits[rank])
    if per_document > 1:  # interleaved by rank above; present best first overall
        keep = {id(h) for h in out[: limit * per_document]}
        out = [h for hs in order for h in hs[:per_document] if id(h) in keep]
    return out[:limit]
