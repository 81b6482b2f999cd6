"""Embedded default: Qdrant Edge, Qdrant's own engine in-process, on disk under the data directory."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from rag.embedding.base import SparseVector
from rag.errors import IndexLockedError, IndexUnavailableError
from rag.store.base import (
    DENSE,
    FLOAT_FIELDS,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    Filter,
    Hit,
    Point,
    SearchMode,
    equals_items,
    exclude_items,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

# A segment's vectors never reach this many kilobytes (a terabyte): no search graph is ever built.
NO_GRAPH_KB = 1_000_000_000
COMPACT_EVERY = 2_000  # points written or deleted between two compactions, at least (see EdgeStore)
COMPACT_SHARE = 4  # and at least a quarter of the points the index held at the last one


class EdgeStore:
    """One Edge shard per collection, in ``<path>/<collection>``.

    The shard's calls are blocking, so they run on a small dedicated executor.

    Edge has no background optimiser: an overwritten or deleted point stays in its segment, and every
    update stays in the write-ahead log, until the owner flushes and optimises. Tool results are
    rewritten and expire all day, so without that the shard's files (mapped into memory) grow for
    ever while its point count stays flat. After every ``compact_every`` points written or deleted the
    store flushes (which truncates the log), and when as many points as a quarter of the index have
    changed since the last optimisation (so a growing index is optimised a number of times that grows
    with the log of its size, not with its size) it also optimises (which vacuums segments whose
    deleted share passed Qdrant's threshold, and merges segments). Writes wait for it, and so does
    everything else in the process: Edge holds Python's lock while it optimises.

    That is why, by default, no segment gets an HNSW search graph (``graph_threshold_kb`` 0): a graph
    build is most of an optimisation's time (10 to 35 s past 40,000 points, when a segment past the
    threshold merges into a larger one; 0.1 s without graphs), and every search here is filtered, on
    the payload indexes, to the documents or a user's own results, which an exact search scores as
    fast at this scale. With a threshold, a segment past it gets a graph when it is optimised.

    During a bulk load (``bulk``: a seeding run) the store only flushes, so the log stays short, and
    optimises once when the last bulk load ends: one graph build (with a threshold) instead of one
    every few thousand points. A bulk load cut short leaves the optimisation to the next write.
    """

    def __init__(
        self,
        path: Path,
        collection: str,
        dimension: int,
        rrf_k: int,
        prefetch_limit: int,
        compact_every: int = COMPACT_EVERY,
        *,
        search_threads: int = 1,
        graph_threshold_kb: int = 0,
    ) -> None:
        """``search_threads``: threads one query searches the shard's segments with (0: one per core);
        ``graph_threshold_kb``: the vector kilobytes past which a segment gets a search graph (0: never;
        rag.settings IndexSettings says why)."""
        self._root = path
        self._search_threads = search_threads
        self._graph_threshold_kb = graph_threshold_kb
        self._dir = path / collection
        self._dimension = dimension
        self.rrf_k = rrf_k
        self.prefetch_limit = prefetch_limit
        self._shard: Any = None
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="edge")
        self._compact_every = compact_every
        self._changed = 0  # points written or deleted since the last compaction
        self._points = 0  # points in the index at the last compaction (or when it opened)
        self._flushed_at = 0  # self._changed at the last flush of a bulk load
        self._bulk = 0  # bulk loads running
        self._writing = asyncio.Lock()  # one write or compaction at a time
        self.compactions = 0
        self.flushes = 0  # flushes alone: during bulk loads, or with no optimisation due

    async def _run(self, fn: Callable[[], T]) -> T:
        if self._shard is None:
            raise IndexUnavailableError("the index is not open")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, fn)
        except Exception as exc:
            raise IndexUnavailableError(f"index operation failed: {exc}") from exc

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            self._shard = await loop.run_in_executor(self._executor, self._open_sync)
        except Exception as exc:
            if "WouldBlock" in str(exc):
                raise IndexLockedError(
                    f"the index at {self._dir} is open in another process (is `wayfarer serve` running?); "
                    "stop it, or send documents to it with `wayfarer seed --url`"
                ) from exc
            raise IndexUnavailableError(f"cannot open the index at {self._dir}: {exc}") from exc

    def _open_sync(self) -> Any:
        config = shard_config(self._dimension, self._search_threads, self._graph_threshold_kb)
        if (self._dir / "edge_config.json").exists():
            shard = qe.EdgeShard.load(str(self._dir), config)
        else:
            self._dir.mkdir(parents=True, exist_ok=True)
            shard = qe.EdgeShard.create(str(self._dir), config)
        existing = set(shard.info().payload_schema)
        for name in KEYWORD_FIELDS:
            if name not in existing:
                shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        for name in FLOAT_FIELDS:
            if name not in existing:
                shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Float))
        for name in INTEGER_FIELDS:
            if name not in existing:
                shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Integer))
        self._points = int(shard.info().points_count)
        logger.info("opened embedded index %s (%d points)", self._dir, self._points)
        return shard

    async def upsert(self, points: Sequence[Point]) -> None:
        if not points:
            return
        edge_points = [qe.Point(p.id, _vectors(p), p.payload) for p in points]
        op = qe.UpdateOperation.upsert_points(edge_points)
        await self._write(lambda: self._shard.update(op), len(edge_points))

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            op = qe.UpdateOperation.delete_points(list(ids))
            await self._write(lambda: self._shard.update(op), len(ids))

    async def delete_where(self, flt: Filter) -> None:
        op = qe.UpdateOperation.delete_points_by_filter(_filter(flt) or qe.Filter())

        def apply() -> int:
            before = self._shard.info().points_count
            self._shard.update(op)
            return int(before - self._shard.info().points_count)

        async with self._writing:
            await self._changed_by(await self._run(apply))

    async def _write(self, fn: Callable[[], None], changed: int) -> None:
        async with self._writing:
            await self._run(fn)
            await self._changed_by(changed)

    async def _changed_by(self, n: int) -> None:
        """Count a write; every ``compact_every`` points flush, and optimise too when one is due and no
        bulk load runs (the caller holds the write lock)."""
        self._changed += n
        if not self._bulk and self._due():
            await self._compact()
            return
        if self._changed - self._flushed_at < self._compact_every:
            return
        self._flushed_at = self._changed
        try:
            await self._run(self._shard.flush)
        except IndexUnavailableError as exc:  # the write itself stands; the next one tries again
            logger.warning("index flush failed: %s", exc)
            return
        self.flushes += 1

    def _due(self) -> bool:
        return self._changed >= max(self._compact_every, self._points // COMPACT_SHARE)

    async def _compact(self) -> None:
        self._changed = self._flushed_at = 0
        try:
            await self._run(self._compact_sync)
        except IndexUnavailableError as exc:  # the write itself stands; the next one tries again
            logger.warning("index compaction failed: %s", exc)
            return
        self.compactions += 1

    @asynccontextmanager
    async def bulk(self) -> AsyncIterator[None]:
        self._bulk += 1
        try:
            yield
        finally:
            self._bulk -= 1
        if not self._bulk and self._shard is not None:
            async with self._writing:
                if self._due():
                    began = asyncio.get_running_loop().time()
                    await self._compact()
                    logger.info(
                        "optimised the index after a bulk load in %.1f s",
                        asyncio.get_running_loop().time() - began,
                    )

    def _compact_sync(self) -> None:
        self._shard.flush()
        self._shard.optimize()
        self._points = int(self._shard.info().points_count)

    async def search(
        self,
        dense: list[float],
        sparse: SparseVector | None,
        limit: int,
        flt: Filter | None = None,
        mode: SearchMode = "hybrid",
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        f = _filter(flt) if flt else None
        payload: Any = True if fields is None else qe.PayloadSelector.Include(list(fields))
        dense_q = qe.Query.Nearest(dense, using=DENSE)
        if mode == "dense" or sparse is None or not sparse.indices:
            if mode == "sparse":
                return []  # a query of stop words only
            req = qe.QueryRequest(
                limit=limit, query=dense_q, filter=f, with_payload=payload, with_vector=False
            )
        else:
            sparse_q = qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE)
            if mode == "sparse":
                req = qe.QueryRequest(
                    limit=limit, query=sparse_q, filter=f, with_payload=payload, with_vector=False
                )
            else:
                pre = max(self.prefetch_limit, limit)
                req = qe.QueryRequest(
                    limit=limit,
                    prefetches=[
                        qe.Prefetch(limit=pre, query=dense_q, filter=f),
                        qe.Prefetch(limit=pre, query=sparse_q, filter=f),
                    ],
                    query=qe.Fusion.Rrf(k=self.rrf_k),  # type: ignore[arg-type]
                    filter=f,
                    with_payload=payload,
                    with_vector=False,
                )
        found = await self._run(lambda: self._shard.query(req))
        return [Hit(str(r.id), float(r.score), dict(r.payload or {})) for r in found]

    async def get(self, ids: Sequence[str]) -> list[Hit]:
        if not ids:
            return []
        records = await self._run(
            lambda: self._shard.retrieve(list(ids), with_payload=True, with_vector=False)
        )
        return [Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records]

    async def scroll(
        self, flt: Filter | None, limit: int, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        req = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=_filter(flt) if flt else None,
            with_payload=True,
            with_vector=False,
        )
        records, nxt = await self._run(lambda: self._shard.scroll(req))
        return [Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records], (
            str(nxt) if nxt is not None else None
        )

    async def count(self, flt: Filter | None = None) -> int:
        req = qe.CountRequest(filter=_filter(flt) if flt else None, exact=True)
        return int(await self._run(lambda: self._shard.count(req)))

    async def ping(self) -> bool:
        try:
            await self._run(lambda: self._shard.info())
        except IndexUnavailableError:
            return False
        return True

    async def close(self) -> None:
        shard, self._shard = self._shard, None
        if shard is not None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._executor, _flush_close, shard)
        self._executor.shutdown(wait=True)

    @property
    def physical_name(self) -> str:
        return self._dir.name

    async def promote(self, name: str) -> None:
        """Point ``<root>/<name>.current`` at this shard's directory (written, synced, then renamed)."""

        def write() -> None:
            tmp = self._root / f".{name}.current.tmp"
            with tmp.open("w") as fh:
                fh.write(self._dir.name)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, pointer_file(self._root, name))

        await asyncio.to_thread(write)

    async def drop(self) -> None:
        await self.close()
        await asyncio.to_thread(shutil.rmtree, self._dir, True)

    async def drop_siblings(self, family: str) -> list[str]:
        current = current_directory(self._root, family)
        others = [
            d
            for d in (self._root.iterdir() if self._root.is_dir() else [])
            if d.is_dir() and d.name.startswith(family + "@") and d.name not in (current, self._dir.name)
        ]
        for d in others:
            await asyncio.to_thread(shutil.rmtree, d, True)
        return [d.name for d in others]


