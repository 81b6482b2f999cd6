"""Retrieval quality on a labelled question set: recall@5 and MRR@10, dense vs hybrid.

    python scripts/eval_retrieval.py [--data FILE [FILE ...]] [--rrf-k 2,10,30,60] [--pooling max,sum]
                                     [--fusion chunk,document] [--candidates 40,200] [--weights 1:1,2:1]

Each line of the data file: {"question": str, "relevant": [document ids]}. The seed corpus is
seeded into a temporary data directory (or --data-dir) with the service's own pipeline.
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

from rag.ingest.seeding import seed_directory  # noqa: E402
from rag.retrieval.metrics import percentile, recall_at, reciprocal_rank  # noqa: E402
from rag.retrieval.service import Retriever  # noqa: E402
from rag.store.base import SearchMode  # noqa: E402
from scripts._common import open_parts  # noqa: E402

Config = dict[str, Any]  # index settings to override, plus "mode"


def configurations(
    ks: list[int],
    poolings: list[str],
    fusions: list[str],
    weights: list[tuple[float, float]],
    depths: list[int],
) -> list[Config]:
    configs: list[Config] = [{"mode": "dense", "pooling": p} for p in poolings]
    for fusion in fusions:
        for k in ks:
            for depth in depths:
                for pooling in poolings:
                    for w in weights if fusion == "document" else [(1.0, 1.0)]:
                        configs.append(
                            {
                                "mode": "hybrid",
                                "fusion": fusion,
                                "rrf_k": k,
                                "prefetch_limit": depth,
                                "pooling": pooling,
                                "dense_weight": w[0],
                                "sparse_weight": w[1],
                            }
                        )
    return configs


async def evaluate(rows: list[dict[str, Any]], data_dir: Path, configs: list[Config]) -> list[dict[str, Any]]:
    async with open_parts(data_dir) as parts:
        counts = await seed_directory(parts.ingestor, parts.settings.index.seed_dir)
        print(
            f"corpus: {counts.added + counts.updated + counts.skipped} documents, {await parts.store.count()} chunks"
        )
        vectors = [await parts.retriever.embed(row["question"]) for row in rows]  # the service's query model
        results = []
        for config in configs:
            options = dict(config)
            mode: SearchMode = options.pop("mode")
            index = parts.settings.index.model_copy(update=options)
            store: Any = parts.store
            store.rrf_k, store.prefetch_limit = index.rrf_k, index.prefetch_limit
            retriever = Retriever.from_settings(parts.store, parts.embedder, parts.sparse, index)
            recalls, rrs, latencies = [], [], []
            for row, vector in zip(rows, vectors, strict=True):
                start = time.perf_counter()
                hits = await retriever.search(row["question"], 10, mode=mode, vector=vector)
                latencies.append((time.perf_counter() - start) * 1000)
                ranked = [str(h.payload["document_id"]) for h in hits]
                relevant = set(row["relevant"])
                recalls.append(recall_at(ranked, relevant, 5))
                rrs.append(reciprocal_rank(ranked, relevant, 10))
            hybrid = mode == "hybrid"
            results.append(
                {
                    "mode": mode,
                    "fusion": index.fusion if hybrid else "-",
                    "rrf_k": index.rrf_k if hybrid else "-",
                    "candidates": index.prefetch_limit if hybrid else "-",
                    "pooling": f"sum{index.pool_chunks}" if index.pooling == "sum" else "max",
                    "weights": f"{index.dense_weight:g}:{index.sparse_weight:g}" if hybrid else "-",
                    "recall@5": sum(recalls) / len(rows),
                    "mrr@10": sum(rrs) / len(rows),
                    "p50_ms": percentile(latencies, 0.5),
                    "p99_ms": percentile(latencies, 0.99),
                }
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=[Path("tests/data/retrieval.jsonl")],
        help="one or more labelled files, evaluated together",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="reuse an index (default: a fresh temporary one)"
    )
    parser.add_argument("--rrf-k", default="3", help="comma-separated RRF k values to compare")
    parser.add_argument("--pooling", default="max,sum", help="comma-separated: max,sum (sum: of the best 3)")
    parser.add_argument("--fusion", default="chunk,document", help="comma-separated: chunk,document")
    parser.add_argument("--candidates", default="40,200", help="chunks each retriever hands to fusion")
    parser.add_argument(
        "--weights", default="1:1", help="dense:sparse RRF weights of document fusion, comma-separated"
    )
    args = parser.parse_args()
    configs = configurations(
        [int(k) for k in args.rrf_k.split(",")],
        args.pooling.split(","),
        args.fusion.split(","),
        [(float(w.split(":")[0]), float(w.split(":")[1])) for w in args.weights.split(",")],
        [int(d) for d in args.candidates.split(",")],
    )
    with tempfile.TemporaryDirectory() as tmp:
        rows = [json.loads(line) for f in args.data for line in f.read_text().splitlines() if line.strip()]
        results = asyncio.run(evaluate(rows, args.data_dir or Path(tmp), configs))
    header = ("mode", "fusion", "rrf_k", "candidates", "pooling", "weights")
    print(" ".join(f"{h:>10}" for h in header), f"{'recall@5':>8} {'mrr@10':>7} {'p50 ms':>7} {'p99 ms':>7}")
    for r in results:
        print(
            " ".join(f"{r[h]!s:>10}" for h in header),
            f"{r['recall@5']:8.3f} {r['mrr@10']:7.3f} {r['p50_ms']:7.1f} {r['p99_ms']:7.1f}",
        )


if __name__ == "__main__":
    main()
