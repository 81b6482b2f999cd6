"""Ingestion and search benchmark: ratios against baselines run in the same process.

    python scripts/bench_ingest.py [--copies 1]

- end-to-end seeding throughput (chunk, BM25, embed, upsert, record) vs raw `model.encode` on the same chunks
- re-seeding an unchanged corpus vs the first seeding
- micro-batching: concurrent single queries vs one-at-a-time queries vs one batched encode
- search latency p50/p99, dense and hybrid (query embedding included), and index-only
- query embedding: the packaged torch model vs its int8 ONNX twin (the query backend), one query at a
  time, and how close their vectors are
- peak memory (max RSS)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.ingest.chunking import chunk_markdown  # noqa: E402
from rag.ingest.documents import SourceDocument  # noqa: E402
from rag.ingest.seeding import load_documents  # noqa: E402
from rag.retrieval.metrics import percentile  # noqa: E402
from rag.settings import SEED_DIR  # noqa: E402
from rag.store.base import Filter  # noqa: E402
from scripts._common import open_parts, peak_rss_mib  # noqa: E402


def corpus(copies: int) -> list[SourceDocument]:
    base = load_documents([SEED_DIR])
    return [
        SourceDocument(f"{d.id}~{i}" if i else d.id, d.text, d.metadata) for i in range(copies) for d in base
    ]


async def run(data_dir: Path, docs: list[SourceDocument], questions: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    async with open_parts(data_dir) as p:
        emb = p.embedder
        idx = p.settings.index
        chunks = [
            c.text
            for d in docs
            for c in chunk_markdown(
                d.text,
                d.title,
                max_tokens=idx.chunk_tokens,
                overlap=idx.chunk_overlap,
                count_tokens=emb.count_tokens,
            )
        ]
        emb.encode_sync(chunks[:64])  # warm-up

        def raw() -> float:
            start = time.perf_counter()
            emb.encode_sync(chunks)
            return time.perf_counter() - start

        raw1 = raw()
        start = time.perf_counter()
        first = await p.ingestor.ingest(docs, origin="seed", prune=True)
        e2e = time.perf_counter() - start
        raw2 = raw()
        raw_s = (raw1 + raw2) / 2
        assert first.chunks == len(chunks), (first.chunks, len(chunks))
        out["documents"] = len(docs)
        out["chunks"] = len(chunks)
        out["raw_encode_chunks_per_s"] = len(chunks) / raw_s
        out["e2e_ingest_chunks_per_s"] = len(chunks) / e2e
        out["e2e_vs_raw_ratio"] = raw_s / e2e

        start = time.perf_counter()
        again = await p.ingestor.ingest(docs, origin="seed", prune=True)
        reseed = time.perf_counter() - start
        assert again.skipped == len(docs)
        out["first_seed_s"] = e2e
        out["unchanged_reseed_s"] = reseed
        out["reseed_speedup"] = e2e / reseed

        # Micro-batching: the same 256 queries three ways.
        qs = [f"{q} ({i})" for i, q in enumerate((questions * 4)[:256])]
        start = time.perf_counter()
        for q in qs[:64]:
            await emb.embed_query(q)
        sequential_qps = 64 / (time.perf_counter() - start)
        start = time.perf_counter()
        await asyncio.gather(*(emb.embed_query(q) for q in qs))
        concurrent_qps = len(qs) / (time.perf_counter() - start)
        start = time.perf_counter()
        emb.encode_sync(qs)
        batch_qps = len(qs) / (time.perf_counter() - start)
        out["query_seq_per_s"] = sequential_qps
        out["query_concurrent_per_s"] = concurrent_qps
        out["query_batch_per_s"] = batch_qps
        out["concurrent_vs_batch_ratio"] = concurrent_qps / batch_qps

        for mode in ("dense", "hybrid"):
            lat = []
            for q in questions:
                start = time.perf_counter()
                await p.retriever.search(q, 5, mode=mode)
                lat.append((time.perf_counter() - start) * 1000)
            out[f"search_{mode}_p50_ms"] = percentile(lat, 0.5)
            out[f"search_{mode}_p99_ms"] = percentile(lat, 0.99)
        # Index only: vectors computed beforehand, a filtered (freshness) query as the service sends.
        vectors = await emb.embed_documents(questions)
        for mode in ("dense", "hybrid"):
            lat = []
            for q, v in zip(questions, vectors, strict=True):
                sparse = p.sparse.encode_query(q) if mode == "hybrid" else None
                start = time.perf_counter()
                await p.store.search(v, sparse, 20, Filter(fresh_at=time.time()), mode)  # type: ignore[arg-type]
                lat.append((time.perf_counter() - start) * 1000)
            out[f"index_{mode}_p50_ms"] = percentile(lat, 0.5)
            out[f"index_{mode}_p99_ms"] = percentile(lat, 0.99)
        out.update(await query_embedders(emb, questions))
    out["peak_rss_mib"] = peak_rss_mib()
    return out


async def query_embedders(torch_embedder: Any, questions: list[str]) -> dict[str, float]:
    """Single-query latency of the torch model and of the int8 ONNX query model, and their agreement."""
    from rag.embedding.onnx import OnnxEmbedder
    from rag.settings import EmbeddingSettings

    onnx = await OnnxEmbedder.load(EmbeddingSettings())
    try:
        onnx.encode_sync(questions[:4])  # warm-up
        timings = {}
        for name, model in (("torch", torch_embedder), ("onnx_int8", onnx)):
            lat = []
            for q in questions:
                start = time.perf_counter()
                model.encode_sync([q])
                lat.append((time.perf_counter() - start) * 1000)
            timings[f"query_{name}_p50_ms"] = percentile(lat, 0.5)
        a, b = torch_embedder.encode_sync(questions), onnx.encode_sync(questions)
        cosines = [sum(x * y for x, y in zip(u, v, strict=True)) for u, v in zip(a, b, strict=True)]
        timings["query_onnx_vs_torch_min_cosine"] = min(cosines)
        return timings
    finally:
        await onnx.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--copies", type=int, default=1, help="ingest the seed corpus this many times over")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        questions = [
            json.loads(x)["question"] for x in Path("tests/data/retrieval.jsonl").read_text().splitlines()
        ]
        results = asyncio.run(run(Path(tmp), corpus(args.copies), questions))
    width = max(map(len, results))
    for key, value in results.items():
        print(f"{key:{width}}  {value:10.3f}" if isinstance(value, float) else f"{key:{width}}  {value:10d}")


if __name__ == "__main__":
    main()
