"""Build the configured embedders."""

from __future__ import annotations

from rag.embedding.base import Embedder, SparseEncoder
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


def create_sparse_encoder(settings: Settings) -> SparseEncoder:
    from rag.embedding.sparse import Bm25Encoder

    return Bm25Encoder()
