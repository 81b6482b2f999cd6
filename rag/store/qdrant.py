"""A Qdrant server or cluster through qdrant-client's AsyncQdrantClient (``WAYFARER_INDEX__URL``)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from qdrant_client import AsyncQdrantClient, models

from rag.embedding.base import SparseVector
from rag.errors import IndexUnavailableError
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
    generation_name,
)

logger = logging.getLogger(__name__)


class QdrantStore:
    """``location=":memory:"`` gives qdrant-client's local mode, which the contract tests use."""

    def __init__(
        self,
        collection: str,
        dimension: int,
        rrf_k: int,
        prefetch_limit: int,
        *,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        timeout: float = 10.0,
        generation: bool = False,
    ) -> None:
        # The serving name is an alias onto a generation (``name@stamp``) so a rebuild can switch it
        # atomically; a store opened as a generation addresses that collection directly.
        self._collection = collection
        self._physical = collection
        self._generation = generation
        self._dimension = dimension
        self.rrf_k = rrf_k
        self.prefetch_limit = prefetch_limit
        if location is not None:
            self._client = AsyncQdrantClient(location=location)
        else:
            self._client = AsyncQdrantClient(url=url, api_key=api_key, timeout=int(timeout))

    async def _aliases(self) -> dict[str, str]:
        found = await self._client.get_aliases()
        return {a.alias_name: a.collection_name for a in found.aliases}

    async def open(self) -> None:
        with _backend(f"cannot open Qdrant collection {self._collection!r}"):
            aliases = {} if self._generation else await self._aliases()
            if self._collection in aliases:
                self._physical = aliases[self._collection]
            elif not await self._client.collection_exists(self._collection):
                if not self._generation:  # a first start: a generation and the alias onto it
                    self._physical = generation_name(self._collection)
                await self._client.create_collection(
                    self._physical,
                    vectors_config={
                        DENSE: models.VectorParams(size=self._dimension, distance=models.Distance.COSINE)
                    },
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
                if self._physical != self._collection:
                    await self._client.update_collection_aliases(
                        change_aliases_operations=[_create_alias(self._collection, self._physical)]
                    )
            with warnings.catch_warnings():
                # Local mode warns that payload indexes have no effect there; a server uses them.
                warnings.simplefilter("ignore", UserWarning)
                for name in KEYWORD_FIELDS:
                    await self._index(name, models.PayloadSchemaType.KEYWORD)
                for name in FLOAT_FIELDS:
                    await self._index(name, models.PayloadSchemaType.FLOAT)
                for name in INTEGER_FIELDS:
                    await self._index(name, models.PayloadSchemaType.INTEGER)

    async def _index(self, name: str, schema: models.PayloadSchemaType) -> None:
        await self._client.create_payload_index(self._physical, name, schema, wait=True)

    async def upsert(self, points: Sequence[Point]) -> None:
        if not points:
            return
        structs = [models.PointStruct(id=p.id, vector=_vectors(p), payload=p.payload) for p in points]
        with _backend("upsert failed"):
            await self._client.upsert(self._collection, points=structs, wait=True)

    @asynccontextmanager
    async def bulk(self) -> AsyncIterator[None]:
        """Nothing to defer: a Qdrant server optimises in the background, and writes never wait for it."""
        yield

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with _backend("delete failed"):
            await self._client.delete(self._collection, points_selector=models.PointIdsList(points=list(ids)))

    async def delete_where(self, flt: Filter) -> None:
        with _backend("delete failed"):
            await self._client.delete(
                self._collection, points_selector=models.FilterSelector(filter=_filter(flt))
            )

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
        payload: bool | list[str] = True if fields is None else list(fields)
        if mode == "sparse" and (sparse is None or not sparse.indices):
            return []  # a query of stop words only
        query: Any = dense
        using: str | None = DENSE
        prefetch: list[models.Prefetch] | None = None
        if mode != "dense" and sparse is not None and sparse.indices:
            sparse_q = models.SparseVector(indices=sparse.indices, values=sparse.values)
            if mode == "sparse":
                query, using = sparse_q, SPARSE
            else:
                pre = max(self.prefetch_limit, limit)
                query, using = models.RrfQuery(rrf=models.Rrf(k=self.rrf_k)), None
                prefetch = [
                    models.Prefetch(query=dense, using=DENSE, limit=pre, filter=f),
                    models.Prefetch(query=sparse_q, using=SPARSE, limit=pre, filter=f),
                ]
        with _backend("search failed"):
            res = await self._client.query_points(
                self._collection,
                prefetch=prefetch,
                query=query,
                using=using,
                query_filter=f,
                limit=limit,
                with_payload=payload,
            )
        return [Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in res.points]

    async def get(self, ids: Sequence[str]) -> list[Hit]:
        if not ids:
            return []
        with _backend("retrieve failed"):
            records = await self._client.retrieve(self._collection, ids=list(ids), with_payload=True)
        return [Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records]

    async def scroll(
        self, flt: Filter | None, limit: int, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        with _backend("scroll failed"):
            records, nxt = await self._client.scroll(
                self._collection,
                scroll_filter=_filter(flt) if flt else None,
                limit=limit,
                offset=offset,
                with_payload=True,
            )
        return [Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records], (
            str(nxt) if nxt is not None else None
        )

    async def count(self, flt: Filter | None = None) -> int:
        with _backend("count failed"):
            res = await self._client.count(
                self._collection, count_filter=_filter(flt) if flt else None, exact=True
            )
        return int(res.count)

    async def ping(self) -> bool:
        try:
            return bool(await self._client.collection_exists(self._collection))
        except Exception:
            return False

    async def close(self) -> None:
        await self._client.close()

    @property
    def physical_name(self) -> str:
        return self._physical

    async def promote(self, name: str) -> None:
        """Point the alias ``name`` at this collection: one atomic alias operation on the server."""
        with _backend(f"cannot switch {name!r} to {self._physical!r}"):
            aliases = await self._aliases()
            ops: list[models.CreateAliasOperation | models.DeleteAliasOperation] = []
            if name in aliases:
                ops.append(models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=name)))
            elif await self._client.collection_exists(name):
                # A collection from before aliases were used holds the name: it has to go first.
                logger.warning("replacing the collection %r by an alias (a moment without it)", name)
                await self._client.delete_collection(name)
            ops.append(_create_alias(name, self._physical))
            await self._client.update_collection_aliases(change_aliases_operations=ops)

    async def drop(self) -> None:
        try:
            with _backend(f"cannot delete collection {self._physical!r}"):
                await self._client.delete_collection(self._physical)
        finally:
            await self._client.close()

    async def drop_siblings(self, family: str) -> list[str]:
        with _backend("cannot list or delete old collections"):
            serving = (await self._aliases()).get(family)
            found = await self._client.get_collections()
            others = [
                c.name
                for c in found.collections
                if c.name.startswith(family + "@") and c.name not in (serving, self._physical)
            ]
            for name in others:
                await self._client.delete_collection(name)
        return others


