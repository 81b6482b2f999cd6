"""The embedded index's own costs: CPU per query by search threads, and what a search graph costs and
buys: how long optimising stops the whole process, and a filtered query's CPU with and without one.

    python scripts/bench_index.py [--points 48000] [--documents 5000] [--add 7000] [--rounds 2]
                                  [--threads 1,2,4] [--graph-kb 10000,0]

A Qdrant Edge shard configured as rag.store.edge configures it (``shard_config``), with the payload
indexes the service filters on, holding ``--points`` random unit vectors
(fixed seed): ``--documents`` of them documents, the rest tool results of 2,000 users (``user_scope``,
``source`` "live", a ``valid_until``). Random vectors are not text embeddings: what is measured is the
engine's work, which depends on how many vectors there are and which ones a filter keeps, not on what
they mean.

- Search threads (Edge's ``max_search_threads``, ``WAYFARER_INDEX__SEARCH_THREADS``), no search graph
  (the default), with 500 results
  written since the last optimisation (as a serving index always has: tool results arrive between
  optimisations): the CPU time of one nearest-neighbour query of 10 over the documents, averaged over
  200 (the process's CPU, so the threads a query fans out to are counted).
- For each of ``--graph-kb`` (the vector kilobytes past which a segment gets an HNSW graph,
  ``WAYFARER_INDEX__GRAPH_THRESHOLD_KB``; 0: never; 10000 is Edge's default): the first optimisation,
  then ``--rounds`` times ``--add`` more results, a flush and an optimisation as rag.store.edge runs
  one. Meanwhile a Python thread wakes every millisecond; the longest it waited is how long the
  optimisation held Python's lock, during which nothing else in the process (the event loop, every
  request) runs. Then each query's CPU, with the filters rag.store.edge builds: the documents alone
  (what the chat's knowledge answers search), the documents and one user's results (``/v1/search``
  with a user), and the documents as an exclusion of tool results (how "documents alone" was asked
  before this script).
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np
import qdrant_edge as qe

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.store.base import DENSE, Filter  # noqa: E402
from rag.store.edge import _filter, shard_config  # noqa: E402

DIM = 384
USERS = 2000
VALID_UNTIL = 4e9  # far ahead: nothing expires while measured


def config(threads: int, graph_kb: int) -> qe.EdgeConfig:
    return shard_config(DIM, threads, graph_kb)


def shard(path: str, threads: int, graph_kb: int) -> qe.EdgeShard:
    s = qe.EdgeShard.create(path, config(threads, graph_kb))
    for name in ("source", "user_scope"):
        s.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
    s.update(qe.UpdateOperation.create_field_index("valid_until", qe.PayloadSchemaType.Float))
    return s


def fill(s: qe.EdgeShard, rng: np.random.Generator, n: int, documents: int = 0) -> None:
    for start in range(0, n, 1000):
        vectors = rng.standard_normal((min(1000, n - start), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        points = []
        for i, v in enumerate(vectors):
            if start + i < documents:
                payload: dict[str, object] = {"source": "seed", "valid_until": VALID_UNTIL}
            else:
                payload = {"source": "live", "user_scope": f"u{i % USERS}", "valid_until": VALID_UNTIL}
            points.append(qe.Point(str(uuid.uuid4()), {DENSE: v.tolist()}, payload))
        s.update(qe.UpdateOperation.upsert_points(points))


def query_cpu_ms(s: qe.EdgeShard, rng: np.random.Generator, flt: Filter, n: int = 200) -> float:
    q = rng.standard_normal(DIM).astype(np.float32).tolist()
    request = qe.QueryRequest(query=qe.Query.Nearest(q, using=DENSE), limit=10, filter=_filter(flt))
    for _ in range(20):
        s.query(request)
    began = time.process_time()
    for _ in range(n):
        s.query(request)
    return (time.process_time() - began) / n * 1000


def longest_pause(fn: Callable[[], None]) -> tuple[float, float]:
    """``fn``'s wall time and the longest a thread waking every millisecond waited meanwhile (s)."""
    gaps: list[float] = []
    done = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    began = time.perf_counter()
    try:
        fn()
    finally:
        took = time.perf_counter() - began
        done.set()
        ticker.join()
    return took, max(gaps, default=0.0)


def optimise(s: qe.EdgeShard) -> None:
    s.flush()
    s.optimize()


def main(args: argparse.Namespace) -> None:
    now = time.time()
    filters = {
        "documents": Filter(scope=(), fresh_at=now),
        "documents and one user's results": Filter(scope=("u7",), fresh_at=now),
        "documents, as an exclusion of results": Filter(exclude={"source": "live"}, fresh_at=now),
    }
    print(
        f"{args.points} points ({args.documents} documents), then {args.rounds} rounds of {args.add} results\n"
    )
    print("| search threads | CPU ms per query (documents) |\n| --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        s = shard(tmp, 1, 0)
        fill(s, rng, args.points, args.documents)
        optimise(s)
        fill(s, rng, 500)
        s.close()
        for t in [int(t) for t in args.threads.split(",")]:
            reopened = qe.EdgeShard.load(tmp, config(t, 0))
            print(f"| {t} | {query_cpu_ms(reopened, rng, filters['documents']):.2f} |", flush=True)
            reopened.close()
    print("\n| graph past KB | optimisation | seconds | longest pause ms | segments |")
    print("| --- | --- | --- | --- | --- |")
    queries: list[str] = []
    for kb in [int(k) for k in args.graph_kb.split(",")]:
        name = f"{kb}" if kb else "never"
        with tempfile.TemporaryDirectory() as tmp:
            rng = np.random.default_rng(0)
            s = shard(tmp, 1, kb)
            fill(s, rng, args.points, args.documents)
            for r in range(args.rounds + 1):
                if r:
                    fill(s, rng, args.add)
                took, pause = longest_pause(functools.partial(optimise, s))
                what = "first" if r == 0 else f"after {args.add} more"
                row = f"| {name} | {what} | {took:.1f} | {pause * 1000:.0f} | {s.info().segments_count} |"
                print(row, flush=True)
            for label, flt in filters.items():
                queries.append(f"| {name} | {label} | {query_cpu_ms(s, rng, flt):.2f} |")
            s.close()
    print("\n| graph past KB | query over | CPU ms per query |\n| --- | --- | --- |")
    print("\n".join(queries))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=48000, help="points before the rounds")
    parser.add_argument("--documents", type=int, default=5000, help="of which documents")
    parser.add_argument("--add", type=int, default=7000, help="tool results added each round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", default="1,2,4", help="search threads to compare")
    parser.add_argument("--graph-kb", default="10000,0", help="graph thresholds to compare (0: never)")
    main(parser.parse_args())
