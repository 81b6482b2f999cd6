"""The retriever: one query in, the best passages out, never anything expired."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any

from rag.embedding.base import Embedder, SparseEncoder, SparseVector
from rag.ingest.documents import norm
from rag.retrieval.fusion import Fusion, fuse_documents
from rag.retrieval.pooling import Pooling, pool_by_document
from rag.settings import IndexSettings
from rag.store.base import Filter, FilterValue, Hit, SearchMode, VectorStore

# What document fusion reads of each candidate.
ID_FIELDS = ("document_id", "chunk_count")


class Retriever:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        *,
        mode: SearchMode = "hybrid",
        per_document: int = 1,
        pooling: Pooling = "sum",
        oversample: int = 4,
        pool_chunks: int = 3,
        fusion: Fusion = "document",
        rrf_k: int = 3,
        weights: tuple[float, float] = (1.0, 1.0),
        candidates: int = 200,
    ) -> None:
        """``fusion`` "chunk": the index fuses dense and sparse chunk rankings (its own RRF k);
        "document": each retriever's ``candidates`` chunk hits are pooled per document, then the
        document rankings fused here with RRF ``rrf_k`` and (dense, sparse) ``weights``.
        The defaults are the index settings' defaults; the service builds it with ``from_settings``."""
        self._store = store
        self._embedder = embedder
        self._sparse = sparse
        self.mode: SearchMode = mode
        self.per_document = per_document
        self.pooling: Pooling = pooling
        self.pool_chunks = pool_chunks
        self._oversample = oversample
        self.fusion: Fusion = fusion
        self.rrf_k = rrf_k
        self.weights = weights
        self.candidates = candidates

    @classmethod
    def from_settings(
        cls, store: VectorStore, embedder: Embedder, sparse: SparseEncoder, index: IndexSettings
    ) -> Retriever:
        """The retriever the service runs with, from the index settings section."""
        return cls(
            store,
            embedder,
            sparse,
            mode=index.search_mode,
            per_document=index.max_chunks_per_document,
            pooling=index.pooling,
            pool_chunks=index.pool_chunks,
            fusion=index.fusion,
            rrf_k=index.rrf_k,
            weights=(index.dense_weight, index.sparse_weight),
            candidates=index.prefetch_limit,
        )

    async def document(self, document_id: str, most: int = 200) -> list[Hit]:
        """Every chunk of one document, in its order (a guide read whole: rag.chat.sections)."""
        hits, _ = await self._store.scroll(Filter(equals={"document_id": document_id}), most)
        return sorted(hits, key=lambda h: int(h.payload.get("chunk_index") or 0))

    async def guides(self, most: int = 20_000) -> dict[str, str]:
        """Every place that has a guide: its ``norm`` name -> its document's id (documents only, never a
        stored tool result; of several documents about one place, the first by id)."""
        flt = Filter(equals={"chunk_index": 0}, scope=())
        hits, _ = await self._store.scroll(flt, most)
        found: dict[str, str] = {}
        for h in sorted(hits, key=lambda h: str(h.payload.get("document_id", ""))):
            city = h.payload.get("city_norm")
            if isinstance(city, str) and city:
                found.setdefault(city, str(h.payload.get("document_id", "")))
        return found

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
        places: Sequence[str] = (),
        countries: Sequence[str] = (),
        per_document: int | None = None,
        documents_only: bool = False,
    ) -> list[Hit]:
        """Documents (seeded and uploaded) and this user's own stored tool results; nothing expired.

        Never another user's results, nor those of calls made without a user id (they answer only the
        same request again: rag.live). Without ``user_id``, documents alone. ``documents_only``: no
        stored tool results at all, as the chat's knowledge answers take them (guides, topics, the
        user's own files); a "what did you find?" question reads results through rag.live's recall.

        ``vector``: the query's embedding when the caller has it already (the chat embeds once for
        retrieval and routing). ``places`` (city names, matched as ``city_norm``) and ``countries``
        (ISO alpha-2 codes) focus the search in the index query itself: only passages about one of
        those cities or countries, or about no one city (topic documents), come back. Empty: anywhere.
        ``per_document``: chunks each of the ``top_k`` documents may bring (default: the setting); the
        chat takes several, so its composer can choose the sentences that answer.
        """
        per_document = per_document or self.per_document
        mode = mode or self.mode
        dense = vector if vector is not None else await self.embed(query)
        sparse = self._sparse.encode_query(query) if mode != "dense" else None
        # Documents alone: points without a user_scope, which an index can find by its payload index (a
        # "not a tool result" exclusion would check every point); or those and the user's own results.
        scope: tuple[str, ...] = () if documents_only or not user_id else (user_id,)
        flt = Filter(
            equals=dict(equals or {}),
            fresh_at=time.time() if now is None else now,
            scope=scope,
            places=tuple(dict.fromkeys(norm(p) for p in places if p.strip())),
            countries=tuple(dict.fromkeys(c.strip().upper() for c in countries if c.strip())),
        )
        if mode == "hybrid" and self.fusion == "document":
            return await self._fuse_documents(dense, sparse, top_k, flt, per_document)
        hits = await self._store.search(dense, sparse, top_k * self._oversample * per_document, flt, mode)
        return pool_by_document(hits, top_k, per_document, self.pooling, self.pool_chunks)

    async def _fuse_documents(
        self, dense: list[float], sparse: SparseVector | None, top_k: int, flt: Filter, per_document: int
    ) -> list[Hit]:
        """Each retriever's candidates with their document ids and sizes only, fused per document; then
        the winners' whole payloads (reading every candidate's text would cost more than the search)."""
        limit = max(self.candidates, top_k * self._oversample)
        dense_hits, sparse_hits = await asyncio.gather(
            self._store.search(dense, None, limit, flt, "dense", fields=ID_FIELDS),
            self._store.search(dense, sparse, limit, flt, "sparse", fields=ID_FIELDS),
        )
        fused = fuse_documents(
            [dense_hits, sparse_hits],
            k=self.rrf_k,
            weights=self.weights,
            pooling=self.pooling,
            pool_chunks=self.pool_chunks,
            limit=top_k,
            per_document=per_document,
        )
        payloads = {h.id: h.payload for h in await self._store.get([h.id for h in fused])}
        # A point deleted between the search and the read is left out.
        return [Hit(h.id, h.score, payloads[h.id]) for h in fused if h.id in payloads]

    async def embed(self, query: str) -> list[float]:
        return await self._embedder.embed_query(query)


def public_metadata(payload: Mapping[str, Any]) -> dict[str, Any]:
    from rag.ingest.documents import INTERNAL_KEYS

    return {k: v for k, v in payload.items() if k not in INTERNAL_KEYS}


def hit_json(hit: Hit) -> dict[str, Any]:
    """A search hit as /v1/search (and ``wayfarer search --json``) gives it."""
    return {
        "id": hit.id,
        "text": hit.payload.get("text", ""),
        "score": hit.score,
        "metadata": public_metadata(hit.payload),
    }