def pointer_file(root: Path, family: str) -> Path:
    return root / f"{family}.current"


def current_directory(root: Path, family: str) -> str:
    """The shard directory serving ``family``: the pointer file's, or ``family`` itself before any rebuild."""
    try:
        name = pointer_file(root, family).read_text().strip()
    except FileNotFoundError:
        return family
    return name or family


def _flush_close(shard: Any) -> None:
    shard.flush()
    shard.close()


def _vectors(p: Point) -> dict[str, Any]:
    vectors: dict[str, Any] = {DENSE: p.dense}
    if p.sparse is not None and p.sparse.indices:
        vectors[SPARSE] = qe.SparseVector(p.sparse.indices, p.sparse.values)
    return vectors


def shard_config(dimension: int, search_threads: int, graph_threshold_kb: int) -> qe.EdgeConfig:
    """The shard's configuration, given every time it opens (a shard keeps the values it was last
    opened with). Each segment's dense vectors are mapped from disk (the page cache keeps what searches
    touch) rather than held in RAM: Edge's default fills a 32 MiB chunk a segment however few points it
    has; an existing shard keeps its segments as they are until the optimiser rewrites them (see
    scripts/README.md, "Memory over a long soak"). ``search_threads`` 0: one per core;
    ``graph_threshold_kb`` 0: no search graph (EdgeStore says why)."""
    return qe.EdgeConfig(
        vectors={
            DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine, memory=qe.Memory.Cold)
        },
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        max_search_threads=search_threads or os.cpu_count() or 1,
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=graph_threshold_kb or NO_GRAPH_KB),
    )


