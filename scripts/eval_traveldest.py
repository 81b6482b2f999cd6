"""Retrieval that generalises: nDCG@10 at city level on TravelDest (774 Wikivoyage city guides).

    python scripts/eval_traveldest.py [--data ../shared/data/traveldest-dev] [--cache DIR]
                                      [--depth 40,200] [--json FILE] [--index-only]

The corpus is chunked, embedded and indexed by the service's own pipeline (chunker, packaged model,
BM25 encoder, Qdrant Edge) into a data directory under ``--cache``. The pipeline skips documents
already indexed, so only the first run embeds (about 48,000 chunks; an hour or more on two busy
cores) and a rerun takes a minute. Queries are embedded as the service embeds them.

Scored, each from the same candidate lists (``--depth`` chunks per retriever): BM25 over whole
documents, each retriever alone with its chunks pooled per city, chunk-level RRF (what the index's
hybrid query does), per-document fusion (each retriever's chunks pooled per city first, then RRF
over the city rankings), and weighted variants; then the service's own retriever, as configured
and with document fusion. TravelDest is for evaluation only: nothing of it goes into the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from qdrant_edge import Bm25, Bm25Config  # noqa: E402

from rag.embedding.sparse import Bm25Encoder  # noqa: E402
from rag.ingest.documents import SourceDocument  # noqa: E402
from rag.ingest.progress import IngestProgress  # noqa: E402
from rag.retrieval.fusion import fuse_chunks, fuse_documents  # noqa: E402
from rag.retrieval.metrics import ndcg_at  # noqa: E402
from rag.retrieval.pooling import Pooling, rank_documents  # noqa: E402
from rag.retrieval.service import Retriever  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.base import Hit, Point  # noqa: E402
from rag.store.edge import EdgeStore  # noqa: E402
from scripts._common import Parts, open_parts  # noqa: E402

logger = logging.getLogger("eval_traveldest")

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "traveldest-dev"
DEFAULT_CACHE = Path.home() / ".cache" / "wayfarer" / "traveldest"
KS = (2, 3, 10, 60)
WEIGHTS = ((1.0, 1.0), (2.0, 1.0), (1.0, 2.0))


@dataclass
class Candidates:
    """One question's candidate lists, best first."""

    dense: list[Hit]
    sparse: list[Hit]
    whole: list[str]  # cities by BM25 over whole documents


def load_corpus(data: Path) -> list[SourceDocument]:
    docs = []
    with (data / "corpus.jsonl").open() as fh:
        for line in fh:
            row = json.loads(line)
            meta = {"title": row["title"], "source": "traveldest"}
            docs.append(SourceDocument(row["_id"], row["text"], meta))
    return docs


def load_questions(data: Path) -> list[tuple[str, str, set[str]]]:
    """(id, text, relevant cities) per question that has any relevant city."""
    relevant: dict[str, set[str]] = {}
    for line in (data / "qrels.tsv").read_text().splitlines()[1:]:
        qid, cid, score = line.split("\t")
        if int(score) > 0:
            relevant.setdefault(qid, set()).add(cid)
    rows = [json.loads(x) for x in (data / "queries.jsonl").read_text().splitlines() if x.strip()]
    return [(r["_id"], r["text"], relevant[r["_id"]]) for r in rows if r["_id"] in relevant]


def index_dir(cache: Path) -> Path:
    """One data directory per chunking and model, so changing either never mixes two indexes."""
    s = Settings()
    model = (s.embedding.model or "packaged").replace("/", "_")
    return cache / f"index-{model}-{s.index.chunk_tokens}-{s.index.chunk_overlap}"


async def build_index(parts: Parts, docs: list[SourceDocument]) -> None:
    start = time.perf_counter()
    logged = 0

    def progress(p: IngestProgress) -> None:
        nonlocal logged
        if p.done != logged and (p.done % 25 == 0 or p.done == p.total):
            logged = p.done
            logger.info("%s, %.0f s", p.describe(), time.perf_counter() - start)

    counts = await parts.ingestor.ingest(
        docs, origin="traveldest", progress=IngestProgress(len(docs), progress)
    )
    logger.info("index: %s, %d chunks", counts.as_dict(), await parts.store.count())


