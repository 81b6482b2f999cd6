"""A full rebuild without downtime: fill a new generation, switch to it atomically, drop the old one.

Every point is re-embedded from its stored text with the current embedding model (the reason to
rebuild: a new model), into a new collection. Searches keep using the old collection meanwhile, and
every write goes to both, so nothing written during the copy is lost. Killed part-way, the old
collection keeps serving and the next rebuild deletes the partial one first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from rag.embedding.base import Embedder, SparseEncoder, SparseVector
from rag.store.base import Point, VectorStore
from rag.store.switch import SwitchableStore

logger = logging.getLogger(__name__)


async def rebuild(
    switch: SwitchableStore,
    new_generation: Callable[[], VectorStore],
    embedder: Embedder,
    sparse: SparseEncoder,
    batch: int = 256,
) -> dict[str, Any]:
    stale = await switch.drop_siblings(switch.family)
    if stale:
        logger.info("deleted collections left by an interrupted rebuild: %s", stale)
    old_name = switch.physical_name
    new = new_generation()
    await new.open()
    await switch.begin(new)
    copied = 0
    try:
        offset: str | None = None
        async with new.bulk():  # its search graph is built once, before it serves
            while True:
                hits, offset = await switch.current.scroll(None, batch, offset)
                if hits:
                    texts = [str(h.payload.get("text", "")) for h in hits]
                    dense = await embedder.embed_documents(texts)
                    sparse_vectors = await asyncio.to_thread(_encode, sparse, texts)
                    async with switch.write_lock:
                        # A point written or deleted since it was read went to both already: keep that.
                        now = {h.id: h.payload for h in await switch.current.get([h.id for h in hits])}
                        points = [
                            Point(h.id, d, s, h.payload)
                            for h, d, s in zip(hits, dense, sparse_vectors, strict=True)
                            if now.get(h.id) == h.payload
                        ]
                        await new.upsert(points)
                    copied += len(points)
                if offset is None:
                    break
        async with switch.write_lock:
            total_old, total_new = await switch.current.count(), await new.count()
        if total_old != total_new:
            raise RuntimeError(f"the new collection has {total_new} points, the old {total_old}")
        await switch.switch()
    except BaseException:
        await switch.abort()
        raise
    return {
        "copied": copied,
        "points": total_new,
        "from": old_name,
        "to": new.physical_name,
        "stale_dropped": len(stale),
    }


def _encode(sparse: SparseEncoder, texts: list[str]) -> list[SparseVector]:
    return [sparse.encode_document(t) for t in texts]
