"""Retrieval quality over the whole seed corpus with the real model: hybrid must find the answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.ingest.pipeline import Ingestor
from rag.ingest.seeding import seed_directory
from rag.kv.sqlite import SQLiteKV
from rag.retrieval.metrics import recall_at, reciprocal_rank
from rag.retrieval.service import Retriever
from rag.settings import SEED_DIR, Settings
from rag.store.edge import EdgeStore

DATA = Path(__file__).parent / "data"


@pytest.mark.slow  # embeds the whole seed corpus
@pytest.mark.timeout(300)
async def test_hybrid_retrieval_quality(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    defaults = Settings().index
    rows = [json.loads(x) for f in ("retrieval.jsonl", "retrieval_hard.jsonl") for x in (DATA / f).open()]
    assert len(rows) >= 100
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    store = EdgeStore(tmp_path / "index", "q", embedder.dimension, defaults.rrf_k, defaults.prefetch_limit)
    await store.open()
    sparse = Bm25Encoder()
    try:
        ingestor = Ingestor(
            store, embedder, sparse, kv, max_tokens=defaults.chunk_tokens, overlap=defaults.chunk_overlap
        )
        await seed_directory(ingestor, SEED_DIR)
        retriever = Retriever.from_settings(store, embedder, sparse, defaults)  # the service's fusion
        scores = {}
        for mode in ("dense", "hybrid"):
            recall = mrr = 0.0
            for row in rows:
                hits = await retriever.search(row["question"], 10, mode=mode)
                ranked = [str(h.payload["document_id"]) for h in hits]
                recall += recall_at(ranked, set(row["relevant"]), 5)
                mrr += reciprocal_rank(ranked, set(row["relevant"]))
            scores[mode] = (recall / len(rows), mrr / len(rows))
    finally:
        await store.close()
        await kv.close()
    # Measured 0.960 / 0.901 (hybrid, document fusion) and 0.868 / 0.823 (dense); a regression of a few
    # questions fails. Chunk fusion (40 candidates, best chunk), the default before issue 12: 0.946 / 0.901.
    assert scores["hybrid"][0] >= 0.92 and scores["hybrid"][1] >= 0.85, scores
    assert scores["hybrid"][0] > scores["dense"][0], scores
