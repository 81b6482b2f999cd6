"""Pool chunk hits into a result list. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from rag.store.base import Hit


def pool_by_document(hits: Sequence[Hit], limit: int, per_document: int = 1) -> list[Hit]:
    """Best first, at most ``per_document`` chunks of any one document, ``limit`` in all.

    Hits arrive best first; a document's later chunks are dropped once it has its
    share, so the list covers more documents instead of repeating one.
    """
    taken: dict[str, int] = {}
    out: list[Hit] = []
    for hit in hits:
        doc = str(hit.payload.get("document_id", hit.id))
        if taken.get(doc, 0) >= per_document:
            continue
        taken[doc] = taken.get(doc, 0) + 1
        out.append(hit)
        if len(out) == limit:
            break
    return out
