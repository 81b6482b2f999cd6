"""Retrieval quality on a labelled question set: recall@5 and MRR@10, dense vs hybrid.

    python scripts/eval_retrieval.py [--data FILE [FILE ...]] [--rrf-k 2,10,30,60] [--pooling max,sum]
                                     [--fusion chunk,document] [--weights 1:1,2:1]

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


async def evaluate(
    rows: list[dict[str, Any]],
    data_dir: Path,
    ks: list[int],
    poolings: list[str],
    fusions: list[str],
    weights: list[tuple[float, float]],
) -> list[dict[str, Any]]:
    async with open_parts(data_dir) as parts:
        counts = await seed_directory(parts.ingestor, parts.settings.index.seed_dir)
        print(
            f"corpus: {counts.added + counts.updated + counts.skipped} documents, {await parts.store.count()} chunks"
        )
        vectors = [await parts.retriever.embed(row["question"]) for row in rows]  # the service's query model
        configs: list[tuple[SearchMode, int | None, str, str, tuple[float, float]]] = [
            ("dense", None, p, "-", (1.0, 1.0)) for p in poolings
        ]
        configs += [
            ("hybrid", k, p, f, w)
            for f in fusions
            for k in ks
            for p in poolings
            for w in (weights if f == "document" else [(1.0, 1.0)])
        ]
        results = []
        for mode, k, pooling, fusion, w in configs:
            update: dict[str, Any] = {"pooling": pooling, "dense_weight": w[0], "sparse_weight": w[1]}
            if k is not None:
                update["rrf_k"] = k
                parts.store.rrf_k = k  # type: ignore[attr-defined]
            if fusion != "-":
                update["fusion"] = fusion
            index = parts.settings.index.model_copy(update=update)
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
            results.append(
                {
                    "mode": mode,
                    "fusion": fusion,
                    "rrf_k": k,
                    "weights": f"{w[0]:g}:{w[1]:g}" if fusion == "document" else "-",
                    "pooling": pooling,
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
    parser.add_argument("--rrf-k", default="60", help="comma-separated RRF k values to compare")
    parser.add_argument("--pooling", default="max", help="comma-separated: max,sum")
    parser.add_argument("--fusion", default="chunk,document", help="comma-separated: chunk,document")
    parser.add_argument(
        "--weights", default="1:1", help="dense:sparse RRF weights of document fusion, comma-separated"
    )
    args = parser.parse_args()
    ks = [int(k) for k in args.rrf_k.split(",")]
    poolings = args.pooling.split(",")
    fusions = args.fusion.split(",")
    weights = [(float(w.split(":")[0]), float(w.split(":")[1])) for w in args.weights.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [json.loads(line) for f in args.data for line in f.read_text().splitlines() if line.strip()]
        results = asyncio.run(evaluate(rows, args.data_dir or Path(tmp), ks, poolings, fusions, weights))
    print(
        f"{'mode':7} {'fusion':8} {'rrf_k':>5} {'weights':>7} {'pooling':7} {'recall@5':>8} {'mrr@10':>7} "
        f"{'p50 ms':>7} {'p99 ms':>7}"
    )
    for r in results:
        print(
            f"{r['mode']:7} {r['fusion']:8} {str(r['rrf_k'] or '-'):>5} {r['weights']:>7} {r['pooling']:7} "
            f"{r['recall@5']:8.3f} {r['mrr@10']:7.3f} {r['p50_ms']:7.1f} {r['p99_ms']:7.1f}"
        )


if __name__ == "__main__":
    main()