def _filter(flt: Filter) -> qe.Filter:
    must: list[Any] = []
    must_not: list[Any] = []
    for key, values in equals_items(flt):
        if len(values) == 1:
            must.append(qe.FieldCondition(key, match=qe.MatchValue(values[0])))
        else:
            must.append(qe.FieldCondition(key, match=qe.MatchAny(values)))  # type: ignore[arg-type]
    for key, values in exclude_items(flt):
        if len(values) == 1:
            must_not.append(qe.FieldCondition(key, match=qe.MatchValue(values[0])))
        else:
            must_not.append(qe.FieldCondition(key, match=qe.MatchAny(values)))  # type: ignore[arg-type]
    if flt.fresh_at is not None:
        must_not.append(qe.FieldCondition("valid_until", range=qe.RangeFloat(lt=flt.fresh_at)))
    if flt.expired_at is not None:
        must.append(qe.FieldCondition("valid_until", range=qe.RangeFloat(lt=flt.expired_at)))
    if flt.scope == ():
        must.append(qe.IsEmptyCondition("user_scope"))
    elif flt.scope is not None:
        must.append(
            qe.Filter(
                should=[
                    qe.IsEmptyCondition("user_scope"),
                    qe.FieldCondition("user_scope", match=qe.MatchAny(list(flt.scope))),
                ]
            )
        )
    if flt.places or flt.countries:
        # About one of these places, or about no one city (topic documents): a should of alternatives.
        focus: list[Any] = [qe.IsEmptyCondition("city_norm")]
        if flt.places:
            focus.append(qe.FieldCondition("city_norm", match=qe.MatchAny(list(flt.places))))
        if flt.countries:
            focus.append(qe.FieldCondition("country_code", match=qe.MatchAny(list(flt.countries))))
        must.append(qe.Filter(should=focus))
    return qe.Filter(must=must or None, must_not=must_not or None)