def bm25_length(text: str, k: float = 1.2) -> float:
    """A text's length in BM25 tokens: with b=0 a term's weight is tf*(k+1)/(tf+k), which we invert."""
    vec = Bm25(Bm25Config(k=k, b=0.0, language="english", ascii_folding=True)).embed_document(text)
    return sum(w * k / (k + 1 - w) for w in vec.values)


async def open_whole_documents(cache: Path, docs: list[SourceDocument], dimension: int) -> EdgeStore:
    """BM25 over whole documents: one point a city, length-normalised by the corpus's mean length."""
    store = EdgeStore(cache / "whole-documents", "bm25", dimension, rrf_k=60, prefetch_limit=40)
    await store.open()
    if await store.count() != len(docs):
        avg = statistics.fmean(bm25_length(d.text) for d in docs)
        encoder = Bm25Encoder(avg_len=avg)
        unit = [1.0] + [0.0] * (dimension - 1)  # unused: this store is searched in sparse mode only
        points = [
            Point(
                str(uuid.uuid5(uuid.NAMESPACE_URL, d.id)),
                unit,
                encoder.encode_document(d.text),
                {"document_id": d.id},
            )
            for d in docs
        ]
        for i in range(0, len(points), 100):
            await store.upsert(points[i : i + 100])
        logger.info("whole-document BM25 index: %d documents, mean length %.0f tokens", len(points), avg)
    return store


async def gather(
    parts: Parts, whole: EdgeStore, questions: list[tuple[str, str, set[str]]], depth: int
) -> list[Candidates]:
    out = []
    for _, text, _ in questions:
        vector = await parts.retriever.embed(text)
        sparse = parts.sparse.encode_query(text)
        dense_hits = await parts.store.search(vector, None, depth, mode="dense")
        sparse_hits = await parts.store.search(vector, sparse, depth, mode="sparse")
        whole_hits = await whole.search(vector, sparse, 100, mode="sparse")
        out.append(Candidates(dense_hits, sparse_hits, [str(h.payload["document_id"]) for h in whole_hits]))
    return out


Ranker = Callable[[Candidates], list[str]]
# (label, pooling, pool_chunks): a city by its best chunk, its best three summed, all its hits summed.
POOLINGS: tuple[tuple[str, Pooling, int], ...] = (
    ("best", "max", 1),
    ("top-3 sum", "sum", 3),
    ("sum", "sum", 10**6),
)


def cities(hits: Sequence[Hit]) -> list[str]:
    return [str(h.payload["document_id"]) for h in hits]


def whole_documents(c: Candidates) -> list[str]:
    return c.whole


def one_retriever(c: Candidates, sparse: bool, depth: int, pooling: Pooling, n: int) -> list[str]:
    return rank_documents((c.sparse if sparse else c.dense)[:depth], pooling, n)


def chunk_rrf(c: Candidates, depth: int, k: int) -> list[str]:
    """What the index's hybrid query does: RRF over chunks, then cities by their best fused chunk."""
    return rank_documents(fuse_chunks([c.dense[:depth], c.sparse[:depth]], k))


def document_rrf(
    c: Candidates, depth: int, k: int, w: tuple[float, float], pooling: Pooling, n: int
) -> list[str]:
    """Each retriever's chunks pooled per city first, then RRF over the two city rankings."""
    ranked = fuse_documents(
        [c.dense[:depth], c.sparse[:depth]], k=k, weights=w, pooling=pooling, pool_chunks=n, limit=10
    )
    return cities(ranked)


def configurations(depths: Sequence[int]) -> list[tuple[str, int, Ranker]]:
    """(name, depth, ranker): every way of ranking cities compared here."""
    rows: list[tuple[str, int, Ranker]] = [("BM25, whole documents", 0, whole_documents)]
    for d in depths:
        for label, p, n in POOLINGS[:2]:
            rows.append(
                (f"BM25 chunks, {label}", d, partial(one_retriever, sparse=True, depth=d, pooling=p, n=n))
            )
            rows.append(
                (f"dense chunks, {label}", d, partial(one_retriever, sparse=False, depth=d, pooling=p, n=n))
            )
        for k in KS:
            rows.append((f"hybrid, chunk RRF k={k}", d, partial(chunk_rrf, depth=d, k=k)))
        for label, p, n in POOLINGS:
            for k in KS:
                for w in WEIGHTS:
                    name = f"hybrid, document RRF ({label}) k={k}" + (
                        f" w={w[0]:g}:{w[1]:g}" if w != (1, 1) else ""
                    )
                    rows.append((name, d, partial(document_rrf, depth=d, k=k, w=w, pooling=p, n=n)))
    return rows