@contextmanager
def _backend(failed: str) -> Iterator[None]:
    """Where Qdrant's exceptions become the store's, for every method: IndexUnavailableError saying
    what ``failed``, and why."""
    try:
        yield
    except Exception as exc:
        raise IndexUnavailableError(f"{failed}: {exc}") from exc


def _create_alias(alias: str, collection: str) -> models.CreateAliasOperation:
    return models.CreateAliasOperation(
        create_alias=models.CreateAlias(collection_name=collection, alias_name=alias)
    )


def _vectors(p: Point) -> dict[str, Any]:
    vectors: dict[str, Any] = {DENSE: p.dense}
    if p.sparse is not None and p.sparse.indices:
        vectors[SPARSE] = models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)
    return vectors


def _filter(flt: Filter) -> models.Filter:
    must: list[Any] = []
    must_not: list[Any] = []
    for key, values in equals_items(flt):
        if len(values) == 1:
            must.append(models.FieldCondition(key=key, match=models.MatchValue(value=values[0])))
        else:
            must.append(models.FieldCondition(key=key, match=models.MatchAny(any=values)))
    for key, values in exclude_items(flt):
        if len(values) == 1:
            must_not.append(models.FieldCondition(key=key, match=models.MatchValue(value=values[0])))
        else:
            must_not.append(models.FieldCondition(key=key, match=models.MatchAny(any=values)))
    if flt.fresh_at is not None:
        must_not.append(models.FieldCondition(key="valid_until", range=models.Range(lt=flt.fresh_at)))
    if flt.expired_at is not None:
        must.append(models.FieldCondition(key="valid_until", range=models.Range(lt=flt.expired_at)))
    if flt.scope == ():
        must.append(models.IsEmptyCondition(is_empty=models.PayloadField(key="user_scope")))
    elif flt.scope is not None:
        must.append(
            models.Filter(
                should=[
                    models.IsEmptyCondition(is_empty=models.PayloadField(key="user_scope")),
                    models.FieldCondition(key="user_scope", match=models.MatchAny(any=list(flt.scope))),
                ]
            )
        )
    if flt.places or flt.countries:
        # About one of these places, or about no one city (topic documents): a should of alternatives.
        focus: list[Any] = [models.IsEmptyCondition(is_empty=models.PayloadField(key="city_norm"))]
        if flt.places:
            focus.append(models.FieldCondition(key="city_norm", match=models.MatchAny(any=list(flt.places))))
        if flt.countries:
            focus.append(
                models.FieldCondition(key="country_code", match=models.MatchAny(any=list(flt.countries)))
            )
        must.append(models.Filter(should=focus))
    return models.Filter(must=must or None, must_not=must_not or None)
