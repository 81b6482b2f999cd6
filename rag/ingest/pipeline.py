"""The ingestion pipeline: documents to chunks to points, deduplicated by content hash.

Per document the KV store keeps ``doc:<id>`` = {hash, chunks, source, origin}. A document
whose hash is unchanged is skipped with no embedding work; a changed one is
re-chunked and its points replaced (ids are uuid5 of document id and chunk
position, so a re-run overwrites instead of duplicating, and the stale tail of a
shorter new version is deleted). A document's points are written in one upsert
and its record only after that, so an interrupted run leaves no half-written
document recorded as done and the next run finishes it.

Documents are embedded a window at a time (``group_chunks``, about a thousand chunks), their chunks
sorted by length into the model's batches: the model pads a batch to its longest text, so document
order wastes about 40% of its work on padding and a sorted window about 2% (scripts/README.md,
"Ingestion and search speed"). A whole run is one bulk load for the index (``VectorStore.bulk``): the
embedded index builds its search graph once, after the run, instead of again and again as it grows.

``origin`` says where a document was seeded from (the seed corpus, or one folder or file a user
seeded); a pruning run deletes only documents of its own origin that it no longer found, so syncing
the seed corpus never touches a user's documents, nor seeding one folder another's. The corpus's ids
are its own: a run of any other origin that would write one (under guides/ or topics/, or one the
corpus holds) is refused before anything is written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rag.embedding.base import Embedder, SparseEncoder, SparseVector
from rag.embedding.batching import token_batches
from rag.errors import ReservedDocumentIdError
from rag.ingest.chunking import Chunk, chunk_markdown
from rag.ingest.documents import (
    SourceDocument,
    check_document_id,
    chunk_id,
    chunk_payload,
    document_payload,
)
from rag.ingest.progress import IngestProgress
from rag.kv.base import KVStore
from rag.store.base import Filter, Point, VectorStore

logger = logging.getLogger(__name__)

DOC_PREFIX = "doc:"
# The origin of the seed corpus (settings.index.seed_dir).
SEED_ORIGIN = "seed"


def record_origin(record: dict[str, Any]) -> str | None:
    """Where a recorded document came from; None for documents sent through the API."""
    if "origin" in record:
        return None if record["origin"] is None else str(record["origin"])
    # Records written before origins were kept: only the seed corpus was pruned, by its source "seed".
    return SEED_ORIGIN if record.get("source") == "seed" else None


@dataclass
class IngestCounts:
    added: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    chunks: int = 0
    document_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        d = asdict(self)
        d.pop("document_ids")
        return d


@dataclass
class _Prepared:
    doc: SourceDocument
    chunks: list[Chunk]
    sparse: list[SparseVector]
    previous_chunks: int | None  # None: new document
    origin: str | None


class Ingestor:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        kv: KVStore,
        *,
        max_tokens: int = 200,
        overlap: int = 32,
        group_chunks: int = 1024,
        embed_batch: int = 32,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._sparse = sparse
        self._kv = kv
        self._max_tokens = max_tokens
        self._overlap = overlap
        self._group_chunks = group_chunks
        self._embed_batch = embed_batch
        # Documents being written by this process; a second writer of the same id waits.
        self._locks: dict[str, asyncio.Lock] = {}

    async def ingest(
        self,
        documents: Iterable[SourceDocument],
        *,
        origin: str | None = None,
        prune: bool = False,
        progress: IngestProgress | None = None,
    ) -> IngestCounts:
        """Ingest ``documents`` from ``origin``; with ``prune``, delete that origin's documents not among them.

        ``progress`` hears of each document as it is read and done, and of each batch of chunks embedded.
        """
        if prune and origin is None:
            raise ValueError("pruning needs an origin: documents sent through the API are never pruned")
        if origin != SEED_ORIGIN:
            documents = list(documents)
            await self.check_ids(documents)
        counts = IngestCounts()
        seen: set[str] = set()
        async with self._store.bulk():
            group: list[_Prepared] = []
            pending = 0
            for doc in documents:
                if doc.id in seen:
                    logger.warning("document id %s appears twice; the later one wins", doc.id)
                seen.add(doc.id)
                counts.document_ids.append(doc.id)
                prepared = await self._prepare(doc, origin)
                if progress:
                    progress.document_read(None if prepared is None else len(prepared.chunks))
                if prepared is None:
                    counts.skipped += 1
                    continue
                group.append(prepared)
                pending += len(prepared.chunks)
                if pending >= self._group_chunks:
                    await self._write_group(group, counts, progress)
                    group, pending = [], 0
            if group:
                await self._write_group(group, counts, progress)
            if prune:
                counts.deleted = await self._prune(origin, seen)
        logger.debug("ingested: %s", counts.as_dict())
        return counts

    async def check_ids(self, documents: Sequence[SourceDocument]) -> None:
        """Refuse documents that are not the seed corpus's but would take one of its ids: one under its
        folders, or one it holds (a corpus set with WAYFARER_INDEX__SEED_DIR names its own)."""
        for doc in documents:
            check_document_id(doc.id)
        for doc in documents:
            raw = await self._kv.get(DOC_PREFIX + doc.id)
            if raw is not None and record_origin(_record(raw)) == SEED_ORIGIN:
                raise ReservedDocumentIdError(
                    f"id: {doc.id!r} is reserved: it is a document of the service's seed corpus; "
                    "give the document another id"
                )

    async def _prepare(self, doc: SourceDocument, origin: str | None) -> _Prepared | None:
        record = await self._kv.get(DOC_PREFIX + doc.id)
        previous = json.loads(record) if record else None
        if origin == SEED_ORIGIN and previous and record_origin(previous) != SEED_ORIGIN:
            # Only ids written before they were reserved (or a corpus folder renamed): the corpus takes it.
            logger.warning("%s: the seed corpus takes back its id from %s", doc.id, record_origin(previous))
        if previous and previous.get("hash") == doc.content_hash:
            if record_origin(previous) != origin:  # the same document, now seeded from here: no re-embedding
                await self._kv.set(DOC_PREFIX + doc.id, json.dumps({**previous, "origin": origin}))
            return None
        chunks, sparse = await asyncio.to_thread(self._chunk, doc)
        return _Prepared(doc, chunks, sparse, previous.get("chunks") if previous else None, origin)

    def _chunk(self, doc: SourceDocument) -> tuple[list[Chunk], list[SparseVector]]:
        chunks = chunk_markdown(
            doc.text,
            doc.title,
            max_tokens=self._max_tokens,
            overlap=self._overlap,
            count_tokens=self._embedder.count_tokens,
        )
        return chunks, [self._sparse.encode_document(c.text) for c in chunks]

    async def _write_group(
        self, group: list[_Prepared], counts: IngestCounts, progress: IngestProgress | None
    ) -> None:
        texts = [c.text for p in group for c in p.chunks]
        vectors: list[list[float]] = [[] for _ in texts]
        # A batch at a time, so progress moves; of like lengths, so the model pads little.
        lengths = [c.tokens for p in group for c in p.chunks]
        for batch in token_batches(lengths, self._embed_batch, self._embed_batch * max(lengths, default=1)):
            began = time.monotonic()
            embedded = await self._embedder.embed_documents([texts[i] for i in batch])
            for i, vector in zip(batch, embedded, strict=True):
                vectors[i] = vector
            if progress:
                progress.chunks_embedded(len(batch), time.monotonic() - began)
        offset = 0
        for p in group:
            n = len(p.chunks)
            dense = vectors[offset : offset + n]
            offset += n
            await self._write_document(p, dense)
            if p.previous_chunks is None:
                counts.added += 1
            else:
                counts.updated += 1
            counts.chunks += n
            if progress:
                progress.document_written()

    async def _write_document(self, p: _Prepared, dense: list[list[float]]) -> None:
        doc = p.doc
        lock = self._locks.setdefault(doc.id, asyncio.Lock())
        async with lock:
            n = len(p.chunks)
            shared = document_payload(doc)
            points = [
                Point(
                    chunk_id(doc.id, c.index),
                    vec,
                    sp,
                    chunk_payload(doc, c.index, n, c.heading, c.text, shared),
                )
                for c, vec, sp in zip(p.chunks, dense, p.sparse, strict=True)
            ]
            await self._store.upsert(points)
            # A shorter new version leaves old chunks at positions >= n: remove them.
            await self._delete_tail(doc.id, n, p.previous_chunks)
            record = {
                "hash": doc.content_hash,
                "chunks": n,
                "source": doc.source,
                "origin": p.origin,
                "at": time.time(),
            }
            await self._kv.set(DOC_PREFIX + doc.id, json.dumps(record))

    async def _delete_tail(self, doc_id: str, n: int, previous: int | None) -> None:
        if previous is not None and previous > n:
            await self._store.delete([chunk_id(doc_id, i) for i in range(n, previous)])

    async def delete_document(self, doc_id: str) -> bool:
        """Remove a document's points and record; False when it was not known."""
        record = await self._kv.get(DOC_PREFIX + doc_id)
        await self._store.delete_where(Filter(equals={"document_id": doc_id}))
        await self._kv.delete(DOC_PREFIX + doc_id)
        return record is not None

    async def _prune(self, origin: str | None, keep: set[str]) -> int:
        records = await self._kv.scan_prefix(DOC_PREFIX)
        deleted = 0
        for key, raw in records.items():
            doc_id = key[len(DOC_PREFIX) :]
            if doc_id not in keep and record_origin(_record(raw)) == origin:
                await self.delete_document(doc_id)
                deleted += 1
        return deleted


def _record(raw: str) -> dict[str, Any]:
    """A document's KV record; an unreadable one as empty (no origin: never pruned, never reserved)."""
    try:
        record = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}
