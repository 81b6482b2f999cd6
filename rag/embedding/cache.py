"""Embed a text once: a content-keyed vector cache in front of an embedder.

The same offer, forecast or activity is shown to many users, and each user's copy is stored under that
user's scope (rag.live.ingest). Its text is the same, so its vector is too: the cache keys vectors on the
model and a hash of the text, in process (an LRU, bounded) and, when given one, in the KV store, so that
the replicas of a deployment on Redis share them. What is stored per user is untouched: only the model
work is shared.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from rag.embedding.base import Embedder
from rag.kv.base import KVStore

logger = logging.getLogger(__name__)


class CachedEmbedder:
    """An ``Embedder`` whose document vectors are looked up by content before the model is asked."""

    def __init__(
        self,
        inner: Embedder,
        max_entries: int,
        kv: KVStore | None = None,
        kv_ttl: float = 86400.0,
        count: Callable[[str, int], None] | None = None,
    ) -> None:
        """``count(how, n)``: told of every lookup (how: cached, shared or embedded), for the metrics."""
        self._inner = inner
        self._count = count
        self._max = max_entries
        self._kv = kv
        self._kv_ttl = kv_ttl
        self._lru: OrderedDict[str, list[float]] = OrderedDict()
        self.hits = 0  # texts answered from this process's cache
        self.shared_hits = 0  # from the KV store (another replica, or before a restart)
        self.misses = 0  # texts the model embedded

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def name(self) -> str:
        return self._inner.name

    def _key(self, text: str) -> str:
        digest = hashlib.sha256(text.encode()).hexdigest()[:40]
        return f"vec:{self._inner.name}:{digest}"

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        found: dict[str, list[float]] = {}
        for key in dict.fromkeys(keys):
            vector = self._lru.get(key)
            if vector is not None:
                self._lru.move_to_end(key)
                found[key] = vector
                self.hits += 1
            elif self._kv is not None and (shared := await self._shared(key)) is not None:
                self._remember(key, shared)
                found[key] = shared
                self.shared_hits += 1
        missing = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in found]
        if self._count is not None:
            self._count("cached", len(keys) - len(missing))
            self._count("embedded", len(missing))
        if missing:
            vectors = await self._inner.embed_documents([t for _, t in missing])
            self.misses += len(missing)
            for (key, _), vector in zip(missing, vectors, strict=True):
                found[key] = vector
                self._remember(key, vector)
                if self._kv is not None:
                    await self._share(key, vector)
        return [found[k] for k in keys]

    async def embed_query(self, text: str) -> list[float]:
        return await self._inner.embed_query(text)

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)

    async def close(self) -> None:
        await self._inner.close()

    def _remember(self, key: str, vector: list[float]) -> None:
        self._lru[key] = vector
        self._lru.move_to_end(key)
        while len(self._lru) > self._max:
            self._lru.popitem(last=False)

    async def _shared(self, key: str) -> list[float] | None:
        assert self._kv is not None
        try:
            raw = await self._kv.get(key)
        except Exception:  # the cache is an optimisation: a KV error costs an embedding, not the write
            logger.warning("vector cache read failed", exc_info=True)
            return None
        if raw is None:
            return None
        data = np.frombuffer(base64.b64decode(raw), dtype=np.float32)
        return data.tolist() if data.size == self.dimension else None

    async def _share(self, key: str, vector: list[float]) -> None:
        assert self._kv is not None
        raw = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()
        try:
            await self._kv.set(key, raw, self._kv_ttl)
        except Exception:
            logger.warning("vector cache write failed", exc_info=True)
