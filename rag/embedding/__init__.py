"""Dense (sentence-transformers) and sparse (BM25) text embeddings."""
