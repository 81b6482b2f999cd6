"""The vector index seam and its value types."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rag.embedding.base import SparseVector

DENSE = "dense"
SPARSE = "bm25"

# Payload fields we filter by; each backend creates an index on them at start.
KEYWORD_FIELDS = ("kind", "source", "city_norm", "country_code", "iata", "user_scope", "document_id")
FLOAT_FIELDS = ("valid_until", "fetched_at")
INTEGER_FIELDS = ("chunk_index",)

FilterValue = str | int | bool


@dataclass(frozen=True, slots=True)
class Point:
    id: str
    dense: list[float]
    sparse: SparseVector | None
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Filter:
    """Conjunction of exact matches (a sequence means any of), exclusions, with freshness.

    ``fresh_at``: drop points whose ``valid_until`` is before this epoch time;
    points without ``valid_until`` (seed documents) never expire.
    """

    equals: Mapping[str, FilterValue | Sequence[FilterValue]] = field(default_factory=dict)
    # Points matching any of these exact matches are left out (``{"source": "live"}``: documents only).
    # A point without the key is kept.
    exclude: Mapping[str, FilterValue | Sequence[FilterValue]] = field(default_factory=dict)
    fresh_at: float | None = None
    expired_at: float | None = None  # only points with valid_until before this (for purging)
    # Only points without a user_scope (documents) or with one of these (a user's own live results);
    # ``()``: documents alone (every stored tool result has a user_scope, anonymous calls included).
    scope: tuple[str, ...] | None = None
    # Place focus: points about one of these cities (``city_norm``) or countries (``country_code``),
    # or about no one city (topic documents). Both empty: no restriction.
    places: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    score: float
    payload: dict[str, Any]


# hybrid: dense and sparse fused with RRF; dense or sparse: that retriever alone.
SearchMode = Literal["hybrid", "dense", "sparse"]


class VectorStore(Protocol):
    """Points with a dense and a BM25 sparse vector and a JSON payload."""

    async def open(self) -> None:
        """Create the collection and payload indexes if missing."""
        ...

    async def upsert(self, points: Sequence[Point]) -> None:
        """Insert or replace points, as one operation."""
        ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    def bulk(self) -> AbstractAsyncContextManager[None]:
        """Writes inside are one bulk load (a seeding run): an index that optimises itself only when told
        (the embedded one) defers that to the end, once, instead of rebuilding its search graph as it
        grows. Nothing else changes: every write is searchable as soon as it returns."""
        ...

    async def delete_where(self, flt: Filter) -> None: ...

    async def search(
        self,
        dense: list[float],
        sparse: SparseVector | None,
        limit: int,
        flt: Filter | None = None,
        mode: SearchMode = "hybrid",
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Best first; hybrid fuses dense and sparse rankings with RRF.

        ``sparse`` mode with no sparse vector (a query of stop words only) finds nothing.
        ``fields``: only these payload keys (reading whole payloads is most of a long search's cost).
        """
        ...

    async def get(self, ids: Sequence[str]) -> list[Hit]:
        """Points by id (score 0), missing ids skipped."""
        ...

    async def scroll(
        self, flt: Filter | None, limit: int, offset: str | None = None
    ) -> tuple[list[Hit], str | None]: ...

    async def count(self, flt: Filter | None = None) -> int: ...

    async def ping(self) -> bool:
        """Whether the index answers (for readiness)."""
        ...

    async def close(self) -> None: ...

    # Generations: a full rebuild fills a new collection, then points the serving name at it.

    @property
    def physical_name(self) -> str:
        """This collection's own name (a generation such as ``wayfarer@1763772000``)."""
        ...

    async def promote(self, name: str) -> None:
        """Make ``name`` refer to this collection, atomically and durably (an alias or a pointer file)."""
        ...

    async def drop(self) -> None:
        """Close this collection and delete its data."""
        ...

    async def drop_siblings(self, family: str) -> list[str]:
        """Delete the other generations of ``family`` (left by an interrupted rebuild); their names."""
        ...


def generation_name(family: str) -> str:
    """A new generation's name: the family, ``@``, and a time stamp in milliseconds."""
    return f"{family}@{time.time_ns() // 1_000_000}"


def equals_items(flt: Filter) -> list[tuple[str, list[FilterValue]]]:
    """The filter's exact matches as (key, allowed values)."""
    return _items(flt.equals)


def exclude_items(flt: Filter) -> list[tuple[str, list[FilterValue]]]:
    """The filter's exclusions as (key, values that leave a point out)."""
    return _items(flt.exclude)


def _items(matches: Mapping[str, FilterValue | Sequence[FilterValue]]) -> list[tuple[str, list[FilterValue]]]:
    out: list[tuple[str, list[FilterValue]]] = []
    for key, value in matches.items():
        values = [value] if isinstance(value, str | int | bool) else list(value)
        out.append((key, values))
    return out
