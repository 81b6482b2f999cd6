"""The embedder seam: what the index and the ingestion pipeline need from a model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class SparseVector:
    indices: list[int]
    values: list[float]


class Embedder(Protocol):
    """A dense text embedder whose model work never runs on the event loop."""

    @property
    def dimension(self) -> int: ...

    @property
    def name(self) -> str: ...

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed many texts in batches (ingestion)."""
        ...

    async def embed_query(self, text: str) -> list[float]:
        """Embed one query; concurrent calls are batched together."""
        ...

    def count_tokens(self, text: str) -> int:
        """Model tokens in ``text`` (without special tokens), for chunk sizing."""
        ...

    async def close(self) -> None: ...


class SparseEncoder(Protocol):
    """A lexical (BM25-style) encoder; the index applies IDF."""

    def encode_document(self, text: str) -> SparseVector: ...

    def encode_query(self, text: str) -> SparseVector: ...
