"""BM25 sparse vectors from Qdrant Edge's own tokenizer and stemmer.

Documents get BM25 term-frequency weights; the index applies IDF (the sparse
vector is configured with the IDF modifier), so the same vectors serve the
embedded shard and a Qdrant server.
"""

from __future__ import annotations

from qdrant_edge import Bm25, Bm25Config

from rag.embedding.base import SparseVector


class Bm25Encoder:
    def __init__(self, avg_len: float = 120.0) -> None:
        self._model = Bm25(Bm25Config(language="english", avg_len=avg_len, ascii_folding=True))

    def encode_document(self, text: str) -> SparseVector:
        vec = self._model.embed_document(text)
        return SparseVector(list(vec.indices), list(vec.values))

    def encode_query(self, text: str) -> SparseVector:
        vec = self._model.embed_query(text)
        return SparseVector(list(vec.indices), [float(v) for v in vec.values])
