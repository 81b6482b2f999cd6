"""The embedded index's own costs: CPU per query by search threads, and how long an optimisation
stops the whole process.

    python scripts/bench_index.py [--points 48000] [--add 7000] [--rounds 3] [--threads 1,2,4]
                                  [--segment-kb 0,10000]

A Qdrant Edge shard configured as rag.store.edge configures it (one cosine vector of 384 dimensions,
mapped from disk), filled with ``--points`` random unit vectors (fixed seed) and optimised once. Then:

- with ``--fresh`` more points written since that optimisation (as a serving index always has: tool
  results arrive between optimisations), for each of ``--threads`` (Edge's ``max_search_threads``, which
  rag.store.edge sets from ``WAYFARER_INDEX__SEARCH_THREADS``), the CPU time of one nearest-neighbour query of 10, averaged over 200 (the process's CPU, so the threads a
  query fans out to are counted);
- for each of ``--segment-kb`` (Edge's ``max_segment_size``; 0: its default, from the core count),
  ``--rounds`` times: ``--add`` more points, then a flush and an optimisation, as rag.store.edge runs
  one. Meanwhile a Python thread wakes every millisecond; the longest it waited is how long the
  optimisation held Python's lock, during which nothing else in the process (the event loop, every
  request) runs. Reported with the segments the shard then has and the query's CPU after the rounds.

Random vectors are not text embeddings; what is measured is the engine's work, which depends on the
count and size of vectors, not on what they mean.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import threading
import time
import uuid
from collections.abc import Callable

import numpy as np
import qdrant_edge as qe

DIM = 384


def config(threads: int, segment_kb: int) -> qe.EdgeConfig:
    optimizers = qe.EdgeOptimizersConfig(max_segment_size=segment_kb) if segment_kb else None
    return qe.EdgeConfig(
        vectors={"d": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine, memory=qe.Memory.Cold)},
        optimizers=optimizers,
        max_search_threads=threads,
    )


def shard(path: str, threads: int, segment_kb: int) -> qe.EdgeShard:
    return qe.EdgeShard.create(path, config(threads, segment_kb))


def fill(s: qe.EdgeShard, rng: np.random.Generator, n: int) -> None:
    for start in range(0, n, 1000):
        vectors = rng.standard_normal((min(1000, n - start), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        points = [
            qe.Point(str(uuid.uuid4()), {"d": v.tolist()}, {"scope": f"u{i % 50}"})
            for i, v in enumerate(vectors)
        ]
        s.update(qe.UpdateOperation.upsert_points(points))


def query_cpu_ms(s: qe.EdgeShard, rng: np.random.Generator, n: int = 200) -> float:
    q = rng.standard_normal(DIM).astype(np.float32).tolist()
    request = qe.QueryRequest(query=qe.Query.Nearest(q, using="d"), limit=10)
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
    threads = [int(t) for t in args.threads.split(",")]
    sizes = [int(k) for k in args.segment_kb.split(",")]
    print(f"{args.points} points, then {args.rounds} rounds of {args.add}\n")
    print("| search threads | CPU ms per query |\n| --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        s = shard(tmp, 1, 0)
        fill(s, rng, args.points)
        optimise(s)
        fill(s, rng, args.fresh)  # written since the last optimisation, as tool results always are
        s.close()
        for t in threads:
            reopened = qe.EdgeShard.load(tmp, config(t, 0))
            print(f"| {t} | {query_cpu_ms(reopened, rng):.2f} |", flush=True)
            reopened.close()
    print("\n| max segment KB | round | optimisation s | longest pause ms | segments |")
    print("| --- | --- | --- | --- | --- |")
    after: list[str] = []
    for kb in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            rng = np.random.default_rng(0)
            s = shard(tmp, 1, kb)
            fill(s, rng, args.points)
            optimise(s)
            for r in range(args.rounds):
                fill(s, rng, args.add)
                took, pause = longest_pause(functools.partial(optimise, s))
                segments = s.info().segments_count
                print(
                    f"| {kb or 'default'} | {r + 1} | {took:.1f} | {pause * 1000:.0f} | {segments} |",
                    flush=True,
                )
            after.append(f"{kb or 'default'}: {query_cpu_ms(s, rng):.2f} CPU ms per query after the rounds")
            s.close()
    print("\n" + "\n".join(after))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=48000, help="points before the rounds")
    parser.add_argument("--add", type=int, default=7000, help="points added each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fresh", type=int, default=500, help="points written after the last optimisation")
    parser.add_argument("--threads", default="1,2,4", help="search threads to compare")
    parser.add_argument("--segment-kb", default="0,10000", help="max segment sizes (0: Edge's default)")
    main(parser.parse_args())
