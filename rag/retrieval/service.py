"""The retriever: one query in, the best passages out, never anything expired."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from rag.embedding.base import Embedder, SparseEncoder
from rag.retrieval.pooling import Pooling, pool_by_document
from rag.store.base import Filter, FilterValue, Hit, SearchMode, VectorStore


class Retriever:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        *,
        mode: SearchMode = "hybrid",
        per_document: int = 1,
        pooling: Pooling = "max",
        oversample: int = 4,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._sparse = sparse
        self.mode: SearchMode = mode
        self.per_document = per_document
        self.pooling: Pooling = pooling
        self._oversample = oversample

    async def search(
        self,
        query: str,
        top_k: int = 5,
        equals: Mapping[str, FilterValue | list[FilterValue]] | None = None,
        *,
        mode: SearchMode | None = None,
        now: float | None = None,
        user_id: str | None = None,
        vector: list[float] | None = None,
    ) -> list[Hit]:
        """Seed documents, shared live results, and this user's own live results; nothing expired.

        ``vector``: the query's embedding when the caller has it already (the chat embeds once for
        retrieval and routing).
        """
        mode = mode or self.mode
        dense = vector if vector is not None else await self.embed(query)
        sparse = self._sparse.encode_query(query) if mode == "hybrid" else None
        scope = ("*", user_id) if user_id else ("*",)
        flt = Filter(equals=dict(equals or {}), fresh_at=time.time() if now is None else now, scope=scope)
        hits = await self._store.search(dense, sparse, top_k * self._oversample, flt, mode)
        return pool_by_document(hits, top_k, self.per_document, self.pooling)

    async def embed(self, query: str) -> list[float]:
        return await self._embedder.embed_query(query)


def public_metadata(payload: Mapping[str, Any]) -> dict[str, Any]:
    from rag.ingest.documents import INTERNAL_KEYS

    return {k: v for k, v in payload.items() if k not in INTERNAL_KEYS}
