"""The embedded index under churn: its memory and files with and without compaction, and what it costs.

    python scripts/bench_index_churn.py [--minutes 4]

Each variant runs in a process of its own, on a fresh Edge shard: 500 lasting points, then steps of
20 tool-result-like points (384 dimensions, a sparse vector, a payload of about a kilobyte, three in
ten overwriting a recent one) with five filtered hybrid searches, the oldest 1,000 deleted whenever
3,000 are live. Variants: ``none`` (no compaction), ``shipped`` (the store's own, every
``COMPACT_EVERY`` points written or deleted). It prints RSS every 30 s, and at the end the log's and
the segments' bytes on disk. Then the cost: 12,000 points written 32 at a time into a fresh shard,
without compaction and with it (ratio in one process).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.embedding.base import SparseVector  # noqa: E402
from rag.store.base import Filter, Point  # noqa: E402
from rag.store.edge import COMPACT_EVERY, EdgeStore  # noqa: E402
from scripts._common import current_rss_mib  # noqa: E402

NEVER = 10**12
WORDS = [f"w{i}" for i in range(3000)]


def _point(rng: random.Random, n: int, payload: dict[str, object]) -> Point:
    return Point(
        str(uuid.UUID(int=n)),
        [rng.random() - 0.5 for _ in range(384)],
        SparseVector(sorted(rng.sample(range(100_000), 30)), [1.0] * 30),
        {"text": " ".join(rng.choice(WORDS) for _ in range(150)), **payload},
    )


def _bytes(directory: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in directory.rglob("*") if f.is_file())


async def churn(compact_every: int, minutes: float) -> None:
    rng = random.Random(1)
    root = Path(tempfile.mkdtemp())
    store = EdgeStore(root, "c", 384, 60, 50, compact_every=compact_every)
    await store.open()
    for k in range(0, 500, 50):
        await store.upsert([_point(rng, n, {"city_norm": "rome", "kind": "guide"}) for n in range(k, k + 50)])
    live: list[str] = []
    n, start, last = 10**6, time.monotonic(), -30.0
    while (elapsed := time.monotonic() - start) < minutes * 60:
        if elapsed - last >= 30:
            last = elapsed
            print(f"  {elapsed / 60:4.1f} min: RSS {current_rss_mib():6.0f} MiB", flush=True)
        batch = []
        for _ in range(20):
            n += 1
            again = rng.random() < 0.3 and len(live) > 100
            ident = int(uuid.UUID(rng.choice(live[-100:]))) if again else n
            batch.append(_point(rng, ident, {"city_norm": rng.choice(["paris", "rome"]), "kind": "tool"}))
            if not again:
                live.append(batch[-1].id)
        await store.upsert(batch)
        for _ in range(5):
            query = SparseVector(sorted(rng.sample(range(100_000), 5)), [1.0] * 5)
            await store.search([rng.random() - 0.5 for _ in range(384)], query, 10, Filter(places=("paris",)))
        if len(live) > 3000:
            old, live = live[:1000], live[1000:]
            await store.delete(old)
    print(f"  end: RSS {current_rss_mib():.0f} MiB, {store.compactions} compactions", flush=True)
    await store.close()
    shard = root / "c"
    print(
        f"  on disk: log {_bytes(shard / 'wal') >> 20} MiB, segments {_bytes(shard / 'segments') >> 20} MiB"
    )


async def write_cost(compact_every: int, points: int = 12_000) -> float:
    rng = random.Random(0)
    store = EdgeStore(Path(tempfile.mkdtemp()), "c", 384, 60, 40, compact_every=compact_every)
    await store.open()
    start = time.perf_counter()
    for k in range(0, points, 32):
        await store.upsert([_point(rng, n + 1, {"city_norm": "rome"}) for n in range(k, k + 32)])
    took = time.perf_counter() - start
    await store.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=4)
    parser.add_argument("--variant", choices=["none", "shipped"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:  # a child: one variant in a process of its own, so that RSS is its own
        asyncio.run(churn(NEVER if args.variant == "none" else COMPACT_EVERY, args.minutes))
        return
    for variant in ("none", "shipped"):
        print(f"churn, compaction {variant}:", flush=True)
        subprocess.run(
            [sys.executable, __file__, "--variant", variant, "--minutes", str(args.minutes)], check=True
        )
    off, on = asyncio.run(write_cost(NEVER)), asyncio.run(write_cost(COMPACT_EVERY))
    print(f"12,000 points written: {off:.1f} s without compaction, {on:.1f} s with ({on / off:.1f}x)")


if __name__ == "__main__":
    main()
