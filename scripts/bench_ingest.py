"""Ingestion and search benchmark: ratios against baselines run in the same process.

    python scripts/bench_ingest.py [--copies 1] [--raw-sample N] [--profile 25]

- end-to-end seeding throughput (chunk, BM25, embed, upsert, record) vs raw `model.encode` on the same chunks,
  run before and after it; in wall-clock time and in this process's CPU time. ``--raw-sample N``
  encodes every k-th chunk for the baselines, at most N (raw encoding's rate does not depend on the
  corpus's size, so a large corpus need not be encoded three times)
- re-seeding an unchanged corpus vs the first seeding
- micro-batching: concurrent single queries vs one-at-a-time queries vs one batched encode
- search latency p50/p99, dense and hybrid (query embedding included), and index-only
- query embedding: the packaged torch model vs its int8 ONNX twin (the query backend), one query at a
  time, and how close their vectors are
- peak memory (max RSS)

``--profile N`` profiles the first seeding alone (no baselines, no searches), in every thread (the
model and the index run on executors), and prints the N entries with the most time of their own.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


async def run(
    data_dir: Path, docs: list[SourceDocument], questions: list[str], raw_sample: int | None = None
) -> dict[str, float]:
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
        step = -(-len(chunks) // raw_sample) if raw_sample else 1
        sample = chunks[::step]  # every k-th: the corpus's mix of lengths
        share = len(chunks) / len(sample)

        def raw() -> tuple[float, float]:
            start, cpu = time.perf_counter(), time.process_time()
            emb.encode_sync(sample)
            return (time.perf_counter() - start) * share, (time.process_time() - cpu) * share

        raw1, raw1_cpu = raw()
        start, cpu = time.perf_counter(), time.process_time()
        first = await p.ingestor.ingest(docs, origin="seed", prune=True)
        e2e, e2e_cpu = time.perf_counter() - start, time.process_time() - cpu
        # How often the embedded index optimised itself (flushed and rebuilt its search graph) meanwhile.
        out["index_optimisations"] = getattr(p.store, "compactions", 0)
        raw2, raw2_cpu = raw()
        raw_s = (raw1 + raw2) / 2
        assert first.chunks == len(chunks), (first.chunks, len(chunks))
        out["documents"] = len(docs)
        out["chunks"] = len(chunks)
        out["raw_sample_chunks"] = len(sample)
        out["raw_encode_chunks_per_s"] = len(chunks) / raw_s
        # How far the machine's load moved between the two baselines (1.0: not at all).
        out["raw_second_vs_first"] = raw1 / raw2
        out["e2e_ingest_chunks_per_s"] = len(chunks) / e2e
        out["e2e_vs_raw_ratio"] = raw_s / e2e
        # The same in this process's CPU seconds (all threads): steadier than the clock when other work
        # shares the cores, though it also counts the model's threads spinning between batches.
        out["e2e_vs_raw_cpu_ratio"] = (raw1_cpu + raw2_cpu) / 2 / e2e_cpu

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


@contextmanager
def thread_profiles() -> Iterator[list[cProfile.Profile]]:
    """A profiler in this thread and in every thread started from now on (executors start theirs lazily)."""
    profiles: list[cProfile.Profile] = []

    def start(*_: Any) -> None:
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.enable()  # replaces this hook in the new thread

    main = cProfile.Profile()
    profiles.append(main)
    threading.setprofile(start)
    main.enable()
    try:
        yield profiles
    finally:
        main.disable()
        threading.setprofile(None)  # type: ignore[arg-type]


async def profile_seeding(data_dir: Path, docs: list[SourceDocument], top: int) -> None:
    """Where the first seeding's time goes, in every thread, at this corpus size."""
    with thread_profiles() as profiles:
        async with open_parts(data_dir) as p:
            for profile in profiles:
                profile.clear()  # loading the model is not seeding
            start = time.perf_counter()
            counts = await p.ingestor.ingest(docs, origin="seed", prune=True)
            seconds = time.perf_counter() - start
            for profile in profiles:
                profile.create_stats()
            stats = pstats.Stats(*(profile for profile in profiles if profile.stats))  # type: ignore[attr-defined]
    print(f"{counts.chunks} chunks in {seconds:.1f} s ({counts.chunks / seconds:.1f} chunks/s)")
    for key in [k for k in stats.stats if k[2] in IDLE]:  # type: ignore[attr-defined]
        del stats.stats[key]  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(top)


# Threads waiting for work or for each other: time, but nobody's cost.
IDLE = {
    "<method 'get' of '_queue.SimpleQueue' objects>",
    "<method 'acquire' of '_thread.lock' objects>",
    "<method 'poll' of 'select.epoll' objects>",
}


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
    parser.add_argument("--profile", type=int, metavar="N", help="profile the first seeding; print N entries")
    parser.add_argument(
        "--raw-sample", type=int, metavar="N", help="encode at most N chunks for the baselines"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.profile:
            asyncio.run(profile_seeding(Path(tmp), corpus(args.copies), args.profile))
            return
        questions = [
            json.loads(x)["question"] for x in Path("tests/data/retrieval.jsonl").read_text().splitlines()
        ]
        results = asyncio.run(run(Path(tmp), corpus(args.copies), questions, args.raw_sample))
    width = max(map(len, results))
    for key, value in results.items():
        print(f"{key:{width}}  {value:10.3f}" if isinstance(value, float) else f"{key:{width}}  {value:10d}")


if __name__ == "__main__":
    main()