def score(
    ranker: Ranker, candidates: list[Candidates], questions: list[tuple[str, str, set[str]]]
) -> list[float]:
    return [ndcg_at(ranker(c), rel, 10) for c, (_, _, rel) in zip(candidates, questions, strict=True)]


# The service's retrieval before issue 12: the index's chunk-level RRF, k=3, 40 candidates, best chunk.
BEFORE = {"fusion": "chunk", "rrf_k": 3, "prefetch_limit": 40, "pooling": "max"}


async def service_score(parts: Parts, questions: list[tuple[str, str, set[str]]], **options: Any) -> float:
    """The service's own retriever with these index settings (the defaults if none), top 10 cities."""
    index = parts.settings.index.model_copy(update=options)
    store: Any = parts.store
    store.rrf_k, store.prefetch_limit = index.rrf_k, index.prefetch_limit
    retriever = Retriever.from_settings(parts.store, parts.embedder, parts.sparse, index)
    total = 0.0
    for _, text, rel in questions:
        vector = await parts.retriever.embed(text)  # the service's query embedder
        hits = await retriever.search(text, 10, vector=vector)
        total += ndcg_at(cities(hits), rel, 10)
    return total / len(questions)


async def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    docs = load_corpus(args.data)
    questions = load_questions(args.data)
    directory = index_dir(args.cache)
    directory.mkdir(parents=True, exist_ok=True)
    async with open_parts(directory) as parts:
        await build_index(parts, docs)
        if args.index_only:
            return {}
        whole = await open_whole_documents(args.cache, docs, parts.embedder.dimension)
        try:
            depths = [int(x) for x in args.depth.split(",")]
            start = time.perf_counter()
            candidates = await gather(parts, whole, questions, max(depths))
            logger.info("candidates for %d questions in %.1f s", len(questions), time.perf_counter() - start)
        finally:
            await whole.close()
        results = []
        for name, depth, ranker in configurations(depths):
            per_question = score(ranker, candidates, questions)
            results.append({"name": name, "depth": depth, "ndcg@10": statistics.fmean(per_question)})
        s = parts.settings.index
        pooled = f"top-{s.pool_chunks} sum" if s.pooling == "sum" else "best chunk"
        service = {
            "before: chunk RRF k=3, 40 candidates, best chunk": await service_score(
                parts, questions, **BEFORE
            ),
            f"now: {s.fusion} RRF k={s.rrf_k}, {s.prefetch_limit} candidates, {pooled}": await service_score(
                parts, questions
            ),
        }
        return {
            "questions": len(questions),
            "documents": len(docs),
            "chunks": await parts.store.count(),
            "results": results,
            "service": service,
        }


def report(out: dict[str, Any]) -> None:
    print(
        f"TravelDest dev: {out['questions']} questions, {out['documents']} city guides, {out['chunks']} chunks"
    )
    print(f"{'ranking':48} {'depth':>5} {'nDCG@10':>8}")
    rows = out["results"]
    for r in rows:
        if " w=" not in r["name"] and " (sum) " not in r["name"]:
            print(f"{r['name']:48} {r['depth'] or '-':>5} {r['ndcg@10']:8.3f}")
    print("\nthe best ten (all sums and weights included):")
    for r in sorted(rows, key=lambda r: -r["ndcg@10"])[:10]:
        print(f"{r['name']:48} {r['depth'] or '-':>5} {r['ndcg@10']:8.3f}")
    print("\nthe service's retriever, top 10 cities:")
    for name, value in out["service"].items():
        print(f"{name:54} {value:8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="the BEIR folder (corpus, queries, qrels)"
    )
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="where the index is kept between runs"
    )
    parser.add_argument(
        "--depth", default="40,200", help="chunks each retriever hands to fusion, comma-separated"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this file")
    parser.add_argument("--index-only", action="store_true", help="build or complete the index, then stop")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in ("rag", "sentence_transformers", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)
    out = asyncio.run(evaluate(args))
    if not out:
        return
    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
