"""Build the configured embedders."""

from __future__ import annotations

from rag.embedding.base import Embedder, SparseEncoder
from rag.settings import Settings


async def create_embedder(settings: Settings) -> Embedder:
    from rag.embedding.sentence_transformer import SentenceTransformerEmbedder

    return await SentenceTransformerEmbedder.load(settings.embedding)


def create_sparse_encoder(settings: Settings) -> SparseEncoder:
    from rag.embedding.sparse import Bm25Encoder

    return Bm25Encoder()
