"""seed-sync cost against a full seeding, and a full rebuild, on the seed corpus.

    python scripts/bench_reindex.py [--repeat 3]

In one process, on a fresh embedded index (Qdrant Edge, SQLite): a full seeding of `seed_data/`, then
seed-sync on the unchanged corpus, then seed-sync after one edited document (a paragraph added to one
city guide), each timed; the figures are ratios to the full seeding. Then a full rebuild (re-embed every
point into a new generation, switch, drop the old), timed against the same seeding.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.jobs import definitions  # noqa: E402
from rag.jobs.rebuild import rebuild  # noqa: E402
from rag.settings import SEED_DIR  # noqa: E402
from rag.store.base import generation_name  # noqa: E402
from rag.store.factory import create_store  # noqa: E402
from rag.store.switch import SwitchableStore  # noqa: E402
from scripts._common import open_parts, peak_rss_mib  # noqa: E402

EDITED = "guides/lisbon.md"


async def once(root: Path) -> dict[str, float]:
    seed = root / "seed"
    shutil.copytree(SEED_DIR, seed, ignore=shutil.ignore_patterns("sandbox"))
    async with open_parts(root / "data") as parts:
        out: dict[str, float] = {}
        start = time.perf_counter()
        full = await definitions.seed_sync(parts.ingestor, seed)
        out["full"] = time.perf_counter() - start
        start = time.perf_counter()
        unchanged = await definitions.seed_sync(parts.ingestor, seed)
        out["unchanged"] = time.perf_counter() - start
        assert unchanged["skipped"] == full["added"] and unchanged["chunks"] == 0
        path = seed / EDITED
        path.write_text(path.read_text() + "\n\n## Late additions\n\nThe 28 tram is busiest at noon.\n")
        start = time.perf_counter()
        edited = await definitions.seed_sync(parts.ingestor, seed)
        out["edited"] = time.perf_counter() - start
        out["edited_chunks"] = edited["chunks"]
        out["chunks"] = full["chunks"]
        assert edited["updated"] == 1

        switch = SwitchableStore(parts.store, parts.settings.index.collection)
        start = time.perf_counter()
        rebuilt = await rebuild(
            switch,
            lambda: create_store(
                parts.settings, parts.embedder.dimension, generation_name("wayfarer"), generation=True
            ),
            parts.embedder,
            parts.sparse,
        )
        out["rebuild"] = time.perf_counter() - start
        out["points"] = rebuilt["points"]
        parts.store = switch.current  # so open_parts closes the serving generation
    return out


async def main_async(repeat: int) -> None:
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(await once(Path(tmp)))
            r = runs[-1]
            print(
                f"full seeding {r['full']:.2f} s ({r['chunks']:.0f} chunks); seed-sync unchanged {r['unchanged'] * 1000:.0f} ms "
                f"({r['unchanged'] / r['full']:.4f}x); one edited document {r['edited'] * 1000:.0f} ms, "
                f"{r['edited_chunks']:.0f} chunks ({r['edited'] / r['full']:.3f}x); "
                f"rebuild of {r['points']:.0f} points {r['rebuild']:.2f} s ({r['rebuild'] / r['full']:.2f}x)"
            )
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(
        f"median of {repeat}: unchanged / full {med['unchanged'] / med['full']:.4f} "
        f"(1/{med['full'] / med['unchanged']:.0f}); edited / full {med['edited'] / med['full']:.3f}; "
        f"rebuild / full {med['rebuild'] / med['full']:.2f}; peak RSS {peak_rss_mib():.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main_async(parser.parse_args().repeat))


if __name__ == "__main__":
    main()
