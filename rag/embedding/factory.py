"""Build the configured embedders."""

from __future__ import annotations

from collections.abc import Callable

from rag.embedding.base import Embedder, SparseEncoder
from rag.kv.base import KVStore
from rag.settings import Settings


async def create_embedder(settings: Settings) -> Embedder:
    from rag.embedding.sentence_transformer import SentenceTransformerEmbedder

    return await SentenceTransformerEmbedder.load(settings.embedding)


async def create_query_embedder(settings: Settings, documents: Embedder) -> Embedder:
    """The embedder for queries: the int8 ONNX twin of the document model, or the document embedder itself."""
    if settings.embedding.query_backend == "same" or settings.embedding.model is not None:
        return documents  # a custom model has no ONNX twin
    from rag.embedding.onnx import OnnxEmbedder

    return await OnnxEmbedder.load(settings.embedding)


async def create_live_embedder(
    settings: Settings,
    documents: Embedder,
    query: Embedder,
    kv: KVStore,
    count: Callable[[str, int], None] | None = None,
) -> tuple[Embedder, Embedder | None]:
    """The embedder that writes tool results: a background copy of the query model (its own thread,
    which yields the cores to requests, so a query never waits behind a write), behind a vector cache
    keyed on content. Also what to close when done (the copy), if one was made."""
    own: Embedder | None = None
    inner = documents
    if query is not documents:
        from rag.embedding.onnx import OnnxEmbedder

        own = inner = await OnnxEmbedder.load(settings.embedding, background=True)
    live = settings.live
    if live.vector_cache_entries == 0:
        return inner, own
    from rag.embedding.cache import CachedEmbedder

    shared = kv if live.vector_cache_shared else None
    return CachedEmbedder(inner, live.vector_cache_entries, shared, count=count), own


def create_sparse_encoder(settings: Settings) -> SparseEncoder:
    from rag.embedding.sparse import Bm25Encoder

    return Bm25Encoder()
